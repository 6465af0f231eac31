"""Finite kernels: row-stochastic matrices K[x, y] = P(Y = y | X = x) (THEORY: Notation)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_states, check_stochastic_matrix
from ..distributions import Categorical, Distribution, PointMass
from ..pairs import PUSHES, RowPairs
from ..spaces import FiniteSpace, require_compatible
from .base import MERGES, MarkovOperator


@dataclass(frozen=True, eq=False, repr=False)
class FiniteKernel(MarkovOperator):
    """The kernel of a row-stochastic matrix: K(x) = Categorical(matrix[x]).

    Each row must be a probability vector (entries >= 0, sum 1 ± 1e-12); no silent renormalisation.
    The matrix is stored as a read-only copy.
    """

    matrix: NDArray[np.float64]

    def __post_init__(self) -> None:
        object.__setattr__(self, "matrix", check_stochastic_matrix("matrix", self.matrix))

    @property
    def domain(self) -> FiniteSpace:
        return FiniteSpace(self.matrix.shape[0])

    @property
    def codomain(self) -> FiniteSpace:
        return FiniteSpace(self.matrix.shape[1])

    @cached_property
    def _sampling_tables(self) -> tuple[NDArray[np.float64], NDArray[np.int32] | None]:
        """Row CDFs (last entry pinned to 1) and, for many outputs, their guide table."""
        from . import _sampling  # numba kernels: imported where used, not at import

        cdf = np.empty_like(self.matrix)
        _sampling.cumulative_rows(np.ascontiguousarray(self.matrix), cdf)
        if cdf.shape[1] <= _sampling.LINEAR_SCAN_MAX:
            return cdf, None
        guide = np.empty(cdf.shape, dtype=np.int32)
        _sampling.guide_table(cdf, guide)
        return cdf, guide

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """y_i ~ Categorical(matrix[x_i]) by inverse CDF, one uniform per draw (compiled with numba)."""
        from . import _sampling

        states = check_states("x", x, self.matrix.shape[0])
        out = np.empty(states.size, dtype=np.int64)
        cdf, guide = self._sampling_tables
        _sampling.sample_rows(cdf, guide, states.ravel(), as_generator(rng).random(states.size), out)
        return out.reshape(states.shape)

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        xs = check_states("x", x, self.matrix.shape[0])
        ys = check_states("y", y, self.matrix.shape[1])
        with np.errstate(divide="ignore"):
            return np.log(self.matrix[xs, ys])

    def push(self, mu: Distribution) -> Distribution:
        """Categorical q → Categorical(q @ P); a point mass at x → row x."""
        require_compatible(mu.space, self.domain, "mu >> K")
        if isinstance(mu, Categorical):
            return Categorical(_renormalised(mu.probs @ self.matrix))
        if isinstance(mu, PointMass):
            return Categorical(self.matrix[mu.x])
        return super().push(mu)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FiniteKernel) and np.array_equal(self.matrix, other.matrix)

    def __hash__(self) -> int:
        return hash(self.matrix.tobytes())

    def __repr__(self) -> str:
        return f"FiniteKernel({matrix_text(self.matrix)})"


def matrix_text(matrix: NDArray[np.float64]) -> str:
    """A one-line rendering of a small matrix (rounded to 4 digits), or its shape when large."""
    k, m = matrix.shape
    return repr(np.round(matrix, 4).tolist()) if k * m <= 25 else f"<{k}x{m} matrix>"


def _renormalised(probs: NDArray[np.float64]) -> NDArray[np.float64]:
    """Undo float round-off of an exact product of stochastic objects (drift ~1e-16, far below 1e-12)."""
    return probs / probs.sum(axis=-1, keepdims=True)


def stochastic_product(left: NDArray[np.float64], right: NDArray[np.float64]) -> NDArray[np.float64]:
    """left @ right for row-stochastic matrices, rows re-summed to 1 against round-off."""
    return _renormalised(left @ right)


@MERGES.register((FiniteKernel, FiniteKernel))
def _merge_finite(left: FiniteKernel, right: FiniteKernel) -> FiniteKernel:
    """Finite ∘ finite: the matrix product P1 @ P2 (THEORY: Notation)."""
    return FiniteKernel(stochastic_product(left.matrix, right.matrix))


@PUSHES.register((FiniteKernel, RowPairs))
def _push_rows(kernel: FiniteKernel, pairs: RowPairs) -> RowPairs:
    """Rows are the real output laws: their images P @ K are the real output laws of M >> K (exact).

    A product entry that underflows to 0 where some path has positive probability would silently change the
    support (and D_inf): that is refused.
    """
    product = stochastic_product(pairs.matrix, kernel.matrix)
    lost = (product == 0) & (((pairs.matrix > 0).astype(np.float64) @ (kernel.matrix > 0)) > 0)
    if lost.any():
        i, y = np.argwhere(lost)[0]
        raise NotImplementedError(
            f"M >> K: output {y} of input {i} has positive probability but its product underflows to 0 in float64; "
            "its exact profile is not representable.")
    return RowPairs._of_checked(product, pairs.index, pairs.all_pairs)


__all__ = ["FiniteKernel", "matrix_text", "stochastic_product"]
