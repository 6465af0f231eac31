"""Mechanisms D ↦ M(D), represented by the query value f(D), and their neighbouring relations."""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_instance, check_int, check_positive, fail, readonly
from ..distributions import Distribution
from ..operators.algebra import as_finite_kernel
from ..operators.base import MarkovOperator
from ..operators.finite import FiniteKernel, stochastic_product
from ..pairs import PairSet, push_pairs
from ..spaces import Space, require_compatible


class Neighbourhood(abc.ABC):
    """Which pairs of inputs (query values) are neighbours."""

    @abc.abstractmethod
    def describe(self) -> str: ...


@dataclass(frozen=True)
class L2Ball(Neighbourhood):
    """Replace-one neighbours whose query values lie at L2 distance <= `sensitivity`."""

    sensitivity: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    def describe(self) -> str:
        return f"neighbours: ||f(D) - f(D')||_2 <= {self.sensitivity:g}"


@dataclass(frozen=True)
class L1Ball(Neighbourhood):
    """Replace-one neighbours whose query values lie at L1 distance <= `sensitivity`."""

    sensitivity: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    def describe(self) -> str:
        return f"neighbours: ||f(D) - f(D')||_1 <= {self.sensitivity:g}"


@dataclass(frozen=True)
class AllPairs(Neighbourhood):
    """Every ordered pair of inputs: local DP."""

    def describe(self) -> str:
        return "neighbours: all input pairs (local DP)"


@dataclass(frozen=True)
class IndexPairs(Neighbourhood):
    """The listed pairs of input indices, each in both directions."""

    pairs: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        try:
            pairs = tuple(tuple(pair) for pair in self.pairs)
        except TypeError as exc:
            raise fail("pairs", "a non-empty sequence of (i, j) index pairs", self.pairs, TypeError) from exc
        checked = []
        for pair in pairs:
            if len(pair) != 2:
                raise fail("pairs", "a non-empty sequence of (i, j) index pairs", pair)
            i, j = (check_int("pairs", v, minimum=0) for v in pair)
            if i == j:
                raise fail("pairs", "pairs of distinct input indices", f"({i}, {j})")
            checked.append((i, j))
        if not checked:
            raise fail("pairs", "a non-empty sequence of (i, j) index pairs", "()")
        object.__setattr__(self, "pairs", tuple(checked))

    def describe(self) -> str:
        return f"neighbours: {list(self.pairs)} (both directions)"


@dataclass(frozen=True)
class Declared(Neighbourhood):
    """Whatever relation the declared guarantee was stated for (a black box)."""

    def describe(self) -> str:
        return "neighbours: as declared"


