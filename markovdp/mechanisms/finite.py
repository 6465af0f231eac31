"""Mechanisms with finitely many inputs and outputs: a row-stochastic matrix and a neighbour relation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_eps, check_int, check_stochastic_matrix, fail, readonly
from ..distributions import Categorical
from ..operators.finite import FiniteKernel, matrix_text
from ..pairs import RowPairs
from ..spaces import FiniteSpace
from .base import AllPairs, IndexPairs, Mechanism, Neighbourhood, neighbour_pairs


class MatrixMechanism(Mechanism):
    """A mechanism on inputs {0..k-1} whose row i of ``matrix`` is the output law M(i)."""

    matrix: NDArray[np.float64]

    @cached_property
    def kernel(self) -> FiniteKernel:
        """The rows as a kernel (used for sampling)."""
        return FiniteKernel(self.matrix)

    @property
    def output_space(self) -> FiniteSpace:
        return FiniteSpace(self.matrix.shape[1])

    def output(self, value: Any) -> Categorical:
        k = self.matrix.shape[0]
        i = check_int("value", value, minimum=0)
        if i >= k:
            raise fail("value", f"an input index in [0, {k - 1}]", i)
        return Categorical(self.matrix[i])

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        return self.kernel.sample(value, rng=rng)

    def dominating_pairs(self) -> RowPairs:
        """The rows of every ordered neighbour pair (exhaustive: these are the real output laws)."""
        k = self.matrix.shape[0]
        return RowPairs(self.matrix, neighbour_pairs(self.neighbours, k), isinstance(self.neighbours, AllPairs))


def _check_pairs(pairs: Sequence[Sequence[int]], k: int) -> tuple[tuple[int, int], ...]:
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise fail("neighbours", "a list of (i, j) index pairs", pair)
        i, j = (check_int("neighbours", v, minimum=0) for v in pair)
        if i >= k or j >= k or i == j:
            raise fail("neighbours", f"pairs of distinct indices in [0, {k - 1}]", f"({i}, {j})")
        out.append((i, j))
    if not out:
        raise fail("neighbours", "a non-empty list of pairs (or None for all pairs)", "[]")
    return tuple(out)


@dataclass(frozen=True, eq=False, repr=False)
class FiniteMechanism(MatrixMechanism):
    """M(i) = Categorical(matrix[i]) for inputs (datasets) i = 0..k-1.

    `neighbours`: None = every ordered pair of inputs (local DP); or a list of index pairs (i, j),
    each checked in both directions.
    """

    matrix: NDArray[np.float64]
    neighbours: Any = None

    def __post_init__(self) -> None:
        matrix = check_stochastic_matrix("matrix", self.matrix)
        object.__setattr__(self, "matrix", matrix)
        k = matrix.shape[0]
        if k < 2:
            raise fail("matrix", "a matrix with >= 2 rows (inputs)", f"{k} row")
        if self.neighbours is None:
            nb: Neighbourhood = AllPairs()
        elif isinstance(self.neighbours, (AllPairs, IndexPairs)):
            nb = self.neighbours
        else:
            nb = IndexPairs(_check_pairs(self.neighbours, k))
        object.__setattr__(self, "neighbours", nb)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FiniteMechanism) and self.neighbours == other.neighbours
                and np.array_equal(self.matrix, other.matrix))

    def __hash__(self) -> int:
        return hash((self.matrix.tobytes(), self.neighbours))

    def __repr__(self) -> str:
        return f"FiniteMechanism({matrix_text(self.matrix)}, neighbours={self.neighbours!r})"


@dataclass(frozen=True, repr=False)
class RandomizedResponse(MatrixMechanism):
    """k-ary randomized response: M(x) = x with probability e^eps / (e^eps + k − 1), else uniform on the rest.

    Neighbours: all input pairs (local DP); exactly eps-LDP (AAC-T1; SRP-D). `eps` in nats, finite.
    """

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_eps("eps", self.eps))

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        k = self.k
        # 1 / (e^eps + k - 1) written as e^-eps / (1 + (k - 1) e^-eps): no overflow for large eps.
        off = np.exp(-self.eps) / (1.0 + (k - 1) * np.exp(-self.eps))
        matrix = np.full((k, k), off)
        np.fill_diagonal(matrix, 1.0 / (1.0 + (k - 1) * np.exp(-self.eps)))
        return readonly(matrix / matrix.sum(axis=1, keepdims=True))

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    def __repr__(self) -> str:
        return f"RandomizedResponse(k={self.k}, eps={self.eps!r}, neighbours=AllPairs())"
