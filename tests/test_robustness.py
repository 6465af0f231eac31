"""Regression tests for the exactness and robustness gaps of issue 5 §3, each against an independent value.

- STD-GaussHS at extreme D/s (1e-8 .. 1e12) and eps (0 .. 1e20): the textbook closed form in mpmath at
  50 + (cancelled) digits, within an error model derived from the double-precision inputs.
- RandomizedResponse past e^-eps underflow (eps in (709, 746) and beyond): rows and divergences in mpmath.
- Quadrature gaps: two Normals of different sigmas (roots in mpmath, mpmath quadrature on the exact set),
  Laplace against Normal (a derivation in mpmath), Laplace–Laplace Rényi of different scales (mpmath
  quadrature; +inf where the integrand does not decay).
- Pure eps is conservative for every mechanism kind; no −0.0 anywhere; the messages of bad inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from mpmath import mp
from oracles import (
    hockey_stick_bruteforce,
    mp_gauss_hockey_stick_textbook,
    mp_hockey_stick_atoms,
    mp_hockey_stick_normals,
    mp_laplace_logpdf,
    mp_randomized_response_rows,
    mp_renyi_1d,
    mp_renyi_atoms,
    scale_points,
)

import markovdp as md
from markovdp.divergences.exact.gaussian import gauss_hockey_stick

INF = math.inf
U = 2.0**-53  # unit round-off of a double


def negative_zero(values) -> bool:
    arr = np.asarray(values, dtype=np.float64)
    return bool(np.any((arr == 0.0) & np.signbit(arr)))


# ---------------------------------------------------------------------------------------------------
# STD-GaussHS at extreme D/s and eps
# ---------------------------------------------------------------------------------------------------

def gauss_error_bound(ratio: float, eps: float) -> tuple[float, float]:
    """(oracle value, the absolute error a double-precision evaluation may make).

    Error model (derived, not fitted): the value is a difference of Phi(a) and e^eps Phi(b), each known to
    a few ulps and carrying the relative error u a² of e^(−a²/2) (a itself is rounded: a relative u),
    plus the rounding of a and b, about u (D/(2s) + eps s/D) each, which moves the value by phi(a) per
    unit (d/da of Phi(a) − e^eps Phi(b) along either is phi(a) = e^eps phi(b)). 32 u per term, plus 1e-13
    relative for the special functions.
    """
    value, phi_a, scaled_b, pdf_a = mp_gauss_hockey_stick_textbook(ratio, eps)
    a = ratio / 2 - eps / ratio
    rounding = (phi_a + scaled_b) * (1 + a * a) + pdf_a * (ratio / 2 + eps / ratio)
    return value, float(1e-13 * value + 32 * U * rounding)


RATIOS = [1e-8, 1e-5, 1e-3, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0, 1e4, 1e6, 1e9, 1e12]


def gauss_eps_grid(ratio: float) -> list[float]:
    """Generic eps from 0 to 1e20, and eps around ratio²/2 (where a = 0 and the old form cancelled)."""
    c = ratio * ratio / 2
    near = [c, c * (1 + 1e-6), c * (1 - 1e-6), c + 3 * ratio, c - 3 * ratio, c + 10 * ratio, c + 30 * ratio]
    grid = {0.0, 1e-10, 1e-3, 0.1, 1.0, 5.0, 20.0, 50.0, 100.0, 1e3, 1e5, 1e8, 1e12, 1e16, 1e20, *near}
    return sorted(e for e in grid if 0.0 <= e <= 1e20)


@pytest.mark.parametrize("ratio", RATIOS)
def test_std_gausshs_matches_the_textbook_form_in_mpmath_at_every_scale(ratio: float) -> None:
    eps = gauss_eps_grid(ratio)
    values = gauss_hockey_stick(ratio, np.array(eps))
    for e, value in zip(eps, values, strict=True):
        oracle, bound = gauss_error_bound(ratio, e)
        assert abs(value - oracle) <= bound, (ratio, e, value, oracle, bound)


def test_std_gausshs_keeps_1e12_relative_accuracy_from_tiny_to_large_ratios() -> None:
    """D/s in [1e-8, 1e4]: relative 1e-12 or better (measured worst 1e-13), also where the two terms of the
    textbook form agree to 8 digits (D/s = 1e-8: the Gauss–Legendre difference of erfcx)."""
    for ratio in (1e-8, 1e-5, 1e-3, 0.05, 0.0999, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0, 1e4):
        eps = gauss_eps_grid(ratio)
        for e, value in zip(eps, gauss_hockey_stick(ratio, np.array(eps)), strict=True):
            oracle = mp_gauss_hockey_stick_textbook(ratio, e)[0]
            if oracle > 1e-300:
                assert value == pytest.approx(oracle, rel=1e-12, abs=0.0), (ratio, e)


def test_privacy_profile_of_a_gaussian_at_ratio_1e9_is_about_one_half() -> None:
    """The issue's case: sigma = 1e-9 (D/s = 1/1e-9 in doubles), eps = 5e17: a ≈ 0, so about 0.5 (was −0.0)."""
    value = md.privacy_profile(md.GaussianMechanism(1e-9), 5e17)
    oracle, bound = gauss_error_bound(1.0 / 1e-9, 5e17)
    assert oracle == pytest.approx(0.5, rel=1e-6)
    assert abs(value - oracle) <= bound and not negative_zero(value)


