"""Affine Gaussian kernels y = A x + b + N(0, Σ) from R^d_in to R^d_out (BBGG-E1, BBGG-E3 with psi linear)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive, check_real, fail, readonly
from ..distributions import Distribution, Normal, PointMass
from ..distributions.multivariate_normal import MultivariateNormal, check_covariance
from ..pairs import PUSHES, ShiftPair
from ..pairs_gaussian import FactorState, GaussianBallPair, cholesky_error, forward_solve, push_factor
from ..spaces import RealSpace, require_compatible
from .base import MERGES, MarkovOperator
from .gaussian import GaussianKernel

Array = NDArray[np.float64]


@dataclass(frozen=True, eq=False, repr=False)
class AffineGaussianKernel(MarkovOperator):
    """K(x) = N(A x + b, Σ): an affine map then additive Gaussian noise; Σ = sigma² I or `noise_cov`.

    THEORY: BBGG-E1 (A = a Q with Q orthogonal is tight), BBGG-E3 (psi(x) = A x + b, L = ||A||_2).

    `A`: a (d_out, d_in) matrix, or a scalar a meaning a I (d = the length of `b`, 1 if `b` is a scalar);
    `b`: a vector of length d_out, or a scalar meaning b (1, …, 1). The noise is given by exactly one of
    `sigma` (a standard deviation: isotropic noise sigma² I) and the keyword `noise_cov` (a symmetric positive
    definite (d_out, d_out) covariance — what chains of affine kernels merge to, σ1² A2 A2ᵀ + σ2² I).
    ``sigma`` is None for a general `noise_cov`; ``noise_cov`` always holds Σ. Chains merge exactly, where the
    merged covariance is represented faithfully in float64 (else the `Chain` stays unmerged; `MERGE_RTOL`).
    """

    A: Any
    b: Any
    sigma: float | None = None
    noise_cov: Any = field(default=None, kw_only=True)
    cholesky: Array = field(init=False, repr=False)
    #: (η, β) of a merged kernel: Σ_true ⪰ L Lᵀ/(1 + η), ||L⁻¹ (A_true − A)|| <= β (L = `cholesky`); None: exact data
    _rounding: tuple[float, float] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        a = np.asarray(check_real("A", self.A), dtype=np.float64)
        b = np.asarray(check_real("b", self.b), dtype=np.float64)
        if b.ndim > 1:
            raise fail("b", "a scalar or a 1-D vector of length d_out", f"shape {b.shape}")
        if a.ndim == 0:
            a = a * np.eye(max(b.size, 1))
        elif a.ndim != 2 or a.size == 0:
            raise fail("A", "a scalar or a non-empty 2-D (d_out, d_in) matrix", f"shape {a.shape}")
        d_out = a.shape[0]
        if b.ndim == 0:
            b = np.full(d_out, float(b))
        elif b.size != d_out:
            raise fail("b", f"a scalar or a vector of length {d_out} (the rows of `A`)", f"shape {b.shape}")
        if (self.sigma is None) == (self.noise_cov is None):
            raise TypeError("`sigma` or `noise_cov` must be given, not both and not neither; got "
                            f"sigma={self.sigma!r}, noise_cov={self.noise_cov!r}.")
        if self.sigma is not None:
            sigma = check_positive("sigma", self.sigma)
            if not math.isfinite(sigma * sigma):
                raise fail("sigma", "small enough that the variance sigma² is finite (<= 1.34e154)", sigma)
            cov, chol = readonly(sigma * sigma * np.eye(d_out)), readonly(sigma * np.eye(d_out))
            object.__setattr__(self, "sigma", sigma)
        else:
            cov, chol = check_covariance("noise_cov", self.noise_cov, d_out)
        object.__setattr__(self, "A", readonly(a))
        object.__setattr__(self, "b", readonly(b))
        object.__setattr__(self, "noise_cov", cov)
        object.__setattr__(self, "cholesky", chol)

    @property
    def domain(self) -> RealSpace:
        return RealSpace(self.A.shape[1])

    @property
    def codomain(self) -> RealSpace:
        return RealSpace(self.A.shape[0])

    def _mean(self, x: ArrayLike, name: str) -> tuple[Array, tuple[int, ...]]:
        """(A x + b as rows (n, d_out), the leading shape of the input points)."""
        d_in = self.domain.d
        points = check_points(name, x, d_in)
        lead = points.shape if d_in == 1 else points.shape[:-1]
        return points.reshape(-1, d_in) @ self.A.T + self.b, lead

    def _shaped(self, rows: Array, lead: tuple[int, ...]) -> Array:
        d_out = self.codomain.d
        return rows.reshape(lead) if d_out == 1 else rows.reshape(lead + (d_out,))

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        mean, lead = self._mean(x, "x")
        z = as_generator(rng).standard_normal(mean.shape)
        return self._shaped(mean + z @ self.cholesky.T, lead)

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        mean, lead = self._mean(x, "x")
        d_out = self.codomain.d
        ys = check_points("y", y, d_out).reshape(-1, d_out)
        diff = ys - mean  # broadcasts one x against many y, and one y against many x
        z = np.linalg.solve(self.cholesky, diff.T)
        log_det = 2.0 * np.log(np.diag(self.cholesky)).sum()
        out = -0.5 * np.square(z).sum(axis=0) - 0.5 * log_det - 0.5 * d_out * np.log(2 * np.pi)
        return out.reshape(lead) if ys.shape[0] == mean.shape[0] else out

    def push(self, mu: Distribution) -> Distribution:
        """N(m, C) → N(A m + b, A C Aᵀ + Σ) (a Normal is N(m, s² I)); a point mass at x → N(A x + b, Σ).

        Always a MultivariateNormal (the exact law, whatever A).
        """
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, Normal):
            spread = mu.sigma * self.A
        elif isinstance(mu, MultivariateNormal):
            spread = self.A @ mu.cholesky
        elif isinstance(mu, PointMass):
            spread = np.zeros((self.codomain.d, 1))
        else:
            return super().push(mu)
        mean = self.A @ np.asarray(mu.mean if not isinstance(mu, PointMass) else mu.x).reshape(-1) + self.b
        return MultivariateNormal(self._point(mean), spread @ spread.T + self.noise_cov)

    def _point(self, mean: Array) -> Any:
        return float(mean[0]) if self.codomain.d == 1 else mean

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, AffineGaussianKernel) and np.array_equal(self.A, other.A)
                and np.array_equal(self.b, other.b) and np.array_equal(self.noise_cov, other.noise_cov))

    def __hash__(self) -> int:
        return hash((self.A.shape, self.A.tobytes(), self.b.tobytes(), self.noise_cov.tobytes()))

    def __repr__(self) -> str:
        noise = f"sigma={self.sigma!r}" if self.sigma is not None else f"noise_cov={_short(self.noise_cov)}"
        return f"AffineGaussianKernel(A={_short(self.A)}, b={_short(self.b)}, {noise})"


def _short(arr: Array) -> str:
    return repr(np.round(arr, 4).tolist()) if arr.size <= 16 else f"<{'x'.join(map(str, arr.shape))} array>"


def _as_affine(kernel: GaussianKernel) -> AffineGaussianKernel:
    return AffineGaussianKernel(np.eye(kernel.dim), np.zeros(kernel.dim), kernel.sigma)


#: A merge is made only when the merged kernel stands for the composition to this relative error (its noise
#: covariance in PSD order, its matrix in the noise's metric); otherwise `compose` keeps the `Chain`.
MERGE_RTOL = 2.0**-30
#: hypot is within 1 ulp, so (s1² + s2²) I ⪰ hypot(s1, s2)² I / (1 + 8 u).
_HYPOT_ERROR = 8 * 2.0**-53


def noise_rounding(kernel: AffineGaussianKernel) -> tuple[float, float]:
    """(η, β) of `kernel`: its noise covariance Σ_true ⪰ L Lᵀ/(1 + η) for L = ``kernel.cholesky``, and
    ||L⁻¹ (A_true − A)|| <= β (both 0 for sigma, η = `cholesky_error` for a given `noise_cov`; a merged kernel
    carries the bounds of its merge)."""
    if kernel._rounding is not None:
        return kernel._rounding
    if kernel.sigma is not None:
        return 0.0, 0.0
    return cholesky_error(kernel.noise_cov, kernel.cholesky), 0.0


@MERGES.register((AffineGaussianKernel, AffineGaussianKernel), (GaussianKernel, AffineGaussianKernel),
                 (AffineGaussianKernel, GaussianKernel))
def _merge_affine(left: MarkovOperator, right: MarkovOperator) -> AffineGaussianKernel | None:
    """K1 then K2: A2 (A1 x + b1 + Z1) + b2 + Z2 = A2 A1 x + (A2 b1 + b2) + N(0, A2 Σ1 A2ᵀ + Σ2), exactly.

    A GaussianKernel is A = I, b = 0, Σ = s² I. An isotropic kernel then a GaussianKernel stays isotropic
    (sigma = hypot(s1, s2)); every other merge holds a general `noise_cov` (e.g. σ1² A2 A2ᵀ + σ2² I), with the
    noise factor of the square-root push (`push_factor`) as its ``cholesky``. None (no merge) where float64
    cannot hold the merged kernel to `MERGE_RTOL` (e.g. a covariance of condition 1e22).
    """
    k1 = _as_affine(left) if isinstance(left, GaussianKernel) else left
    k2 = _as_affine(right) if isinstance(right, GaussianKernel) else right
    assert isinstance(k1, AffineGaussianKernel) and isinstance(k2, AffineGaussianKernel)
    a, b = k2.A @ k1.A, k2.A @ k1.b + k2.b
    eta1, beta1 = noise_rounding(k1)
    if isinstance(right, GaussianKernel) and k1.sigma is not None:
        merged = AffineGaussianKernel(a, b, float(np.hypot(k1.sigma, right.sigma)))  # a = I A1 = A1 exactly
        object.__setattr__(merged, "_rounding", ((1.0 + eta1) * (1.0 + _HYPOT_ERROR) - 1.0, beta1))
        return merged
    eta2, beta2 = noise_rounding(k2)
    state = push_factor(FactorState(k1.cholesky, k1.A, eta1, beta1), k2.A, k2.cholesky, eta2, beta2)
    spread = k2.A @ k1.cholesky
    try:
        merged = AffineGaussianKernel(a, b, noise_cov=spread @ spread.T + k2.noise_cov)
    except ValueError:  # not positive definite in float64
        return None
    if not _faithful(state, spread, k2.noise_cov):
        return None
    object.__setattr__(merged, "cholesky", readonly(state.factor))
    object.__setattr__(merged, "_rounding", (state.cov_error, state.image_error))
    return merged


def _faithful(state: FactorState, spread: Array, cov: Array) -> bool:
    """Whether the merge holds to `MERGE_RTOL`: its noise factor F and matrix (η, β of the push), and the float
    covariance S Sᵀ + Σ2 (S = A2 L1), off from F Fᵀ by at most γ (2 |S||S|ᵀ + |Σ2|), in F's metric."""
    f = state.factor
    inv = np.abs(forward_solve(f, np.eye(f.shape[0])))
    gamma = 2.0 * (spread.shape[1] + 2) * 2.0**-53
    formula = gamma * (2.0 * np.linalg.norm(inv @ np.abs(spread), 2) ** 2
                       + np.linalg.norm(inv @ np.abs(cov) @ inv.T, 2))
    signal = np.linalg.norm(forward_solve(f, state.image), 2)
    return bool(state.cov_error <= MERGE_RTOL and formula <= MERGE_RTOL and state.image_error <= MERGE_RTOL * signal)


