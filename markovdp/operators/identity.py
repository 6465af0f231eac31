"""The identity kernel K(x) = δ_x: the neutral element of ``>>``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import readonly
from ..distributions import Distribution
from ..pairs import PUSHES, PairSet
from ..spaces import FiniteSpace, Space, require_compatible
from .base import MERGES, MarkovOperator, check_inputs


@dataclass(frozen=True)
class Identity(MarkovOperator):
    """K(x) = δ_x on `space` (no post-processing)."""

    space: Space

    def __post_init__(self) -> None:
        if not isinstance(self.space, Space):
            raise TypeError(f"`space` must be a Space such as FiniteSpace(k) or RealSpace(d); got {self.space!r}.")

    @property
    def domain(self) -> Space:
        return self.space

    @property
    def codomain(self) -> Space:
        return self.space

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        return np.array(check_inputs(self.space, x), copy=True)

    @property
    def matrix(self) -> NDArray[np.float64]:
        """The identity matrix, on a finite space (an AttributeError on R^d)."""
        if not isinstance(self.space, FiniteSpace):
            raise AttributeError(f"Identity on {self.space.describe()} has no matrix.")
        return readonly(np.eye(self.space.k))

    def push(self, mu: Distribution) -> Distribution:
        require_compatible(mu.space, self.space, "mu >> K")
        return mu


MERGES.register((Identity, MarkovOperator))(lambda left, right: right)
MERGES.register((MarkovOperator, Identity))(lambda left, right: left)
#: δ_x changes nothing: every pair set stays exact.
PUSHES.register((Identity, PairSet))(lambda kernel, pairs: pairs)
