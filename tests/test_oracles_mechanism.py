"""Unary encoding and subset selection as mechanisms (issue 14 §2): exact pairs from their implicit channels,
checked against the explicit channel matrix enumerated here from the closed-form entries."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import markovdp as md
from markovdp.mechanisms.local import SubsetSelection, UnaryEncoding

EPS_GRID = np.array([0.0, 0.1, 0.3, 0.7, 1.0, 1.5, 2.5, 4.0])
ALPHAS = np.array([1.5, 2.0, 5.0, 20.0])


def unary_matrix(k: int, eps: float, optimized: bool) -> np.ndarray:
    """Q[x, y] = Π_j P(bit j = y_j | x), y = Σ_j y_j 2^j, from p and q written from their definitions."""
    if optimized:
        p, q = 0.5, 1.0 / (math.exp(eps) + 1.0)
    else:
        p = math.exp(eps / 2) / (math.exp(eps / 2) + 1.0)
        q = 1.0 - p
    out = np.empty((k, 2**k))
    for x in range(k):
        for y in range(2**k):
            prob = 1.0
            for j in range(k):
                one = p if j == x else q
                prob *= one if (y >> j) & 1 else 1.0 - one
            out[x, y] = prob
    return out


def subset_matrix(k: int, eps: float, d: int) -> np.ndarray:
    """Q[x, S] = e^eps / Z if x ∈ S, 1 / Z otherwise, Z = C(k−1, d−1) e^eps + C(k−1, d); lexicographic S."""
    z = math.comb(k - 1, d - 1) * math.exp(eps) + math.comb(k - 1, d)
    subsets = list(itertools.combinations(range(k), d))
    return np.array([[(math.exp(eps) if x in s else 1.0) / z for s in subsets] for x in range(k)])


def brute_profile(matrix: np.ndarray, eps: np.ndarray) -> np.ndarray:
    k = matrix.shape[0]
    return np.array([max(np.maximum(matrix[i] - math.exp(e) * matrix[j], 0.0).sum()
                         for i in range(k) for j in range(k) if i != j) for e in eps])


def brute_renyi(matrix: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    k = matrix.shape[0]
    return np.array([max(math.log((matrix[i] ** a * matrix[j] ** (1 - a)).sum()) / (a - 1)
                         for i in range(k) for j in range(k) if i != j) for a in alphas])


CASES = [(UnaryEncoding(k, eps, optimized=opt), unary_matrix(k, eps, opt))
         for k in (2, 3, 5) for eps in (0.5, 2.0) for opt in (True, False)]
CASES += [(SubsetSelection(k, eps, d=d), subset_matrix(k, eps, d))
          for k, d in ((3, 1), (5, 2), (6, 3), (7, 2)) for eps in (0.5, 2.0)]


@pytest.mark.parametrize(("oracle", "matrix"), CASES, ids=[repr(c[0]) for c in CASES])
def test_exact_values_match_the_enumerated_channel(oracle, matrix) -> None:
    np.testing.assert_allclose(oracle.matrix, matrix, rtol=1e-13, atol=0)
    np.testing.assert_allclose(md.privacy_profile(oracle, EPS_GRID), brute_profile(matrix, EPS_GRID), rtol=1e-11,
                               atol=1e-15)
    np.testing.assert_allclose(md.renyi_profile(oracle, ALPHAS), brute_renyi(matrix, ALPHAS), rtol=1e-11)
    ratio = max(matrix[i, y] / matrix[j, y] for i in range(len(matrix)) for j in range(len(matrix))
                for y in range(matrix.shape[1]))
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(math.log(ratio), rel=1e-12, abs=1e-15)
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(oracle.eps, rel=1e-12)
    for delta in (1e-3, 0.05):
        eps = md.privacy_epsilon(oracle, delta)
        assert brute_profile(matrix, np.array([eps]))[0] <= delta * (1 + 1e-9)
        assert brute_profile(matrix, np.array([eps * (1 - 1e-6)]))[0] > delta * (1 - 1e-9) or eps == 0.0
    i, j = md.worst_pair(oracle, 0.5)
    assert i != j and max(i, j) < oracle.k


@pytest.mark.parametrize(("oracle", "matrix"), CASES[::3], ids=[repr(c[0]) for c in CASES[::3]])
def test_post_processing_is_exact(oracle, matrix) -> None:
    """oracle >> K against the enumerated channel times K."""
    rng = np.random.default_rng(14)
    kernel = md.FiniteKernel(rng.dirichlet(np.full(3, 0.4), size=matrix.shape[1]))
    pipeline = oracle >> kernel
    np.testing.assert_allclose(md.privacy_profile(pipeline, EPS_GRID), brute_profile(matrix @ kernel.matrix, EPS_GRID),
                               rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(pipeline.matrix, matrix @ kernel.matrix, rtol=1e-12)
    cert = md.certify(pipeline)
    exact = brute_profile(matrix @ kernel.matrix, EPS_GRID)
    assert np.all(np.asarray(cert.delta(EPS_GRID)) >= exact - 1e-12)


def test_certify_unary_encoding_8_through_a_kernel() -> None:
    """The issue's example: certify(UnaryEncoding(8, 1) >> K) works and is never below the exact profile."""
    oracle = UnaryEncoding(8, 1.0)
    rng = np.random.default_rng(8)
    kernel = md.FiniteKernel(rng.dirichlet(np.ones(4), size=256))
    cert = md.certify(oracle >> kernel)
    exact = brute_profile(unary_matrix(8, 1.0, True) @ kernel.matrix, EPS_GRID)
    assert np.all(np.asarray(cert.delta(EPS_GRID)) >= exact - 1e-12)
    assert md.certify(oracle).delta(1.0) == 0.0


