"""The numba-native normal generator (`markovdp._fast_normal`): xoshiro256++ words and a 256-layer ziggurat.

The words are held against a pure-Python transcription of Blackman & Vigna's reference code and against
chi-square tests on their top and bottom bits; the ziggurat tables against the defining equations evaluated
independently (the tail mass by scipy.special.ndtr, the layer areas one by one) and numpy's published r; the
normals against N(0, 1) by moments (tolerances from the sampling standard errors), KS, a 200-bin chi-square and
binomial tail counts, with the tail branch beyond r counted and its draws held against the truncated normal.
Fixed seeds throughout; every statistical assertion has false-failure probability about ALPHA.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from markovdp import _fast_normal as fn
from markovdp._random import task_seed

ALPHA = 1e-5  # false-failure rate of each statistical assertion
Z_ALPHA = stats.norm.isf(ALPHA / 2)  # two-sided normal quantile, ~4.4
MASK = (1 << 64) - 1


@pytest.fixture(scope="module")
def draws() -> np.ndarray:
    """1e7 normals at a fixed seed (shared by the tests below; ~0.1 s)."""
    return fn.normals(10**7, 20240601)


def reference_xoshiro(state: list[int], n: int) -> list[int]:
    """xoshiro256++ ``next()`` transcribed from the authors' C code (prng.di.unimi.it), in Python ints."""
    s = list(state)

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & MASK

    out = []
    for _ in range(n):
        out.append((rotl((s[0] + s[3]) & MASK, 23) + s[0]) & MASK)
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


# ------------------------------------------------------------------------------------------- uniform words


def test_words_match_the_reference_code() -> None:
    state = fn.make_state(7)
    expected = reference_xoshiro([int(w) for w in state], 2000)
    words = np.empty(2000, dtype=np.uint64)
    fn.fill_uint64(state, words)
    assert [int(w) for w in words] == expected
    assert int(fn.next_uint64(state)) == reference_xoshiro([int(w) for w in fn.make_state(7)], 2001)[-1]


def test_top_and_bottom_bits_are_uniform() -> None:
    """Chi-square on the top 8 bits (256 bins), the bottom 9 (512 bins: the ziggurat's layer and sign bits) and
    on each of the 64 bits' frequency."""
    words = np.empty(10**6, dtype=np.uint64)
    fn.fill_uint64(fn.make_state(11), words)
    for cells, bins in ((words >> np.uint64(56), 256), (words & np.uint64(0x1FF), 512)):
        counts = np.bincount(cells.astype(np.int64), minlength=bins)
        assert stats.chisquare(counts).pvalue > ALPHA
    ones = np.array([((words >> np.uint64(b)) & np.uint64(1)).sum() for b in range(64)], dtype=float)
    z = (ones - words.size / 2) / math.sqrt(words.size / 4)
    assert stats.chi2.sf(np.sum(z**2), 64) > ALPHA  # 64 independent bit frequencies, jointly


def test_seeding() -> None:
    """Same seed → identical streams (int, SeedSequence, the address of a sweep task); a Generator seeds too;
    the state is never all zero; bad seeds name the parameter."""
    assert np.array_equal(fn.normals(1000, 5), fn.normals(1000, 5))
    assert np.array_equal(fn.normals(1000, 5), fn.normals(1000, np.random.SeedSequence(5)))
    root = np.random.SeedSequence(99)
    assert np.array_equal(fn.normals(100, task_seed(root, 3, 1)), fn.normals(100, task_seed(root, 3, 1)))
    assert not np.array_equal(fn.normals(100, task_seed(root, 3, 1)), fn.normals(100, task_seed(root, 3, 2)))
    assert np.array_equal(fn.normals(100, np.random.default_rng(4)), fn.normals(100, np.random.default_rng(4)))
    assert fn.make_state(0).any() and fn.make_state(0).dtype == np.uint64
    state = fn.make_state(5)
    one_by_one = np.array([fn.next_normal(state) for _ in range(1000)])
    assert np.array_equal(one_by_one, fn.normals(1000, 5))  # next_normal and fill_normals: one stream
    with pytest.raises(ValueError, match="seed"):
        fn.make_state(-1)
    with pytest.raises(TypeError, match="seed"):
        fn.make_state(1.5)
    with pytest.raises(ValueError, match="n"):
        fn.normals(-1, 0)


def test_different_seeds_give_uncorrelated_streams() -> None:
    """Sample correlation of paired draws within its CI (sd 1/√n), for neighbouring ints and sibling addresses;
    and of lag-1 pairs within one stream."""
    n = 10**6
    root = np.random.SeedSequence(2024)
    pairs = [(fn.normals(n, 1), fn.normals(n, 2)),
             (fn.normals(n, task_seed(root, 0, 0)), fn.normals(n, task_seed(root, 0, 1)))]
    one = fn.normals(n + 1, 3)
    pairs.append((one[:-1], one[1:]))
    for a, b in pairs:
        assert abs(np.corrcoef(a, b)[0, 1]) < Z_ALPHA / math.sqrt(n)


# ------------------------------------------------------------------------------------------- ziggurat tables


