"""The Laplace kernel K(x) = Lap(x, scale) on R (BBGG-E2), and its exact push of additive noise on R: Laplace
(BBGG-L3), sums of Laplace variables (STD-LaplaceSumN) and Gaussian plus Laplace noise (STD-NormalLaplace)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive
from ..distributions import Distribution, Laplace, LaplaceSumN, Normal, NormalLaplace, PointMass
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
        (BBGG-E2); a sum of Laplace variables → one more (`LaplaceSumN`, STD-LaplaceSumN); N(m, s²) on R or
        Gaussian plus Laplace noise → `NormalLaplace` (STD-NormalLaplace). Other laws have no closed form
        (`markovdp.operators.grid_push.grid_push` approximates them with a stated error bound)."""
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, PointMass):
            return Laplace(float(mu.x), self.scale)
        if isinstance(mu, Laplace):
            return LaplaceSum(mu.loc, mu.scale, self.scale)
        if isinstance(mu, LaplaceSum):
            return LaplaceSumN(mu.loc, (mu.scale1, mu.scale2, self.scale))
        if isinstance(mu, LaplaceSumN):
            return LaplaceSumN(mu.loc, (*mu.scales, self.scale))
        if isinstance(mu, Normal):
            return NormalLaplace(float(mu.mean), mu.sigma, (self.scale,))
        if isinstance(mu, NormalLaplace):
            return NormalLaplace(mu.loc, mu.sigma, (*mu.scales, self.scale))
        return super().push(mu)


#: the 1-D additive noise laws whose shifts stay exact through Laplace and Gaussian kernels
NOISE_LAWS = (Laplace, LaplaceSum, LaplaceSumN, Normal, NormalLaplace)


def noise_shape(law: Distribution) -> tuple[object, ...] | None:
    """The law of a symmetric log-concave noise on R without its location (type and scales), or None."""
    if not isinstance(law, NOISE_LAWS) or law.space != RealSpace(1):
        return None
    if isinstance(law, Normal):
        return Normal, law.sigma
    if isinstance(law, Laplace):
        return Laplace, law.scale
    if isinstance(law, LaplaceSum):
        return LaplaceSum, law.scales
    return type(law), law.scales, getattr(law, "sigma", None)


def push_noise_shift(kernel: MarkovOperator, pairs: ShiftPair) -> ShiftPair:
    """Additive noise Z on R then an additive-noise kernel (Laplace, Gaussian): the shift pair (Z', Z' + Δ) of the
    summed noise Z' stays exact. THEORY: BBGG-E2, BBGG-L3, STD-LapHS, STD-LaplaceSumN, STD-NormalLaplace.

    The outputs on inputs at distance d <= Δ are two shifts of one density f, symmetric and log-concave (a
    convolution of Gaussian and Laplace densities). So the likelihood ratio f(x)/f(x − d) is monotone in x,
    every E_gamma is attained on a half-line {x <= t}, and its value F(t) − gamma F(t − d) grows with d for
    each t: the largest shift Δ dominates every hockey-stick divergence, hence (through the E_gamma curve) every
    divergence with data processing. Symmetry of f makes the two orders of the pair equal, so one pair suffices.
    """
    noise, shifted = pairs.noise, pairs.shifted
    shape = noise_shape(noise)
    if shape is None or shape != noise_shape(shifted):
        raise NotImplementedError(
            f"{type(kernel).__name__} keeps a shift pair exact only for two shifts of one Gaussian or Laplace "
            f"noise law on R; got {noise!r} and {shifted!r}.")
    return ShiftPair(kernel.push(noise), kernel.push(shifted))


@PUSHES.register((LaplaceKernel, ShiftPair))
def _push_shift(kernel: LaplaceKernel, pairs: ShiftPair) -> ShiftPair:
    """Gaussian or Laplace noise on R then a Laplace kernel: exact (`push_noise_shift`)."""
    return push_noise_shift(kernel, pairs)


__all__ = ["LaplaceKernel"]
