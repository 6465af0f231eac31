"""Laws with a Lebesgue density on R^d: the isotropic `Normal` and the 1-D `Laplace`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive, check_real, fail
from ..spaces import RealSpace
from .base import Distribution, _count, _vector


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
        diff = x - self.mean
        sq = np.einsum("...i,...i->...", diff, diff) if self.mean.ndim == 1 else diff**2
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
