"""Frequency oracles whose channel is implicit (2^k bit vectors, d-subsets, hashed reports) as mechanisms.

Their exact dominating pair is the channel's two rows x = 0, 1 lumped by output class (`ldp_kernel()`, module
docstring of `implicit_channel`), in both directions: every input pair is the image of (0, 1) under a label
permutation that maps the channel onto itself, and within a class the likelihood ratio is constant, so every
divergence with data processing of the lumped pair equals its value on the full rows (AAC-eta, STD-DPI). The
lumped laws are not output laws: ``oracle >> K`` materialises the full k × m channel (m = the output space's
size) and pushes its rows, refused with a ValueError naming m where the matrix does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike
from ..._validation import check_int, check_size, fail
from ...distributions import Categorical
from ...operators.finite import FiniteKernel
from ...pairs import PUSHES, RowPairs, push_pairs
from ...spaces import FiniteSpace
from ..base import AllPairs, Mechanism, neighbour_pairs
from .implicit_channel import MAX_ENTRIES

__all__ = ["ImplicitOracle", "LumpedPairs"]

#: The index of the lumped pair: rows (0, 1) and (1, 0).
_BOTH_WAYS = np.array([[0, 1], [1, 0]], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class LumpedPairs(RowPairs):
    """The 2 × c lumped rows of an implicit channel (x = 0 against x = 1, both directions): every divergence with
    data processing equals the sup over the oracle's input pairs (module docstring). Not exhaustive: a kernel
    push goes through `oracle`'s full channel matrix."""

    oracle: Any = None
    exhaustive = False


@PUSHES.register((FiniteKernel, LumpedPairs))
def _push_lumped(kernel: FiniteKernel, pairs: LumpedPairs) -> RowPairs:
    """oracle >> K: the full channel's rows (every ordered input pair) pushed through K (exact)."""
    oracle = pairs.oracle
    full = oracle.matrix
    return push_pairs(kernel, RowPairs._of_checked(full, neighbour_pairs(AllPairs(), full.shape[0]), True))


class ImplicitOracle(Mechanism):
    """A frequency oracle on inputs {0..k−1} whose exact channel is an implicit object (`implicit_channel`:
    ``num_outputs``, ``ldp_kernel()``, ``to_kernel()``). Local DP: all input pairs are neighbours.

    Outputs are indexed 0..m−1 in the implicit channel's column order; `output_index` maps the oracle's reports
    (bitmaps, hashed pairs) to those indices, which is what a kernel on `output_space` reads.
    """

    k: int
    implicit_channel: Any

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    @property
    def output_space(self) -> FiniteSpace:
        """{0..m−1}, m = the number of possible reports (2^k, C(k, d), ...)."""
        return FiniteSpace(self.implicit_channel.num_outputs)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:
        """The full k × m channel matrix (row x: the law of the report index of input x).

        ValueError naming m where it holds more than `MAX_ENTRIES` entries or exceeds the memory cap."""
        m = self.implicit_channel.num_outputs
        what = f"the {self.k} × {m} channel matrix of {self!r} (its output space has {m} points)"
        check_size("mechanism", self, float(self.k) * float(m), what=what)
        if self.k * m > MAX_ENTRIES:
            raise fail("mechanism", f"an oracle whose channel matrix has at most MAX_ENTRIES = {MAX_ENTRIES} entries "
                       f"to be read in full (post-processing by a kernel on its outputs); {what} has {self.k * m}",
                       self)
        return self.implicit_channel.to_kernel().matrix

    def output(self, value: Any) -> Categorical:
        """The law of the report index for input `value` (a row of `matrix`)."""
        i = check_int("value", value, minimum=0)
        if i >= self.k:
            raise fail("value", f"an input index in [0, {self.k - 1}]", i)
        return Categorical(self.matrix[i])

    def dominating_pairs(self) -> LumpedPairs:
        """The lumped pair (module docstring): exact profile, Rényi curve and eps at every k."""
        lumped = self.implicit_channel.ldp_kernel().matrix
        return LumpedPairs._of_checked(lumped, _BOTH_WAYS, True, oracle=self)

    def output_index(self, reports: ArrayLike) -> NDArray[np.int64]:
        """The index in `output_space` of each report (one per user)."""
        raise NotImplementedError(f"{type(self).__name__} does not index its reports.")

    def sample_outputs(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """One report index per input (`output_index` of `sample`): what a kernel on `output_space` reads."""
        return self.output_index(self.sample(value, rng=rng))