def test_tables_satisfy_the_defining_equations() -> None:
    """v = r φ(r)·√(2π) + √(2π)·(1 − Φ(r)) (unnormalised f = e^{−x²/2}); every layer i ≥ 1 has area
    x_i (f(x_{i−1}) − f(x_i)) = v with x_0 = 0 (the top layer closes); the thresholds and widths follow."""
    r, v, x, k, w, f = fn.ziggurat_tables()
    assert r == pytest.approx(3.6541528853610087963519472518, rel=1e-14)  # numpy's ziggurat_nor_r
    root2pi = math.sqrt(2 * math.pi)
    v_indep = r * math.exp(-r * r / 2) + root2pi * special.ndtr(-r)
    assert v == pytest.approx(v_indep, rel=1e-14)
    v_erf = r * math.exp(-r * r / 2) + math.sqrt(math.pi / 2) * (1 - special.erf(r / math.sqrt(2)))
    assert v == pytest.approx(v_erf, rel=1e-12)
    assert x[0] == 0.0 and x[-1] == r and np.all(np.diff(x) > 0)
    areas = x[1:] * (np.exp(-x[:-1] ** 2 / 2) - np.exp(-x[1:] ** 2 / 2))
    np.testing.assert_allclose(areas, v_indep, rtol=1e-12, atol=0)
    # The base strip: width v/f(r), a rectangle r·f(r) plus the tail, which is the same area v.
    assert w[0] * 2.0**52 * math.exp(-r * r / 2) == pytest.approx(v_indep, rel=1e-14)
    np.testing.assert_allclose(f, np.exp(-x**2 / 2), rtol=1e-15)
    np.testing.assert_allclose(w[1:] * 2.0**52, x[1:], rtol=1e-15)
    assert k[1] == 0
    np.testing.assert_allclose(k[2:] / 2.0**52, x[1:-1] / x[2:], rtol=0, atol=2.0**-52)
    assert k[0] / 2.0**52 == pytest.approx(r * math.exp(-r * r / 2) / v_indep, abs=2.0**-52)
    # Together the 256 layers cover the half-curve, whose area is √(π/2).
    assert fn.LAYERS * v > math.sqrt(math.pi / 2)


# ------------------------------------------------------------------------------------------- normals


def test_moments(draws: np.ndarray) -> None:
    """Mean, variance, skewness and excess kurtosis of 4e6 draws within Z_ALPHA sampling standard errors
    (1/√n, √(2/n), √(6/n), √(24/n))."""
    z = draws[: 4 * 10**6]
    n = z.size
    assert abs(z.mean()) < Z_ALPHA / math.sqrt(n)
    assert abs(z.var() - 1) < Z_ALPHA * math.sqrt(2 / n)
    c = z - z.mean()
    c2 = c * c
    m2, m3, m4 = c2.mean(), (c2 * c).mean(), (c2 * c2).mean()
    assert abs(m3 / m2**1.5) < Z_ALPHA * math.sqrt(6 / n)
    assert abs(m4 / m2**2 - 3) < Z_ALPHA * math.sqrt(24 / n)


def test_ks_and_chi_square(draws: np.ndarray) -> None:
    """KS against scipy.stats.norm on 2e6 draws, and a chi-square on 200 equiprobable bins of all 1e7."""
    assert stats.kstest(draws[: 2 * 10**6], stats.norm.cdf).pvalue > 1e-4
    counts, _ = np.histogram(draws, bins=stats.norm.ppf(np.linspace(0, 1, 201)))
    assert counts.sum() == draws.size
    assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("t", [3.0, 4.0, 5.0])
def test_tail_probabilities(draws: np.ndarray, t: float) -> None:
    """P(Z > t) and P(Z < −t) on 1e7 draws: each count inside its binomial (1 − ALPHA) interval."""
    n, p = draws.size, stats.norm.sf(t)
    low, high = stats.binom.interval(1 - ALPHA, n, p)
    for count in (np.count_nonzero(draws > t), np.count_nonzero(draws < -t)):
        assert low <= count <= high


def test_tail_branch_is_exercised_and_exact(draws: np.ndarray) -> None:
    """The tail branch runs as often as P(|Z| > r) says, every draw beyond r comes from it, and the draws
    beyond r follow the normal law conditioned on |Z| > r (KS against (Φ(x) − Φ(r))/(1 − Φ(r)) on |Z|)."""
    n = 10**7
    hits, beyond = fn.count_tail(fn.make_state(20240601), n)
    assert hits == beyond == np.count_nonzero(np.abs(draws) > fn.R)  # same seed, same stream as `draws`
    low, high = stats.binom.interval(1 - ALPHA, n, 2 * stats.norm.sf(fn.R))
    assert low <= hits <= high and hits > 2000
    tail = np.abs(draws[np.abs(draws) > fn.R])
    cdf = lambda y: -np.expm1(stats.norm.logsf(y) - stats.norm.logsf(fn.R))  # noqa: E731
    assert stats.kstest(tail, cdf).pvalue > 1e-4
    signs = np.count_nonzero(draws > fn.R)
    assert stats.binomtest(signs, tail.size, 0.5).pvalue > ALPHA

