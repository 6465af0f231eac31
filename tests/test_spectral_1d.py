"""BBGG-T6-1D (markovdp/diffusions/spectral_1d.py and the BBGG-T6 rule's spectral-1d route): a user's
one-dimensional SDE certified from its coefficients. OU written as a user SDE against the BBGG-C7 closed form
(Lambda and kappa), the grid chain against reversibility, the invariant window against the normal tail, the double
well against an independent discretisation (GradientDiffusion's square-root grid, its own search over y) and
against the Monte Carlo of Euler–Maruyama paths; refusals naming what fails."""

from __future__ import annotations

import functools
import math
import pickle

import numpy as np
import pytest
from numba import njit
from scipy.stats import norm

import markovdp as md
from markovdp.diffusions import SDE, DiffusionSemigroup
from markovdp.diffusions.intrinsic_sensitivity import ou_intrinsic_sensitivity
from markovdp.diffusions.spectral_1d import (
    MODE_CUTOFF,
    SAFETY,
    TAIL_LOG,
    _refinement,
    _tridiagonal_modes,
    invariant_window,
    kappa,
    spectral_grid,
    spectral_grids,
    spectral_intrinsic_sensitivity,
)
from markovdp.sweeps import open_executor, run_sweep
from markovdp.validation.builtin import SCENARIOS
from markovdp.validation.catalogue_t6_1d import BBGG_T6_1D, T6_1D_SCENARIOS, user_sde


@functools.cache
def ou_sde(theta: float, rho: float) -> SDE:
    """dX = −theta X dt + sqrt(2) rho dW as a user writes it (the OU semigroup of BBGG-OU)."""
    scale = math.sqrt(2.0) * rho
    return SDE(njit(lambda x: -theta * x), njit(lambda x: scale * np.ones(1)), 1)


#: OU (rho = 1) over t in [0.05, 20] x theta in {0.5, 1, 2} x Delta in {0.5, 1, 2}: a Latin design (each t meets
#: every theta and every Delta; t = 0.05 with theta = 0.5, Delta = 2: the largest Lambda, 19.5, and the largest grid).
OU_TIMES = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 20.0)
OU_CASES = [(theta, (0.5, 1.0, 2.0)[(i + j + 2) % 3], t) for j, t in enumerate(OU_TIMES)
            for i, theta in enumerate((0.5, 1.0, 2.0))]


@pytest.mark.parametrize(("theta", "delta", "t"), OU_CASES)
def test_ou_as_a_user_sde_is_at_least_c7_and_within_1e_4(theta, delta, t):
    """Lambda of BBGG-T6-1D (Richardson estimate + grid error + quadrature error) >= the BBGG-C7 closed form and
    within 1e-4 of it, and within 1e-5 relative (measured: at most 1.9e-5 absolute, 1.7e-6 relative); the grids
    converge at second order (d2/d1 within 0.02 of 1/4, so Richardson applies), the error term covers the estimate's
    true error and is not vacuous (at most 1e-5 of Lambda), and the worst pair is at distance Delta."""
    found = spectral_intrinsic_sensitivity(ou_sde(theta, 1.0), delta, t)
    closed = ou_intrinsic_sensitivity(theta, 1.0, delta, t)
    assert closed <= found.value <= closed + 1e-4
    assert found.value - closed <= 1e-5 * closed
    assert found.refinement == "richardson" and found.ratio == pytest.approx(0.25, abs=0.02)
    assert abs(found.estimate - closed) <= found.grid_error <= 1e-5 * closed
    assert found.pair[1] - found.pair[0] == pytest.approx(delta, rel=1e-12)


