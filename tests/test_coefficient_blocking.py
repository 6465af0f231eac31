"""Cache-blocked all-pairs coefficient kernels (BBGG-D1.1/D1.2, AAC-eta) and the pruned ldp_epsilon (AAC-T1).

The blocked kernels must return bit for bit what the row-by-row kernels returned before blocking (a copy of
those is kept below as the reference), for every tile size, serial and parallel, and agree with brute force
(tests/oracles.py) to 1e-15.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from oracles import coefficient_bruteforce

from markovdp.guarantees import _coefficient_kernels as kernels
from markovdp.guarantees import coefficients
from markovdp.guarantees.coefficients import dobrushin, ldp_epsilon

EPS = [0.0, 0.5, 3.0, 709.9, 800.0, math.inf]


# ------------------------------------------------------------------ reference: the kernels before blocking


@njit(fastmath={"reassoc"})
def _old_row_gamma(P, gamma, i):
    k, m = P.shape
    best = 0.0
    for j in range(i + 1, k):
        s_ij = 0.0
        s_ji = 0.0
        for y in range(m):
            a = P[i, y]
            b = P[j, y]
            s_ij += max(a - gamma * b, 0.0)
            s_ji += max(b - gamma * a, 0.0)
        best = max(best, max(s_ij, s_ji))
    return best


@njit
def _old_row_split(P, half, i):
    k, m = P.shape
    best = 0.0
    for j in range(i + 1, k):
        s_ij = 0.0
        s_ji = 0.0
        for y in range(m):
            a = P[i, y]
            b = P[j, y]
            s_ij += max(a - half * (half * b), 0.0)
            s_ji += max(b - half * (half * a), 0.0)
        best = max(best, max(s_ij, s_ji))
    return best


@njit(fastmath={"reassoc"})
def _old_row_dinf(P, i):
    k, m = P.shape
    best = 0.0
    for j in range(i + 1, k):
        s_ij = 0.0
        s_ji = 0.0
        for y in range(m):
            a = P[i, y]
            b = P[j, y]
            s_ij += a if b == 0.0 else 0.0
            s_ji += b if a == 0.0 else 0.0
        best = max(best, max(s_ij, s_ji))
    return best


def old_row_maxima(P: np.ndarray, eps: float) -> np.ndarray:
    mode, value = coefficients._gamma_mode(eps)
    if mode == coefficients._MODE_GAMMA:
        return np.array([_old_row_gamma(P, value, i) for i in range(P.shape[0])])
    if mode == coefficients._MODE_SPLIT:
        return np.array([_old_row_split(P, value, i) for i in range(P.shape[0])])
    return np.array([_old_row_dinf(P, i) for i in range(P.shape[0])])


def old_dobrushin(P: np.ndarray, eps: float) -> float:
    return 0.0 if P.shape[0] < 2 else min(max(float(old_row_maxima(P, eps).max()), 0.0), 1.0)


# ------------------------------------------------------------------ matrices


def random_matrix(rng: np.random.Generator, k: int, m: int, zeros: float = 0.0, tiny: bool = False) -> np.ndarray:
    """Row-stochastic, optionally with a fraction of zero entries and entries down to 1e-300 (subnormal
    products at eps = 709.9 and 800)."""
    raw = rng.random((k, m)) ** 3
    if tiny:
        raw *= 10.0 ** -rng.integers(0, 300, size=(k, m))
    raw[rng.random((k, m)) < zeros] = 0.0
    raw[np.arange(k), rng.integers(0, m, size=k)] += 1e-3  # no zero row
    return np.ascontiguousarray(raw / raw.sum(axis=1, keepdims=True))


CASES = [(k, m, zeros, tiny) for k, m in [(2, 2), (3, 7), (17, 5), (40, 33), (64, 129)]
         for zeros in (0.0, 0.6) for tiny in (False, True)]


@pytest.mark.parametrize(("k", "m", "zeros", "tiny"), CASES)
def test_blocked_kernels_bit_identical_to_row_kernels(k, m, zeros, tiny):
    """BBGG-D1.2: every row maximum, for every tile size, serial and parallel, is the old kernel's bit for bit,
    and dobrushin() is the old value exactly (== and same sign bit)."""
    rng = np.random.default_rng(1000 * k + m + int(10 * zeros) + tiny)
    P = random_matrix(rng, k, m, zeros, tiny)
    for eps in EPS:
        old = old_row_maxima(P, eps)
        mode, value = coefficients._gamma_mode(eps)
        for tile in sorted({1, 2, 3, 5, 8, k}):
            for run in (kernels.coefficient_rows, kernels.coefficient_rows_parallel):
                out = np.full(k, np.nan)
                partner = np.full(k, -7, dtype=np.int64)
                run(P, mode, value, np.arange(k), tile, out, partner)
                assert out.tobytes() == old.tobytes(), (eps, tile, run)
                # partner[i] attains out[i] (first j > i), -1 only for the last row
                assert partner[-1] == -1
                for i in range(k - 1):
                    j = int(partner[i])
                    assert i < j < k
                    assert kernels.pair_value(P, mode, value, i, j) == out[i]
            rows = np.flatnonzero(rng.random(k) < 0.5)  # a pass over some rows only (the pruned search)
            for run in (kernels.coefficient_rows, kernels.coefficient_rows_parallel):
                out, partner = np.full(rows.size, np.nan), np.empty(rows.size, dtype=np.int64)
                if rows.size:
                    run(P, mode, value, rows, tile, out, partner)
                assert out.tobytes() == old[rows].tobytes()
        new = dobrushin(P, eps)
        assert new == old_dobrushin(P, eps)
        assert math.copysign(1.0, new) == 1.0


@pytest.mark.parametrize(("k", "m", "zeros", "tiny"), [c for c in CASES if c[0] <= 17])
def test_blocked_dobrushin_against_bruteforce(k, m, zeros, tiny):
    """BBGG-D1.2 / AAC-eta: the coefficient against event enumeration (oracles.coefficient_bruteforce)."""
    rng = np.random.default_rng(7 * k + m + int(10 * zeros) + tiny)
    P = random_matrix(rng, k, m, zeros, tiny)
    for eps in EPS:
        assert dobrushin(P, eps) == pytest.approx(min(coefficient_bruteforce(P, eps), 1.0), abs=1e-15)


def test_public_path_large_enough_for_threads_bit_identical():
    """The public call on a matrix big enough for the threaded, tiled kernel (work >= _PARALLEL_MIN_WORK)."""
    rng = np.random.default_rng(3)
    P = random_matrix(rng, 420, 400, zeros=0.3)
    assert 420 * 419 // 2 * 400 >= coefficients._PARALLEL_MIN_WORK
    for eps in (0.0, 3.0, 709.9, math.inf):
        assert dobrushin(P, eps) == old_dobrushin(P, eps)


@pytest.mark.parametrize("seed", range(4))
def test_pair_values_are_the_pass_arithmetic(seed):
    """pair_values (serial and parallel, any tile) holds each pair's value exactly as pair_value computes it,
    0 on and below the diagonal; their row maxima are the old kernels' bit for bit."""
    rng = np.random.default_rng(50 + seed)
    k = int(rng.integers(5, 40))
    P = random_matrix(rng, k, int(rng.integers(2, 30)), zeros=0.3 * (seed % 2))
    mode, value = coefficients._gamma_mode(1.0)
    rows = np.flatnonzero(rng.random(k) < 0.6)
    want = np.array([[kernels.pair_value(P, mode, value, i, j) if j > i else 0.0 for j in range(k)] for i in rows])
    for tile in (1, 3, k):
        for run in (kernels.pair_values, kernels.pair_values_parallel):
            out = np.full((rows.size, k), np.nan)
            if rows.size:
                run(P, mode, value, rows, tile, out)
            assert out.tobytes() == want.reshape(rows.size, k).tobytes()
    assert np.array_equal(want.max(axis=1, initial=0.0), old_row_maxima(P, 1.0)[rows])


