"""Frequency estimation from local reports (SRP-Est): the target, the projection onto the simplex and the losses.

Heavy hitters estimate the empirical frequencies f(x) = (1/n) Σ_i 1(X_i = x) of fixed inputs (no distributional
assumption, l_inf loss); distribution estimation estimates p ∈ Delta_k from i.i.d. inputs (l1 and l2² loss).
Every oracle's ``estimate`` is unbiased for f; `project_simplex` is a separate step that trades bias for a
valid distribution.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_int, check_real, check_size, check_states, fail
from ...spaces import IncompatibleSpaces

__all__ = ["empirical_frequencies", "l1_error", "l2_squared_error", "linf_error", "project_simplex"]


def empirical_frequencies(x: ArrayLike, k: int) -> NDArray[np.float64]:
    """f(v) = (1/n) Σ_i 1(X_i = v) for v = 0..k-1: the heavy-hitter target of n >= 1 inputs in {0..k-1} (SRP-Est)."""
    size = check_int("k", k, minimum=1)
    check_size("k", size, size, what="the k frequencies")
    states = check_states("x", x, size).ravel()
    if states.size == 0:
        raise fail("x", "a non-empty array of inputs (n >= 1 users)", "an empty array")
    return np.bincount(states, minlength=size) / states.size


def project_simplex(f: ArrayLike) -> NDArray[np.float64]:
    """The Euclidean projection argmin_{w ∈ Delta_k} ||w − f||_2 of each vector along the last axis (SRP-Est).

    Exact, by sorting (Held–Wolfe–Crowder; Duchi et al. 2008): with u = f sorted in decreasing order,
    rho = max{j : u_j > (u_1 + … + u_j − 1)/j} and tau = (u_1 + … + u_rho − 1)/rho, the projection is
    w = max(f − tau, 0). It is the KKT point: f_i − w_i = tau where w_i > 0 and f_i <= tau where w_i = 0.

    The projected estimate is **biased** (it clips negative coordinates and shifts the rest): it never has a
    larger l2 error than f when the truth is a distribution (projection onto a convex set containing it), but
    E[project_simplex(f̂)] != p in general, unlike the oracles' unbiased estimates.
    """
    arr = np.asarray(check_real("f", f), dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise fail("f", "a non-empty vector (or an array of vectors along the last axis)", f"shape {arr.shape}")
    u = -np.sort(-arr, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, arr.shape[-1] + 1)
    rho = np.max(np.where(u * j > css, j, 0), axis=-1, keepdims=True)  # j = 1 always qualifies: rho >= 1
    tau = np.take_along_axis(css, rho - 1, axis=-1) / rho
    return np.maximum(arr - tau, 0.0)


def _difference(estimate: ArrayLike, truth: ArrayLike) -> NDArray[np.float64]:
    est = np.asarray(check_real("estimate", estimate), dtype=np.float64)
    tru = np.asarray(check_real("truth", truth), dtype=np.float64)
    if est.ndim == 0 or tru.ndim == 0:
        raise fail("estimate" if est.ndim == 0 else "truth", "a vector of frequencies", "a scalar")
    if est.shape[-1] != tru.shape[-1]:
        raise IncompatibleSpaces(f"`estimate` has {est.shape[-1]} frequencies but `truth` has {tru.shape[-1]}.")
    return est - tru


def l1_error(estimate: ArrayLike, truth: ArrayLike) -> float | NDArray[np.float64]:
    """Σ_x |estimate(x) − truth(x)| along the last axis (distribution estimation, SRP-Est); twice the TV."""
    return _reduced(np.abs(_difference(estimate, truth)).sum(axis=-1))


def l2_squared_error(estimate: ArrayLike, truth: ArrayLike) -> float | NDArray[np.float64]:
    """Σ_x (estimate(x) − truth(x))² along the last axis (SRP-Est: order k/(n eps²) for eps = O(1))."""
    return _reduced(np.square(_difference(estimate, truth)).sum(axis=-1))


def linf_error(estimate: ArrayLike, truth: ArrayLike) -> float | NDArray[np.float64]:
    """max_x |estimate(x) − truth(x)| along the last axis (heavy hitters, SRP-Est)."""
    return _reduced(np.abs(_difference(estimate, truth)).max(axis=-1))


def _reduced(value: NDArray[np.float64]) -> float | NDArray[np.float64]:
    return float(value) if np.ndim(value) == 0 else value


def _report_counts(name: str, reports: ArrayLike, m: int) -> tuple[NDArray[np.int64], int]:
    """(counts of each report value in {0..m-1}, n) for n >= 1 reports: the input of every oracle's estimate.

    Integer reports are counted and range-checked in one numba pass (`_frequency_kernels.value_counts`); other
    kinds, and reports outside the range, go through `check_states`, which names the offending value."""
    arr = np.asarray(reports)
    if arr.size and arr.dtype != bool and np.issubdtype(arr.dtype, np.integer):
        from ._frequency_kernels import value_counts  # numba: imported where used

        counts, ok = value_counts(np.ascontiguousarray(arr).reshape(-1), m)
        if ok:
            return counts, arr.size
    values = check_states(name, arr, m).ravel()
    if values.size == 0:
        raise fail(name, "a non-empty array of reports (n >= 1 users)", "an empty array")
    return np.bincount(values, minlength=m), values.size


def _bitmap_counts(reports: ArrayLike, k: int, what: str, ones: int | None = None) -> tuple[NDArray[np.int64], int]:
    """(c, n): the column counts c_j = Σ_i reports[i, j] of n >= 1 reports of k bits (bool or integer 0/1), each
    row holding exactly `ones` ones when given; counted and checked in one numba pass
    (`_frequency_kernels.bitmap_counts`). ValueError/TypeError naming the shape, the kind or a bad entry or row."""
    arr = np.asarray(reports)
    if arr.ndim != 2 or arr.shape[1] != k or arr.shape[0] == 0:
        raise fail("reports", f"an (n, {k}) array of {what} with n >= 1", f"shape {arr.shape}")
    if arr.dtype != bool and not np.issubdtype(arr.dtype, np.integer):
        raise fail("reports", "bits (bool or integer 0/1)", f"dtype {arr.dtype}", TypeError)
    from ._frequency_kernels import bitmap_counts  # numba: imported where used

    counts, status = bitmap_counts(np.ascontiguousarray(arr.view(np.uint8) if arr.dtype == bool else arr),
                                   -1 if ones is None else ones)
    if status:  # the checks in their documented order, naming the first offender
        if arr.dtype != bool and (arr.min() < 0 or arr.max() > 1):
            raise fail("reports", "bits in {0, 1}", int(arr[(arr < 0) | (arr > 1)][0]))
        sizes = arr.sum(axis=1, dtype=np.int64)
        raise fail("reports", f"rows with exactly d = {ones} ones", f"a row with {int(sizes[sizes != ones][0])}")
    return counts, arr.shape[0]


def _estimator_gap(p: float, q: float) -> float:
    """p − q, the slope of an oracle's report frequency in the input frequency; 0 (eps = 0, or an eps so small
    that p and q round to one double) leaves no unbiased estimator: a ValueError naming `eps`."""
    gap = p - q
    if gap <= 0.0:
        raise ValueError("`eps` must be > 0 to estimate: at eps = 0 the reports do not depend on the input "
                         "(p = q), so no unbiased estimator exists.")
    return gap


def _require_informative(eps: float) -> None:
    """At eps = 0 the reports do not depend on the inputs: no unbiased frequency estimator exists."""
    if eps == 0.0:
        raise fail("eps", "> 0 for an unbiased estimate (at eps = 0 the reports are independent of the inputs)",
                   eps)


def _support_rates(k: int, p: float, q: float) -> NDArray[np.float64]:
    """A[x, v] = P(report supports v | X = x) of a pure oracle with support counts: p on the diagonal, q off it
    (k × k; E[c / n] = f A, what the iterative Bayesian update reads)."""
    rates = np.full((k, k), q)
    np.fill_diagonal(rates, p)
    return rates


def _checked_support_counts(counts: ArrayLike, k: int, n: int, what: str) -> tuple[NDArray, int]:
    """(counts as an array, n) after checking a length-k array of counts in [0, n] of n >= 1 reports."""
    users = check_int("n", n, minimum=1)
    c = np.asarray(counts)
    if c.shape != (k,) or not (np.issubdtype(c.dtype, np.integer) or np.issubdtype(c.dtype, np.floating)):
        raise fail("counts", f"a length-{k} array of {what}", f"shape {c.shape}")
    if not np.all((c >= 0) & (c <= users)):
        raise fail("counts", f"counts in [0, n] = [0, {users}]", c[~((c >= 0) & (c <= users))][0])
    return c, users
