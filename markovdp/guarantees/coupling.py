"""BBGG-T2 with a translation coupling, and its instances BBGG-E1, BBGG-E2, BBGG-E3 (RDP bounds, nats).

For a shift-invariant mechanism M (outputs at query values u, v) and a kernel K whose Rényi divergence
``R_alpha(K(x + t) || K(x))`` is bounded by a function of ||t||, Theorem 2 of BBGG with omega = M at a point w
and the translation coupling of omega and M(u) gives, for every w,
``R_alpha(M(u) K || M(v) K) <= R_M(alpha, ||w − v||) + R_K(alpha, ||u − w||)``. On the segment [v, u] the two
distances are t and Delta − t; `translation_coupling_rdp` minimises over t. The examples only pass their per-step
RDP functions: they are instances of the one minimisation, not separate formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_order, check_positive, check_range, check_real, check_scalar, fail
from ..divergences.exact.laplace import laplace_log_g

#: (alpha, shift) ↦ an upper bound on the Rényi divergence of order alpha between two laws a shift apart.
ShiftRDP = Callable[[float, float], float]

#: The absolute tolerance on the interpolation fraction t / Delta in [0, 1].
XATOL = 1e-12
#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)


def _orders(alpha: ArrayLike) -> tuple[NDArray[np.float64], tuple[int, ...]]:
    arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    return np.atleast_1d(arr).ravel(), arr.shape


def _shaped(values: list[float], shape: tuple[int, ...]) -> float | NDArray[np.float64]:
    out = np.asarray(values, dtype=np.float64).reshape(shape) + 0.0
    return float(out) if out.ndim == 0 else out


def _check_shift_rdp(name: str, fn: object) -> None:
    if not callable(fn):
        raise fail(name, "a function (alpha, shift) -> RDP", type(fn).__name__, TypeError)


def translation_coupling_point(alpha: float, distance: float, mechanism_rdp: ShiftRDP,
                               kernel_rdp: ShiftRDP) -> tuple[float, float]:
    """BBGG-T2 at one order: (the bound, t = ||w − v|| where it is attained) — see `translation_coupling_rdp`.

    The candidates are t = 0, t = distance and bounded Brent's minimiser of the objective (tolerance `XATOL`
    on t/distance); the smallest value wins, so the bound is a value of the objective: valid whatever its shape.
    """
    from scipy.optimize import minimize_scalar

    a = float(check_order("alpha", alpha))
    dist = float(check_range("distance", distance, low=0.0, allowed=">= 0 and finite"))
    _check_shift_rdp("mechanism_rdp", mechanism_rdp)
    _check_shift_rdp("kernel_rdp", kernel_rdp)

    def objective(theta: float) -> float:
        value = float(mechanism_rdp(a, theta * dist)) + float(kernel_rdp(a, (1.0 - theta) * dist))
        if not value >= 0.0:  # NaN or negative: not an RDP value
            raise ValueError(f"the BBGG-T2 objective (mechanism_rdp + kernel_rdp) must be >= 0 (RDP values); got "
                             f"{value!r} at t = {theta * dist!r}.")
        return value

    thetas = [0.0, 1.0]
    values = [objective(0.0), objective(1.0)]
    if dist > 0.0 and not (math.isinf(values[0]) and math.isinf(values[1]) and math.isinf(objective(0.5))):
        found = minimize_scalar(objective, bounds=(0.0, 1.0), method="bounded", options={"xatol": XATOL})
        thetas.append(float(found.x))
        values.append(objective(float(found.x)))
    best = int(np.argmin(values))
    return _rounded_up(values[best]), thetas[best] * dist


def _rounded_up(value: float) -> float:
    """`value` raised by 4 ulps: the objective's few flops can round its value at the minimiser below the exact
    minimum (BBGG-E1 is tight, and fell 1 ulp below alpha Delta²/(2(s1² + s2²)) in floats)."""
    return value + abs(value) * 2.0**-50 if math.isfinite(value) else value


def translation_coupling_rdp(alpha: ArrayLike, distance: float, mechanism_rdp: ShiftRDP,
                             kernel_rdp: ShiftRDP) -> float | NDArray[np.float64]:
    """BBGG-T2 (translation coupling): min over t in [0, distance] of mechanism_rdp(alpha, t) +
    kernel_rdp(alpha, distance − t), for each order alpha in (1, inf].

    `distance` = ||u − v|| >= 0 (the query values' distance, e.g. the sensitivity); `mechanism_rdp(alpha, s)`
    bounds R_alpha(M(v + s) || M(v)), `kernel_rdp(alpha, s)` bounds sup_x R_alpha(K(x + s) || K(x)). The result
    is always a value of the objective (`translation_coupling_point`), so never below the true minimum.
    """
    orders, shape = _orders(alpha)
    return _shaped([translation_coupling_point(float(a), distance, mechanism_rdp, kernel_rdp)[0] for a in orders],
                   shape)


def _gaussian_shift(alpha: float, shift: float, sigma: float) -> float:
    if shift == 0.0:
        return 0.0
    if sigma * sigma >= _TINY and shift * shift >= _TINY:
        return alpha * shift * shift / (2.0 * sigma * sigma)
    ratio = shift / sigma  # a square below the normal range: the ratio first (no division by 0, no loss to 0)
    return 0.5 * alpha * ratio * ratio


def _laplace_shift(alpha: float, shift: float, scale: float) -> float:
    z = abs(shift) / scale
    if math.isinf(alpha):
        return z
    return 0.0 if z == 0.0 else laplace_log_g(alpha, z) / (alpha - 1.0)


def _scalar_order(alpha: float) -> float:
    return check_scalar("alpha", check_order("alpha", alpha), "a scalar Rényi order in (1, inf]")


def _shift(shift: float) -> float:
    return check_scalar("shift", check_real("shift", shift), "a finite real scalar")


def gaussian_shift_rdp(alpha: float, shift: float, sigma: float) -> float:
    """STD-GaussRenyi: R_alpha(N(x + t, sigma² I) || N(x, sigma² I)) = alpha ||t||² / (2 sigma²); 0 at t = 0.

    `alpha` in (1, inf], `shift` t a finite real (its sign does not matter), `sigma` > 0; nats.
    """
    a, t, s = _scalar_order(alpha), _shift(shift), check_positive("sigma", sigma)
    return _gaussian_shift(a, t, s)


def laplace_shift_rdp(alpha: float, shift: float, scale: float) -> float:
    """STD-LapRenyi: R_alpha(Lap(x + t, b) || Lap(x, b)) = log g_alpha(|t|/b) / (alpha − 1); |t|/b at alpha = inf.

    `alpha` in (1, inf], `shift` t a finite real, `scale` b > 0; nats.
    """
    a, t, b = _scalar_order(alpha), _shift(shift), check_positive("scale", scale)
    return _laplace_shift(a, t, b)


def lipschitz_gaussian_shift_rdp(alpha: float, shift: float, lipschitz: float, sigma: float) -> float:
    """sup_x R_alpha(K(x + t) || K(x)) for K(x) = Π(N(psi(x), sigma² I)), psi L-Lipschitz: at most
    alpha L² ||t||² / (2 sigma²) (STD-GaussRenyi at the shift ||psi(x + t) − psi(x)|| <= L ||t||, then STD-DPI
    for the projection Π). `lipschitz` L >= 0 and finite."""
    a, t, s = _scalar_order(alpha), _shift(shift), check_positive("sigma", sigma)
    lip = float(check_range("lipschitz", lipschitz, low=0.0, allowed=">= 0 and finite"))
    return _gaussian_shift(a, lip * t, s)


def iterated_gaussian_rdp(alpha: ArrayLike, *, sensitivity: float, sigma1: float,
                          sigma2: float) -> float | NDArray[np.float64]:
    """BBGG-E1: RDP of N(f(D), sigma1² I) then K(x) = N(x, sigma2² I), by BBGG-T2 (`translation_coupling_rdp`).

    Equals alpha Delta² / (2 (sigma1² + sigma2²)), the exact value (tight).
    """
    s1, s2 = check_positive("sigma1", sigma1), check_positive("sigma2", sigma2)
    return translation_coupling_rdp(alpha, check_positive("sensitivity", sensitivity),
                                    lambda a, t: _gaussian_shift(a, t, s1),
                                    lambda a, t: _gaussian_shift(a, t, s2))


def iterated_laplace_rdp(alpha: ArrayLike, *, sensitivity: float, scale1: float,
                         scale2: float) -> float | NDArray[np.float64]:
    """BBGG-E2: RDP of Lap(f(D), scale1) then K(x) = Lap(x, scale2) on R, by BBGG-T2: min over w in [v, u] of
    (log g_alpha(|w − v|/scale1) + log g_alpha(|u − w|/scale2)) / (alpha − 1); at alpha = inf,
    Delta / max(scale1, scale2) (BBGG-L3: the exact pure eps, so no pure-DP amplification)."""
    b1, b2 = check_positive("scale1", scale1), check_positive("scale2", scale2)
    return translation_coupling_rdp(alpha, check_positive("sensitivity", sensitivity),
                                    lambda a, t: _laplace_shift(a, t, b1),
                                    lambda a, t: _laplace_shift(a, t, b2))


def lipschitz_kernel_rdp(alpha: ArrayLike, *, sensitivity: float, sigma1: float, lipschitz: float,
                         sigma2: float) -> float | NDArray[np.float64]:
    """BBGG-E3: RDP of N(f(D), sigma1² I) then K(x) = Π(N(psi(x), sigma2² I)), psi L-Lipschitz, by BBGG-T2.

    Equals alpha Delta² / (2 s*²) with s*² = sigma1² + sigma2²/L²; psi must be L-Lipschitz on R^d. Tight for every
    linear psi = A x + c with ||A||_2 = L (the worst shift is A's top right singular vector).
    """
    s1, s2 = check_positive("sigma1", sigma1), check_positive("sigma2", sigma2)
    lip = float(check_range("lipschitz", lipschitz, low=0.0, allowed=">= 0 and finite"))
    return translation_coupling_rdp(alpha, check_positive("sensitivity", sensitivity),
                                    lambda a, t: _gaussian_shift(a, t, s1),
                                    lambda a, t: _gaussian_shift(a, lip * t, s2))


__all__ = [
    "gaussian_shift_rdp", "iterated_gaussian_rdp", "iterated_laplace_rdp", "laplace_shift_rdp",
    "lipschitz_gaussian_shift_rdp", "lipschitz_kernel_rdp", "translation_coupling_point", "translation_coupling_rdp",
]
