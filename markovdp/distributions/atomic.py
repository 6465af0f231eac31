"""Laws with finitely many atoms: `Categorical`, `PointMass`, `Empirical` (exact finite sums)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import (
    check_int,
    check_probability_vector,
    check_real,
    check_states,
    fail,
    readonly,
)
from ..spaces import FiniteSpace, RealSpace, Space
from .base import Distribution, _count, _vector


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
            if self.space_ is not None and not isinstance(self.space_, RealSpace):
                raise fail("space_", "None, a FiniteSpace or a RealSpace", type(self.space_).__name__, TypeError)
            x = _vector("x", self.x)
            space = RealSpace(max(x.size, 1))
            if self.space_ is not None and self.space_ != space:
                raise fail("space_", f"{space!r}, the space of `x`", repr(self.space_))
            object.__setattr__(self, "x", x)
            object.__setattr__(self, "space_", space)

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
