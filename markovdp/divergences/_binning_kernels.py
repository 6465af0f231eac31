"""numba kernels of the binned estimators (imported inside `estimate`): order statistics and bin counts.

Values are located on a *grid* of G cells of equal width, ``cell(y) = clamp(floor((y − low) · scale), 0,
G − 1)``, computed in SIMD lanes a block at a time. Floating-point subtraction and multiplication by a positive
constant are monotone, and so are floor and clamp, so for any cut point c: cell(c) < cell(y) implies c < y,
and cell(c) > cell(y) implies c > y, whatever the rounding. Hence a value whose cell holds no cut point lies
between the same cut points as its whole cell, and only values in a cell that holds one need comparisons:

* `order_statistics`: one pass counts the cells; the cells that hold the requested ranks are read off the
  counts, and only their values are gathered (a second pass) and sorted.
* `bin_counts`: a table gives each cell's bin, or marks that it holds an edge; one pass counts the bins, with
  a binary search among the edges of a marked cell. Given the cell counts and the gathered cells of
  `order_statistics` for the halves whose order statistics gave the edges, those halves need no pass: an edge
  interpolated between x_(i) and x_(i+1) lies in a cell holding one of them (gathered), or in a cell between
  them, which holds no value.

Exact for every input (ties, outliers, a degenerate range): the grid only decides how much work is done. The
passes also count the values that are not finite (from their bits, in the same SIMD lanes: no pass of its own);
with one, the results are meaningless and the caller reports it. The edges must be finite, strictly increasing
and fewer than 2^15 − 1 (the cell-to-bin table holds int16).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Values per block: the cells of a block are computed into a buffer that stays in L1, then used.
CHUNK = 2048
#: Most edges `bin_counts` takes (its table of bins per cell holds int16, to stay in L1).
MAX_EDGES = 2**15 - 2


def grid_scale(low: float, high: float, cells: int) -> tuple[float, int]:
    """(scale, cells) of a grid of `cells` equal cells on [low, high]: one cell (scale 0) when the width is 0,
    not finite, or so small that the scale overflows."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        scale = float(np.float64(cells) / (np.float64(high) - np.float64(low)))
    if not 0.0 < scale < np.inf:
        return 0.0, 1
    return scale, cells


_EXPONENT = np.uint64(0x7FF0000000000000)


@njit(cache=True, inline="always")
def _cells(y: np.ndarray, bits: np.ndarray, low: float, scale: float, top: float, out: np.ndarray) -> int:
    """out[i] = clamp(floor((y[i] − low) · scale), 0, top) for every i of y (y is a block's view: SIMD lanes), and
    the number of non-finite y[i] (bits: y viewed as uint64; all exponent bits set means NaN or ±inf).

    Any double maps into [0, top]: NaN to 0 (the first clamp), ±inf to an end; a scale of 0 (one cell) maps
    everything to 0, also inf · 0 = NaN."""
    bad = 0
    for i in range(y.size):
        t = (y[i] - low) * scale
        t = t if t > 0.0 else 0.0
        t = t if t < top else top
        out[i] = np.int32(t)
        bad += (bits[i] & _EXPONENT) == _EXPONENT
    return bad