@pytest.mark.parametrize("ratio", RATIOS)
def test_std_gausshs_is_in_range_never_negative_zero_and_non_increasing(ratio: float) -> None:
    c = ratio * ratio / 2
    grids = [np.linspace(0.0, 50.0, 5001), np.geomspace(1e-12, 1e20, 5001),
             np.linspace(max(c - 40 * ratio, 0.0), c + 40 * ratio, 5001),
             c + np.arange(-500, 500) * np.spacing(c)]
    for grid in grids:
        grid = np.unique(grid[(grid >= 0) & (grid <= 1e20)])
        values = gauss_hockey_stick(ratio, grid)
        assert np.all((values >= 0.0) & (values <= 1.0)) and not negative_zero(values)
        # non-increasing up to the rounding of the two terms (each < 1, a few ulps): 1e-15 absolute
        assert np.all(np.diff(values) <= 1e-15), ratio


@pytest.mark.parametrize("sigma", [1e-9, 1e-6, 1e-3, 1.0, 10.0, 1e4])
@pytest.mark.parametrize("delta", [1e-300, 1e-10, 1e-5, 0.1])
def test_privacy_epsilon_of_a_gaussian_is_sound_at_every_scale(sigma: float, delta: float) -> None:
    mech = md.GaussianMechanism(sigma)
    eps = md.privacy_epsilon(mech, delta)
    assert md.privacy_profile(mech, eps) <= delta
    oracle, bound = gauss_error_bound(1.0 / sigma, eps)
    assert oracle <= delta + bound  # the true profile at the returned eps
    # and it is not loose: the inverse is the smallest such eps to 1e-12 (relative above 1, absolute below)
    if eps > 0:
        assert md.privacy_profile(mech, eps - 2e-12 * max(1.0, eps)) > delta
    else:
        assert md.privacy_profile(mech, 0.0) <= delta


# ---------------------------------------------------------------------------------------------------
# RandomizedResponse: closed forms past the underflow of e^-eps
# ---------------------------------------------------------------------------------------------------

RR_CASES = [(2, 744.0), (2, 710.0), (3, 745.5), (4, 800.0), (5, 1.0), (2, 1e-9), (10, 0.0), (7, 30.0), (3, 708.0)]