def test_richardson_and_geometric_refinement_errors_cover_the_limit():
    """`_refinement` on sequences with the limit 1. L(h) = 1 + h² − 2h⁴ at h = 0.1, 0.05, 0.025 is second order:
    the extrapolation (4 L(h/2) − L(h))/3 = 1 + h⁴/2 of the finest pair is 1 + 3.125e-6, its error 2 |E2 − E1| =
    9.375e-5 (E1 = 1 + 5e-5). Geometric errors 0.1 x 0.4^k and alternating ones 0.1 (−1/4)^k are not second order:
    the finest value, with SAFETY x the geometric tail |d2| r/(1 − r), which covers the limit; a ratio of 0.9 does
    not converge (None)."""
    second = [1.0 + h**2 - 2.0 * h**4 for h in (0.1, 0.05, 0.025)]
    estimate, error, quadrature, ratio, method = _refinement(second, [0.0] * 3)
    assert method == "richardson" and ratio == pytest.approx(0.25, abs=0.02) and quadrature == 0.0
    assert estimate == pytest.approx(1.0 + 3.125e-6, abs=1e-12) and error == pytest.approx(9.375e-5, rel=1e-6)
    for q in (0.4, -0.25):
        values = [1.0 + 0.1 * q**k for k in range(3)]
        estimate, error, _, ratio, method = _refinement(values, [0.0] * 3)
        assert method == "geometric" and ratio == pytest.approx(q) and estimate == values[-1]
        assert abs(estimate - 1.0) <= error <= 2.0 * SAFETY * abs(estimate - 1.0)
    assert _refinement([1.0 + 0.1 * 0.9**k for k in range(3)], [0.0] * 3) is None


def test_dstemr_through_ctypes_is_scipys_eigh_tridiagonal():
    """`_tridiagonal_modes` (LAPACK dstemr called directly, Z sized to the modes) returns what scipy's wrapper
    `eigh_tridiagonal(..., lapack_driver="stemr")` does: the eigenvalues above a bound and the top 3, with their
    eigenvectors, on a random symmetric tridiagonal matrix (to 1e-12 relative; vectors up to sign)."""
    from scipy.linalg import eigh_tridiagonal

    rng = np.random.default_rng(7)
    diagonal, off = -rng.uniform(1.0, 100.0, 400), rng.uniform(0.1, 10.0, 399)
    for kwargs, select in (({"lower": -30.0}, {"select": "v", "select_range": (-30.0, np.inf)}),
                           ({"top": 3}, {"select": "i", "select_range": (397, 399)})):
        mu, vectors = _tridiagonal_modes(diagonal, off, **kwargs)
        expected, expected_vectors = eigh_tridiagonal(diagonal, off, lapack_driver="stemr", **select)
        assert mu.size == expected.size > 0
        np.testing.assert_allclose(mu, expected, rtol=1e-12)
        np.testing.assert_allclose(np.abs(vectors.T @ expected_vectors), np.eye(mu.size), atol=1e-10)


def test_a_state_dependent_diffusion_through_the_lamperti_transform_of_ou():
    """X = sinh(Y) with dY = −Y dt + dW (OU, theta = 1, rho = 1/√2) solves dX = u dt + v dW with v = sqrt(1 + x²),
    u = −sqrt(1 + x²) asinh(x) + x/2 (Itô). Y = asinh(X) is a bijective post-processing, so Lambda_X for query values
    at distance 1 is Lambda_C7 at the largest Y-distance asinh(x') − asinh(x), 2 asinh(1/2) at the pair ±1/2
    (asinh' = (1 + x²)^(−½) is largest at 0). Checked at t = 1: >= that closed form, within 1e-5 (measured 4.7e-6:
    the wide window, |x| <= 132, holds the grids to 7417 nodes), and the reported grid error covers the grid
    estimate's true error."""
    sde = SDE(njit(lambda x: -np.sqrt(1.0 + x**2) * np.arcsinh(x) + 0.5 * x), njit(lambda x: np.sqrt(1.0 + x**2)), 1)
    found = spectral_intrinsic_sensitivity(sde, 1.0, 1.0)
    closed = ou_intrinsic_sensitivity(1.0, 1.0 / math.sqrt(2.0), 2.0 * math.asinh(0.5), 1.0)
    assert closed <= found.value <= closed + 1e-5
    assert abs(found.estimate - closed) <= found.grid_error
    assert found.pair == pytest.approx((-0.5, 0.5), abs=1e-6)


