"""The iterative Bayesian update (IBU; Agrawal & Aggarwal 2001): expectation–maximisation for frequencies from
local reports, beside the oracles' unbiased estimators (STD-IBU; SRP-Est).

From counts c of a report statistic with E[c / n] = f A (A: k × m, rows the inputs), iterate

    f ← normalise(f ⊙ A (c / (fA)))

from the uniform f. For A the channel (the statistic is the report itself: GRR, HR, BH) this is EM for the
multinomial likelihood of f, so each step stays in the simplex and never lowers the likelihood; for a per-label
support statistic (unary encoding, subset selection, local hashing: c_v = #{reports supporting v}) it is the same
fixed-point map on the support counts (a composite likelihood, as in multi-freq-ldpy). Either way the truth is a
fixed point on exact expected counts c = n f A: fA = c / n makes the ratio n, and f ⊙ (A 1) n normalises back to f
when A's row sums are equal (a channel: 1; support statistics: p + (k − 1) q for every row).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_int, check_positive, check_real, check_vector, fail
from .frequency import _report_counts

__all__ = ["ibu", "ibu_estimate", "oracle_count_statistics"]


def oracle_count_statistics(oracle: Any, reports: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(c, A) of an oracle's reports: its ``count_statistics(reports)`` where it has one, else the counts of the
    report values over the columns of its finite ``channel`` (A = the channel matrix)."""
    own = getattr(oracle, "count_statistics", None)
    if own is not None:
        counts, rates = own(reports)
        return np.asarray(counts), np.asarray(rates, dtype=np.float64)
    matrix = getattr(getattr(oracle, "channel", None), "matrix", None)
    if matrix is None:
        raise TypeError(f"`oracle` must have a finite `channel` (with `.matrix`) or a `count_statistics(reports)` "
                        f"method for the iterative Bayesian update; got {type(oracle).__name__}.")
    matrix = np.asarray(matrix, dtype=np.float64)
    counts, _ = _report_counts("reports", reports, matrix.shape[1])
    return counts, matrix


def ibu(counts: ArrayLike, rates: ArrayLike, *, tol: float = 1e-10, max_iter: int = 10_000) -> NDArray[np.float64]:
    """The IBU fixed point from counts c (length m) and the k × m rate matrix A (E[c / n] = f A), module docstring.

    Stops when the l1 change of f falls below `tol` or after `max_iter` steps; the result lies in the simplex.
    """
    a = np.asarray(check_real("rates", rates), dtype=np.float64)
    if a.ndim != 2 or a.size == 0 or np.any(a < 0):
        raise fail("rates", "a non-empty k × m matrix of non-negative finite rates", f"shape {a.shape}")
    c = check_vector("counts", counts)
    if c.shape != (a.shape[1],) or np.any(c < 0) or c.sum() <= 0:
        raise fail("counts", f"{a.shape[1]} non-negative counts (one per column of `rates`), not all 0", c)
    tolerance = check_positive("tol", tol)
    steps = check_int("max_iter", max_iter, minimum=1)
    from ._frequency_kernels import ibu_iterations  # numba: imported here, so `import markovdp` stays light

    steps = min(steps, 2**62)  # the compiled loop counts in int64; no run reaches 2^62 steps
    f, ok = ibu_iterations(np.ascontiguousarray(c, dtype=np.float64), np.ascontiguousarray(a), tolerance, steps)
    if not ok:
        raise fail("counts", "counts that some input can produce (positive expected rate)", "counts of rate 0")
    return f


def ibu_estimate(oracle: Any, reports: ArrayLike, *, tol: float = 1e-10, max_iter: int = 10_000) -> NDArray[np.float64]:
    """The iterative Bayesian update of a frequency oracle's reports (`oracle_count_statistics`, `ibu`): a biased
    estimate in the simplex, beside the unbiased ``oracle.estimate(reports)`` (STD-IBU)."""
    counts, rates = oracle_count_statistics(oracle, reports)
    return ibu(counts, rates, tol=tol, max_iter=max_iter)
