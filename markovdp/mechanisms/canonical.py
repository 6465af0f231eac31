"""The canonical (eps0, delta0) pair and the exact worst case of a black box post-processed by K.

THEORY: STD-DominatingPair (the four-point pair P, Q whose profile is the class's dominating curve) and
STD-BlackBoxExact: every (eps0, delta0)-DP pair (mu, nu) is (P T, Q T) for a Markov kernel T from the four
points, so for a finite kernel K the worst case over the whole class is the max over *deterministic* T — the
maps (x0, x1, x2, x3) of the four points to K's inputs (joint convexity, extreme points of a product of
simplices): k^4 pairs (k^2 when delta0 = 0, since points 0 and 3 then carry no mass).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._moved import moved_names
from .._validation import (
    check_eps,
    check_probability,
    check_probability_vector,
    check_scalar,
    check_stochastic_matrix,
    fail,
    readonly,
)
from ..distributions import Categorical
from ..operators.finite import FiniteKernel
from ..pairs import PUSHES, Pair, PairSet

Array = NDArray[np.float64]


def canonical_rows(eps0: float, delta0: float) -> tuple[Array, Array]:
    """STD-DominatingPair: P = (delta0, a e^eps0, a, 0), Q = (0, a, a e^eps0, delta0), a = (1 − delta0)/(1 + e^eps0).

    a e^eps0 is computed as (1 − delta0) − a, a as (1 − delta0) expit(−eps0): no overflow of e^eps0.
    """
    from scipy import special  # here, not at import: scipy.special costs ~0.2 s to import

    low = (1.0 - delta0) * float(special.expit(-eps0))
    high = (1.0 - delta0) - low
    return np.array([delta0, high, low, 0.0]), np.array([0.0, low, high, delta0])


def dominating_pair_curve(eps0: float, delta0: float, eps: Array) -> Array:
    """STD-DominatingPair: delta(eps) = delta0 + (1 − delta0)(e^eps0 − e^eps)/(1 + e^eps0) on [0, eps0],
    delta0 beyond — the profile of the canonical four-point (eps0, delta0) pair."""
    # (e^eps0 − e^eps)/(1 + e^eps0) = (1 − e^(eps − eps0)) / (1 + e^-eps0): no overflow at eps0 = 50.
    inside = (-np.expm1(np.minimum(eps, eps0) - eps0)) / (1.0 + np.exp(-eps0))
    return delta0 + (1.0 - delta0) * inside


@dataclass(frozen=True)
class CanonicalPairs(PairSet):
    """The one canonical pair (P, Q) of the (eps0, delta0)-DP class: it dominates every member's pair."""

    eps0: float
    delta0: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", check_scalar("eps0", check_eps("eps0", self.eps0)))
        object.__setattr__(self, "delta0", check_scalar("delta0", check_probability("delta0", self.delta0)))

    def __len__(self) -> int:
        return 1

    def __getitem__(self, n: int) -> Pair:
        if n not in (0, -1):
            raise IndexError(n)
        P, Q = canonical_rows(self.eps0, self.delta0)
        return Categorical(P), Categorical(Q)


@dataclass(frozen=True, eq=False)
class BlackBoxPairs(PairSet):
    """STD-BlackBoxExact: the pairs (Σ_i P_i K[x_i], Σ_i Q_i K[x_i]) over every map (x0..x3) to K's inputs."""

    P: Array
    Q: Array
    matrix: Array

    def __post_init__(self) -> None:
        for name in ("P", "Q"):
            row = check_probability_vector(name, getattr(self, name))
            if row.size != 4:
                raise fail(name, "a probability vector over the 4 canonical points", f"length {row.size}")
            object.__setattr__(self, name, row)
        object.__setattr__(self, "matrix", readonly(np.ascontiguousarray(
            check_stochastic_matrix("matrix", self.matrix))))

    @property
    def free_points(self) -> tuple[int, ...]:
        """The canonical points whose image matters, those with mass: all four, or (1, 2) when delta0 = 0
        (the enumeration of `guarantees._black_box_kernels.worst_case_hockey_stick`)."""
        return tuple(int(i) for i in np.flatnonzero((self.P > 0) | (self.Q > 0)))

    def tuple_of(self, n: int) -> NDArray[np.int64]:
        """The n-th map (x0, x1, x2, x3), enumerated row-major over the free points (the others map to 0)."""
        k = self.matrix.shape[0]
        free = self.free_points
        t = np.zeros(4, dtype=np.int64)
        for point, digit in zip(free, np.unravel_index(n, (k,) * len(free)), strict=True):
            t[point] = digit
        return t

    def __len__(self) -> int:
        return self.matrix.shape[0] ** len(self.free_points)

    def __getitem__(self, n: int) -> Pair:
        if not -len(self) <= n < len(self):
            raise IndexError(n)
        rows = self.matrix[self.tuple_of(n % len(self))]
        return Categorical(_renormalised(self.P @ rows)), Categorical(_renormalised(self.Q @ rows))

    def inputs(self, t: NDArray[np.int64]) -> tuple[Array, Array]:
        """The two input laws on K's inputs that the map t = (x0..x3) sends P and Q to."""
        k = self.matrix.shape[0]
        mu, nu = np.zeros(k), np.zeros(k)
        np.add.at(mu, t, self.P)
        np.add.at(nu, t, self.Q)
        return _renormalised(mu), _renormalised(nu)


def _renormalised(p: Array) -> Array:
    return p / p.sum()


@PUSHES.register((FiniteKernel, CanonicalPairs))
def _push_canonical(kernel: FiniteKernel, pairs: CanonicalPairs) -> BlackBoxPairs:
    P, Q = canonical_rows(pairs.eps0, pairs.delta0)
    return BlackBoxPairs(P, Q, kernel.matrix)


__all__ = ["BlackBoxPairs", "CanonicalPairs", "canonical_rows", "dominating_pair_curve"]

__getattr__ = moved_names(__name__, {"worst_case_mechanism": "markovdp.guarantees.worst_case_mechanism"})