@pytest.mark.parametrize(("k", "eps0"), RR_CASES)
def test_randomized_response_profile_matches_mpmath_rows(k: int, eps0: float) -> None:
    row0, row1 = mp_randomized_response_rows(k, eps0)
    mech = md.RandomizedResponse(k, eps0)
    eps = [0.0, eps0 / 2, max(eps0 - 1.0, 0.0), max(eps0 - 0.1, 0.0), max(eps0 - 1e-6, 0.0), eps0, eps0 + 1.0]
    values = md.privacy_profile(mech, np.array(eps))
    for e, value in zip(eps, values, strict=True):
        oracle = mp_hockey_stick_atoms(row0, row1, e)
        assert value == pytest.approx(oracle, rel=1e-12, abs=1e-300), (k, eps0, e)
    assert md.privacy_profile(mech, INF) == 0.0  # every output has positive probability


def test_certify_randomized_response_at_eps_744() -> None:
    """The issue's case: certify(RR(2, 744)).delta(743.9) was 0 (subnormal off-diagonals); truth 0.095."""
    row0, row1 = mp_randomized_response_rows(2, 744.0)
    oracle = mp_hockey_stick_atoms(row0, row1, 743.9)
    assert oracle == pytest.approx(0.0952, abs=1e-4)
    assert md.certify(md.RandomizedResponse(2, 744)).delta(743.9) == pytest.approx(oracle, rel=1e-12)


@pytest.mark.parametrize(("k", "eps0"), RR_CASES)
def test_randomized_response_renyi_matches_mpmath_rows(k: int, eps0: float) -> None:
    row0, row1 = mp_randomized_response_rows(k, eps0)
    alpha = np.array([1.0001, 1.5, 2.0, 10.0, 1e3, INF])
    values = md.renyi_profile(md.RandomizedResponse(k, eps0), alpha)
    for a, value in zip(alpha, values, strict=True):
        oracle = mp_renyi_atoms(row0, row1, float(a))
        # abs: the oracle's own rounding at 60 digits (eps0 = 0 gives ±1e-61 for the true 0)
        assert value == pytest.approx(oracle, rel=1e-12, abs=1e-50), (k, eps0, a)


@pytest.mark.parametrize(("k", "eps0"), RR_CASES)
@pytest.mark.parametrize("delta", [0.0, 1e-300, 1e-10, 0.05, 0.5, 0.99])
def test_randomized_response_epsilon_is_exact_and_conservative(k: int, eps0: float, delta: float) -> None:
    mech = md.RandomizedResponse(k, eps0)
    eps = md.privacy_epsilon(mech, delta)
    assert md.privacy_profile(mech, eps) <= delta  # exactly, in floats
    row0, row1 = mp_randomized_response_rows(k, eps0)
    assert mp_hockey_stick_atoms(row0, row1, eps) <= delta * (1 + 1e-12)
    if delta == 0.0:
        assert eps == eps0
    if eps > 0:  # the smallest such eps, to 1e-12 relative
        assert mp_hockey_stick_atoms(row0, row1, eps * (1 - 1e-12) - 1e-300) > delta


def mp_pushed_rr_profile(k: int, eps0: float, kernel: np.ndarray, eps: float) -> float:
    """max over ordered pairs of E_{e^eps} between rows of RR(k, eps0) @ kernel, all in mpmath (60 digits)."""
    with mp.workdps(60):
        g = mp.exp(mp.mpf(eps0))
        rows = [[(g if i == j else 1) / (g + k - 1) for j in range(k)] for i in range(k)]
        pushed = [[mp.fsum(rows[i][j] * mp.mpf(float(kernel[j, y])) for j in range(k))
                   for y in range(kernel.shape[1])] for i in range(k)]
    return max(mp_hockey_stick_atoms(pushed[i], pushed[j], eps) for i in range(k) for j in range(k) if i != j)


