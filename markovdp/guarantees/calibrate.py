"""`calibrate`: the parameter of a one-parameter family of mechanisms or pipelines that just meets a target
(eps, delta), by bracketing on the certificate's best curve (the exact profile where it is known, STD-Exact)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._validation import check_callable, check_eps, check_probability, check_real, check_scalar, fail
from ..mechanisms.base import Mechanism
from .registry import certify

#: Relative tolerance of the root in p (continuous families); the answer is then moved onto the safe side.
RTOL = 1e-12
#: The points that check monotonicity at the bracket ends sit this fraction of the bracket inside it.
END_STEP = 0.01


def calibrate(family: Callable[[Any], Mechanism], target_eps: float, target_delta: float, *,
              bounds: Sequence[float], integer: bool = False) -> float | int:
    """The parameter p in `bounds` at which ``certify(family(p))`` just meets the target:
    delta_best(target_eps) <= target_delta at p, and p is the least private such value (the boundary).

    delta_best is `Certificate.delta`: the best certified curve, which is the exact profile wherever
    `privacy_profile` knows it (the rule EXACT, STD-Exact). The search relies on delta_best(target_eps) being
    monotone in p over `bounds`: exactly one end must meet the target (that end decides the direction: a noise
    scale or a number of steps meets it at ``hi``, a sensitivity at ``lo``), and the monotonicity is checked
    next to each end. Continuous p: Brent's method on delta_best(target_eps) − target_delta (relative tolerance
    1e-12), then p is moved towards the satisfying end until the target holds there, so the returned p always
    meets it. Integer p (``integer=True``, e.g. the r of ``K ** r``): bisection over the integers; the answer is
    the satisfying integer next to one that does not.

    Parameters
    ----------
    family : p ↦ a mechanism or pipeline ``M >> K`` (e.g. ``lambda s: GaussianMechanism(1.0) >> GaussianKernel(s)``).
    target_eps : eps in nats, >= 0 and finite.
    target_delta : delta in [0, 1].
    bounds : (lo, hi), finite, lo < hi (integers when `integer`): the bracket searched.
    integer : the parameter is an integer (the family is called with Python ints only).

    Returns
    -------
    float (int when `integer`): the least private p in `bounds` that meets the target.

    Raises
    ------
    TypeError
        `family` not callable or returning something other than a Mechanism; `bounds` not a pair; `integer`
        not a bool; non-integer `bounds` with ``integer=True``.
    ValueError
        A target out of range; `bounds` not finite or not lo < hi; both or neither end meeting the target; a
        delta_best that is not monotone next to the ends.
    """
    check_callable("family", family, "a function p -> mechanism or pipeline")
    eps = check_scalar("target_eps", check_eps("target_eps", target_eps))
    delta = check_scalar("target_delta", check_probability("target_delta", target_delta))
    if not isinstance(integer, (bool, np.bool_)):
        raise fail("integer", "True or False", repr(integer), TypeError)
    lo, hi = _bounds(bounds, bool(integer))

    values: dict[float, float] = {}

    def delta_at(p: float) -> float:
        if p not in values:
            subject = family(p)
            if not isinstance(subject, Mechanism):
                raise TypeError(f"`family` must return a Mechanism or a pipeline `M >> K`; got "
                                f"{type(subject).__name__} for p = {p!r}.")
            values[p] = float(certify(subject).delta(eps))
        return values[p]

    def meets(p: float) -> bool:
        return delta_at(p) <= delta

    if meets(lo) == meets(hi):
        which = "both ends meet it" if meets(lo) else "neither end meets it"
        raise ValueError(f"`bounds` must be (lo, hi) with exactly one end meeting the target delta(`target_eps` = "
                         f"{eps:g}) <= `target_delta` = {delta:g}; got delta = {delta_at(lo):.6g} at lo = {lo!r} and "
                         f"{delta_at(hi):.6g} at hi = {hi!r}: {which}.")
    good, bad = (hi, lo) if meets(hi) else (lo, hi)
    _check_monotone_at_ends(delta_at, lo, hi, falling=good == hi, integer=bool(integer))
    if integer:
        while abs(good - bad) > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if meets(mid) else (good, mid)
        return int(good)
    from scipy.optimize import brentq  # imported here: `import markovdp` stays light

    root = float(brentq(lambda p: delta_at(p) - delta, lo, hi, xtol=RTOL * (hi - lo), rtol=RTOL))
    return _safe_side(meets, root, good)


def _bounds(bounds: Any, integer: bool) -> tuple[Any, Any]:
    """(lo, hi): two finite reals with lo < hi (Python ints when `integer`)."""
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, Sequence) and not isinstance(bounds, np.ndarray):
        raise fail("bounds", "a pair (lo, hi)", repr(bounds), TypeError)
    if len(bounds) != 2:
        raise fail("bounds", "a pair (lo, hi)", repr(tuple(bounds)), TypeError)
    if integer:
        if not all(isinstance(b, numbers.Integral) and not isinstance(b, (bool, np.bool_)) for b in bounds):
            raise fail("bounds", "a pair of integers (lo, hi) with integer=True", repr(tuple(bounds)), TypeError)
        lo, hi = int(bounds[0]), int(bounds[1])
    else:
        lo, hi = (check_scalar("bounds", check_real("bounds", b)) for b in bounds)
    if not lo < hi:
        raise fail("bounds", "(lo, hi) with lo < hi", repr((lo, hi)))
    return lo, hi


def _check_monotone_at_ends(delta_at: Callable[[Any], float], lo: Any, hi: Any, *, falling: bool,
                            integer: bool) -> None:
    """delta_best must move from the failing end towards the satisfying one next to both ends (ties allowed):
    compared at lo, lo + w, hi − w and hi, w = 1% of the bracket (one step for integers)."""
    step = 1 if integer else END_STEP * (hi - lo)
    if integer and hi - lo < 2:
        return
    inner_lo, inner_hi = lo + step, hi - step
    pairs = ((lo, inner_lo), (inner_hi, hi))
    for left, right in pairs:
        a, b = delta_at(left), delta_at(right)
        if (b > a) if falling else (b < a):
            trend = "fall" if falling else "rise"
            raise ValueError(f"`family` must be monotone in p over `bounds`: delta(target_eps) must {trend} with p "
                             f"(the end {'hi' if falling else 'lo'} meets the target); got delta = {a:.6g} at "
                             f"p = {left!r} and {b:.6g} at p = {right!r}.")


def _safe_side(meets: Callable[[float], bool], root: float, good: float) -> float:
    """root if it meets the target, else the first point met stepping from it towards `good` (which meets it), the
    step doubling from the root's tolerance: the returned p always meets the target."""
    if meets(root):
        return root
    direction = math.copysign(1.0, good - root)
    step = max(RTOL * abs(root), math.ulp(root))
    while True:
        p = root + direction * step
        if (p - good) * direction >= 0.0:
            return float(good)
        if meets(p):
            return p
        step *= 2.0


__all__ = ["calibrate"]
