"""Dominating pair of a Gaussian mechanism after linear Gaussian post-processing: the whole L2 ball kept.

For neighbours with f(D) − f(D') = u, ||u||_2 <= Δ, a Gaussian mechanism followed by affine Gaussian kernels
outputs N(B f(D) + c, Σ) and N(B f(D') + c, Σ): B the composed linear map, Σ the accumulated noise covariance,
both independent of f. Every divergence between two Gaussians of one covariance is increasing in the
Mahalanobis distance ||B u||_{Σ⁻¹} (STD-GaussHS, STD-GaussRenyi), whose max over the ball is
Δ sqrt(λ_max(Bᵀ Σ⁻¹ B)), attained at the top eigenvector v*. So the one pair N(0, Σ) vs N(Δ B v*, Σ) is exact.

A `ShiftPair` fixes its direction (e_1), which is only the worst one while the noise is isotropic; pushing it
through a non-isotropic kernel would be wrong in general. `GaussianBallPair` keeps (Σ, B, Δ) instead, and the
kernels push those (rules in `PUSHES`, registered beside `GaussianKernel` and `AffineGaussianKernel`).

Numerics (docs/theory.md, BBGG-E1). Σ is never formed: the pair keeps a square-root factor F, Σ = F Fᵀ,
and a push through y = A x + N(0, L Lᵀ) takes F' from the QR factorisation of the stacked [A F | L]ᵀ (the
square-root filter), so a covariance of condition 1e17 costs no more than its factor's 3e8. The ratio is
σ_max(F⁻¹ B) by a triangular solve and an SVD. Every step carries an a-posteriori error bound from the textbook
backward errors of matrix products, Householder QR, Cholesky and triangular solves (Higham, *Accuracy and
Stability of Numerical Algorithms*, Thm 3.5, 8.5, 10.3, 19.4): the pair keeps η with Σ_true ⪰ F Fᵀ / (1 + η)
and β >= ||F⁻¹ (B_true − B)||_2, and `ratio` is the computed value raised by its bound — never below the
truth — or a NotImplementedError naming the condition number when the bound exceeds `RATIO_RTOL`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import check_positive, check_range, check_real, fail, readonly
from .distributions.multivariate_normal import MultivariateNormal, check_covariance
from .pairs import Pair, PairSet
from .spaces import IncompatibleSpaces

Array = NDArray[np.float64]

#: The largest relative error bound of `GaussianBallPair.ratio` that is reported; past it the pair refuses.
RATIO_RTOL = 2.0**-10
#: float64 unit roundoff.
_U = 2.0**-53


def _gamma(k: int) -> float:
    """2 γ_k = 2 k u / (1 − k u): Higham's γ_k, doubled because the norms it multiplies are computed in floats."""
    return 2.0 * k * _U / (1.0 - k * _U)


def _norm(m: Array) -> float:
    return float(np.linalg.norm(m, 2)) if m.size else 0.0


def forward_solve(factor: Array, rhs: Array) -> Array:
    """F⁻¹ B for a lower-triangular F by forward substitution, row by row (each column's backward error
    |ΔF| <= γ_d |F|: Higham Thm 8.5). Plain numpy (scipy's solve_triangular measured 11 ms a call for d = 2 in
    a markovdp process, against 8 µs in a bare one)."""
    out = np.array(rhs, dtype=np.float64, copy=True)
    for i in range(factor.shape[0]):
        out[i] = (out[i] - factor[i, :i] @ out[:i]) / factor[i, i]
    return out


def _lower_inverse(factor: Array) -> Array:
    return forward_solve(factor, np.eye(factor.shape[0]))


def _error(name: str, value: Any) -> float:
    """An error bound: a scalar >= 0 (inf: no bound)."""
    arr = check_range(name, value, low=0.0, allow_inf=True, allowed=">= 0 (inf: no bound)")
    if arr.ndim != 0:
        raise fail(name, "a scalar", f"shape {arr.shape}", TypeError)
    return float(arr)


