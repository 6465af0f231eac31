"""Brownian motion dX = sqrt(2) dW on R^d: the heat semigroup P_t(x) = N(x, 2t I) (THEORY: BBGG-BM)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_int, check_positive
from ._isotropic import Array, IsotropicGaussianSemigroup
from .intrinsic_sensitivity import brownian_intrinsic_sensitivity


@dataclass(frozen=True)
class BrownianSemigroup(IsotropicGaussianSemigroup):
    """The heat semigroup on R^dim: dX = sqrt(2) dW, P_t(x) = N(x, 2t I), L = Δ, Γ(f, g) = <∇f, ∇g> (BBGG-BM).

    `invariant()` is the Lebesgue measure, which is not a probability law: it returns None, and
    ``log_density(..., measure="invariant")`` equals the Lebesgue density (symmetric in x and y).
    """

    dim: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "dim", check_int("dim", self.dim, minimum=1))

    def decay(self, t: float) -> float:
        return 1.0

    def spread(self, t: float) -> float:
        return math.sqrt(2.0 * t)

    def drift(self, x: Array) -> Array:
        return np.zeros_like(x)

    @property
    def diffusion_rate(self) -> float:
        return 1.0

    def invariant(self) -> None:
        """The Lebesgue measure on R^dim (infinite, so no `Distribution`): None."""
        return None

    def intrinsic_sensitivity(self, sensitivity: float, t: float) -> float:
        """Λ(t) = Δ²/(4t) (BBGG-BM, BBGG-T6): the Gaussian mechanism with sigma² = 2t is (alpha, alpha Λ(t))-RDP.

        `markovdp.diffusions.intrinsic_sensitivity.brownian_intrinsic_sensitivity` (inf on overflow), t > 0.
        """
        return brownian_intrinsic_sensitivity(sensitivity, check_positive("t", t))


__all__ = ["BrownianSemigroup"]
