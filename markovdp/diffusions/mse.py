"""Utility of the OU mechanism against Gaussian mechanisms with the same RDP (BBGG-MSE, BBGG-T8).

The OU mechanism M_t^f(D) = N(e^(−theta t) f(D), s_t² I), s_t² = (rho²/theta)(1 − e^(−2 theta t)), is
(alpha, alpha Lambda(t))-RDP (BBGG-C7). The Gaussian mechanism f(D) + N(0, s~² I) with
``s~² = rho² (e^(2 theta t) − 1)/theta = Delta²/(2 Lambda(t))`` has the same RDP curve (STD-GaussRenyi). Squared
errors E||f(D) − output||² are in the squared units of f; d is the length of f(D).

Closed forms used here (derived from BBGG-MSE): with u = theta t and c = theta ||f||²/(d rho²),
``E_OU/E_GM = e^(−2u) (1 + c tanh(u/2))``, since (1 − e^(−u))²/(e^(2u) − 1) = e^(−2u) tanh(u/2) and
(1 − e^(−2u))/(e^(2u) − 1) = e^(−2u). Both errors and the ratio are evaluated with expm1 / tanh: no cancellation
at small theta t, and the ratio stays finite (→ 0) where E_GM overflows.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_positive, check_range, check_vector, fail
from .intrinsic_sensitivity import _quotient


def _params(theta: float, rho: float, t: float) -> tuple[float, float, float]:
    theta, rho = check_positive("theta", theta), check_positive("rho", rho)
    t = float(check_range("t", t, low=0.0, allowed=">= 0 and finite").reshape(()))
    return theta, rho, t


def ou_mse(theta: float, rho: float, t: float, value: ArrayLike) -> float:
    """BBGG-MSE: E_OU = E||f(D) − M_t^f(D)||² = (1 − e^(−theta t))² ||f(D)||² + d (rho²/theta)(1 − e^(−2 theta t)).

    `value` = f(D), a vector (a scalar is d = 1); theta, rho > 0, t >= 0 (E_OU = 0 at t = 0).
    """
    theta, rho, t = _params(theta, rho, t)
    f = check_vector("value", value)
    if t == 0.0:
        return 0.0
    largest = float(np.abs(f).max())
    norm = largest * float(np.sqrt(((f / largest) ** 2).sum())) if largest > 0.0 else 0.0  # no overflow of ||f||²
    bias = _quotient(_one_minus_exp(theta, t) * 2 + (norm, norm), ()) if norm > 0.0 else 0.0
    noise = _quotient((float(f.size), rho, rho) + _one_minus_exp(2.0 * theta, t), (theta,))
    return bias + noise


def _one_minus_exp(a: float, b: float) -> tuple[float, ...]:
    """1 − e^(−ab) for a, b > 0 as factors for `_quotient`: (a, b, (1 − e^(−u))/u) with u = ab, exact where u
    underflows; (1 − e^(−u),) where it does not (u may overflow to inf: then the factor is 1)."""
    u = a * b
    if u >= 1.0:
        return (-math.expm1(-u),)
    return (a, b, _one_minus_exp_ratio(u))


def _one_minus_exp_ratio(u: float) -> float:
    """(1 − e^(−u))/u for u >= 0 (1 at u = 0 or where u underflowed)."""
    return -math.expm1(-u) / u if u >= np.finfo(np.float64).tiny else 1.0


def _harmonic(a: float, b: float) -> float:
    """ab/(a + b) = 1/(1/a + 1/b) for a, b >= 0 (inf allowed): no overflow of ab, 0 when either is 0."""
    if a == 0.0 or b == 0.0:
        return 0.0
    return 1.0 / (1.0 / a + 1.0 / b)


def matched_gaussian_variance(theta: float, rho: float, t: float) -> float:
    """s~² = rho² (e^(2 theta t) − 1)/theta: the Gaussian mechanism with this variance and sensitivity Delta has
    RDP alpha Delta²/(2 s~²) = alpha Lambda(t), the OU mechanism's (BBGG-MSE, BBGG-C7); inf once it overflows."""
    theta, rho, t = _params(theta, rho, t)
    x = 2.0 * theta * t
    if x > 709.0:  # e^x overflows: log s~² = 2 log rho + x + log1p(−e^(−x)) − log theta
        log_value = 2.0 * math.log(rho) + x + math.log1p(-math.exp(-x)) - math.log(theta)
        return math.inf if log_value > 709.78 else math.exp(log_value)
    if t == 0.0:
        return 0.0
    # rho² (e^x − 1)/theta = 2 rho² t (e^x − 1)/x: exact where x underflows
    return _quotient((rho, rho, 2.0 * t, math.expm1(x) / x if x >= np.finfo(np.float64).tiny else 1.0), ())


