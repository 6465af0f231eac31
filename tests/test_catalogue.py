"""The validation catalogue run in-process: every scenario sound on its quick grid, the verdict able to
fail, the report written. The full grids are `slow` (`python -m pytest -m slow`)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from oracles import black_box_worst_case_lp, hockey_stick_bruteforce

import markovdp as md
from markovdp.report import rows, write_report
from markovdp.sweeps import VIOLATION, open_executor, run_sweep
from markovdp.validation import SCENARIOS, Scenario, get_scenario
from markovdp.validation.catalogue import DECLARED, bbgg_pipeline, bbgg_witness, kernel_family
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
        # ci_low is always a valid bound; ci_high is one or NaN (the split estimator claims no upper side)
        assert np.isfinite(ds["ci_low"]).all() and ((ds["ci_low"] <= ds["ci_high"]) | ds["ci_high"].isnull()).all()


@pytest.mark.parametrize("name", [n for n, s in SCENARIOS.items() if s.target == "equality"])
def test_bounds_claimed_tight_equal_the_exact_value_to_1e_10(quick_results, name):
    """Where a scenario claims its bound is the truth (STD closed forms, BBGG-E1, BBGG-E3 for linear maps), exact
    equals bound to 1e-10 relative at every grid point."""
    ds = quick_results[name]
    np.testing.assert_allclose(ds["exact"].values, ds["bound"].values, rtol=1e-10, atol=0)


def test_bbgg4_scenarios_name_the_winning_theorem_and_amplify(quick_results):
    """T4opt wins for L < 1 and r >= 2 on the chains; noisy SGD is certified by T5opt away from the last index;
    post-processing amplifies RDP (the best bound is below the mechanism's own, POST)."""
    t4 = quick_results["BBGG-T4"]
    assert str(t4["bound_theorem"].sel(L=0.5, r=5, alpha=2.0).values) == "BBGG-T4opt"
    assert (t4["bound"] < t4["candidate_bound"].sel(theorem="POST")).all()
    t5 = quick_results["BBGG-T5"]
    assert str(t5["bound_theorem"].sel(index=1).values.ravel()[0]) == "BBGG-T5opt"
    projected = quick_results["BBGG-T4-projected"]
    assert set(np.asarray(projected["bound_theorem"]).ravel()) <= {"BBGG-T4opt", "BBGG-T4", "BBGG-E3"}


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


# -- BBGG-T1's DeclaredDP rows: the exact worst case of the whole class, its worst member sampled -------
def test_declared_rows_compare_with_the_worst_case_of_the_whole_class(quick_results):
    """exact = sup over every (2, 0.05)-DP mechanism of delta(M >> K), held against a linear programme over
    the definition of DP (tests/oracles.py, independent of STD-BlackBoxExact's canonical points)."""
    declared = quick_results["BBGG-T1"].sel(mechanism="declared")
    for point in declared.stack(p=["kernel", "strength", "eps"])["p"].values:
        kernel, strength, eps = point
        row = declared.sel(kernel=kernel, strength=strength, eps=eps)
        truth = black_box_worst_case_lp(kernel_family(kernel, strength).matrix, *DECLARED, eps)
        assert float(row["exact"]) == pytest.approx(truth, abs=1e-8)
        # the four-point witness is one member of the class: never above the class's worst case
        four_point = md.privacy_profile(md.DeclaredDP(*DECLARED).witness() >> kernel_family(kernel, strength), eps)
        assert four_point <= float(row["exact"]) + 1e-12


def test_the_sampled_witness_is_the_worst_member_at_each_eps():
    for kernel, strength, eps in (("rr", 0.3, 0.25), ("random", 0.8, 1.0), ("lazy", 0.3, 1.0)):
        witness = bbgg_witness("declared", kernel, strength, eps)
        rows = witness.mechanism.matrix  # an (eps0, delta0)-DP pair of laws on K's inputs, checked by brute force
        assert hockey_stick_bruteforce(rows[0], rows[1], DECLARED[0]) <= DECLARED[1] + 1e-12
        assert hockey_stick_bruteforce(rows[1], rows[0], DECLARED[0]) <= DECLARED[1] + 1e-12
        truth = black_box_worst_case_lp(kernel_family(kernel, strength).matrix, *DECLARED, eps)
        assert md.privacy_profile(witness, eps) == pytest.approx(truth, abs=1e-8)


def test_tightness_is_exact_over_bound_and_nan_at_a_zero_bound(quick_results):
    ds = quick_results["BBGG-T1"]
    assert ds["tightness"].attrs["units"] == "1" and "exact / certified bound" in ds["tightness"].attrs["long_name"]
    bound, exact, ratio = (ds[v].values.ravel() for v in ("bound", "exact", "tightness"))
    zero = bound == 0
    assert np.isnan(ratio[zero]).all()
    np.testing.assert_array_equal(ratio[~zero], exact[~zero] / bound[~zero])
    assert (ratio[~zero] <= 1 + 1e-9).all() and (ratio[~zero] > 0).any()
    assert "tightness" not in quick_results["AAC-T1"]  # only scenarios that declare it


# -- custom scenarios ------------------------------------------------------------------------------------
def gaussian_pipeline(sigma, eps):
    return md.GaussianMechanism(sigma) >> md.GaussianKernel(1.0)


@pytest.mark.parametrize(("extra", "missing"), [({}, "`pair`"), ({"estimator": "continuous"}, "`pair` and `bins`"),
                                                ({"estimator": "continuous", "pair": lambda **p: (0.0, 1.0)},
                                                 "`bins`")])
def test_a_continuous_custom_scenario_without_pair_or_bins_fails_at_construction(extra, missing):
    with pytest.raises(TypeError, match=missing) as info:
        Scenario(name="MINE", theory_id="STD-GaussHS", description="", grid_full={"sigma": (1.0,), "eps": (1.0,)},
                 grid_quick={"sigma": (1.0,), "eps": (1.0,)}, pipeline=gaussian_pipeline, **extra)
    assert "MINE" in str(info.value) and "bins" in str(info.value)
