"""numba kernels for finite kernels: inverse-CDF sampling (pure array functions, DESIGN §9)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cumulative_rows(matrix: np.ndarray, out: np.ndarray) -> None:
    """out[x] = running sum of matrix[x] with the last entry forced to exactly 1."""
    k, m = matrix.shape
    for x in range(k):
        total = 0.0
        for y in range(m):
            total += matrix[x, y]
            out[x, y] = total
        # Rows sum to 1 within 1e-12: pin the end so u < 1 always lands inside the row.
        out[x, m - 1] = 1.0


@njit(cache=True)
def sample_rows(cdf: np.ndarray, x: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """out[i] ~ row x[i] of the kernel: binary search of uniforms[i] in [0, 1) in the row's CDF.

    The uniforms are drawn in bulk by numpy (its fastest path) rather than one call per draw.
    """
    m = cdf.shape[1]
    for i in range(x.shape[0]):
        u = uniforms[i]
        row = x[i]
        lo, hi = 0, m - 1
        while lo < hi:  # first y with cdf[row, y] > u
            mid = (lo + hi) >> 1
            if cdf[row, mid] > u:
                hi = mid
            else:
                lo = mid + 1
        out[i] = lo