class Mechanism(abc.ABC):
    """D ↦ M(D), represented by the query value f(D). ``M >> K`` post-processes by the kernel K.

    Exact privacy is read from `dominating_pairs` (DESIGN §4), never from the mechanism's type.
    """

    @property
    @abc.abstractmethod
    def neighbours(self) -> Neighbourhood:
        """Which inputs are neighbours."""

    @property
    @abc.abstractmethod
    def output_space(self) -> Space | None:
        """The space M(D) lives on (None: any — a black box accepts every kernel)."""

    @abc.abstractmethod
    def output(self, value: Any) -> Distribution:
        """The law M(D) for query value `value`."""

    @abc.abstractmethod
    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """One draw of M(D_i) for each query value value_i (vectorised)."""

    def sample_outputs(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """One draw of M(D_i) per query value as points of `output_space` (what a kernel on it reads): `sample`,
        unless the mechanism's reports are encoded otherwise (a frequency oracle's bitmaps)."""
        return self.sample(value, rng=rng)

    def dominating_pairs(self) -> PairSet:
        """Pairs (mu, nu) of output laws whose max divergence is the sup over neighbours, for every divergence
        with data processing (a `PairSet`). NotImplementedError where none is known."""
        raise NotImplementedError(f"{type(self).__name__} declares no dominating pairs.")

    def __rshift__(self, kernel: object) -> PostProcessed:
        if isinstance(kernel, Mechanism):
            raise TypeError(f"`M >> M2` is undefined: post-process with a MarkovOperator; got {kernel!r}.")
        if not isinstance(kernel, MarkovOperator):
            return NotImplemented
        return PostProcessed(self, kernel)

    def __rrshift__(self, kernel: object) -> PostProcessed:
        if isinstance(kernel, MarkovOperator):
            raise TypeError(
                f"`K >> M` is undefined: a mechanism is applied first (write `M >> K`); got {kernel!r} >> {self!r}."
            )
        return NotImplemented


def neighbour_pairs(neighbours: Neighbourhood, k: int) -> NDArray[np.int64]:
    """Ordered pairs (i, j), i != j, of a finite mechanism with k inputs, as an (n, 2) array (read-only for
    `AllPairs`, built once per k up to _CACHED_INPUTS inputs)."""
    if isinstance(neighbours, AllPairs):
        return _all_pairs(k) if k <= _CACHED_INPUTS else _all_pairs.__wrapped__(k)
    if isinstance(neighbours, IndexPairs):
        pairs = {(a, b) for a, b in neighbours.pairs} | {(b, a) for a, b in neighbours.pairs}
        return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    raise TypeError(f"`neighbours` of a finite mechanism must be AllPairs or IndexPairs; got {neighbours!r}.")


#: `neighbour_pairs` keeps the all-pairs index of up to this many inputs (at most 1 MiB each) ...
_CACHED_INPUTS = 256


@functools.lru_cache(maxsize=16)  # ... for this many k
def _all_pairs(k: int) -> NDArray[np.int64]:
    i, j = np.nonzero(~np.eye(k, dtype=bool))
    return readonly(np.stack([i, j], axis=1))


@dataclass(frozen=True)
class PostProcessed(Mechanism):
    """K ∘ M: the mechanism D ↦ M(D) K (THEORY: Notation, post-processing). Built by ``M >> K``.

    ``(M >> K1) >> K2`` is stored as ``M >> (K1 >> K2)`` so the algebra can merge the kernels.
    """

    mechanism: Mechanism
    kernel: MarkovOperator

    def __post_init__(self) -> None:
        check_instance("mechanism", self.mechanism, Mechanism, "a Mechanism")
        check_instance("kernel", self.kernel, MarkovOperator, "a MarkovOperator")
        if isinstance(self.mechanism, PostProcessed):
            inner = self.mechanism
            object.__setattr__(self, "mechanism", inner.mechanism)
            object.__setattr__(self, "kernel", inner.kernel >> self.kernel)
        finite = as_finite_kernel(self.kernel)  # e.g. the identity on {0..k-1}: every finite rule applies
        if finite is not None:
            object.__setattr__(self, "kernel", finite)
        space = self.mechanism.output_space
        if space is not None:
            require_compatible(space, self.kernel.domain, "M >> K")

    @property
    def neighbours(self) -> Neighbourhood:
        return self.mechanism.neighbours

    def dominating_pairs(self) -> PairSet:
        """The mechanism's pairs pushed through the kernel, where the kernel says that stays exact."""
        return self._pushed_pairs

    @cached_property
    def _pushed_pairs(self) -> PairSet:  # a frozen pipeline: push once (a failure is not cached)
        return push_pairs(self.kernel, self.mechanism.dominating_pairs())

    @property
    def output_space(self) -> Space:
        return self.kernel.codomain

    @property
    def matrix(self) -> NDArray[np.float64]:
        """The row-stochastic matrix of K ∘ M when both are finite (row i: output law for input i)."""
        if not (isinstance(self.kernel, FiniteKernel) and hasattr(self.mechanism, "matrix")):
            raise NotImplementedError(f"{self!r} is not a finite pipeline.")
        return stochastic_product(self.mechanism.matrix, self.kernel.matrix)

    def output(self, value: Any) -> Distribution:
        return self.kernel.push(self.mechanism.output(value))

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        from .._random import as_generator

        gen = as_generator(rng)
        return self.kernel.sample(self.mechanism.sample_outputs(value, rng=gen), rng=gen)

    def __repr__(self) -> str:
        return f"{self.mechanism!r} >> {self.kernel!r}"
