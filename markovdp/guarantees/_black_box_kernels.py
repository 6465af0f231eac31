"""STD-BlackBoxExact kernel: the worst case of every (eps0, delta0)-DP mechanism post-processed by K.

``delta*(eps) = max over maps t = (x0, x1, x2, x3) in [k]^4 of Σ_y [a_y − e^eps b_y]_+`` with
``a = Σ_i P_i K[x_i]``, ``b = Σ_i Q_i K[x_i]`` (P, Q the canonical pair, STD-DominatingPair). Only the
*free* points (P_i + Q_i > 0) are enumerated, the others map to input 0: k^2 maps when delta0 = 0. No map is
pruned by symmetry, since there is none: reversing t swaps a and b (E_gamma(b||a), not E_gamma(a||b)), and with
delta0 = 0 the maps (x1, x2) and (x2, x1) differ in general (tests/test_black_box.py shows a case). Maps are
skipped only by an exact branch and bound (`_worst_case`), which leaves every value and argmax bit-identical.
Imported only where the enumeration runs (`pair_maxima`), so ``import markovdp`` does not import numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .._validation import ROW_SUM_TOL, check_eps, check_range, check_stochastic_matrix, fail

#: The largest number of (map, output) pairs, k^(free points) · m, enumerated: k = m = 64 with four free points
#: (measured about 1 s per eps), k = m = 1024 with two (about 3 s per eps; the pruning rarely helps there).
#: Beyond it `worst_case_hockey_stick` raises NotImplementedError.
MAX_WORK = 2**30

# e^eps is a finite double up to here; beyond it (and at eps = inf) the terms are taken in log space.
_EXP_MAX = math.log(np.finfo(np.float64).max)


@njit(cache=True)
def _add_terms(a: float, b: float, gamma: np.ndarray, log_eps: np.ndarray, total: np.ndarray) -> None:
    """total[j] += the hockey-stick term of the output pair (a, b) at the j-th eps: gamma (= e^eps, finite)
    first, then log_eps (eps where e^eps overflows, or inf).

    Direct terms ``max(a − gamma b, 0)``: where gamma is a finite double this is the more accurate form (an
    absolute error of at most about 3 u a per term, u = 2^-53, since gamma b < a wherever the term is positive;
    the log form below adds about u a (|log a| + |log b|) through the rounding of log a − log b), and its loop
    over eps is branch-free, so LLVM vectorises it without fastmath.
    Log terms (as hockey_stick_finite): ``−a expm1(eps − (log a − log b))`` where that log-ratio exceeds eps,
    and ``a`` where b = 0 (D_inf at eps = inf). Every term is non-decreasing in a and non-increasing in b.
    """
    n_direct = gamma.size
    for j in range(n_direct):
        total[j] += max(a - gamma[j] * b, 0.0)
    if log_eps.size == 0 or a <= 0.0:
        return
    if b == 0.0:
        for j in range(log_eps.size):
            total[n_direct + j] += a
        return
    log_ratio = math.log(a) - math.log(b)  # not log(a / b): the ratio overflows for subnormal b
    for j in range(log_eps.size):
        if log_ratio > log_eps[j]:
            total[n_direct + j] -= a * math.expm1(log_eps[j] - log_ratio)


@njit(cache=True)
def _worst_case(P: np.ndarray, Q: np.ndarray, K: np.ndarray, free: np.ndarray, gamma: np.ndarray,
                log_eps: np.ndarray, values: np.ndarray, argmax: np.ndarray) -> None:
    """values[j] = max over maps t of Σ_y term_j(a_y, b_y), argmax[j] = the first map (row-major over `free`)
    attaining it (see `_add_terms` for j).

    The last free point varies fastest, from prefix sums pa, pb over the others. Branch and bound: every
    completion of a prefix has a_y <= pa_y + P_last max_x K[x, y] and b_y >= pb_y + Q_last min_x K[x, y], and
    every term is non-decreasing in a and non-increasing in b; products and sums of non-negative doubles round
    monotonically, so the prefix's value at those column extremes bounds its k completions *in floating
    point*. The completions are evaluated only at the eps where that bound beats the best so far: no skipped
    map is strictly better, so values and argmax are bit-identical to the full enumeration. (For the canonical
    pair P_3 = 0, and the bound is tight where some row of K attains every column minimum.)
    """
    k, m = K.shape
    n_free = free.size
    n_direct = gamma.size
    n_total = values.size
    last = free[n_free - 1]
    col_min = np.empty(m)
    col_max = np.empty(m)
    for y in range(m):
        col_min[y] = K[0, y]
        col_max[y] = K[0, y]
        for x in range(1, k):
            col_min[y] = min(col_min[y], K[x, y])
            col_max[y] = max(col_max[y], K[x, y])
    bound = np.empty(n_total)
    total = np.empty(n_total)
    open_eps = np.empty(n_total, dtype=np.int64)  # the eps still open for this prefix, direct ones first,
    gamma_open = np.empty(n_direct)  # with their e^eps
    log_open = np.empty(n_total - n_direct)  # and their eps (log terms)
    pa = np.empty(m)
    pb = np.empty(m)
    t = np.zeros(4, dtype=np.int64)
    values[:] = -1.0  # every map's value is >= 0, so the first map always records an argmax
    n_prefixes = 1
    for _ in range(n_free - 1):
        n_prefixes *= k
    for n in range(n_prefixes):
        r = n
        for i in range(n_free - 2, -1, -1):
            t[free[i]] = r % k
            r //= k
        bound[:] = 0.0
        for y in range(m):
            a = 0.0
            b = 0.0
            for i in range(last):  # the points after `last` carry no mass
                a += P[i] * K[t[i], y]
                b += Q[i] * K[t[i], y]
            pa[y] = a
            pb[y] = b
            _add_terms(a + P[last] * col_max[y], b + Q[last] * col_min[y], gamma, log_eps, bound)
        n_open, n_open_direct = 0, 0
        for j in range(n_total):
            if bound[j] > values[j]:
                open_eps[n_open] = j
                if j < n_direct:
                    gamma_open[n_open] = gamma[j]
                    n_open_direct += 1
                else:
                    log_open[n_open - n_open_direct] = log_eps[j - n_direct]
                n_open += 1
        if n_open == 0:
            continue
        g = gamma_open[:n_open_direct]
        le = log_open[:n_open - n_open_direct]
        for x in range(k):
            t[last] = x
            total[:n_open] = 0.0
            for y in range(m):
                _add_terms(pa[y] + P[last] * K[x, y], pb[y] + Q[last] * K[x, y], g, le, total)
            for j in range(n_open):
                if total[j] > values[open_eps[j]]:
                    values[open_eps[j]] = total[j]
                    argmax[open_eps[j], :] = t


def _check_point_law(name: str, value: NDArray[np.float64]) -> NDArray[np.float64]:
    arr = check_range(name, value, low=0.0, allowed="non-negative and finite")
    if arr.shape != (4,):
        raise fail(name, "a law on the four canonical points (shape (4,))", f"shape {arr.shape}")
    if abs(float(arr.sum()) - 1.0) > ROW_SUM_TOL:
        raise fail(name, f"a probability vector (summing to 1 ±{ROW_SUM_TOL:g})", f"a sum of {float(arr.sum())!r}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def worst_case_hockey_stick(P: NDArray[np.float64], Q: NDArray[np.float64], K: NDArray[np.float64],
                            eps: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """max over maps (x0, x1, x2, x3) in [k]^4 of E_{e^eps}(Σ_i P_i K[x_i] || Σ_i Q_i K[x_i]), and an argmax map.

    THEORY: STD-BlackBoxExact (with P, Q of STD-DominatingPair this is the exact profile of
    ``DeclaredDP(eps0, delta0) >> K``). Points with P_i = Q_i = 0 are not enumerated and map to input 0.

    Parameters
    ----------
    P, Q : (4,) laws on the canonical points.
    K : (k, m) row-stochastic matrix.
    eps : 1-D array of eps >= 0 in nats; inf gives D_inf.

    Returns
    -------
    values : (n_eps,) in [0, 1]
    argmax : (n_eps, 4) int64, the first map (row-major over the free points) attaining each value.

    Raises
    ------
    ValueError
        A law or K not stochastic, eps negative or NaN.
    NotImplementedError
        k^(free points) · m above `MAX_WORK` (message names k and the limit).
    """
    P, Q = _check_point_law("P", P), _check_point_law("Q", Q)
    matrix = np.ascontiguousarray(check_stochastic_matrix("K", K), dtype=np.float64)
    eps_arr = np.atleast_1d(np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64))
    if eps_arr.ndim != 1:
        raise fail("eps", "a 1-D array", f"shape {eps_arr.shape}", TypeError)
    free = np.flatnonzero((P > 0) | (Q > 0)).astype(np.int64)
    k, m = matrix.shape
    work = k ** free.size * m
    if work > MAX_WORK:
        raise NotImplementedError(
            f"The exact black-box worst case enumerates k^{free.size} maps of the canonical points to K's inputs "
            f"times m outputs: k = {k}, m = {m} gives {work:.3g}, above the limit MAX_WORK = {MAX_WORK}; "
            f"k <= {math.floor((MAX_WORK / m) ** (1 / free.size) + 1e-9)} at m = {m}.")
    direct = eps_arr <= _EXP_MAX
    gamma = np.exp(eps_arr[direct])
    log_eps = np.ascontiguousarray(eps_arr[~direct])
    values = np.empty(eps_arr.size)
    argmax = np.zeros((eps_arr.size, 4), dtype=np.int64)
    _worst_case(P, Q, matrix, free, gamma, log_eps, values, argmax)
    order = np.concatenate([np.flatnonzero(direct), np.flatnonzero(~direct)])
    out_values, out_argmax = np.empty_like(values), np.empty_like(argmax)
    out_values[order], out_argmax[order] = values, argmax
    return np.clip(out_values, 0.0, 1.0) + 0.0, out_argmax
