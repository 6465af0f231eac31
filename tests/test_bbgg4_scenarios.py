"""BBGG §4 wired together: scenarios that validate Rényi bounds and R^d outputs, the BBGG-E1 rule on isotropic
affine kernels, and projected Lipschitz steps (`lipschitz_everywhere`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import markovdp as md
from markovdp.sweeps import open_executor, run_sweep
from markovdp.validation import Scenario
from markovdp.validation.catalogue_bbgg4 import pure_eps_ratio, rdp_gain


def _rotation(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])


@pytest.mark.parametrize("a, theta, s1, s2", [(2.0, 0.3, 1.0, 0.7), (0.25, 2.0, 0.5, 1.5), (1.0, 0.0, 1e-3, 1.0)])
def test_bbgg_e1_rule_on_an_isotropic_affine_kernel_is_tight(a, theta, s1, s2):
    """BBGG-E1: y = a Q x + b + N(0, s2² I) after N(f(D), s1² I) is alpha Delta²/(2(s1² + s2²/a²))-RDP, and the
    exact RDP (the worst direction of the ball, computed from the covariance) equals it to 1e-10."""
    pipeline = md.GaussianMechanism(s1, dim=2) >> md.AffineGaussianKernel(a * _rotation(theta), [0.1, -0.2], s2)
    alpha = np.array([1.5, 2.0, 10.0, 100.0])
    cert = md.certify(pipeline)
    assert cert.best(alpha=2.0).theorem == "BBGG-E1"
    closed = alpha / (2.0 * (s1**2 + s2**2 / a**2))
    np.testing.assert_allclose(cert.renyi(alpha), closed, rtol=1e-10)
    np.testing.assert_allclose(md.renyi_profile(pipeline, alpha), closed, rtol=1e-10)


def test_bbgg_e1_rule_refuses_a_non_isotropic_affine_kernel():
    pipeline = md.GaussianMechanism(1.0, dim=2) >> md.AffineGaussianKernel(np.diag([2.0, 0.5]), 0.0, 0.7)
    assert "isotropic" in md.certify(pipeline).reasons()["BBGG-E1"]


def test_lipschitz_everywhere_is_checked_on_the_whole_space():
    """x ↦ x²/4 is 1-Lipschitz on [-2, 2] but not on R: declared on W it is accepted, declared everywhere refused."""

    @njit
    def quarter_square(x):
        return 0.25 * x * x

    box = md.Box(-2.0, 2.0)
    assert not md.LipschitzGaussianKernel(quarter_square, 1.0, 1.0, projection=box).lipschitz_everywhere
    with pytest.raises(ValueError, match="lipschitz"):
        md.LipschitzGaussianKernel(quarter_square, 1.0, 1.0, projection=box, lipschitz_everywhere=True)
    with pytest.raises(TypeError, match="lipschitz_everywhere"):
        md.LipschitzGaussianKernel(quarter_square, 1.0, 1.0, projection=box, lipschitz_everywhere="yes")


def test_projected_chains_of_built_in_maps_are_certified_and_sound_by_monte_carlo():
    """BBGG-T4opt on r projected tanh steps (built-in map, Lipschitz on R): the bound holds against the Monte Carlo
    lower limit of the Rényi divergence of the sampled outputs (a valid lower bound by data processing)."""
    psi, lipschitz = md.tanh_map(0.5)
    step = md.LipschitzGaussianKernel(psi, lipschitz, 0.5, projection=md.Ball(1, 1.0))
    pipeline = md.GaussianMechanism(0.5) >> step ** 3
    cert = md.certify(pipeline)
    assert cert.best(alpha=2.0).theorem == "BBGG-T4opt"
    rng = np.random.default_rng(7)
    n = 200_000
    y0, y1 = pipeline.sample(np.zeros(n), rng=rng), pipeline.sample(np.ones(n), rng=rng)
    est = md.estimate_renyi(y0, y1, alpha=2.0, bins=np.linspace(-1.0, 1.0, 9))
    assert est.ci_low <= cert.renyi(2.0)


def test_a_renyi_scenario_on_r2_projects_on_the_shift_direction_and_is_sound():
    """Scenario.quantity is read from the grid (alpha → "renyi"); outputs in R^2 are projected on the direction
    of the two inputs before binning, so the lower confidence limit stays below the exact (tight) RDP."""
    scenario = Scenario(
        name="E1-on-R2", theory_id="BBGG-E1", description="test",
        grid_full={"alpha": (2.0,)}, grid_quick={"alpha": (2.0, 4.0)},
        pipeline=r2_pipeline, pair=r2_pair, target="equality", estimator="continuous", bins=r2_bins)
    assert scenario.quantity == "renyi" and scenario.label == "Rényi divergence" and scenario.units == "nats"
    with open_executor("synchronous") as executor:
        ds = run_sweep(scenario, samples=40_000, seed=3, quick=True, executor=executor)
    assert (ds["verdict"] == 0).all()
    exact = ds["exact"].values
    np.testing.assert_allclose(exact, np.array([2.0, 4.0]) * 2.0**2 / (2.0 * (1.0 + 0.5**2)), rtol=1e-12)
    assert np.all(ds["ci_low"].values <= exact) and np.all(ds["ci_low"].values > 0.0)
    assert "Rényi divergence" in ds["exact"].attrs["long_name"]


def r2_pipeline(alpha: float) -> md.PostProcessed:
    return md.GaussianMechanism(1.0, sensitivity=2.0, dim=2) >> md.GaussianKernel(0.5, dim=2)


def r2_pair(alpha: float) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(2), np.array([0.0, 2.0])


def r2_bins(alpha: float) -> np.ndarray:
    return np.linspace(-2.0, 4.0, 13)


def test_scenario_quantity_must_match_its_grid():
    with pytest.raises(ValueError, match="alpha"):
        Scenario(name="x", theory_id="BBGG-E1", description="", grid_full={"eps": (1.0,)},
                 grid_quick={"eps": (1.0,)}, pipeline=r2_pipeline, quantity="renyi", estimator="none")
    with pytest.raises(ValueError, match="quantity"):
        Scenario(name="x", theory_id="BBGG-E1", description="", grid_full={"eps": (1.0,)},
                 grid_quick={"eps": (1.0,)}, pipeline=r2_pipeline, quantity="tv", estimator="none")


@pytest.mark.parametrize("l1, l2", [(1.0, 0.5), (0.5, 2.0), (1.0, 1.0)])
def test_bbgg_l3_scenario_variables(l1, l2):
    """BBGG-L3: the exact pure eps of Laplace then Laplace is Delta / max(l1, l2) (ratio 1 to a few ulps, never
    below), while the exact RDP at alpha = 2 is strictly below the mechanism's own."""
    point = {"l1": l1, "l2": l2, "alpha": 2.0}
    ratio = pure_eps_ratio(point, {})
    assert 1.0 <= ratio <= 1.0 + 1e-14
    assert rdp_gain(point, {}) < 1.0
