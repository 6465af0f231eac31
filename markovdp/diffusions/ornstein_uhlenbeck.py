"""The Ornstein–Uhlenbeck semigroup dX = −θ X dt + sqrt(2) ρ dW on R^d (THEORY: BBGG-OU, BBGG-C7)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_positive
from ..distributions import Normal
from ._isotropic import Array, IsotropicGaussianSemigroup
from .intrinsic_sensitivity import ou_intrinsic_sensitivity


@dataclass(frozen=True)
class OrnsteinUhlenbeckSemigroup(IsotropicGaussianSemigroup):
    """dX = −theta X dt + sqrt(2) rho dW on R^dim, theta, rho > 0 (BBGG-OU):
    P_t(x) = N(e^(−theta t) x, (rho²/theta)(1 − e^(−2 theta t)) I), invariant N(0, (rho²/theta) I),
    L f = rho² Δf − theta <x, ∇f>, Γ(f, g) = rho² <∇f, ∇g>.
    """

    theta: float
    rho: float
    dim: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "theta", check_positive("theta", self.theta))
        object.__setattr__(self, "rho", check_positive("rho", self.rho))
        object.__setattr__(self, "dim", check_int("dim", self.dim, minimum=1))

    def decay(self, t: float) -> float:
        return math.exp(-self.theta * t)

    def spread(self, t: float) -> float:
        """sqrt((rho²/theta)(1 − e^(−2 theta t))) = rho sqrt(2t (1 − e^(−x))/x), x = 2 theta t, with expm1 so that
        small t keeps full precision (and the factor (1 − e^(−x))/x is 1 where x underflows: theta = t = 1e-300);
        for x >= 1, rho sqrt((1 − e^(−x))/theta) directly, which stays finite where x or 2t overflow."""
        x = 2.0 * self.theta * t
        if x >= 1.0:
            return self.rho * math.sqrt(-math.expm1(-x) / self.theta)
        ratio = -math.expm1(-x) / x if x >= np.finfo(np.float64).tiny else 1.0
        return self.rho * math.sqrt(2.0 * t * ratio)

    def drift(self, x: Array) -> Array:
        return -self.theta * x

    @property
    def diffusion_rate(self) -> float:
        return self.rho**2

    @property
    def invariant_sigma(self) -> float:
        """rho / sqrt(theta): the standard deviation of each coordinate of the invariant law."""
        return self.rho / math.sqrt(self.theta)

    def invariant(self) -> Normal:
        """N(0, (rho²/theta) I) (BBGG-OU, BBGG-A(1))."""
        return Normal(0.0 if self.dim == 1 else np.zeros(self.dim), self.invariant_sigma)

    def invariant_log_density(self, y: ArrayLike) -> Array:
        ys = self._points("y", y)
        s2 = self.invariant_sigma**2
        sq = ys**2 if self.dim == 1 else (ys**2).sum(axis=-1)
        return -0.5 * sq / s2 - 0.5 * self.dim * np.log(2.0 * np.pi * s2)

    def intrinsic_sensitivity(self, sensitivity: float, t: float) -> float:
        """Λ(t) = theta Δ² / (2 rho² (e^(2 theta t) − 1)) (BBGG-C7): M_t^f is (alpha, alpha Λ(t))-RDP, tightly.

        `markovdp.diffusions.intrinsic_sensitivity.ou_intrinsic_sensitivity`: no exception at extreme parameters
        (inf on overflow, 0 on underflow, Δ²/(4 rho² t) where theta t underflows), t > 0.
        """
        return ou_intrinsic_sensitivity(self.theta, self.rho, sensitivity, check_positive("t", t))


__all__ = ["OrnsteinUhlenbeckSemigroup"]
