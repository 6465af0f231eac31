"""Mixing coefficients of finite kernels, exactly: Dobrushin, (gamma, eps)-Dobrushin, Doeblin, ultra-mixing.

THEORY: BBGG-D1 (the four conditions and their finite closed forms), AAC-eta (two-point characterisation
of the E_gamma contraction coefficient), AAC-T1 (local DP iff eta_{e^eps}(K) <= delta).

Every function takes ``K``: an object with a validated ``.matrix`` (`FiniteKernel`, a finite mechanism)
or a raw row-stochastic 2-D array-like (validated here). Other operators raise `NotImplementedError`.
`dobrushin` and `ldp_epsilon` also take an *implicit channel* (a huge output space, e.g.
`markovdp.mechanisms.local.implicit_channel.UnaryChannel`): an object with a method ``ldp_kernel()`` that
returns a finite kernel with the same E_gamma coefficient at every gamma (AAC-eta), which they use instead.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._profiles import pure_epsilon
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

# How the kernels (numba, in `_coefficient_kernels`, imported where used) apply gamma = e^eps.
_MODE_GAMMA, _MODE_SPLIT, _MODE_DINF = 0, 1, 2


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


def _ldp_stand_in(K: Any) -> Any:
    """An implicit channel's finite stand-in ``K.ldp_kernel()`` (same E_gamma coefficient at every gamma), else K."""
    stand_in = getattr(K, "ldp_kernel", None)
    return K if stand_in is None else stand_in()


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
    return min(max(float(_row_maxima(P, eps)[0].max()), 0.0), 1.0)