@njit(cache=True, nogil=True)
def order_statistics(a: np.ndarray, b: np.ndarray, ranks: np.ndarray, low: float, scale: float, cells: int,
                     limit: int) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]:
    """(x_(r) for r in `ranks`, status, counts, offset, gathered): order statistics (0-based, increasing ranks in
    [0, n)) of the n = a.size + b.size values of a and b together — numpy's
    ``np.sort(np.concatenate((a, b)))[ranks]`` — on the grid (low, scale, cells).

    counts (2, cells): the cell counts of a (row 0) and b (row 1). The values of each cell g holding a rank
    are gathered[offset[g]:offset[g] + counts[0, g]] (from a) followed by the next counts[1, g] (from b);
    offset is −1 for the other cells. status 0: done; 1: the gathered cells would hold more than `limit` values
    (data concentrated in a few cells: the caller partitions instead); 2: a value is not finite. Only `counts`
    is computed for status 1, nothing else for status 2."""
    counts = np.zeros((2, cells), dtype=np.int64)
    stats = np.empty(ranks.size)
    buf = np.empty(CHUNK, dtype=np.int32)
    top = float(cells - 1)
    bad = 0
    for side in range(2):
        y = a if side == 0 else b
        bits = y.view(np.uint64)
        out = counts[side]
        for c0 in range(0, y.size, CHUNK):
            c1 = min(c0 + CHUNK, y.size)
            bad += _cells(y[c0:c1], bits[c0:c1], low, scale, top, buf)
            for j in range(c1 - c0):
                out[buf[j]] += 1
    if bad:
        return stats, 2, counts, np.empty(0, dtype=np.int64), np.empty(0)
    below = np.zeros(cells + 1, dtype=np.int64)  # below[g]: values in cells < g
    for g in range(cells):
        below[g + 1] = below[g] + counts[0, g] + counts[1, g]
    cell = np.searchsorted(below, ranks, side="right") - 1  # the cell of each rank
    offset = np.full(cells, -1, dtype=np.int64)
    wanted = np.zeros(cells, dtype=np.uint8)
    total = 0
    for g in cell:
        if not wanted[g]:
            wanted[g] = 1
            offset[g] = total
            total += below[g + 1] - below[g]
    if total > limit:
        return stats, 1, counts, offset, np.empty(0)
    gathered = np.empty(total)
    fill = offset.copy()
    for side in range(2):
        y = a if side == 0 else b
        bits = y.view(np.uint64)
        if side == 1:
            for g in range(cells):
                if wanted[g]:
                    fill[g] = offset[g] + counts[0, g]
        for c0 in range(0, y.size, CHUNK):
            c1 = min(c0 + CHUNK, y.size)
            _cells(y[c0:c1], bits[c0:c1], low, scale, top, buf)
            for j in range(c1 - c0):
                g = buf[j]
                if wanted[g]:
                    gathered[fill[g]] = y[c0 + j]
                    fill[g] += 1
    sorted_cell = np.empty(0)
    for j in range(ranks.size):
        g = cell[j]
        if j == 0 or g != cell[j - 1]:  # ranks increase: each wanted cell is sorted once
            sorted_cell = np.sort(gathered[offset[g]:offset[g] + below[g + 1] - below[g]])
        stats[j] = sorted_cell[ranks[j] - below[g]]
    return stats, 0, counts, offset, gathered


