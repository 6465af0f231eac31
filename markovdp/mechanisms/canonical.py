"""The canonical (eps0, delta0) pair and the exact worst case of a black box post-processed by K.

THEORY: STD-DominatingPair (the four-point pair P, Q whose profile is the class's dominating curve) and
STD-BlackBoxExact: every (eps0, delta0)-DP pair (mu, nu) is (P T, Q T) for a Markov kernel T from the four
points, so for a finite kernel K the worst case over the whole class is the max over *deterministic* T — the
maps (x0, x1, x2, x3) of the four points to K's inputs (joint convexity, extreme points of a product of
simplices): k^4 pairs (k^2 when delta0 = 0, since points 0 and 3 then carry no mass).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
from ..pairs import PUSHES, Pair, PairSet, pairs_argmax, pairs_hockey_stick, pairs_renyi
from .base import PostProcessed
from .finite import FiniteMechanism

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


@pairs_hockey_stick.register
def _canonical_hockey_stick(pairs: CanonicalPairs, eps: Array) -> Array:
    return dominating_pair_curve(pairs.eps0, pairs.delta0, eps)


@pairs_renyi.register
def _canonical_renyi(pairs: CanonicalPairs, alpha: Array) -> Array:
    """delta0 > 0: inf (P has mass where Q has none). delta0 = 0: the two-point randomized-response pair,
    p = e^eps0/(1 + e^eps0) vs 1 − p, R_alpha = log(p^a q^(1−a) + q^a p^(1−a))/(a − 1), in log space."""
    if pairs.delta0 > 0:
        return np.full(alpha.shape, math.inf)
    e0 = pairs.eps0
    log_p, log_q = -np.log1p(np.exp(-e0)), -e0 - np.log1p(np.exp(-e0))
    out = np.full(alpha.shape, e0)
    finite = np.isfinite(alpha)
    a = alpha[finite]
    log_sum = np.logaddexp(a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p)
    out[finite] = np.minimum(log_sum / (a - 1.0), e0)  # R_alpha <= R_inf = eps0, also under rounding
    return out


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
        (the enumeration of `_worst_case.worst_case_hockey_stick`)."""
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


@pairs_hockey_stick.register
def _black_box_hockey_stick(pairs: BlackBoxPairs, eps: Array) -> Array:
    from . import _worst_case  # numba: imported where used

    return _worst_case.worst_case_hockey_stick(pairs.P, pairs.Q, pairs.matrix, eps)[0]


#: Maps per block in `_black_box_renyi`, so the (maps, outputs) arrays stay near 2^22 floats.
_RENYI_BLOCK = 2**22


@pairs_renyi.register
def _black_box_renyi(pairs: BlackBoxPairs, alpha: Array) -> Array:
    """max over every map of R_alpha(P T K || Q T K): the rows of all maps at once, block by block
    (R_alpha's power sum is jointly convex, so the deterministic maps attain the sup; STD-BlackBoxExact)."""
    from ..divergences.exact.finite import renyi_finite_rows

    k, m = pairs.matrix.shape
    free = np.array(pairs.free_points)
    maps = np.stack(np.meshgrid(*([np.arange(k)] * free.size), indexing="ij"), axis=-1).reshape(-1, free.size)
    out = np.zeros(alpha.shape)
    step = max(1, _RENYI_BLOCK // m)
    for start in range(0, maps.shape[0], step):
        rows = pairs.matrix[maps[start:start + step]]  # (maps, free points, m)
        mu, nu = np.einsum("f,tfm->tm", pairs.P[free], rows), np.einsum("f,tfm->tm", pairs.Q[free], rows)
        mu, nu = mu / mu.sum(axis=1, keepdims=True), nu / nu.sum(axis=1, keepdims=True)
        out = np.maximum(out, renyi_finite_rows(mu, nu, alpha).max(axis=1))
    return out


@pairs_argmax.register
def _black_box_argmax(pairs: BlackBoxPairs, eps: float) -> int:
    from . import _worst_case

    t = _worst_case.worst_case_hockey_stick(pairs.P, pairs.Q, pairs.matrix, np.array([eps]))[1][0]
    k = pairs.matrix.shape[0]
    return int(np.ravel_multi_index(tuple(t[list(pairs.free_points)]), (k,) * len(pairs.free_points)))


def _is_black_box(pipeline: Any) -> bool:
    """Is `pipeline` a mechanism known only by its declared point (canonical pairs), post-processed?"""
    if not isinstance(pipeline, PostProcessed):
        return False
    try:
        return isinstance(pipeline.mechanism.dominating_pairs(), CanonicalPairs)
    except NotImplementedError:  # a mechanism without known pairs is not a declared black box
        return False


def worst_case_mechanism(pipeline: Any, eps: float) -> FiniteMechanism:
    """The (eps0, delta0)-DP mechanism whose post-processing by K attains the class's worst case at `eps`.

    STD-BlackBoxExact: for ``DeclaredDP(eps0, delta0) >> K`` (K finite, k inputs) the two rows are the laws on
    K's inputs that the maximising map t = (x0, x1, x2, x3) of the four canonical points sends P and Q to,
    ``mu = Σ_i P_i δ_{x_i}``, ``nu = Σ_i Q_i δ_{x_i}`` (a post-processing of the canonical pair, so
    (eps0, delta0)-DP); neighbours [(0, 1)]. ``privacy_profile(worst_case_mechanism(p, eps) >> p.kernel, eps)``
    equals ``privacy_profile(p, eps)``: Monte Carlo on it samples the worst member of the class.

    Raises
    ------
    TypeError
        `pipeline` is not a black box ``DeclaredDP(eps0, delta0) >> K``; `eps` not a scalar.
    ValueError
        `eps` negative or NaN (inf is allowed: the D_inf worst case).
    NotImplementedError
        K is not finite, or too large for the exact enumeration (`_worst_case.MAX_WORK`).
    """
    if not _is_black_box(pipeline):
        raise fail("pipeline", "a black box post-processed by a kernel, DeclaredDP(eps, delta) >> K", pipeline,
                   TypeError)
    if not isinstance(pipeline.kernel, FiniteKernel):
        raise NotImplementedError(f"The exact worst case of a black box is known only through a finite kernel "
                                  f"(STD-BlackBoxExact); got {type(pipeline.kernel).__name__} in {pipeline!r}.")
    checked = check_eps("eps", eps, allow_inf=True)
    if np.ndim(checked) != 0:
        raise fail("eps", "a scalar", eps, TypeError)
    pairs = pipeline.dominating_pairs()
    mu, nu = pairs.inputs(pairs.tuple_of(pairs_argmax(pairs, float(checked))))
    return FiniteMechanism(np.stack([mu, nu]), neighbours=[(0, 1)])


__all__ = ["BlackBoxPairs", "CanonicalPairs", "canonical_rows", "dominating_pair_curve", "worst_case_mechanism"]
