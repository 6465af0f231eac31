"""Noise chains on R: sums of Laplace variables (STD-LaplaceSumN), Gaussian plus Laplace noise (STD-NormalLaplace),
and the exact privacy of LaplaceMechanism / GaussianMechanism through Laplace and Gaussian kernels.

Every value is held against an independent computation: the Laplace-sum density and survival function against
the textbook partial fractions Σ c_i e^(−u/b_i) in mpmath with enough digits for their cancellation (equal scales:
the Bessel form |x|^(n−1/2) K_(n−1/2)(|x|/b)), the normal-Laplace law against mpmath quadrature of the convolution
integral, the divergences against mpmath quadrature of their definitions (tests/oracles.py), the pipelines against
Monte Carlo with CLT intervals.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from oracles import mp_hockey_stick_1d, mp_kl_1d, mp_renyi_1d

import markovdp as md
from markovdp.distributions import LaplaceSum, LaplaceSumN, NormalLaplace
from markovdp.divergences.exact.noise_chain import shift_hockey_stick, shift_kl, shift_renyi


# ------------------------------------------------------------------------------------------------ oracles
def _digits(scales) -> int:
    """Working digits for the partial fractions: the largest coefficient Π_j b_i²/|b_i² − b_j²| has about
    Σ_j −log10(relative gap) digits, which cancel."""
    def gap(x, y):
        return min(30.0, max(0.0, -math.log10(max(abs(x - y) / max(x, y), 1e-30))))

    loss = max(sum(gap(x, y) for j, y in enumerate(scales) if j != i) for i, x in enumerate(scales))
    return int(40 + 1.5 * loss + 2 * len(scales))


def _distinct(scales):
    """Exactly equal scales nudged apart by 1e-30 relative (the law moves by ~1e-29: far below the tolerances)."""
    out = []
    for b in scales:
        v = mp.mpf(b)
        while v in out:
            v *= 1 + mp.mpf(10) ** -30
        out.append(v)
    return out


def mp_laplace_sum(scales, u, survival=False):
    """The density (or P(X > u)) of Σ Lap(0, b_i) at u >= 0 by partial fractions, in mpmath."""
    with mp.workdps(_digits(scales) + 50):
        b = _distinct(scales)
        u = abs(mp.mpf(u))
        total = mp.mpf(0)
        for i, bi in enumerate(b):
            c = mp.fprod([bi**2 / (bi**2 - bj**2) for j, bj in enumerate(b) if j != i])
            total += c * mp.exp(-u / bi) * (mp.mpf(1) / 2 if survival else 1 / (2 * bi))
        return +total


def mp_equal_scales_density(n, b, u):
    """n iid Lap(0, b): (u/b)^(n−1/2) K_(n−1/2)(u/b) / (b √π 2^(n−1/2) Γ(n)) (u > 0; variance-gamma law)."""
    with mp.workdps(50):
        u, b = mp.mpf(u), mp.mpf(b)
        nu = n - mp.mpf(1) / 2
        return (u / b) ** nu * mp.besselk(nu, u / b) / (b * mp.sqrt(mp.pi) * 2 ** nu * mp.gamma(n))


def mp_normal_laplace(sigma, scales, x):
    """∫ N(x − y; 0, sigma²) g(y) dy by mpmath quad, g the Laplace-sum density (`mp_laplace_sum`)."""
    with mp.workdps(30):
        s, x = mp.mpf(sigma), mp.mpf(x)
        b_min = min(scales)
        pts = {float(x) + k * sigma / 2 for k in range(-80, 81)} | {0.0}
        pts |= {sg * b_min * 2.0**j for j in range(-4, 40) for sg in (1, -1)}
        pts = sorted(mp.mpf(p) for p in pts if abs(p - float(x)) <= 40 * sigma)
        gauss = 1 / (s * mp.sqrt(2 * mp.pi))
        if len(scales) == 1:
            b = mp.mpf(scales[0])
            return mp.quad(lambda y: gauss * mp.exp(-(x - y) ** 2 / (2 * s * s) - abs(y) / b) / (2 * b), pts)
        return mp.quad(lambda y: gauss * mp.exp(-(x - y) ** 2 / (2 * s * s)) * mp_laplace_sum(scales, y), pts)


def _rel(value, ref) -> float:
    return float(abs(mp.mpf(float(value)) / ref - 1))


RNG = np.random.default_rng(20261205)
#: (scales) cases: equal, nearly equal, distinct, ratios out to 1e4, n up to 21
CASES = [
    (1.0, 1.0, 1.0),
    (1.0, 1.0 + 1e-9, 1.0 - 1e-9, 1.0 + 2e-9),
    (1.0, 1.0 + 1e-4, 0.5, 0.5 * (1 + 1e-6)),
    (2.0, 0.7, 0.3, 0.1),
    (1.0, 1e-4, 1e-2, 1.0),
    tuple(np.exp(RNG.uniform(math.log(1e-4), 0.0, 21))),
    tuple(1.0 + 1e-3 * RNG.uniform(size=21)),
    tuple([1.0] * 11 + [1e-4] * 10),
]


# ------------------------------------------------------------------------------------------- STD-LaplaceSumN
@pytest.mark.parametrize("scales", CASES)
def test_laplace_sum_density_and_survival_match_partial_fractions_in_mpmath(scales):
    """STD-LaplaceSumN: f and S to 1e-12 relative (measured ~3e-14) from u = 0 to u = 700 b_max."""
    law = LaplaceSumN(0.3, scales)
    b_max = max(scales)
    u = np.array([0.0, 1e-6, 1e-3, 0.3, 1.0, 5.0, 30.0, 200.0, 700.0]) * b_max
    log_f = law.log_density(0.3 - u)
    log_s = law.log_sf(0.3 + u)
    for k, uk in enumerate(u):
        with mp.workdps(30):
            assert abs(mp.mpf(float(log_f[k])) - mp.log(mp_laplace_sum(scales, uk))) <= 1e-12 * max(1, abs(log_f[k]))
            assert abs(mp.mpf(float(log_s[k])) - mp.log(mp_laplace_sum(scales, uk, True))) <= 1e-12 * max(
                1, abs(log_s[k]))


@pytest.mark.parametrize("n", [2, 3, 5, 21])
def test_equal_scales_match_the_bessel_form(n):
    """STD-LaplaceSumN, confluent case: n equal scales give the elementary Bessel K_(n−1/2) density."""
    law = LaplaceSumN(0.0, (0.7,) * n)
    for x in (1e-3, 0.5, 3.0, 40.0, 300.0):
        with mp.workdps(30):
            log_f = float(law.log_density(np.array([x]))[0])
            assert abs(log_f - float(mp.log(mp_equal_scales_density(n, 0.7, x)))) <= 1e-12 * max(1.0, abs(log_f))


def test_two_scales_agree_with_the_laplace_sum_closed_form():
    """n = 2 agrees with the independent closed form of `LaplaceSum` (BBGG-E2), also for nearly equal scales."""
    x = np.linspace(-30, 30, 61)
    for a, b in [(1.0, 1.0), (1.0, 1.0 + 1e-12), (2.0, 0.3)]:
        np.testing.assert_allclose(LaplaceSumN(0.5, (a, b)).log_density(x), LaplaceSum(0.5, a, b).log_density(x),
                                   rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(LaplaceSumN(0.5, (a, b)).log_cdf(x), LaplaceSum(0.5, a, b).log_cdf(x),
                                   rtol=1e-12, atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-4 * math.log(10), 4 * math.log(10)), min_size=1, max_size=8),
       st.floats(0.0, 60.0))
def test_property_random_scales_match_mpmath(log_scales, u):
    """Random scales (ratios up to 1e8, duplicates allowed) and points: f and S to 1e-11 relative."""
    scales = tuple(float(np.exp(v)) for v in log_scales)
    law = LaplaceSumN(0.0, scales)
    x = u * max(scales)
    with mp.workdps(30):
        ref_f, ref_s = mp_laplace_sum(scales, x), mp_laplace_sum(scales, x, True)
        assert abs(float(law.log_density(np.array([x]))[0]) - float(mp.log(ref_f))) <= 1e-11 * max(1.0, u)
        assert abs(float(law.log_sf(np.array([x]))[0]) - float(mp.log(ref_s))) <= 1e-11 * max(1.0, u)


def test_sampling_matches_the_law():
    """Sample mean and variance and P(X <= q) against the law (CLT tolerances, z = 5)."""
    law = LaplaceSumN(1.0, (1.0, 0.5, 2.0))
    x = law.sample(200_000, rng=7)
    n = x.size
    assert abs(x.mean() - 1.0) <= 5 * math.sqrt(law.variance() / n)
    for q in (-2.0, 0.5, 3.0):
        p = float(law.cdf(np.array([q]))[0])
        assert abs(np.mean(x <= q) - p) <= 5 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("bad", [(), (1.0, -1.0), (1.0, float("nan")), "ab", 3.0])
def test_bad_scales_are_refused_with_the_template(bad):
    with pytest.raises((ValueError, TypeError), match="`scales` must be"):
        LaplaceSumN(0.0, bad)
    with pytest.raises((ValueError, TypeError), match="`scales` must be"):
        NormalLaplace(0.0, 1.0, bad)
    with pytest.raises(ValueError, match="`sigma` must be"):
        NormalLaplace(0.0, -1.0, (1.0,))


# ------------------------------------------------------------------------------------------- STD-NormalLaplace
@pytest.mark.parametrize(("sigma", "scales"), [(1.0, (1.0,)), (0.01, (1.0,)), (30.0, (1.0,)), (1.0, (1e-4,)),
                                               (3.0, (0.5,)), (1.0, (1.0, 0.3)), (0.2, (2.0, 1.0, 0.5))])
def test_normal_laplace_density_matches_the_convolution_in_mpmath(sigma, scales):
    """STD-NormalLaplace: the closed form (one Laplace) and the quadrature (several) to 1e-10 relative."""
    law = NormalLaplace(0.0, sigma, scales)
    span = max(sigma, max(scales))
    xs = np.array([0.0, 0.4, 3.0, 20.0]) * span
    log_f = law.log_density(xs)
    for x, lf in zip(xs, log_f, strict=True):
        with mp.workdps(30):
            assert abs(float(lf) - float(mp.log(mp_normal_laplace(sigma, scales, x)))) <= 1e-10 * max(1, abs(lf))
    assert np.all(law.convolution_error(xs) <= 1e-10)


@pytest.mark.parametrize(("sigma", "scales"), [(1.0, (1.0,)), (0.05, (2.0,)), (10.0, (1.0,)), (1.0, (1.0, 0.5))])
def test_normal_laplace_survival_is_the_integral_of_the_density(sigma, scales):
    """P(X > x) against mpmath quadrature of the density (`log_density` itself: an independent check of `log_sf`)."""
    law = NormalLaplace(0.0, sigma, scales)
    span, fine = max(sigma, max(scales)), min(sigma, max(scales))
    for x in (0.0, 0.7 * span, 5.0 * span, 30.0 * span):
        pts = [x + k * fine for k in range(40)] + [x + 40 * fine + k * max(scales) for k in range(400)]
        with mp.workdps(20):
            tail = mp.quad(lambda t: mp.exp(float(law.log_density(np.array([float(t)]))[0])), pts)
        assert _rel(law.sf(np.array([x]))[0], tail) <= 1e-9


def test_normal_laplace_sampling():
    law = NormalLaplace(0.5, 0.7, (1.0, 0.3))
    x = law.sample(200_000, rng=11)
    for q in (-1.0, 0.5, 2.5):
        p = float(law.cdf(np.array([q]))[0])
        assert abs(np.mean(x <= q) - p) <= 5 * math.sqrt(p * (1 - p) / x.size)


# ---------------------------------------------------------------------------------------------- divergences
def mp_normal_laplace_reed(sigma, b, x):
    """Reed's form (1/(4b)) e^(s²/(2b²)) [e^(−x/b) erfc((s/b − x/s)/√2) + e^(x/b) erfc((s/b + x/s)/√2)] with
    mpmath's erfc (not the erfcx/log_ndtr evaluation of the code; the form itself is checked against the
    convolution integral above)."""
    s, b, x = mp.mpf(sigma), mp.mpf(b), mp.mpf(x)
    return mp.exp(s * s / (2 * b * b)) / (4 * b) * (mp.exp(-x / b) * mp.erfc((s / b - x / s) / mp.sqrt(2))
                                                  + mp.exp(x / b) * mp.erfc((s / b + x / s) / mp.sqrt(2)))


@functools.cache
def _mp_logpdf(law):
    """The law's log density in mpmath, memoised per point: the quadratures of one law at several eps or alpha
    share most of their nodes (mpmath's nodes depend only on the interval ends), and the 50-digit partial
    fractions dominate the cost."""

    @functools.cache
    def log_f(x):
        u = abs(x - law.loc)
        if isinstance(law, LaplaceSumN):
            return mp.log(mp_laplace_sum(law.scales, u))
        return mp.log(mp_normal_laplace_reed(law.sigma, law.scales[0], u))

    return log_f


HS_CASES = [  # (law, Δ, eps grid)
    (LaplaceSumN(0.0, (1.0, 1.0, 1.0)), 1.0, [0.0, 0.1, 0.5, 0.9]),
    (LaplaceSumN(0.0, (1.0, 0.5, 0.25)), 1.0, [0.05, 0.3, 0.8, 0.95]),
    (LaplaceSumN(0.0, (0.04, 0.04 * (1 + 1e-7), 0.01)), 1.0, [1.0, 5.0, 12.0, 20.0]),
    (LaplaceSumN(0.0, (1.0, 1e-4, 1e-2)), 2.0, [0.5, 1.5]),
]


@pytest.mark.parametrize(("law", "dist", "eps"), HS_CASES)
def test_hockey_stick_matches_mpmath_quadrature(law, dist, eps):
    """E_{e^eps}(Z || Z + Δ) by the half-line event against mpmath quadrature of the definition: 1e-10."""
    got = shift_hockey_stick(law, dist, np.array(eps))
    shifted = LaplaceSumN(dist, law.scales)
    b, b_min = max(law.scales), min(law.scales)
    points = sorted({0.0, dist, dist / 2} | {c + s * b * 2.0**k for c in (0.0, dist) for s in (1, -1)
                                               for k in range(-4, 9)}
                    | {c + s * b_min * 4.0**k for c in (0.0, dist) for s in (1, -1) for k in range(0, 4)})
    for e, g in zip(eps, got, strict=True):
        ref = mp_hockey_stick_1d(_mp_logpdf(law), _mp_logpdf(shifted), e, points)
        assert abs(g - ref) <= 1e-10 * ref, (e, g, ref)


def test_hockey_stick_normal_laplace_matches_mpmath():
    law = NormalLaplace(0.0, 0.5, (1.0,))
    got = shift_hockey_stick(law, 1.0, np.array([0.0, 0.3, 0.7]))
    points = sorted({0.0, 1.0, 0.5} | {c + s * 2.0**k for c in (0.0, 1.0) for s in (1, -1) for k in range(-4, 8)})
    for e, g in zip([0.0, 0.3, 0.7], got, strict=True):
        ref = mp_hockey_stick_1d(_mp_logpdf(law), _mp_logpdf(NormalLaplace(1.0, 0.5, (1.0,))), e, points)
        assert abs(g - ref) <= 1e-10 * ref


@pytest.mark.parametrize("law", [LaplaceSumN(0.0, (1.0, 1.0, 1.0)), LaplaceSumN(0.0, (1.0, 0.5, 0.25)),
                                 NormalLaplace(0.0, 0.5, (1.0,))])
def test_renyi_and_kl_match_mpmath(law):
    """R_alpha by Gauss–Legendre (warned above 1e-10) against mpmath quadrature; alpha = inf is Δ/b_max."""
    shifted = type(law)(1.0, *([law.sigma] if isinstance(law, NormalLaplace) else []), law.scales)
    points = sorted({0.0, 1.0, 0.5} | {c + s * 2.0**k for c in (0.0, 1.0) for s in (1, -1) for k in range(-4, 8)})
    alphas = [1.5, 2.0, 8.0]
    got = shift_renyi(law, 1.0, np.array([*alphas, math.inf]))
    for a, g in zip(alphas, got[:-1], strict=True):
        ref = mp_renyi_1d(_mp_logpdf(law), _mp_logpdf(shifted), a, points)
        assert abs(g - ref) <= 1e-9 * ref
    assert got[-1] == 1.0 / max(law.scales)
    ref_kl = mp_kl_1d(_mp_logpdf(law), _mp_logpdf(shifted), points)
    assert abs(shift_kl(law, 1.0) - ref_kl) <= 1e-9 * ref_kl


# ------------------------------------------------------------------------------------------------ pipelines
@pytest.mark.parametrize(("r", "expected"), [(2, 0.021), (3, 0.009)])
def test_issue_numbers_for_laplace_chains(r, expected):
    """Issue 14 §3: δ(0.5) of LaplaceMechanism(1) >> LaplaceKernel(1) ** r; Monte Carlo saw ≈0.021 and ≈0.009."""
    pipe = md.LaplaceMechanism(1.0) >> md.LaplaceKernel(1.0) ** r
    assert abs(md.privacy_profile(pipe, 0.5) - expected) <= 0.002


def test_power_equals_the_unrolled_chain_and_the_law():
    """K ** r pushes the pair r times: the same profile as the explicit chain and as the law's own divergence."""
    eps = np.array([0.0, 0.2, 0.6])
    power = md.privacy_profile(md.LaplaceMechanism(1.0) >> md.LaplaceKernel(0.5) ** 3, eps)
    chain = md.privacy_profile(md.LaplaceMechanism(1.0) >> md.LaplaceKernel(0.5) >> md.LaplaceKernel(0.5)
                               >> md.LaplaceKernel(0.5), eps)
    direct = shift_hockey_stick(LaplaceSumN(0.0, (1.0, 0.5, 0.5, 0.5)), 1.0, eps)
    np.testing.assert_array_equal(power, chain)
    np.testing.assert_allclose(power, direct, rtol=1e-14)


def test_twenty_kernels_against_the_bessel_form():
    """r = 20 equal scales: the pipeline's δ against mpmath quadrature with the Bessel-form density."""
    pipe = md.LaplaceMechanism(1.0) >> md.LaplaceKernel(1.0) ** 20
    got = md.privacy_profile(pipe, np.array([0.05, 0.2]))

    def logpdf(loc):
        return lambda x: mp.log(mp_equal_scales_density(21, 1.0, abs(x - loc)) if x != loc
                                else mp_laplace_sum((1.0,) * 21, 0))

    points = sorted({0.0, 1.0, 0.5} | {c + s * 2.0**k for c in (0.0, 1.0) for s in (1, -1) for k in range(-3, 8)})
    for e, g in zip([0.05, 0.2], got, strict=True):
        ref = mp_hockey_stick_1d(logpdf(0.0), logpdf(1.0), e, points)
        assert abs(g - ref) <= 1e-10 * ref


@pytest.mark.parametrize("pipe", [
    md.GaussianMechanism(1.0) >> md.LaplaceKernel(1.0),
    md.LaplaceMechanism(1.0) >> md.GaussianKernel(0.5) >> md.LaplaceKernel(0.5),
    md.GaussianMechanism(0.5) >> md.LaplaceKernel(1.0) >> md.GaussianKernel(0.5) >> md.LaplaceKernel(2.0),
])
def test_mixed_chains_match_monte_carlo_of_the_half_line_event(pipe):
    """The exact δ(eps) is attained by {y <= t}: F_0(t) − e^eps F_Δ(t) from samples of the pipeline on inputs 0
    and Δ agrees with it within 5 standard errors, and the pair's law is the pipeline's law (a KS-type check)."""
    eps = 0.3
    exact = md.privacy_profile(pipe, eps)
    pair = pipe.dominating_pairs()
    law0, law1 = pair[0]
    n = 400_000
    y0, y1 = pipe.sample(np.zeros(n), rng=1), pipe.sample(np.full(n, 1.0), rng=2)
    grid = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(np.mean(y0[:, None] <= grid, axis=0), law0.cdf(grid), atol=5 * 0.5 / math.sqrt(n))
    from scipy import optimize

    def excess(x):
        return float(law0.log_density(np.array([x]))[0] - law1.log_density(np.array([x]))[0]) - eps

    t = optimize.brentq(excess, -40.0, 0.5)
    p0, p1 = np.mean(y0 <= t), np.mean(y1 <= t)
    estimate = p0 - math.exp(eps) * p1
    se = math.sqrt(p0 * (1 - p0) / n + math.exp(2 * eps) * p1 * (1 - p1) / n)
    assert abs(estimate - exact) <= 5 * se
    assert abs(law0.cdf(np.array([t]))[0] - math.exp(eps) * law1.cdf(np.array([t]))[0] - exact) <= 1e-12


def test_renyi_profile_and_epsilon_of_chains():
    pipe = md.LaplaceMechanism(1.0) >> md.LaplaceKernel(1.0) ** 2
    values = md.renyi_profile(pipe, np.array([2.0, math.inf]))
    assert values[1] == 1.0 and 0.0 < values[0] < 1.0
    eps = md.privacy_epsilon(pipe, 1e-3)
    assert md.privacy_profile(pipe, eps) <= 1e-3 < md.privacy_profile(pipe, eps * (1 - 1e-6))
    assert md.privacy_epsilon(pipe, 0.0) >= 1.0


def test_worst_pair_of_noise_chains_is_the_full_shift():
    """For additive noise on R the query values (0, sensitivity) attain the profile at every eps."""
    assert md.worst_pair(md.LaplaceMechanism(1.0, 2.0) >> md.LaplaceKernel(1.0) ** 3, 0.5) == (0.0, 2.0)
    assert md.worst_pair(md.GaussianMechanism(1.0) >> md.LaplaceKernel(1.0), 0.0) == (0.0, 1.0)
