"""BBGG-T2 (translation coupling) and its instances BBGG-E1, BBGG-E2, BBGG-E3; the STD-RDP2DP profile of an RDP
curve; the certify rules BBGG-E1, BBGG-E2, BBGG-E3.

Independent checks: closed forms written here (E1, E3 and the E1 minimiser), brute-force grid minimisation in
mpmath with g_alpha written here (E2), the exact pure eps Delta / max(l1, l2) (BBGG-L3), and the eps-side
conversion `rdp_to_dp` (STD-RDP2DP) for the delta-side curve.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import markovdp as md
import markovdp.guarantees.coupling_rules  # noqa: F401  (registers the rules until the lead imports them)
from markovdp.guarantees.coupling import (
    gaussian_shift_rdp,
    iterated_gaussian_rdp,
    iterated_laplace_rdp,
    lipschitz_kernel_rdp,
    translation_coupling_point,
    translation_coupling_rdp,
)
from markovdp.guarantees.rdp_curves import ALPHA_GRID, rdp_bound, rdp_delta_curve
from markovdp.guarantees.types import Bound, NotApplicable

GAUSS_CASES = [(1.0, 1.0, 1.0), (1.0, 2.0, 1.0), (0.3, 5.0, 2.0), (4.0, 0.01, 0.5), (1e-3, 1e-3, 1e-3),
               (10.0, 0.2, 3.0)]
ALPHAS = np.array([1.0 + 1e-6, 1.5, 2.0, 10.0, 1e3])


@pytest.mark.parametrize(("s1", "s2", "delta"), GAUSS_CASES)
def test_bbgg_e1_through_bbgg_t2_is_the_closed_form_and_its_minimiser(s1, s2, delta):
    """BBGG-E1: the T2 minimum is alpha Delta²/(2(s1² + s2²)) (1e-10), attained at ||w − v|| = th Delta,
    th = (1 + s2²/s1²)^(-1)."""
    closed = ALPHAS * delta**2 / (2.0 * (s1**2 + s2**2))
    np.testing.assert_allclose(iterated_gaussian_rdp(ALPHAS, sensitivity=delta, sigma1=s1, sigma2=s2), closed,
                               rtol=1e-10)
    value, t = translation_coupling_point(2.0, delta, lambda a, s: gaussian_shift_rdp(a, s, s1),
                                          lambda a, s: gaussian_shift_rdp(a, s, s2))
    th = 1.0 / (1.0 + s2**2 / s1**2)
    assert value == pytest.approx(2.0 * delta**2 / (2.0 * (s1**2 + s2**2)), rel=1e-10)
    assert t == pytest.approx(th * delta, rel=1e-6, abs=1e-9 * delta)


@pytest.mark.parametrize(("s1", "s2", "delta"), GAUSS_CASES)
@pytest.mark.parametrize("lip", [0.1, 0.5, 1.0, 3.0])
def test_bbgg_e3_through_bbgg_t2_is_the_closed_form(s1, s2, delta, lip):
    """BBGG-E3: alpha Delta²/(2 s*²), s*² = s1² + s2²/L² (1e-10)."""
    closed = ALPHAS * delta**2 / (2.0 * (s1**2 + s2**2 / lip**2))
    np.testing.assert_allclose(lipschitz_kernel_rdp(ALPHAS, sensitivity=delta, sigma1=s1, lipschitz=lip, sigma2=s2),
                               closed, rtol=1e-10)


def mp_log_g(alpha, z):
    """log g_alpha(z) of BBGG-E2 in mpmath, written from THEORY."""
    a, z = mp.mpf(alpha), mp.mpf(z)
    return mp.log(a / (2 * a - 1) * mp.exp(z * (a - 1)) + (a - 1) / (2 * a - 1) * mp.exp(-z * a))


@pytest.mark.parametrize(("l1", "l2", "delta", "alpha"), [(1.0, 1.0, 1.0, 2.0), (1.0, 2.0, 1.0, 5.0),
                                                          (0.3, 1.0, 2.0, 10.0), (2.0, 0.5, 3.0, 1.5),
                                                          (1.0, 1.0, 0.01, 1.01), (1.0, 1.0, 5.0, 200.0)])
def test_bbgg_e2_minimum_matches_brute_force_grid_minimisation_in_mpmath(l1, l2, delta, alpha):
    """BBGG-E2: the minimum over w of (log g(|w − v|/l1) + log g(|u − w|/l2))/(alpha − 1) against a 101-point grid
    in 30-digit arithmetic refined by golden section: never above the grid minimum, within 1e-9 of the refined one."""
    with mp.workdps(30):
        def f(t):
            return (mp_log_g(alpha, t / l1) + mp_log_g(alpha, (delta - t) / l2)) / (alpha - 1)

        grid = [mp.mpf(delta) * k / 100 for k in range(101)]
        values = [f(t) for t in grid]
        k = min(range(len(grid)), key=values.__getitem__)
        lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, 100)]
        invphi = (mp.sqrt(5) - 1) / 2
        for _ in range(100):
            x1, x2 = hi - invphi * (hi - lo), lo + invphi * (hi - lo)
            lo, hi = (lo, x2) if f(x1) <= f(x2) else (x1, hi)
        refined = float(min(values[k], f((lo + hi) / 2)))
        grid_min = float(values[k])
    ours = iterated_laplace_rdp(alpha, sensitivity=delta, scale1=l1, scale2=l2)
    assert ours <= grid_min * (1 + 1e-12)
    assert ours == pytest.approx(refined, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(("l1", "l2", "delta"), [(1.0, 1.0, 1.0), (1.0, 3.0, 2.0), (5.0, 0.5, 0.1)])
def test_bbgg_e2_at_alpha_inf_is_the_exact_pure_eps_of_bbgg_l3(l1, l2, delta):
    """BBGG-L3: R_inf of the Laplace pipeline is Delta / max(l1, l2); BBGG-E2 at alpha = inf equals it (so no pure-DP
    amplification), while at finite alpha with l1 = l2 it is below the mechanism's own RDP (amplification)."""
    assert iterated_laplace_rdp(np.inf, sensitivity=delta, scale1=l1, scale2=l2) == pytest.approx(
        delta / max(l1, l2), rel=1e-12)
    mech = md.LaplaceMechanism(1.0, sensitivity=delta)
    for alpha in (1.5, 2.0, 10.0):
        assert iterated_laplace_rdp(alpha, sensitivity=delta, scale1=1.0, scale2=1.0) < md.renyi_profile(mech, alpha)


