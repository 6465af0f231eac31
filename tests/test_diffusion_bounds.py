"""Intrinsic sensitivity of diffusion mechanisms (BBGG-T6, BBGG-BM, BBGG-C7) and their certify rules.

Independent computations: the numerical route of BBGG-T6 (optimisation over y, quadrature in s) run on log
densities and carrés du champ written here from the transition laws of BBGG-BM / BBGG-OU, against the closed
forms; the closed forms against mpmath quadrature of the analytic kappa(s) = rho² e^(−2 theta s) Delta² / s_s⁴;
BBGG-C7 against the exact Rényi divergence of the two output Gaussians (STD-GaussRenyi) in mpmath; the rules
against `renyi_profile` / `privacy_profile` read from the mechanism's dominating pair.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markovdp as md
import markovdp.guarantees.diffusion_rules  # noqa: F401  (registers BBGG-BM, BBGG-T6, BBGG-C7)
from markovdp.diffusions import BrownianSemigroup, OrnsteinUhlenbeckSemigroup, Semigroup
from markovdp.guarantees.intrinsic_sensitivity import (
    brownian_intrinsic_sensitivity,
    intrinsic_kappa,
    numerical_intrinsic_sensitivity,
    ou_intrinsic_sensitivity,
    semigroup_intrinsic_sensitivity,
)

RTOL_NUMERICAL = 1e-6  # the requirement on the numerical route


def ou_log_density(theta, rho):
    """log N(y; e^(−theta s) x, (rho²/theta)(1 − e^(−2 theta s)) I), points y of shape (n, d) (BBGG-OU)."""

    def log_density(s, x, y):
        var = rho**2 / theta * (1.0 - math.exp(-2.0 * theta * s))
        diff = y - math.exp(-theta * s) * x
        return -0.5 * (diff**2).sum(axis=-1) / var - 0.5 * y.shape[-1] * math.log(2.0 * math.pi * var)

    return log_density


def brownian_log_density(s, x, y):
    """log N(y; x, 2s I) (BBGG-BM)."""
    return -((y - x) ** 2).sum(axis=-1) / (4.0 * s) - 0.5 * y.shape[-1] * math.log(4.0 * math.pi * s)


def isotropic_gamma(rate):
    """Gamma(h) = rate |∇h|² (½ a = rate I): rho² for OU, 1 for Brownian motion."""
    return lambda y, grad: rate * (grad**2).sum(axis=-1)


def pair(delta, d):
    return np.zeros(d), delta * np.eye(d)[0]


def box(delta):
    return (-delta - 1.0, 2.0 * delta + 1.0)


def ou_lambda_mpmath(theta, rho, delta, t):
    """∫_t^∞ kappa(s) ds with the analytic kappa(s) = rho² (e^(−theta s) Delta / s_s²)², s_s² the OU variance."""
    theta, rho, delta, t = (mpmath.mpf(v) for v in (theta, rho, delta, t))

    def kappa(s):
        var = rho**2 / theta * (1 - mpmath.exp(-2 * theta * s))
        return rho**2 * (mpmath.exp(-theta * s) * delta / var) ** 2

    with mpmath.workdps(40):
        return mpmath.quad(kappa, [t, t + 1 / theta, mpmath.inf])


def gauss_renyi_mpmath(theta, rho, delta, t, alpha):
    """STD-GaussRenyi: alpha ||u − v||²/(2 s²) for N(0, s_t² I) and N(e^(−theta t) Delta e_1, s_t² I)."""
    with mpmath.workdps(40):
        theta, rho, delta, t, alpha = (mpmath.mpf(v) for v in (theta, rho, delta, t, alpha))
        var = rho**2 / theta * (1 - mpmath.exp(-2 * theta * t))
        return alpha * (mpmath.exp(-theta * t) * delta) ** 2 / (2 * var)


# --- closed forms -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("theta", "rho", "delta", "t"), [
    (1.0, 1.0, 1.0, 1.0), (0.3, 2.0, 0.5, 0.05), (5.0, 0.5, 2.0, 2.0), (1e-3, 1.0, 1.0, 1e-3),
    (50.0, 1e-3, 1.0, 0.2), (1e-6, 3.0, 0.1, 10.0), (2.0, 1.0, 1.0, 1e-9)])
def test_ou_closed_form_is_the_integral_of_kappa(theta, rho, delta, t):
    """BBGG-C7 = ∫_t^∞ kappa(s) ds (BBGG-T6 with the analytic OU kappa), by mpmath quadrature, to 1e-12."""
    exact = float(ou_lambda_mpmath(theta, rho, delta, t))
    assert ou_intrinsic_sensitivity(theta, rho, delta, t) == pytest.approx(exact, rel=1e-12)


def test_ou_closed_form_at_extreme_parameters():
    """BBGG-C7 stays finite and correct where e^(2 theta t) overflows or 2 theta t is tiny (mpmath reference)."""
    for theta, rho, delta, t in [(1e3, 1e-3, 1.0, 0.4), (50.0, 1e-3, 50.0, 7.2), (1.0, 1.0, 1.0, 1e-300),
                                 (1e-300, 1.0, 1.0, 1.0), (1e5, 1e-3, 1e3, 1e-2)]:
        with mpmath.workdps(60):
            th, r, d, tt = (mpmath.mpf(v) for v in (theta, rho, delta, t))
            exact = float(th * d**2 / (2 * r**2 * mpmath.expm1(2 * th * tt)))
        value = ou_intrinsic_sensitivity(theta, rho, delta, t)
        assert math.isfinite(value) and value == pytest.approx(exact, rel=1e-12, abs=1e-300)
    assert ou_intrinsic_sensitivity(1e3, 1.0, 1.0, 10.0) == 0.0  # e^(−2e4): below the smallest double
    assert ou_intrinsic_sensitivity(1.0, 1.0, 1.0, 0.0) == math.inf
    assert brownian_intrinsic_sensitivity(2.0, 0.0) == math.inf


@pytest.mark.parametrize(("theta", "rho", "delta", "t", "alpha"), list(itertools.product(
    [0.05, 1.0, 7.0], [0.01, 1.0, 4.0], [0.2, 3.0], [1e-3, 0.5, 4.0], [1.01, 2.0, 1e3])))
def test_c7_equals_the_exact_renyi_divergence(theta, rho, delta, t, alpha):
    """BBGG-C7 is tight: alpha Lambda(t) is R_alpha of the two output Gaussians (STD-GaussRenyi, mpmath), 1e-10."""
    exact = float(gauss_renyi_mpmath(theta, rho, delta, t, alpha))
    assert alpha * ou_intrinsic_sensitivity(theta, rho, delta, t) == pytest.approx(exact, rel=1e-10)


@settings(max_examples=400, deadline=None)
@given(theta=st.floats(1e-3, 50.0), rho=st.floats(1e-3, 10.0), delta=st.floats(1e-2, 10.0),
       t=st.floats(1e-3, 10.0), alpha=st.floats(1.0 + 1e-6, 1e3))
def test_c7_is_sound(theta, rho, delta, t, alpha):
    """Exact R_alpha(N(0, s_t²) || N(e^(−theta t) Delta, s_t²)) <= alpha Lambda(t) (BBGG-C7), numpy formula."""
    var = rho**2 / theta * -np.expm1(-2.0 * theta * t)
    exact = alpha * (np.exp(-theta * t) * delta) ** 2 / (2.0 * var)
    bound = alpha * ou_intrinsic_sensitivity(theta, rho, delta, t)
    assert exact <= bound * (1.0 + 1e-12) + 1e-300


# --- the numerical route ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("theta", "rho", "delta", "t", "d"), [
    (theta, rho, delta, t, d) for theta, rho, (delta, t), d in itertools.product(
        [0.2, 2.0], [0.5, 2.0], [(0.3, 0.05), (3.0, 1.5)], [1, 2])])
def test_numerical_route_reproduces_c7(theta, rho, delta, t, d):
    """BBGG-T6 by optimisation over y and quadrature in s reproduces BBGG-C7 to 1e-6 relative, d = 1, 2."""
    x, x_prime = pair(delta, d)
    value = numerical_intrinsic_sensitivity(ou_log_density(theta, rho), isotropic_gamma(rho**2), x, x_prime, t,
                                            y_bounds=box(delta))
    assert value == pytest.approx(ou_intrinsic_sensitivity(theta, rho, delta, t), rel=RTOL_NUMERICAL)


@pytest.mark.parametrize(("delta", "t", "d"), [(0.3, 1e-2, 1), (3.0, 1.0, 2), (0.3, 100.0, 1), (3.0, 1e-2, 2)])
def test_numerical_route_reproduces_brownian(delta, t, d):
    """BBGG-BM: kappa(s) = Delta²/(4 s²) for every y, Lambda(t) = Delta²/(4t), to 1e-6 relative."""
    x, x_prime = pair(delta, d)
    assert intrinsic_kappa(brownian_log_density, isotropic_gamma(1.0), x, x_prime, t, y_bounds=box(delta)) \
        == pytest.approx(delta**2 / (4.0 * t**2), rel=1e-9)
    value = numerical_intrinsic_sensitivity(brownian_log_density, isotropic_gamma(1.0), x, x_prime, t,
                                            y_bounds=box(delta))
    assert value == pytest.approx(brownian_intrinsic_sensitivity(delta, t), rel=RTOL_NUMERICAL)


def test_numerical_route_with_an_analytic_gradient():
    """The gradient of the OU log ratio, e^(−theta s)(x − x')/s_s², given analytically: the same Lambda."""
    theta, rho, delta, t = 0.7, 1.3, 2.0, 0.3
    x, x_prime = pair(delta, 2)

    def gradient(s, y):
        var = rho**2 / theta * -math.expm1(-2.0 * theta * s)
        return np.broadcast_to(math.exp(-theta * s) * (x - x_prime) / var, y.shape)

    value = numerical_intrinsic_sensitivity(ou_log_density(theta, rho), isotropic_gamma(rho**2), x, x_prime, t,
                                            y_bounds=box(delta), gradient=gradient)
    assert value == pytest.approx(ou_intrinsic_sensitivity(theta, rho, delta, t), rel=1e-9)


def test_numerical_route_finds_a_sup_inside_the_box():
    """A carré du champ that depends on y, (1 + e^(−|y|²)) |∇h|², with the Brownian log ratio: the sup over y is
    at y = 0 (not a grid point of the box), kappa = 2 Delta²/(4 s²), Lambda = Delta²/(2t)."""
    delta, t = 1.0, 0.5
    x, x_prime = pair(delta, 2)

    def gamma(y, grad):
        return (1.0 + np.exp(-(y**2).sum(axis=-1))) * (grad**2).sum(axis=-1)

    bounds = (-1.3, 2.9)
    assert intrinsic_kappa(brownian_log_density, gamma, x, x_prime, t, y_bounds=bounds, polish=False) \
        < 0.99 * 2.0 * delta**2 / (4.0 * t**2)  # the best grid point is not the sup: the polish is needed
    value = numerical_intrinsic_sensitivity(brownian_log_density, gamma, x, x_prime, t, y_bounds=bounds)
    assert value == pytest.approx(delta**2 / (2.0 * t), rel=RTOL_NUMERICAL)


@pytest.mark.parametrize("semigroup", [OrnsteinUhlenbeckSemigroup(0.7, 1.3, dim=2),
                                       OrnsteinUhlenbeckSemigroup(3.0, 0.4),
                                       BrownianSemigroup(1), BrownianSemigroup(3)],
                         ids=repr)
def test_numerical_route_on_the_semigroup_classes(semigroup):
    """`semigroup_intrinsic_sensitivity` reads log_density and carre_du_champ (on the coordinate functions) of the
    semigroup objects and reproduces their closed-form Lambda (BBGG-BM, BBGG-C7) to 1e-6."""
    for delta, t in [(1.5, 0.3)] if semigroup.dim > 1 else [(1.5, 0.3), (0.2, 2.0)]:
        expected = (ou_intrinsic_sensitivity(semigroup.theta, semigroup.rho, delta, t) if hasattr(semigroup, "theta")
                    else brownian_intrinsic_sensitivity(delta, t))
        assert semigroup.intrinsic_sensitivity(delta, t) == pytest.approx(expected, rel=1e-12)
        assert semigroup_intrinsic_sensitivity(semigroup, delta, t) == pytest.approx(expected, rel=RTOL_NUMERICAL)


# --- the certify rules --------------------------------------------------------------------------------------------


def _mechanism(semigroup, t, delta):
    from markovdp.mechanisms.diffusion import DiffusionMechanism

    return DiffusionMechanism(semigroup, t, delta)


ALPHAS = np.array([1.01, 1.5, 2.0, 8.0, 64.0, 1e3])


@pytest.mark.parametrize(("theta", "rho", "t", "delta", "d"), [(0.8, 1.2, 0.4, 1.5, 2), (3.0, 0.1, 0.05, 0.3, 1),
                                                               (0.01, 2.0, 5.0, 4.0, 1)])
def test_certify_ou_mechanism_picks_c7_and_it_is_tight(theta, rho, t, delta, d):
    """certify(DiffusionMechanism(OU, t, Delta)) gives BBGG-C7 with alpha Lambda(t) = renyi_profile to 1e-10, its
    STD-RDP2DP profile lies above the exact privacy_profile, and BBGG-T6 (numerical) agrees with C7 to 1e-6."""
    semigroup = OrnsteinUhlenbeckSemigroup(theta, rho, dim=d)
    mechanism = _mechanism(semigroup, t, delta)
    assert isinstance(md.certify(mechanism).candidates["BBGG-C7"], md.Bound)  # registered with the built-in rules
    cert = md.certify(mechanism, rules=["BBGG-BM", "BBGG-T6", "BBGG-C7"])
    c7 = cert.candidates["BBGG-C7"]
    assert isinstance(c7, md.Bound) and c7.theorem == "BBGG-C7"
    assert isinstance(cert.candidates["BBGG-BM"], md.NotApplicable)
    lam = ou_intrinsic_sensitivity(theta, rho, delta, t)
    np.testing.assert_allclose(c7.renyi(ALPHAS), ALPHAS * lam, rtol=1e-14)
    np.testing.assert_allclose(md.renyi_profile(mechanism, ALPHAS), ALPHAS * lam, rtol=1e-10)
    assert c7.renyi(np.inf) == math.inf
    eps = np.array([0.0, 0.5, 2.0, 10.0])
    assert np.all(c7.delta(eps) >= md.privacy_profile(mechanism, eps) - 1e-12)
    t6 = cert.candidates["BBGG-T6"]
    np.testing.assert_allclose(t6.renyi(ALPHAS), ALPHAS * lam, rtol=RTOL_NUMERICAL)


def test_certify_brownian_mechanism_gives_bm_and_t6():
    """A Brownian mechanism: BBGG-BM (alpha Delta²/(4t), = renyi_profile) and BBGG-T6 numerically; C7 does not apply."""
    mechanism = _mechanism(BrownianSemigroup(2), 0.4, 1.5)
    cert = md.certify(mechanism, rules=["BBGG-BM", "BBGG-T6", "BBGG-C7"])
    lam = 1.5**2 / (4 * 0.4)
    np.testing.assert_allclose(cert.candidates["BBGG-BM"].renyi(ALPHAS), ALPHAS * lam, rtol=1e-14)
    np.testing.assert_allclose(md.renyi_profile(mechanism, ALPHAS), ALPHAS * lam, rtol=1e-10)
    np.testing.assert_allclose(cert.candidates["BBGG-T6"].renyi(ALPHAS), ALPHAS * lam, rtol=RTOL_NUMERICAL)
    assert "OrnsteinUhlenbeckSemigroup" in cert.reasons()["BBGG-C7"]


def test_rules_hold_after_post_processing_and_refuse_other_subjects():
    """M_t >> K keeps M_t's bound (STD-DPI); a Gaussian mechanism is not a diffusion mechanism."""
    semigroup = OrnsteinUhlenbeckSemigroup(1.0, 1.0)
    pipeline = _mechanism(semigroup, 0.5, 1.0) >> md.GaussianKernel(0.3)
    cert = md.certify(pipeline, rules=["BBGG-C7"])
    assert cert.renyi(2.0) == pytest.approx(2.0 * ou_intrinsic_sensitivity(1.0, 1.0, 1.0, 0.5), rel=1e-14)
    assert cert.renyi(2.0) >= md.renyi_profile(pipeline, 2.0)
    other = md.certify(md.GaussianMechanism(1.0), rules=["BBGG-BM", "BBGG-T6", "BBGG-C7"])
    assert not other.bounds and all("DiffusionMechanism" in why for why in other.reasons().values())


def test_t6_needs_the_worst_pairs_of_an_unknown_semigroup():
    """T6 says what it needs: a carré du champ, a closed-form density (probed at certify time, so a sampler-only
    semigroup is NotApplicable rather than failing later), the worst pairs of a semigroup it does not know; and it
    uses the pairs a ``sensitivity_pairs`` method declares."""
    base = BrownianSemigroup(1)

    class Shifted(Semigroup):
        """Brownian motion under another name (so the rule does not know its worst pair)."""

        space = base.space

        def sample_at(self, t, x, rng):
            return base.sample_at(t, x, rng)

        def log_density(self, t, x, y):
            return base.log_density(t, x, y)

        def carre_du_champ(self, f, g=None):
            return base.carre_du_champ(f, g)

    class Sampled(Semigroup):
        """A semigroup known only by its sampler: no density, no carré du champ."""

        space = base.space

        def sample_at(self, t, x, rng):
            return base.sample_at(t, x, rng)

    assert "carre_du_champ" in md.certify(_mechanism(Sampled(), 0.5, 2.0), rules=["BBGG-T6"]).reasons()["BBGG-T6"]
    Sampled.carre_du_champ = Shifted.carre_du_champ
    Sampled.sensitivity_pairs = lambda self, delta: [(np.zeros(1), np.array([delta]))]
    reason = md.certify(_mechanism(Sampled(), 0.5, 2.0), rules=["BBGG-T6"]).reasons()["BBGG-T6"]
    assert "closed-form transition density" in reason  # Semigroup.log_density's NotImplementedError
    mechanism = _mechanism(Shifted(), 0.5, 2.0)
    assert "sensitivity_pairs" in md.certify(mechanism, rules=["BBGG-T6"]).reasons()["BBGG-T6"]
    Shifted.sensitivity_pairs = lambda self, delta: [(np.zeros(1), np.array([delta])), (np.ones(1), np.zeros(1))]
    cert = md.certify(mechanism, rules=["BBGG-T6"])
    assert cert.renyi(3.0) == pytest.approx(3.0 * 2.0**2 / (4 * 0.5), rel=RTOL_NUMERICAL)


# --- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "name"), [
    (lambda: ou_intrinsic_sensitivity(0.0, 1.0, 1.0, 1.0), "theta"),
    (lambda: ou_intrinsic_sensitivity(1.0, -1.0, 1.0, 1.0), "rho"),
    (lambda: ou_intrinsic_sensitivity(1.0, 1.0, 0.0, 1.0), "sensitivity"),
    (lambda: ou_intrinsic_sensitivity(1.0, 1.0, 1.0, -0.1), "t"),
    (lambda: ou_intrinsic_sensitivity(1.0, 1.0, 1.0, math.nan), "t"),
    (lambda: brownian_intrinsic_sensitivity(1.0, -1.0), "t"),
    (lambda: brownian_intrinsic_sensitivity(math.inf, 1.0), "sensitivity"),
    (lambda: numerical_intrinsic_sensitivity(brownian_log_density, isotropic_gamma(1.0), [0.0], [1.0], 0.0,
                                             y_bounds=(-1, 2)), "t"),
    (lambda: numerical_intrinsic_sensitivity(brownian_log_density, isotropic_gamma(1.0), [0.0], [1.0], 1.0,
                                             y_bounds=(2, -1)), "y_bounds"),
    (lambda: numerical_intrinsic_sensitivity(brownian_log_density, isotropic_gamma(1.0), [0.0, 0.0], [1.0], 1.0,
                                             y_bounds=(-1, 2)), "x_prime"),
    (lambda: intrinsic_kappa(brownian_log_density, isotropic_gamma(1.0), [0.0], [1.0], -1.0, y_bounds=(-1, 2)), "s"),
])
def test_bad_values_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        call()


def test_bad_kinds_name_the_parameter():
    with pytest.raises(TypeError, match="`log_density`"):
        numerical_intrinsic_sensitivity(None, isotropic_gamma(1.0), [0.0], [1.0], 1.0, y_bounds=(-1, 2))
    with pytest.raises(TypeError, match="`carre_du_champ`"):
        numerical_intrinsic_sensitivity(brownian_log_density, 1.0, [0.0], [1.0], 1.0, y_bounds=(-1, 2))
    with pytest.raises(TypeError, match="`y_bounds`"):
        numerical_intrinsic_sensitivity(brownian_log_density, isotropic_gamma(1.0), [0.0], [1.0], 1.0, y_bounds=3.0)
    with pytest.raises(TypeError, match="`semigroup`"):
        semigroup_intrinsic_sensitivity(object(), 1.0, 1.0)