def test_randomized_response_pushed_through_a_finite_kernel_matches_mpmath() -> None:
    """eps0 = 700: q = e^-700/(1 + 2 e^-700) is a normal double, so RR >> K is computed from the rows."""
    kernel = np.array([[0.7, 0.2, 0.1, 0.0], [0.1, 0.1, 0.4, 0.4], [0.0, 0.5, 0.0, 0.5]])
    pipeline = md.RandomizedResponse(3, 700.0) >> md.FiniteKernel(kernel)
    for e in (0.0, 0.5, 3.0, 700.0):
        oracle = mp_pushed_rr_profile(3, 700.0, kernel, e)
        assert md.privacy_profile(pipeline, e) == pytest.approx(oracle, rel=1e-12, abs=1e-300)


def test_randomized_response_past_the_normal_range_refuses_to_be_pushed() -> None:
    kernel = np.array([[0.9, 0.1], [0.2, 0.8]])
    pipeline = md.RandomizedResponse(2, 744.0) >> md.FiniteKernel(kernel)
    with pytest.raises(NotImplementedError, match="smallest normal double"):
        md.privacy_profile(pipeline, 1.0)
    with pytest.raises(NotImplementedError, match="smallest normal double"):
        md.renyi_profile(pipeline, 2.0)
    # certify still bounds it from RR's exact curve (POST, BBGG-T1): never below the truth (mpmath)
    cert = md.certify(pipeline)
    for e in (0.0, 0.5, 1.0, 3.0):
        assert cert.delta(e) >= mp_pushed_rr_profile(2, 744.0, kernel, e) * (1 - 1e-12)


def test_a_finite_mechanism_with_subnormal_entries_is_refused() -> None:
    mech = md.FiniteMechanism([[1.0, 5e-324], [0.5, 0.5]])
    with pytest.raises(NotImplementedError, match="subnormal"):
        md.privacy_profile(mech, 1.0)
    with pytest.raises(NotImplementedError, match="subnormal"):
        md.privacy_epsilon(mech, 0.0)
    pipeline = md.FiniteMechanism([[0.5, 0.5], [0.25, 0.75]]) >> md.FiniteKernel([[1.0, 0.0], [1e-300, 1 - 1e-300]])
    assert md.privacy_profile(pipeline, 0.0) > 0  # normal entries: fine
    tiny = md.FiniteMechanism([[1 - 1e-200, 1e-200], [0.5, 0.5]]) >> md.FiniteKernel([[1.0, 0.0], [1 - 1e-110, 1e-110]])
    with pytest.raises(NotImplementedError, match="subnormal"):  # row 0, outcome 1: 1e-200 · 1e-110
        md.privacy_profile(tiny, 1.0)


def test_a_subnormal_entry_against_a_zero_only_adds_its_mass_to_d_inf() -> None:
    """No log-ratio is read from it, so the value is exact: brute force over events (THEORY: Notation)."""
    rows = np.array([[1e-310, 0.3, 0.7 - 1e-310], [0.0, 0.6, 0.4]])
    mech = md.FiniteMechanism(rows, neighbours=[(0, 1)])
    assert md.privacy_profile(mech, INF) == 1e-310
    for e in (0.0, 0.5, 1.0):
        oracle = max(hockey_stick_bruteforce(rows[0], rows[1], e), hockey_stick_bruteforce(rows[1], rows[0], e))
        assert md.privacy_profile(mech, e) == pytest.approx(oracle, rel=1e-14)


# ---------------------------------------------------------------------------------------------------
# Quadrature gaps: Normals of different sigmas, Laplace against Normal, Laplace Rényi of different scales
# ---------------------------------------------------------------------------------------------------

NORMAL_SCALES_CASES = [
    (0.7933326463565815, 1.0, 2.0, 0.7980357681768849),  # the issue's: {L > eps} narrower than the scan grid
    (1.0, 1.0, 2.0, 0.5), (1.0, 2.0, 1.0, 0.5), (-3.0, 1.0, 1.5, 2.0), (0.5, 3.0, 1.0, 0.0), (0.0, 1.0, 2.0, 0.0),
    (2e-3, 1e-3, 2e-3, 1.0), (0.1, 1.0, 1.01, 1e-3), (5.0, 2.0, 1.0, 20.0), (0.0, 2.0, 1.0, 3.0),
]


