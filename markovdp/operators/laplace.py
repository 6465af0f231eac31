"""The Laplace kernel K(x) = Lap(x, scale) on R (BBGG-E2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive
from ..distributions import Distribution, Laplace, PointMass
from ..spaces import RealSpace
from .base import MarkovOperator, require_compatible


@dataclass(frozen=True)
class LaplaceKernel(MarkovOperator):
    """K(x) = Lap(x, scale): density exp(-|y - x| / scale) / (2 scale) on R. THEORY: BBGG-E2."""

    scale: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    @property
    def domain(self) -> RealSpace:
        return RealSpace(1)

    @property
    def codomain(self) -> RealSpace:
        return RealSpace(1)

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        points = check_points("x", x, 1)
        return points + as_generator(rng).laplace(0.0, self.scale, size=points.shape)

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        diff = check_points("y", y, 1) - check_points("x", x, 1)
        return -np.abs(diff) / self.scale - np.log(2 * self.scale)

    def push(self, mu: Distribution) -> Distribution:
        """A point mass at x → Lap(x, scale) (other laws have no closed form)."""
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, PointMass):
            return Laplace(float(mu.x), self.scale)
        return super().push(mu)
