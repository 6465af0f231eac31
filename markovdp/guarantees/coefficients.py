"""Mixing coefficients of finite kernels, exactly: Dobrushin, (gamma, eps)-Dobrushin, Doeblin, ultra-mixing.

THEORY: BBGG-D1 (the four conditions and their finite closed forms), AAC-eta (two-point characterisation
of the E_gamma contraction coefficient), AAC-T1 (local DP iff eta_{e^eps}(K) <= delta).

Every function takes ``K``: an object with a validated ``.matrix`` (`FiniteKernel`, a finite mechanism)
or a raw row-stochastic 2-D array-like (validated here). Other operators raise `NotImplementedError`.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from .._validation import check_eps, check_probability, check_stochastic_matrix, fail

#: Absolute accuracy in eps of `ldp_epsilon` for delta > 0.
EPS_XTOL = 1e-12

# exp(eps) overflows float64 above this; between it and _DINF_EPS the split product h * (h * b) is used.
_EXP_MAX = math.log(np.finfo(np.float64).max)
# For eps >= 746, e^eps * b > 1 >= a for every positive double b (the smallest is ~e^-744.4), so each term
# [a - e^eps b]_+ is exactly a * 1{b = 0}: the D_inf coefficient (THEORY: Notation, gamma -> inf).
_DINF_EPS = 746.0
# Threads only for big jobs (pairs x columns; ~7 ms serial): measured 2x on 2 idle cores from k = 64 on, but
# on a loaded machine a launch can wait a scheduler time slice (best of 10 at k = 100: 4 ms vs 0.13 ms).
_PARALLEL_MIN_WORK = 2**25

_MODE_GAMMA, _MODE_SPLIT, _MODE_DINF = 0, 1, 2


# --------------------------------------------------------------------------------------------- kernels
# Pure array functions (DESIGN §9). Inputs are validated, finite, C-contiguous float64; `fastmath={"reassoc"}`
# only lets LLVM reorder the sums into SIMD lanes (no NaN/inf assumptions; measured 4x faster than without at
# k = 1000, same value to 1e-16). Inner loops are branch-free (`max`, a select): an `if` blocks vectorisation.


@njit(cache=True, fastmath={"reassoc"})
def _row_gamma(P: np.ndarray, gamma: float, i: int) -> float:
    """max over j > i of E_gamma(P[i]||P[j]) and E_gamma(P[j]||P[i]), both in one pass over y."""
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


@njit(cache=True)  # no reassoc: it would fold half * (half * b) into (half * half) * b = inf * b
def _row_split(P: np.ndarray, half: float, i: int) -> float:
    """As `_row_gamma`, gamma = half**2 applied as half * (half * b): e^eps overflows, e^(eps/2) not."""
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


@njit(cache=True, fastmath={"reassoc"})
def _row_dinf(P: np.ndarray, i: int) -> float:
    """max over j > i of D_inf both ways: the mass of one row where the other is zero."""
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


@njit(cache=True)
def _row(P: np.ndarray, mode: int, value: float, i: int) -> float:
    if mode == _MODE_GAMMA:
        return _row_gamma(P, value, i)
    if mode == _MODE_SPLIT:
        return _row_split(P, value, i)
    return _row_dinf(P, i)


@njit(cache=True)
def _coefficient_rows(P: np.ndarray, mode: int, value: float, out: np.ndarray) -> None:
    """out[i] = max_{j > i} max(E(P[i]||P[j]), E(P[j]||P[i])); the coefficient is out.max()."""
    for i in range(P.shape[0]):
        out[i] = _row(P, mode, value, i)


@njit(cache=True, parallel=True)
def _coefficient_rows_parallel(P: np.ndarray, mode: int, value: float, out: np.ndarray) -> None:
    """`_coefficient_rows` over threads. Row i costs k - 1 - i pairs, so each task takes rows t and
    k - 1 - t (equal work); each row writes only its own slot, so the result is bit-identical to serial."""
    k = P.shape[0]
    for t in prange((k + 1) // 2):
        out[t] = _row(P, mode, value, t)
        if k - 1 - t != t:
            out[k - 1 - t] = _row(P, mode, value, k - 1 - t)


# --------------------------------------------------------------------------------------------- helpers


def _finite_matrix(K: Any, func: str) -> NDArray[np.float64]:
    """The validated matrix of `K` as a read-only C-contiguous float64 array (one numba specialisation)."""
    matrix = getattr(K, "matrix", None)
    if matrix is not None:
        arr = np.ascontiguousarray(matrix, dtype=np.float64)  # validated by its owner
    elif hasattr(K, "sample") and not isinstance(K, (np.ndarray, list, tuple)):
        raise NotImplementedError(f"`{func}` is exact only for finite kernels; got {type(K).__name__}.")
    else:
        arr = np.ascontiguousarray(check_stochastic_matrix("K", K))
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return arr


def _scalar(name: str, value: Any, checked: float | NDArray[np.float64]) -> float:
    if np.ndim(checked) != 0:
        raise fail(name, "a scalar", value, TypeError)
    return float(checked)


def _gamma_mode(eps: float) -> tuple[int, float]:
    """How the kernels apply gamma = e^eps: directly, as e^(eps/2) twice (overflow), or as D_inf."""
    if eps >= _DINF_EPS:
        return _MODE_DINF, math.inf
    if eps > _EXP_MAX:
        return _MODE_SPLIT, math.exp(eps / 2.0)
    return _MODE_GAMMA, math.exp(eps)


def _times_gamma(eps: float, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """e^eps * x rounded exactly as the kernels round it (used to certify ldp_epsilon at delta = 0)."""
    mode, value = _gamma_mode(eps)
    if mode == _MODE_GAMMA:
        return value * x
    if mode == _MODE_SPLIT:
        with np.errstate(over="ignore"):  # inf where e^eps x overflows, as in the kernels
            return value * (value * x)
    return np.where(x > 0, math.inf, 0.0)


def _coefficient(P: NDArray[np.float64], eps: float) -> float:
    """sup_{x != x'} E_{e^eps}(P[x]||P[x']) on a validated matrix, clipped into [0, 1]."""
    if P.shape[0] < 2:
        return 0.0
    return min(max(float(_row_maxima(P, eps).max()), 0.0), 1.0)


def _row_maxima(P: NDArray[np.float64], eps: float) -> NDArray[np.float64]:
    """out[i] = max_{j > i} max(E(P[i]||P[j]), E(P[j]||P[i])) at gamma = e^eps (k >= 2 rows)."""
    k = P.shape[0]
    mode, value = _gamma_mode(eps)
    out = np.empty(k, dtype=np.float64)
    # Threads only from the main thread: inside dask workers the cores are already busy, and numba's
    # fallback threading layer (workqueue) aborts on concurrent launches from several threads.
    work = k * (k - 1) // 2 * P.shape[1]
    if work >= _PARALLEL_MIN_WORK and threading.current_thread() is threading.main_thread():
        _coefficient_rows_parallel(P, mode, value, out)
    else:
        _coefficient_rows(P, mode, value, out)
    return out


def _pure_ldp_epsilon(P: NDArray[np.float64]) -> float:
    """max_y log(max_x P[x,y] / min_x P[x,y]) over columns with a positive max, nudged up to the first
    float eps at which e^eps * min >= max holds in the kernels' arithmetic (so dobrushin(P, eps) == 0.0)."""
    hi = P.max(axis=0)
    lo = P.min(axis=0)
    used = hi > 0
    hi, lo = hi[used], lo[used]
    if (lo == 0).any():
        return math.inf
    # log(hi) - log(lo), not log(hi / lo): the ratio overflows when lo is subnormal.
    eps = max(float(np.max(np.log(hi) - np.log(lo))), 0.0)
    for _ in range(64):  # a few ulps at most
        if (_times_gamma(eps, lo) >= hi).all():
            break
        eps = float(np.nextafter(eps, math.inf))
    return eps


