"""Gaussian kernels K(x) = N(x, sigma² I) on R^d (BBGG-E1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_points, check_positive
from ..distributions import (
    Distribution,
    Laplace,
    LaplaceSum,
    LaplaceSumN,
    MultivariateNormal,
    Normal,
    NormalLaplace,
    PointMass,
)
from ..pairs import PUSHES, ShiftPair
from ..pairs_gaussian import GaussianBallPair
from ..spaces import IncompatibleSpaces, RealSpace, require_compatible
from .base import MERGES, MarkovOperator


@dataclass(frozen=True)
class GaussianKernel(MarkovOperator):
    """K(x) = N(x, sigma² I_d): additive isotropic Gaussian noise; `sigma` is a standard deviation.

    THEORY: BBGG-E1. Chains merge exactly: N(., s1²) then N(., s2²) is N(., s1² + s2²).
    """

    sigma: float
    dim: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "dim", check_int("dim", self.dim, minimum=1))

    @property
    def domain(self) -> RealSpace:
        return RealSpace(self.dim)

    @property
    def codomain(self) -> RealSpace:
        return RealSpace(self.dim)

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        points = check_points("x", x, self.dim)
        return points + self.sigma * as_generator(rng).standard_normal(points.shape)

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        diff = check_points("y", y, self.dim) - check_points("x", x, self.dim)
        sq = diff**2 if self.dim == 1 else (diff**2).sum(axis=-1)
        return -0.5 * sq / self.sigma**2 - self.dim * (np.log(self.sigma) + 0.5 * np.log(2 * np.pi))

    def push(self, mu: Distribution) -> Distribution:
        """N(m, s²) → N(m, s² + sigma²); N(m, Σ) → N(m, Σ + sigma² I); a point mass at x → N(x, sigma²);
        Laplace noise on R (one or a sum, with or without a Gaussian part) → `NormalLaplace` (STD-NormalLaplace)."""
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, Normal):
            return Normal(mu.mean, float(np.hypot(mu.sigma, self.sigma)))
        if isinstance(mu, MultivariateNormal):
            return MultivariateNormal(mu.mean, mu.cov + self.sigma**2 * np.eye(self.dim))
        if isinstance(mu, PointMass):
            return Normal(mu.x, self.sigma)
        if isinstance(mu, Laplace):
            return NormalLaplace(mu.loc, self.sigma, (mu.scale,))
        if isinstance(mu, LaplaceSum):
            return NormalLaplace(mu.loc, self.sigma, mu.scales)
        if isinstance(mu, LaplaceSumN):
            return NormalLaplace(mu.loc, self.sigma, mu.scales)
        if isinstance(mu, NormalLaplace):
            return NormalLaplace(mu.loc, float(np.hypot(mu.sigma, self.sigma)), mu.scales)
        return super().push(mu)

    def __repr__(self) -> str:
        dim = "" if self.dim == 1 else f", dim={self.dim}"
        return f"GaussianKernel(sigma={self.sigma!r}{dim})"


@MERGES.register((GaussianKernel, GaussianKernel))
def _merge_gaussians(left: GaussianKernel, right: GaussianKernel) -> GaussianKernel:
    """BBGG-E1: N(., s1² I) then N(., s2² I) is N(., (s1² + s2²) I) exactly."""
    return GaussianKernel(float(np.hypot(left.sigma, right.sigma)), left.dim)


@PUSHES.register((GaussianKernel, ShiftPair))
def _push_shift(kernel: GaussianKernel, pairs: ShiftPair) -> ShiftPair:
    """Gaussian noise then a Gaussian kernel is Gaussian noise again (BBGG-E1): its shift pair stays exact; so
    does Laplace or Gaussian-plus-Laplace noise on R (`push_noise_shift`, STD-NormalLaplace)."""
    if kernel.dim == 1 and not isinstance(pairs.noise, Normal):
        from .laplace import push_noise_shift

        return push_noise_shift(kernel, pairs)
    if not isinstance(pairs.noise, Normal):
        raise NotImplementedError(
            f"GaussianKernel keeps a shift pair exact only for Gaussian noise; got {type(pairs.noise).__name__}.")
    return ShiftPair(kernel.push(pairs.noise), kernel.push(pairs.shifted))


@PUSHES.register((GaussianKernel, GaussianBallPair))
def _push_gaussian(kernel: GaussianKernel, pairs: GaussianBallPair) -> GaussianBallPair:
    """N(., s² I) adds s² I to the noise covariance and leaves the image unchanged (BBGG-E1): the square-root
    push with A = I and the exact factor s I."""
    if kernel.dim != pairs.d_out:
        raise IncompatibleSpaces(f"`M >> K`: cannot connect R^{pairs.d_out} to R^{kernel.dim}.")
    identity = np.eye(kernel.dim)
    return pairs.pushed(identity, noise_factor=kernel.sigma * identity)


__all__ = ["GaussianKernel"]
