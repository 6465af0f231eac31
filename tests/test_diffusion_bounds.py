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
    # e^(−2e4) is below the smallest double: rounded up to it (an RDP bound never rounds down to 0)
    assert ou_intrinsic_sensitivity(1e3, 1.0, 1.0, 10.0) == 5e-324
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
        < 0.9999 * 2.0 * delta**2 / (4.0 * t**2)  # the best grid point is not the sup: the polish is needed
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
    STD-RDP2DP profile lies above the exact privacy_profile; BBGG-T6 (numerical) declines (the closed form applies)
    and, run directly, agrees with C7 to 1e-6."""
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
    assert "BBGG-BM / BBGG-C7 give the exact" in cert.reasons()["BBGG-T6"]
    assert semigroup_intrinsic_sensitivity(semigroup, delta, t) == pytest.approx(lam, rel=RTOL_NUMERICAL)


def test_certify_brownian_mechanism_gives_bm_and_t6():
    """A Brownian mechanism: BBGG-BM (alpha Delta²/(4t), = renyi_profile); BBGG-T6 declines (closed form), C7 does not
    apply."""
    mechanism = _mechanism(BrownianSemigroup(2), 0.4, 1.5)
    cert = md.certify(mechanism, rules=["BBGG-BM", "BBGG-T6", "BBGG-C7"])
    lam = 1.5**2 / (4 * 0.4)
    np.testing.assert_allclose(cert.candidates["BBGG-BM"].renyi(ALPHAS), ALPHAS * lam, rtol=1e-14)
    np.testing.assert_allclose(md.renyi_profile(mechanism, ALPHAS), ALPHAS * lam, rtol=1e-10)
    assert "BBGG-BM / BBGG-C7 give the exact" in cert.reasons()["BBGG-T6"]
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


class DisguisedBrownian(Semigroup):
    """Brownian motion on R as a user's Semigroup subclass: its law and density, but not a BrownianSemigroup (so no
    rule knows it; the tests add what a user would declare)."""

    space = BrownianSemigroup(1).space

    def sample_at(self, t, x, rng):
        return BrownianSemigroup(1).sample_at(t, x, rng)

    def log_density(self, t, x, y):
        return BrownianSemigroup(1).log_density(t, x, y)

    def carre_du_champ(self, f, g=None):
        return BrownianSemigroup(1).carre_du_champ(f, g)


def test_t6_needs_the_worst_pairs_of_an_unknown_semigroup():
    """T6 names every hook it lacks (the declared `Semigroup` methods log_density, carre_du_champ,
    sensitivity_pairs: a sampler-only semigroup is NotApplicable rather than failing later), and it uses the pairs a
    ``sensitivity_pairs`` method declares."""
    base = BrownianSemigroup(1)

    class Shifted(DisguisedBrownian):
        """Brownian motion under another name (so the rule does not know its worst pair)."""

    class Sampled(Semigroup):
        """A semigroup known only by its sampler: no density, no carré du champ."""

        space = base.space

        def sample_at(self, t, x, rng):
            return base.sample_at(t, x, rng)

    reason = md.certify(_mechanism(Sampled(), 0.5, 2.0), rules=["BBGG-T6"]).reasons()["BBGG-T6"]
    assert "lacks log_density, carre_du_champ, sensitivity_pairs" in reason
    Sampled.carre_du_champ = Shifted.carre_du_champ
    Sampled.sensitivity_pairs = lambda self, delta: [(np.zeros(1), np.array([delta]))]
    reason = md.certify(_mechanism(Sampled(), 0.5, 2.0), rules=["BBGG-T6"]).reasons()["BBGG-T6"]
    assert "lacks log_density " in reason
    with pytest.raises(NotImplementedError, match="`log_density_domain`"):
        Sampled().log_density_domain()
    mechanism = _mechanism(Shifted(), 0.5, 2.0)
    assert "lacks sensitivity_pairs" in md.certify(mechanism, rules=["BBGG-T6"]).reasons()["BBGG-T6"]
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


# --- review 7: the sup over y, the quadrature, rounding, rule failures, extremes ---------------------------------


def _fd_gamma_scan(log_density, x, x_prime, s, ys, step):
    """Gamma(h_s) = h'(y)² (½ a = 1) on the points ys, h' by the five-point central difference with `step`."""
    def h(y):
        return log_density(s, x, y) - log_density(s, x_prime, y)

    return ((8.0 * (h(ys + step) - h(ys - step)) - (h(ys + 2 * step) - h(ys - 2 * step))) / (12.0 * step)) ** 2


def test_kappa_of_the_double_well_is_the_sup_of_a_dense_scan():
    """BBGG-T6 on the catalogue's double-well grid semigroup, pair ±0.5, box [−1.5, 1.5], s = 0.2: Gamma(h_s) has
    two peaks at y ≈ ±0.45 and a local minimum at y = 0 (where the old single polish stopped, 6.7605); kappa is
    the max of a dense scan (3001 points, then a bounded scalar search) of Gamma written here, to 1e-6."""
    from scipy.optimize import minimize_scalar

    from markovdp.diffusions.gradient import gradient_semigroup

    semigroup = gradient_semigroup("double_well")
    x, x_prime, s, step = np.array([-0.5]), np.array([0.5]), 0.2, 1e-3 * 3.0  # the route's step: 1e-3 x width

    def log_density(s, z, y):
        return semigroup.log_density(s, z, y)

    ys = np.linspace(-1.5, 1.5, 3001)
    scan = _fd_gamma_scan(log_density, x, x_prime, s, ys, step)
    i = int(np.argmax(scan))
    refined = minimize_scalar(lambda y: -_fd_gamma_scan(log_density, x, x_prime, s, np.array([y]), step)[0],
                              bounds=(ys[max(i - 1, 0)], ys[min(i + 1, ys.size - 1)]), method="bounded",
                              options={"xatol": 1e-9})
    dense = max(float(scan[i]), -float(refined.fun))
    assert abs(ys[i]) == pytest.approx(0.45, abs=0.05) and dense > 6.768
    kappa = intrinsic_kappa(lambda s, z, y: semigroup.log_density(s, z, y[:, 0]),
                            lambda y, grad: (grad**2).sum(axis=-1), x, x_prime, s, y_bounds=(-1.5, 1.5))
    assert kappa == pytest.approx(dense, rel=1e-6)


def test_kappa_finds_a_narrow_peak_between_grid_points():
    """log p_s(z, y) = z G(y)/s with G'(y) = (y − 1/2)(1 + 3 e^(−((y − 1.6)/0.15)²)) (G in closed form with erf),
    x = 0, x' = 1: kappa(1) = sup over (−1, 2) of G'(y)², 19.5988 at the narrow bump (the old search: 2.26)."""
    from scipy.special import erf

    w = 0.15

    def g_prime(y):
        return (y - 0.5) * (1.0 + 3.0 * np.exp(-(((y - 1.6) / w) ** 2)))

    def g(y):
        u = (y - 1.6) / w
        return 0.5 * (y - 0.5) ** 2 + 3.0 * (-0.5 * w**2 * np.exp(-(u**2)) + 0.55 * w * math.sqrt(math.pi) * erf(u))

    ys = np.linspace(-1.0, 2.0, 300001)
    true = float(np.max(g_prime(ys) ** 2))
    assert true == pytest.approx(19.5988, rel=1e-4)
    for lower in (-1.0, -1.01):
        kappa = intrinsic_kappa(lambda s, z, y: z[0] * g(y[:, 0]) / s, lambda y, grad: (grad**2).sum(axis=-1),
                                [0.0], [1.0], 1.0, y_bounds=(lower, 2.0))
        assert kappa == pytest.approx(true, rel=1e-6)


def test_integrate_kappa_refuses_a_divergent_or_unconverged_integral():
    """∫_t^∞ ds/s diverges: ValueError (quad's non-convergence), not a number; ∫_1^∞ ds/s² = 1 is accepted."""
    from markovdp.guarantees.intrinsic_sensitivity import integrate_kappa

    with pytest.raises(ValueError, match="did not converge|error estimate"):
        integrate_kappa(lambda s: 1.0 / s, 1.0)
    value, error = integrate_kappa(lambda s: 1.0 / s**2, 1.0)
    assert value == pytest.approx(1.0, rel=1e-12) and error <= 1e-6


@pytest.mark.parametrize(("theta", "rho", "delta", "t", "d"), [
    (1.0, 1.0, 1.0, 20.0, 1), (1.0, 1.0, 1.0, 25.0, 1), (1.0, 1.0, 1.0, 30.0, 1), (1.0, 1.0, 1.0, 35.0, 1),
    (50.0, 1.0, 1.0, 1.0, 1), (1.0, 1.0, 1.0, 50.0, 2)])
def test_numerical_route_on_ou_at_large_theta_t(theta, rho, delta, t, d):
    """The semigroups' analytic ∇h (`log_ratio_gradient`) keeps the numerical BBGG-T6 at 1e-6 of BBGG-C7 (mpmath)
    where central differences of the log densities cancel (the old route: 21.7x at t = 30, 0 at theta t = 50)."""
    semigroup = OrnsteinUhlenbeckSemigroup(theta, rho, dim=d)
    with mpmath.workdps(40):
        th, r, dl, tt = (mpmath.mpf(v) for v in (theta, rho, delta, t))
        exact = float(th * dl**2 / (2 * r**2 * mpmath.expm1(2 * th * tt)))
    assert semigroup_intrinsic_sensitivity(semigroup, delta, t) == pytest.approx(exact, rel=RTOL_NUMERICAL, abs=0.0)


@pytest.mark.parametrize("t", [1e6, 1e9, 1e12])
def test_numerical_route_on_brownian_motion_at_huge_t(t):
    """BBGG-BM: Delta²/(4t) by the numerical route with the analytic gradient (the old route: 30.9x at 1e12)."""
    assert semigroup_intrinsic_sensitivity(BrownianSemigroup(1), 1.0, t) == pytest.approx(0.25 / t, rel=1e-6, abs=0.0)


def test_central_differences_lost_in_rounding_raise_instead_of_zero():
    """OU(50, 1) at t = 1 with ∇h by central differences of the log densities written here: h_s is far below the
    rounding of log p_s, so the route raises (it used to return Lambda = 0, an unsound RDP 0); kappa alone too."""
    x, x_prime = pair(1.0, 1)
    with pytest.raises(ValueError, match="rounding"):
        numerical_intrinsic_sensitivity(ou_log_density(50.0, 1.0), isotropic_gamma(1.0), x, x_prime, 1.0,
                                        y_bounds=box(1.0))
    with pytest.raises(ValueError, match="rounding"):
        intrinsic_kappa(ou_log_density(1.0, 1.0), isotropic_gamma(1.0), x, x_prime, 60.0, y_bounds=box(1.0))


def test_reported_error_includes_the_central_difference_rounding():
    """With central differences the error of `intrinsic_sensitivity_with_error` is at least the rounding bound
    (> 0, above quad's estimate alone), and value + error still bounds BBGG-BM's Delta²/(4t) from above."""
    from markovdp.guarantees.intrinsic_sensitivity import intrinsic_sensitivity_with_error

    x, x_prime = pair(1.0, 1)
    value, error = intrinsic_sensitivity_with_error(brownian_log_density, isotropic_gamma(1.0), x, x_prime, 0.5,
                                                    y_bounds=box(1.0))
    assert 0.0 < error < 1e-6 * value
    assert value + error >= 0.5 * (1.0 - 1e-12)
    assert value == pytest.approx(0.5, rel=RTOL_NUMERICAL)


class _WalledBrownian(Semigroup):
    """Brownian motion on R whose log_density refuses |y| > 2 (a bounded domain, as the catalogue's grid chain)."""

    space = BrownianSemigroup(1).space

    def sample_at(self, t, x, rng):
        return BrownianSemigroup(1).sample_at(t, x, rng)

    def log_density(self, t, x, y):
        if np.any(np.abs(np.asarray(y)) > 2.0):
            raise ValueError("`y` must be points in [−2, 2].")
        return BrownianSemigroup(1).log_density(t, x, y)

    def carre_du_champ(self, f, g=None):
        return BrownianSemigroup(1).carre_du_champ(f, g)

    def sensitivity_pairs(self, delta):
        return [(np.array([-0.5 * delta]), np.array([0.5 * delta]))]


def test_t6_clips_the_box_to_the_density_domain_and_fails_as_not_applicable():
    """BBGG-T6 at certify time: a log_density that refuses the default box is NotApplicable with the reason (not a
    raw ValueError later); with ``log_density_domain`` the box is clipped and the bound is Delta²/(4t) (BBGG-BM:
    Gamma(h_s) = Delta²/(4 s²) at every y)."""
    mechanism = _mechanism(_WalledBrownian(), 0.5, 3.0)  # default box [−4.5, 4.5]
    cert = md.certify(mechanism, rules=["BBGG-T6"])
    assert "BBGG-T6" in cert.reasons()["BBGG-T6"] and "[−2, 2]" in cert.reasons()["BBGG-T6"]

    class Bounded(_WalledBrownian):
        def log_density_domain(self):
            return -2.0, 2.0

    bound = md.certify(_mechanism(Bounded(), 0.5, 3.0), rules=["BBGG-T6"]).candidates["BBGG-T6"]
    assert isinstance(bound, md.Bound)
    np.testing.assert_allclose(bound.renyi(ALPHAS), ALPHAS * 9.0 / 2.0, rtol=RTOL_NUMERICAL)


def test_t6_on_the_double_well_fails_as_not_applicable():
    """The grid semigroup refuses y in the far tails at t = 0.01 and query values off its grid (Delta = 0.01):
    BBGG-T6 is NotApplicable with the semigroup's reason, at certify time."""
    from markovdp.diffusions.gradient import gradient_semigroup

    semigroup = gradient_semigroup("double_well")
    for t, delta, words in [(0.01, 1.0, "rounding"), (0.5, 0.01, "grid node")]:
        cert = md.certify(_mechanism(semigroup, t, delta), rules=["BBGG-T6"])
        assert isinstance(cert.candidates["BBGG-T6"], md.NotApplicable) and words in cert.reasons()["BBGG-T6"]


def test_t6_declines_closed_forms_quickly():
    """An OU mechanism in d = 20: BBGG-T6 declines (BBGG-C7 is exact), so certify(...).renyi(2) is 2 Lambda_C7
    (mpmath) without the numerical route (it took 12 s)."""
    import time

    start = time.perf_counter()
    cert = md.certify(_mechanism(OrnsteinUhlenbeckSemigroup(1.0, 1.0, dim=20), 0.5, 1.0))
    value = cert.renyi(2.0)
    assert time.perf_counter() - start < 3.0
    with mpmath.workdps(30):
        assert value == pytest.approx(float(2 / (2 * mpmath.expm1(1))), rel=1e-14)
    assert "BBGG-BM / BBGG-C7 give the exact" in cert.reasons()["BBGG-T6"]


def test_t6_certifies_a_user_semigroup_that_states_its_own_intrinsic_sensitivity():
    """A user's Semigroup (here Brownian motion in disguise) with its own `intrinsic_sensitivity`: no rule reads
    that method, so BBGG-T6 must not decline it — its numerical Lambda is Delta²/(4t) (BBGG-BM) to 1e-6."""
    class StatedBrownian(DisguisedBrownian):
        def sensitivity_pairs(self, delta):
            return [(np.array([-0.5 * delta]), np.array([0.5 * delta]))]

        def intrinsic_sensitivity(self, delta, t):
            return delta**2 / (4 * t)

    cert = md.certify(_mechanism(StatedBrownian(), 0.5, 1.0))
    assert isinstance(cert.candidates["BBGG-T6"], md.Bound)
    assert cert.renyi(2.0) == pytest.approx(2 * 1.0 / (4 * 0.5), rel=1e-6)
    assert cert.renyi(2.0) >= 1.0


def test_a_nan_intrinsic_sensitivity_is_never_rdp_zero():
    from markovdp.guarantees.diffusion_rules import linear_rdp_curve

    with pytest.raises(ValueError, match="Lambda"):
        linear_rdp_curve(lambda: math.nan)(np.array([2.0]))
    np.testing.assert_array_equal(linear_rdp_curve(lambda: 0.0)(np.array([2.0, np.inf])), [0.0, np.inf])


@pytest.mark.parametrize(("theta", "rho", "delta", "t"), [
    (1.0, 1.0, 1e160, 1.0), (1.0, 1e-160, 1.0, 1.0), (1e-300, 1.0, 1.0, 1e-300), (1.0, 1e160, 1.0, 1e-300),
    (1.0, 1.0, 1e100, 400.0), (1e-320, 1.0, 1.0, 1.0), (1.0, 1e-100, 1e-100, 1e-200), (1e300, 1.0, 1.0, 1e-300)])
def test_closed_forms_at_extreme_parameters_match_mpmath(theta, rho, delta, t):
    """BBGG-C7 / BBGG-BM at overflowing and underflowing inputs: the correct float (inf where the value exceeds the
    largest double), never an exception; the semigroup methods give the same number (one implementation)."""
    with mpmath.workdps(60):
        th, r, dl, tt = (mpmath.mpf(v) for v in (theta, rho, delta, t))
        exact = th * dl**2 / (2 * r**2 * mpmath.expm1(2 * th * tt))
        exact_bm = dl**2 / (4 * tt)
    for got, want in [(ou_intrinsic_sensitivity(theta, rho, delta, t), exact),
                      (brownian_intrinsic_sensitivity(delta, t), exact_bm)]:
        if want > 1.7976931348623157e308:
            assert got == math.inf
        else:  # within 1e-11, never below the truth (the log-space branch rounds upwards)
            assert got == pytest.approx(float(want), rel=1e-11, abs=1e-323) and got >= float(want) * (1 - 2**-52)
    assert OrnsteinUhlenbeckSemigroup(theta, rho).intrinsic_sensitivity(delta, t) == \
        ou_intrinsic_sensitivity(theta, rho, delta, t)
    assert BrownianSemigroup(1).intrinsic_sensitivity(delta, t) == brownian_intrinsic_sensitivity(delta, t)


def test_provides_names_the_declared_hooks_only():
    """`Semigroup.provides` answers for the declared optional methods: Brownian motion implements the T6 hooks
    (closed forms), a sampler-only semigroup none; any other name is refused naming `hook`."""
    assert all(BrownianSemigroup(1).provides(hook) for hook in ("log_density", "carre_du_champ", "log_ratio_gradient"))
    assert not Semigroup.provides("sensitivity_pairs")
    with pytest.raises(ValueError, match="`hook` must be one of"):
        BrownianSemigroup(1).provides("log_densty")
    with pytest.raises(TypeError, match="`hook`"):
        BrownianSemigroup(1).provides(1)
