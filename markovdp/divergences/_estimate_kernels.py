"""numba one-pass sums of the R^d estimators (imported inside `estimate_events` / `estimate_density_ratio`).

Each kernel reads its n values once and allocates nothing of size n, so an estimator costs a fraction of
drawing its samples (issue 6 §5).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def split_cell_counts(y: np.ndarray, low: float, scale: float, m: int, cut: int) -> np.ndarray:
    """Counts (2, m) of the cells of y: row 0 for y[:cut], row 1 for the rest.

    Cell 0 is (−inf, low), cells 1..m−2 have width 1/scale, cell m−1 is the rest; m = 2 splits at `low`.
    """
    counts = np.zeros((2, m), dtype=np.int64)
    top = m - 1.0
    for i in range(y.size):
        row = 0 if i < cut else 1
        if m == 2:
            counts[row, 1 if y[i] >= low else 0] += 1
        else:
            t = min(max((y[i] - low) * scale + 1.0, 0.0), top)
            counts[row, int(t)] += 1
    return counts


@njit(cache=True)
def hockey_stick_term_sums(loss: np.ndarray, eps: float) -> tuple[float, float]:
    """(Σ T_i, Σ T_i²) of T_i = (1 − e^{eps − L_i})_+, each in [0, 1] with absolute error <= 2^-53.

    (1 − exp rather than −expm1: the relative accuracy of tiny terms does not matter in a mean of [0, 1]
    terms, and exp is faster.)
    """
    s1 = 0.0
    s2 = 0.0
    for i in range(loss.size):
        if loss[i] > eps:
            t = 1.0 - math.exp(eps - loss[i])
            s1 += t
            s2 += t * t
    return s1, s2


@njit(cache=True)
def weight_sums(loss: np.ndarray, a: float, top: float) -> tuple[float, float]:
    """(Σ u_i, Σ u_i²) of u_i = e^{a (L_i − top)} (in [0, 1] when top = max L and a > 0)."""
    s1 = 0.0
    s2 = 0.0
    for i in range(loss.size):
        u = math.exp(a * (loss[i] - top))
        s1 += u
        s2 += u * u
    return s1, s2
