"""Euclidean projections Π_W onto closed convex sets W ⊆ R^d (BBGG-T4, BBGG-A1): `Ball` and `Box`.

Π_W is 1-Lipschitz (non-expansive), so projecting after a step never increases a W_inf distance. Each set also
exposes a numba form, ``(code, parameters)``, that the compiled samplers pass to
`markovdp.operators._projection_kernels.project_inplace`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_points, check_positive, check_real, fail, readonly
from ..spaces import RealSpace

#: numba codes of the sets (0: no projection, W = R^d).
NO_PROJECTION, BALL, BOX = 0, 1, 2


class Projection(abc.ABC):
    """The Euclidean projection onto a closed convex set W ⊆ R^d: Π_W(x) = argmin_{w ∈ W} ||w − x||_2."""

    code: ClassVar[int]

    @property
    @abc.abstractmethod
    def dim(self) -> int: ...

    @property
    @abc.abstractmethod
    def diameter(self) -> float:
        """sup_{w, w' ∈ W} ||w − w'||_2: a W_inf distance between any two laws on W is at most this."""

    @abc.abstractmethod
    def parameters(self) -> NDArray[np.float64]:
        """The set as a float64 vector for the numba kernels (see `code`)."""

    @abc.abstractmethod
    def _project(self, points: NDArray[np.float64]) -> NDArray[np.float64]: ...

    @property
    def space(self) -> RealSpace:
        return RealSpace(self.dim)

    def project(self, x: ArrayLike) -> NDArray[np.float64]:
        """Π_W of each point: shape (n,) when d = 1, (n, d) otherwise (as `check_points`)."""
        points = check_points("x", x, self.dim)
        flat = points.reshape(-1, self.dim) if points.ndim else points.reshape(1, 1)
        return self._project(flat).reshape(points.shape)

    def numba_form(self) -> tuple[int, NDArray[np.float64]]:
        """(code, parameters) for `project_inplace`."""
        return self.code, self.parameters()


@dataclass(frozen=True)
class Ball(Projection):
    """W = {w ∈ R^d : ||w||_2 <= radius}; Π_W(x) = x · min(1, radius / ||x||_2)."""

    d: int
    radius: float
    code: ClassVar[int] = BALL

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_int("d", self.d, minimum=1))
        object.__setattr__(self, "radius", check_positive("radius", self.radius))

    @property
    def dim(self) -> int:
        return self.d

    @property
    def diameter(self) -> float:
        return 2.0 * self.radius

    def parameters(self) -> NDArray[np.float64]:
        return np.array([self.radius])

    def _project(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        norms = np.linalg.norm(points, axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            scale = np.minimum(1.0, self.radius / norms)
        return points * scale


@dataclass(frozen=True, eq=False)
class Box(Projection):
    """W = [low_1, high_1] × … × [low_d, high_d]; Π_W clips each coordinate. Scalars give d = 1."""

    low: Any
    high: Any
    code: ClassVar[int] = BOX

    def __post_init__(self) -> None:
        low = np.atleast_1d(np.asarray(check_real("low", self.low), dtype=np.float64))
        high = np.atleast_1d(np.asarray(check_real("high", self.high), dtype=np.float64))
        if low.ndim != 1 or high.shape != low.shape:
            raise fail("high", f"the shape of `low` {low.shape}", f"shape {high.shape}")
        if np.any(high < low):
            n = int(np.argmax(high < low))
            raise fail("high", f">= `low` in every coordinate (low[{n}] = {float(low[n])!r})", float(high[n]))
        object.__setattr__(self, "low", readonly(low))
        object.__setattr__(self, "high", readonly(high))

    @property
    def dim(self) -> int:
        return int(self.low.size)

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(self.high - self.low))

    def parameters(self) -> NDArray[np.float64]:
        return np.concatenate([self.low, self.high])

    def _project(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(points, self.low, self.high)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Box) and np.array_equal(self.low, other.low)
                and np.array_equal(self.high, other.high))

    def __hash__(self) -> int:
        return hash((self.low.tobytes(), self.high.tobytes()))

    def __repr__(self) -> str:
        show = (lambda a: float(a[0])) if self.dim == 1 else (lambda a: a.tolist())
        return f"Box(low={show(self.low)!r}, high={show(self.high)!r})"


def check_projection(projection: Any, dim: int) -> Projection | None:
    """None (W = R^d) or a `Projection` on R^dim (`IncompatibleSpaces` naming both sizes otherwise)."""
    if projection is None:
        return None
    if not isinstance(projection, Projection):
        raise fail("projection", "None, Ball(d, radius) or Box(low, high)", f"{projection!r}", TypeError)
    if projection.dim != dim:
        from ..spaces import IncompatibleSpaces

        raise IncompatibleSpaces(f"`projection` acts on R^{projection.dim}; the kernel's points are in R^{dim}.")
    return projection


def no_projection() -> tuple[int, NDArray[np.float64]]:
    """The numba form of W = R^d."""
    return NO_PROJECTION, np.zeros(0)


__all__ = ["Ball", "Box", "Projection"]