# --------------------------------------------------------------------------------------------- public API


def dobrushin(K: Any, eps: float = 0.0) -> float:
    """Dobrushin coefficient sup_{x,x'} E_{e^eps}(K(x)||K(x')) = sup_{x,x'} Σ_y [K[x,y] − e^eps K[x',y]]_+.

    THEORY: BBGG-D1.1/D1.2 (finite closed form), AAC-eta (= eta_{e^eps}(K), two-point characterisation).

    Parameters
    ----------
    K : FiniteKernel, finite mechanism, or array-like (k, m)
        Anything with a ``.matrix``, or a row-stochastic matrix.
    eps : float, default 0
        Privacy level in nats, >= 0; ``inf`` gives the D_inf coefficient max Σ_{y: K[x',y]=0} K[x,y].
        ``eps = 0`` is Dobrushin's TV coefficient ½ max Σ_y |K[x,y] − K[x',y]|.

    Returns
    -------
    float
        In [0, 1]; 0.0 for a single row.

    Raises
    ------
    ValueError
        `eps` NaN or negative; `K` not row-stochastic.
    NotImplementedError
        `K` is an operator without a finite matrix.
    """
    e = _scalar("eps", eps, check_eps("eps", eps, allow_inf=True))
    return _coefficient(_finite_matrix(K, "dobrushin"), e)