@PUSHES.register((AffineGaussianKernel, ShiftPair))
def _push_shift(kernel: AffineGaussianKernel, pairs: ShiftPair) -> GaussianBallPair:
    """A shift pair of isotropic Gaussian noise N(0, s² I) stands for the whole L2 ball of radius ||shift||
    (`ShiftPair`); through y = A x + b + N(0, Σ) it is the ball pair (s² A Aᵀ + Σ, A, Δ): the worst direction is
    the top eigenvector of Aᵀ (s² A Aᵀ + Σ)⁻¹ A, not e_1."""
    noise, shifted = pairs.noise, pairs.shifted
    if not (isinstance(noise, Normal) and isinstance(shifted, Normal) and noise.sigma == shifted.sigma):
        raise NotImplementedError(
            f"AffineGaussianKernel keeps a shift pair exact only for isotropic Gaussian noise of one sigma; got "
            f"{type(noise).__name__} and {type(shifted).__name__}.")
    require_compatible(noise.space, kernel.domain, "M >> K")
    d = kernel.domain.d
    radius = float(np.linalg.norm(np.atleast_1d(shifted.mean - noise.mean)))
    base = GaussianBallPair(None, np.eye(d), radius, factor=noise.sigma * np.eye(d))  # Σ = (s I)(s I)ᵀ exactly
    return _push_ball(kernel, base)


@PUSHES.register((AffineGaussianKernel, GaussianBallPair))
def _push_ball(kernel: AffineGaussianKernel, pairs: GaussianBallPair) -> GaussianBallPair:
    """(Σ, B, Δ) → (A Σ Aᵀ + Σ_K, A B, Δ): the whole ball is pushed (its square-root factor, `push_factor`), its
    worst direction recomputed."""
    require_compatible(RealSpace(pairs.d_out), kernel.domain, "M >> K")
    eta, beta = noise_rounding(kernel)
    return pairs.pushed(kernel.A, noise_factor=kernel.cholesky, noise_error=eta, map_error=beta)


__all__ = ["MERGE_RTOL", "AffineGaussianKernel", "noise_rounding"]
