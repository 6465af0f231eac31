"""numba kernels of `markovdp.divergences.exact.finite`: the one-pass hockey-stick sum, compiled on first use.

THEORY: Notation (hockey-stick, D_inf). Imported only inside `_hockey_stick`, so ``import markovdp`` does not
import numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .finite import _EXP_SAFE, _KEEP_RATIO, _SAFE_GAP


@njit(cache=True)
def _gamma_times(eps: float, b: float) -> float:
    """e^eps b for b >= 0 without overflow of e^eps; 0 for b = 0 (eps up to inf)."""
    if b == 0.0:
        return 0.0
    if eps <= _EXP_SAFE:
        return math.exp(eps) * b
    half = math.exp(min(eps, 1400.0) / 2.0)  # b > 0 past eps ~ 745 cannot occur in a tail (p/q <= 2e323)
    return half * (half * b)


@njit(cache=True)
def _cuts_below(cuts: np.ndarray, x: float) -> int:
    """The number of cuts < x: bisection on the sorted cuts, branch-free (a select per halving)."""
    n = cuts.size
    if n == 0:
        return 0
    base = 0
    while n > 1:
        half = n >> 1
        base = base + half if cuts[base + half] < x else base
        n -= half
    return base + (1 if cuts[base] < x else 0)


@njit(cache=True)
def _group_by_bucket(bucket: np.ndarray, n_cuts: int, start: np.ndarray, by_bucket: np.ndarray) -> None:
    """Counting sort: by_bucket lists the y with bucket[y] = b at start[b]:start[b + 1] (b = −1 left out)."""
    start[:] = 0
    for y in range(bucket.size):
        if bucket[y] >= 0:
            start[bucket[y] + 1] += 1
    for b in range(n_cuts + 1):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    for y in range(bucket.size):
        b = bucket[y]
        if b >= 0:
            by_bucket[fill[b]] = y
            fill[b] += 1


@njit(cache=True)
def _hockey_stick_with_cuts(P: np.ndarray, Q: np.ndarray, index: np.ndarray, eps: np.ndarray,
                            out: np.ndarray) -> None:
    """`_hockey_stick_kernel` with its cuts built here: the sorted finite eps and eps + gap."""
    finite = eps[eps < math.inf]
    cuts = np.sort(np.concatenate((finite, finite + _SAFE_GAP)))
    _hockey_stick_kernel(P, Q, index, eps, cuts, out)


@njit(cache=True)
def _hockey_stick_kernel(P: np.ndarray, Q: np.ndarray, index: np.ndarray, eps: np.ndarray, cuts: np.ndarray,
                         out: np.ndarray) -> None:
    m = P.shape[1]
    n_cuts = cuts.size
    tail = np.empty(eps.size, dtype=np.int64)  # bucket b >= tail[j]  <=>  L > eps[j]
    safe = np.empty(eps.size, dtype=np.int64)  # bucket b >= safe[j]  <=>  L > eps[j] + gap
    for j in range(eps.size):  # cuts <= x are the cuts < the next double above x
        tail[j] = _cuts_below(cuts, np.nextafter(eps[j], math.inf))
        safe[j] = _cuts_below(cuts, np.nextafter(eps[j] + _SAFE_GAP, math.inf))
    bucket = np.empty(m, dtype=np.int64)
    log_ratio = np.empty(m)
    mass_p = np.empty(n_cuts + 2)
    mass_q = np.empty(n_cuts + 2)
    start = np.empty(n_cuts + 2, dtype=np.int64)  # the y's of bucket b are by_bucket[start[b]:start[b + 1]]
    by_bucket = np.empty(m, dtype=np.int64)
    for r in range(index.shape[0]):
        i, k = index[r, 0], index[r, 1]
        mass_p[:] = 0.0
        mass_q[:] = 0.0
        dinf = 0.0
        for y in range(m):
            p = P[i, y]
            q = Q[k, y]
            if p == 0.0:
                bucket[y] = -1  # never in a tail
                continue
            if q == 0.0:
                log_ratio[y] = math.inf
                bucket[y] = n_cuts  # above every cut
                dinf += p
            else:
                log_ratio[y] = math.log(p) - math.log(q)
                bucket[y] = _cuts_below(cuts, log_ratio[y])
            mass_p[bucket[y]] += p
            mass_q[bucket[y]] += q
        for b in range(n_cuts - 1, -1, -1):  # suffix sums: mass[b] = Σ over buckets >= b
            mass_p[b] += mass_p[b + 1]
            mass_q[b] += mass_q[b + 1]
        grouped = False
        for j in range(eps.size):
            e = eps[j]
            if math.isinf(e):
                out[j, r] = dinf
                continue
            a = mass_p[tail[j]]
            value = a - _gamma_times(e, mass_q[tail[j]])
            if a > _KEEP_RATIO * value:  # cancellation: the safe part, then the near terms one by one
                if not grouped:  # a counting sort of the y's by bucket, once per pair
                    _group_by_bucket(bucket, n_cuts, start, by_bucket)
                    grouped = True
                lo, hi = tail[j], safe[j]
                value = mass_p[hi] - _gamma_times(e, mass_q[hi])
                for t in range(start[lo], start[hi]):
                    y = by_bucket[t]
                    value -= P[i, y] * math.expm1(e - log_ratio[y])
            out[j, r] = max(value, 0.0) + 0.0  # + 0.0: never −0.0


@njit(cache=True)
def _hockey_stick_max_with_cuts(P: np.ndarray, Q: np.ndarray, index: np.ndarray, eps: np.ndarray,
                                out: np.ndarray) -> None:
    """out[j] = max over the pairs r of `_hockey_stick_with_cuts`'s value, capped at 1 (a probability)."""
    values = np.empty((eps.size, index.shape[0]))
    _hockey_stick_with_cuts(P, Q, index, eps, values)
    for j in range(eps.size):
        best = 0.0
        for r in range(index.shape[0]):
            best = max(best, values[j, r])
        out[j] = min(best, 1.0)