def matched_gaussian_mse(theta: float, rho: float, t: float, dim: int) -> float:
    """BBGG-MSE: E_GM = d s~², the squared error of f(D) + N(0, s~² I) (`matched_gaussian_variance`), d = `dim`."""
    return check_int("dim", dim, minimum=1) * matched_gaussian_variance(theta, rho, t)


def post_processed_gaussian_mse(theta: float, rho: float, t: float, dim: int, radius: float) -> float:
    """BBGG-MSE: E_PGM <= E_GM (1 + d s~²/R²)^(−1) = R² d s~²/(R² + d s~²) for beta (f(D) + N(0, s~² I)).

    With beta* = R²/(R² + d s~²) the error (1 − beta)² ||f||² + beta² d s~² is largest at ||f|| = R, where it
    equals this bound: the bound is the exact worst case over ||f(D)|| <= R of the post-processed Gaussian
    mechanism with beta*, and beta* is the optimal beta at ||f|| = R. R = `radius` > 0; evaluated as
    1/(1/R² + 1/(d s~²)) (→ R² as s~² → inf, → d s~² as R → inf).
    """
    r = check_positive("radius", radius)
    return _harmonic(r * r, matched_gaussian_mse(theta, rho, t, dim))


def post_processed_gaussian_mse_at(theta: float, rho: float, t: float, value: ArrayLike, radius: float) -> float:
    """E||beta* (f + Z) − f||² = (1 − beta*)² ||f||² + beta*² d s~², Z ~ N(0, s~² I), beta* = R²/(R² + d s~²).

    The exact error of the post-processed Gaussian mechanism tuned to the radius R, at f(D) = `value`
    (||value|| <= R is not required; at ||value|| = R it equals `post_processed_gaussian_mse`).
    """
    f = check_vector("value", value)
    r = check_positive("radius", radius)
    gm = matched_gaussian_mse(theta, rho, t, f.size)
    if gm == 0.0:
        return 0.0
    r2 = r * r  # inf or 0 at the extremes: q is then 0 or inf, both handled
    q = math.inf if r2 == 0.0 else gm / r2  # d s~²/R²: 1 − beta* = q/(1 + q), beta*² d s~² = d s~²/(1 + q)²
    shrink = 1.0 if math.isinf(q) else q / (1.0 + q)
    noise = 0.0 if math.isinf(q) else gm / (1.0 + q) ** 2
    return shrink**2 * float(f @ f) + noise


def ou_mse_ratio(theta: float, rho: float, t: float, dim: int, radius: float) -> float:
    """E_OU/E_GM at ||f(D)|| = R (its largest value over ||f|| <= R: E_OU grows with ||f||, E_GM does not):
    e^(−2 theta t) (1 + (theta R²/(d rho²)) tanh(theta t / 2)). BBGG-T8: <= 1 for every t > 0 when
    theta R² <= 4 d rho², → 0 as t → inf. t > 0 (both errors vanish at t = 0)."""
    theta, rho = check_positive("theta", theta), check_positive("rho", rho)
    t = check_positive("t", t)
    d = check_int("dim", dim, minimum=1)
    u = theta * t
    r = check_positive("radius", radius)
    return math.exp(-2.0 * u) * (1.0 + _quotient((theta, r, r, math.tanh(0.5 * u)), (float(d), rho, rho)))


