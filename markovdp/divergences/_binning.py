"""Counts of the two halves of samples in bins: the input of every binned estimator of `estimate` (DESIGN §6).

Row 0 counts the first ``n // 2`` samples (the selection half), row 1 the rest. Bin j of a continuous sample is
[e_j, e_{j+1}) with e_0 = −inf and e_m = +inf (numpy's ``searchsorted(edges, y, side="right")``); the default
edges are the equal-probability quantiles of the pooled selection halves. For float64 samples the counts come
from numba passes over the values (`_binning_kernels`) instead of a sort and a search per value, with the same
counts and the same edges bit for bit (tests/test_estimate_binning.py holds them against numpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["all_finite", "binned_counts", "halves", "quantile_counts", "split_counts_of"]

#: Evenly strided values of the pooled selection halves whose sorted order places the grid of the quantiles.
GRID_SAMPLE = 4096


def halves(samples: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The first ``n // 2`` samples and the rest."""
    cut = samples.size // 2
    return samples[:cut], samples[cut:]


def split_counts_of(cells: NDArray[np.int64], m: int) -> NDArray[np.int64]:
    """Counts over {0..m-1} of the first ``n // 2`` cells (row 0) and of the rest (row 1)."""
    return np.stack([np.bincount(half, minlength=m) for half in halves(cells)]).astype(np.int64)


def _search_counts(samples: NDArray[Any], interior: NDArray[np.float64]) -> NDArray[np.int64]:
    """numpy's counts: bin j of each sample by ``searchsorted(interior, y, side="right")``, then `split_counts_of`."""
    cells = np.searchsorted(interior, samples, side="right").astype(np.int64)
    return split_counts_of(cells, interior.size + 1)


Counts = tuple[NDArray[np.int64], NDArray[np.int64]]


def binned_counts(xp: NDArray[Any], xq: NDArray[Any], interior: NDArray[np.float64]) -> Counts | None:
    """(2, m) counts of the halves of two samples in the bins between the increasing finite `interior` edges.

    Float64 samples: one numba pass (`_binning_kernels.bin_counts`) on a grid of cells of width
    (e_last − e_first) / cells over [e_first, e_last], plus one cell below and one above, so that no edge shares
    its cell with the clamped tails; about 128 cells per edge leave few values to compare with an edge. The pass
    also checks that the samples are finite: None if they are not.
    """
    from . import _binning_kernels as kernels  # numba: imported where used

    if not (xp.dtype == xq.dtype == np.float64) or not 0 < interior.size <= kernels.MAX_EDGES:
        if not (all_finite(xp) and all_finite(xq)):
            return None
        return _search_counts(xp, interior), _search_counts(xq, interior)
    scale, cells = kernels.grid_scale(interior[0], interior[-1], min(max(128 * interior.size, 16), 2**14))
    low = interior[0] - 1.0 / scale if cells > 1 else interior[0]
    counts, finite = kernels.bin_counts(np.ascontiguousarray(xp), np.ascontiguousarray(xq), xp.size // 2,
                                        xq.size // 2, interior, low, scale, cells + 2 if cells > 1 else 1)
    return (counts[:2], counts[2:]) if finite else None


def all_finite(x: NDArray[Any]) -> bool:
    """Whether every sample is finite: one vectorised numba pass for float64 (numpy's isfinite allocates a mask)."""
    if x.dtype == np.float64:
        from ._estimate_kernels import all_finite as one_pass  # numba: imported where used

        return bool(one_pass(np.ascontiguousarray(x)))
    return bool(np.isfinite(x).all()) if np.issubdtype(x.dtype, np.floating) else True


def quantile_counts(xp: NDArray[Any], xq: NDArray[Any], bins: int) -> Counts | None:
    """(2, m) counts of the halves of two samples in `bins` equal-probability bins of their pooled selection
    halves: the bins between ``np.unique(np.quantile(pool, np.arange(1, bins) / bins))``; None if a sample is not
    finite (float64 samples are checked on the way).

    numpy's default quantile ("linear", Hyndman–Fan type 7) of n values sorted as x_(0) <= … <= x_(n−1) at level
    q: h = (n − 1) q, i = floor(h), g = h − i, the value x_(i) + g (x_(i+1) − x_(i)), evaluated as numpy's
    ``_lerp`` does (x_(i+1) − (x_(i+1) − x_(i)) (1 − g) where g >= 1/2), and x_(n−1) where h >= n − 1 (numpy then
    sets i = −1, so g = h + 1): the same edges bit for bit. For float64 samples the order statistics x_(i) come
    from numba (`_binning_kernels.order_statistics`, on a grid of cells spanning the ranks' range in an evenly
    strided subsample of `GRID_SAMPLE` values, widened by 1/128 of it on each side) instead of a partition of the
    pool, and the selection halves' counts from its cell counts (`bin_counts_gathered`); where the cells holding
    the ranks hold more than an eighth of the pool (ties, values concentrated in a few cells) numpy partitions.
    """
    from . import _binning_kernels as kernels  # numba: imported where used

    xp, xq = np.ascontiguousarray(xp), np.ascontiguousarray(xq)
    first_p, first_q = halves(xp)[0], halves(xq)[0]
    n = first_p.size + first_q.size
    levels = np.arange(1, bins) / bins
    if not (xp.dtype == xq.dtype == np.float64) or n == 0 or levels.size == 0:
        if not (all_finite(xp) and all_finite(xq)):
            return None
        interior = np.unique(np.quantile(np.concatenate([first_p, first_q]), levels)) if n else np.empty(0)
        return binned_counts(xp, xq, interior)
    h = (n - 1) * levels
    floor = np.floor(h)
    top = h >= n - 1
    gamma = h - np.where(top, -1.0, floor)
    lower = np.where(top, n - 1, floor).astype(np.int64)
    upper = np.where(top, n - 1, floor + 1).astype(np.int64)
    ranks = np.unique(np.concatenate([lower, upper]))
    s = min(GRID_SAMPLE, n)
    at = (np.arange(s) * n) // s
    sub = np.sort(np.concatenate([first_p[at[at < first_p.size]], first_q[at[at >= first_p.size] - first_p.size]]))
    pad = s // 128
    low = float(sub[max(ranks[0] * (s - 1) // n - pad, 0)])
    high = float(sub[min(-(-ranks[-1] * (s - 1) // n) + pad, s - 1)])
    scale, cells = kernels.grid_scale(low, high, min(max(n // 64, 16), 2**14))
    stats, status, counts, offset, gathered = kernels.order_statistics(first_p, first_q, ranks, low, scale, cells,
                                                                       max(n // 8, 2**16))
    if status == 2:
        return None
    done = status == 0
    if not done:
        pool = np.concatenate([first_p, first_q])
        pool.partition(ranks)
        stats = pool[ranks]
    a, b = stats[np.searchsorted(ranks, lower)], stats[np.searchsorted(ranks, upper)]
    diff = b - a
    edges = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=edges, where=gamma >= 0.5)
    interior = np.unique(edges)
    if not done or interior.size > kernels.MAX_EDGES:
        return binned_counts(xp, xq, interior)
    out, finite = kernels.bin_counts_gathered(xp, xq, first_p.size, first_q.size, interior, low, scale, counts,
                                              offset, gathered)
    return (out[:2], out[2:]) if finite else None