def cholesky_error(cov: Array, factor: Array) -> float:
    """η with C ⪰ L Lᵀ / (1 + η) for the float Cholesky factor L of C (inf if no useful bound).

    L Lᵀ = C + E with |E| <= γ_{d+1} |L| |Lᵀ| (Higham Thm 10.3), so C ⪰ (1 − ρ) L Lᵀ with
    ρ = γ_{d+1} || |L⁻¹| |L| ||², and 1 + η = 1/(1 − ρ) (a diagonal C: about 4 (d + 1) u).
    """
    d = factor.shape[0]
    rho = _gamma(d + 1) * _norm(np.abs(_lower_inverse(factor)) @ np.abs(factor)) ** 2
    return 1.0 / (1.0 - rho) - 1.0 if rho < 0.5 else math.inf


@dataclass(frozen=True)
class FactorState:
    """A square-root state (F, B) with its error bounds: Σ_true ⪰ F Fᵀ/(1 + cov_error), and
    ||F⁻¹ (B_true − B)||_2 <= image_error."""

    factor: Array
    image: Array
    cov_error: float
    image_error: float


def push_factor(state: FactorState, matrix: Array, noise_factor: Array, noise_error: float = 0.0,
                map_error: float = 0.0) -> FactorState:
    """The state after y = A x + N(0, C) with C_true ⪰ L Lᵀ/(1 + noise_error) and ||L⁻¹ (A_true − A)|| <= map_error.

    F' is the lower-triangular factor of the QR of X = [A F | L]ᵀ, so F' F'ᵀ = A F Fᵀ Aᵀ + L Lᵀ up to the
    perturbation δ of X from the product A F (|δ| <= γ_n |A||F|), the QR (column j: ||δx_j|| <= γ_{mn}
    ||x_j||) and the map error. With ε >= ||F'⁻¹ δᵀ||: Σ'_true ⪰ F' F'ᵀ (1 − ε)² / (1 + max(η, η_K)), and
    β' = (1 + ε)(β + map_error ||B||) + γ_n || |F'⁻¹| |A| |B| ||. ε >= 1 makes the bound infinite.
    """
    f, b = state.factor, state.image
    n, d = matrix.shape[1], matrix.shape[0]
    x = np.concatenate([matrix @ f, noise_factor], axis=1).T  # (m, d): [A F | L]ᵀ
    r = np.linalg.qr(x, mode="r")[:d]
    signs = np.where(np.diag(r) < 0.0, -1.0, 1.0)
    new = np.tril(r.T * signs)  # lower triangular, positive diagonal: F' F'ᵀ = Rᵀ R
    inv = np.abs(_lower_inverse(new))
    product = _gamma(n) * _norm(inv @ (np.abs(matrix) @ np.abs(f)))
    qr = _gamma(x.shape[0] * d) * float(np.linalg.norm(inv, axis=0) @ np.linalg.norm(x, axis=0))
    eps0 = product + qr
    eps = eps0 + (1.0 + eps0) * map_error * _norm(f)
    image = matrix @ b
    if not (eps < 1.0 and np.all(np.isfinite(inv))):
        return FactorState(new, image, math.inf, math.inf)
    cov_error = (1.0 + max(state.cov_error, noise_error)) / (1.0 - eps) ** 2 - 1.0
    image_error = ((1.0 + eps) * (state.image_error + map_error * _norm(b))
                   + _gamma(n) * _norm(inv @ (np.abs(matrix) @ np.abs(b))))
    return FactorState(new, image, cov_error, image_error)