@pytest.mark.parametrize("oracle", [UnaryEncoding(6, 1.0), UnaryEncoding(4, 2.0, optimized=False),
                                    SubsetSelection(6, 1.0, d=2), SubsetSelection(5, 0.5)])
def test_sampled_reports_index_the_channel_columns(oracle) -> None:
    """output_index maps each report to its column; the indexed reports follow the channel rows (chi² test)."""
    n = 40_000
    x = np.repeat(np.arange(2), n)
    idx = oracle.sample_outputs(x, rng=np.random.default_rng(3))
    from scipy.stats import chisquare

    for value in (0, 1):
        counts = np.bincount(idx[x == value], minlength=oracle.output_space.size)
        assert chisquare(counts, n * oracle.matrix[value]).pvalue > 1e-4
    # through an identity-like kernel, the pipeline samples the same indices
    pipeline = oracle >> md.FiniteKernel(np.eye(oracle.output_space.size))
    np.testing.assert_array_equal(pipeline.sample(x[:50], rng=np.random.default_rng(5)),
                                  oracle.sample_outputs(x[:50], rng=np.random.default_rng(5)))


def test_subset_ranks_are_lexicographic() -> None:
    oracle = SubsetSelection(7, 1.0, d=3)
    subsets = list(itertools.combinations(range(7), 3))
    bitmaps = np.zeros((len(subsets), 7), dtype=np.uint8)
    for r, s in enumerate(subsets):
        bitmaps[r, list(s)] = 1
    np.testing.assert_array_equal(oracle.output_index(bitmaps), np.arange(len(subsets)))


def test_too_large_output_space_names_its_size() -> None:
    big = UnaryEncoding(30, 1.0)
    assert md.privacy_epsilon(big, 0.0) == pytest.approx(1.0, rel=1e-12)  # the lumped pair: any k
    with pytest.raises(ValueError, match=str(2**30)):
        _ = big.matrix
    with pytest.raises(ValueError, match=str(2**30)):
        big.output(0)
    mid = UnaryEncoding(19, 1.0)
    pipeline = mid >> md.FiniteKernel(np.ones((2**19, 1)))
    with pytest.raises(ValueError, match=str(2**19)):
        md.privacy_profile(pipeline, 0.5)
    with pytest.raises(ValueError, match="k"):
        UnaryEncoding(70, 1.0).output_index(np.zeros((1, 70), dtype=np.uint8))


def test_mechanism_contract() -> None:
    for oracle in (UnaryEncoding(5, 1.0), SubsetSelection(5, 1.0)):
        assert isinstance(oracle, md.Mechanism)
        assert oracle.neighbours == md.AllPairs()
        law = oracle.output(2)
        np.testing.assert_allclose(law.probs, oracle.matrix[2])
        with pytest.raises(ValueError, match="value"):
            oracle.output(5)
        with pytest.raises(TypeError):
            oracle >> oracle