@pytest.mark.parametrize(("m2", "s1", "s2", "eps"), NORMAL_SCALES_CASES)
def test_hockey_stick_of_normals_with_different_sigmas_matches_mpmath(m2, s1, s2, eps) -> None:
    value = md.hockey_stick(md.Normal(0.0, s1), md.Normal(m2, s2), eps=eps)
    oracle = mp_hockey_stick_normals(0.0, s1, m2, s2, eps)
    assert value == pytest.approx(oracle, rel=1e-9, abs=1e-300) and not negative_zero(value)


def test_narrow_loss_set_of_the_issue_is_not_lost() -> None:
    value = md.hockey_stick(md.Normal(0, 1), md.Normal(0.7933326463565815, 2.0), eps=0.7980357681768849)
    assert value == pytest.approx(1.73e-8, rel=1e-2)


def laplace_normal_hockey_stick_mp(b: float, s: float, eps: float) -> float:
    """E_{e^eps}(Lap(0, b) || N(0, s²)), derived: on x >= 0 the loss minus eps is the quadratic
    x²/(2s²) − x/b + c0, c0 = log(s sqrt(2 pi)/(2b)) − eps; it is positive on [0, r1) (if c0 > 0) and on
    (r2, inf), r1 <= r2 its roots; by symmetry E = 2 Σ over those pieces of (Lap mass − e^eps Normal mass),
    each in closed form (e^(−x/b)/2 and normal tails), at 80 digits."""
    with mp.workdps(80):
        b, s, eps = mp.mpf(b), mp.mpf(s), mp.mpf(eps)
        A, B, c0 = 1 / (2 * s**2), -1 / b, mp.log(s * mp.sqrt(2 * mp.pi) / (2 * b)) - eps
        disc = B**2 - 4 * A * c0
        g = mp.exp(eps)
        assert disc > 0  # else the loss would exceed eps everywhere, impossible for eps >= 0
        r1, r2 = (-B - mp.sqrt(disc)) / (2 * A), (-B + mp.sqrt(disc)) / (2 * A)
        total = mp.exp(-r2 / b) / 2 - g * mp.ncdf(-r2 / s)  # (r2, inf)
        if c0 > 0:  # [0, r1)
            total += (1 - mp.exp(-r1 / b)) / 2 - g * (mp.ncdf(r1 / s) - mp.mpf(1) / 2)
        return float(2 * total)


@pytest.mark.parametrize("eps", [0.0, 2.0, 5.0, 9.0, 9.4, 12.0, 30.0])
def test_laplace_against_a_wide_normal_does_not_overflow(eps: float) -> None:
    value = md.hockey_stick(md.Laplace(0, 0.01), md.Normal(0, 100), eps=eps)
    oracle = laplace_normal_hockey_stick_mp(0.01, 100.0, eps)
    if oracle < 1e-300:  # eps = 12: the set {L > eps} is |x| > 2e6, where Lap(0, 0.01) has mass e^(−2e8)
        assert value == 0.0 and not negative_zero(value)
    else:
        assert value == pytest.approx(oracle, rel=1e-8)


def test_renyi_of_laplaces_diverges_where_the_tails_do_not_decay() -> None:
    """lam = alpha/b1 − (alpha − 1)/b2 <= 0: p^alpha q^(1−alpha) does not decay, R_alpha = +inf."""
    assert md.renyi(md.Laplace(0, 3), md.Laplace(1, 1), alpha=1.5) == INF  # lam = 0 exactly
    assert md.renyi(md.Laplace(0, 3), md.Laplace(1, 1), alpha=1.5, method="quadrature") == INF
    values = md.renyi(md.Laplace(0, 3), md.Laplace(1, 1), alpha=np.array([1.2, 1.6, 10.0, INF]))
    assert math.isfinite(values[0]) and np.all(np.isposinf(values[1:]))


