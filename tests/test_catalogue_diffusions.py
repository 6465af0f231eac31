"""The BBGG §5 validation scenarios (markovdp/validation/catalogue_diffusions.py): sound on their quick grids, tight
where they claim equality, able to fail (a wrong BBGG-S merge is caught), picklable; the grid transition density
of the non-Gaussian scenario held against the Ornstein–Uhlenbeck closed forms (BBGG-OU, BBGG-C7)."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest

import markovdp as md
from markovdp.report import rows
from markovdp.sweeps import VIOLATION, open_executor, run_sweep
from markovdp.validation.catalogue_diffusions import (
    DIFFUSION_SCENARIOS,
    GRID_STEP,
    T6_PAIR,
    GradientDiffusion,
    closure_merged,
    gradient_sde,
    gradient_semigroup,
)

SAMPLES = 20_000
SCENARIOS = {s.name: s for s in DIFFUSION_SCENARIOS}


@pytest.fixture(scope="module")
def quick_results():
    with open_executor("synchronous") as executor:
        return {name: run_sweep(s, samples=SAMPLES, seed=11, quick=True, executor=executor)
                for name, s in SCENARIOS.items()}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_diffusion_scenario_is_sound_on_its_quick_grid(quick_results, name):
    ds = quick_results[name]
    assert (ds["verdict"] == 0).all(), rows(ds)
    assert ds.attrs["theory_id"] == SCENARIOS[name].theory_id
    if SCENARIOS[name].estimator != "none":
        assert np.isfinite(ds["ci_low"]).all()


@pytest.mark.parametrize("name", [n for n, s in SCENARIOS.items() if s.target == "equality"])
def test_tight_scenarios_equal_the_exact_value_to_1e_10(quick_results, name):
    """BBGG-BM (alpha Δ²/(4t); the Gaussian mechanism with sigma² = 2t), BBGG-C7 and BBGG-S (merged vs pushed):
    each closed form equals the exact value of an independent computation to 1e-10 relative."""
    ds = quick_results[name]
    np.testing.assert_allclose(ds["exact"].values, ds["bound"].values, rtol=1e-10, atol=0)


def test_the_rules_named_are_the_ones_validated(quick_results):
    """The bound is the BBGG-BM / BBGG-C7 / BBGG-T6 rule's own (not the exact MECH rule); the numerical BBGG-T6
    reproduces C7's closed form on the OU points; the RDP-converted profiles bound the exact hockey-stick."""
    assert set(np.asarray(quick_results["BBGG-BM"]["bound_theorem"]).ravel()) == {"BBGG-BM"}
    c7 = quick_results["BBGG-C7"]
    assert set(np.asarray(c7["bound_theorem"]).ravel()) == {"BBGG-C7"}
    np.testing.assert_allclose(c7["candidate_bound"].sel(theorem="BBGG-T6"), c7["bound"], rtol=1e-6)
    bm_hs = quick_results["BBGG-BM-hockey-stick"]
    assert (bm_hs["candidate_bound"].sel(theorem="BBGG-BM") >= bm_hs["exact"]).all()
    t6 = quick_results["BBGG-T6-double-well"]
    assert set(np.asarray(t6["bound_theorem"]).ravel()) == {"BBGG-T6"}


def test_monte_carlo_of_the_non_gaussian_diffusion_matches_the_grid_profile(quick_results):
    """Euler–Maruyama paths (dt = 2e-3) against the grid chain's exact hockey-stick: the lower confidence limit
    is below it, and the split-sample estimate within 0.03 (its CI half-width at 2·10^4 samples is ~0.02)."""
    ds = quick_results["BBGG-T6-double-well"]
    assert (ds["ci_low"] <= ds["exact"]).all(), rows(ds)
    np.testing.assert_allclose(ds["estimate"], ds["exact"], atol=0.03)


def test_t8_monte_carlo_and_closed_forms(quick_results):
    """E_OU/E_GM <= 1 on the hypothesis; the two BBGG-MSE routes agree; the Monte Carlo E_OU is within 5
    standard errors (20000 draws, fixed seed)."""
    ds = quick_results["BBGG-T8"]
    assert (ds["exact"] <= 1.0).all() and (ds["exact"] > 0.0).all()
    assert float(np.abs(ds["ratio_formula_gap"]).max()) < 1e-12
    assert float(np.abs(ds["mse_mc_z"]).max()) < 5.0
    assert float(np.abs(ds["mse_mc_relative_error"]).max()) < 0.05


