"""The `Distribution` interface: a law on a space (THEORY: Notation), and the checks its subclasses share."""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import (
    check_int,
    check_points,
    check_real,
    fail,
    readonly,
)
from ..spaces import Space


class Distribution(abc.ABC):
    """A law on `space`. ``mu >> K`` is the law mu K (first mu, then the kernel K).

    `kind` says which family of divergence rules applies when no rule names the class itself:
    ``"atomic"`` (finitely many atoms: exact finite sums via `atoms`), ``"continuous"`` (a density w.r.t.
    Lebesgue measure), or None.
    """

    kind: ClassVar[str | None] = None

    @property
    @abc.abstractmethod
    def space(self) -> Space: ...

    @abc.abstractmethod
    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[Any]:
        """`n` independent draws: shape (n,) on a finite space or R^1, (n, d) on R^d."""

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        """Log density w.r.t. counting (finite) or Lebesgue (R^d) measure."""
        raise NotImplementedError(f"{type(self).__name__} has no density.")

    def atoms(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(atoms as rows of shape (n, d), their weights) of an atomic law."""
        raise NotImplementedError(f"{type(self).__name__} is not atomic.")

    def quadrature_hints(self) -> tuple[list[float], list[float]] | None:
        """(locations, scales) where a law on R^1 puts its mass, for quadrature; None if unknown."""
        return None


def _count(n: Any) -> int:
    return check_int("n", n, minimum=0)


def _vector(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """A point of R^d: a scalar for d = 1 (a length-1 vector is read as that scalar), a vector otherwise."""
    arr = np.asarray(check_real(name, value), dtype=np.float64)
    if arr.ndim > 1 or arr.size == 0:
        raise fail(name, "a scalar or a non-empty 1-D vector", f"shape {arr.shape}")
    return readonly(arr.reshape(()) if arr.size == 1 else arr)


def log_symmetric_side(log_sf_u: Callable[[NDArray[np.float64]], NDArray[np.float64]],
                       d: NDArray[np.float64]) -> NDArray[np.float64]:
    """log P(X − loc <= d) for a law symmetric about loc, from u ↦ log P(X > loc + u), u >= 0: the tail itself left
    of loc, log1p(−tail) right of it (the tail there is <= 1/2; clipped so rounding cannot pass it)."""
    d = np.asarray(d, dtype=np.float64)
    log_tail = np.asarray(log_sf_u(np.abs(d))).reshape(d.shape)
    return np.where(d < 0.0, log_tail, np.log1p(-np.exp(np.minimum(log_tail, math.log(0.5)))))


class SymmetricLaw(Distribution):
    """A law on R symmetric about `loc`, given in log space on the half-line: ``_log_density_u(u)`` = log f(loc + u)
    and ``_log_sf_u(u)`` = log P(X > loc + u) for u >= 0 (nats). Density, CDF and survival function follow, with
    relative accuracy in both tails (`log_symmetric_side`)."""

    loc: float

    @abc.abstractmethod
    def _log_density_u(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """log f(loc + u) for u >= 0."""

    @abc.abstractmethod
    def _log_sf_u(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """log P(X > loc + u) for u >= 0."""

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        """log f(x) in nats."""
        x = check_points("x", x, 1)
        return np.asarray(self._log_density_u(np.abs(x - self.loc))).reshape(x.shape)

    def density(self, x: ArrayLike) -> NDArray[np.float64]:
        return np.exp(self.log_density(x))

    def log_cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """log P(X <= x): log S(|x − loc|) left of loc, log1p(−S) right of it."""
        return log_symmetric_side(self._log_sf_u, check_points("x", x, 1) - self.loc)

    def log_sf(self, x: ArrayLike) -> NDArray[np.float64]:
        """log P(X > x) = log_cdf(2 loc − x) (the law is symmetric about loc)."""
        return log_symmetric_side(self._log_sf_u, self.loc - check_points("x", x, 1))

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        return np.exp(self.log_cdf(x))

    def sf(self, x: ArrayLike) -> NDArray[np.float64]:
        return np.exp(self.log_sf(x))
