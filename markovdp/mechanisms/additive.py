"""Additive-noise mechanisms: Gaussian (L2 sensitivity) and Laplace (L1 sensitivity).

Each holds its noise as a kernel (``noise``: x ↦ x + Z) and samples through it; its dominating pair is the
noise law against the noise law shifted by the sensitivity (`ShiftPair`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_points, check_positive, fail
from ..distributions import Laplace, Normal
from ..operators.gaussian import GaussianKernel
from ..operators.laplace import LaplaceKernel
from ..pairs import ShiftPair
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
    noise: GaussianKernel = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "noise", GaussianKernel(self.sigma, self.dim))
        object.__setattr__(self, "sigma", self.noise.sigma)
        object.__setattr__(self, "dim", self.noise.dim)

    @property
    def neighbours(self) -> L2Ball:
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
        return self.noise.sample(check_points("value", value, self.dim), rng=rng)

    def dominating_pairs(self) -> ShiftPair:
        """(N(0, sigma² I), N(sensitivity e_1, sigma² I)): isotropic noise, the worst shift has full length."""
        return self._shift_pair

    @cached_property
    def _shift_pair(self) -> ShiftPair:  # the mechanism is frozen: build the pair once
        origin = np.zeros(self.dim) if self.dim > 1 else 0.0
        shift = np.eye(self.dim)[0] * self.sensitivity if self.dim > 1 else self.sensitivity
        return ShiftPair(Normal(origin, self.sigma), Normal(shift, self.sigma))

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
    noise: LaplaceKernel = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "noise", LaplaceKernel(self.scale))
        object.__setattr__(self, "scale", self.noise.scale)

    @property
    def neighbours(self) -> L1Ball:
        return L1Ball(self.sensitivity)

    @property
    def output_space(self) -> RealSpace:
        return RealSpace(1)

    def output(self, value: Any) -> Laplace:
        """Lap(value, scale) for one real query value."""
        return Laplace(value, self.scale)

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        return self.noise.sample(check_points("value", value, 1), rng=rng)

    def dominating_pairs(self) -> ShiftPair:
        """(Lap(0, scale), Lap(sensitivity, scale)): the privacy loss only grows with the shift (STD-LapHS)."""
        return self._shift_pair

    @cached_property
    def _shift_pair(self) -> ShiftPair:  # the mechanism is frozen: build the pair once
        return ShiftPair(Laplace(0.0, self.scale), Laplace(self.sensitivity, self.scale))

    def __repr__(self) -> str:
        return f"LaplaceMechanism(scale={self.scale!r}, neighbours={self.neighbours!r})"