def _wrong_merge(time_of):
    """BBGG-S with a bound from a mis-merged mechanism at `time_of(t, s)` (the witness stays unmerged)."""

    def bound(point):
        mechanism = md.DiffusionMechanism(closure_merged(**point).semigroup, time_of(point["t"], point["s"]), 1.0)
        value = float(md.privacy_profile(mechanism, point["eps"]))
        return value, "BBGG-S", {"BBGG-S": value}

    return bound


@pytest.mark.parametrize("time_of", [lambda t, s: t + 2 * s, lambda t, s: t + s / 2], ids=["t+2s", "t+s/2"])
def test_closure_scenario_catches_a_wrong_merge(time_of):
    """A merge to t + 2s (too private) or t + s/2 (not private enough) is flagged at every grid point by the exact
    value of the unmerged pipeline; t + 2s is also caught by the Monte Carlo of the two-step sampling alone."""
    wrong = dataclasses.replace(SCENARIOS["BBGG-S"], name="BBGG-S-wrong", bound=_wrong_merge(time_of))
    with open_executor("synchronous") as executor:
        ds = run_sweep(wrong, samples=SAMPLES, seed=11, quick=True, executor=executor)
        assert (ds["verdict"] == VIOLATION).all(), rows(ds)
        if time_of(1.0, 1.0) == 3.0:
            blind = dataclasses.replace(wrong, exact=lambda point: math.nan)
            ds = run_sweep(blind, samples=SAMPLES, seed=11, quick=True, executor=executor)
            assert (ds["verdict"] == VIOLATION).sum() >= 2, rows(ds)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_pickles(name):
    """Scenarios go to dask workers: every factory is module-level (numba maps are built on the worker)."""
    scenario = pickle.loads(pickle.dumps(SCENARIOS[name]))
    assert scenario == SCENARIOS[name]


def test_grid_density_of_the_harmonic_potential_is_the_ou_transition():
    """V = x²/2 is OU with theta = rho = 1 (BBGG-OU): the grid density matches N(e^(−t) x, 1 − e^(−2t)) to 2e-4 of
    its peak, and the numerical BBGG-T6 on it matches BBGG-C7's Lambda(t) to 1e-3 (grid error O(h²), h = 0.025)."""
    grid = gradient_semigroup("harmonic")
    ou = md.OrnsteinUhlenbeckSemigroup(1.0, 1.0)
    y = np.linspace(-3.0, 3.0, 31) + 0.0123
    for t in (0.25, 1.0):
        for x in (-0.5, 0.0, 1.0):
            p, q = np.exp(grid.log_density(t, x, y)), np.exp(ou.log_density(t, np.array(x), y))
            assert np.max(np.abs(p - q)) <= 2e-4 * q.max()
    bound = md.certify(md.DiffusionMechanism(grid, 0.5, 1.0), rules=["BBGG-T6"]).candidates["BBGG-T6"]
    exact = md.renyi_profile(md.DiffusionMechanism(ou, 0.5, 1.0), 2.0)
    assert bound.renyi(2.0) == pytest.approx(exact, rel=1e-3)


def test_gradient_diffusion_refuses_bad_input():
    with pytest.raises(ValueError, match="potential"):
        GradientDiffusion(gradient_sde("quartic"), potential="sextic")
    grid = gradient_semigroup("quartic")
    with pytest.raises(ValueError, match="`x`"):
        grid.log_density(0.5, 0.5 * GRID_STEP, [0.0])
    with pytest.raises(ValueError, match="`y`"):
        grid.log_density(0.5, 0.0, [4.0])
    with pytest.raises(ValueError, match="rounding"):  # P_0.05(0, ·) at y = 3.4 is below the grid's rounding
        grid.log_density(0.05, 0.0, [0.0, 3.4])
    with pytest.raises(ValueError, match="`sde`"):
        GradientDiffusion(gradient_sde("harmonic"), potential="quartic")
    with pytest.raises(ValueError, match="`t`"):
        grid.transition(0.0, T6_PAIR[0])