LAPLACE_SCALES_CASES = [(1.0, 1.0, 2.0), (1.0, 2.0, 1.0), (0.3, 1.0, 1.2), (5.0, 0.5, 3.0), (2.0, 3.0, 2.5),
                        (0.0, 1.0, 2.0), (1.0, 3.0, 1.0)]


@pytest.mark.parametrize("alpha", [1.2, 1.5, 2.0, 10.0, 100.0, INF])
@pytest.mark.parametrize(("m2", "b1", "b2"), LAPLACE_SCALES_CASES)
def test_renyi_of_laplaces_with_different_scales_matches_mpmath(m2, b1, b2, alpha) -> None:
    value = md.renyi(md.Laplace(0.0, b1), md.Laplace(m2, b2), alpha=alpha)
    lam = alpha / b1 - (alpha - 1) / b2 if math.isfinite(alpha) else (1 / b1 - 1 / b2)
    if lam <= 0:
        assert value == INF
        return
    oracle = mp_renyi_1d(mp_laplace_logpdf(0, b1), mp_laplace_logpdf(m2, b2), alpha,
                         scale_points([0.0, m2], min(b1, b2), 8))
    assert value == pytest.approx(oracle, rel=1e-10)


# ---------------------------------------------------------------------------------------------------
# Pure eps is conservative for every kind of mechanism
# ---------------------------------------------------------------------------------------------------

def _random_matrix(rng: np.random.Generator, k: int, m: int) -> np.ndarray:
    matrix = rng.random((k, m)) ** 3
    return matrix / matrix.sum(axis=1, keepdims=True)


def pure_cases() -> list[md.Mechanism]:
    rng = np.random.default_rng(20240601)
    cases: list[md.Mechanism] = [md.LaplaceMechanism(b, s) for b, s in ((1.0, 1.0), (0.7, 0.3), (3.0, 1.0),
                                                                          (0.1, 2.5))]
    cases += [md.RandomizedResponse(k, e) for k, e in ((2, 0.1), (3, 1.0), (5, 2.3), (10, 0.7), (4, 744.0))]
    cases += [md.DeclaredDP(e, 0.0) for e in (0.0, 0.5, 1.7, 30.0)]
    cases += [md.GaussianMechanism(1.0), md.GaussianMechanism(1.0) >> md.GaussianKernel(0.5)]
    for _ in range(8):
        k, m = int(rng.integers(2, 6)), int(rng.integers(2, 7))
        cases += [md.FiniteMechanism(_random_matrix(rng, k, m)),
                  md.FiniteMechanism(_random_matrix(rng, k, m), neighbours=[(0, 1)]),
                  md.FiniteMechanism(_random_matrix(rng, k, m)) >> md.FiniteKernel(_random_matrix(rng, m, 3)),
                  md.RandomizedResponse(k, float(rng.uniform(0, 5))) >> md.FiniteKernel(_random_matrix(rng, k, 4)),
                  md.DeclaredDP(float(rng.uniform(0, 3)), 0.0) >> md.FiniteKernel(_random_matrix(rng, k, 3))]
    return cases


@pytest.mark.parametrize("mech", pure_cases(), ids=lambda m: type(m).__name__)
def test_pure_epsilon_has_a_profile_of_exactly_zero(mech: md.Mechanism) -> None:
    eps = md.privacy_epsilon(mech, 0.0)
    if math.isinf(eps):  # Gaussians: no pure DP (R_inf = inf)
        assert md.renyi_profile(mech, INF) == INF
        return
    assert md.privacy_profile(mech, eps) == 0.0
    if eps > 0:  # and the returned eps is the R_inf of the pairs, not a loose one
        assert md.privacy_profile(mech, eps * (1 - 1e-9)) > 0


# ---------------------------------------------------------------------------------------------------
# Messages of bad inputs
# ---------------------------------------------------------------------------------------------------

