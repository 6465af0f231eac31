"""numba kernels of `markovdp.divergences.exact.finite`: the one-pass hockey-stick sum, compiled on first use.

THEORY: Notation (hockey-stick, D_inf). Imported only inside `_hockey_stick`, so ``import markovdp`` does not
import numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .finite import _EXP_SAFE, _KEEP_RATIO, _LOG_CACHE, _SAFE_GAP

#: Cells per cut of `_cut_table`'s uniform grid (most cells hold no cut, so a lookup rarely walks) ...
_TABLE_CELLS = 8
#: ... and the most cuts of one cell `_bucket` walks over (it bisects a more crowded cell).
_TABLE_CROWD = 8


@njit(cache=True)
def _gamma_times(eps: float, gamma: float, b: float) -> float:
    """e^eps b for b >= 0 without overflow of e^eps; 0 for b = 0 (eps up to inf). gamma = e^eps where
    eps <= _EXP_SAFE (taken once per eps, not once per pair)."""
    if b == 0.0:
        return 0.0
    if eps <= _EXP_SAFE:
        return gamma * b
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
def _cut_table(cuts: np.ndarray, lookups: int) -> tuple[np.ndarray, float]:
    """A lookup table for `_bucket`: ``table[c + 1]`` = the number of cuts below ``cuts[0] + c w`` on a uniform grid
    of _TABLE_CELLS cells per cut over [cuts[0], cuts[-1]] (table[0] = 0, the last entry every cut), and 1/w.

    1/w = 0 (`_bucket` bisects) where the cuts span no positive finite width, or where fewer lookups than cells
    would not pay for building the table.
    """
    n = cuts.size
    width = cuts[n - 1] - cuts[0] if n > 0 else 0.0
    cells = _TABLE_CELLS * n
    if lookups < cells or not width > 0.0 or not math.isfinite(cells / width):
        return np.zeros(1, dtype=np.int64), 0.0
    table = np.empty(cells + 2, dtype=np.int64)
    table[0] = 0
    b = 0
    for c in range(cells):  # the edges ascend: one walk over the cuts
        edge = cuts[0] + c * (width / cells)
        while b < n and cuts[b] < edge:
            b += 1
        table[c + 1] = b
    table[cells + 1] = n
    return table, cells / width


@njit(cache=True, inline="always")
def _bucket(cuts: np.ndarray, table: np.ndarray, inv: float, x: float) -> int:
    """The number of cuts < x (x finite): exactly `_cuts_below`, found from the table's cell of x.

    From the count below the cell's lower edge, a walk over the few cuts in the cell (a bisection where more than
    _TABLE_CROWD crowd into it, as a log grid's smallest eps do); the walk down makes the count exact whatever the
    rounding of the cell index, so the table only decides the speed, never the value.
    """
    if inv == 0.0:
        return _cuts_below(cuts, x)
    n = cuts.size
    cells = table.size - 2
    c = int(math.floor(min(max((x - cuts[0]) * inv, -1.0), cells + 0.5))) + 1
    b = table[c]
    hi = table[min(c + 1, cells + 1)]
    if hi - b > _TABLE_CROWD:
        while b < hi:  # the first cut >= x in [b, hi)
            mid = (b + hi) >> 1
            if cuts[mid] < x:
                b = mid + 1
            else:
                hi = mid
    while b < n and cuts[b] < x:
        b += 1
    while b > 0 and cuts[b - 1] >= x:
        b -= 1
    return b


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
def _cuts_at_most(cuts: np.ndarray, eps: np.ndarray, gap: float, out: np.ndarray) -> None:
    """out[j] = the number of cuts <= eps[j] + gap: one walk where the eps ascend (a grid), else a bisection each
    (the cuts < the next double above)."""
    for j in range(1, eps.size):
        if not eps[j] >= eps[j - 1]:  # (a NaN is not ascending either)
            for t in range(eps.size):
                out[t] = _cuts_below(cuts, np.nextafter(eps[t] + gap, math.inf))
            return
    b = 0
    for j in range(eps.size):
        x = eps[j] + gap
        while b < cuts.size and cuts[b] <= x:
            b += 1
        out[j] = b


@njit(cache=True)
def _sorted_cuts(eps: np.ndarray) -> np.ndarray:
    """The finite eps and eps + gap, sorted: merged in one pass where the finite eps ascend (a grid), else sorted."""
    finite = eps[eps < math.inf]
    n = finite.size
    for j in range(1, n):
        if finite[j] < finite[j - 1]:
            return np.sort(np.concatenate((finite, finite + _SAFE_GAP)))
    shifted = finite + _SAFE_GAP  # ascends too (rounding is monotone)
    cuts = np.empty(2 * n)
    i = 0
    j = 0
    for t in range(2 * n):
        if j >= n or (i < n and finite[i] <= shifted[j]):
            cuts[t] = finite[i]
            i += 1
        else:
            cuts[t] = shifted[j]
            j += 1
    return cuts


@njit(cache=True)
def _row_logs(P: np.ndarray, used: np.ndarray) -> np.ndarray:
    """log P[i, y] for the rows i with used[i] (0 where P[i, y] = 0 or the row is not used): each log once."""
    logs = np.zeros(P.shape)
    for i in range(P.shape[0]):
        if used[i]:
            for y in range(P.shape[1]):
                if P[i, y] > 0.0:
                    logs[i, y] = math.log(P[i, y])
    return logs


@njit(cache=True)
def _hockey_stick_with_cuts(P: np.ndarray, Q: np.ndarray, index: np.ndarray, eps: np.ndarray,
                            out: np.ndarray) -> None:
    """`_hockey_stick_kernel` with its cuts built here: the sorted finite eps and eps + gap."""
    _hockey_stick_kernel(P, Q, index, eps, _sorted_cuts(eps), out)


@njit(cache=True)
def _hockey_stick_kernel(P: np.ndarray, Q: np.ndarray, index: np.ndarray, eps: np.ndarray, cuts: np.ndarray,
                         out: np.ndarray) -> None:
    m = P.shape[1]
    n_cuts = cuts.size
    tail = np.empty(eps.size, dtype=np.int64)  # bucket b >= tail[j]  <=>  L > eps[j]
    safe = np.empty(eps.size, dtype=np.int64)  # bucket b >= safe[j]  <=>  L > eps[j] + gap
    _cuts_at_most(cuts, eps, 0.0, tail)
    _cuts_at_most(cuts, eps, _SAFE_GAP, safe)
    gamma = np.empty(eps.size)
    for j in range(eps.size):
        gamma[j] = math.exp(eps[j]) if eps[j] <= _EXP_SAFE else math.inf
    # The logs of the rows the pairs read, each taken once (not once per pair): the same doubles as
    # log(p) − log(q) formed pair by pair. Skipped where they would not fit in _LOG_CACHE doubles.
    used_p = np.zeros(P.shape[0], dtype=np.bool_)
    used_q = np.zeros(Q.shape[0], dtype=np.bool_)
    for r in range(index.shape[0]):
        used_p[index[r, 0]] = True
        used_q[index[r, 1]] = True
    same = P.shape == Q.shape and P.ctypes.data == Q.ctypes.data
    if same:
        used_p |= used_q
    cached = (used_p.sum() + (0 if same else used_q.sum())) * m <= _LOG_CACHE
    log_p = _row_logs(P, used_p) if cached else np.zeros((0, 0))
    log_q = log_p if same or not cached else _row_logs(Q, used_q)
    table, inv = _cut_table(cuts, index.shape[0] * m)
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
                x = log_p[i, y] - log_q[k, y] if cached else math.log(p) - math.log(q)
                log_ratio[y] = x
                bucket[y] = _bucket(cuts, table, inv, x)
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
            value = a - _gamma_times(e, gamma[j], mass_q[tail[j]])
            if a > _KEEP_RATIO * value:  # cancellation: the safe part, then the near terms one by one
                if not grouped:  # a counting sort of the y's by bucket, once per pair
                    _group_by_bucket(bucket, n_cuts, start, by_bucket)
                    grouped = True
                lo, hi = tail[j], safe[j]
                value = mass_p[hi] - _gamma_times(e, gamma[j], mass_q[hi])
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


#: The bits of +inf: above those of every finite double >= 0.
_INF_BITS = np.int64(0x7FF0000000000000)


@njit(cache=True)
def _listed_row_tops(s: np.ndarray, listed: np.ndarray, scale: np.ndarray, row_top: np.ndarray,
                     product: np.ndarray) -> float:
    """row_top[u] = max(0, max over the listed v of s[u, v] scale[v]); returns the min of the listed s (inf if
    none); `product` is work space (k_r floats). s and scale are >= 0 and never NaN (products of finite
    non-negative matrices), and non-negative doubles are ordered as their bit patterns read as int64: the two
    reductions run on those integers, which LLVM vectorizes (it does not vectorize float min/max reductions; 7x
    faster at k = 200), with the same results."""
    k_l, k_r = s.shape
    bits = s.view(np.int64)
    product_bits = product.view(np.int64)
    top_bits = row_top.view(np.int64)
    lowest = _INF_BITS
    for u in range(k_l):
        row, keep, row_bits = s[u], listed[u], bits[u]
        for v in range(k_r):
            product[v] = row[v] * scale[v]
        low, top = _INF_BITS, np.int64(0)
        for v in range(k_r):
            low = min(low, row_bits[v] if keep[v] else _INF_BITS)
            top = max(top, product_bits[v] if keep[v] else np.int64(0))
        top_bits[u] = top
        lowest = min(lowest, low)
    product_bits[0] = lowest  # read back as a double through the work space
    return product[0]


@njit(cache=True)
def _renyi_candidates(s: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray, listed: np.ndarray,
                      floor: float, tiny: float, margin_scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The listed entries (u, v) of the product s whose log-sum L = log s + shift_l[u] + shift_r[v] may attain the
    max over the listed entries: every entry within a margin of the max, found without a log per entry.

    The bound: w = s e^(shift_r[v] − max shift_r) <= s, L = log w + max shift_r + shift_l[u] up to rounding;
    V = the max of that over the rows' largest w; the entries kept are those with w >= e^(V − margin − max
    shift_r − shift_l[u]). The margin, 2^-40 times the magnitudes in play (``margin_scale`` >= the largest
    |log s|, plus the largest |shift_l|, |shift_r| and |V|), exceeds the rounding of every step (a few ulps of
    those magnitudes) by a factor of 1000, so no entry left out can attain the max of the exact L (the same s,
    the same doubles). Rows whose largest L is below V − 2 margin are passed over (none of their entries reaches
    the threshold). Returns their rows u, columns v and the (3, n) array of s[u, v], shift_l[u], shift_r[v].
    Empty arrays where the bound cannot decide, and the caller sums all entries: a listed s below `tiny` (a
    product near underflow), V − margin below `floor` (log-sums that the caller sums row by row may compete), a
    scale or (a row's) threshold near underflow.
    """
    k_l, k_r = s.shape
    scale, product, threshold = np.empty(k_r), np.empty(k_r), np.empty(k_l)
    row_top, row_best, counts = np.empty(k_l), np.empty(k_l), np.empty(k_l, dtype=np.int64)
    if not _candidate_counts(s, shift_l, shift_r, listed, floor, tiny, margin_scale, scale, product, row_top,
                             row_best, threshold, counts):
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty((3, 0))
    total = counts.sum()
    rows, cols, terms = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64), np.empty((3, total))
    _candidate_gather(s, shift_l, shift_r, listed, scale, threshold, counts, rows, cols, terms, 0)
    return rows, cols, terms


