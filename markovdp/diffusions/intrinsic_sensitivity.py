"""Closed-form intrinsic sensitivity Lambda(t) (BBGG-T6) of the Brownian and Ornstein–Uhlenbeck semigroups.

Brownian motion dX = √2 dW (BBGG-BM): ``Delta²/(4t)``; OU dX = −theta X dt + √2 rho dW (BBGG-C7):
``theta Delta²/(2 rho² (e^(2 theta t) − 1))``. Nats per unit of alpha. The numerical route for other
semigroups is in `markovdp.guarantees.intrinsic_sensitivity`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive, check_range


def _time(name: str, t: float) -> float:
    """A time t >= 0 (finite scalar)."""
    return float(check_range(name, t, low=0.0, allowed=">= 0 and finite").reshape(()))


def brownian_intrinsic_sensitivity(sensitivity: float, t: float) -> float:
    """BBGG-BM: Lambda(t) = Delta²/(4t) for dX = √2 dW (the Gaussian mechanism with sigma² = 2t); inf at t = 0.

    `sensitivity` Delta > 0 (L2), `t` >= 0. Products of floats only: inf when the value overflows, 0 when it
    underflows, never an exception. The one implementation (`BrownianSemigroup.intrinsic_sensitivity` calls it).
    """
    delta = check_positive("sensitivity", sensitivity)
    t = _time("t", t)
    if t == 0.0:
        return math.inf
    return _quotient((delta, delta), (4.0, t))


def _quotient(numerators: tuple[float, ...], denominators: tuple[float, ...]) -> float:
    """prod(numerators)/prod(denominators) of positive finite floats: the mantissas and binary exponents are
    combined apart (`math.frexp`), so no intermediate product overflows or underflows (each mantissa product
    rounds as float arithmetic does: a few ulp in all). inf when the value overflows, 0 (or a subnormal) when it
    underflows."""
    mantissa, exponent = 1.0, 0
    for value, sign in [(v, 1) for v in numerators] + [(v, -1) for v in denominators]:
        m, e = math.frexp(value)
        mantissa = mantissa * m if sign > 0 else mantissa / m
        exponent += sign * e
        m, e = math.frexp(mantissa)  # keep the running mantissa in [0.5, 1)
        mantissa, exponent = m, exponent + e
    try:
        return math.ldexp(mantissa, exponent)
    except OverflowError:
        return math.inf


def _log_expm1(x: float) -> float:
    """log(e^x − 1) for x >= 700: x + log1p(−e^(−x))."""
    return x + math.log1p(-math.exp(-x))


def ou_intrinsic_sensitivity(theta: float, rho: float, sensitivity: float, t: float) -> float:
    """BBGG-C7: Lambda(t) = theta Delta² / (2 rho² (e^(2 theta t) − 1)) for dX = −theta X dt + √2 rho dW.

    With x = 2 theta t: ``theta Delta² / (2 rho² expm1(x))`` by `_quotient` (no intermediate overflow) for
    x < 700; Delta²/(4 rho² t (1 + theta t)) where x underflows (theta = t = 1e-300); c e^(−x)/(1 − e^(−x)),
    c = theta Delta²/(2 rho²), for larger x, in log space only where c or e^(−x) leaves the normal floats (there
    rounded upwards by a bound on the rounding of the logs, ~1e-11 relative).
    inf at t = 0 or when it overflows; never an exception (in the log-space branch a value below the smallest
    double is rounded up to it). `theta`, `rho`,
    `sensitivity` > 0, `t` >= 0. The one implementation (`OrnsteinUhlenbeckSemigroup.intrinsic_sensitivity`
    calls it).
    """
    theta = check_positive("theta", theta)
    rho = check_positive("rho", rho)
    delta = check_positive("sensitivity", sensitivity)
    t = _time("t", t)
    if t == 0.0:
        return math.inf
    x = 2.0 * theta * t
    tiny = np.finfo(np.float64).tiny
    if x < tiny:  # theta t underflowed: e^x − 1 = x (1 + x/2), x = 2 theta t
        return _quotient((delta, delta), (4.0, rho, rho, t)) / (1.0 + theta * t)
    if x == math.inf:  # 2 theta t overflowed: log Lambda <= log c − x with |log c| < 3600 and x > 1.7e308
        return math.nextafter(0.0, math.inf)  # below every double: the smallest one, never 0 (see above)
    if x < 700.0:
        return _quotient((theta, delta, delta), (2.0, rho, rho, math.expm1(x)))
    c = _quotient((theta, delta, delta), (2.0, rho, rho))  # Lambda = c e^(−x) / (1 − e^(−x))
    decay = math.exp(-x)
    if tiny <= c < math.inf and decay >= tiny:
        return c * decay / -math.expm1(-x)
    logs = (math.log(theta), 2.0 * math.log(delta), -2.0 * math.log(rho), -math.log(2.0), -_log_expm1(x))
    # each term carries a rounding error of a few ulp of its size, and exp turns an absolute error of the sum into
    # a relative one: add a bound on it, so that Lambda (an RDP bound) is rounded upwards, never below the truth
    log_value = math.fsum(logs) + 8.0 * np.finfo(np.float64).eps * sum(abs(v) for v in logs)
    if log_value > 709.78:
        return math.inf
    value = math.exp(log_value)
    return value if value >= tiny else math.nextafter(value, math.inf)  # a subnormal: up by its one-ulp rounding


__all__ = ["brownian_intrinsic_sensitivity", "ou_intrinsic_sensitivity"]
