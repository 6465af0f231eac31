"""Amplification by iteration: BBGG-T4 (path and closed form), BBGG-T4opt, BBGG-T5, BBGG-T5opt (RDP, nats).

The kernels are K_i(x) = Π_W(psi_i(x) + N(0, sigma² I)) with every psi_i L-Lipschitz. The bounds are linear in
the order alpha: each function returns alpha · c (0 where c = 0, also at alpha = inf), or, for the NoisyProjSGD
functions, the slope eps_i itself (R_alpha <= alpha · eps_i).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_order, check_positive, check_range, fail
from ..mechanisms.sgd import check_step

#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)


def _linear(alpha: ArrayLike, slope: float) -> float | NDArray[np.float64]:
    """alpha · slope for alpha in (1, inf] (0 where slope = 0, never 0 · inf = NaN)."""
    arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    out = np.zeros(arr.shape) if slope == 0.0 else arr * slope
    return float(out) + 0.0 if out.ndim == 0 else out + 0.0


def _over_square(numerator: float, root: float, s: float) -> float:
    """numerator / s² with numerator = root², as written where s² is a normal double, else as (root / s)²: a
    tiny sigma gives a huge (or inf) value, never a ZeroDivisionError from s² underflowing to 0."""
    if s * s >= _TINY:
        return numerator / (s * s)
    ratio = root / s
    return ratio * ratio


def _nonnegative(name: str, value: float) -> float:
    return float(check_range(name, value, low=0.0, allowed=">= 0 and finite"))


def opt_factor(lipschitz: float, r: int) -> float:
    """L² / Σ_{j=0}^{r−1} L^(−2j) (r >= 1), computed without overflow: with x = 2 log L, for L < 1 as
    exp(r x + log(−expm1(x)) − log(−expm1(r x))) (= L^(2r)(1 − L²)/(1 − L^(2r))), for L > 1 as
    expm1(x)/(−expm1(−r x)), 1/r at L = 1 and 0 at L = 0. `lipschitz` L >= 0 and finite, `r` an integer >= 1."""
    return _opt_factor(_nonnegative("lipschitz", lipschitz), check_int("r", r, minimum=1))


def _opt_factor(lipschitz: float, r: int) -> float:
    if lipschitz == 0.0:
        return 0.0
    x = 2.0 * math.log(lipschitz)
    if x == 0.0:
        return 1.0 / r
    if x < 0.0:
        return math.exp(r * x + math.log(-math.expm1(x)) - math.log(-math.expm1(r * x)))
    try:
        return math.expm1(x) / -math.expm1(-r * x)
    except OverflowError:
        return math.inf


def lipschitz_path_rdp(alpha: ArrayLike, distances: ArrayLike, *, lipschitz: float,
                       sigma: float) -> float | NDArray[np.float64]:
    """BBGG-T4 (2): RDP after r Lipschitz Gaussian steps for a path mu = mu_0, …, mu_r = nu given by the
    distances W_i = W_inf(mu_i, mu_{i−1}), i = 1..r:
    ``(alpha L² / (2 sigma²)) Σ_i L^(2(r−i)) W_i²``, summed in log space (no overflow for L > 1, large r)."""
    w = np.atleast_1d(check_range("distances", distances, low=0.0, allowed=">= 0 and finite"))
    if w.ndim != 1 or w.size == 0:
        raise fail("distances", "a non-empty 1-D list of W_inf distances W_1..W_r", f"shape {w.shape}")
    lip, s = _nonnegative("lipschitz", lipschitz), check_positive("sigma", sigma)
    r = w.size
    if lip == 0.0 or not w.any():
        return _linear(alpha, 0.0)
    with np.errstate(divide="ignore"):
        log_w = np.log(w)
    terms = 2.0 * (r - np.arange(1, r + 1)) * math.log(lip) + 2.0 * log_w  # log of L^(2(r−i)) W_i²
    top = float(terms.max())
    log_sum = top + math.log(float(np.exp(terms - top).sum()))
    log_slope = 2.0 * math.log(lip) - math.log(2.0) - 2.0 * math.log(s) + log_sum
    return _linear(alpha, math.exp(log_slope) if log_slope < 709.0 else math.inf)


def _chain_inputs(sensitivity: float, lipschitz: float, sigma: float, r: int) -> tuple[float, float, float, int]:
    return (check_positive("sensitivity", sensitivity), _nonnegative("lipschitz", lipschitz),
            check_positive("sigma", sigma), check_int("r", r, minimum=1))


def lipschitz_chain_rdp(alpha: ArrayLike, *, sensitivity: float, lipschitz: float, sigma: float,
                        r: int) -> float | NDArray[np.float64]:
    """BBGG-T4 (3): for L <= 1 and W_inf(mu, nu) = Delta, ``alpha Delta² L^(r+1) / (2 r sigma²)``
    (ValueError for L > 1: use `lipschitz_chain_opt_rdp` or the path form)."""
    delta, lip, s, r = _chain_inputs(sensitivity, lipschitz, sigma, r)
    if lip > 1.0:
        raise fail("lipschitz", "<= 1 for BBGG-T4 (3) (use lipschitz_chain_opt_rdp for L > 1)", lipschitz)
    power = 0.0 if lip == 0.0 else math.exp((r + 1) * math.log(lip))
    return _linear(alpha, _over_square(delta * delta * power / (2.0 * r), delta * math.sqrt(power / (2.0 * r)), s))


def lipschitz_chain_opt_rdp(alpha: ArrayLike, *, sensitivity: float, lipschitz: float, sigma: float,
                            r: int) -> float | NDArray[np.float64]:
    """BBGG-T4opt: (2) on the straight path with step sizes a_i ∝ L^(−2(r−i)), Σ a_i = Delta:
    ``alpha L² Delta² / (2 sigma² Σ_{j=0}^{r−1} L^(−2j))``, any L >= 0 (`opt_factor`; no overflow at r = 1000,
    L = 0.1). Equals (3) at L = 1, strictly smaller for L < 1, r >= 2."""
    delta, lip, s, r = _chain_inputs(sensitivity, lipschitz, sigma, r)
    factor = _opt_factor(lip, r)
    return _linear(alpha, _over_square(delta * delta * factor / 2.0, delta * math.sqrt(factor / 2.0), s))


def _sgd_contraction(lipschitz: float, smoothness: float, strong_convexity: float, eta: float, sigma: float,
                     n: int, index: int) -> tuple[float, float, int]:
    """Validate the BBGG-T5 inputs; return (2 C² / sigma², log L², r = n − index).

    eta (beta + rho) <= 2 is checked exactly (`check_step`), and L² = 1 − 2 eta beta rho/(beta + rho) is taken in
    rational arithmetic and rounded up, so it is 0 only where it is exactly 0 (beta = rho, eta at the limit).
    """
    c = check_positive("lipschitz", lipschitz)
    beta = check_positive("smoothness", smoothness)
    rho = float(check_range("strong_convexity", strong_convexity, low=0.0, high=beta,
                            allowed=f"in [0, smoothness = {beta:g}]"))
    step = check_step(eta, beta, rho)
    s = check_positive("sigma", sigma)
    n = check_int("n", n, minimum=1)
    index = check_int("index", index, minimum=1)
    if index > n:
        raise fail("index", f"an integer in 1..n = 1..{n}", index)
    b, r = Fraction(beta), Fraction(rho)
    l2 = 1 - 2 * Fraction(step) * b * r / (b + r)  # in [0, 1] since eta (beta + rho) <= 2
    upper = float(l2)
    if Fraction(upper) < l2:
        upper = float(np.nextafter(upper, 1.0))
    log_l2 = -math.inf if l2 == 0 else math.log(upper)
    return _over_square(2.0 * c * c, math.sqrt(2.0) * c, s), log_l2, n - index


def noisy_sgd_rdp(*, lipschitz: float, smoothness: float, strong_convexity: float, eta: float, sigma: float,
                  n: int, index: int) -> float:
    """BBGG-T5: eps_i with NoisyProjSGD (alpha, alpha · eps_i)-RDP for neighbours differing in record `index`.

    ``eps_n = 2 C² / sigma²``; for i < n, ``eps_i = 2 C² / ((n − i) sigma²) · (1 − 2 eta beta rho/(beta + rho))
    ^((n − i + 1)/2)`` (C = `lipschitz`, beta = `smoothness`, rho = `strong_convexity`). Needs
    eta <= 2/(beta + rho) (ValueError naming `eta` and the limit) and index in 1..n.
    """
    base, log_l2, r = _sgd_contraction(lipschitz, smoothness, strong_convexity, eta, sigma, n, index)
    factor = math.exp(0.5 * (r + 1) * log_l2)
    if r == 0 or factor == 0.0:
        return base if r == 0 else 0.0  # never inf · 0 (sigma so small that base = inf, full contraction)
    return base / r * factor


def noisy_sgd_opt_rdp(*, lipschitz: float, smoothness: float, strong_convexity: float, eta: float, sigma: float,
                      n: int, index: int) -> float:
    """BBGG-T5opt: eps_i from BBGG-T4opt instead of (3): ``2 C²/sigma² · L² / Σ_{j=0}^{r−1} L^(−2j)`` with
    r = n − index, L² = 1 − 2 eta beta rho/(beta + rho); eps_n = 2 C²/sigma². Same inputs as `noisy_sgd_rdp`."""
    base, log_l2, r = _sgd_contraction(lipschitz, smoothness, strong_convexity, eta, sigma, n, index)
    if r == 0:
        return base
    factor = _opt_factor(math.exp(0.5 * log_l2), r)
    return 0.0 if factor == 0.0 else base * factor  # never inf · 0


def noisy_sgd_convex_rdp(*, lipschitz: float, smoothness: float, eta: float, sigma: float, n: int,
                         index: int) -> float:
    """The non-strongly-convex reference rate of BBGG-T5, eps_i = 2 C² / ((n − i) sigma²) (eps_n = 2 C²/sigma²):
    BBGG-T5 at rho = 0 (L = 1, so BBGG-T4 (3) with constant 2), for a convex beta-smooth loss, eta <= 2/beta."""
    return noisy_sgd_rdp(lipschitz=lipschitz, smoothness=smoothness, strong_convexity=0.0, eta=eta, sigma=sigma,
                         n=n, index=index)


__all__ = [
    "lipschitz_chain_opt_rdp", "lipschitz_chain_rdp", "lipschitz_path_rdp", "noisy_sgd_convex_rdp",
    "noisy_sgd_opt_rdp", "noisy_sgd_rdp", "opt_factor",
]