@njit(cache=True)
def _candidate_counts(s: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray, listed: np.ndarray, floor: float,
                      tiny: float, margin_scale: float, scale: np.ndarray, product: np.ndarray, row_top: np.ndarray,
                      row_best: np.ndarray, threshold: np.ndarray, counts: np.ndarray) -> bool:
    """The bound of `_renyi_candidates` into work arrays (k_r: scale, product; k_l: row_top, row_best, threshold,
    counts): counts[u] candidates in row u, those with s[u, v] scale[v] >= threshold[u]. False where it cannot
    decide."""
    k_l, k_r = s.shape
    top_r, size_l, size_r = -math.inf, 0.0, 0.0
    for v in range(k_r):
        top_r = max(top_r, shift_r[v])
        size_r = max(size_r, abs(shift_r[v]))
    for u in range(k_l):
        size_l = max(size_l, abs(shift_l[u]))
    for v in range(k_r):
        gap = shift_r[v] - top_r
        if not gap > -600.0:
            return False
        scale[v] = math.exp(gap)
    best = -math.inf
    lowest = _listed_row_tops(s, listed, scale, row_top, product)  # the largest listed w of each row
    for u in range(k_l):  # its L: log row_top + max shift_r + shift_l
        row_best[u] = math.log(row_top[u]) + top_r + shift_l[u] if row_top[u] > 0.0 else -math.inf
        best = max(best, row_best[u])
    margin = 2.0**-40 * (margin_scale + size_l + size_r + abs(best))
    if not (lowest >= tiny and best - margin >= floor):
        return False
    for u in range(k_l):
        counts[u] = 0
        if row_best[u] < best - 2.0 * margin:  # below the threshold by a margin: no exp for this row
            continue
        threshold[u] = math.exp(best - margin - top_r - shift_l[u])
        if not threshold[u] >= 1e-290:
            return False
        if row_top[u] < threshold[u]:  # no entry of this row reaches it
            continue
        c = 0
        for v in range(k_r):
            c += listed[u, v] & (s[u, v] * scale[v] >= threshold[u])
        counts[u] = c
    return True


