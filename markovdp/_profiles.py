"""Profiles as functions of eps (nats): the smallest eps with delta(eps) <= delta, made conservative in floats.

Low-level numerics shared by every layer that inverts a privacy profile (pair sets' closed forms, certificates):
they take a profile as a plain function and never know what computed it. `pure_epsilon` is the certified
pure-DP eps of finite laws: max log(p/q) rounded up, checked in exact integer arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray


def invert_profile(profile: Callable[[float], float], delta: float, *, xtol: float = 1e-12,
                   eps_max: float = 2.0**1023) -> float:
    """The smallest eps >= 0 with profile(eps) <= delta, for a non-increasing profile (inf if none).

    inf when even profile(inf) (the D_inf limit) exceeds delta; otherwise doubling then bisection
    (robust to flat and step-like curves such as STD-DominatingPair) to `xtol` relative in eps. The
    returned eps always satisfies profile(eps) <= delta; a NaN value never counts as satisfied.
    """

    def satisfied(eps: float) -> bool:
        return bool(profile(eps) <= delta)  # False for NaN

    if satisfied(0.0):
        return 0.0
    if not satisfied(math.inf):
        return math.inf
    hi = 1.0
    while not satisfied(hi):
        hi *= 2.0
        if hi > eps_max:
            return math.inf
    lo = hi / 2.0 if hi > 1.0 else 0.0
    while hi - lo > xtol * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if satisfied(mid):
            hi = mid
        else:
            lo = mid
    return hi


def rounded_up(eps: float, profile: Callable[[float], float], delta: float = 0.0) -> float:
    """A closed-form eps(delta) (e.g. R_inf at delta = 0: eps-DP iff eps >= R_inf) made conservative in
    floats: the least float >= eps at which ``profile(eps) <= delta`` holds exactly in the profile's own
    rounding (galloping up by ulps, then bisecting the float grid; the profile is non-increasing). Never below
    `eps`, so give an eps that is itself rounded up (e.g. `pure_epsilon`). inf stays inf; inf if no finite eps
    satisfies the profile."""
    start = max(float(eps), 0.0)

    def holds(bits: int) -> bool:
        e = _float(bits)
        return not math.isfinite(e) or profile(e) <= delta

    if not math.isfinite(start) or holds(_bits(start)):
        return start
    return _float(_first_true(_bits(start), holds))  # holds(start) is false: searches upward only


#: Fixed-point bits of `_exp_lower` (its relative error is below 2^-100 for eps <= 745).
_PREC = 128


def _exp_lower(eps: float) -> int:
    """An integer L with L / 2^_PREC <= e^eps exactly, for a float eps >= 0: e^x = (e^(x/2^s))^(2^s) with
    x/2^s < 2^-8, the Taylor sum of e^(x/2^s) and the 2^s-th power taken in fixed point, every step rounded
    down (all terms are positive)."""
    num, den = eps.as_integer_ratio()  # den = 2^k
    s = int(eps).bit_length() + 8
    shift = _PREC - (den.bit_length() - 1) - s
    y = num << shift if shift >= 0 else num >> -shift  # floor(x / 2^s * 2^_PREC)
    total = term = 1 << _PREC
    j = 1
    while term:
        term = ((term * y) >> _PREC) // j
        total += term
        j += 1
    for _ in range(s):
        total = (total * total) >> _PREC
    return total


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _float(bits: int) -> float:
    return float(np.int64(bits).view(np.float64))


def _distinct_ratios(p: NDArray[np.float64], q: NDArray[np.float64]) -> tuple[list[Fraction], tuple[float, float]]:
    """The distinct exact ratios p_y/q_y (positive normal or subnormal floats) as Fractions, and one (p_y, q_y).

    Each ratio is reduced exactly in int64 first — the 53-bit integer mantissas divided by their gcd, the factors
    of 2 moved into the exponent — so outputs that share a ratio (proportional rows) cost one Fraction, not one
    each: a canonical (odd numerator, odd denominator, exponent) names each exact ratio once.
    """
    mp, ep = np.frexp(p)
    mq, eq = np.frexp(q)
    num, den = np.ldexp(mp, 53).astype(np.int64), np.ldexp(mq, 53).astype(np.int64)  # exact integer mantissas
    common = np.gcd(num, den)
    num, den = num // common, den // common
    twos_num = np.log2(num & -num).astype(np.int64)  # trailing zeros (a power of 2 <= 2^53: exact in float)
    twos_den = np.log2(den & -den).astype(np.int64)
    keys = np.stack([num >> twos_num, den >> twos_den, ep - eq + twos_num - twos_den], axis=1)
    distinct, first = np.unique(keys, axis=0, return_index=True)
    ratios = [Fraction(int(a), int(b)) * Fraction(2) ** int(e) for a, b, e in distinct.tolist()]
    best = int(first[max(range(len(ratios)), key=ratios.__getitem__)])
    return ratios, (float(p[best]), float(q[best]))


def pure_epsilon(p: ArrayLike, q: ArrayLike) -> float:
    """The smallest float eps >= 0 with e^eps q_y >= p_y for every y, exactly: max_y log(p_y / q_y) rounded up
    (the D_inf of the pairs (p, q), i.e. their pure-DP eps; THEORY: Notation). inf if some p_y > 0 = q_y;
    coordinates with p_y = 0 never bind.

    The largest ratio R = P/Q is found exactly (frexp and one rounded division pick the candidates, `Fraction`
    compares them), a float estimate of log R comes from log1p or frexp, and every eps tried is checked by
    ``e^eps >= R`` in integer arithmetic (`_exp_lower`), so the answer never depends on libm's rounding.
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    q = np.asarray(q, dtype=np.float64).ravel()
    used = p > 0.0
    p, q = p[used], q[used]
    if p.size == 0:
        return 0.0
    if (q == 0.0).any():
        return math.inf
    mp, ep = np.frexp(p)
    mq, eq = np.frexp(q)
    m, e = np.frexp(mp / mq)  # p/q = m 2^(e + ep − eq) (1 + θ), |θ| <= 2^-53, m in [0.5, 1)
    e = e + ep - eq
    scaled = np.ldexp(m, e - e.max())
    near = scaled >= scaled.max() * (1.0 - 2.0**-50)  # every y whose exact ratio may be the largest
    ratios, (top, bottom) = _distinct_ratios(p[near], q[near])
    ratio = max(ratios)
    if ratio <= 1:
        return 0.0
    if top <= 2.0 * bottom:
        estimate = math.log1p((top - bottom) / bottom)  # top − bottom exact (Sterbenz)
    else:
        (mt, et), (mb, eb) = math.frexp(top), math.frexp(bottom)
        estimate = math.log(mt / mb) + (et - eb) * math.log(2.0)
    big_p, big_q = ratio.numerator << _PREC, ratio.denominator

    def holds(bits: int) -> bool:
        return _exp_lower(_float(bits)) * big_q >= big_p

    return _float(_first_true(_bits(max(estimate, 0.0)), holds))


#: The bit pattern of +inf, the largest float >= 0 (non-negative floats are ordered like their bit patterns).
_INF_BITS = 0x7FF0000000000000


def _first_true(start: int, holds: Callable[[int], bool]) -> int:
    """The least n in [0, _INF_BITS] with holds(n), for a monotone predicate with holds(_INF_BITS), by galloping
    from `start` then bisection (the bit patterns of the floats >= 0)."""
    step = 1
    if holds(start):
        hi = start
        while True:
            lo = max(hi - step, 0)
            if not holds(lo):
                break
            if lo == 0:
                return 0
            hi, step = lo, 2 * step
    else:
        lo = start
        while True:
            hi = min(lo + step, _INF_BITS)
            if hi == _INF_BITS or holds(hi):
                break
            lo, step = hi, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


__all__ = ["invert_profile", "pure_epsilon", "rounded_up"]
