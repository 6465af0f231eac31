"""The law of loc + Lap(l1) + Lap(l2) and the exact privacy of LaplaceMechanism(l1) >> LaplaceKernel(l2).

THEORY: BBGG-E2 (the pipeline), BBGG-L3 (pure eps = Δ/max(l1, l2)), STD-LapHS (the half-line event). Every value
is held against an independent computation: the density against the convolution integral (scipy quad), the
closed forms against the *textbook* difference-of-exponentials forms in mpmath at 60+ digits, the divergences
against mpmath quadrature of their definitions (tests/oracles.py) and against Monte Carlo with CLT intervals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from oracles import mp_hockey_stick_1d, mp_kl_1d, mp_renyi_1d, scale_points
from scipy import integrate, stats

import markovdp as md
from markovdp.distributions.laplace_sum import LaplaceSum
from markovdp.divergences.exact.laplace_sum import laplace_sum_hockey_stick, laplace_sum_kl, laplace_sum_renyi


def mp_laplace_sum_logpdf(loc, l1, l2):
    """x ↦ log density of loc + Lap(l1) + Lap(l2) in the textbook form (a e^(−u/a) − b e^(−u/b))/(2(a² − b²)),
    with extra digits for its cancellation when a ≈ b; (1 + u/a) e^(−u/a)/(4a) when a = b."""
    with mp.workdps(60):
        m, a, b = mp.mpf(loc), mp.mpf(l1), mp.mpf(l2)
    extra_digits = 10 + (int(-math.log10(abs(l1 - l2) / max(l1, l2))) if l1 != l2 else 0)

    def log_f(x):
        u = abs(x - m)
        if a == b:
            return mp.log(1 + u / a) - u / a - mp.log(4 * a)
        with mp.workdps(mp.dps + extra_digits):
            return +mp.log((a * mp.exp(-u / a) - b * mp.exp(-u / b)) / (2 * (a * a - b * b)))

    return log_f


def mp_laplace_sum_sf(u, l1, l2):
    """P(X > loc + u), u >= 0, textbook form (a² e^(−u/a) − b² e^(−u/b)) / (2(a² − b²)), at 80+ digits."""
    with mp.workdps(max(mp.dps, 60) + 20):
        u, a, b = mp.mpf(u), mp.mpf(l1), mp.mpf(l2)
        if a == b:
            return (1 + u / (2 * a)) * mp.exp(-u / a) / 2
        return (a * a * mp.exp(-u / a) - b * b * mp.exp(-u / b)) / (2 * (a * a - b * b))


SCALES = [(1.0, 1.0), (1.0, 0.5), (0.3, 2.0), (1.0, 1.0 + 1e-9), (1.0, 1.0 - 1e-9), (2.0, 2.0 * (1 + 1e-6))]


# ------------------------------------------------------------------------------------------------ the law
@pytest.mark.parametrize(("l1", "l2"), [(1.0, 1.0), (1.0, 0.5), (0.3, 2.0)])
def test_density_is_the_convolution_of_two_laplace_densities(l1, l2):
    """BBGG-E2: f = Lap(l1) * Lap(l2), the convolution integral by scipy quad (split at the kinks)."""
    law = LaplaceSum(0.4, l1, l2)
    for x in (-3.0, 0.0, 0.4, 1.7, 9.0):
        def integrand(y, x=x):
            return math.exp(-abs(y - 0.4) / l1 - abs(x - y) / l2) / (4 * l1 * l2)
        pts = sorted({0.4, x})
        pieces = [(-np.inf, pts[0]), *zip(pts[:-1], pts[1:], strict=True), (pts[-1], np.inf)]
        expected = sum(integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12)[0] for lo, hi in pieces)
        assert law.density(x)[()] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("l1", "l2"), SCALES)
def test_log_density_and_tails_match_the_textbook_forms_far_out_and_near_equal_scales(l1, l2):
    """Stable log-space forms vs the cancelling textbook forms at 60–100 digits: |x| up to 700 scales (log
    density ~ −700, CDF ~ e^−700) and l2 = l1 (1 ± 1e-9), where the textbook form loses ~9 digits."""
    law = LaplaceSum(-1.0, l1, l2)
    a = max(l1, l2)
    log_f = mp_laplace_sum_logpdf(-1.0, l1, l2)
    for u in (0.0, 1e-3 * a, 0.7 * a, 5.0 * a, 60.0 * a, 700.0 * a):
        for x in (-1.0 - u, -1.0 + u):
            assert law.log_density(x)[()] == pytest.approx(float(log_f(mp.mpf(x))), rel=1e-13, abs=1e-14)
        tail = mp_laplace_sum_sf(u, l1, l2)
        assert law.cdf(-1.0 - u)[()] == pytest.approx(float(tail), rel=1e-13)
        assert law.sf(-1.0 + u)[()] == pytest.approx(float(tail), rel=1e-13)
        assert law.log_cdf(-1.0 - u)[()] == pytest.approx(float(mp.log(tail)), rel=1e-13, abs=1e-15)
        assert law.log_sf(-1.0 - u)[()] == pytest.approx(float(mp.log1p(-tail)), rel=1e-12, abs=1e-15)
        assert law.cdf(-1.0 + u)[()] == pytest.approx(float(1 - tail), rel=1e-15)


def test_cdf_is_the_integral_of_the_density():
    law = LaplaceSum(0.0, 0.8, 1.3)
    for x in (-4.0, -0.2, 0.0, 2.5):
        value = integrate.quad(lambda t: law.density(t)[()], -np.inf, min(x, 0.0), epsabs=0, epsrel=1e-12)[0]
        if x > 0:
            value += integrate.quad(lambda t: law.density(t)[()], 0.0, x, epsabs=0, epsrel=1e-12)[0]
        assert law.cdf(x)[()] == pytest.approx(value, rel=1e-10)


def test_equal_scales_is_the_continuous_limit():
    """l2 = l1 (1 ± 1e-9): density, CDF and divergences move by O(1e-9) (no cancellation near l1 = l2)."""
    x = np.linspace(-30, 30, 601)
    ref = LaplaceSum(0.0, 1.0, 1.0)
    eps = np.array([0.0, 0.3, 0.7, 0.9])
    for l2 in (1.0 - 1e-9, 1.0 + 1e-9):
        near = LaplaceSum(0.0, 1.0, l2)
        np.testing.assert_allclose(near.log_density(x), ref.log_density(x), rtol=0, atol=1e-7)
        np.testing.assert_allclose(near.cdf(x), ref.cdf(x), rtol=1e-7)
        a, b = max(1.0, l2), min(1.0, l2)
        np.testing.assert_allclose(laplace_sum_hockey_stick(1.0, a, b, eps),
                                   laplace_sum_hockey_stick(1.0, 1.0, 1.0, eps), rtol=1e-7)
        np.testing.assert_allclose(laplace_sum_renyi(1.0, a, b, np.array([2.0, 50.0])),
                                   laplace_sum_renyi(1.0, 1.0, 1.0, np.array([2.0, 50.0])), rtol=1e-8)


def test_sampling_matches_the_cdf():
    """Kolmogorov–Smirnov test with a fixed seed (p > 1e-3) of sample() against cdf()."""
    law = LaplaceSum(0.5, 0.7, 1.9)
    y = law.sample(20_000, rng=np.random.default_rng(7))
    assert stats.kstest(y, lambda t: law.cdf(t)).pvalue > 1e-3
    assert law.sample(0, rng=1).shape == (0,)
    assert np.array_equal(law.sample(5, rng=3), law.sample(5, rng=3))


def test_quadrature_hints_and_variance():
    law = LaplaceSum(2.0, 0.5, 3.0)
    assert law.quadrature_hints() == ([2.0], [0.5, 3.0])
    assert LaplaceSum(0.0, 1.0, 1.0).quadrature_hints() == ([0.0], [1.0])
    y = law.sample(200_000, rng=11)
    # Var of the sample variance ≈ (mu4 − sigma^4)/n; 5 standard errors
    m4 = 24 * (0.5**4 + 3.0**4) + 6 * (2 * 0.25) * (2 * 9.0)  # E(X1+X2)^4 for centred Laplace laws
    se = math.sqrt((m4 - law.variance() ** 2) / y.size)
    assert abs(y.var() - law.variance()) < 5 * se


# ------------------------------------------------------------------------------------------------ the push
def test_laplace_kernel_pushes_laplace_to_laplace_sum():
    assert md.Laplace(1.5, 0.3) >> md.LaplaceKernel(2.0) == LaplaceSum(1.5, 0.3, 2.0)
    assert md.PointMass(2.0) >> md.LaplaceKernel(1.0) == md.Laplace(2.0, 1.0)
    # a third Laplace variable: STD-LaplaceSumN (tests/test_noise_chains.py); a law without a closed form still raises
    assert LaplaceSum(0.0, 1.0, 1.0) >> md.LaplaceKernel(0.5) == md.distributions.LaplaceSumN(0.0, (1.0, 1.0, 0.5))
    with pytest.raises(NotImplementedError, match="no closed form"):
        md.Empirical([0.1, 0.5]) >> md.LaplaceKernel(1.0)


def test_pipeline_output_and_dominating_pair():
    pipe = md.LaplaceMechanism(0.8, sensitivity=2.0) >> md.LaplaceKernel(0.5)
    assert pipe.output(1.0) == LaplaceSum(1.0, 0.8, 0.5)
    pairs = pipe.dominating_pairs()
    assert isinstance(pairs, md.ShiftPair)
    assert pairs[0] == (LaplaceSum(0.0, 0.8, 0.5), LaplaceSum(2.0, 0.8, 0.5))
    # the pipeline's samples follow its output law
    y = pipe.sample(np.full(20_000, 1.0), rng=np.random.default_rng(5))
    assert stats.kstest(y, lambda t: pipe.output(1.0).cdf(t)).pvalue > 1e-3


def test_shift_pair_push_refuses_other_noise():
    from markovdp.pairs import push_pairs

    # Gaussian noise now pushes exactly (STD-NormalLaplace); two laws that are not shifts of one noise do not
    with pytest.raises(NotImplementedError, match="Laplace noise law"):
        push_pairs(md.LaplaceKernel(1.0), md.ShiftPair(md.Normal(0.0, 1.0), md.Normal(1.0, 2.0)))


# ------------------------------------------------------------------------------------------------ divergences
def mp_half_line_hockey_stick(dist, l1, l2, eps) -> float:
    """max over t of F(t) − e^eps F(t − Δ) for P = LaplaceSum(0), Q = LaplaceSum(Δ): the value of the best
    half-line event (optimal as the likelihood ratio is monotone), with the textbook CDF at 100 digits and a
    golden-section search over t in [−10^4 max(l1, l2), Δ/2] (the objective is unimodal in t)."""
    with mp.workdps(50):
        gamma, d = mp.exp(mp.mpf(eps)), mp.mpf(dist)

        def cdf(t):
            return mp_laplace_sum_sf(-t, l1, l2) if t < 0 else 1 - mp_laplace_sum_sf(t, l1, l2)

        def value(t):
            return cdf(t) - gamma * cdf(t - d)

        lo, hi = -mp.mpf(10) ** 4 * max(l1, l2), d / 2
        invphi = (mp.sqrt(5) - 1) / 2
        for _ in range(200):
            x1, x2 = hi - invphi * (hi - lo), lo + invphi * (hi - lo)
            if value(x1) >= value(x2):
                hi = x2
            else:
                lo = x1
        return float(max(value((lo + hi) / 2), 0))


@pytest.mark.parametrize(("l1", "l2", "dist", "eps"), [
    (1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 1.0, 0.97), (1.0, 0.5, 1.0, 0.3), (0.5, 1.0, 1.0, 0.99),
    (1.0, 1.0 + 1e-9, 1.0, 0.95), (1.0, 1.0 - 1e-9, 1.0, 0.5), (0.01, 0.02, 1.0, 45.0),
    (1.0, 1.0, 1e-4, 5e-5), (2.0, 0.1, 20.0, 9.9),
])
def test_hockey_stick_is_the_best_half_line_of_the_textbook_cdf(l1, l2, dist, eps):
    """STD-LapHS shape for BBGG-E2: the root-finding, at-root closed form vs a direct search over half-lines
    on the textbook CDF at 100 digits; flat tails (eps = 0.97–0.99 Δ/a, values down to 1e-46), l2 = l1 (1 ± 1e-9),
    eps = 45 at Δ/a = 50, and Δ/a = 1e-4."""
    expected = mp_half_line_hockey_stick(dist, l1, l2, eps)
    got = md.hockey_stick(LaplaceSum(0.0, l1, l2), LaplaceSum(dist, l1, l2), eps=eps)
    assert got == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize(("l1", "l2", "dist", "eps"), [
    (1.0, 0.5, 1.0, 0.3),
    pytest.param(1.0, 1.0, 1.0, 0.0, marks=pytest.mark.slow),
    pytest.param(1.0, 1.0 + 1e-9, 1.0, 0.99, marks=pytest.mark.slow),
    pytest.param(0.7, 0.7, 3.0, 4.0, marks=pytest.mark.slow),
])
def test_hockey_stick_matches_mpmath_quadrature_of_the_definition(l1, l2, dist, eps):
    """∫[p − e^eps q]_+ by mpmath quadrature (tests/oracles.py) on the textbook density: also checks that a
    half-line is the optimal event. (1, 1+1e-9, eps = 0.99): value 4e-46, deep in the flat tail."""
    a = max(l1, l2)
    expected = mp_hockey_stick_1d(mp_laplace_sum_logpdf(0, l1, l2), mp_laplace_sum_logpdf(dist, l1, l2), eps,
                                  scale_points([0.0, dist], a, k_max=3))
    got = md.hockey_stick(LaplaceSum(0.0, l1, l2), LaplaceSum(dist, l1, l2), eps=eps)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("l1", "l2", "dist", "alpha"), [
    (1.0, 0.5, 1.0, 4.0),
    pytest.param(0.01, 0.02, 1.0, 1000.0, marks=pytest.mark.slow),
    pytest.param(1.0, 1.0 + 1e-9, 1.0, 2.0, marks=pytest.mark.slow),
    pytest.param(1.0, 1.0, 1e-4, 2.0, marks=pytest.mark.slow),
])
def test_renyi_matches_mpmath(l1, l2, dist, alpha):
    """BBGG-E2 exact side: R_alpha by mpmath quadrature of ∫ p^alpha q^(1−alpha) on the textbook density."""
    a = max(l1, l2)
    pts = sorted({*scale_points([0.0, dist], a, k_max=3), -math.sqrt((alpha - 1) * dist * a)})
    expected = mp_renyi_1d(mp_laplace_sum_logpdf(0, l1, l2), mp_laplace_sum_logpdf(dist, l1, l2), alpha, pts)
    got = md.renyi(LaplaceSum(0.0, l1, l2), LaplaceSum(dist, l1, l2), alpha=alpha)
    assert got == pytest.approx(expected, rel=1e-12)


def textbook_log_pdf(l1, l2, loc):
    """Float log density in the textbook form, for scales far apart (l1/l2 >= 1.5: at most 1 digit lost)."""
    a, b = max(l1, l2), min(l1, l2)
    # (a e^(−u/a) − b e^(−u/b)) with e^(−u/a) factored out, so that the far tails do not underflow
    return lambda x: (-abs(x - loc) / a + math.log(a - b * math.exp(-abs(x - loc) * (1 / b - 1 / a)))
                      - math.log(2 * (a * a - b * b)))


@pytest.mark.parametrize(("l1", "l2", "dist", "alpha"), [(1.0, 0.5, 1.0, 1.5), (0.3, 1.2, 2.0, 10.0),
                                                           (0.01, 0.02, 1.0, 1000.0), (3.0, 1.0, 0.05, 2.0)])
def test_renyi_and_kl_match_scipy_quadrature_of_the_definition(l1, l2, dist, alpha):
    """∫ p^alpha q^(1−alpha) and ∫ p log(p/q) by scipy quad on the textbook density (rescaled by the peak of
    the log-integrand, split at the kinks 0, Δ and at the peak, about −sqrt((alpha − 1) Δ a))."""
    lp, lq = textbook_log_pdf(l1, l2, 0.0), textbook_log_pdf(l1, l2, dist)
    a = max(l1, l2)

    def log_integral(h, pts):
        c = max(h(x) for x in np.linspace(pts[0], pts[-1], 20001))
        pieces = [(-np.inf, pts[0]), *zip(pts[:-1], pts[1:], strict=True), (pts[-1], np.inf)]
        return c + math.log(sum(integrate.quad(lambda x: math.exp(h(x) - c), lo, hi, epsabs=0, epsrel=1e-13,
                                               limit=200)[0] for lo, hi in pieces))

    peak = -math.sqrt((alpha - 1) * dist * a)
    pts = sorted({peak - 100 * a, peak - 10 * a, peak, 0.0, dist, dist + 50 * a})
    expected = log_integral(lambda x: alpha * lp(x) + (1 - alpha) * lq(x), pts) / (alpha - 1)
    p, q = LaplaceSum(0.0, l1, l2), LaplaceSum(dist, l1, l2)
    assert md.renyi(p, q, alpha=alpha) == pytest.approx(expected, rel=1e-10)
    kl = sum(integrate.quad(lambda x: math.exp(lp(x)) * (lp(x) - lq(x)), lo, hi, epsabs=1e-15, epsrel=1e-11)[0]
             for lo, hi in [(-np.inf, 0.0), (0.0, dist), (dist, np.inf)])
    assert md.kl(p, q) == pytest.approx(kl, rel=1e-9)


@pytest.mark.slow
def test_kl_matches_mpmath():
    expected = mp_kl_1d(mp_laplace_sum_logpdf(0, 1.0, 2.0), mp_laplace_sum_logpdf(0.1, 1.0, 2.0),
                        scale_points([0.0, 0.1], 2.0, k_max=4))
    assert md.kl(LaplaceSum(0.0, 1.0, 2.0), LaplaceSum(0.1, 1.0, 2.0)) == pytest.approx(expected, rel=1e-12)


def test_divergences_match_monte_carlo():
    """E_{e^eps} = E_P[(1 − e^(eps − L))_+], KL = E_P[L], e^((alpha−1) R_alpha) = E_P[e^((alpha−1) L)] with
    L = log p − log q: bounded integrands, so 5-standard-error CLT intervals (fixed seed)."""
    p, q = LaplaceSum(0.0, 0.6, 1.1), LaplaceSum(1.3, 0.6, 1.1)
    x = p.sample(400_000, rng=np.random.default_rng(2024))
    loss = p.log_density(x) - q.log_density(x)

    def close(samples, value):
        assert abs(samples.mean() - value) < 5 * samples.std() / math.sqrt(samples.size) + 1e-12

    for eps in (0.0, 0.4, 1.0):
        close(np.maximum(-np.expm1(eps - loss), 0.0), md.hockey_stick(p, q, eps=eps))
    close(loss, md.kl(p, q))
    close(np.exp(loss), math.exp(md.renyi(p, q, alpha=2.0)))


def test_divergences_between_shifts_depend_on_the_distance_only():
    p, q = LaplaceSum(2.0, 0.5, 1.5), LaplaceSum(0.5, 1.5, 0.5)  # scales in either order: the same law family
    ref_p, ref_q = LaplaceSum(0.0, 1.5, 0.5), LaplaceSum(1.5, 1.5, 0.5)
    assert md.hockey_stick(p, q, eps=0.2) == pytest.approx(md.hockey_stick(ref_p, ref_q, eps=0.2), rel=1e-14)
    assert md.renyi(p, q, alpha=3.0) == pytest.approx(md.renyi(ref_q, ref_p, alpha=3.0), rel=1e-14)
    assert md.hockey_stick(p, p, eps=0.0) == 0.0 and md.renyi(p, p, alpha=2.0) == 0.0 and md.kl(p, p) == 0.0


def test_different_scales_fall_back_and_say_why():
    p, q = LaplaceSum(0.0, 1.0, 2.0), LaplaceSum(1.0, 1.0, 3.0)
    with pytest.raises(NotImplementedError, match="same two scales"):
        md.hockey_stick(p, q, eps=0.5, method="closed_form")
    assert md.hockey_stick(p, q, eps=math.inf) == 0.0


@settings(max_examples=60, deadline=None)
@given(l1=st.floats(1e-3, 1e3), ratio=st.floats(1e-3, 1e3), dist=st.floats(1e-3, 1e3),
       frac=st.floats(0.0, 1.0), shrink=st.floats(0.0, 1.0))
def test_renyi_and_hockey_stick_are_monotone_and_bounded(l1, ratio, dist, frac, shrink):
    """The shift pair dominates (BBGG-E2 docstring of the push): a smaller shift never gives a larger
    E_gamma; R_alpha grows with alpha up to R_inf = Δ/a; the profile vanishes exactly at eps >= Δ/a."""
    l2 = l1 * ratio
    a, b = max(l1, l2), min(l1, l2)
    z = dist / a
    eps = np.array([frac * z, z, 2 * z])
    big = laplace_sum_hockey_stick(dist, a, b, eps)
    small = laplace_sum_hockey_stick(dist * shrink, a, b, eps)
    assert np.all(small <= big * (1 + 1e-9) + 1e-15)
    assert big[1] == 0.0 and big[2] == 0.0 and 0.0 <= big[0] <= 1.0
    r = laplace_sum_renyi(dist, a, b, np.array([1.5, 4.0, math.inf]))
    assert 0.0 <= r[0] <= r[1] * (1 + 1e-9) and r[1] <= r[2] == z


# ------------------------------------------------------------------------------------------------ privacy
@settings(max_examples=120, deadline=None)
@given(l1=st.floats(1e-3, 1e2), l2=st.floats(1e-3, 1e2), sensitivity=st.floats(1e-3, 1e2))
def test_bbgg_l3_pure_epsilon_is_sensitivity_over_max_scale(l1, l2, sensitivity):
    """BBGG-L3: the exact pure eps of LaplaceMechanism(l1) >> LaplaceKernel(l2) is Δ/max(l1, l2), to a few
    ulps and never below (conservative), with the profile exactly 0 there."""
    pipe = md.LaplaceMechanism(l1, sensitivity=sensitivity) >> md.LaplaceKernel(l2)
    z = sensitivity / max(l1, l2)
    eps = md.privacy_epsilon(pipe, 0.0)
    assert z <= eps <= z + 4 * np.spacing(z)
    assert md.privacy_profile(pipe, eps) == 0.0
    assert md.renyi_profile(pipe, math.inf) == z


def test_bbgg_l3_no_pure_amplification_while_renyi_amplifies():
    """BBGG-L3 vs BBGG-E2: post-processing keeps eps_pure = Δ/l1 when l1 >= l2, but lowers every finite-order
    R_alpha; just below Δ/max the profile is still positive (no eps < Δ/max is pure DP)."""
    mech = md.LaplaceMechanism(1.0)
    pipe = mech >> md.LaplaceKernel(0.5)
    assert md.privacy_epsilon(pipe, 0.0) == md.privacy_epsilon(mech, 0.0) == 1.0
    alpha = np.array([1.5, 2.0, 10.0, 100.0])
    assert np.all(md.renyi_profile(pipe, alpha) < md.renyi_profile(mech, alpha))
    assert md.privacy_profile(pipe, np.nextafter(1.0, 0.0)) > 0.0
    assert md.privacy_profile(pipe, 0.9) > 0.0


def test_pipeline_profiles_match_independent_oracles():
    """privacy_profile / renyi_profile of the pipeline go through its dominating pair (BBGG-E2)."""
    pipe = md.LaplaceMechanism(0.9, sensitivity=1.2) >> md.LaplaceKernel(0.9)
    assert md.privacy_profile(pipe, 0.5) == pytest.approx(mp_half_line_hockey_stick(1.2, 0.9, 0.9, 0.5), rel=1e-11)
    pipe = md.LaplaceMechanism(0.9, sensitivity=1.2) >> md.LaplaceKernel(0.45)
    lp, lq = textbook_log_pdf(0.9, 0.45, 0.0), textbook_log_pdf(0.9, 0.45, 1.2)
    pieces = [(-np.inf, -20.0), (-20.0, 0.0), (0.0, 1.2), (1.2, 20.0), (20.0, np.inf)]
    total = sum(integrate.quad(lambda x: math.exp(3.0 * lp(x) - 2.0 * lq(x)), lo, hi, epsabs=0, epsrel=1e-12)[0]
                for lo, hi in pieces)
    assert md.renyi_profile(pipe, 3.0) == pytest.approx(math.log(total) / 2.0, rel=1e-10)
    assert md.renyi_profile(pipe, np.array([2.0, 3.0])).shape == (2,)


def test_renyi_tends_to_kl_and_to_r_inf():
    a, b, dist = 1.3, 0.4, 0.8
    kl = laplace_sum_kl(dist, a, b)
    assert laplace_sum_renyi(dist, a, b, np.array([1.0 + 1e-7]))[0] == pytest.approx(kl, rel=1e-6)
    assert laplace_sum_renyi(dist, a, b, np.array([1e6]))[0] == pytest.approx(dist / a, rel=1e-4)


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("build", "error", "name"), [
    (lambda: LaplaceSum(float("nan"), 1.0, 1.0), ValueError, "loc"),
    (lambda: LaplaceSum(float("inf"), 1.0, 1.0), ValueError, "loc"),
    (lambda: LaplaceSum([0.0, 1.0], 1.0, 1.0), TypeError, "loc"),
    (lambda: LaplaceSum("0", 1.0, 1.0), TypeError, "loc"),
    (lambda: LaplaceSum(0.0, 0.0, 1.0), ValueError, "scale1"),
    (lambda: LaplaceSum(0.0, -1.0, 1.0), ValueError, "scale1"),
    (lambda: LaplaceSum(0.0, 1.0, float("inf")), ValueError, "scale2"),
    (lambda: LaplaceSum(0.0, 1.0, float("nan")), ValueError, "scale2"),
    (lambda: LaplaceSum(0.0, 1.0, 1.0).sample(-1), ValueError, "n"),
    (lambda: LaplaceSum(0.0, 1.0, 1.0).cdf(float("nan")), ValueError, "x"),
    (lambda: LaplaceSum(0.0, 1.0, 1.0).log_density([[0.0, 1.0]]), ValueError, "x"),
    (lambda: md.LaplaceKernel(float("inf")), ValueError, "scale"),
    (lambda: md.LaplaceKernel(0.0), ValueError, "scale"),
    (lambda: md.GaussianKernel(1.0, dim=2).push(md.Laplace(0.0, 1.0)), md.IncompatibleSpaces, "mu >> K"),
    (lambda: md.LaplaceKernel(1.0).push(md.Normal([0.0, 0.0], 1.0)), md.IncompatibleSpaces, "mu >> K"),
])
def test_bad_input_names_the_parameter(build, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        build()
