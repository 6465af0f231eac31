"""Profiles as functions of eps (nats): the smallest eps with delta(eps) <= delta, made conservative in floats.

Low-level numerics shared by every layer that inverts a privacy profile (pair sets' closed forms, certificates):
they take a profile as a plain function and never know what computed it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


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


#: The most ulps `rounded_up` walks up from a closed-form eps before falling back to `invert_profile`.
NUDGES = 64


def rounded_up(eps: float, profile: Callable[[float], float], delta: float = 0.0) -> float:
    """A closed-form eps(delta) (e.g. R_inf at delta = 0: eps-DP iff eps >= R_inf) made conservative in
    floats: raised by ulps until ``profile(eps) <= delta`` holds exactly in the profile's own rounding,
    else found by `invert_profile`. inf stays inf."""
    eps = max(float(eps), 0.0)
    for _ in range(NUDGES):
        if not math.isfinite(eps) or profile(eps) <= delta:
            return eps
        eps = float(np.nextafter(eps, math.inf))
    return invert_profile(profile, delta)


__all__ = ["NUDGES", "invert_profile", "rounded_up"]
