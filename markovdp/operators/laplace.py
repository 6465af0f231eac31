"""The Laplace kernel K(x) = Lap(x, scale) on R (BBGG-E2), and its exact push of Laplace noise (BBGG-L3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive
from ..distributions import Distribution, Laplace, PointMass
from ..distributions.laplace_sum import LaplaceSum
from ..pairs import PUSHES, ShiftPair
from ..spaces import RealSpace, require_compatible
from .base import MarkovOperator


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
        """A point mass at x → Lap(x, scale); Lap(m, l1) → LaplaceSum(m, l1, scale), the law of m + X1 + X2
        (BBGG-E2). Other laws have no closed form (`markovdp.operators.grid_push.grid_push` approximates them
        with a stated error bound)."""
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, PointMass):
            return Laplace(float(mu.x), self.scale)
        if isinstance(mu, Laplace):
            return LaplaceSum(mu.loc, mu.scale, self.scale)
        return super().push(mu)


@PUSHES.register((LaplaceKernel, ShiftPair))
def _push_shift(kernel: LaplaceKernel, pairs: ShiftPair) -> ShiftPair:
    """Laplace noise then a Laplace kernel: the shift pair (LaplaceSum(0), LaplaceSum(Δ)) stays exact.

    THEORY: BBGG-E2, BBGG-L3, STD-LapHS. The outputs on inputs at distance d <= Δ are two shifts of one density
    f, symmetric and log-concave (a convolution of log-concave densities). So the likelihood ratio
    f(x)/f(x − d) is monotone in x, every E_gamma is attained on a half-line {x <= t}, and its value
    F(t) − gamma F(t − d) grows with d for each t: the largest shift Δ dominates every hockey-stick
    divergence, hence (through the E_gamma curve) every divergence with data processing. Symmetry of f makes
    the two orders of the pair equal, so one pair suffices.
    """
    noise, shifted = pairs.noise, pairs.shifted
    if not (isinstance(noise, Laplace) and isinstance(shifted, Laplace) and noise.scale == shifted.scale):
        raise NotImplementedError(
            "LaplaceKernel keeps a shift pair exact only for Laplace noise of one scale; got "
            f"{type(noise).__name__} and {type(shifted).__name__}.")
    return ShiftPair(kernel.push(noise), kernel.push(shifted))


__all__ = ["LaplaceKernel"]