def test_kappa_of_ou_on_the_grid_is_the_closed_form():
    """kappa(s) = rho² e^(−2 theta s) Delta² / s_s⁴, s_s² = (rho²/theta)(1 − e^(−2 theta s)) (h_s is linear in y
    with that slope, Gamma = rho² h'²), on the grid of step 1/128 over the window: within 1e-4 relative at s in
    {0.5, 0.58, 0.73, 1, 3}, for the central pair ±1/2 and the pair (2, 3) whose laws reach the window's thin tail
    (the reliable y are chosen by the transition probabilities: by the symmetrised kernel the rounding near the wall
    gave +1.2e-3 at s = 0.58)."""
    theta, rho = 1.0, 1.0
    window = invariant_window(ou_sde(theta, rho))
    grid = spectral_grid(ou_sde(theta, rho), math.floor(128 * window.lower), math.ceil(128 * window.upper), 1 / 128,
                         MODE_CUTOFF / 0.5)
    for x in (-0.5, 2.0):
        rows = np.array([int(np.argmin(np.abs(grid.nodes - x)))])
        partners = np.array([int(np.argmin(np.abs(grid.nodes - x - 1.0)))])
        delta = float(grid.nodes[partners[0]] - grid.nodes[rows[0]])
        for s in (0.5, 0.58, 0.73, 1.0, 3.0):
            variance = rho**2 / theta * -math.expm1(-2.0 * theta * s)
            closed = rho**2 * math.exp(-2.0 * theta * s) * delta**2 / variance**2
            assert kappa(grid, s, rows, partners)[0] == pytest.approx(closed, rel=1e-4)


def test_the_grid_chain_is_reversible_and_keeps_pi():
    """The finite-volume chain is reversible w.r.t. its discretised pi (w_i P_t(i, j) = w_j P_t(j, i)), its rows
    sum to 1, and w P_t = w: checked on the coarsest grid of the double well from the full matrix P_t."""
    grid = spectral_grids(user_sde("double_well"), 1.0, 0.5)[0]
    w = np.exp(grid.log_weights)
    idx = np.arange(0, grid.nodes.size, 7)
    rows = np.stack([grid.transition(0.3, grid.nodes[i]) for i in idx])
    flux = w[idx, None] * rows[:, idx]
    np.testing.assert_allclose(flux, flux.T, atol=1e-13)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-10)
    full = np.stack([grid.transition(0.3, x) for x in grid.nodes])
    np.testing.assert_allclose(w @ full, w, atol=1e-12)


def test_the_invariant_window_of_ou_is_the_normal_tail():
    """OU(theta = rho = 1): pi = N(0, 1), so the grid covers |x| <= sqrt(2 TAIL_LOG) (log pi above its peak − 36)
    and the pi mass outside is 2 Phi(−|lower|) (scipy.stats.norm), to 5%; the query values where pi >= 1e-3 of its
    peak are |x| <= sqrt(2 log 1000)."""
    window = invariant_window(ou_sde(1.0, 1.0))
    edge = math.sqrt(2.0 * TAIL_LOG)
    assert window.lower == pytest.approx(-edge, abs=0.01) and window.upper == pytest.approx(edge, abs=0.01)
    assert window.outside_mass == pytest.approx(2.0 * norm.sf(window.upper), rel=0.05)
    assert window.query[1] == pytest.approx(math.sqrt(2.0 * math.log(1000.0)), abs=0.01)


def test_certify_gives_the_double_well_a_bbgg_t6_bound_with_its_grid_error():
    """SDE(drift = x − x³, diffusion = √2, dim = 1) in a plain DiffusionSemigroup: certify's BBGG-T6 candidate is
    the spectral-1d route, alpha Lambda with Lambda = grid estimate + grid error + quadrature error (the errors
    reported; second order observed, so the estimate is Richardson's; measured 0.957584, grid error 1.2e-6). An
    independent computation — GradientDiffusion's square-root-approximation grid (step 0.025), cubic interpolation
    and multistart search over y, on the pair ±1/2 — agrees to 3e-4 relative (it gives 0.957531)."""
    from markovdp.validation.catalogue_diffusions import t6_certificate

    sde = SDE(njit(lambda x: x - x**3), njit(lambda x: math.sqrt(2.0) * np.ones(1)), 1)
    cert = md.certify(md.DiffusionMechanism(DiffusionSemigroup(sde), 0.5, 1.0))
    bound = cert.candidates["BBGG-T6"]
    assert isinstance(bound, md.Bound) and bound.inputs["route"] == "spectral-1d"
    assert bound.inputs["grid_refinement"] == "richardson"
    inputs = bound.inputs
    lam = inputs["intrinsic_sensitivity"]
    assert lam == inputs["grid_estimate"] + inputs["grid_error"] + inputs["quadrature_error"]
    assert 0.0 < inputs["grid_error"] < 1e-5 * lam and inputs["invariant_mass_outside"] < 1e-15
    assert bound.renyi(2.0) == pytest.approx(2.0 * lam, rel=1e-15)
    other = t6_certificate("double_well", 0.5).renyi(2.0) / 2.0
    assert lam == pytest.approx(other, rel=3e-4)
    assert inputs["worst_pair"] == pytest.approx((-0.5, 0.5), abs=1e-6)


