"""Utility of the OU mechanism against the Gaussian mechanism with the same RDP (BBGG-MSE, BBGG-T8).

Independent computations: Monte Carlo with numpy draws of N(e^(−theta t) f, s_t² I) and f + N(0, s~² I)
(tolerance 5 standard errors); the RDP of both mechanisms read from their dominating pairs (`renyi_profile`);
the ratio E_OU/E_GM formed from the two errors, against the tanh closed form and BBGG-T8's hypothesis; the
optimal beta of the post-processed Gaussian mechanism by scipy's scalar minimiser.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

import markovdp as md
from markovdp.diffusions import OrnsteinUhlenbeckSemigroup
from markovdp.diffusions.mse import (
    matched_gaussian_mse,
    matched_gaussian_variance,
    ou_mse,
    ou_mse_ratio,
    ou_theorem8_condition,
    ou_theorem8_parameters,
    ou_theorem8_ratio_bound,
    post_processed_gaussian_mse,
    post_processed_gaussian_mse_at,
)
from markovdp.guarantees.intrinsic_sensitivity import ou_intrinsic_sensitivity
from markovdp.mechanisms.diffusion import DiffusionMechanism

N_MC = 200_000
Z_TOL = 5.0  # standard errors


def _mc_check(samples, f, expected):
    """mean ||f − sample||² within Z_TOL standard errors of `expected`."""
    errors = ((samples - f) ** 2).sum(axis=1)
    se = errors.std(ddof=1) / math.sqrt(errors.size)
    assert abs(errors.mean() - expected) <= Z_TOL * se, (errors.mean(), expected, se)


@pytest.mark.parametrize(("theta", "rho", "t", "f"), [
    (1.0, 1.0, 0.5, [1.0, -2.0, 0.5]), (0.2, 3.0, 2.0, [10.0]), (5.0, 0.3, 0.05, [0.0, 0.0]),
    (0.7, 1.2, 1.0, [3.0, 1.0, 4.0, 1.0, 5.0])])
def test_mse_formulas_match_monte_carlo(theta, rho, t, f):
    """BBGG-MSE: E_OU, E_GM and the beta*-post-processed Gaussian error, each against numpy draws of the law."""
    rng = np.random.default_rng(20261202)
    f = np.asarray(f, dtype=float)
    d = f.size
    s_t = math.sqrt(rho**2 / theta * (1.0 - math.exp(-2.0 * theta * t)))
    ou_draws = math.exp(-theta * t) * f + s_t * rng.standard_normal((N_MC, d))
    _mc_check(ou_draws, f, ou_mse(theta, rho, t, f))
    s_gm = math.sqrt(rho**2 * (math.exp(2.0 * theta * t) - 1.0) / theta)
    gm_draws = f + s_gm * rng.standard_normal((N_MC, d))
    _mc_check(gm_draws, f, matched_gaussian_mse(theta, rho, t, d))
    radius = max(float(np.linalg.norm(f)), 1.0)
    beta = radius**2 / (radius**2 + d * s_gm**2)
    _mc_check(beta * gm_draws, f, post_processed_gaussian_mse_at(theta, rho, t, f, radius))


@pytest.mark.parametrize(("theta", "rho", "t", "delta", "d"), [(1.0, 1.0, 0.5, 1.0, 1), (0.3, 2.0, 3.0, 0.5, 3),
                                                               (4.0, 0.2, 0.01, 2.0, 2)])
def test_matched_gaussian_has_the_ou_rdp(theta, rho, t, delta, d):
    """The Gaussian mechanism with sigma² = s~² has RDP alpha Delta²/(2 s~²) = alpha Lambda(t), the OU mechanism's
    (both read from their dominating pairs; BBGG-MSE, BBGG-C7)."""
    alphas = np.array([1.5, 2.0, 32.0])
    gm = md.GaussianMechanism(math.sqrt(matched_gaussian_variance(theta, rho, t)), sensitivity=delta, dim=d)
    ou = DiffusionMechanism(OrnsteinUhlenbeckSemigroup(theta, rho, dim=d), t, delta)
    np.testing.assert_allclose(md.renyi_profile(gm, alphas), md.renyi_profile(ou, alphas), rtol=1e-10)
    np.testing.assert_allclose(md.renyi_profile(gm, alphas), alphas * ou_intrinsic_sensitivity(theta, rho, delta, t),
                               rtol=1e-10)


@settings(max_examples=500, deadline=None)
@given(theta=st.floats(1e-3, 20.0), rho=st.floats(1e-2, 10.0), t=st.floats(1e-4, 20.0), d=st.integers(1, 50),
       c=st.floats(1e-6, 4.0), shrink=st.floats(0.0, 1.0))
def test_theorem8_ratio_at_most_one(theta, rho, t, d, c, shrink):
    """BBGG-T8: theta R² <= 4 d rho² (c = theta R²/(d rho²) <= 4) gives E_OU/E_GM <= 1 for every t > 0; the worst
    f has ||f|| = R (E_OU grows with ||f||², E_GM does not depend on f), so a smaller ||f|| gives a smaller ratio.
    The ratio is formed from `ou_mse` and `matched_gaussian_mse`, and equals the tanh form `ou_mse_ratio`."""
    radius = math.sqrt(c * d * rho**2 / theta)
    assert ou_theorem8_condition(theta, rho, d, radius * (1.0 - 1e-12))
    f = np.zeros(d)
    f[0] = radius
    gm = matched_gaussian_mse(theta, rho, t, d)
    if math.isinf(gm):  # e^(2 theta t) beyond floats: only the closed-form ratio is finite
        assert ou_mse_ratio(theta, rho, t, d, radius) <= 1.0
        return
    ratio = ou_mse(theta, rho, t, f) / gm
    assert ratio <= 1.0 + 1e-12
    assert ratio == pytest.approx(ou_mse_ratio(theta, rho, t, d, radius), rel=1e-9)
    assert ou_mse(theta, rho, t, shrink * f) / gm <= ratio * (1.0 + 1e-12)


def test_theorem8_hypothesis_is_sharp_at_small_t():
    """c = theta R²/(d rho²) > 4: the ratio e^(−2u)(1 + c tanh(u/2)) ≈ 1 + (c/2 − 2) u exceeds 1 as u = theta t → 0."""
    theta, rho, d = 1.0, 1.0, 2
    radius = math.sqrt(4.1 * d * rho**2 / theta)
    assert not ou_theorem8_condition(theta, rho, d, radius)
    f = np.zeros(d)
    f[0] = radius
    assert ou_mse(theta, rho, 1e-3, f) / matched_gaussian_mse(theta, rho, 1e-3, d) > 1.0
    assert ou_mse_ratio(theta, rho, 1e-3, d, radius) > 1.0


def test_ratio_tends_to_zero_as_t_grows():
    """BBGG-T8: E_OU/E_GM → 0 as t → inf, like e^(−2 theta t)(1 + theta R²/(d rho²)); finite where E_GM overflows."""
    theta, rho, d, radius = 0.5, 1.0, 3, 2.0
    f = np.array([radius, 0.0, 0.0])
    ratios = [ou_mse(theta, rho, t, f) / matched_gaussian_mse(theta, rho, t, d) for t in (1.0, 5.0, 20.0, 60.0)]
    assert all(b < a for a, b in zip(ratios, ratios[1:], strict=False)) and ratios[-1] < 1e-25
    c = theta * radius**2 / (d * rho**2)
    assert ratios[-1] == pytest.approx(math.exp(-2 * theta * 60.0) * (1 + c), rel=1e-9)
    assert matched_gaussian_mse(theta, rho, 2000.0, d) == math.inf
    assert 0.0 <= ou_mse_ratio(theta, rho, 2000.0, d, radius) < 1e-300


@pytest.mark.parametrize(("eps", "delta", "radius", "d"), [(1.0, 1.0, 1.0, 1), (0.5, 1.0, 3.0, 4), (0.1, 2.0, 1.0, 10),
                                                           (50.0, 1.0, 0.1, 1), (3.0, 0.01, 5.0, 1)])
def test_theorem8_parameter_choice(eps, delta, radius, d):
    """BBGG-T8's (theta, rho): Lambda(1) = eps, so M_1 is (alpha, alpha eps)-RDP exactly (renyi_profile of the OU
    mechanism); E_GM = d Delta²/(2 eps); at ||f|| = R the ratio equals the bound (1 + d Delta²/(2 eps R²))^(−1);
    the hypothesis theta R² <= 4 d rho² holds iff d Delta²/(2 eps R²) <= 2."""
    theta, rho = ou_theorem8_parameters(eps, delta, radius, d)
    assert ou_intrinsic_sensitivity(theta, rho, delta, 1.0) == pytest.approx(eps, rel=1e-12)
    alphas = np.array([1.5, 4.0, 100.0])
    mechanism = DiffusionMechanism(OrnsteinUhlenbeckSemigroup(theta, rho, dim=d), 1.0, delta)
    np.testing.assert_allclose(md.renyi_profile(mechanism, alphas), alphas * eps, rtol=1e-10)
    assert matched_gaussian_mse(theta, rho, 1.0, d) == pytest.approx(d * delta**2 / (2 * eps), rel=1e-12)
    f = np.zeros(d)
    f[-1] = radius
    bound = ou_theorem8_ratio_bound(eps, delta, radius, d)
    assert bound == pytest.approx(1.0 / (1.0 + d * delta**2 / (2 * eps * radius**2)), rel=1e-15)
    ratio = ou_mse(theta, rho, 1.0, f) / matched_gaussian_mse(theta, rho, 1.0, d)
    assert ratio <= bound * (1 + 1e-12) and ratio == pytest.approx(bound, rel=1e-10)
    assert ou_mse(theta, rho, 1.0, f) <= d * delta**2 * radius**2 / (2 * eps * radius**2 + d * delta**2) * (1 + 1e-12)
    meets = d * delta**2 / (2 * eps * radius**2) <= 2.0
    assert ou_theorem8_condition(theta, rho, d, radius) == meets
    if not meets:  # THEORY's note: then the ratio exceeds 1 at small t
        assert ou_mse_ratio(theta, rho, 1e-4, d, radius) > 1.0


@pytest.mark.parametrize(("theta", "rho", "t", "d", "radius"), [(1.0, 1.0, 0.5, 3, 2.0), (0.1, 5.0, 3.0, 1, 0.5),
                                                                (2.0, 0.5, 1e-3, 10, 4.0)])
def test_post_processed_gaussian_bound_is_the_optimal_worst_case(theta, rho, t, d, radius):
    """E_PGM bound = min over beta of (1 − beta)² R² + beta² d s~² (scipy), = the beta* error at ||f|| = R, and an
    upper bound on the beta* error at any ||f|| <= R; it is below E_GM and below R²."""
    s2 = matched_gaussian_variance(theta, rho, t)
    best = minimize_scalar(lambda b: (1 - b) ** 2 * radius**2 + b**2 * d * s2, bounds=(0, 1), method="bounded",
                           options={"xatol": 1e-12})
    bound = post_processed_gaussian_mse(theta, rho, t, d, radius)
    assert bound == pytest.approx(best.fun, rel=1e-9)
    f = np.zeros(d)
    f[0] = radius
    assert post_processed_gaussian_mse_at(theta, rho, t, f, radius) == pytest.approx(bound, rel=1e-12)
    assert post_processed_gaussian_mse_at(theta, rho, t, 0.3 * f, radius) <= bound
    assert bound <= min(matched_gaussian_mse(theta, rho, t, d), radius**2)


def test_extreme_parameters_stay_finite():
    """Huge theta t: E_GM overflows to inf, the PGM bound → R², E_OU → ||f||² + d rho²/theta; tiny theta t: no
    cancellation (E_OU ≈ d 2 rho² t)."""
    f = np.array([1.0, 2.0])
    assert post_processed_gaussian_mse(1.0, 1.0, 1e3, 2, 3.0) == 9.0
    assert ou_mse(1.0, 1.0, 1e3, f) == pytest.approx(5.0 + 2.0, rel=1e-15)
    assert ou_mse(1.0, 1.0, 1e-12, f) == pytest.approx(2 * 2.0 * 1e-12, rel=1e-9)
    assert ou_mse(1.0, 1.0, 0.0, f) == 0.0 and matched_gaussian_mse(1.0, 1.0, 0.0, 2) == 0.0
    theta, rho = ou_theorem8_parameters(50.0, 1.0, 1e-3, 1000)
    assert math.isfinite(theta) and rho > 0.0
    assert ou_intrinsic_sensitivity(theta, rho, 1.0, 1.0) == pytest.approx(50.0, rel=1e-12)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: ou_mse(0.0, 1.0, 1.0, [1.0]), "theta"),
    (lambda: ou_mse(1.0, -1.0, 1.0, [1.0]), "rho"),
    (lambda: ou_mse(1.0, 1.0, -1.0, [1.0]), "t"),
    (lambda: ou_mse(1.0, 1.0, 1.0, [math.nan]), "value"),
    (lambda: ou_mse(1.0, 1.0, 1.0, [[1.0, 2.0]]), "value"),
    (lambda: matched_gaussian_mse(1.0, 1.0, math.inf, 2), "t"),
    (lambda: matched_gaussian_mse(1.0, 1.0, 1.0, 0), "dim"),
    (lambda: post_processed_gaussian_mse(1.0, 1.0, 1.0, 2, 0.0), "radius"),
    (lambda: post_processed_gaussian_mse_at(1.0, 1.0, 1.0, [1.0], -1.0), "radius"),
    (lambda: ou_mse_ratio(1.0, 1.0, 0.0, 1, 1.0), "t"),
    (lambda: ou_theorem8_condition(1.0, 0.0, 1, 1.0), "rho"),
    (lambda: ou_theorem8_parameters(0.0, 1.0, 1.0, 1), "eps"),
    (lambda: ou_theorem8_parameters(1.0, 0.0, 1.0, 1), "sensitivity"),
    (lambda: ou_theorem8_parameters(1.0, 1.0, -2.0, 1), "radius"),
    (lambda: ou_theorem8_ratio_bound(1.0, 1.0, 1.0, -1), "dim"),
])
def test_bad_values_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        call()


def test_bad_kinds_name_the_parameter():
    with pytest.raises(TypeError, match="`dim`"):
        matched_gaussian_mse(1.0, 1.0, 1.0, 2.5)
    with pytest.raises(TypeError, match="`value`"):
        ou_mse(1.0, 1.0, 1.0, "f")


@pytest.mark.parametrize(("theta", "rho", "t", "value"), [
    (1.0, 1e160, 1.0, [1.0]), (1.0, 1e-160, 1.0, [1.0]), (1.0, 1e-160, 1.0, [0.0, 0.0]),
    (1e-300, 1.0, 1e-300, [1e200]), (1.0, 1e-170, 2.0, [1e-170, 0.0]), (2.0, 1e100, 1e-250, [1e250]),
    (1.0, 1.0, 1.0, [1e200, 1e200]), (1.0, 1e-150, 400.0, [0.0]), (1e10, 1e-3, 3.55e-8, [1.0])])
def test_mse_at_extreme_parameters_matches_mpmath(theta, rho, t, value):
    """BBGG-MSE: E_OU and E_GM at overflowing / underflowing rho, theta t and ||f||: the correct double (inf above
    the largest one), never an exception (rho**2 used to raise OverflowError)."""
    big = 1.7976931348623157e308
    with mpmath.workdps(60):
        th, r, tt = (mpmath.mpf(v) for v in (theta, rho, t))
        f2 = sum(mpmath.mpf(v) ** 2 for v in value)
        ou = (-mpmath.expm1(-th * tt)) ** 2 * f2 + len(value) * r**2 / th * -mpmath.expm1(-2 * th * tt)
        gm = len(value) * r**2 * mpmath.expm1(2 * th * tt) / th
    for got, want in [(ou_mse(theta, rho, t, value), ou), (matched_gaussian_mse(theta, rho, t, len(value)), gm)]:
        assert got == (math.inf if want > big else pytest.approx(float(want), rel=1e-12, abs=1e-323))