def doeblin(K: Any) -> float:
    """The Doeblin coefficient 1 − Σ_y min_x K[x,y]: the smallest gamma with K(x) >= (1 − gamma) omega.

    THEORY: BBGG-D1.3. Returns a float in [0, 1] (0 when all rows are equal).

    Raises
    ------
    ValueError
        `K` not row-stochastic.
    NotImplementedError
        `K` is an operator without a finite matrix.
    """
    P = _finite_matrix(K, "doeblin")
    return min(max(1.0 - float(P.min(axis=0).sum()), 0.0), 1.0)


def ultra_mixing(K: Any) -> float:
    """The ultra-mixing coefficient 1 − min_{x,x',y: K[x',y]>0} K[x,y]/K[x',y], or inf if supports differ.

    THEORY: BBGG-D1.4. With a common support S this is 1 − min_{y ∈ S} (min_x K[x,y] / max_x K[x,y]), in
    [0, 1). If two rows have different supports K is not gamma-ultra-mixing for any gamma: ``math.inf``.

    Raises
    ------
    ValueError
        `K` not row-stochastic.
    NotImplementedError
        `K` is an operator without a finite matrix.
    """
    P = _finite_matrix(K, "ultra_mixing")
    hi = P.max(axis=0)
    lo = P.min(axis=0)
    support = hi > 0
    if (lo[support] == 0).any():  # some row is zero where another is not
        return math.inf
    ratio = float(np.min(lo[support] / hi[support]))  # rows sum to 1, so the support is never empty
    return min(max(1.0 - ratio, 0.0), 1.0)


