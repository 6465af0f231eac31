"""Dominating pairs: finitely many pairs of output laws that carry a mechanism's whole privacy (DESIGN §4).

A `PairSet` of a mechanism M is a finite sequence of pairs ``(mu, nu)`` of output laws such that, for every
divergence D that satisfies data processing (hockey-stick E_gamma, TV, KL, Rényi; STD-DPI),
``sup over neighbours D(M(D) || M(D')) = max over the pairs D(mu || nu)``. This module only *describes* pair
sets; exact privacy is read off them in `markovdp.guarantees.pair_maxima` (the max over the pairs of the
divergence registry, with fast paths registered per kind of pair set).

For a pipeline ``M >> K`` the kernel decides whether pushing M's pairs through it stays exact
(`MarkovOperator.push_pairs`, rules registered on the pair (kernel type, pair-set type) in `PUSHES`).
Pair sets that are *exhaustive* (the actual output laws of every ordered neighbour pair) stay exact through
every kernel whose push is closed-form.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._dispatch import PairRegistry
from ._moved import moved_names
from ._validation import check_instance, check_states, check_stochastic_matrix, fail, readonly
from .distributions import Categorical, Distribution

Array = NDArray[np.float64]
Pair = tuple[Distribution, Distribution]

#: push rules: (kernel type, pair-set type) → ``rule(kernel, pairs) -> PairSet``.
PUSHES: PairRegistry[Callable[[Any, Any], PairSet]] = PairRegistry("push")


class PairSet(abc.ABC):
    """A finite sequence of pairs (mu, nu) whose max divergence is the sup over neighbouring inputs.

    `exhaustive`: the pairs are the actual output laws of every ordered neighbour pair (so pushing them
    through any kernel is exact).
    """

    exhaustive: bool = False

    @abc.abstractmethod
    def __len__(self) -> int: ...

    @abc.abstractmethod
    def __getitem__(self, n: int) -> Pair: ...

    def __iter__(self) -> Iterator[Pair]:
        return (self[n] for n in range(len(self)))


@dataclass(frozen=True)
class Pairs(PairSet):
    """An explicit tuple of pairs of laws; `exhaustive` as declared by the mechanism that lists them."""

    pairs: tuple[Pair, ...]
    exhaustive: bool = False

    def __post_init__(self) -> None:
        pairs = tuple(tuple(p) for p in self.pairs)
        for pair in pairs:
            if len(pair) != 2 or not all(isinstance(law, Distribution) for law in pair):
                raise TypeError(f"`pairs` must hold (mu, nu) pairs of Distributions; got {pair!r}.")
            if pair[0].space != pair[1].space:
                raise ValueError(f"`pairs`: both laws of a pair must live on one space; got {pair!r}.")
        if not pairs:
            raise ValueError("`pairs` must hold at least one (mu, nu) pair; got none.")
        object.__setattr__(self, "pairs", pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, n: int) -> Pair:
        return self.pairs[n]


@dataclass(frozen=True, eq=False)
class RowPairs(PairSet):
    """Rows (matrix[i], matrix[j]) of a finite mechanism for each ordered neighbour pair (i, j) in `index`.

    Exhaustive. `all_pairs` marks local DP (every ordered pair), where the numba coefficient of
    `guarantees.coefficients` is the fast path.
    """

    matrix: Array
    index: NDArray[np.int64]
    all_pairs: bool = False
    exhaustive = True

    def __post_init__(self) -> None:
        self._check()
        self._finish()

    @classmethod
    def _of_checked(cls, matrix: Array, index: NDArray[np.int64], all_pairs: bool, **fields: Any) -> RowPairs:
        """The pair set of rows the library has validated already (a mechanism's matrix, a product of such, its
        neighbour index): the constructor without `_check`, whose copy and reductions would double the set-up
        time of an exact profile. Users build pair sets with the constructor."""
        pairs = cls.__new__(cls)
        for name, value in (("matrix", matrix), ("index", index), ("all_pairs", all_pairs), *fields.items()):
            object.__setattr__(pairs, name, value)
        pairs._finish()
        return pairs

    def _check(self) -> None:
        """A row-stochastic `matrix` and an `index` of pairs (i, j) of its rows, shape (n, 2) (or n pairs flat)."""
        matrix = check_stochastic_matrix("matrix", self.matrix)
        k = matrix.shape[0]
        index = check_states("index", self.index, k)
        if index.ndim == 0 or index.size == 0 or index.size % 2 or (index.ndim == 2 and index.shape[1] != 2) \
                or index.ndim > 2:
            raise fail("index", f"pairs (i, j) of rows in [0, {k - 1}], shape (n, 2) with n >= 1",
                       f"shape {index.shape}")
        index = index.reshape(-1, 2)
        if self.all_pairs and len({(int(i), int(j)) for i, j in index if i != j}) != k * (k - 1):
            raise fail("all_pairs", f"False unless `index` lists every ordered pair of the {k} rows (local DP)",
                       f"True with {index.shape[0]} pairs")
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "all_pairs", bool(self.all_pairs))

    def _finish(self) -> None:
        self._freeze()
        self._refuse_subnormal_log_ratios()

    def _freeze(self) -> None:
        object.__setattr__(self, "matrix", _frozen(self.matrix, np.float64))
        index = self.index
        if np.ndim(index) != 2 or np.shape(index)[1] != 2:
            index = np.reshape(index, (-1, 2))
        object.__setattr__(self, "index", _frozen(index, np.int64))

    def _refuse_subnormal_log_ratios(self) -> None:
        # A subnormal probability keeps a few bits only (and its products underflow): a log-ratio read from it
        # (pure eps, the set {L > eps}) would be silently wrong, e.g. RandomizedResponse at eps in (709, 746).
        # Against a 0 of the other row of its pair it only adds its own mass to D_inf, which stays exact.
        if self.matrix.size == 0 or np.minimum.reduce(self.matrix, axis=None) >= _TINY:  # no 0, no subnormal
            return
        subnormal = (self.matrix > 0.0) & (self.matrix < _TINY)
        if subnormal.any():
            cols = np.flatnonzero(subnormal.any(axis=0))
            sub, pos = subnormal[:, cols], self.matrix[:, cols] > 0.0
            for mine, other in ((0, 1), (1, 0)):
                hits = np.argwhere(sub[self.index[:, mine]] & pos[self.index[:, other]])
                if hits.size:
                    i, y = int(self.index[hits[0, 0], mine]), int(cols[hits[0, 1]])
                    raise NotImplementedError(
                        f"the output laws hold a probability below the smallest normal double "
                        f"(2.2250738585072014e-308): {float(self.matrix[i, y])!r} at row {i}, outcome {y}; "
                        f"log-ratios of subnormal numbers are inexact, so no exact privacy value is computed.")

    def __len__(self) -> int:
        return self.index.shape[0]

    def __getitem__(self, n: int) -> Pair:
        i, j = self.index[n]
        return Categorical(self.matrix[i]), Categorical(self.matrix[j])


#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)


def _frozen(arr: Any, dtype: type) -> NDArray[Any]:
    """`arr` itself where it is a read-only C-contiguous array of `dtype` that owns its data (as the validated
    matrices and cached indices are: nothing writes it), else a read-only C-contiguous copy."""
    if (type(arr) is np.ndarray and arr.dtype == dtype and arr.flags.c_contiguous and arr.flags.owndata
            and not arr.flags.writeable):
        return arr
    return readonly(np.ascontiguousarray(arr, dtype=dtype))


@dataclass(frozen=True)
class ShiftPair(PairSet):
    """Additive isotropic noise: the one pair (noise, noise shifted by the sensitivity along e_1).

    For additive noise with a rotation-invariant law the sup over ||f(D) − f(D')|| <= Δ is attained at
    distance Δ in any direction, so this single pair dominates (STD-GaussHS, STD-LapHS).
    """

    noise: Distribution
    shifted: Distribution

    def __post_init__(self) -> None:
        for name in ("noise", "shifted"):
            check_instance(name, getattr(self, name), Distribution, "a Distribution (a law of the mechanism's output)")
        if self.noise.space != self.shifted.space:
            raise fail("shifted", f"a law on the space of `noise` ({self.noise.space.describe()})",
                       f"a law on {self.shifted.space.describe()}")

    def __len__(self) -> int:
        return 1

    def __getitem__(self, n: int) -> Pair:
        if n not in (0, -1):
            raise IndexError(n)
        return self.noise, self.shifted


def push_pairs(kernel: Any, pairs: PairSet) -> PairSet:
    """The dominating pairs of ``M >> kernel`` from those of M, where the kernel's rules say it is exact.

    `kernel`: a `markovdp.operators.MarkovOperator` (a layer above this one, so not named in the signature).

    A rule registered in `PUSHES` on (type(kernel), type(pairs)) decides; otherwise exhaustive pairs are
    pushed law by law (``kernel.push``). Raises NotImplementedError naming both kinds where neither applies.
    """
    rule = PUSHES.lookup(type(kernel), type(pairs))
    if rule is not None:
        return rule(kernel, pairs)
    if pairs.exhaustive:
        return Pairs(tuple((kernel.push(mu), kernel.push(nu)) for mu, nu in pairs), exhaustive=True)
    raise NotImplementedError(
        f"{type(kernel).__name__} is not known to keep the dominating pairs of the mechanism "
        f"({type(pairs).__name__}) exact: no push rule is registered for this pair of kinds.")


__all__ = ["PUSHES", "Pair", "PairSet", "Pairs", "RowPairs", "ShiftPair", "push_pairs"]

#: The maxima over pairs moved up into `markovdp.guarantees.pair_maxima` (a fast path for a kind of pair set is now
#: registered there: ``HOCKEY_STICK.register(Kind)``, ``RENYI``, ``ARGMAX``, ``EPSILON``).
__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.pair_maxima.{name}" for name in (
    "pairs_hockey_stick", "pairs_renyi", "pairs_argmax", "pairs_epsilon")})
