"""numba kernels of `markovdp.guarantees.coefficients`: pure array functions, compiled on first use.

THEORY: BBGG-D1.1/D1.2 (finite closed form of the (gamma, eps)-Dobrushin coefficient), AAC-eta.

Imported only inside the functions that run them, so ``import markovdp`` does not import numba.

Cache blocking: one pair streams two rows, and a k x m matrix larger than the cache (k = m = 3000: 72 MB)
made a row-by-row pass memory bound. The all-pairs kernels take the rows i in tiles of `tile` rows that stay
in L2 while each row j > i is streamed once per tile, so memory traffic falls by the tile size. The sum over
y of each pair is the same loop as before (never split), and the max over j is order-free, so every pair's
value and every row maximum are bit-identical for every tile size, serial or parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .coefficients import _MODE_GAMMA, _MODE_SPLIT

# Pure array functions (DESIGN §9). Inputs are validated, finite, C-contiguous float64; `fastmath={"reassoc"}`
# only lets LLVM reorder the sums into SIMD lanes (no NaN/inf assumptions; measured 4x faster than without at
# k = 1000, same value to 1e-16). Inner loops are branch-free (`max`, a select): an `if` blocks vectorisation.

#: Bytes of L2 the tile of rows i may fill (this machine: 512 KiB L2 per core). One pass at k = m = 3000
#: (2 threads, best of 2, shared machine; tile 1 = the old row-by-row order): tile 1: 7.4 s, 2: 4.7 s, 4: 3.3 s,
#: 8: 2.6 s, 16: 2.3 s, 32: 2.3 s, 64: 2.2 s, 128: 2.4 s, 256: 2.4 s. 16 rows of 24 KB = 384 KiB. At k = m = 1000
#: (8 MB, in L3) tiles change nothing (0.08-0.10 s for every tile size).
TILE_BYTES = 384 * 1024


@njit(cache=True, fastmath={"reassoc"})
def _pair_gamma(P: np.ndarray, gamma: float, i: int, j: int) -> float:
    """max(E_gamma(P[i]||P[j]), E_gamma(P[j]||P[i])), both in one pass over y."""
    s_ij = 0.0
    s_ji = 0.0
    for y in range(P.shape[1]):
        a = P[i, y]
        b = P[j, y]
        s_ij += max(a - gamma * b, 0.0)
        s_ji += max(b - gamma * a, 0.0)
    return max(s_ij, s_ji)


@njit(cache=True)  # no reassoc: it would fold half * (half * b) into (half * half) * b = inf * b
def _pair_split(P: np.ndarray, half: float, i: int, j: int) -> float:
    """As `_pair_gamma`, gamma = half**2 applied as half * (half * b): e^eps overflows, e^(eps/2) not."""
    s_ij = 0.0
    s_ji = 0.0
    for y in range(P.shape[1]):
        a = P[i, y]
        b = P[j, y]
        s_ij += max(a - half * (half * b), 0.0)
        s_ji += max(b - half * (half * a), 0.0)
    return max(s_ij, s_ji)


@njit(cache=True, fastmath={"reassoc"})
def _pair_dinf(P: np.ndarray, i: int, j: int) -> float:
    """D_inf both ways: the mass of one row where the other is zero."""
    s_ij = 0.0
    s_ji = 0.0
    for y in range(P.shape[1]):
        a = P[i, y]
        b = P[j, y]
        s_ij += a if b == 0.0 else 0.0
        s_ji += b if a == 0.0 else 0.0
    return max(s_ij, s_ji)


@njit(cache=True)
def _pair(P: np.ndarray, mode: int, value: float, i: int, j: int) -> float:
    if mode == _MODE_GAMMA:
        return _pair_gamma(P, value, i, j)
    if mode == _MODE_SPLIT:
        return _pair_split(P, value, i, j)
    return _pair_dinf(P, i, j)


@njit(cache=True)
def _tile(P: np.ndarray, mode: int, value: float, rows: np.ndarray, r0: int, r1: int, out: np.ndarray,
          partner: np.ndarray) -> None:
    """For i = rows[r], r in [r0, r1) (rows ascending): out[r] = max_{j > i} of the pair value, partner[r] the
    first j attaining it (-1 if none). Row j is streamed once for the whole tile; j ascends, so ties keep the
    smallest j and the max is taken in the order a row scan takes it."""
    for r in range(r0, r1):
        out[r] = 0.0
        partner[r] = -1
    for j in range(rows[r0] + 1, P.shape[0]):
        for r in range(r0, r1):
            i = rows[r]
            if i >= j:
                break
            v = _pair(P, mode, value, i, j)
            if v > out[r] or partner[r] < 0:
                out[r] = max(out[r], v)
                partner[r] = j


@njit(cache=True)
def coefficient_rows(P: np.ndarray, mode: int, value: float, rows: np.ndarray, tile: int, out: np.ndarray,
                     partner: np.ndarray) -> None:
    """out[r] = max_{j > i} max(E(P[i]||P[j]), E(P[j]||P[i])) for i = rows[r] (ascending), partner[r] its j
    (-1 for the last row); with rows = 0..k-1 the coefficient is out.max(). Rows in tiles of `tile`."""
    n = rows.size
    for r0 in range(0, n, tile):
        _tile(P, mode, value, rows, r0, min(r0 + tile, n), out, partner)


@njit(cache=True, parallel=True)
def coefficient_rows_parallel(P: np.ndarray, mode: int, value: float, rows: np.ndarray, tile: int,
                              out: np.ndarray, partner: np.ndarray) -> None:
    """`coefficient_rows` over threads. With all rows, tile t costs about (k - t * tile) * tile pairs, so each
    task takes tiles t and n - 1 - t (equal work); each tile writes only its own slots, so the result is
    bit-identical to serial."""
    size = rows.size
    n = (size + tile - 1) // tile
    for t in prange((n + 1) // 2):
        _tile(P, mode, value, rows, t * tile, min(t * tile + tile, size), out, partner)
        u = n - 1 - t
        if u != t:
            _tile(P, mode, value, rows, u * tile, min(u * tile + tile, size), out, partner)


@njit(cache=True)
def _values_tile(P: np.ndarray, mode: int, value: float, rows: np.ndarray, r0: int, r1: int,
                 out: np.ndarray) -> None:
    """out[r, j] = the pair value of (rows[r], j) for j > rows[r], else 0, for r in [r0, r1); tiled as `_tile`."""
    for r in range(r0, r1):
        out[r, :] = 0.0
    for j in range(rows[r0] + 1, P.shape[0]):
        for r in range(r0, r1):
            i = rows[r]
            if i >= j:
                break
            out[r, j] = _pair(P, mode, value, i, j)


@njit(cache=True)
def pair_values(P: np.ndarray, mode: int, value: float, rows: np.ndarray, tile: int, out: np.ndarray) -> None:
    """Every pair value (rows[r], j > rows[r]) into out[r, j], as the pass computes it (0 below the diagonal);
    the pruned ldp_epsilon reads its candidate pairs off it."""
    n = rows.size
    for r0 in range(0, n, tile):
        _values_tile(P, mode, value, rows, r0, min(r0 + tile, n), out)


@njit(cache=True, parallel=True)
def pair_values_parallel(P: np.ndarray, mode: int, value: float, rows: np.ndarray, tile: int,
                         out: np.ndarray) -> None:
    """`pair_values` over threads (each tile writes only its own rows of `out`: bit-identical to serial)."""
    n = rows.size
    for t in prange((n + tile - 1) // tile):
        _values_tile(P, mode, value, rows, t * tile, min(t * tile + tile, n), out)


@njit(cache=True)
def pair_value(P: np.ndarray, mode: int, value: float, i: int, j: int) -> float:
    """One pair's value, as the pass computes it (used to re-check candidate pairs in place)."""
    return _pair(P, mode, value, i, j)