def ldp_epsilon(K: Any, delta: float = 0.0) -> float:
    """The smallest eps >= 0 with dobrushin(K, eps) <= delta: K is (eps, delta)-LDP exactly from there on.

    THEORY: AAC-T1 (K is (eps, delta)-LDP iff eta_{e^eps}(K) <= delta), AAC-eta, BBGG-D1.2.

    ``delta = 0``: the closed form max_y log(max_x K[x,y] / min_x K[x,y]) over columns with a positive max
    (inf if such a column has a zero), raised by a few ulps if needed so that ``dobrushin(K, eps) == 0.0``
    holds exactly in float arithmetic. ``delta > 0``: 0 if dobrushin(K, 0) <= delta, inf if the D_inf
    coefficient exceeds delta, else a Brent root of the non-increasing dobrushin(K, eps) − delta polished
    by bisection so that the returned eps satisfies ``dobrushin(K, eps) <= delta`` exactly (no tolerance)
    while ``dobrushin(K, eps − 1e-12) > delta``: it is the smallest such eps to 1e-12 (`EPS_XTOL`).

    Parameters
    ----------
    K : FiniteKernel, finite mechanism, or array-like (k, m)
    delta : float, default 0
        In [0, 1].

    Returns
    -------
    float
        eps in nats, in [0, inf].

    Raises
    ------
    ValueError
        `delta` outside [0, 1] or NaN; `K` not row-stochastic.
    NotImplementedError
        `K` is an operator without a finite matrix.
    """
    d = _scalar("delta", delta, check_probability("delta", delta))
    P = _finite_matrix(K, "ldp_epsilon")
    if d == 0.0:
        return _pure_ldp_epsilon(P)
    if P.shape[0] >= _PRUNE_MIN_ROWS:
        eps = _pruned_epsilon(P, d)
        if eps is not None:
            return eps
    return _root_epsilon(P, d)


def _root_epsilon(P: NDArray[np.float64], d: float) -> float:
    """ldp_epsilon for delta = d > 0 by root finding on the full coefficient (one pass per step)."""
    pure = _pure_ldp_epsilon(P)
    if _coefficient(P, 0.0) <= d:
        return 0.0
    if _coefficient(P, math.inf) > d:
        return math.inf

    def excess(e: float) -> float:
        return _coefficient(P, e) - d

    # Upper bracket: the pure-DP eps (coefficient exactly 0 there), else doubling. Doubling ends by
    # _DINF_EPS at the latest, where the coefficient is the D_inf one (<= delta, checked above).
    hi = pure
    if not math.isfinite(hi):
        hi = 1.0
        while excess(hi) > 0:
            hi *= 2.0
    from scipy.optimize import brentq  # here, not at import: scipy.optimize costs ~0.1 s to import

    root = brentq(excess, 0.0, hi, xtol=EPS_XTOL / 4, rtol=4 * np.finfo(float).eps)
    # Polish into a bracket [lo, hi] with excess(lo) > 0 >= excess(hi), hi - lo <= EPS_XTOL. brentq may land
    # a hair on either side of the crossing, or anywhere on a flat stretch where the coefficient equals delta.
    lo = 0.0
    step = EPS_XTOL
    upper = root
    while upper < hi and excess(upper) > 0:
        lo = max(lo, upper)
        upper = min(root + step, hi)
        step *= 2.0
    hi = upper
    step = EPS_XTOL
    while hi - step > lo:  # walk down until excess turns positive (one step unless the stretch is flat)
        if excess(hi - step) > 0:
            lo = hi - step
            break
        hi -= step
        step *= 2.0
    while hi - lo > EPS_XTOL:
        mid = 0.5 * (lo + hi)
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    return float(hi)


# --------------------------------------------------------------------------------------------- large k
# ldp_epsilon = max over pairs {x, x'} of eps_xx' (each pair's own smallest eps with E <= delta both ways).
# Root finding pays one all-pairs pass per step (k = 3000: seconds each). Instead: lo = the largest eps_xx'
# of a few seed pairs (a lower bound, attained); one pass at lo; only pairs with E(lo) > delta can have
# eps_xx' > lo, so their own eps (two-row root finding, O(m) per step) and lo give the answer; a last pass
# checks dobrushin(K, answer) <= delta in the kernels' own arithmetic (else root finding decides).

#: From this many rows on, ldp_epsilon (delta > 0) prunes pairs instead of root finding on all of them.
_PRUNE_MIN_ROWS = 256
#: Seed pairs: the rows of the largest and smallest entry of this many columns with the largest log-ratio.
_PRUNE_SEEDS = 8
#: Rounds (one pass each) that raise lo while more than _PRUNE_MAX_PAIRS pairs remain candidates.
_PRUNE_ROUNDS = 4
_PRUNE_MAX_PAIRS = 256
#: Candidates are selected with this relative margin below delta (their arithmetic differs from the pass).
_PRUNE_MARGIN = 1e-9


