"""Probability laws: what mechanisms output and what ``mu >> K`` yields (THEORY: Notation)."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._random import RNGLike, as_generator
from ._validation import (
    check_int,
    check_points,
    check_positive,
    check_probability_vector,
    check_real,
    check_states,
    fail,
    readonly,
)
from .spaces import FiniteSpace, RealSpace, Space

if TYPE_CHECKING:
    from .operators.base import MarkovOperator


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

    def __rshift__(self, kernel: MarkovOperator) -> Distribution:
        from .operators.base import MarkovOperator

        if not isinstance(kernel, MarkovOperator):
            return NotImplemented
        return kernel.push(self)


def _count(n: Any) -> int:
    return check_int("n", n, minimum=0)


@dataclass(frozen=True, repr=False)
class Categorical(Distribution):
    """The law on {0..k-1} with P(i) = probs[i]."""

    probs: NDArray[np.float64]
    kind: ClassVar[str] = "atomic"

    def __post_init__(self) -> None:
        object.__setattr__(self, "probs", check_probability_vector("probs", self.probs))

    def atoms(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return np.arange(self.probs.size, dtype=np.float64)[:, None], np.asarray(self.probs)

    @property
    def space(self) -> FiniteSpace:
        return FiniteSpace(self.probs.size)

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[np.int64]:
        return as_generator(rng).choice(self.probs.size, size=_count(n), p=self.probs).astype(np.int64)

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        states = check_states("x", x, self.probs.size)
        with np.errstate(divide="ignore"):
            return np.log(self.probs)[states]

    def __repr__(self) -> str:
        return f"Categorical({np.round(self.probs, 4).tolist()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Categorical) and np.array_equal(self.probs, other.probs)

    def __hash__(self) -> int:
        return hash(self.probs.tobytes())


def _vector(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """A point of R^d: a scalar for d = 1 (a length-1 vector is read as that scalar), a vector otherwise."""
    arr = np.asarray(check_real(name, value), dtype=np.float64)
    if arr.ndim > 1 or arr.size == 0:
        raise fail(name, "a scalar or a non-empty 1-D vector", f"shape {arr.shape}")
    return readonly(arr.reshape(()) if arr.size == 1 else arr)


@dataclass(frozen=True, repr=False)
class Normal(Distribution):
    """The isotropic Gaussian N(mean, sigma² I); `sigma` is a standard deviation."""

    mean: Any
    sigma: float
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean", _vector("mean", self.mean))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        return [float(self.mean.reshape(-1)[0])], [float(self.sigma)]

    @property
    def space(self) -> RealSpace:
        return RealSpace(max(self.mean.size, 1))

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        shape = (_count(n),) + self.mean.shape
        return self.mean + self.sigma * as_generator(rng).standard_normal(shape)

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        d = self.space.d
        x = check_points("x", x, d)
        sq = (x - self.mean) ** 2
        if self.mean.ndim == 1:
            sq = sq.sum(axis=-1)
        return -0.5 * sq / self.sigma**2 - d * (np.log(self.sigma) + 0.5 * np.log(2 * np.pi))

    def __repr__(self) -> str:
        mean = float(self.mean) if self.mean.ndim == 0 else self.mean.tolist()
        return f"Normal(mean={mean!r}, sigma={self.sigma!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Normal) and self.sigma == other.sigma
                and self.mean.shape == other.mean.shape and np.array_equal(self.mean, other.mean))

    def __hash__(self) -> int:
        return hash((self.mean.tobytes(), self.sigma))


@dataclass(frozen=True)
class Laplace(Distribution):
    """The 1-D Laplace law Lap(loc, scale), density exp(-|x - loc|/scale) / (2 scale)."""

    loc: float
    scale: float
    kind: ClassVar[str] = "continuous"

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        return [float(self.loc)], [float(self.scale)]

    def __post_init__(self) -> None:
        loc = check_real("loc", self.loc)
        if np.ndim(loc) != 0:
            raise fail("loc", "a scalar (Laplace is 1-D)", f"shape {np.shape(loc)}", TypeError)
        object.__setattr__(self, "loc", float(loc))
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1)

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        return as_generator(rng).laplace(self.loc, self.scale, size=_count(n))

    def log_density(self, x: ArrayLike) -> NDArray[np.float64]:
        x = check_points("x", x, 1)
        return -np.abs(x - self.loc) / self.scale - np.log(2 * self.scale)


@dataclass(frozen=True, repr=False)
class PointMass(Distribution):
    """The Dirac law at `x`: a point of R^d, or an index of ``FiniteSpace(k)`` when `space` is given."""

    x: Any
    space_: Space | None = field(default=None)
    kind: ClassVar[str] = "atomic"

    def atoms(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return np.asarray(self.x, dtype=np.float64).reshape(1, -1) + 0.0, np.ones(1)

    def __post_init__(self) -> None:
        if isinstance(self.space_, FiniteSpace):
            x = check_int("x", self.x, minimum=0)
            if x >= self.space_.k:
                raise fail("x", f"an index in [0, {self.space_.k - 1}]", x)
            object.__setattr__(self, "x", x)
        else:
            x = _vector("x", self.x)
            object.__setattr__(self, "x", x)
            object.__setattr__(self, "space_", RealSpace(max(x.size, 1)))

    @property
    def space(self) -> Space:
        assert self.space_ is not None
        return self.space_

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[Any]:
        n = _count(n)
        if isinstance(self.space_, FiniteSpace):
            return np.full(n, self.x, dtype=np.int64)
        return np.broadcast_to(self.x, (n,) + self.x.shape).copy()

    def __repr__(self) -> str:
        x = self.x if isinstance(self.x, int) else (float(self.x) if self.x.ndim == 0 else self.x.tolist())
        return f"PointMass({x!r})" if isinstance(self.space_, RealSpace) else f"PointMass({x!r}, {self.space_})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PointMass) and self.space_ == other.space_
                and np.array_equal(self.x, other.x))

    def __hash__(self) -> int:
        return hash(repr(self))


@dataclass(frozen=True, repr=False, eq=False)
class Empirical(Distribution):
    """The empirical law of `samples` (shape (n,) or (n, d)); sampling resamples with replacement."""

    samples: NDArray[np.float64]
    kind: ClassVar[str] = "atomic"

    def atoms(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        rows = self.samples.reshape(self.samples.shape[0], -1) + 0.0  # + 0.0 merges -0.0 with 0.0
        atoms, counts = np.unique(rows, axis=0, return_counts=True)
        return atoms, counts / rows.shape[0]

    def __post_init__(self) -> None:
        arr = np.asarray(check_real("samples", self.samples), dtype=np.float64)
        if arr.ndim not in (1, 2) or arr.shape[0] == 0:
            raise fail("samples", "a non-empty array of shape (n,) or (n, d)", f"shape {arr.shape}")
        object.__setattr__(self, "samples", readonly(arr))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1 if self.samples.ndim == 1 else self.samples.shape[1])

    def sample(self, n: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        idx = as_generator(rng).integers(0, self.samples.shape[0], size=_count(n))
        return self.samples[idx]

    def __repr__(self) -> str:
        return f"Empirical(n={self.samples.shape[0]}, {self.space.describe()})"
