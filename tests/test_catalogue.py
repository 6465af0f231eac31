"""The validation catalogue run in-process: every scenario sound on its quick grid, the verdict able to
fail, the report written. The full grids are `slow` (`python -m pytest -m slow`)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from markovdp.report import rows, write_report
from markovdp.sweeps import VIOLATION, open_executor, run_sweep
from markovdp.validation import SCENARIOS, get_scenario
from markovdp.validation.catalogue import bbgg_pipeline, bbgg_witness
from markovdp.validation.scenario import certified_delta

SAMPLES = 20_000


@pytest.fixture(scope="module")
def quick_results():
    with open_executor("synchronous") as executor:
        return {name: run_sweep(s, samples=SAMPLES, seed=11, quick=True, executor=executor)
                for name, s in SCENARIOS.items()}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_is_sound_on_its_quick_grid(quick_results, name):
    ds = quick_results[name]
    assert (ds["verdict"] == 0).all(), rows(ds)
    assert ds.attrs["theory_id"] == SCENARIOS[name].theory_id
    if SCENARIOS[name].estimator != "none":
        assert np.isfinite(ds["ci_low"]).all() and (ds["ci_low"] <= ds["ci_high"]).all()


def test_bbgg_t1_grid_exercises_every_rule_and_amplifies(quick_results):
    ds = quick_results["BBGG-T1"]
    winners = set(np.asarray(ds["bound_theorem"]).ravel())
    assert "BBGG-T1.2" in winners  # the strongest case of BBGG-T1 at a fixed eps
    for rule in ("BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3"):  # always applicable to finite kernels
        assert ds["candidate_bound"].sel(theorem=rule).notnull().all()
    # amplification is real: somewhere the best bound is strictly below the mechanism's own curve (POST)
    post = ds["candidate_bound"].sel(theorem="POST")
    assert (ds["bound"] < post - 1e-3).any()
    assert (ds["candidate_bound"].sel(theorem="BBGG-T1.4").isnull()).any()  # sparse lazy kernel


def test_a_bound_that_is_too_small_is_flagged(quick_results):
    """The verdict pipeline can fail: halving every BBGG-T1 bound must produce violations."""
    unsound = dataclasses.replace(get_scenario("BBGG-T1"), name="BBGG-T1-halved", bound=halved_bound)
    with open_executor("synchronous") as executor:
        ds = run_sweep(unsound, samples=SAMPLES, seed=11, quick=True, executor=executor)
    assert (ds["verdict"] == VIOLATION).sum() >= 10


def halved_bound(point):
    bound, theorem, candidates = certified_delta(bbgg_pipeline(**point), point["eps"])
    return bound / 2, theorem, {k: v / 2 for k, v in candidates.items()}


def test_declared_witness_is_the_declared_guarantee():
    pipe = bbgg_witness("declared", "rr", 0.5, 1.0)
    assert pipe.mechanism.matrix.shape == (2, 4)


def test_report_is_written_with_a_plot_per_scenario(quick_results, tmp_path):
    path = write_report(quick_results.values(), tmp_path, "markovdp validate --quick")
    text = path.read_text()
    for name in SCENARIOS:
        assert f"## {name}" in text
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
    assert "0 violations" in text


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_is_sound_on_its_full_grid(name):
    with open_executor(None) as executor:
        ds = run_sweep(SCENARIOS[name], samples=200_000, seed=12, quick=False, executor=executor)
    assert (ds["verdict"] == 0).all(), rows(ds)
