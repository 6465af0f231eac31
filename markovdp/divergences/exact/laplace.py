"""Exact divergences between Laplace laws on R: STD-LapHS, STD-LapRenyi (BBGG-E2's g_alpha) and the KL."""

from __future__ import annotations

import math

import numpy as np

from ...distributions import Laplace
from .registry import Array, NoRule, register


def laplace_hockey_stick(z: float, eps: Array) -> Array:
    """STD-LapHS: E_{e^eps}(Lap(0, b) || Lap(D, b)) with z = D/b: ``1 − e^((eps − z)/2)`` for eps < z, else 0.

    The privacy loss is bounded by z, so the value is exactly 0 for eps >= z (eps = inf included).
    """
    eps = np.asarray(eps, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(eps < z, -np.expm1(np.minimum(eps - z, 0.0) / 2.0), 0.0)


def laplace_log_g(alpha: float, z: float) -> float:
    """BBGG-E2: log g_alpha(z), with g_alpha(z) = w1 e^(z(alpha−1)) + w2 e^(−z alpha).

    Weights w1 = alpha/(2alpha−1), w2 = (alpha−1)/(2alpha−1). By `logaddexp` (alpha = 1e3 is finite);
    for small exponents by ``log1p(w1 expm1(x1) + w2 expm1(x2))`` (the weights sum to 1), which keeps
    full relative accuracy as z → 0.
    """
    if 2.0 * alpha - 1.0 > 1.7e308:  # alpha > 8.5e307: 2 alpha − 1 overflows; both weights are 1/2 in doubles
        w1 = w2 = 0.5
    else:
        w1, w2 = alpha / (2.0 * alpha - 1.0), (alpha - 1.0) / (2.0 * alpha - 1.0)
    x1, x2 = z * (alpha - 1.0), -z * alpha
    if max(abs(x1), abs(x2)) < 0.5:
        return math.log1p(w1 * math.expm1(x1) + w2 * math.expm1(x2))
    with np.errstate(over="ignore"):  # x1 − x2 may overflow inside logaddexp; its result is still exact
        return float(np.logaddexp(math.log(w1) + x1, math.log(w2) + x2))


def laplace_renyi(z: float, alpha: Array) -> Array:
    """STD-LapRenyi: R_alpha(Lap(0, b) || Lap(D, b)) = log g_alpha(z)/(alpha − 1), z = D/b; alpha = inf: z."""
    alpha = np.asarray(alpha, dtype=np.float64)
    return np.array([z if math.isinf(a) else laplace_log_g(float(a), z) / (a - 1.0) for a in alpha])


@register("hockey_stick", "closed_form", (Laplace, Laplace))
def _hs_laplace(mu: Laplace, nu: Laplace, eps: Array) -> Array:
    if mu.scale != nu.scale:
        if np.all(np.isinf(eps)):
            return np.zeros(eps.shape)
        raise NoRule(f"STD-LapHS needs equal scales (got {mu.scale!r} and {nu.scale!r})")
    return laplace_hockey_stick(abs(mu.loc - nu.loc) / mu.scale, eps)


@register("kl", "closed_form", (Laplace, Laplace))
def _kl_laplace(mu: Laplace, nu: Laplace, _: None) -> Array:
    # KL(Lap(m1, b1) || Lap(m2, b2)) = log(b2/b1) + D/b2 + (b1/b2) e^(−D/b1) − 1
    #   (derived: E|X − m1| = b1 and E|X − m2| = D + b1 e^(−D/b1) for X ~ Lap(m1, b1))
    #   = (u − log1p(u)) + (b1/b2)(z1 + expm1(−z1)), u = b1/b2 − 1, z1 = D/b1:
    #   two terms >= 0, so no cancellation.
    # Equal scales: z + e^(−z) − 1.
    b1, b2 = mu.scale, nu.scale
    z1 = abs(mu.loc - nu.loc) / b1
    u = (b1 - b2) / b2
    return np.array([(u - math.log1p(u)) + (b1 / b2) * (z1 + math.expm1(-z1))])


def laplace_renyi_scales(dist: float, b1: float, b2: float, alpha: Array) -> Array:
    """R_alpha(Lap(m1, b1) || Lap(m2, b2)) for b1 != b2, dist = |m1 − m2|, alpha in (1, inf].

    Derived here (THEORY: Notation, R_alpha): with m1 = 0, m2 = D, the integrand p^alpha q^(1−alpha) is
    ``K exp(−alpha|x|/b1 + (alpha−1)|x − D|/b2)``, ``K = (2b1)^(−alpha) (2b2)^(alpha−1)``; both tails decay
    at the rate ``lam = alpha/b1 − (alpha−1)/b2``, so the integral is +inf iff lam <= 0 (possible iff
    b1 > b2), and otherwise, summing the three pieces x < 0, 0 < x < D, x > D (``mu = alpha/b1 +
    (alpha−1)/b2``):
    ``K [e^((alpha−1)D/b2) (1/lam + (1 − e^(−mu D))/mu) + e^(−alpha D/b1)/lam]``.
    alpha = inf: log(b2/b1) + D/b2 if b1 < b2 (the sup of log p/q, at x = m1), inf if b1 > b2.
    """
    out = np.empty(alpha.shape)
    for n, a in enumerate(alpha):
        if math.isinf(a):
            out[n] = math.log(b2 / b1) + dist / b2 if b1 < b2 else math.inf
            continue
        lam = a / b1 - (a - 1.0) / b2
        if lam <= 0.0:
            out[n] = math.inf  # the tails of p^alpha q^(1−alpha) do not decay
            continue
        rate = a / b1 + (a - 1.0) / b2
        log_k = -a * math.log(2.0 * b1) + (a - 1.0) * math.log(2.0 * b2)
        near = (a - 1.0) * dist / b2 + math.log(1.0 / lam - math.expm1(-rate * dist) / rate)
        far = -a * dist / b1 - math.log(lam)
        out[n] = (log_k + float(np.logaddexp(near, far))) / (a - 1.0)
    return out


@register("renyi", "closed_form", (Laplace, Laplace))
def _renyi_laplace(mu: Laplace, nu: Laplace, alpha: Array) -> Array:
    b1, b2 = mu.scale, nu.scale
    dist = abs(mu.loc - nu.loc)
    if b1 == b2:
        return laplace_renyi(dist / b1, alpha)
    return laplace_renyi_scales(dist, b1, b2, alpha)
