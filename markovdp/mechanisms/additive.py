"""Additive-noise mechanisms: Gaussian (L2 sensitivity) and Laplace (L1 sensitivity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_points, check_positive, fail
from ..distributions import Laplace, Normal
from ..spaces import RealSpace
from .base import L1Ball, L2Ball, Mechanism


@dataclass(frozen=True)
class GaussianMechanism(Mechanism):
    """M(D) = N(f(D), sigma² I_d); neighbours are replace-one with ||f(D) − f(D')||_2 <= sensitivity.

    THEORY: STD-GaussHS (exact profile), STD-GaussRenyi (exact RDP, alpha Delta² / (2 sigma²)).
    """

    sigma: float
    sensitivity: float = 1.0
    dim: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "dim", check_int("dim", self.dim, minimum=1))

    @property
    def neighbours(self) -> L2Ball:  # type: ignore[override]
        return L2Ball(self.sensitivity)

    @property
    def output_space(self) -> RealSpace:
        return RealSpace(self.dim)

    def output(self, value: Any) -> Normal:
        """N(value, sigma² I) for one query value, a point of R^dim."""
        point = check_points("value", value, self.dim)
        if point.ndim != (0 if self.dim == 1 else 1):
            raise fail("value", f"one point of R^{self.dim}", f"shape {point.shape}")
        return Normal(point, self.sigma)

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        points = check_points("value", value, self.dim)
        return points + self.sigma * as_generator(rng).standard_normal(points.shape)

    def __repr__(self) -> str:
        dim = "" if self.dim == 1 else f", dim={self.dim}"
        return f"GaussianMechanism(sigma={self.sigma!r}{dim}, neighbours={self.neighbours!r})"


@dataclass(frozen=True)
class LaplaceMechanism(Mechanism):
    """M(D) = Lap(f(D), scale) on R; neighbours are replace-one with |f(D) − f(D')| <= sensitivity.

    THEORY: STD-LapHS (exact profile), STD-LapRenyi (exact RDP).
    """

    scale: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_positive("scale", self.scale))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    @property
    def neighbours(self) -> L1Ball:  # type: ignore[override]
        return L1Ball(self.sensitivity)

    @property
    def output_space(self) -> RealSpace:
        return RealSpace(1)

    def output(self, value: Any) -> Laplace:
        """Lap(value, scale) for one real query value."""
        return Laplace(value, self.scale)

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        points = check_points("value", value, 1)
        return points + as_generator(rng).laplace(0.0, self.scale, size=points.shape)

    def __repr__(self) -> str:
        return f"LaplaceMechanism(scale={self.scale!r}, neighbours={self.neighbours!r})"
