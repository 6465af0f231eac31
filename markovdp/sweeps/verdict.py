"""The verdict of one grid point: is the bound consistent with the exact value and the Monte Carlo?"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ATOL", "FLAG_MEANINGS", "FLAG_VALUES", "NOT_APPLICABLE", "OK", "RTOL", "TARGETS", "VIOLATION",
           "verdict"]

OK, VIOLATION, NOT_APPLICABLE = 0, 1, 2
#: CF-convention flag attributes of the ``verdict`` variable.
FLAG_VALUES = np.array([OK, VIOLATION, NOT_APPLICABLE], dtype=np.int8)
FLAG_MEANINGS = "ok violation not_applicable"
#: Relative and absolute slack for floating-point noise in the bound and the exact value.
RTOL, ATOL = 1e-9, 1e-12
TARGETS = ("upper", "equality")


def _number(name: str, value: float) -> float:
    """A real number (NaN and ±inf allowed: they mean something here), else the TypeError naming `name`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"`{name}` must be a real number (NaN allowed); got {value!r} of type {type(value).__name__}.")
    return float(value)


def verdict(bound: float, exact: float, ci_low: float, *, target: str = "upper") -> int:
    """OK (0), VIOLATION (1) or NOT_APPLICABLE (2) for one grid point.

    - NOT_APPLICABLE when `bound` is NaN (no theorem applies).
    - VIOLATION when the truth provably exceeds the bound: ``exact > bound (1 + RTOL) + ATOL``, or the
      Monte Carlo lower confidence limit ``ci_low > bound (1 + RTOL) + ATOL``.
    - For ``target="equality"`` (the bound is a closed form of the truth) also when
      ``exact < bound (1 − RTOL) − ATOL``. The Monte Carlo check stays one-sided: a lower confidence
      limit below the truth is expected.
    - OK otherwise. A NaN `exact` or `ci_low` (unknown / no Monte Carlo) never causes a violation.

    Parameters
    ----------
    bound : the certified bound (NaN if none applies); ``inf`` is a valid, vacuous bound.
    exact : the exact value, NaN if unknown.
    ci_low : the Monte Carlo lower confidence limit at the verdict level, NaN if none.
    target : "upper" (bound >= truth) or "equality" (bound == truth).

    Raises
    ------
    ValueError
        If `target` is not one of ``TARGETS``.
    """
    if target not in TARGETS:
        raise ValueError(f"`target` must be one of {TARGETS}; got {target!r}.")
    bound, exact, ci_low = _number("bound", bound), _number("exact", exact), _number("ci_low", ci_low)
    if math.isnan(bound):
        return NOT_APPLICABLE
    ceiling = bound * (1 + RTOL) + ATOL
    # NaN compares False, so an unknown exact value or a missing Monte Carlo never flags.
    if exact > ceiling or ci_low > ceiling:
        return VIOLATION
    if target == "equality" and exact < bound * (1 - RTOL) - ATOL:
        return VIOLATION
    return OK