def ou_theorem8_condition(theta: float, rho: float, dim: int, radius: float) -> bool:
    """BBGG-T8's hypothesis theta R² <= 4 d rho² (then E_OU/E_GM <= 1 for all t > 0)."""
    theta, rho = check_positive("theta", theta), check_positive("rho", rho)
    d = check_int("dim", dim, minimum=1)
    r = check_positive("radius", radius)
    return bool(_quotient((theta, r, r), (4.0, float(d), rho, rho)) <= 1.0)  # no overflow of R² or rho²


def ou_theorem8_parameters(eps: float, sensitivity: float, radius: float, dim: int) -> tuple[float, float]:
    """BBGG-T8's choice (theta, rho): theta = log(1 + d Delta²/(2 eps R²)),
    rho² = theta Delta²/(2 eps (e^(2 theta) − 1)).

    Then Lambda(1) = eps (M_1^f is (alpha, alpha eps)-RDP), E_GM(theta, rho, 1) = d Delta²/(2 eps), and
    E_OU/E_GM at t = 1 is at most (1 + d Delta²/(2 eps R²))^(−1) = e^(−theta) (`ou_theorem8_ratio_bound`), with
    equality at ||f|| = R. THEORY's note: this choice meets theta R² <= 4 d rho² only when d Delta²/(2 eps R²) <= 2
    (then theta R²/(d rho²) = e^theta + 1 <= 4), so "ratio <= 1 for all t" is not claimed for it otherwise.
    eps, sensitivity Delta, radius R > 0 (nats; Delta and R in the units of f), dim d >= 1.
    """
    eps = check_positive("eps", eps)
    delta = check_positive("sensitivity", sensitivity)
    radius = check_positive("radius", radius)
    d = check_int("dim", dim, minimum=1)
    log_ratio = math.log(d) + 2.0 * (math.log(delta) - math.log(radius)) - math.log(2.0) - math.log(eps)
    # theta = log(1 + e^l), l = log_ratio: finite for every positive double input
    theta = log_ratio + math.log1p(math.exp(-log_ratio)) if log_ratio > 0.0 else math.log1p(math.exp(log_ratio))
    if theta < np.finfo(np.float64).tiny:
        raise fail("eps", f"small enough against (sensitivity/radius)² that theta = log(1 + d Delta²/(2 eps R²)) is a "
                          f"normal double (d Delta²/(2 eps R²) = e^{log_ratio:.6g} here)", eps)
    # rho² = theta Delta² e^(−2 theta) / (2 eps (1 − e^(−2 theta))) = Delta² e^(−2 theta) / (4 eps g(2 theta)),
    # g(u) = (1 − e^(−u))/u, in logs: no overflow of e^(2 theta) or of Delta²
    log_rho2 = 2.0 * math.log(delta) - math.log(4.0) - math.log(eps) - 2.0 * theta \
        - math.log(_one_minus_exp_ratio(2.0 * theta))
    return theta, math.exp(0.5 * log_rho2)


def ou_theorem8_ratio_bound(eps: float, sensitivity: float, radius: float, dim: int) -> float:
    """(1 + d Delta²/(2 eps R²))^(−1): BBGG-T8's bound on E_OU/E_GM at t = 1 for `ou_theorem8_parameters`."""
    eps = check_positive("eps", eps)
    delta, d = check_positive("sensitivity", sensitivity), check_int("dim", dim, minimum=1)
    r = check_positive("radius", radius)
    return 1.0 / (1.0 + _quotient((float(d), delta, delta), (2.0, eps, r, r)))  # inf ratio: 0


__all__ = [
    "matched_gaussian_mse",
    "matched_gaussian_variance",
    "ou_mse",
    "ou_mse_ratio",
    "ou_theorem8_condition",
    "ou_theorem8_parameters",
    "ou_theorem8_ratio_bound",
    "post_processed_gaussian_mse",
    "post_processed_gaussian_mse_at",
]
