"""Gaussian plus Laplace noise on R: the law of loc + N(0, sigma²) + Σ_i Lap(0, b_i) (THEORY: STD-NormalLaplace).

One Laplace (Reed 2004's normal-Laplace law): Lap(0, b) is the even mixture of ±Exp(1/b), and each exponential
convolved with the Gaussian is an exponentially modified Gaussian, so with u = |x − loc| >= 0, s = sigma,
z1 = s/b − u/s and z2 = s/b + u/s,

    f = (1/(2b)) (T1 + T2),   T1 = e^(s²/(2b²) − u/b) Phi(−z1),   T2 = e^(s²/(2b²) + u/b) Phi(−z2),
    P(X > loc + u) = T1/2 + Phi(−u/s) − T2/2.

Phi(−z) = erfcx(z/√2) e^(−z²/2)/2 turns T = e^(−u²/(2s²)) erfcx(z/√2)/2 for z >= 0 (the large exponents cancel
exactly on paper, not in floats); for z < 0, log T = s²/(2b²) ∓ u/b + log_ndtr(−z). Both terms are positive;
in the survival function Phi(−u/s) − T2/2 >= Phi(−u/s)/2 (it is ∫_{g > u} (1 − e^{(u − g)/b}/2) dN(g)), so the
subtraction loses at most one bit. Relative accuracy ~1e-15 everywhere, in log space.

Several Laplaces: f(x) = ∫ phi_s(x − y) g(y) dy with g the STD-LaplaceSumN density, by Gauss–Legendre on
panels of width 2s over x ± 40s (the Gaussian factor beyond is below e^(−800) of its peak), split where g has its
kink (y = loc) and on panels growing geometrically from it by the smallest scale. Every node adds a positive
term. The error is estimated by the 10-point rule on the same panels (the 20-point value is kept) and reported by
`convolution_error`; a RuntimeWarning is raised where it exceeds 1e-9 relative.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive, check_real, fail
from ..spaces import RealSpace
from .base import Distribution, _count
from .laplace_sum_n import _check_scales, _log_side, laplace_sum_log_terms

Array = NDArray[np.float64]

_LOG_HALF = math.log(0.5)
#: half-width of the Gaussian window, in sigmas (e^(−40²/2) = e^(−800))
_WINDOW = 40.0
_RULES = (np.polynomial.legendre.leggauss(20), np.polynomial.legendre.leggauss(10))
#: relative error of the convolution above which a RuntimeWarning is raised
_WARN = 1e-9


def _log_emg(s: float, b: float, u: Array, z: Array, sign: float) -> Array:
    """log T for T = e^(s²/(2b²) + sign u/b) Phi(−z) (module docstring), without overflow or cancellation."""
    pos = z >= 0.0
    with np.errstate(over="ignore", divide="ignore"):
        small = -u * u / (2.0 * s * s) + np.log(special.erfcx(np.where(pos, z, 0.0) / math.sqrt(2.0)) / 2.0)
        large = s * s / (2.0 * b * b) + sign * u / b + special.log_ndtr(-np.where(pos, 0.0, z))
    return np.where(pos, small, large)


def normal_laplace_log_terms(sigma: float, b: float, u: Array, *, survival: bool) -> Array:
    """log f(loc + u) or log P(X > loc + u), u >= 0, for N(0, sigma²) + Lap(0, b). THEORY: STD-NormalLaplace."""
    s = sigma
    log_t1 = _log_emg(s, b, u, s / b - u / s, -1.0)
    log_t2 = _log_emg(s, b, u, s / b + u / s, 1.0)
    if not survival:
        return np.logaddexp(log_t1, log_t2) - math.log(2.0 * b)
    log_phi = special.log_ndtr(-u / s)
    # Phi(−u/s) − T2/2 = Phi(−u/s) (1 − e^(log T2/2 − log Phi)) and the ratio is <= 1/2 (module docstring)
    rest = log_phi + np.log1p(-np.exp(np.minimum(log_t2 + _LOG_HALF - log_phi, _LOG_HALF)))
    return np.logaddexp(log_t1 + _LOG_HALF, rest)


@dataclass(frozen=True)
class NormalLaplace(Distribution):
    """The law of loc + G + Σ_i X_i, G ~ N(0, sigma²), X_i ~ Lap(0, b_i), all independent: Gaussian and Laplace
    noise in any order and count (Gaussians merge into one sigma). THEORY: STD-NormalLaplace, STD-LaplaceSumN.

    Symmetric about `loc` and log-concave. One Laplace: closed form in log space; several: a Gaussian
    convolution of the STD-LaplaceSumN density by quadrature, its estimated error given by `convolution_error`.
    """

    loc: float
    sigma: float
    scales: tuple[float, ...]
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        loc = check_real("loc", self.loc)
        if np.ndim(loc) != 0:
            raise fail("loc", "a scalar (NormalLaplace is 1-D)", f"shape {np.shape(loc)}", TypeError)
        object.__setattr__(self, "loc", float(loc))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "scales", _check_scales(self.scales))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1)

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        return [self.loc], sorted({self.sigma, *self.scales})

    def sample(self, n: int, *, rng: RNGLike = None) -> Array:
        gen = as_generator(rng)
        n = _count(n)
        out = self.loc + self.sigma * gen.standard_normal(n)
        for b in self.scales:
            out += gen.laplace(0.0, b, size=n)
        return out

    def variance(self) -> float:
        """Var = sigma² + Σ 2 b_i²."""
        return float(self.sigma**2 + sum(2.0 * b * b for b in self.scales))

    # ---------------------------------------------------------------- standardised pieces (u = |x − loc| >= 0)
    def _log_density_u(self, u: Array) -> Array:
        if len(self.scales) == 1:
            return normal_laplace_log_terms(self.sigma, self.scales[0], u, survival=False)
        return self._convolved(u, survival=False)[0]

    def _log_sf_u(self, u: Array) -> Array:
        if len(self.scales) == 1:
            return normal_laplace_log_terms(self.sigma, self.scales[0], u, survival=True)
        return self._convolved(u, survival=True)[0]

    def _convolved(self, u: Array, *, survival: bool) -> tuple[Array, Array]:
        """(log value, estimated relative error) of ∫ phi_s(g) h(u − g) dg, h the STD-LaplaceSumN density or
        survival function (module docstring)."""
        u = np.asarray(u, dtype=np.float64).reshape(-1)
        s, b_min = self.sigma, self.scales[-1]
        steps = np.arange(-_WINDOW, _WINDOW + 1.0, 2.0) * s
        geometric = b_min * 2.0 ** np.arange(-4, 60)
        geometric = geometric[geometric < 2.0 * _WINDOW * s]
        values, errors = np.empty(u.size), np.empty(u.size)
        for n, un in enumerate(u):
            # panels in y = u − g: the Gaussian window around un, split at the kink y = 0 and geometrically about it
            pts = np.unique(np.concatenate([un + steps, [0.0], geometric, -geometric]))
            pts = pts[(pts >= un - _WINDOW * s) & (pts <= un + _WINDOW * s)]
            values[n], errors[n] = _log_panels(pts, lambda y, un=un: _log_gauss(un - y, s) + _signed_log(
                self.scales, y, survival))
        if np.any(errors > _WARN):
            warnings.warn(f"the Gaussian convolution of {self!r} may be inaccurate: estimated relative error "
                          f"{float(errors.max())!r}", RuntimeWarning, stacklevel=3)
        return values, errors

    def convolution_error(self, x: ArrayLike) -> Array:
        """The estimated relative error of `density` at x (20- against 10-point Gauss–Legendre on the same panels;
        the Gaussian window adds at most e^(−800) relative); 0 for one Laplace (closed form)."""
        x = check_points("x", x, 1)
        if len(self.scales) == 1:
            return np.zeros(x.shape)
        return self._convolved(np.abs(x - self.loc), survival=False)[1].reshape(x.shape)

    # ------------------------------------------------------------------------------------------ public API
    def log_density(self, x: ArrayLike) -> Array:
        """log f(x) in nats."""
        x = check_points("x", x, 1)
        return self._log_density_u(np.abs(x - self.loc)).reshape(x.shape)

    def density(self, x: ArrayLike) -> Array:
        return np.exp(self.log_density(x))

    def log_cdf(self, x: ArrayLike) -> Array:
        """log P(X <= x)."""
        d = check_points("x", x, 1) - self.loc
        return _log_side(lambda v: self._log_sf_u(v).reshape(v.shape), d)

    def log_sf(self, x: ArrayLike) -> Array:
        """log P(X > x) = log_cdf(2 loc − x)."""
        d = self.loc - check_points("x", x, 1)
        return _log_side(lambda v: self._log_sf_u(v).reshape(v.shape), d)

    def cdf(self, x: ArrayLike) -> Array:
        return np.exp(self.log_cdf(x))

    def sf(self, x: ArrayLike) -> Array:
        return np.exp(self.log_sf(x))


def _log_gauss(g: Array, s: float) -> Array:
    return -0.5 * (g / s) ** 2 - math.log(s * math.sqrt(2.0 * math.pi))


def _signed_log(scales: tuple[float, ...], y: Array, survival: bool) -> Array:
    """log h(y) for y of any sign: the Laplace-sum density (even) or P(L > y) (from the upper tail or 1 − it)."""
    if not survival:
        return laplace_sum_log_terms(scales, np.abs(y), survival=False)
    return _log_side(lambda v: laplace_sum_log_terms(scales, v, survival=True), -y)


def _log_panels(pts: Array, log_h: Callable[[Array], Array]) -> tuple[float, float]:
    """(log ∫ e^log_h over [pts[0], pts[-1]], relative error estimate): Gauss–Legendre 20 and 10 on each panel."""
    mid, width = (pts[1:] + pts[:-1]) / 2.0, (pts[1:] - pts[:-1]) / 2.0
    totals = []
    for nodes, weights in _RULES:
        y = (mid[:, None] + width[:, None] * nodes).reshape(-1)
        logs = log_h(y).reshape(mid.size, nodes.size) + np.log(width)[:, None] + np.log(weights)[None, :]
        totals.append(float(special.logsumexp(logs)))
    fine, coarse = totals
    return fine, abs(math.expm1(coarse - fine))


__all__ = ["NormalLaplace"]