def test_bbgg_t2_returns_a_value_of_the_objective_never_above_the_endpoints():
    """BBGG-T2 with a non-convex objective: the answer is attained at its t (a valid bound) and <= both ends."""
    def bumpy(a, s):
        return a * (math.sin(7.0 * s) + 1.5)

    def kernel(a, s):
        return 0.3 * a * s

    value, t = translation_coupling_point(2.0, 2.0, bumpy, kernel)
    assert value == pytest.approx(bumpy(2.0, t) + kernel(2.0, 2.0 - t), rel=1e-14)
    assert value <= min(bumpy(2.0, 0.0) + kernel(2.0, 2.0), bumpy(2.0, 2.0) + kernel(2.0, 0.0))
    gauss = translation_coupling_rdp(np.array([2.0, np.inf]), 1.0, lambda a, s: gaussian_shift_rdp(a, s, 1.0),
                                     lambda a, s: gaussian_shift_rdp(a, s, 1.0))
    assert gauss.tolist() == [pytest.approx(0.5, rel=1e-15), math.inf]
    assert translation_coupling_rdp(3.0, 0.0, bumpy, kernel) == pytest.approx(3.0 * 1.5)


def test_bbgg_t2_bad_input_names_the_parameter():
    gauss = lambda a, s: gaussian_shift_rdp(a, s, 1.0)  # noqa: E731
    with pytest.raises(ValueError, match="`distance` must be >= 0"):
        translation_coupling_rdp(2.0, -1.0, gauss, gauss)
    with pytest.raises(ValueError, match="`alpha` must be in \\(1, inf\\]"):
        translation_coupling_rdp(1.0, 1.0, gauss, gauss)
    with pytest.raises(TypeError, match="`kernel_rdp` must be a function"):
        translation_coupling_rdp(2.0, 1.0, gauss, 3.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        translation_coupling_rdp(2.0, 1.0, gauss, lambda a, s: math.nan)
    with pytest.raises(ValueError, match="`sigma2` must be > 0"):
        iterated_gaussian_rdp(2.0, sensitivity=1.0, sigma1=1.0, sigma2=0.0)
    with pytest.raises(ValueError, match="`lipschitz` must be >= 0"):
        lipschitz_kernel_rdp(2.0, sensitivity=1.0, sigma1=1.0, lipschitz=-1.0, sigma2=1.0)


# ------------------------------------------------------------------------------------- STD-RDP2DP, delta side

CURVES = {
    "gaussian": lambda a: a * 0.5,
    "gaussian-tiny": lambda a: a * 1e-6,
    "gaussian-huge": lambda a: a * 50.0,
    "laplace-e2": lambda a: iterated_laplace_rdp(a, sensitivity=1.0, scale1=1.0, scale2=2.0),
}
EPS = np.array([0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 50.0])


@pytest.mark.parametrize("name", list(CURVES))
def test_std_rdp2dp_delta_curve_round_trips_through_rdp_to_dp(name):
    """STD-RDP2DP: for each eps, delta(eps) from the curve, then `rdp_to_dp` at that delta on the same orders gives
    back at most eps (up to round-off); delta in [0, 1] and non-increasing."""
    values = np.asarray(CURVES[name](ALPHA_GRID), dtype=float)
    curve = rdp_delta_curve(lambda a: values)
    deltas = curve(EPS)
    assert np.all((deltas >= 0) & (deltas <= 1)) and np.all(np.diff(deltas) <= 0)
    for eps, delta in zip(EPS, deltas, strict=True):
        if 0.0 < delta < 1.0:
            assert md.guarantees.rdp_to_dp(values, ALPHA_GRID, float(delta)) <= eps * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("alpha", [1.001, 1.5, 2.0, 32.0, 1e4])
def test_std_rdp2dp_delta_curve_at_one_order_inverts_rdp_to_dp_exactly(alpha):
    """STD-RDP2DP at a single order: delta(eps) then `rdp_to_dp` returns eps itself (1e-9)."""
    curve = rdp_delta_curve(lambda a: np.full(np.shape(a), 0.7), alphas=[alpha])
    for eps in (0.8, 1.0, 3.0):
        delta = float(curve(np.array([eps]))[0])
        if 1e-300 < delta < 1.0:
            assert md.guarantees.rdp_to_dp(0.7, [alpha], delta) == pytest.approx(eps, rel=1e-9)


def test_std_rdp2dp_delta_curve_is_sound_for_the_gaussian_mechanism_and_pure_at_alpha_inf():
    """The converted curve of the exact Gaussian RDP is never below the exact profile (STD-GaussHS); a finite
    r(inf) gives delta = 0 from eps = r(inf) on; an RDP curve that is inf everywhere gives delta = 1."""
    mech = md.GaussianMechanism(1.3, sensitivity=1.0)
    curve = rdp_delta_curve(lambda a: a / (2 * 1.3**2))
    assert np.all(curve(EPS) >= np.asarray(md.privacy_profile(mech, EPS)) * (1 - 1e-12))
    laplace = rdp_delta_curve(lambda a: iterated_laplace_rdp(a, sensitivity=1.0, scale1=1.0, scale2=2.0))
    assert laplace(np.array([0.5, 0.5 + 1e-12, 1.0, np.inf])).tolist()[1:] == [0.0, 0.0, 0.0]
    assert rdp_delta_curve(lambda a: np.full(np.shape(a), np.inf))(EPS).tolist() == [1.0] * EPS.size
    bound = rdp_bound("BBGG-E1", {"sigma": 1.3}, lambda a: a / (2 * 1.3**2))
    assert bound.renyi(2.0) == pytest.approx(2.0 / (2 * 1.3**2)) and bound.delta(1.0) == curve(np.array([1.0]))[0]
    with pytest.raises(ValueError, match="`rdp_curve` must be >= 0"):
        rdp_delta_curve(lambda a: -np.ones(np.shape(a)))(EPS)


# ---------------------------------------------------------------------------------------------- the rules

def test_bbgg_e1_rule_is_tight_against_the_exact_renyi_profile():
    """BBGG-E1 (tight): the rule's RDP equals the exact RDP of the pipeline to 1e-10; its profile is sound."""
    pipeline = md.GaussianMechanism(0.8, sensitivity=1.5, dim=3) >> md.GaussianKernel(1.7, dim=3)
    bound = md.certify(pipeline, rules=["BBGG-E1"]).candidates["BBGG-E1"]
    assert isinstance(bound, Bound) and bound.inputs["sigma2"] == 1.7
    alphas = np.array([1.5, 2.0, 10.0, 100.0])
    np.testing.assert_allclose(bound.renyi(alphas), md.renyi_profile(pipeline, alphas), rtol=1e-10)
    assert np.all(bound.delta(EPS) >= np.asarray(md.privacy_profile(pipeline, EPS)) * (1 - 1e-12))


def test_bbgg_e2_rule_on_the_laplace_pipeline_and_not_applicable_elsewhere():
    """BBGG-E2 rule: the T2 bound of `iterated_laplace_rdp`; pure eps Delta / max(l1, l2) (BBGG-L3); other
    subjects are NotApplicable with a reason."""
    pipeline = md.LaplaceMechanism(1.0, sensitivity=2.0) >> md.LaplaceKernel(0.5)
    cert = md.certify(pipeline, rules=["BBGG-E1", "BBGG-E2", "BBGG-E3"])
    bound = cert.candidates["BBGG-E2"]
    assert bound.renyi(3.0) == iterated_laplace_rdp(3.0, sensitivity=2.0, scale1=1.0, scale2=0.5)
    assert bound.epsilon(0.0) == pytest.approx(2.0, rel=1e-12)
    assert isinstance(cert.candidates["BBGG-E1"], NotApplicable)
    assert "GaussianMechanism" in cert.reasons()["BBGG-E3"]
    others = md.certify(md.LaplaceMechanism(1.0), rules=["BBGG-E2"]).reasons()["BBGG-E2"]
    assert "pipeline" in others
    twice = md.certify(md.LaplaceMechanism(1.0) >> md.LaplaceKernel(1.0) >> md.LaplaceKernel(1.0), rules=["BBGG-E2"])
    assert "one LaplaceKernel" in twice.reasons()["BBGG-E2"]


def test_rules_describe_themselves():
    for tid in ("BBGG-E1", "BBGG-E2", "BBGG-E3", "BBGG-T4", "BBGG-T4opt", "BBGG-T5", "BBGG-T5opt"):
        assert tid in md.guarantees.registered_theorems()
        assert md.describe(tid).startswith(tid)


def test_bbgg_e3_rule_on_a_lipschitz_kernel_equals_the_exact_rdp_of_the_affine_kernel():
    """BBGG-E3 rule on GaussianMechanism >> LipschitzGaussianKernel(L x): its RDP equals the exact RDP of the same
    pipeline written as an AffineGaussianKernel (tight, 1e-10); nonlinear psi (L tanh) gets the same bound; the
    rule needs exactly one kernel."""
    from markovdp.operators.affine_gaussian import AffineGaussianKernel
    from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel
    from markovdp.operators.maps import linear_map, tanh_map

    mech = md.GaussianMechanism(0.9, sensitivity=1.3)
    linear = LipschitzGaussianKernel(*linear_map(0.5), 0.8)  # as in tests/test_iteration_bounds.py: compiled once
    bound = md.certify(mech >> linear, rules=["BBGG-E3"]).candidates["BBGG-E3"]
    exact = mech >> AffineGaussianKernel(0.5, 0.0, 0.8)
    alphas = np.array([1.5, 2.0, 30.0])
    np.testing.assert_allclose(bound.renyi(alphas), md.renyi_profile(exact, alphas), rtol=1e-10)
    nonlinear = LipschitzGaussianKernel(*tanh_map(0.5), 0.8)
    assert md.certify(mech >> nonlinear, rules=["BBGG-E3"]).candidates["BBGG-E3"].renyi(2.0) == bound.renyi(2.0)
    chained = md.certify(mech >> linear >> nonlinear, rules=["BBGG-E3"])
    assert "one LipschitzGaussianKernel" in chained.reasons()["BBGG-E3"]


@pytest.mark.parametrize(("l1", "l2", "delta"), [(1.0, 1.0, 1.0), (0.3, 1.0, 2.0)])
def test_bbgg_e2_rule_is_never_below_the_exact_laplace_pipeline(l1, l2, delta):
    """BBGG-E2 rule against the exact RDP and profile of LaplaceMechanism >> LaplaceKernel (`renyi_profile`,
    `privacy_profile`, where the library knows them)."""
    pipeline = md.LaplaceMechanism(l1, sensitivity=delta) >> md.LaplaceKernel(l2)
    bound = md.certify(pipeline, rules=["BBGG-E2"]).candidates["BBGG-E2"]
    alphas = np.array([1.1, 2.0, 5.0, 20.0])
    assert np.all(np.asarray(md.renyi_profile(pipeline, alphas)) <= bound.renyi(alphas) * (1 + 1e-9))
    assert np.all(np.asarray(md.privacy_profile(pipeline, EPS)) <= bound.delta(EPS) * (1 + 1e-9) + 1e-12)


def test_bbgg_e1_rule_is_never_below_the_exact_rational_value():
    """A reported bound is never below the truth, in floats too: the BBGG-E1 curve against alpha Δ²/(2(s1² + s2²))
    in exact rational arithmetic of the same float inputs (it was 1 ulp below on some of these points)."""
    from fractions import Fraction

    from markovdp.guarantees.coupling import iterated_gaussian_rdp

    grid = np.geomspace(0.1, 10.0, 5)
    for s1, s2, delta, alpha in itertools.product(grid, grid, (0.5, 1.0, 3.0), (1.5, 2.0, 7.0, 64.0)):
        got = Fraction(float(iterated_gaussian_rdp(alpha, sensitivity=delta, sigma1=s1, sigma2=s2)))
        exact = Fraction(alpha) * Fraction(delta) ** 2 / (2 * (Fraction(s1) ** 2 + Fraction(s2) ** 2))
        assert exact <= got <= exact * (1 + Fraction(1, 2**46))