@dataclass(frozen=True, eq=False)
class GaussianBallPair(PairSet):
    """N(0, noise_cov) vs N(sensitivity · image v*, noise_cov), v* the worst unit direction of the L2 ball.

    THEORY: STD-GaussHS, STD-GaussRenyi (Mahalanobis distance), BBGG-E1 (its numerics). `noise_cov` Σ:
    the (d_out, d_out) noise covariance (SPD); `image` B: the (d_out, d_in) linear map of the query value (a
    scalar for d_in = d_out = 1); `sensitivity` Δ: the L2 radius of the neighbour ball in the query space. The
    pair's Mahalanobis distance is ``ratio = Δ σ_max(F⁻¹ B)`` (Σ = F Fᵀ), v* the top right singular vector of
    F⁻¹ B, i.e. the top eigenvector of Bᵀ Σ⁻¹ B.

    Pushes build the pair from a square-root factor instead (`factor` F with Σ_true ⪰ F Fᵀ/(1 + `cov_error`),
    `image_error` >= ||F⁻¹ (B_true − B)||; `noise_cov` None: F Fᵀ, for the laws of the pair only).
    """

    noise_cov: Any
    image: Any
    sensitivity: float
    factor: Any = field(default=None, kw_only=True, repr=False)
    cov_error: float = field(default=0.0, kw_only=True, repr=False)
    image_error: float = field(default=0.0, kw_only=True, repr=False)
    cholesky: Array = field(init=False, repr=False)

    def __post_init__(self) -> None:
        image = np.asarray(check_real("image", self.image), dtype=np.float64)
        if image.ndim == 0:
            image = image.reshape(1, 1)
        if image.ndim != 2:
            raise fail("image", "a scalar or a 2-D (d_out, d_in) matrix", f"shape {image.shape}")
        d = image.shape[0]
        cov_error = _error("cov_error", self.cov_error)
        if self.factor is None:
            cov, chol = _covariance(self.noise_cov, d)
            cov_error = max(cov_error, cholesky_error(cov, chol))
        else:
            chol = readonly(_factor("factor", self.factor, d))
            cov = readonly(0.5 * ((chol @ chol.T) + (chol @ chol.T).T))
        object.__setattr__(self, "image", readonly(image))
        object.__setattr__(self, "noise_cov", cov)
        object.__setattr__(self, "cholesky", chol)
        object.__setattr__(self, "factor", chol)
        object.__setattr__(self, "cov_error", cov_error)
        object.__setattr__(self, "image_error", _error("image_error", self.image_error))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    @property
    def d_in(self) -> int:
        return int(self.image.shape[1])

    @property
    def d_out(self) -> int:
        return int(self.image.shape[0])

    @cached_property
    def _worst(self) -> tuple[float, float, Array]:
        """(σ_max(F⁻¹ B) as computed, an upper bound of the true σ_max(Σ_true^(−1/2) B_true), v*).

        W = F⁻¹ B by a triangular solve ((F + ΔF_j) w_j = b_j, |ΔF_j| <= γ_d |F|: Higham Thm 8.5), so
        ||F⁻¹ B|| <= σ_max(W)(1 + γ_4d) + γ_d || |F⁻¹| |F| |W| ||_F; then Σ_true ⪰ F Fᵀ/(1 + η) and the image
        error β give σ_true <= sqrt(1 + η) (||F⁻¹ B|| + β).
        """
        f, d = self.cholesky, self.d_out
        if not np.all(np.diag(f) > 0.0):  # Σ singular in float64: no certified value (`ratio` refuses)
            return math.nan, math.inf, np.full(self.d_in, math.nan)
        w = forward_solve(f, self.image)
        _, s, vt = np.linalg.svd(w)
        top = float(s[0])
        solve = _gamma(d) * float(np.linalg.norm(np.abs(_lower_inverse(f)) @ np.abs(f) @ np.abs(w)))
        upper = math.sqrt(1.0 + self.cov_error) * (top * (1.0 + _gamma(4 * d)) + solve + self.image_error)
        return top, upper * (1.0 + _gamma(2)), vt[0]

    @property
    def direction(self) -> Array:
        """v*: a unit vector of the query space along which the neighbours are hardest to tell apart."""
        return self._worst[2].copy()

    @property
    def ratio_error(self) -> float:
        """The relative error bound of `ratio`: truth <= ratio <= computed value · (1 + ratio_error)."""
        top, upper, _ = self._worst
        return upper / top - 1.0 if top > 0.0 else (0.0 if upper == 0.0 else math.inf)

    @property
    def ratio(self) -> float:
        """Δ sqrt(λ_max(Bᵀ Σ⁻¹ B)), the largest Mahalanobis distance between the neighbours' output laws, raised by
        its a-posteriori error bound (never below the truth).

        Raises NotImplementedError naming the condition number of Σ when that bound exceeds `RATIO_RTOL`.
        """
        top, upper, _ = self._worst
        error = self.ratio_error
        if not error <= RATIO_RTOL:
            cond = float(np.linalg.cond(self.cholesky)) ** 2
            raise NotImplementedError(
                f"GaussianBallPair: the Mahalanobis distance {self.sensitivity * top:.6g} is certified only to a "
                f"relative error of {error:.3g} > {RATIO_RTOL:.3g} (RATIO_RTOL) in float64 (the noise covariance has "
                f"condition number {cond:.3g}; error bounds carried: cov_error={self.cov_error:.3g}, "
                f"image_error={self.image_error:.3g}).")
        return float(np.nextafter(self.sensitivity * upper, math.inf))

    def __len__(self) -> int:
        return 1

    def __getitem__(self, n: int) -> Pair:
        if n not in (0, -1):
            raise IndexError(n)
        shift = self.sensitivity * (self.image @ self._worst[2])
        mean = float(shift[0]) if self.d_out == 1 else shift
        origin = 0.0 if self.d_out == 1 else np.zeros(self.d_out)
        return MultivariateNormal(origin, self.noise_cov), MultivariateNormal(mean, self.noise_cov)

    def pushed(self, matrix: ArrayLike, noise_cov: ArrayLike | None = None, *, noise_factor: ArrayLike | None = None,
               noise_error: float = 0.0, map_error: float = 0.0) -> GaussianBallPair:
        """The pair after y = A x + b + N(0, C): covariance A Σ Aᵀ + C, image A B (b drops out).

        The noise is `noise_cov` C (its Cholesky factor and `cholesky_error` are taken here) or `noise_factor`
        L with C ⪰ L Lᵀ/(1 + `noise_error`); `map_error` bounds ||L⁻¹ (A_true − A)|| where `matrix` is itself
        rounded (a merged kernel). The factor is pushed by `push_factor` (Σ is never formed).
        """
        a = np.asarray(check_real("matrix", matrix), dtype=np.float64)
        if a.ndim != 2:
            raise fail("matrix", "a 2-D (d_out, d_in) matrix", f"shape {a.shape}")
        if a.shape[1] != self.d_out:
            raise IncompatibleSpaces(f"`M >> K`: cannot connect R^{self.d_out} to R^{a.shape[1]}.")
        noise_error, map_error = _error("noise_error", noise_error), _error("map_error", map_error)
        if (noise_cov is None) == (noise_factor is None):
            raise TypeError("`noise_cov` or `noise_factor` must be given, not both and not neither.")
        if noise_factor is None:
            cov, chol = _covariance(noise_cov, a.shape[0])
            noise_factor, noise_error = chol, max(noise_error, cholesky_error(cov, chol))
        state = FactorState(self.cholesky, self.image, self.cov_error, self.image_error)
        new = push_factor(state, a, _factor("noise_factor", noise_factor, a.shape[0]), noise_error, map_error)
        return GaussianBallPair(None, new.image, self.sensitivity, factor=new.factor, cov_error=new.cov_error,
                                image_error=new.image_error)

    def __repr__(self) -> str:
        top = self.sensitivity * self._worst[0]
        return f"GaussianBallPair(R^{self.d_in} → R^{self.d_out}, sensitivity={self.sensitivity!r}, ratio={top!r})"


def _factor(name: str, value: Any, d: int) -> Array:
    """A lower-triangular (d, d) square-root factor with a diagonal >= 0."""
    arr = np.asarray(check_real(name, value), dtype=np.float64)
    allowed = f"a lower-triangular ({d}, {d}) matrix with a diagonal >= 0"
    if arr.shape != (d, d):
        raise fail(name, allowed, f"shape {arr.shape}")
    if np.any(np.triu(arr, 1)) or not np.all(np.diag(arr) >= 0.0):
        raise fail(name, allowed, "a matrix with entries above the diagonal or a negative diagonal")
    return arr


def _covariance(value: Any, d: int) -> tuple[Array, Array]:
    cov = np.asarray(check_real("noise_cov", value), dtype=np.float64)
    if cov.ndim == 2 and cov.shape[0] == cov.shape[1] and cov.shape[0] != d:
        raise fail("noise_cov", f"a ({d}, {d}) matrix (the rows of `image`)", f"shape {cov.shape}")
    return check_covariance("noise_cov", cov, d)


__all__ = ["RATIO_RTOL", "FactorState", "GaussianBallPair", "cholesky_error", "forward_solve", "push_factor"]