@njit(cache=True)
def _pairs_above(P: np.ndarray, mode: int, value: float, i: int, level: float, out: np.ndarray) -> int:
    """Write into `out` the j > i with max(E(P[i]||P[j]), E(P[j]||P[i])) > level; return how many."""
    k, m = P.shape
    count = 0
    for j in range(i + 1, k):
        s_ij = 0.0
        s_ji = 0.0
        for y in range(m):
            a = P[i, y]
            b = P[j, y]
            if mode == _MODE_DINF:
                s_ij += a if b == 0.0 else 0.0
                s_ji += b if a == 0.0 else 0.0
            elif mode == _MODE_SPLIT:
                s_ij += max(a - value * (value * b), 0.0)
                s_ji += max(b - value * (value * a), 0.0)
            else:
                s_ij += max(a - value * b, 0.0)
                s_ji += max(b - value * a, 0.0)
        if max(s_ij, s_ji) > level:
            out[count] = j
            count += 1
    return count


def _pair_epsilon(P: NDArray[np.float64], i: int, j: int, d: float) -> float:
    """eps of the two rows i, j alone (both directions), through the same kernels as the full pass."""
    rows = np.ascontiguousarray(P[[i, j]])
    rows.flags.writeable = False
    if _coefficient(rows, 0.0) <= d:
        return 0.0
    if _coefficient(rows, math.inf) > d:
        return math.inf
    return _root_epsilon(rows, d)


def _seed_pairs(P: NDArray[np.float64]) -> list[tuple[int, int]]:
    hi, lo = P.argmax(axis=0), P.argmin(axis=0)
    with np.errstate(divide="ignore"):
        score = np.log(P.max(axis=0)) - np.log(P.min(axis=0))
    columns = np.argsort(-score, kind="stable")[:_PRUNE_SEEDS]
    return sorted({(int(min(hi[y], lo[y])), int(max(hi[y], lo[y]))) for y in columns if hi[y] != lo[y]})


def _pruned_epsilon(P: NDArray[np.float64], d: float) -> float | None:
    """ldp_epsilon(P, d) for d > 0 with one or a few all-pairs passes, or None (then root finding)."""
    seeds = _seed_pairs(P)
    if not seeds:
        return None
    lo = max(_pair_epsilon(P, i, j, d) for i, j in seeds)
    level = d * (1.0 - _PRUNE_MARGIN)
    for _ in range(_PRUNE_ROUNDS):
        if not math.isfinite(lo):
            return None
        maxima = _row_maxima(P, lo)
        if maxima.max() <= d:  # every pair has eps <= lo, and a seed attains lo
            return lo
        mode, value = _gamma_mode(lo)
        found = np.empty(P.shape[0], dtype=np.int64)
        candidates: list[tuple[int, int]] = []
        for i in np.flatnonzero(maxima > level):  # rows holding a pair with E(lo) > delta
            count = _pairs_above(P, mode, value, int(i), level, found)
            candidates.extend((int(i), int(j)) for j in found[:count])
            if len(candidates) > _PRUNE_MAX_PAIRS:
                break
        if len(candidates) > _PRUNE_MAX_PAIRS:  # too many: raise lo to the first candidates' eps, again
            lo = max(lo, *(_pair_epsilon(P, i, j, d) for i, j in candidates[:_PRUNE_SEEDS]))
            continue
        eps = max([lo, *(_pair_epsilon(P, i, j, d) for i, j in candidates)])
        return eps if math.isinf(eps) or _coefficient(P, eps) <= d else None
    return None

__all__ = ["dobrushin", "doeblin", "ldp_epsilon", "ultra_mixing"]