# ------------------------------------------------------------------ pruned ldp_epsilon


@pytest.mark.parametrize("max_pairs", [256, 4, 0])
@pytest.mark.parametrize("seed", range(5))
def test_pruned_ldp_epsilon_contract(monkeypatch, seed, max_pairs):
    """AAC-T1: the pruned search (no check pass when the pass at lo certifies) returns root finding's eps to
    EPS_XTOL, with dobrushin(K, eps) <= delta < dobrushin(K, eps - EPS_XTOL) in the kernels' arithmetic."""
    rng = np.random.default_rng(300 + seed)
    P = random_matrix(rng, int(rng.integers(20, 60)), int(rng.integers(5, 40)), zeros=0.1 * (seed % 2))
    for delta in (1e-6, 1e-3, 0.05):
        monkeypatch.setattr(coefficients, "_PRUNE_MIN_ROWS", 10**9)
        root = ldp_epsilon(P, delta)
        monkeypatch.setattr(coefficients, "_PRUNE_MIN_ROWS", 2)
        monkeypatch.setattr(coefficients, "_PRUNE_MAX_PAIRS", max_pairs)
        pruned = ldp_epsilon(P, delta)
        assert pruned == pytest.approx(root, abs=coefficients.EPS_XTOL)
        if math.isfinite(pruned):
            assert old_dobrushin(P, pruned) <= delta
            assert pruned == 0.0 or old_dobrushin(P, pruned - coefficients.EPS_XTOL) > delta


def test_pruned_ldp_epsilon_one_pass(monkeypatch):
    """Dense k = 300 and 600 kernels: one pass over all rows (then passes over candidate rows only), no check
    pass, and the answer keeps the contract in the old kernels' arithmetic."""
    rng = np.random.default_rng(11)
    calls: list[float] = []
    row_maxima = coefficients._row_maxima

    def counted(matrix, eps, tile=None, rows=None):
        if matrix.shape[0] > 2 and rows is None:
            calls.append(eps)
        return row_maxima(matrix, eps, tile, rows)

    monkeypatch.setattr(coefficients, "_row_maxima", counted)
    for k in (300, 600):
        P = np.ascontiguousarray(rng.random((k, k)))
        P /= P.sum(axis=1, keepdims=True)
        calls.clear()
        eps = ldp_epsilon(P, 1e-3)
        assert len(calls) == 1
        assert old_dobrushin(P, eps) <= 1e-3 < old_dobrushin(P, eps - coefficients.EPS_XTOL)
