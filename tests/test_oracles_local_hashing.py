"""Optimized local hashing (OLH, STD-OLH): exact certification against the enumerated channel, unbiasedness and
Wang et al.'s variance by simulation (tolerances from the CI), the public hash's uniformity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import markovdp as md
from markovdp.mechanisms.local.local_hashing import LocalHashing

EPS_GRID = np.array([0.0, 0.2, 0.5, 1.0, 1.7, 3.0])
ALPHAS = np.array([1.5, 2.0, 8.0])


def enumerated_channel(k: int, g: int, eps: float) -> np.ndarray:
    """Q[x, (h, y)] = g^-k e^eps / (e^eps + g − 1) if y = h(x), g^-k / (e^eps + g − 1) otherwise, over every
    hash h ∈ [g]^k (in itertools.product order) and y ∈ [g]."""
    keep, other = math.exp(eps) / (math.exp(eps) + g - 1), 1.0 / (math.exp(eps) + g - 1)
    cols = [(h, y) for h in itertools.product(range(g), repeat=k) for y in range(g)]
    return np.array([[(keep if y == h[x] else other) / g**k for h, y in cols] for x in range(k)])


def brute(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    k = matrix.shape[0]
    pairs = [(i, j) for i in range(k) for j in range(k) if i != j]
    profile = np.array([max(np.maximum(matrix[i] - math.exp(e) * matrix[j], 0).sum() for i, j in pairs)
                        for e in EPS_GRID])
    renyi = np.array([max(math.log((matrix[i] ** a * matrix[j] ** (1 - a)).sum()) / (a - 1) for i, j in pairs)
                      for a in ALPHAS])
    eps = max(math.log((matrix[i] / matrix[j]).max()) for i, j in pairs)
    return profile, renyi, eps


@pytest.mark.parametrize(("k", "g", "eps"), [(2, 2, 0.7), (3, 2, 1.0), (3, 3, 1.0), (4, 3, 2.0), (3, 4, 0.5)])
def test_exact_values_match_the_enumerated_channel(k: int, g: int, eps: float) -> None:
    oracle = LocalHashing(k, eps, g=g)
    profile, renyi, pure = brute(enumerated_channel(k, g, eps))
    np.testing.assert_allclose(md.privacy_profile(oracle, EPS_GRID), profile, rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(md.renyi_profile(oracle, ALPHAS), renyi, rtol=1e-11)
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(pure, rel=1e-12)
    assert pure == pytest.approx(eps, rel=1e-12)
    # the library's full matrix has the same columns, ordered by (Σ h(v) g^v) g + y
    order = [sum(h[v] * g**v for v in range(k)) * g + y for h in itertools.product(range(g), repeat=k)
             for y in range(g)]
    np.testing.assert_allclose(oracle.matrix[:, order], enumerated_channel(k, g, eps), rtol=1e-13)
    kernel = md.FiniteKernel(np.random.default_rng(k).dirichlet(np.ones(2), size=g ** (k + 1)))
    post, _, _ = brute(enumerated_channel(k, g, eps) @ kernel.matrix[order])
    np.testing.assert_allclose(md.privacy_profile(oracle >> kernel, EPS_GRID), post, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0, 10.0])
def test_default_hash_range_and_pure_eps(eps: float) -> None:
    oracle = LocalHashing(16, eps)
    assert oracle.g == max(2, round(math.exp(eps) + 1))
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(eps, rel=1e-12)
    assert md.ldp_epsilon(oracle) == pytest.approx(eps, rel=1e-12)


def test_unbiased_with_wang_variance() -> None:
    """R independent runs of n users with fixed inputs: mean within 4.5 standard errors of f, and the sample
    variance inside its chi² interval (two-sided 1e-5) around the exact variance; at f_v = 0 that variance is
    Wang et al.'s (e^eps − 1 + g)² / (n (e^eps − 1)² (g − 1)), written here from the paper."""
    k, eps, n, runs = 6, 1.5, 2000, 400
    oracle = LocalHashing(k, eps)
    g = oracle.g
    x = np.repeat(np.arange(k - 1), [800, 500, 400, 200, 100])  # input 5 never occurs
    f = np.bincount(x, minlength=k) / n
    rng = np.random.default_rng(20170816)
    est = np.array([oracle.estimate(oracle.sample(x, rng=rng)) for _ in range(runs)])
    e = math.exp(eps)
    p = e / (e + g - 1)
    var = (f * p * (1 - p) + (1 - f) * (1 / g) * (1 - 1 / g)) / (n * (p - 1 / g) ** 2)
    assert var[-1] == pytest.approx((e - 1 + g) ** 2 / (n * (e - 1) ** 2 * (g - 1)), rel=1e-12)
    np.testing.assert_allclose(oracle.estimator_variance(f, n), var, rtol=1e-12)
    z = (est.mean(axis=0) - f) / np.sqrt(var / runs)
    assert np.all(np.abs(z) < 4.5), z
    ratio = est.var(axis=0, ddof=1) / var
    lo, hi = stats.chi2.ppf([1e-5, 1 - 1e-5], runs - 1) / (runs - 1)
    assert np.all((lo < ratio) & (ratio < hi)), ratio


def test_public_hash_and_reports_follow_the_lumped_channel() -> None:
    """The sampled (h, y) of inputs 0 and 1, classified as in the lumped pair, follow its rows (chi², p > 1e-4);
    the hash of every label is uniform on [g]."""
    oracle = LocalHashing(5, 2.0)
    n = 60_000
    for value in (0, 1):
        reports = oracle.sample(np.full(n, value), rng=np.random.default_rng(value))
        h = oracle.hash_values(reports[:, 0])
        y = reports[:, 1].astype(np.int64)
        cls = np.where(h[:, 0] == h[:, 1], 0, np.where(y == h[:, 0], 1, np.where(y == h[:, 1], 2, 3)))
        expected = n * oracle.ldp_kernel().matrix[value]
        assert stats.chisquare(np.bincount(cls, minlength=4), expected).pvalue > 1e-4
        for v in range(5):
            assert stats.chisquare(np.bincount(h[:, v], minlength=oracle.g)).pvalue > 1e-4


def test_bad_inputs() -> None:
    oracle = LocalHashing(4, 1.0)
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.zeros((3, 3), dtype=np.uint64))
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.array([[1, 7]], dtype=np.uint64))
    with pytest.raises(TypeError, match="`reports`"):
        oracle.estimate(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="`g`"):
        LocalHashing(4, 1.0, g=1)
    with pytest.raises(ValueError, match="`eps`"):
        LocalHashing(4, 0.0).estimate(LocalHashing(4, 0.0).sample([0, 1], rng=0))
    with pytest.raises(ValueError, match=str(4**11)):
        _ = LocalHashing(10, 1.0).matrix
