"""The law of loc + X1 + X2 with independent X1 ~ Lap(0, scale1), X2 ~ Lap(0, scale2) (BBGG-E2, BBGG-L3).

With a = max(scale1, scale2), b = min(scale1, scale2) and u = |x − loc|, the textbook density (partial fractions
of the characteristic function 1/((1 + a²t²)(1 + b²t²))) is ``(a e^(−u/a) − b e^(−u/b)) / (2 (a² − b²))``,
which cancels catastrophically as b → a. Factoring out e^(−u/a) gives the form used here, exact for a = b too:

    f(x) = e^(−u/a) (1 + v(u)) / (2 (a + b)),      S(u) = P(X > loc + u) = e^(−u/a) (1 + rho v(u)) / 2,
    v(u) = (1 − e^(−k u)) / (a k) = (u/a) phi(k u),  k = 1/b − 1/a >= 0,  phi(c) = −expm1(−c)/c,  rho = b/(a + b),

(a = b: v = u/a, f = (1 + u/a) e^(−u/a)/(4a), S = (1 + u/(2a)) e^(−u/a)/2). Every term is >= 0, so the log
density ``−u/a − log(2(a + b)) + log1p(v)`` and log S keep full relative accuracy for |x| large and b ≈ a.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive, check_real, fail
from ..spaces import RealSpace
from .base import Distribution, _count

Array = NDArray[np.float64]


def _phi(c: Array) -> Array:
    """phi(c) = (1 − e^(−c))/c for c >= 0, with phi(0) = 1 (no cancellation: −expm1(−c) is exact to ulps)."""
    c = np.asarray(c, dtype=np.float64)
    safe = np.where(c > 0.0, c, 1.0)
    return np.where(c > 0.0, -np.expm1(-safe) / safe, 1.0)


@dataclass(frozen=True)
class LaplaceSum(Distribution):
    """The law of loc + X1 + X2, X1 ~ Lap(0, scale1), X2 ~ Lap(0, scale2) independent: Lap(loc, scale1) pushed
    through LaplaceKernel(scale2). THEORY: BBGG-E2, BBGG-L3.

    Symmetric about `loc` and log-concave (a convolution of log-concave densities), with exponential tails of
    rate 1/max(scale1, scale2). Density, CDF and survival function in closed form (module docstring), in log
    space; scale1 = scale2 is the continuous limit, with no cancellation near it.
    """

    loc: float
    scale1: float
    scale2: float
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        loc = check_real("loc", self.loc)
        if np.ndim(loc) != 0:
            raise fail("loc", "a scalar (LaplaceSum is 1-D)", f"shape {np.shape(loc)}", TypeError)
        object.__setattr__(self, "loc", float(loc))
        object.__setattr__(self, "scale1", check_positive("scale1", self.scale1))
        object.__setattr__(self, "scale2", check_positive("scale2", self.scale2))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1)

    @property
    def scales(self) -> tuple[float, float]:
        """(a, b) = (max, min) of the two scales."""
        return max(self.scale1, self.scale2), min(self.scale1, self.scale2)

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        return [self.loc], sorted({self.scale1, self.scale2})

    def sample(self, n: int, *, rng: RNGLike = None) -> Array:
        gen = as_generator(rng)
        n = _count(n)
        return self.loc + gen.laplace(0.0, self.scale1, size=n) + gen.laplace(0.0, self.scale2, size=n)

    def variance(self) -> float:
        """Var = 2 scale1² + 2 scale2² (each Laplace law has variance 2 scale²)."""
        return 2.0 * self.scale1**2 + 2.0 * self.scale2**2

    # ---------------------------------------------------------------- standardised pieces (u = |x − loc| >= 0)
    def _v(self, u: Array) -> Array:
        a, b = self.scales
        k = (a - b) / (a * b)
        return (u / a) * _phi(k * u)

    def _log_density_u(self, u: Array) -> Array:
        a, b = self.scales
        return -u / a - np.log(2.0 * (a + b)) + np.log1p(self._v(u))

    def _log_sf_u(self, u: Array) -> Array:
        """log P(X > loc + u) for u >= 0."""
        a, b = self.scales
        return -u / a - np.log(2.0) + np.log1p(b / (a + b) * self._v(u))

    # ------------------------------------------------------------------------------------------ public API
    def log_density(self, x: ArrayLike) -> Array:
        """log f(x), finite for every finite x (in nats)."""
        x = check_points("x", x, 1)
        return self._log_density_u(np.abs(x - self.loc))

    def density(self, x: ArrayLike) -> Array:
        return np.exp(self.log_density(x))

    def log_cdf(self, x: ArrayLike) -> Array:
        """log P(X <= x): log S(|x − loc|) left of loc, log1p(−S) right of it."""
        return self._log_side(check_points("x", x, 1) - self.loc)

    def log_sf(self, x: ArrayLike) -> Array:
        """log P(X > x) = log_cdf(2 loc − x) (the law is symmetric about loc)."""
        return self._log_side(self.loc - check_points("x", x, 1))

    def cdf(self, x: ArrayLike) -> Array:
        """P(X <= x); the smaller of cdf and sf is the one computed directly (relative accuracy in both tails)."""
        return self._side(check_points("x", x, 1) - self.loc)

    def sf(self, x: ArrayLike) -> Array:
        """P(X > x) = cdf(2 loc − x)."""
        return self._side(self.loc - check_points("x", x, 1))

    def _side(self, d: Array) -> Array:
        """P(X − loc <= d)."""
        tail = np.exp(self._log_sf_u(np.abs(d)))
        return np.where(d < 0.0, tail, 1.0 - tail)

    def _log_side(self, d: Array) -> Array:
        log_tail = self._log_sf_u(np.abs(d))
        return np.where(d < 0.0, log_tail, np.log1p(-np.exp(log_tail)))


__all__ = ["LaplaceSum"]