def test_the_double_well_certificate_is_above_the_monte_carlo():
    """The scenario BBGG-T6-1D on its quick grid (double well, t = 0.5, alpha in {1.5, 2, 4}) with seed 11 and
    2·10^4 Euler–Maruyama paths per side: alpha Lambda >= the binned lower confidence limit at every point (verdict
    ok), and the finest grid chain's Rényi divergence lies between that limit and the bound."""
    with open_executor("synchronous") as executor:
        ds = run_sweep(BBGG_T6_1D, samples=20_000, seed=11, quick=True, executor=executor)
    assert (ds["verdict"] == 0).all()
    assert (ds["bound"] >= ds["ci_low"]).all() and (ds["ci_low"] <= ds["exact"]).all()
    assert (ds["exact"] <= ds["bound"]).all()


def test_refusals_name_what_fails():
    """u = +x (pi ∝ e^(x²)) and u = 0 (Brownian motion: pi uniform) are not normalisable; u = 2x(1 + x²)³ with
    v = (1 + x²)² has pi ∝ (1 + x²)^(−2) but a converging scale function (attracting boundaries, BBGG-A fails);
    v = 0 at a point is a degenerate diffusion; dim = 2 is not this route; a sensitivity wider than the query
    values; t <= 0. The rule turns each failure of the SDE into NotApplicable with the reason."""
    one = njit(lambda x: np.ones(1))
    for drift, words in ((njit(lambda x: 1.0 * x), "normalisable"), (njit(lambda x: 0.0 * x), "normalisable")):
        sde = SDE(drift, one, 1)
        with pytest.raises(ValueError, match="`sde` must be .*normalisable"):
            spectral_intrinsic_sensitivity(sde, 1.0, 0.5)
        reason = md.certify(md.DiffusionMechanism(DiffusionSemigroup(sde), 0.5, 1.0), rules=["BBGG-T6"]).reasons()
        assert words in reason["BBGG-T6"] and "BBGG-T6-1D" in reason["BBGG-T6"]
    # pi ∝ (1 + x²)^(−2) is normalisable, but exp(−Phi) = (1 + x²)^(−2) is integrable: ±inf attract (ratio 1/8)
    attracting = SDE(njit(lambda x: 2.0 * x * (1.0 + x**2) ** 3), njit(lambda x: (1.0 + x**2) ** 2), 1)
    with pytest.raises(ValueError, match=r"do not attract.*converging toward \+inf \(its increment .* is 0.125 x"):
        invariant_window(attracting)
    degenerate = SDE(njit(lambda x: -x), njit(lambda x: x.copy()), 1, test_point=np.ones(1))
    with pytest.raises(ValueError, match=r"v != 0.*v² = 0.0 at x = 0.0"):
        invariant_window(degenerate)
    planar = SDE(njit(lambda x: -x), njit(lambda x: np.ones(2)), 2)
    with pytest.raises(ValueError, match="`sde` must be a one-dimensional SDE"):
        invariant_window(planar)
    with pytest.raises(ValueError, match="`sensitivity` must be at most the width"):
        spectral_intrinsic_sensitivity(user_sde("double_well"), 50.0, 0.5)
    with pytest.raises(ValueError, match="`t`"):
        spectral_intrinsic_sensitivity(user_sde("double_well"), 1.0, 0.0)
    with pytest.raises(ValueError, match="`sensitivity`"):
        spectral_intrinsic_sensitivity(user_sde("double_well"), -1.0, 0.5)


def test_the_scenarios_are_registered_and_pickle():
    for scenario in T6_1D_SCENARIOS:
        assert SCENARIOS[scenario.name] is scenario and scenario.theory_id == "BBGG-T6-1D"
        assert pickle.loads(pickle.dumps(scenario)).name == scenario.name
