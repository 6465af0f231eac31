"""Exact divergences (`markovdp.divergences.exact`) against independent oracles (`tests/oracles.py`).

Every closed form (STD-GaussHS, STD-GaussRenyi, STD-LapHS, STD-LapRenyi, the Gaussian and Laplace KL) is
held against mpmath quadrature of the definitions at 40 digits, at the extremes (eps up to 50, sigma down
to 1e-3, alpha up to 1e3 and inf), and against the library's own `method="quadrature"`; finite sums are held
against brute force over events and mpmath sums.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracles import (
    hockey_stick_bruteforce,
    kl_categorical_mp,
    mp_hockey_stick_1d,
    mp_hockey_stick_laplace,
    mp_hockey_stick_normal,
    mp_kl_1d,
    mp_laplace_logpdf,
    mp_normal_logpdf,
    mp_renyi_1d,
    renyi_categorical_mp,
    scale_points,
)

from markovdp.distributions import Categorical, Distribution, Empirical, Laplace, Normal, PointMass
from markovdp.divergences.exact import hockey_stick, kl, renyi, tv
from markovdp.spaces import FiniteSpace, RealSpace

INF = math.inf
RTOL = 1e-9  # closed form vs 40-digit quadrature; measured worst about 1e-12
TINY = 1e-300  # below this a double has no relative accuracy left (and 0.0 is the right answer)


def assert_close(value: float, oracle: float, rtol: float = RTOL) -> None:
    if oracle < TINY:
        assert value < TINY, (value, oracle)
    else:
        assert value == pytest.approx(oracle, rel=rtol, abs=0.0)


# ---------------------------------------------------------------------------------------------------
# STD-GaussHS
# ---------------------------------------------------------------------------------------------------

# (eps, D/s): for each eps a ratio where the answer is tiny and one where it is moderate
GAUSS_HS_CASES = [(0.0, 0.5), (0.0, 3.0), (0.5, 1.0), (0.5, 3.0), (1.0, 0.5), (1.0, 3.0), (5.0, 0.5),
                  (5.0, 3.0), (10.0, 1.0), (10.0, 3.0), (20.0, 1.0), (20.0, 10.0), (50.0, 3.0), (50.0, 10.0)]


@pytest.mark.parametrize("sigma", [1.0, 1e-3])
@pytest.mark.parametrize(("eps", "ratio"), GAUSS_HS_CASES)
def test_std_gausshs_matches_mpmath_at_extremes(eps: float, ratio: float, sigma: float) -> None:
    dist = ratio * sigma
    value = hockey_stick(Normal(0.0, sigma), Normal(dist, sigma), eps=eps)
    assert isinstance(value, float)
    assert_close(value, mp_hockey_stick_normal(dist, sigma, eps))


def test_std_gausshs_tiny_value_at_eps_10_is_not_lost() -> None:
    # D = 1, s = 1, eps = 10: Phi(−9.5) − e^10 Phi(−10.5) ≈ 9.81e-23, the difference of two ~1e-21 numbers
    value = hockey_stick(Normal(0.0, 1.0), Normal(1.0, 1.0), eps=10.0)
    oracle = mp_hockey_stick_normal(1.0, 1.0, 10.0)
    assert oracle == pytest.approx(9.8127058268e-23, rel=1e-10)
    assert value == pytest.approx(oracle, rel=1e-8)


def test_std_gausshs_depends_only_on_the_distance_in_rd() -> None:
    eps = np.array([0.0, 0.5, 2.0, 10.0])
    in_r3 = hockey_stick(Normal([0.0, 0.0, 0.0], 0.5), Normal([1.5, 2.0, 0.0], 0.5), eps=eps)
    in_r1 = hockey_stick(Normal(0.0, 0.5), Normal(2.5, 0.5), eps=eps)
    np.testing.assert_allclose(in_r3, in_r1, rtol=1e-14)


def test_std_gausshs_zero_distance_and_eps_inf_give_zero() -> None:
    assert hockey_stick(Normal(1.0, 2.0), Normal(1.0, 2.0), eps=0.0) == 0.0
    assert hockey_stick(Normal(0.0, 1.0), Normal(3.0, 1.0), eps=INF) == 0.0  # D_inf = 0: equivalent laws
    assert hockey_stick(Normal(0.0, 1.0), Normal(3.0, 2.0), eps=INF) == 0.0


# ---------------------------------------------------------------------------------------------------
# STD-GaussRenyi and the Gaussian KL
# ---------------------------------------------------------------------------------------------------

def gauss_renyi_points(dist: float, s1: float, s2: float, alpha: float) -> list[float]:
    """Breakpoints for mu = N(0, s1²), nu = N(dist, s2²): both means and the peak of p^alpha q^(1−alpha)
    (where the derivative of alpha log p + (1 − alpha) log q vanishes), with its width."""
    curvature = alpha / s1**2 - (alpha - 1.0) / s2**2
    peak = -(alpha - 1.0) * dist / s2**2 / curvature
    width = 1.0 / math.sqrt(curvature)
    return scale_points([0.0, dist, peak], min(width, s1, s2))


# (D, sigma1, sigma2): equal sigmas (also tiny), and unequal with s_a² > 0 for every alpha (s1 < s2)
GAUSS_RENYI_CASES = [(1.0, 1.0, 1.0), (3e-3, 1e-3, 1e-3), (1.0, 1.0, 2.0), (2e-3, 1e-3, 1.5e-3)]


@pytest.mark.parametrize("alpha", [1.5, 2.0, 10.0, 100.0, 1e3])
@pytest.mark.parametrize(("dist", "s1", "s2"), GAUSS_RENYI_CASES)
def test_std_gaussrenyi_matches_mpmath(dist: float, s1: float, s2: float, alpha: float) -> None:
    value = renyi(Normal(0.0, s1), Normal(dist, s2), alpha=alpha)
    oracle = mp_renyi_1d(mp_normal_logpdf(0, s1), mp_normal_logpdf(dist, s2), alpha,
                         gauss_renyi_points(dist, s1, s2, alpha))
    assert_close(value, oracle)


def test_std_gaussrenyi_equal_sigmas_is_alpha_d2_over_2s2() -> None:
    alpha = np.array([1.5, 2.0, 10.0, 100.0, 1e3])
    np.testing.assert_allclose(renyi(Normal([0.0, 0.0], 0.5), Normal([0.3, 0.4], 0.5), alpha=alpha),
                               alpha * 0.25 / (2 * 0.25), rtol=1e-14)


def test_std_gaussrenyi_is_infinite_where_s_a_squared_is_not_positive() -> None:
    # s_a² = alpha s2² + (1 − alpha) s1² = 1.44 − 0.44 alpha <= 0 from alpha = 36/11
    mu, nu = Normal(0.0, 1.2), Normal(0.5, 1.0)
    values = renyi(mu, nu, alpha=np.array([2.0, 36 / 11 + 1e-9, 10.0, 1e3, INF]))
    assert np.isfinite(values[0]) and np.all(np.isposinf(values[1:]))
    assert renyi(mu, nu, alpha=10.0, method="quadrature") == INF
    oracle = mp_renyi_1d(mp_normal_logpdf(0, 1.2), mp_normal_logpdf(0.5, 1.0), 2.0,
                         gauss_renyi_points(0.5, 1.2, 1.0, 2.0))
    assert_close(values[0], oracle)


@pytest.mark.parametrize(("dist", "s1", "s2"), [(1.0, 1.0, 2.0), (2e-3, 1e-3, 1.5e-3), (0.0, 1.0, 3.0)])
def test_std_gaussrenyi_alpha_inf_matches_mpmath_sup_of_log_ratio(dist: float, s1: float, s2: float) -> None:
    # derived: R_inf = d log(s2/s1) + D²/(2 (s2² − s1²)) for s1 < s2
    value = renyi(Normal(0.0, s1), Normal(dist, s2), alpha=INF)
    oracle = mp_renyi_1d(mp_normal_logpdf(0, s1), mp_normal_logpdf(dist, s2), INF,
                         scale_points([0.0, dist], s1, k_max=3))
    assert value == pytest.approx(oracle, rel=1e-12)
    assert renyi(Normal(0.0, s1), Normal(dist, s2), alpha=1e8) == pytest.approx(value, rel=1e-6)


def test_std_gaussrenyi_alpha_inf_equal_sigmas_and_s1_above_s2() -> None:
    assert renyi(Normal(0.0, 1.0), Normal(1.0, 1.0), alpha=INF) == INF
    assert renyi(Normal(2.0, 1.0), Normal(2.0, 1.0), alpha=INF) == 0.0
    assert renyi(Normal(0.0, 2.0), Normal(0.0, 1.0), alpha=INF) == INF


@pytest.mark.parametrize(("dist", "s1", "s2"), [(1.0, 1.0, 1.0), (3e-3, 1e-3, 1e-3), (1.0, 1.0, 2.0),
                                                (0.5, 2.0, 1.0), (0.0, 1e-3, 1.1e-3)])
def test_gauss_kl_matches_mpmath(dist: float, s1: float, s2: float) -> None:
    value = kl(Normal(0.0, s1), Normal(dist, s2))
    oracle = mp_kl_1d(mp_normal_logpdf(0, s1), mp_normal_logpdf(dist, s2),
                      scale_points([0.0, dist], min(s1, s2)))
    assert value == pytest.approx(oracle, rel=RTOL)


def test_gauss_kl_and_renyi_add_over_coordinates_in_rd() -> None:
    # isotropic laws on R^3 are products of three 1-D laws: KL and R_alpha add up
    m1, m2, s1, s2 = np.array([0.1, -0.3, 0.0]), np.array([0.4, 0.2, -1.0]), 0.7, 0.9
    per_coord_kl = sum(kl(Normal(a, s1), Normal(b, s2)) for a, b in zip(m1, m2, strict=True))
    assert kl(Normal(m1, s1), Normal(m2, s2)) == pytest.approx(per_coord_kl, rel=1e-13)
    alpha = np.array([1.5, 3.0, 1e3, INF])
    per_coord = sum(renyi(Normal(a, s1), Normal(b, s2), alpha=alpha) for a, b in zip(m1, m2, strict=True))
    np.testing.assert_allclose(renyi(Normal(m1, s1), Normal(m2, s2), alpha=alpha), per_coord, rtol=1e-13)


# ---------------------------------------------------------------------------------------------------
# STD-LapHS, STD-LapRenyi and the Laplace KL
# ---------------------------------------------------------------------------------------------------

# (eps, D/b, b): eps below, at and above the bound D/b on the privacy loss
LAPLACE_HS_CASES = [(0.0, 0.5, 1.0), (0.5, 0.5, 1.0), (0.5, 3.0, 1.0), (1.0, 3.0, 1e-3), (5.0, 3.0, 1.0),
                    (5.0, 60.0, 1.0), (10.0, 60.0, 1e-3), (20.0, 60.0, 1.0), (50.0, 60.0, 1e-3),
                    (50.0, 50.0 + 1e-9, 1.0), (50.0, 3.0, 1.0)]


@pytest.mark.parametrize(("eps", "ratio", "b"), LAPLACE_HS_CASES)
def test_std_laphs_matches_mpmath_at_extremes(eps: float, ratio: float, b: float) -> None:
    value = hockey_stick(Laplace(0.0, b), Laplace(ratio * b, b), eps=eps)
    oracle = mp_hockey_stick_laplace(ratio * b, b, eps)
    if eps >= ratio:
        assert value == 0.0  # the privacy loss is bounded by D/b
        assert oracle < 1e-30
    else:
        assert value == pytest.approx(oracle, rel=1e-8)  # eps = 50 vs D/b = 50 + 1e-9: 5e-10


@pytest.mark.parametrize("alpha", [1.5, 2.0, 10.0, 100.0, 1e3])
@pytest.mark.parametrize(("ratio", "b"), [(0.1, 1.0), (1.0, 1.0), (5.0, 1e-3)])
def test_std_laprenyi_matches_mpmath(ratio: float, b: float, alpha: float) -> None:
    dist = ratio * b
    value = renyi(Laplace(0.0, b), Laplace(dist, b), alpha=alpha)
    # p^alpha q^(1−alpha) has a kink at 0 and decays at rate (2 alpha − 1)/b on its right
    points = sorted(set(scale_points([0.0, dist], b)) | set(scale_points([0.0], b / (2 * alpha - 1))))
    oracle = mp_renyi_1d(mp_laplace_logpdf(0, b), mp_laplace_logpdf(dist, b), alpha, points)
    assert_close(value, oracle)


def test_std_laprenyi_alpha_inf_is_d_over_b() -> None:
    value = renyi(Laplace(0.0, 2.0), Laplace(3.0, 2.0), alpha=INF)
    oracle = mp_renyi_1d(mp_laplace_logpdf(0, 2), mp_laplace_logpdf(3, 2), INF, scale_points([0.0, 3.0], 2.0))
    assert value == 1.5
    assert oracle == pytest.approx(1.5, rel=1e-12)


def test_std_laprenyi_small_distance_keeps_relative_accuracy() -> None:
    # R_alpha ≈ alpha z²/2 as z → 0: the log1p branch must not lose it to cancellation
    z = 1e-6
    value = renyi(Laplace(0.0, 1.0), Laplace(z, 1.0), alpha=2.0)
    assert value == pytest.approx(z**2, rel=1e-6)


@pytest.mark.parametrize(("dist", "b1", "b2"), [(1.0, 1.0, 1.0), (0.0, 1.0, 2.0), (1.0, 1.0, 2.0),
                                                (1.0, 2.0, 1.0), (3e-3, 1e-3, 2e-3), (10.0, 1.0, 1.0)])
def test_laplace_kl_general_scale_matches_mpmath_and_quadrature(dist: float, b1: float, b2: float) -> None:
    # derived: KL = log(b2/b1) + D/b2 + (b1/b2) e^(−D/b1) − 1; equal scales: D/b + e^(−D/b) − 1
    mu, nu = Laplace(0.0, b1), Laplace(dist, b2)
    value = kl(mu, nu)
    oracle = mp_kl_1d(mp_laplace_logpdf(0, b1), mp_laplace_logpdf(dist, b2),
                      scale_points([0.0, dist], min(b1, b2)))
    assert value == pytest.approx(oracle, rel=RTOL)
    assert kl(mu, nu, method="quadrature") == pytest.approx(value, rel=1e-9)


# ---------------------------------------------------------------------------------------------------
# Closed form vs the library's own quadrature; fallbacks vs mpmath
# ---------------------------------------------------------------------------------------------------

EPS_GRID = np.array([0.0, 0.5, 1.0, 5.0, 10.0, 20.0, 50.0])
ALPHA_GRID = np.array([1.5, 2.0, 10.0, 100.0, 1e3, INF])
CLOSED_FORM_PAIRS = [
    pytest.param(Normal(0.0, 1.0), Normal(1.0, 1.0), id="STD-GaussHS-D1"),
    pytest.param(Normal(0.0, 1e-3), Normal(1e-2, 1e-3), id="STD-GaussHS-sigma1e-3"),
    pytest.param(Laplace(0.0, 1.0), Laplace(1.0, 1.0), id="STD-LapHS-D1"),
    pytest.param(Laplace(0.0, 1e-3), Laplace(6e-2, 1e-3), id="STD-LapHS-b1e-3"),
]


@pytest.mark.parametrize(("mu", "nu"), CLOSED_FORM_PAIRS)
def test_closed_forms_match_library_quadrature(mu: Distribution, nu: Distribution) -> None:
    closed = hockey_stick(mu, nu, eps=EPS_GRID)
    quad = hockey_stick(mu, nu, eps=EPS_GRID, method="quadrature")
    for c, q in zip(closed, quad, strict=True):
        assert_close(q, c, rtol=1e-9)
    alpha = ALPHA_GRID[:-1]
    np.testing.assert_allclose(renyi(mu, nu, alpha=alpha, method="quadrature"), renyi(mu, nu, alpha=alpha),
                               rtol=1e-9)
    assert kl(mu, nu, method="quadrature") == pytest.approx(kl(mu, nu), rel=1e-9)


@pytest.mark.parametrize(("mu", "nu", "p", "q"), [
    pytest.param(Normal(0.0, 1.0), Normal(1.0, 2.0), mp_normal_logpdf(0, 1), mp_normal_logpdf(1, 2),
                 id="normal-unequal-sigmas"),
    pytest.param(Normal(0.0, 2.0), Normal(1.0, 1.0), mp_normal_logpdf(0, 2), mp_normal_logpdf(1, 1),
                 id="normal-unequal-sigmas-two-crossings"),
    pytest.param(Laplace(0.0, 2.0), Laplace(1.0, 1.0), mp_laplace_logpdf(0, 2), mp_laplace_logpdf(1, 1),
                 id="laplace-unequal-scales"),
    pytest.param(Normal(0.0, 1.0), Laplace(0.5, 1.0), mp_normal_logpdf(0, 1), mp_laplace_logpdf(0.5, 1),
                 id="normal-vs-laplace"),
])
def test_quadrature_fallback_matches_mpmath(mu: Distribution, nu: Distribution, p, q) -> None:
    points = scale_points([0.0, 0.5, 1.0], 1.0, k_max=4)
    eps = np.array([0.0, 1.0, 10.0])
    values = hockey_stick(mu, nu, eps=eps)  # no closed form: the default falls back to quadrature
    for e, v in zip(eps, values, strict=True):
        assert_close(v, mp_hockey_stick_1d(p, q, e, points), rtol=1e-8)
    assert kl(mu, nu) == pytest.approx(mp_kl_1d(p, q, points), rel=1e-8)
    # alpha = 1.2 keeps every pair finite (N(0, 4) || N(1, 1): s_a² > 0 iff alpha < 4/3)
    r = renyi(mu, nu, alpha=1.2, method="quadrature")
    assert r == pytest.approx(mp_renyi_1d(p, q, 1.2, points), rel=1e-8)


def test_laplace_unequal_scales_alpha_inf_closed_form() -> None:
    # derived: log p/q peaks at x = m1 when b1 < b2: R_inf = log(b2/b1) + D/b2; unbounded when b1 > b2
    value = renyi(Laplace(0.0, 1.0), Laplace(1.0, 2.0), alpha=INF)
    oracle = mp_renyi_1d(mp_laplace_logpdf(0, 1), mp_laplace_logpdf(1, 2), INF, scale_points([0.0, 1.0], 1.0))
    assert value == pytest.approx(oracle, rel=1e-12)
    assert renyi(Laplace(0.0, 1.0), Laplace(1.0, 2.0), alpha=INF, method="quadrature") == pytest.approx(
        value, rel=1e-9)
    assert renyi(Laplace(0.0, 2.0), Laplace(1.0, 1.0), alpha=INF) == INF


# ---------------------------------------------------------------------------------------------------
# Finite sums: Categorical, PointMass, Empirical
# ---------------------------------------------------------------------------------------------------

def random_pairs(seed: int = 7, count: int = 12):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = int(rng.integers(2, 8))
        p, q = rng.dirichlet(np.ones(k) * 0.7), rng.dirichlet(np.ones(k) * 0.7)
        p[rng.random(k) < 0.2] = 0.0  # zero cells on either side
        q[rng.random(k) < 0.2] = 0.0
        if p.sum() == 0 or q.sum() == 0:
            continue
        yield p / p.sum(), q / q.sum()


@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0, 5.0, 50.0, INF])
def test_hockey_stick_categorical_matches_bruteforce(eps: float) -> None:
    for p, q in random_pairs():
        value = hockey_stick(Categorical(p), Categorical(q), eps=eps)
        assert value == pytest.approx(hockey_stick_bruteforce(p, q, eps), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("alpha", [1.5, 2.0, 10.0, 100.0, 1e3, INF])
def test_renyi_categorical_matches_mpmath(alpha: float) -> None:
    for p, q in random_pairs():
        value = renyi(Categorical(p), Categorical(q), alpha=alpha)
        oracle = renyi_categorical_mp(p, q, alpha)
        if math.isinf(oracle):
            assert value == INF
        else:
            assert value == pytest.approx(oracle, rel=1e-12, abs=1e-15)


def test_kl_categorical_matches_mpmath() -> None:
    for p, q in random_pairs():
        value = kl(Categorical(p), Categorical(q))
        oracle = kl_categorical_mp(p, q)
        assert value == (INF if math.isinf(oracle) else pytest.approx(oracle, rel=1e-12, abs=1e-15))


def test_renyi_categorical_large_alpha_is_finite_and_correct() -> None:
    p, q = np.array([0.9, 0.1]), np.array([0.1, 0.9])
    for alpha in (1e3, 1e5):
        value = renyi(Categorical(p), Categorical(q), alpha=alpha)
        assert math.isfinite(value)
        assert value == pytest.approx(renyi_categorical_mp(p, q, alpha), rel=1e-12)
    assert renyi(Categorical(p), Categorical(q), alpha=INF) == pytest.approx(math.log(9.0), rel=1e-15)


def test_renyi_categorical_near_identical_laws_keeps_relative_accuracy() -> None:
    p, q = np.array([0.5 + 1e-7, 0.5 - 1e-7]), np.array([0.5, 0.5])
    value = renyi(Categorical(p), Categorical(q), alpha=1.5)
    assert value == pytest.approx(renyi_categorical_mp(p, q, 1.5), rel=1e-6)


def test_zero_cells_give_d_inf_and_infinite_kl_and_renyi() -> None:
    # BBGG footnote 3: D_inf(mu||nu) = mu(supp(mu) \ supp(nu))
    mu, nu = Categorical([0.5, 0.3, 0.2, 0.0]), Categorical([0.0, 0.5, 0.25, 0.25])
    assert hockey_stick(mu, nu, eps=INF) == pytest.approx(0.5, rel=1e-15)
    assert hockey_stick(nu, mu, eps=INF) == pytest.approx(0.25, rel=1e-15)
    assert hockey_stick(mu, nu, eps=50.0) == pytest.approx(0.5, rel=1e-15)  # e^50 q never beats p on supp
    assert kl(mu, nu) == INF and kl(nu, mu) == INF
    assert np.all(np.isposinf(renyi(mu, nu, alpha=[1.5, 1e3, INF])))
    inner = Categorical([0.0, 0.5, 0.5, 0.0])  # supp(inner) ⊂ supp(nu): everything finite
    assert hockey_stick(inner, nu, eps=INF) == 0.0
    assert math.isfinite(kl(inner, nu)) and math.isfinite(renyi(inner, nu, alpha=INF))
    assert renyi(inner, nu, alpha=INF) == pytest.approx(math.log(2.0), rel=1e-15)


def test_point_masses_and_empirical_laws_are_finite_sums() -> None:
    space = FiniteSpace(3)
    assert hockey_stick(PointMass(1, space), Categorical([0.2, 0.5, 0.3]), eps=0.0) == pytest.approx(0.5)
    assert renyi(PointMass(1, space), Categorical([0.2, 0.5, 0.3]), alpha=INF) == pytest.approx(math.log(2))
    assert hockey_stick(PointMass(0.0), PointMass(0.0), eps=0.0) == 0.0
    assert hockey_stick(PointMass(0.0), PointMass(1.0), eps=INF) == 1.0
    assert kl(PointMass([0.0, 1.0]), PointMass([0.0, 1.0])) == 0.0
    assert kl(PointMass(0.0), PointMass(1.0)) == INF
    assert renyi(PointMass(0.0), PointMass(1.0), alpha=2.0) == INF
    left, right = Empirical(np.array([0.0, 1.0, 1.0, 2.0])), Empirical(np.array([1.0, 2.0, 2.0, 3.0]))
    assert tv(left, right) == pytest.approx(0.5)  # {0: .25, 1: .5, 2: .25} vs {1: .25, 2: .5, 3: .25}
    assert hockey_stick(left, right, eps=INF) == pytest.approx(0.25)


def test_atomic_vs_continuous_laws_are_mutually_singular() -> None:
    cases = [(PointMass(0.0), Normal(0.0, 1.0)), (Empirical(np.zeros(3)), Laplace(0.0, 1.0))]
    for atomic, continuous in cases:
        for mu, nu in [(atomic, continuous), (continuous, atomic)]:
            np.testing.assert_array_equal(hockey_stick(mu, nu, eps=[0.0, 5.0, INF]), 1.0)
            assert kl(mu, nu) == INF and renyi(mu, nu, alpha=2.0) == INF


# ---------------------------------------------------------------------------------------------------
# Shapes, TV, ranges, monotonicity
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mu", "nu"), [(Normal(0.0, 1.0), Normal(1.0, 1.0)),
                                        (Laplace(0.0, 1.0), Laplace(2.0, 1.0)),
                                        (Categorical([0.2, 0.8]), Categorical([0.6, 0.4]))])
def test_array_eps_and_alpha_broadcast_to_their_shape(mu: Distribution, nu: Distribution) -> None:
    assert isinstance(hockey_stick(mu, nu, eps=1.0), float)
    assert isinstance(renyi(mu, nu, alpha=2.0), float)
    eps = np.array([[0.0, 0.5, 1.0], [2.0, 5.0, INF]])
    values = hockey_stick(mu, nu, eps=eps)
    assert isinstance(values, np.ndarray) and values.shape == (2, 3)
    for idx in np.ndindex(eps.shape):
        assert values[idx] == hockey_stick(mu, nu, eps=float(eps[idx]))
    assert hockey_stick(mu, nu, eps=[0.5]).shape == (1,)
    alpha = np.array([[1.5], [2.0], [INF]])
    r = renyi(mu, nu, alpha=alpha)
    assert isinstance(r, np.ndarray) and r.shape == (3, 1)
    assert r[1, 0] == renyi(mu, nu, alpha=2.0)


@pytest.mark.parametrize(("mu", "nu"), [(Normal(0.0, 1.0), Normal(0.7, 1.0)),
                                        (Laplace(0.0, 2.0), Laplace(1.0, 2.0)),
                                        (Normal(0.0, 1.0), Normal(0.7, 1.5)),
                                        (Categorical([0.1, 0.3, 0.6]), Categorical([0.3, 0.3, 0.4]))])
def test_tv_is_hockey_stick_at_eps_zero(mu: Distribution, nu: Distribution) -> None:
    assert tv(mu, nu) == hockey_stick(mu, nu, eps=0.0)
    assert tv(mu, nu) == pytest.approx(tv(nu, mu), rel=1e-10)  # TV is symmetric


def test_tv_gaussian_is_erf_and_categorical_is_half_l1() -> None:
    erf = math.erf(1 / (2 * math.sqrt(2)))  # 2 Phi(D/(2s)) − 1
    assert tv(Normal(0.0, 1.0), Normal(1.0, 1.0)) == pytest.approx(erf, rel=1e-15)
    p, q = np.array([0.1, 0.3, 0.6]), np.array([0.3, 0.3, 0.4])
    assert tv(Categorical(p), Categorical(q)) == pytest.approx(0.5 * np.abs(p - q).sum(), rel=1e-15)


def test_results_are_clipped_into_range() -> None:
    for law in (Normal(0.3, 0.2), Laplace(-1.0, 3.0), Categorical([0.2, 0.3, 0.5]), PointMass(2.0)):
        assert hockey_stick(law, law, eps=0.0) == 0.0
        assert kl(law, law) == 0.0
        np.testing.assert_array_equal(renyi(law, law, alpha=[1.5, 1e3, INF]), 0.0)
    for p, q in random_pairs(seed=3):
        values = hockey_stick(Categorical(p), Categorical(q), eps=np.linspace(0, 3, 7))
        assert np.all((values >= 0.0) & (values <= 1.0))
        assert np.all(np.diff(values) <= 0.0)  # non-increasing in gamma (THEORY: Notation)


def test_hockey_stick_non_increasing_and_renyi_non_decreasing() -> None:
    eps = np.linspace(0.0, 12.0, 49)
    for mu, nu in [(Normal(0.0, 1.0), Normal(2.0, 1.0)), (Laplace(0.0, 1.0), Laplace(3.0, 1.0))]:
        assert np.all(np.diff(hockey_stick(mu, nu, eps=eps)) <= 0.0)
        r = renyi(mu, nu, alpha=np.array([1.01, 1.5, 2.0, 10.0, 1e3, INF]))
        assert np.all(np.diff(r) >= 0.0)
        assert r[0] >= kl(mu, nu) * 0.99  # R_alpha → KL as alpha → 1


# ---------------------------------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------------------------------

class _Blob(Distribution):
    """A law on R^2 with no registered method (no closed form, no quadrature)."""

    @property
    def space(self) -> RealSpace:
        return RealSpace(2)

    def sample(self, n, *, rng=None):  # pragma: no cover - not used
        return np.zeros((n, 2))


@pytest.mark.parametrize("eps", [math.nan, -1.0, -1e-300, [0.5, math.nan]])
def test_bad_eps_raises_naming_eps(eps) -> None:
    with pytest.raises(ValueError, match="`eps`"):
        hockey_stick(Normal(0.0, 1.0), Normal(1.0, 1.0), eps=eps)


def test_eps_inf_is_accepted_by_hockey_stick() -> None:
    assert hockey_stick(Categorical([0.5, 0.5]), Categorical([1.0, 0.0]), eps=INF) == pytest.approx(0.5)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0, -2.0, math.nan, [2.0, 1.0]])
def test_bad_alpha_raises_naming_alpha(alpha) -> None:
    with pytest.raises(ValueError, match="`alpha`"):
        renyi(Normal(0.0, 1.0), Normal(1.0, 1.0), alpha=alpha)


@pytest.mark.parametrize(("mu", "nu", "spaces"), [
    (Categorical([0.2, 0.3, 0.5]), Categorical([0.25] * 4), ("size 3", "size 4")),
    (Normal(0.0, 1.0), Normal([0.0, 0.0], 1.0), ("R^1", "R^2")),
    (Categorical([0.5, 0.5]), Normal(0.0, 1.0), ("size 2", "R^1")),
])
def test_laws_on_different_spaces_raise_naming_nu_and_both_spaces(mu, nu, spaces) -> None:
    for call in (lambda: hockey_stick(mu, nu, eps=1.0), lambda: tv(mu, nu), lambda: kl(mu, nu),
                 lambda: renyi(mu, nu, alpha=2.0)):
        with pytest.raises(ValueError, match="`nu`") as info:
            call()
        assert spaces[0] in str(info.value) and spaces[1] in str(info.value)


def test_unknown_method_raises_listing_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="`method`.*'closed_form', 'finite_sum', 'quadrature'"):
        kl(Normal(0.0, 1.0), Normal(1.0, 1.0), method="montecarlo")


def test_a_pair_without_a_method_raises_not_implemented_naming_both_types() -> None:
    with pytest.raises(NotImplementedError, match="_Blob and Normal"):
        hockey_stick(_Blob(), Normal([0.0, 0.0], 1.0), eps=1.0)
    with pytest.raises(NotImplementedError, match="Normal and Normal on R\\^2.*equal sigmas"):
        hockey_stick(Normal([0.0, 0.0], 1.0), Normal([1.0, 0.0], 2.0), eps=1.0)
    with pytest.raises(NotImplementedError, match="Categorical and Categorical.*method='quadrature'"):
        kl(Categorical([0.5, 0.5]), Categorical([0.5, 0.5]), method="quadrature")
    with pytest.raises(NotImplementedError, match="method='closed_form'.*equal sigmas"):
        hockey_stick(Normal([0.0, 0.0], 1.0), Normal([0.0, 0.0], 2.0), eps=1.0, method="closed_form")


def test_non_distribution_raises_type_error_naming_the_argument() -> None:
    with pytest.raises(TypeError, match="`mu`"):
        kl([0.5, 0.5], Categorical([0.5, 0.5]))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`nu`"):
        hockey_stick(Categorical([0.5, 0.5]), 3, eps=0.0)  # type: ignore[arg-type]
