"""The Gaussian law N(mean, cov) on R^d with a full covariance: what affine Gaussian kernels push to.

THEORY: STD-GaussHS, STD-GaussRenyi (matrix form). `Normal` (continuous.py) stays the isotropic case;
`as_multivariate_normal` views it as a `MultivariateNormal` so rules can mix the two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_real, fail, readonly
from ..spaces import RealSpace
from .base import Distribution, _count, _vector
from .continuous import Normal

#: A covariance is symmetric when max |C − Cᵀ| <= SYMMETRY_RTOL · max |C| (it is then stored as (C + Cᵀ)/2).
SYMMETRY_RTOL = 1e-10


def check_covariance(name: str, value: ArrayLike, d: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A symmetric positive definite (d, d) matrix (a scalar variance when d = 1), and its Cholesky factor.

    Returns read-only copies of (C, L) with C = L Lᵀ, L lower triangular; C is symmetrised exactly.
    """
    arr = np.asarray(check_real(name, value), dtype=np.float64)
    if d == 1 and arr.ndim == 0:
        arr = arr.reshape(1, 1)
    if arr.shape != (d, d):
        raise fail(name, f"a ({d}, {d}) matrix (the dimension of `mean`)", f"shape {arr.shape}")
    asym = np.abs(arr - arr.T)
    if asym.max() > SYMMETRY_RTOL * np.abs(arr).max():
        i, j = np.unravel_index(int(np.argmax(asym)), asym.shape)
        raise fail(name, f"symmetric (|C − Cᵀ| <= {SYMMETRY_RTOL:g} max |C|)",
                   f"not symmetric: C[{i}, {j}] = {float(arr[i, j])!r}, C[{j}, {i}] = {float(arr[j, i])!r}")
    sym = 0.5 * (arr + arr.T)
    try:
        chol = np.linalg.cholesky(sym)
    except np.linalg.LinAlgError:
        smallest = float(np.linalg.eigvalsh(sym)[0])
        raise fail(name, "positive definite", f"not positive definite: smallest eigenvalue {smallest!r}") from None
    if not np.all(np.diag(chol) > 0.0):
        raise fail(name, "positive definite", "not positive definite: a zero pivot in its Cholesky factor")
    return readonly(sym), readonly(chol)


@dataclass(frozen=True, repr=False, eq=False)
class MultivariateNormal(Distribution):
    """N(mean, cov) on R^d: density (2π)^(−d/2) det(cov)^(−1/2) exp(−½ (x − m)ᵀ cov⁻¹ (x − m)).

    `mean`: a scalar (d = 1) or a vector of length d; `cov`: a (d, d) symmetric positive definite matrix
    (a scalar variance when d = 1), not a standard deviation. The Cholesky factor ``cholesky`` (lower,
    cov = L Lᵀ) is computed once at construction.
    """

    mean: Any
    cov: Any
    cholesky: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        mean = _vector("mean", self.mean)
        cov, chol = check_covariance("cov", self.cov, max(mean.size, 1))
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "cov", cov)
        object.__setattr__(self, "cholesky", chol)

    @property
    def space(self) -> RealSpace:
        return RealSpace(max(self.mean.size, 1))

    @property
    def log_det(self) -> float:
        """log det(cov) = 2 Σ log L_ii."""
        return float(2.0 * np.log(np.diag(self.cholesky)).sum())

    def quadrature_hints(self) -> tuple[list[float], list[float]] | None:
        if self.space.d != 1:
            return None
        return [float(self.mean)], [float(self.cholesky[0, 0])]

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        """`n` draws mean + L z, z ~ N(0, I): shape (n,) for d = 1, (n, d) otherwise."""
        d = self.space.d
        z = as_generator(rng).standard_normal((_count(n), d))
        draws = self.mean.reshape(d) + z @ self.cholesky.T
        return draws[:, 0] if self.mean.ndim == 0 else draws

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        d = self.space.d
        points = check_points("x", x, d)
        diff = (points - self.mean).reshape(-1, d)
        z = np.linalg.solve(self.cholesky, diff.T)  # L z = x − m
        lead = points.shape if d == 1 else points.shape[:-1]
        quad = np.square(z).sum(axis=0).reshape(lead)
        return -0.5 * quad - 0.5 * self.log_det - 0.5 * d * math.log(2.0 * math.pi)

    def __repr__(self) -> str:
        mean = float(self.mean) if self.mean.ndim == 0 else self.mean.tolist()
        cov = float(self.cov[0, 0]) if self.mean.ndim == 0 else self.cov.tolist()
        return f"MultivariateNormal(mean={mean!r}, cov={cov!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MultivariateNormal) and self.mean.shape == other.mean.shape
                and np.array_equal(self.mean, other.mean) and np.array_equal(self.cov, other.cov))

    def __hash__(self) -> int:
        return hash((self.mean.shape, self.mean.tobytes(), self.cov.tobytes()))


def as_multivariate_normal(law: Normal | MultivariateNormal) -> MultivariateNormal:
    """`law` as a MultivariateNormal: N(m, sigma² I) → MultivariateNormal(m, sigma² I); a MVN unchanged."""
    if isinstance(law, MultivariateNormal):
        return law
    if isinstance(law, Normal):
        d = law.space.d
        return MultivariateNormal(law.mean, law.sigma**2 * np.eye(d))
    raise fail("law", "a Normal or a MultivariateNormal", type(law).__name__, TypeError)


__all__ = ["MultivariateNormal", "as_multivariate_normal"]
