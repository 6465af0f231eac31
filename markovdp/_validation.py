"""Input validation with one message template: ``"`name` must be <allowed>; got <value>."``.

Every public constructor and function validates through these helpers, so a bad input always
raises ``ValueError`` (a bad value) or ``TypeError`` (a bad kind) naming the parameter in backticks.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Rows of a stochastic matrix must sum to 1 within this absolute tolerance (no renormalisation).
ROW_SUM_TOL = 1e-12


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return repr(int(value))
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return repr(value)


def _shown_kind(value: Any) -> str:
    """A value of the wrong kind, as the user typed it plus its type: ``'2' of type str``."""
    return f"{value!r} of type {type(value).__name__}"


def fail(name: str, allowed: str, value: Any, kind: type[Exception] = ValueError) -> Exception:
    """Build the error for `name` (raise the result): ``"`name` must be <allowed>; got <value>."``."""
    return kind(f"`{name}` must be {allowed}; got {_shown(value)}.")


def _as_real_array(name: str, value: ArrayLike) -> NDArray[np.float64]:
    if type(value) is np.ndarray and value.dtype == np.float64:  # the common case: no kind checks to make
        return value.copy()
    return _converted(name, value)


def _converted(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """`value` as a new float64 array, or the TypeError naming what kind it is instead."""
    if isinstance(value, (bool, np.bool_)):
        raise fail(name, "a real number", value, TypeError)
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged input and the like
        raise fail(name, "a real number or array", value, TypeError) from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        # a string is shown quoted with its type: `eps` = "2" must not read as the number 2
        raise fail(name, "a real number or array", _shown_kind(value), TypeError)
    if np.iscomplexobj(arr):
        raise fail(name, "real", value, TypeError)
    return arr.astype(np.float64)


def check_range(
    name: str,
    value: ArrayLike,
    *,
    low: float = -np.inf,
    high: float = np.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
    allowed: str | None = None,
) -> NDArray[np.float64]:
    """Return `value` as a float array after checking every element lies in the stated interval.

    NaN is always rejected; ``±inf`` only with ``allow_inf=True`` (and when inside the interval).
    """
    arr = _as_real_array(name, value)
    if allowed is None:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        allowed = f"in {left}{low:g}, {high:g}{right}"
        if not allow_inf:
            allowed += " and finite"
    # two reductions on the common path (the ufuncs' own: ndarray.min adds ~0.5 µs); the offender only on failure
    if arr.size and _inside(float(np.minimum.reduce(arr, axis=None)), float(np.maximum.reduce(arr, axis=None)),
                            low, high, low_open, high_open, allow_inf):
        return arr
    if np.isnan(arr).any():
        raise fail(name, "a number, not NaN", arr[np.isnan(arr)][0])
    bad = ~((arr > low if low_open else arr >= low) & (arr < high if high_open else arr <= high))
    if not allow_inf:
        bad |= np.isinf(arr)
    if bad.any():
        raise fail(name, allowed, arr[bad][0])
    return arr


def _inside(lo: float, hi: float, low: float, high: float, low_open: bool, high_open: bool,
            allow_inf: bool) -> bool:
    """Whether [lo, hi] (an array's min and max; NaN fails every comparison) lies in the stated interval."""
    above = lo > low if low_open else lo >= low
    below = hi < high if high_open else hi <= high
    return above and below and (allow_inf or (math.isfinite(lo) and math.isfinite(hi)))


def _scalar_or_array(arr: NDArray[np.float64]) -> float | NDArray[np.float64]:
    return float(arr) if arr.ndim == 0 else arr


def check_real(name: str, value: ArrayLike) -> float | NDArray[np.float64]:
    """A finite real number (or array of them)."""
    return _scalar_or_array(check_range(name, value, allowed="finite (not NaN or inf)"))


def check_positive(name: str, value: ArrayLike, *, allow_inf: bool = False) -> float:
    """A scalar > 0 (e.g. `sigma`, `scale`, `sensitivity`)."""
    arr = check_range(name, value, low=0.0, low_open=True, allow_inf=allow_inf,
                      allowed="> 0" + ("" if allow_inf else " and finite"))
    if arr.ndim != 0:
        raise fail(name, "a scalar", value, TypeError)
    return float(arr)


def check_scalar(name: str, value: float | NDArray[np.float64], allowed: str = "a scalar") -> float:
    """A checked value (`check_real`, `check_order`, …) that must be a scalar: the float, or the TypeError."""
    if isinstance(value, np.ndarray):
        raise fail(name, allowed, f"an array of shape {value.shape}", TypeError)
    return float(value)


def check_eps(name: str, value: ArrayLike, *, allow_inf: bool = False) -> float | NDArray[np.float64]:
    """A privacy level eps >= 0 in nats (scalar or array); ``inf`` only where meaningful."""
    arr = check_range(name, value, low=0.0, allow_inf=allow_inf,
                      allowed=">= 0" + ("" if allow_inf else " and finite"))
    return _scalar_or_array(arr)


def check_probability(name: str, value: ArrayLike) -> float | NDArray[np.float64]:
    """A probability in [0, 1] (e.g. `delta`, `gamma`, a mixture weight)."""
    return _scalar_or_array(check_range(name, value, low=0.0, high=1.0, allowed="in [0, 1]"))


def check_order(name: str, value: ArrayLike) -> float | NDArray[np.float64]:
    """A Rényi order alpha in (1, inf]."""
    return _scalar_or_array(check_range(name, value, low=1.0, low_open=True, allow_inf=True,
                                        allowed="in (1, inf]"))


def check_int(name: str, value: Any, *, minimum: int) -> int:
    """An integer >= `minimum` (`TypeError` for a non-integer kind such as 1.5)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise fail(name, f"an integer >= {minimum}", value, TypeError)
    if value < minimum:
        raise fail(name, f"an integer >= {minimum}", value)
    return int(value)


def readonly(arr: NDArray[Any]) -> NDArray[Any]:
    """A read-only copy of `arr`."""
    out = np.array(arr, copy=True)
    out.setflags(write=False)
    return out


def check_probability_vector(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """A 1-D non-negative vector summing to 1 (±1e-12); returned as a read-only copy."""
    arr = check_range(name, value, low=0.0, allowed="non-negative and finite")
    if arr.ndim != 1 or arr.size == 0:
        raise fail(name, "a non-empty 1-D probability vector", f"shape {arr.shape}")
    total = float(arr.sum())
    if abs(total - 1.0) > ROW_SUM_TOL:
        raise fail(name, f"a probability vector summing to 1 (±{ROW_SUM_TOL:g})", f"sum {total!r}")
    return readonly(arr)


def check_stochastic_matrix(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """A row-stochastic matrix: 2-D, non-empty, entries >= 0, each row summing to 1 (±1e-12).

    No silent renormalisation; returns a read-only float64 copy.
    """
    arr = _as_real_array(name, value)
    if arr.ndim == 2 and arr.size and np.minimum.reduce(arr, axis=None) >= 0.0:  # the common case, two passes:
        # NaN fails the min; an inf entry makes its row sum inf, which fails the sum test
        if np.maximum.reduce(np.abs(np.add.reduce(arr, axis=1) - 1.0)) <= ROW_SUM_TOL:
            arr.setflags(write=False)
            return arr
    arr = check_range(name, arr, low=0.0, allowed="non-negative and finite")
    if arr.ndim != 2 or arr.size == 0:
        raise fail(name, "a non-empty 2-D row-stochastic matrix", f"shape {arr.shape}")
    sums = np.add.reduce(arr, axis=1)
    if np.maximum.reduce(np.abs(sums - 1.0)) > ROW_SUM_TOL:  # one reduction on the common path
        row = int(np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOL)[0])
        raise fail(name, f"row-stochastic (each row summing to 1 ±{ROW_SUM_TOL:g})",
                   f"row {row} summing to {float(sums[row])!r}")
    arr.setflags(write=False)  # check_range returned a new array: no second copy
    return arr


def check_states(name: str, x: ArrayLike, k: int) -> NDArray[np.int64]:
    """Input states: integers in [0, k)."""
    arr = np.asarray(x)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise fail(name, f"integer states in [0, {k - 1}]", f"dtype {arr.dtype}", TypeError)
    if arr.size and (arr.min() < 0 or arr.max() >= k):  # two reductions; the offender is looked up on failure
        bad = (arr < 0) | (arr >= k)
        raise fail(name, f"integer states in [0, {k - 1}]", int(arr[bad][0]))
    return np.asarray(arr, dtype=np.int64, order="C")  # a scalar stays a scalar


def check_reporters(name: str, x: ArrayLike, k: int) -> NDArray[np.int64]:
    """The inputs of n >= 1 users, an array of any shape of integers in [0, k) (local mechanisms' ``sample``)."""
    states = check_states(name, x, k)
    if states.size == 0:
        raise fail(name, f"a non-empty array of inputs in [0, {k}) (n >= 1 users)", "an empty array")
    return states


def check_vector(name: str, value: ArrayLike, size: int | None = None, *,
                 broadcast: bool = False) -> NDArray[np.float64]:
    """A non-empty 1-D vector of finite reals, as a new C-contiguous float64 array; of length `size` when given
    (with ``broadcast=True`` a scalar is repeated to that length)."""
    arr = np.ascontiguousarray(np.atleast_1d(check_real(name, value)), dtype=np.float64)
    if broadcast and size is not None and arr.shape == (1,):
        arr = np.full(size, float(arr[0]))
    if arr.ndim != 1 or arr.size == 0 or (size is not None and arr.size != size):
        allowed = ("a non-empty vector" if size is None else
                   f"a scalar or a vector of length {size}" if broadcast else f"a vector of shape ({size},)")
        raise fail(name, allowed, f"shape {arr.shape}")
    return arr


def check_points(name: str, x: ArrayLike, d: int) -> NDArray[np.float64]:
    """Points of R^d: shape (n,) when d = 1 (a scalar is one point), (n, d) otherwise."""
    arr = np.asarray(check_real(name, x), dtype=np.float64)
    if d == 1:
        if arr.ndim > 1 and arr.shape[-1] != 1:
            raise fail(name, "points of R^1, shape (n,)", f"shape {arr.shape}")
        return arr.reshape(arr.shape[:1]) if arr.ndim > 1 else arr
    if arr.ndim == 0 or arr.shape[-1] != d:
        raise fail(name, f"points of R^{d}, shape (n, {d})", f"shape {arr.shape}")
    return arr


def check_instance(name: str, value: Any, kind: type | tuple[type, ...], allowed: str) -> Any:
    """`value` if it is an instance of `kind`, else the TypeError naming `name` (`allowed` says what it must be)."""
    if not isinstance(value, kind):
        raise fail(name, allowed, _shown_kind(value), TypeError)
    return value


def check_callable(name: str, value: Any, allowed: str = "a function") -> Any:
    """`value` if it is callable, else the TypeError naming `name`."""
    if not callable(value):
        raise fail(name, allowed, _shown_kind(value), TypeError)
    return value


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of the strings `choices` (`TypeError` for a non-string, `ValueError` for another string)."""
    allowed = "one of " + ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise fail(name, allowed, _shown_kind(value), TypeError)
    if value not in choices:
        raise fail(name, allowed, repr(value))
    return value


# ---------------------------------------------------------------------------------------------------
# Sizes: refused before allocating (memory) or before hours of work (steps)
# ---------------------------------------------------------------------------------------------------

#: Environment variable overriding the memory cap: bytes, or a number with a suffix K, M, G or T (powers of 1024).
MEMORY_CAP_ENV = "MARKOVDP_MEMORY_CAP"
#: Environment variable overriding the work cap: a number of elementary steps (e.g. 1e12).
WORK_CAP_ENV = "MARKOVDP_WORK_CAP"
#: The memory cap in bytes when set here (tests, a session); None: $MARKOVDP_MEMORY_CAP, else half the physical
#: memory of the machine.
memory_cap_bytes: int | None = None
#: The work cap in elementary steps when set here; None: $MARKOVDP_WORK_CAP, else `DEFAULT_WORK_CAP`.
work_cap_steps: float | None = None
#: The default work cap: 1e11 elementary steps (a path-step of one coordinate, an element of a vectorised
#: array operation) take from a minute to half an hour on one core; what would take hours is refused up front.
DEFAULT_WORK_CAP = 1e11
_SUFFIXES = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _parse_size(text: str) -> float:
    clean = text.strip().upper().removesuffix("B").removesuffix("I")
    suffix = clean[-1:] if clean[-1:] in _SUFFIXES and clean[-1:] else ""
    try:
        number = float(clean[: len(clean) - len(suffix)])
    except ValueError:
        number = math.nan
    if not (number > 0 and math.isfinite(number)):
        raise ValueError(f"`{MEMORY_CAP_ENV}` must be a positive size such as 16G or 17179869184; got {text!r}.")
    return number * _SUFFIXES[suffix]


def memory_cap() -> float:
    """The largest allocation (bytes) one call may make before it refuses: `memory_cap_bytes` if set, else the
    environment variable MARKOVDP_MEMORY_CAP (e.g. ``16G``), else half the machine's physical memory."""
    if memory_cap_bytes is not None:
        return float(memory_cap_bytes)
    text = os.environ.get(MEMORY_CAP_ENV)
    if text:
        return _parse_size(text)
    try:
        return 0.5 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - a platform without sysconf
        return 8.0 * 2**30


def work_cap() -> float:
    """The most elementary steps one call may plan before it refuses: `work_cap_steps` if set, else the
    environment variable MARKOVDP_WORK_CAP (e.g. ``1e13``), else `DEFAULT_WORK_CAP`."""
    if work_cap_steps is not None:
        return float(work_cap_steps)
    text = os.environ.get(WORK_CAP_ENV)
    if not text:
        return DEFAULT_WORK_CAP
    try:
        steps = float(text)
    except ValueError:
        steps = math.nan
    if not (steps > 0 and math.isfinite(steps)):
        raise ValueError(f"`{WORK_CAP_ENV}` must be a positive number of steps such as 1e12; got {text!r}.")
    return steps


def _bytes_text(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def check_memory(name: str, value: Any, nbytes: float, *, what: str = "its arrays") -> None:
    """Refuse `value` of `name` before allocating when `what` would need more than `memory_cap()` bytes."""
    cap = memory_cap()
    if not nbytes <= cap:
        enough = 2 ** max(0, math.ceil(math.log2(nbytes / 2**30))) if math.isfinite(nbytes) else None
        example = f", e.g. {MEMORY_CAP_ENV}={enough}G" if enough is not None and enough <= 2**20 else ""
        raise fail(name, f"small enough that {what} fit in the memory cap of {_bytes_text(cap)} (they would need "
                   f"{_bytes_text(nbytes)}; to allow more, set the environment variable {MEMORY_CAP_ENV}{example})",
                   value)


def check_work(name: str, value: Any, steps: float, *, what: str) -> None:
    """Refuse `value` of `name` before starting when `what` would take more than `work_cap()` steps (hours)."""
    cap = work_cap()
    if not steps <= cap:
        raise fail(name, f"small enough that {what} takes at most {cap:.3g} elementary steps (it would take "
                   f"{steps:.3g}; to allow more, set the environment variable {WORK_CAP_ENV}, e.g. "
                   f"{WORK_CAP_ENV}={10 * steps:.0e})", value)


def check_size(name: str, value: Any, items: float, *, item_bytes: int = 8, what: str = "its arrays") -> None:
    """`check_memory` for `items` array elements of `item_bytes` each (float64 by default)."""
    check_memory(name, value, float(items) * item_bytes, what=what)
