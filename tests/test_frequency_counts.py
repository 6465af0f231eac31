"""The oracles' estimates from reports counted by numba (issue 13 §6): equal to the plain numpy estimator on the
same reports — ``np.bincount`` of report values, ``reports.sum(axis=0)`` of bitmaps, then (c/n − q)/(p − q) or the
Hadamard transform written out here — for every integer kind and layout of reports, and bad reports are named as
before (the first offending value, checks in their documented order). SRP-Est. No timing assertions (speed:
benchmarks/frequency.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import hadamard

import markovdp as md
from markovdp.mechanisms.local.frequency import _report_counts
from markovdp.mechanisms.local.subset import SubsetSelection
from markovdp.mechanisms.local.unary import UnaryEncoding

SEED = 20240614
INTEGER_KINDS = (np.int64, np.int32, np.int16, np.uint8, np.uint16, np.uint64, np.intp)


def rr_numpy(k: int, eps: float, reports: np.ndarray) -> np.ndarray:
    """k-RR's unbiased estimate from first principles: p = e^eps/(e^eps + k − 1), q = 1/(e^eps + k − 1)."""
    counts = np.bincount(np.asarray(reports, dtype=np.int64).ravel(), minlength=k)
    p, q = math.exp(eps) / (math.exp(eps) + k - 1), 1.0 / (math.exp(eps) + k - 1)
    return (counts / counts.sum() - q) / (p - q)


@pytest.mark.parametrize("k", [2, 3, 16, 1000, 2**14 + 1])
def test_randomized_response_estimate_is_the_numpy_estimator(k: int) -> None:
    """Every integer dtype, 1-D, 2-D and strided reports, sizes around the 4-way unrolling: to 1e-12."""
    rng = np.random.default_rng([SEED, k])
    rr = md.RandomizedResponse(k, 1.3)
    for n in (1, 2, 3, 4, 5, 7, 1001, 200_003):
        y = rr.sample(rng.integers(0, k, n), rng=rng)
        for kind in INTEGER_KINDS:
            if np.iinfo(kind).max < k - 1:
                continue
            reports = y.astype(kind)
            np.testing.assert_allclose(rr.estimate(reports), rr_numpy(k, 1.3, y), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(_report_counts("reports", y, k)[0], np.bincount(y, minlength=k))
    grid = y[: 2 * (y.size // 2)].reshape(-1, 2)
    np.testing.assert_allclose(rr.estimate(grid), rr_numpy(k, 1.3, grid), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rr.estimate(grid[:, 1]), rr_numpy(k, 1.3, grid[:, 1]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rr.estimate(y.tolist()[:50]), rr_numpy(k, 1.3, y[:50]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls", [md.HadamardResponse, md.BinaryHadamard])
def test_hadamard_estimates_are_the_numpy_transform(cls) -> None:
    """(H c)[x + 1] / (n tanh(eps/2)) with scipy's Hadamard matrix and numpy's counts (signed for BH)."""
    rng = np.random.default_rng([SEED, 7])
    oracle = cls(12, 0.8)
    y = oracle.sample(rng.integers(0, 12, 30_001), rng=rng)
    order = oracle.hadamard_order
    counts = np.bincount(y, minlength=order if cls is md.HadamardResponse else 2 * order)
    if cls is md.BinaryHadamard:
        counts = counts[0::2] - counts[1::2]
    expected = (hadamard(order) @ counts)[1:13] / (y.size * math.tanh(0.4))
    for kind in (np.int64, np.int32, np.uint16):
        np.testing.assert_allclose(oracle.estimate(y.astype(kind)), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("where", [0, 1, 2, 3, 4, 998, 999, 1000])
@pytest.mark.parametrize("bad", [-1, 5, 2**40])
def test_out_of_range_reports_are_named(where: int, bad: int) -> None:
    """A value outside [0, k) in any lane of the unrolled count or in its remainder: the first one is named."""
    y = np.random.default_rng([SEED, where]).integers(0, 5, 1001)
    y[where] = bad
    with pytest.raises(ValueError, match=rf"`reports` must be integer states in \[0, 4\]; got {bad}\."):
        md.RandomizedResponse(5, 1.0).estimate(y)
    y[-1] = 7  # a later offender must not be the one named
    named = bad if where < 1000 else 7
    with pytest.raises(ValueError, match=rf"`reports` must be integer states in \[0, 4\]; got {named}\."):
        md.RandomizedResponse(5, 1.0).estimate(y)
    with pytest.raises(ValueError, match=r"`reports` must be a non-empty array of reports"):
        md.RandomizedResponse(5, 1.0).estimate(np.array([], dtype=np.int64))
    with pytest.raises(TypeError, match="`reports`"):
        md.RandomizedResponse(5, 1.0).estimate(np.array([True, False]))
    np.testing.assert_allclose(md.RandomizedResponse(5, 1.0).estimate(np.array([0.0, 4.0, 2.0])),
                               rr_numpy(5, 1.0, np.array([0, 4, 2])), rtol=1e-12)


def bitmap_numpy(oracle, reports: np.ndarray) -> np.ndarray:
    """(c/n − q)/(p − q) with c = reports.sum(axis=0), p and q from the oracle's channel definition."""
    c = np.asarray(reports, dtype=np.int64).sum(axis=0)
    return (c / reports.shape[0] - oracle.q) / (oracle.p - oracle.q)


@pytest.mark.parametrize("oracle", [SubsetSelection(16, 1.0), SubsetSelection(1024, 2.0), UnaryEncoding(16, 1.0),
                                    UnaryEncoding(300, 0.5, optimized=False)], ids=repr)
def test_bitmap_estimates_are_the_numpy_estimator(oracle) -> None:
    """uint8, bool, int64, int8 and Fortran-ordered reports: the numpy column sums' estimate, to 1e-12."""
    rng = np.random.default_rng([SEED, oracle.k])
    for n in (1, 3, 20_001):
        reports = oracle.sample(rng.integers(0, oracle.k, n), rng=rng)
        expected = bitmap_numpy(oracle, reports)
        for form in (reports, reports.astype(bool), reports.astype(np.int64), reports.astype(np.int8),
                     np.asfortranarray(reports)):
            np.testing.assert_allclose(oracle.estimate(form), expected, rtol=1e-12, atol=1e-12)


def test_bad_bitmaps_are_named_in_the_documented_order() -> None:
    """An entry outside {0, 1} is named before a row with the wrong number of ones, wherever each is."""
    oracle = SubsetSelection(8, 1.0)
    reports = oracle.sample(np.arange(8).repeat(100), rng=1)
    wrong_row = reports.copy()
    wrong_row[500, np.flatnonzero(wrong_row[500] == 0)[0]] = 1
    with pytest.raises(ValueError, match=rf"exactly d = {oracle.d} ones; got a row with {oracle.d + 1}"):
        oracle.estimate(wrong_row)
    both = wrong_row.copy()
    both[700, 0] = 3
    with pytest.raises(ValueError, match=r"bits in \{0, 1\}; got 3\."):
        oracle.estimate(both)
    for encoding in (UnaryEncoding(8, 1.0), oracle):
        negative = reports.astype(np.int64)
        negative[-1, -1] = -1
        with pytest.raises(ValueError, match=r"bits in \{0, 1\}; got -1\."):
            encoding.estimate(negative)
        with pytest.raises(TypeError, match="`reports` must be bits"):
            encoding.estimate(reports.astype(np.float64))
