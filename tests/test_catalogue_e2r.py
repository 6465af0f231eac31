"""The BBGG-E2r validation scenario: LaplaceMechanism(1) >> LaplaceKernel(1) ** r, the rule's delta vs Monte Carlo."""

from __future__ import annotations

import numpy as np

import markovdp as md
from markovdp.sweeps import open_executor, run_sweep
from markovdp.validation import SCENARIOS
from markovdp.validation.catalogue_e2r import BBGG_E2R, e2r_bound, e2r_pipeline


def test_the_scenario_is_built_in_and_its_bound_is_the_rule():
    assert SCENARIOS["BBGG-E2r"] is BBGG_E2R
    for r in (1, 2, 5):
        bound, theorem, candidates = e2r_bound({"r": r, "eps": 0.5})
        rule = md.certify(e2r_pipeline(r, 0.5), rules=["BBGG-E2r"]).candidates["BBGG-E2r"]
        assert theorem == "BBGG-E2r" and bound == float(rule.delta(0.5)) == candidates["BBGG-E2r"]
        assert bound < candidates["POST"]  # POST is the mechanism's own 1 − e^(−1/4)


def test_quick_run_is_ok_and_the_bound_is_above_the_lower_confidence_limit():
    with open_executor("synchronous") as executor:
        ds = run_sweep(BBGG_E2R, samples=20_000, seed=5, quick=True, executor=executor)
    assert (ds["verdict"] == 0).all()
    assert np.all(ds["ci_low"].values <= ds["bound"].values)
    exact, bound = ds["exact"].values.ravel(), ds["bound"].values.ravel()
    known = np.isfinite(exact)  # r = 1 (BBGG-E2's exact law); longer chains once the library knows them
    assert known[0] and np.all(exact[known] <= bound[known])