def _row_maxima(P: NDArray[np.float64], eps: float, tile: int | None = None,
                rows: NDArray[np.int64] | None = None) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """out[r] = max_{j > i} max(E(P[i]||P[j]), E(P[j]||P[i])) at gamma = e^eps for i = rows[r] (default: all
    k >= 2 rows; ascending), and the first j attaining it (-1 for the last row). Rows in tiles of `tile`
    (default: as many as fill the kernels' TILE_BYTES)."""
    from . import _coefficient_kernels as kernels  # here, not at import: numba costs ~0.3 s to import

    k, m = P.shape
    mode, value = _gamma_mode(eps)
    if rows is None:
        rows = np.arange(k, dtype=np.int64)
    if tile is None:
        tile = max(1, min(k, kernels.TILE_BYTES // (8 * m)))
    out = np.empty(rows.size, dtype=np.float64)
    partner = np.empty(rows.size, dtype=np.int64)
    # Threads only from the main thread: inside dask workers the cores are already busy, and numba's
    # fallback threading layer (workqueue) aborts on concurrent launches from several threads.
    work = rows.size * (k - 1) // 2 * m
    if work >= _PARALLEL_MIN_WORK and threading.current_thread() is threading.main_thread():
        kernels.coefficient_rows_parallel(P, mode, value, rows, tile, out, partner)
    else:
        kernels.coefficient_rows(P, mode, value, rows, tile, out, partner)
    return out, partner


def _pure_ldp_epsilon(P: NDArray[np.float64]) -> float:
    """max_y log(max_x P[x,y] / min_x P[x,y]) over columns with a positive max, rounded up exactly
    (`pure_epsilon`: e^eps min >= max holds in real arithmetic), then nudged up to the first float eps at which
    it also holds in the kernels' arithmetic (so dobrushin(P, eps) == 0.0)."""
    hi = P.max(axis=0)
    lo = P.min(axis=0)
    used = hi > 0
    hi, lo = hi[used], lo[used]
    if (lo == 0).any():
        return math.inf
    eps = pure_epsilon(hi, lo)
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
    K : FiniteKernel, finite mechanism, implicit channel, or array-like (k, m)
        Anything with a ``.matrix``, a row-stochastic matrix, or an object with ``ldp_kernel()`` (module
        docstring).
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
    return _coefficient(_finite_matrix(_ldp_stand_in(K), "dobrushin"), e)


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
    K : FiniteKernel, finite mechanism, implicit channel (``ldp_kernel()``), or array-like (k, m)
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
    P = _finite_matrix(_ldp_stand_in(K), "ldp_epsilon")
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
# eps_xx' > lo, so their own eps (two-row root finding, O(m) per step) and lo give the answer. Too many such
# pairs: lo rises to the eps of the pairs with the largest E(lo), and the pass is repeated over the rows that
# still hold one (the others stay below delta: E is non-increasing in eps). No check pass: every
# pair value is one fixed sequence of roundings, non-increasing in gamma, so E(lo) <= delta in the pass gives
# E(eps) <= delta at every eps >= lo with the same mode and a gamma at least as large; the candidates are
# re-evaluated in place at eps. Only when that does not hold does a last pass check (else root finding).

#: From this many rows on, ldp_epsilon (delta > 0) prunes pairs instead of root finding on all of them.
_PRUNE_MIN_ROWS = 256
#: Seed pairs: the rows of the largest and smallest entry of this many columns with the largest log-ratio
#: (pair eps ~1 ms each; at k = 3000, 8 seeds left 1070-2727 candidate rows after the first pass, 32 seeds
#: put lo within 0.5 of the answer).
_PRUNE_SEEDS = 32
#: Rounds that raise lo while more than _PRUNE_MAX_PAIRS pairs remain candidates: the first is a pass over all
#: rows, each later one a pass over the rows still holding a candidate; each raise uses the _PRUNE_RAISE pairs
#: with the largest E(lo) (pair eps costs ~1 ms at m = 3000, a pass seconds).
_PRUNE_ROUNDS = 4
_PRUNE_RAISE = 32
_PRUNE_MAX_PAIRS = 256


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


def _pairs_above(P: NDArray[np.float64], eps: float, rows: NDArray[np.int64],
                 d: float) -> list[tuple[int, int]] | None:
    """The pairs (i, j > i), i in `rows` (ascending, at most _PRUNE_MAX_PAIRS), with E(eps) > d in the pass's
    arithmetic; None if there are more than _PRUNE_MAX_PAIRS."""
    from . import _coefficient_kernels as kernels

    k, m = P.shape
    mode, value = _gamma_mode(eps)
    tile = max(1, kernels.TILE_BYTES // (8 * m))
    values = np.empty((rows.size, k), dtype=np.float64)
    if rows.size:
        work = rows.size * (k - 1) // 2 * m
        if work >= _PARALLEL_MIN_WORK and threading.current_thread() is threading.main_thread():
            kernels.pair_values_parallel(P, mode, value, rows, tile, values)
        else:
            kernels.pair_values(P, mode, value, rows, tile, values)
    r, j = np.nonzero(values > d)
    if r.size > _PRUNE_MAX_PAIRS:
        return None
    return list(zip(rows[r].tolist(), j.tolist(), strict=True))


def _certified(P: NDArray[np.float64], levels: list[float], eps: float, pairs: list[tuple[int, int]],
               d: float) -> bool:
    """dobrushin(P, eps) <= d, given passes at `levels` (each <= eps) that left E <= d off `pairs`."""
    from . import _coefficient_kernels as kernels

    mode, value = _gamma_mode(eps)
    if any(_gamma_mode(lo)[0] != mode or _gamma_mode(lo)[1] > value for lo in levels):
        return _coefficient(P, eps) <= d  # the monotone argument does not apply: check with a full pass
    return all(kernels.pair_value(P, mode, value, i, j) <= d for i, j in pairs)


def _pruned_epsilon(P: NDArray[np.float64], d: float) -> float | None:
    """ldp_epsilon(P, d) for d > 0 with one all-pairs pass and passes over ever fewer rows, or None (then
    root finding)."""
    seeds = _seed_pairs(P)
    if not seeds:
        return None
    lo = max(_pair_epsilon(P, i, j, d) for i, j in seeds)
    levels: list[float] = []
    rows = None  # all rows
    for _ in range(_PRUNE_ROUNDS):
        if not math.isfinite(lo):
            return None
        maxima, partner = _row_maxima(P, lo, rows=rows)
        levels.append(lo)
        keep = maxima > d  # only these rows hold a pair with E(lo) > delta (E is non-increasing in eps)
        rows = (np.arange(P.shape[0]) if rows is None else rows)[keep]
        maxima, partner = maxima[keep], partner[keep]
        pairs = _pairs_above(P, lo, rows, d) if rows.size <= _PRUNE_MAX_PAIRS else None
        if pairs is None:  # too many: raise lo to the eps of the pairs with the largest E(lo) (each > lo)
            top = np.argsort(-maxima, kind="stable")[:_PRUNE_RAISE]
            lo = max(lo, *(_pair_epsilon(P, int(rows[r]), int(partner[r]), d) for r in top))
            continue
        eps = max([lo, *(_pair_epsilon(P, i, j, d) for i, j in pairs)])
        return eps if math.isinf(eps) or _certified(P, levels, eps, pairs, d) else None
    return None


__all__ = ["dobrushin", "doeblin", "ldp_epsilon", "ultra_mixing"]
