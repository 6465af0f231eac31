"""numba kernels of the oracles' `estimate`: the server's counts of the reports, checked in the same pass.

Imported only inside the estimate paths, so ``import markovdp`` does not import numba. Each kernel reads the
reports once and returns a status instead of raising; on a bad report its caller re-runs the checks that name
the offending value. Counts with few cells go to four interleaved tables (summed at the end): consecutive
reports of the same value would otherwise wait on each other's increment.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Up to this many cells the counts use four interleaved tables.
INTERLEAVE_CELLS = 2**14


@njit(cache=True, nogil=True)
def value_counts(values: np.ndarray, m: int) -> tuple[np.ndarray, bool]:
    """(c, ok): c_v = #{i : values[i] = v} for v in [0, m) (``np.bincount(values, minlength=m)``), and whether
    every value lies in [0, m) (c is incomplete otherwise). Two cells: c_1 is the sum of the values."""
    n = values.size
    if m == 2:  # a vectorised sum and OR: the number of ones, and whether some value has another bit set
        ones = 0
        seen = 0
        for i in range(n):
            v = np.int64(values[i])  # uint64 beyond 2^63 turns negative: caught as set high bits
            ones += v
            seen |= v
        return np.array([n - ones, ones]), (seen & ~1) == 0
    lanes = 4 if m <= INTERLEAVE_CELLS else 1
    tables = np.zeros((lanes, m), dtype=np.int64)
    bad = False
    i = 0
    if lanes == 4:
        t0, t1, t2, t3 = tables[0], tables[1], tables[2], tables[3]
        while i + 4 <= n:
            a, b = np.int64(values[i]), np.int64(values[i + 1])
            c, d = np.int64(values[i + 2]), np.int64(values[i + 3])
            if (a < 0) | (a >= m) | (b < 0) | (b >= m) | (c < 0) | (c >= m) | (d < 0) | (d >= m):
                bad = True
                break
            t0[a] += 1
            t1[b] += 1
            t2[c] += 1
            t3[d] += 1
            i += 4
    t = tables[0]
    while i < n and not bad:
        v = np.int64(values[i])
        if v < 0 or v >= m:
            bad = True
            break
        t[v] += 1
        i += 1
    return tables.sum(axis=0), not bad


@njit(cache=True, nogil=True)
def bitmap_counts(reports: np.ndarray, ones: int) -> tuple[np.ndarray, int]:
    """(c, status) for (n, k) reports of 0/1 entries: c_j = Σ_i reports[i, j] (``reports.sum(axis=0)``); status 0
    when every entry is 0 or 1 and, for ``ones >= 0``, every row holds exactly `ones` ones; 1 (an entry outside
    {0, 1}) or 2 (a row with another number of ones) otherwise, c then incomplete."""
    n, k = reports.shape
    counts = np.zeros(k, dtype=np.int64)
    block = np.zeros(k, dtype=np.int32)  # SIMD lanes of int32: flushed into counts every 2^30 rows at most
    rows = 0
    for i in range(n):
        row = reports[i]
        total = 0
        seen = 0
        for j in range(k):
            v = row[j]
            block[j] += v
            total += v
            seen |= v
        if (seen & ~1) != 0:
            return counts, 1
        if ones >= 0 and total != ones:
            return counts, 2
        rows += 1
        if rows == 2**30:
            counts += block
            block[:] = 0
            rows = 0
    counts += block
    return counts, 0


@njit(cache=True, nogil=True)
def ibu_iterations(c: np.ndarray, a: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, bool]:
    """(f, ok): the IBU fixed-point map f ← normalise(f ⊙ A (c / (fA))) from the uniform f (ibu.py), until the l1
    change is below `tol` or after `max_iter` steps; ok is False when a step's total is not positive (counts that
    no input can produce). Ratios where the expected rate is 0 count as 0."""
    k, m = a.shape
    f = np.full(k, 1.0 / k)
    new = np.empty(k)
    ratio = np.empty(m)
    for _ in range(max_iter):
        for j in range(m):
            expected = 0.0
            for i in range(k):
                expected += f[i] * a[i, j]
            ratio[j] = c[j] / expected if expected > 0.0 else 0.0
        total = 0.0
        for i in range(k):
            s = 0.0
            for j in range(m):
                s += a[i, j] * ratio[j]
            new[i] = f[i] * s
            total += new[i]
        if not total > 0.0:
            return f, False
        change = 0.0
        for i in range(k):
            value = new[i] / total
            change += abs(value - f[i])
            f[i] = value
        if change < tol:
            break
    return f, True