@njit(cache=True)
def _candidate_gather(s: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray, listed: np.ndarray,
                      scale: np.ndarray, threshold: np.ndarray, counts: np.ndarray, rows: np.ndarray,
                      cols: np.ndarray, terms: np.ndarray, start: int) -> int:
    """The candidates that `_candidate_counts` counted, into rows, cols and terms from `start`; returns the end."""
    n = start
    for u in range(s.shape[0]):
        if counts[u]:
            for v in range(s.shape[1]):
                if listed[u, v] and s[u, v] * scale[v] >= threshold[u]:
                    rows[n], cols[n] = u, v
                    terms[0, n], terms[1, n], terms[2, n] = s[u, v], shift_l[u], shift_r[v]
                    n += 1
    return n


@njit(cache=True)
def _renyi_exponents(alpha: float, log_l: np.ndarray, log_r: np.ndarray, zeros_r: np.ndarray, top_l: np.ndarray,
                     bottom_r: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray, factor_l: np.ndarray,
                     factor_r: np.ndarray) -> None:
    """The exponents of `_Gram.products` at one order, in one pass and the same arithmetic as its numpy form:
    shift_l = alpha top_l, shift_r = (1 − alpha) bottom_r, factor_l = alpha log_l − shift_l, factor_r =
    (1 − alpha) log_r − shift_r (−inf where `zeros_r`, when it is not empty)."""
    beta = 1.0 - alpha
    for u in range(log_l.shape[0]):
        shift = alpha * top_l[u]  # a local: a store to factor_l cannot change it, so the loop vectorizes
        shift_l[u] = shift
        row, out = log_l[u], factor_l[u]
        for y in range(row.size):
            out[y] = alpha * row[y] - shift
    masked = zeros_r.size > 0
    for v in range(log_r.shape[0]):
        shift = beta * bottom_r[v]
        shift_r[v] = shift
        row, out = log_r[v], factor_r[v]
        if masked:
            zeros = zeros_r[v]
            for y in range(row.size):
                out[y] = -math.inf if zeros[y] else beta * row[y] - shift
        else:
            for y in range(row.size):
                out[y] = beta * row[y] - shift


