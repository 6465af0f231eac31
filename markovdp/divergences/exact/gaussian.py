"""Exact divergences between isotropic Gaussians: STD-GaussHS, STD-GaussRenyi and the Gaussian KL."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ...distributions import Normal
from .registry import Array, NoRule, register


def _normal_pair(mu: Normal, nu: Normal) -> tuple[float, float, float, int]:
    """(D = ||m1 − m2||, sigma1, sigma2, d)."""
    dist = float(np.linalg.norm(np.atleast_1d(mu.mean - nu.mean)))
    return dist, float(mu.sigma), float(nu.sigma), mu.space.d


def gauss_hockey_stick(ratio: float, eps: Array) -> Array:
    """STD-GaussHS: E_{e^eps}(N(0, s² I) || N(v, s² I)) as a function of ratio = ||v||/s.

    ``Phi(a) − e^eps Phi(b)``, ``a = D/(2s) − eps s/D``, ``b = −D/(2s) − eps s/D``, evaluated as
    ``Phi(a) · (−expm1(eps + log Phi(b) − log Phi(a)))`` with `log_ndtr`: the difference of two tiny
    numbers never forms, so eps = 50 or s = 1e-3 keep full relative accuracy (D = s, eps = 10: 9.8e-23).
    """
    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    if ratio == 0.0:
        return out  # identical laws
    finite = np.isfinite(eps)  # eps = inf: D_inf = 0 (mutually absolutely continuous)
    e = eps[finite]
    a = ratio / 2.0 - e / ratio
    b = -ratio / 2.0 - e / ratio
    log_a, log_b = special.log_ndtr(a), special.log_ndtr(b)
    # Phi(a) underflowing to 0 (log_a = -inf, as at tiny D/s) means Phi(a) − e^eps Phi(b) <= Phi(a) = 0.
    zero = np.isneginf(log_a)
    exponent = np.minimum(e + log_b - np.where(zero, 0.0, log_a), 0.0)  # log(e^eps Phi(b)/Phi(a)) <= 0
    values = np.where(zero, 0.0, np.exp(log_a) * -np.expm1(exponent))
    # eps = 0: TV = 2 Phi(D/(2s)) − 1 = erf(D/(2 sqrt(2) s)), exact for tiny D/s too
    values = np.where(e == 0.0, special.erf(ratio / (2.0 * math.sqrt(2.0))), values)
    out[finite] = values
    return out


@register("hockey_stick", "closed_form", (Normal, Normal))
def _hs_normal(mu: Normal, nu: Normal, eps: Array) -> Array:
    dist, s1, s2, _ = _normal_pair(mu, nu)
    if s1 != s2:
        # eps = inf still has a value: both laws have everywhere-positive densities
        if np.all(np.isinf(eps)):
            return np.zeros(eps.shape)
        raise NoRule(f"STD-GaussHS needs equal sigmas (got {s1!r} and {s2!r})")
    return gauss_hockey_stick(dist / s1, eps)


@register("kl", "closed_form", (Normal, Normal))
def _kl_normal(mu: Normal, nu: Normal, _: None) -> Array:
    # KL(N(m1, s1² I) || N(m2, s2² I)) = d/2 (r − 1 − log r) + D²/(2 s2²), r = s1²/s2²
    dist, s1, s2, d = _normal_pair(mu, nu)
    t = (s1 - s2) * (s1 + s2) / s2**2  # r − 1, without cancellation
    return np.array([0.5 * d * (t - math.log1p(t)) + dist**2 / (2.0 * s2**2)])


def gauss_renyi(dist: float, s1: float, s2: float, d: int, alpha: Array) -> Array:
    """STD-GaussRenyi: R_alpha(N(m1, s1² I) || N(m2, s2² I)), D = ||m1 − m2||, alpha in (1, inf].

    Equal sigmas: alpha D²/(2 s²) (alpha = inf: 0 if D = 0 else inf). Otherwise, summed over the d
    coordinates: ``d [log(s2/s1) + log(s2²/s_a²)/(2(alpha−1))] + alpha D²/(2 s_a²)`` with
    ``s_a² = alpha s2² + (1−alpha) s1²`` (+inf when s_a² <= 0). alpha = inf (derived: the sup over x of
    the log ratio, a concave quadratic iff s1 < s2): ``d log(s2/s1) + D²/(2 (s2² − s1²))`` if s1 < s2,
    inf if s1 > s2 — the alpha → inf limit of the finite-alpha formula.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    out = np.empty(alpha.shape)
    inf = np.isinf(alpha)
    a = alpha[~inf]
    if s1 == s2:
        out[~inf] = a * dist**2 / (2.0 * s1**2)  # STD-GaussRenyi, equal variances
        out[inf] = 0.0 if dist == 0.0 else math.inf
        return out
    u = (s2 - s1) * (s2 + s1) / s2**2  # (s2² − s1²)/s2²
    sa2_rel = 1.0 + (a - 1.0) * u  # s_a²/s2² = (alpha s2² + (1 − alpha) s1²)/s2²
    with np.errstate(divide="ignore", invalid="ignore"):
        # d [log(s2/s1) + log(s2²/s_a²)/(2(alpha−1))] = d/2 [−log1p(−u) − log1p((alpha−1) u)/(alpha−1)]
        finite = (0.5 * d * (-math.log1p(-u) - np.log1p((a - 1.0) * u) / (a - 1.0))
                  + a * dist**2 / (2.0 * s2**2 * sa2_rel))
    out[~inf] = np.where(sa2_rel > 0, finite, math.inf)
    if s1 < s2:
        out[inf] = d * math.log(s2 / s1) + dist**2 / (2.0 * (s2 - s1) * (s2 + s1))
    else:
        out[inf] = math.inf
    return out


@register("renyi", "closed_form", (Normal, Normal))
def _renyi_normal(mu: Normal, nu: Normal, alpha: Array) -> Array:
    dist, s1, s2, d = _normal_pair(mu, nu)
    return gauss_renyi(dist, s1, s2, d, alpha)