def test_rdp_to_dp_with_no_orders_names_alpha() -> None:
    with pytest.raises(ValueError, match="`alpha` must be at least one Rényi order"):
        md.guarantees.rdp_to_dp(1.0, [], 1e-5)


def test_a_string_eps_is_shown_quoted_with_its_type() -> None:
    with pytest.raises(TypeError, match=r"`eps` must be a real number or array; got '2' of type str\."):
        md.privacy_profile(md.RandomizedResponse(2, 1.0), "2")


# ---------------------------------------------------------------------------------------------------
# Never −0.0
# ---------------------------------------------------------------------------------------------------

LAW_PAIRS = [(md.Normal(0, 1), md.Normal(0, 1)), (md.Normal(0, 1), md.Normal(1, 1)), (md.Normal(0, 1), md.Normal(0, 2)),
             (md.Normal(0, 2), md.Normal(0, 1)), (md.Laplace(0, 1), md.Laplace(0, 1)),
             (md.Laplace(0, 1), md.Laplace(1, 1)), (md.Laplace(0, 1), md.Laplace(0, 2)),
             (md.Laplace(0, 2), md.Laplace(0.5, 1)), (md.Categorical([0.5, 0.5]), md.Categorical([0.5, 0.5])),
             (md.Categorical([1.0, 0.0]), md.Categorical([0.5, 0.5])),
             (md.Categorical([0.2, 0.8]), md.Categorical([0.8, 0.2])),
             (md.PointMass(0.0), md.PointMass(0.0)), (md.Laplace(0, 1), md.Normal(0, 1)),
             (md.Normal(0.0, 1e-9), md.Normal(1.0, 1e-9))]
EPS_GRID = [0.0, 0.5, 1.0, math.log(4.0), 2.0, 50.0, 800.0, 5e17, INF]
ALPHA_GRID = [1.5, 2.0, 10.0, INF]


@pytest.mark.parametrize(("mu", "nu"), LAW_PAIRS, ids=lambda law: repr(law)[:30])
def test_divergences_never_return_negative_zero(mu, nu) -> None:
    for e in [*EPS_GRID, np.array(EPS_GRID)]:
        assert not negative_zero(md.hockey_stick(mu, nu, eps=e))
    for a in [*ALPHA_GRID, np.array(ALPHA_GRID)]:
        assert not negative_zero(md.renyi(mu, nu, alpha=a))
    assert not negative_zero(md.tv(mu, nu)) and not negative_zero(md.kl(mu, nu))


MECHANISMS = [md.GaussianMechanism(1.0), md.GaussianMechanism(1e-9), md.LaplaceMechanism(1.0),
              md.RandomizedResponse(2, 1.0), md.RandomizedResponse(3, 0.0), md.RandomizedResponse(2, 744.0),
              md.FiniteMechanism([[0.5, 0.5], [0.5, 0.5]]),
              md.FiniteMechanism([[0.7, 0.3], [0.2, 0.8]], neighbours=[(0, 1)]),
              md.DeclaredDP(1.0, 0.0), md.DeclaredDP(1.0, 0.1), md.DeclaredDP(0.0, 0.0),
              md.RandomizedResponse(2, 1.0) >> md.FiniteKernel([[0.5, 0.5], [0.5, 0.5]]),
              md.GaussianMechanism(1.0) >> md.GaussianKernel(1.0),
              md.DeclaredDP(1.0, 0.0) >> md.FiniteKernel([[0.9, 0.1], [0.1, 0.9]])]


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: type(m).__name__)
def test_profiles_and_certificates_never_return_negative_zero(mech) -> None:
    cert = md.certify(mech)
    for e in [*EPS_GRID, np.array(EPS_GRID)]:
        assert not negative_zero(md.privacy_profile(mech, e))
        assert not negative_zero(cert.delta(e))
    for a in [*ALPHA_GRID, np.array(ALPHA_GRID)]:
        assert not negative_zero(md.renyi_profile(mech, a))