@njit(cache=True)
def _renyi_exponents_orders(alpha: np.ndarray, log_l: np.ndarray, log_r: np.ndarray, zeros_r: np.ndarray,
                            top_l: np.ndarray, bottom_r: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray,
                            factor_l: np.ndarray, factor_r: np.ndarray) -> None:
    """`_renyi_exponents` at each order alpha[o] into shift_l[o], shift_r[o], factor_l[o], factor_r[o]: one call
    for a block of orders."""
    for o in range(alpha.size):
        _renyi_exponents(alpha[o], log_l, log_r, zeros_r, top_l, bottom_r, shift_l[o], shift_r[o], factor_l[o],
                         factor_r[o])


@njit(cache=True)
def _renyi_candidates_orders(s: np.ndarray, shift_l: np.ndarray, shift_r: np.ndarray, listed: np.ndarray,
                             floor: float, tiny: float, margin_scale: float) -> tuple[np.ndarray, np.ndarray]:
    """`_renyi_candidates` of each order's product s[o] (shifts shift_l[o], shift_r[o]): the number of candidates
    of each order (0 where the bound cannot decide) and their (3, total) terms, order after order. One set of
    work arrays for all orders."""
    n_orders, k_l, k_r = s.shape
    scale, product, threshold = np.empty(k_r), np.empty(k_r), np.empty(k_l)
    row_top, row_best, counts = np.empty(k_l), np.empty(k_l), np.empty(k_l, dtype=np.int64)
    found = np.zeros(n_orders, dtype=np.int64)
    terms = np.empty((3, 4 * n_orders))
    rows, cols = np.empty(4 * n_orders, dtype=np.int64), np.empty(4 * n_orders, dtype=np.int64)
    end = 0
    for o in range(n_orders):
        if not _candidate_counts(s[o], shift_l[o], shift_r[o], listed, floor, tiny, margin_scale, scale, product,
                                 row_top, row_best, threshold, counts):
            continue
        found[o] = counts.sum()
        if end + found[o] > terms.shape[1]:  # grow the output
            size = 2 * (end + found[o])
            grown = np.empty((3, size))
            grown[:, :end] = terms[:, :end]
            terms, rows, cols = grown, np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
        end = _candidate_gather(s[o], shift_l[o], shift_r[o], listed, scale, threshold, counts, rows, cols, terms,
                                end)
    return found, terms[:, :end]


@njit(cache=True)
def _renyi_candidates_max(log_s: np.ndarray, terms: np.ndarray, counts: np.ndarray, orders: np.ndarray,
                          alpha: np.ndarray, out: np.ndarray) -> int:
    """out[orders[o]] = max over order o's candidates of (log s + shift_l) + shift_r, over alpha − 1, for each
    order with candidates (`_renyi_candidates_orders`; log_s = numpy's log of terms[0]): the arithmetic of the
    numpy form, term by term. Returns the number of orders without candidates."""
    start = 0
    undecided = 0
    for o in range(counts.size):
        if counts[o] == 0:
            undecided += 1
            continue
        best = -math.inf
        for i in range(start, start + counts[o]):
            best = max(best, (log_s[i] + terms[1, i]) + terms[2, i])
        start += counts[o]
        n = orders[o]
        out[n] = best / (alpha[n] - 1.0)
    return undecided
