"""Dominating pairs: finitely many pairs of output laws that carry a mechanism's whole privacy (DESIGN §4).

A `PairSet` of a mechanism M is a finite sequence of pairs ``(mu, nu)`` of output laws such that, for every
divergence D that satisfies data processing (hockey-stick E_gamma, TV, KL, Rényi; STD-DPI),
``sup over neighbours D(M(D) || M(D')) = max over the pairs D(mu || nu)``. Exact privacy is then read
off the pairs with the divergence registry: `pairs_hockey_stick`, `pairs_renyi` (one-dispatch on the kind
of pair set, with vectorised fast paths registered beside each kind).

For a pipeline ``M >> K`` the kernel decides whether pushing M's pairs through it stays exact
(`MarkovOperator.push_pairs`, rules registered on the pair (kernel type, pair-set type) in `PUSHES`).
Pair sets that are *exhaustive* (the actual output laws of every ordered neighbour pair) stay exact through
every kernel whose push is closed-form.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import singledispatch
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._dispatch import PairRegistry
from ._validation import readonly
from .distributions import Categorical, Distribution

if TYPE_CHECKING:
    from .operators.base import MarkovOperator

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
        self._freeze()
        self._refuse_subnormal_log_ratios()

    def _freeze(self) -> None:
        object.__setattr__(self, "matrix", readonly(np.ascontiguousarray(self.matrix, dtype=np.float64)))
        index = np.ascontiguousarray(np.reshape(self.index, (-1, 2)), dtype=np.int64)
        object.__setattr__(self, "index", readonly(index))

    def _refuse_subnormal_log_ratios(self) -> None:
        # A subnormal probability keeps a few bits only (and its products underflow): a log-ratio read from it
        # (pure eps, the set {L > eps}) would be silently wrong, e.g. RandomizedResponse at eps in (709, 746).
        # Against a 0 of the other row of its pair it only adds its own mass to D_inf, which stays exact.
        subnormal = (self.matrix > 0.0) & (self.matrix < np.finfo(np.float64).tiny)
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


@dataclass(frozen=True)
class ShiftPair(PairSet):
    """Additive isotropic noise: the one pair (noise, noise shifted by the sensitivity along e_1).

    For additive noise with a rotation-invariant law the sup over ||f(D) − f(D')|| <= Δ is attained at
    distance Δ in any direction, so this single pair dominates (STD-GaussHS, STD-LapHS).
    """

    noise: Distribution
    shifted: Distribution

    def __len__(self) -> int:
        return 1

    def __getitem__(self, n: int) -> Pair:
        if n not in (0, -1):
            raise IndexError(n)
        return self.noise, self.shifted


def push_pairs(kernel: MarkovOperator, pairs: PairSet) -> PairSet:
    """The dominating pairs of ``M >> kernel`` from those of M, where the kernel's rules say it is exact.

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


# --------------------------------------------------------------------------------------------- profiles
# Max over the pairs of the divergence registry; a kind of pair set may register a faster exact path.


def _max_over(pairs: PairSet, divergence: Callable[..., Any], **parameter: Array) -> Array:
    """max over the pairs of one divergence of the registry, at every value of its 1-D parameter array."""
    (values,) = parameter.values()
    out = np.zeros(values.shape)
    for mu, nu in pairs:
        out = np.maximum(out, np.atleast_1d(divergence(mu, nu, **parameter)))
    return out


@singledispatch
def pairs_hockey_stick(pairs: PairSet, eps: Array) -> Array:
    """max over pairs of E_{e^eps}(mu || nu) for a 1-D array of eps (THEORY: Notation)."""
    from .divergences.exact import hockey_stick

    return _max_over(pairs, hockey_stick, eps=eps)


@singledispatch
def pairs_renyi(pairs: PairSet, alpha: Array) -> Array:
    """max over pairs of R_alpha(mu || nu) for a 1-D array of orders in (1, inf]."""
    from .divergences.exact import renyi

    return _max_over(pairs, renyi, alpha=alpha)


@singledispatch
def pairs_argmax(pairs: PairSet, eps: float) -> int:
    """The index of a pair attaining the max hockey-stick divergence at `eps`."""
    from .divergences.exact import hockey_stick

    values = [float(hockey_stick(mu, nu, eps=eps)) for mu, nu in pairs]
    return int(np.argmax(values))


@pairs_hockey_stick.register
def _rows_hockey_stick(pairs: RowPairs, eps: Array) -> Array:
    # Local DP on a big matrix: the numba all-pairs coefficient (AAC-eta), one pass per eps with both directions
    # of a pair at once. Otherwise one pass for all eps; it costs about as much as 2**11 pair-outputs of the
    # coefficient per eps (measured at k = 2..200, m = 10..1e5).
    if pairs.all_pairs and len(pairs) * pairs.matrix.shape[1] > _ONE_PASS_WORK_PER_EPS * eps.size:
        from .guarantees.coefficients import dobrushin

        return np.array([dobrushin(pairs, float(e)) for e in eps])  # pairs.matrix: validated, read-only
    from .divergences.exact.finite import hockey_stick_finite_worst

    return hockey_stick_finite_worst(pairs.matrix, pairs.index, eps)


#: `_rows_hockey_stick` of all pairs takes the one-pass sums up to this many pairs x outputs per eps.
_ONE_PASS_WORK_PER_EPS = 2**11


def _row_values(pairs: RowPairs, eps: Array) -> Array:
    """(n_eps, n_pairs) of Σ_y [P_i(y) − e^eps P_j(y)]_+: exact finite sums, one pass for all eps."""
    from .divergences.exact.finite import hockey_stick_finite_pairs

    return hockey_stick_finite_pairs(pairs.matrix, pairs.index, eps)


@pairs_argmax.register
def _rows_argmax(pairs: RowPairs, eps: float) -> int:
    return int(np.argmax(_row_values(pairs, np.array([eps]))[0]))


@pairs_renyi.register
def _rows_renyi(pairs: RowPairs, alpha: Array) -> Array:
    from .divergences.exact.finite import renyi_finite_pairs

    return renyi_finite_pairs(pairs.matrix, pairs.index, alpha).max(axis=1)


@singledispatch
def pairs_epsilon(pairs: PairSet, delta: float) -> float:
    """The smallest eps with max over pairs of E_{e^eps} <= delta (inf if none); conservative in floats.

    At delta = 0 the answer is R_inf (pure DP iff eps >= log ess sup of the likelihood ratio), read from the
    exact Rényi curve — never from a profile that merely underflowed to 0 (a Gaussian is never pure DP) —
    and raised by ulps until the profile there is exactly 0. A kind of pair set may register a closed form.
    """
    from .guarantees.types import invert_profile, rounded_up

    def profile(e: float) -> float:
        return float(pairs_hockey_stick(pairs, np.array([e]))[0])

    if delta == 0.0:
        return rounded_up(float(pairs_renyi(pairs, np.array([math.inf]))[0]), profile)
    return invert_profile(profile, delta)


@pairs_epsilon.register
def _rows_epsilon(pairs: RowPairs, delta: float) -> float:
    if pairs.all_pairs:  # AAC-T1 through the numba coefficient
        from .guarantees.coefficients import ldp_epsilon

        return ldp_epsilon(pairs.matrix, delta)
    return pairs_epsilon.dispatch(PairSet)(pairs, delta)


__all__ = ["PUSHES", "Pair", "PairSet", "Pairs", "RowPairs", "ShiftPair", "pairs_argmax", "pairs_epsilon",
           "pairs_hockey_stick", "pairs_renyi", "push_pairs"]
