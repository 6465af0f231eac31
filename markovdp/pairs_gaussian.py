"""Dominating pair of a Gaussian mechanism after linear Gaussian post-processing: the whole L2 ball kept.

For neighbours with f(D) − f(D') = u, ||u||_2 <= Δ, a Gaussian mechanism followed by affine Gaussian kernels
outputs N(B f(D) + c, Σ) and N(B f(D') + c, Σ): B the composed linear map, Σ the accumulated noise covariance,
both independent of f. Every divergence between two Gaussians of one covariance is increasing in the
Mahalanobis distance ||B u||_{Σ⁻¹} (STD-GaussHS, STD-GaussRenyi), whose max over the ball is
Δ sqrt(λ_max(Bᵀ Σ⁻¹ B)), attained at the top eigenvector v*. So the one pair N(0, Σ) vs N(Δ B v*, Σ) is exact.

A `ShiftPair` fixes its direction (e_1), which is only the worst one while the noise is isotropic; pushing it
through a non-isotropic kernel would be wrong in general. `GaussianBallPair` keeps (Σ, B, Δ) instead, and the
kernels push those (rules in `PUSHES`, registered beside `GaussianKernel` and `AffineGaussianKernel`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import check_positive, check_real, fail, readonly
from .distributions.multivariate_normal import MultivariateNormal, check_covariance
from .pairs import Pair, PairSet
from .spaces import IncompatibleSpaces

Array = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class GaussianBallPair(PairSet):
    """N(0, noise_cov) vs N(sensitivity · image v*, noise_cov), v* the worst unit direction of the L2 ball.

    THEORY: STD-GaussHS, STD-GaussRenyi (Mahalanobis distance), BBGG-E1. `noise_cov` Σ: the (d_out, d_out)
    noise covariance (SPD); `image` B: the (d_out, d_in) linear map of the query value (a scalar for
    d_in = d_out = 1); `sensitivity` Δ: the L2 radius of the neighbour ball in the query space. The pair's
    Mahalanobis distance is ``ratio = Δ σ_max(L⁻¹ B)`` (Σ = L Lᵀ), v* the top right singular vector of L⁻¹ B,
    i.e. the top eigenvector of Bᵀ Σ⁻¹ B.
    """

    noise_cov: Any
    image: Any
    sensitivity: float
    cholesky: Array = field(init=False, repr=False)

    def __post_init__(self) -> None:
        image = np.asarray(check_real("image", self.image), dtype=np.float64)
        if image.ndim == 0:
            image = image.reshape(1, 1)
        if image.ndim != 2:
            raise fail("image", "a scalar or a 2-D (d_out, d_in) matrix", f"shape {image.shape}")
        cov, chol = _covariance(self.noise_cov, image.shape[0])
        object.__setattr__(self, "image", readonly(image))
        object.__setattr__(self, "noise_cov", cov)
        object.__setattr__(self, "cholesky", chol)
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    @property
    def d_in(self) -> int:
        return int(self.image.shape[1])

    @property
    def d_out(self) -> int:
        return int(self.image.shape[0])

    @cached_property
    def _worst(self) -> tuple[float, Array]:
        """(σ_max(L⁻¹ B), v*): the top singular value and right singular vector."""
        _, s, vt = np.linalg.svd(np.linalg.solve(self.cholesky, self.image))
        return float(s[0]), vt[0]

    @property
    def direction(self) -> Array:
        """v*: a unit vector of the query space along which the neighbours are hardest to tell apart."""
        return self._worst[1].copy()

    @property
    def ratio(self) -> float:
        """Δ sqrt(λ_max(Bᵀ Σ⁻¹ B)): the largest Mahalanobis distance between the neighbours' output laws."""
        return self.sensitivity * self._worst[0]

    def __len__(self) -> int:
        return 1

    def __getitem__(self, n: int) -> Pair:
        if n not in (0, -1):
            raise IndexError(n)
        shift = self.sensitivity * (self.image @ self._worst[1])
        mean = float(shift[0]) if self.d_out == 1 else shift
        origin = 0.0 if self.d_out == 1 else np.zeros(self.d_out)
        return MultivariateNormal(origin, self.noise_cov), MultivariateNormal(mean, self.noise_cov)

    def pushed(self, matrix: ArrayLike, noise_cov: ArrayLike) -> GaussianBallPair:
        """The pair after y = A x + b + N(0, Σ_K): covariance A Σ Aᵀ + Σ_K, image A B (b drops out)."""
        a = np.asarray(matrix, dtype=np.float64)
        if a.shape[1] != self.d_out:
            raise IncompatibleSpaces(f"`M >> K`: cannot connect R^{self.d_out} to R^{a.shape[1]}.")
        spread = a @ self.cholesky
        return GaussianBallPair(spread @ spread.T + np.asarray(noise_cov), a @ self.image, self.sensitivity)

    def __repr__(self) -> str:
        return (f"GaussianBallPair(R^{self.d_in} → R^{self.d_out}, sensitivity={self.sensitivity!r}, "
                f"ratio={self.ratio!r})")


def _covariance(value: Any, d: int) -> tuple[Array, Array]:
    cov = np.asarray(check_real("noise_cov", value), dtype=np.float64)
    if cov.ndim == 2 and cov.shape[0] == cov.shape[1] and cov.shape[0] != d:
        raise fail("noise_cov", f"a ({d}, {d}) matrix (the rows of `image`)", f"shape {cov.shape}")
    return check_covariance("noise_cov", cov, d)


__all__ = ["GaussianBallPair"]