@njit(cache=True, inline="always")
def _search(edges: np.ndarray, lo: int, hi: int, v: float) -> int:
    """The first index in [lo, hi) whose edge exceeds v (hi if none): a binary search."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _cell_bins(edges: np.ndarray, low: float, scale: float, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """(first_edge, bin_of): first_edge[g] = edges in cells < g (cells + 1 entries); bin_of[g] the bin of every
    value of cell g, or −1 where g holds an edge."""
    ecells = np.empty(edges.size, dtype=np.int32)
    _cells(edges, edges.view(np.uint64), low, scale, float(cells - 1), ecells)
    first_edge = np.zeros(cells + 1, dtype=np.int64)
    for e in ecells:
        first_edge[e + 1] += 1
    for g in range(cells):
        first_edge[g + 1] += first_edge[g]
    bin_of = np.empty(cells, dtype=np.int16)
    for g in range(cells):
        bin_of[g] = first_edge[g] if first_edge[g] == first_edge[g + 1] else -1
    return first_edge, bin_of


@njit(cache=True)
def _count_pass(y: np.ndarray, edges: np.ndarray, low: float, scale: float, first_edge: np.ndarray,
                bin_of: np.ndarray, out: np.ndarray) -> int:
    """out[j] += #{i : y[i] in bin j} (bin j = ``searchsorted(edges, y, side="right")``), one pass; returns the
    number of non-finite y[i] (out is meaningless then)."""
    buf = np.empty(CHUNK, dtype=np.int32)
    top = float(bin_of.size - 1)
    bits = y.view(np.uint64)
    bad = 0
    for c0 in range(0, y.size, CHUNK):
        c1 = min(c0 + CHUNK, y.size)
        bad += _cells(y[c0:c1], bits[c0:c1], low, scale, top, buf)
        for j in range(c1 - c0):
            k = np.int64(bin_of[buf[j]])
            if k < 0:
                g = buf[j]
                k = _search(edges, first_edge[g], first_edge[g + 1], y[c0 + j])
            out[k] += 1
    return bad


@njit(cache=True, nogil=True)
def bin_counts(p: np.ndarray, q: np.ndarray, cut_p: int, cut_q: int, edges: np.ndarray, low: float,
               scale: float, cells: int) -> tuple[np.ndarray, bool]:
    """((4, m) int64, finite), m = edges.size + 1: counts of the bins ``searchsorted(edges, y, side="right")`` of
    p[:cut_p], p[cut_p:], q[:cut_q], q[cut_q:] (rows in this order), on the grid (low, scale, cells), and whether
    every value is finite (the counts are meaningless otherwise)."""
    first_edge, bin_of = _cell_bins(edges, low, scale, cells)
    counts = np.zeros((4, edges.size + 1), dtype=np.int64)
    bad = _count_pass(p[:cut_p], edges, low, scale, first_edge, bin_of, counts[0])
    bad += _count_pass(p[cut_p:], edges, low, scale, first_edge, bin_of, counts[1])
    bad += _count_pass(q[:cut_q], edges, low, scale, first_edge, bin_of, counts[2])
    bad += _count_pass(q[cut_q:], edges, low, scale, first_edge, bin_of, counts[3])
    return counts, bad == 0


@njit(cache=True, nogil=True)
def bin_counts_gathered(p: np.ndarray, q: np.ndarray, cut_p: int, cut_q: int, edges: np.ndarray, low: float,
                        scale: float, counts: np.ndarray, offset: np.ndarray,
                        gathered: np.ndarray) -> tuple[np.ndarray, bool]:
    """`bin_counts` on the grid of `order_statistics`(p[:cut_p], q[:cut_q], …), whose counts, offset and gathered
    give the rows of the first halves without a pass over them (module docstring; `order_statistics` found them
    finite); the second halves get a pass. Should an edge's cell hold first-half values without having been
    gathered, those rows get a pass."""
    cells = counts.shape[1]
    first_edge, bin_of = _cell_bins(edges, low, scale, cells)
    out = np.zeros((4, edges.size + 1), dtype=np.int64)
    complete = True
    for g in range(cells):
        k = bin_of[g]
        if k >= 0:
            out[0, k] += counts[0, g]
            out[2, k] += counts[1, g]
        elif offset[g] >= 0:
            split = offset[g] + counts[0, g]  # values of p, then of q
            for i in range(offset[g], split + counts[1, g]):
                out[0 if i < split else 2, _search(edges, first_edge[g], first_edge[g + 1], gathered[i])] += 1
        elif counts[0, g] + counts[1, g] > 0:
            complete = False
    bad = 0
    if not complete:
        out[0] = 0
        out[2] = 0
        bad += _count_pass(p[:cut_p], edges, low, scale, first_edge, bin_of, out[0])
        bad += _count_pass(q[:cut_q], edges, low, scale, first_edge, bin_of, out[2])
    bad += _count_pass(p[cut_p:], edges, low, scale, first_edge, bin_of, out[1])
    bad += _count_pass(q[cut_q:], edges, low, scale, first_edge, bin_of, out[3])
    return out, bad == 0
