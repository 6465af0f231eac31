"""The `Distribution` interface: a law on a space (THEORY: Notation), and the checks its subclasses share."""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import (
    check_int,
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
