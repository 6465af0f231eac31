"""Exact divergences between two shifts of one noise-chain law on R (STD-LaplaceSumN, STD-NormalLaplace).

P = law of Z, Q = law of Z + Δ, Z = N(0, s²) + Σ_i Lap(0, b_i) (`LaplaceSumN`: no Gaussian; `NormalLaplace`).
The density f of Z is symmetric and log-concave (a convolution of such), so the privacy loss
L(x) = log f(x) − log f(x − Δ) is non-increasing, odd about Δ/2, and bounded by Δ/b_max (the tails are
e^(−|x|/b_max) times a slower factor; b_max = max b_i): R_inf = Δ/b_max and E_{e^eps} = 0 for eps >= Δ/b_max.

Hockey-stick: the optimal event is the half-line {x <= t}, L(t) = eps (Brent's method on L from the log
densities), and E_{e^eps} = F(t) − e^eps F(t − Δ), read from the survival function S in log space:
``S(u) (−expm1(eps + log S(u + Δ) − log S(u)))`` for t = −u <= 0 and ``1 − S(t) − e^eps S(Δ − t)`` for
0 <= t <= Δ/2 (TV: −expm1(log 2 + log S(Δ/2))). With f and S relative to ~1e-13, the value keeps that accuracy
except as eps approaches Δ/b_max, where the two terms cancel (about log10(1/(Δ/b_max − eps)) digits lost;
measured against mpmath: 5e-13 up to eps = 20, 2.8e-12 at eps = Δ/b_max − 1e-3).

Rényi and KL by Gauss–Legendre quadrature of positive integrands (as for `laplace_sum`), warned above 1e-10.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...distributions.laplace_sum_n import LaplaceSumN
from ...distributions.normal_laplace import NormalLaplace
from .laplace_sum import log_expm1, log_half_line_integral
from .registry import Array, NoRule, register

_EPS_MACH = float(np.finfo(float).eps)
#: log S below which F(t) underflows: the hockey-stick is 0 in doubles
_LOG_TINY = -746.0

Law = LaplaceSumN | NormalLaplace


class ShiftLaw:
    """The centred law Z of a noise chain (loc ignored) and its shift Δ >= 0: f, S and L (module docstring)."""

    def __init__(self, law: Law, dist: float) -> None:
        self.law, self.dist = law, dist
        self.b_max, self.b_min = law.scales[0], law.scales[-1]
        if isinstance(law, NormalLaplace):
            self.b_min = min(self.b_min, law.sigma)
        self.z = dist / self.b_max  # sup of the loss

    def log_f(self, x: Array) -> Array:
        return self.law._log_density_u(np.abs(np.asarray(x, dtype=np.float64)))

    def log_sf(self, u: Array) -> Array:
        """log P(Z > u), u >= 0."""
        return self.law._log_sf_u(np.asarray(u, dtype=np.float64))

    def loss(self, x: Array) -> Array:
        x = np.asarray(x, dtype=np.float64)
        both = self.log_f(np.concatenate([x, x - self.dist]))
        return both[:x.size] - both[x.size:]


# ------------------------------------------------------------------------------------------ hockey-stick
def shift_hockey_stick(law: Law, dist: float, eps: Array) -> Array:
    """E_{e^eps}(Z || Z + dist) for a 1-D array eps >= 0 (inf allowed). THEORY: STD-LaplaceSumN,
    STD-NormalLaplace (module docstring)."""
    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    if dist == 0.0:
        return out
    pair = ShiftLaw(law, dist)
    for n, e in enumerate(eps):
        if e < pair.z:
            out[n] = _hs_one(pair, float(e))
    return np.minimum(np.maximum(out, 0.0), 1.0) + 0.0


def _hs_one(pair: ShiftLaw, eps: float) -> float:
    from scipy import optimize  # here, not at import (scipy.optimize is heavy)

    dist = pair.dist
    half = dist / 2.0
    if eps == 0.0:
        return -math.expm1(math.log(2.0) + float(pair.log_sf(np.array([half]))[0]))

    def excess(x: float) -> float:
        return float(pair.loss(np.array([x]))[0]) - eps

    lo = min(0.0, half - pair.b_max)
    while excess(lo) < 0.0:  # the loss rises to Δ/b_max on the left: step out until it exceeds eps
        if float(pair.log_sf(np.array([-lo]))[0]) < _LOG_TINY:
            return 0.0  # E <= F(t) <= F(lo) underflows
        lo = 2.0 * lo - pair.b_max
    # the value F(t) − e^eps F(t − Δ) is stationary in t at the root (its derivative is f(t) − e^eps f(t − Δ) = 0),
    # so t to 1e-13 of the bracket is ample; L itself is only known to ~1e-16, so a tighter xtol cannot converge
    t = optimize.brentq(excess, lo, half, xtol=1e-13 * (half - lo), rtol=4 * _EPS_MACH, maxiter=400)
    if t <= 0.0:
        log_s = pair.log_sf(np.array([-t, dist - t]))
        return math.exp(float(log_s[0])) * -math.expm1(eps + float(log_s[1]) - float(log_s[0]))
    log_s = pair.log_sf(np.array([t, dist - t]))
    return -math.expm1(float(log_s[0])) - math.exp(eps + float(log_s[1]))


# ------------------------------------------------------------------------------------------ Rényi and KL
def _log_integral(pair: ShiftLaw, h: Callable[[Array], Array], reach: float, what: str) -> float:
    """log ∫_{−inf}^{Δ/2} e^h (`laplace_sum.log_half_line_integral`: panels around the peak of h, steps of the
    smallest scale, the 20-point rule as error estimate); a coarser scan (h is costlier here)."""
    return log_half_line_integral(h, scale=pair.b_max, step=pair.b_min, half=pair.dist / 2.0, reach=reach,
                                  what=what, scan=(400, 33))


def shift_renyi(law: Law, dist: float, alpha: Array) -> Array:
    """R_alpha(Z || Z + dist) for a 1-D array alpha in (1, inf]: ``log1p(I)/(alpha − 1)`` with
    ``I = ∫_{x < Δ/2} f expm1((alpha − 1) L) (−expm1(−alpha L))`` (oddness of L about Δ/2: a positive integrand),
    clipped to [0, Δ/b_max]; alpha = inf gives Δ/b_max. THEORY: STD-LaplaceSumN, STD-NormalLaplace."""
    alpha = np.asarray(alpha, dtype=np.float64)
    out = np.zeros(alpha.shape)
    if dist == 0.0:
        return out
    pair = ShiftLaw(law, dist)
    for n, al in enumerate(alpha):
        if math.isinf(al):
            out[n] = pair.z
            continue

        def h(x: Array, al: float = float(al)) -> Array:
            loss = np.maximum(pair.loss(x), 1e-300)
            return pair.log_f(x) + log_expm1((al - 1.0) * loss) + np.log(-np.expm1(-al * loss))

        log_i = _log_integral(pair, h, (al - 1.0) * dist + 200.0 * pair.b_max, f"the Rényi divergence at {al!r}")
        out[n] = min(max(float(np.logaddexp(0.0, log_i)) / (al - 1.0), 0.0), pair.z)
    return out


def shift_kl(law: Law, dist: float) -> float:
    """KL(Z || Z + dist) = ∫_{x < Δ/2} f L (−expm1(−L)) dx, clipped to [0, Δ/b_max]."""
    if dist == 0.0:
        return 0.0
    pair = ShiftLaw(law, dist)

    def h(x: Array) -> Array:
        loss = np.maximum(pair.loss(x), 1e-300)
        return pair.log_f(x) + np.log(loss) + np.log(-np.expm1(-loss))

    return min(max(math.exp(_log_integral(pair, h, 200.0 * pair.b_max, "the KL divergence")), 0.0), pair.z)


# ------------------------------------------------------------------------------------------ registration
def _shift(mu: Law, nu: Law) -> float:
    """|loc1 − loc2| for two shifts of one law; NoRule otherwise."""
    same = mu.scales == nu.scales and getattr(mu, "sigma", None) == getattr(nu, "sigma", None)
    if not same:
        raise NoRule("the noise-chain rules need two shifts of one law (the same scales and sigma)")
    return abs(mu.loc - nu.loc)


@register("hockey_stick", "closed_form", (LaplaceSumN, LaplaceSumN), (NormalLaplace, NormalLaplace))
def _hs_chain(mu: Law, nu: Law, eps: Array) -> Array:
    return shift_hockey_stick(mu, _shift(mu, nu), eps)


@register("renyi", "closed_form", (LaplaceSumN, LaplaceSumN), (NormalLaplace, NormalLaplace))
def _renyi_chain(mu: Law, nu: Law, alpha: Array) -> Array:
    return shift_renyi(mu, _shift(mu, nu), alpha)


@register("kl", "closed_form", (LaplaceSumN, LaplaceSumN), (NormalLaplace, NormalLaplace))
def _kl_chain(mu: Law, nu: Law, _: None) -> Array:
    return np.array([shift_kl(mu, _shift(mu, nu))])


__all__ = ["shift_hockey_stick", "shift_kl", "shift_renyi"]
