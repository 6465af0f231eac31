"""Exact privacy from dominating pairs: the max over a pair set of one divergence (DESIGN §4).

For a `PairSet` (markovdp.pairs) the sup over neighbouring inputs of a divergence that satisfies data
processing is the max over its pairs of the divergence registry (STD-DPI). `pairs_hockey_stick`, `pairs_renyi`,
`pairs_argmax` and `pairs_epsilon` compute it; a kind of pair set may register a faster exact path (a closed form,
one vectorised pass) in `HOCKEY_STICK`, `RENYI`, `ARGMAX` or `EPSILON` (`KindRegistry`: the MRO is walked, so a
subclass inherits its parent's path). The built-in paths: finite rows (one pass; local DP by the numba all-pairs
coefficient), the Gaussian ball pair (STD-GaussHS, STD-GaussRenyi), randomized response (closed forms), the
canonical (eps0, delta0) pair (STD-DominatingPair) and black boxes through a finite kernel (STD-BlackBoxExact).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._dispatch import KindRegistry
from .._profiles import invert_profile, pure_epsilon, rounded_up
from ..divergences.exact import hockey_stick, renyi
from ..divergences.exact.finite import (
    RenyiRows,
    hockey_stick_finite_pairs,
    hockey_stick_finite_worst,
    renyi_finite_rows,
)
from ..divergences.exact.gaussian import RENYI_ROUNDING, compiled_ratio, gauss_hockey_stick, normal_ratio
from ..mechanisms.canonical import BlackBoxPairs, CanonicalPairs, dominating_pair_curve
from ..mechanisms.finite import RandomizedResponsePairs
from ..pairs import PairSet, RowPairs, ShiftPair
from ..pairs_gaussian import GaussianBallPair
from .coefficients import dobrushin, ldp_epsilon

Array = NDArray[np.float64]

#: fast exact paths by kind of pair set: ``rule(pairs, eps) -> max over pairs of E_{e^eps}`` (1-D eps).
HOCKEY_STICK: KindRegistry[Callable[[Any, Array], Array]] = KindRegistry("pairs hockey-stick")
#: ``rule(pairs, alpha) -> max over pairs of R_alpha`` (1-D alpha in (1, inf]).
RENYI: KindRegistry[Callable[[Any, Array], Array]] = KindRegistry("pairs Rényi")
#: ``rule(pairs, eps) -> index of a pair attaining the max hockey-stick divergence at eps``.
ARGMAX: KindRegistry[Callable[[Any, float], int]] = KindRegistry("pairs argmax")
#: ``rule(pairs, delta) -> the smallest eps with max E_{e^eps} <= delta``, conservative in floats.
EPSILON: KindRegistry[Callable[[Any, float], float]] = KindRegistry("pairs epsilon")


def _max_over(pairs: PairSet, divergence: Callable[..., Any], **parameter: Array) -> Array:
    """max over the pairs of one divergence of the registry, at every value of its 1-D parameter array."""
    (values,) = parameter.values()
    out = np.zeros(values.shape)
    for mu, nu in pairs:
        out = np.maximum(out, np.atleast_1d(divergence(mu, nu, **parameter)))
    return out


def pairs_hockey_stick(pairs: PairSet, eps: Array) -> Array:
    """max over pairs of E_{e^eps}(mu || nu) for a 1-D array of eps (THEORY: Notation)."""
    rule = HOCKEY_STICK.lookup(type(pairs))
    return rule(pairs, eps) if rule is not None else _max_over(pairs, hockey_stick, eps=eps)


def pairs_profile(pairs: PairSet, eps: Array) -> Array:
    """`pairs_hockey_stick` as a probability: in [0, 1], never −0.0 (the rules of `_PROBABILITY_RULES` return
    such values already and are not clipped again)."""
    rule = HOCKEY_STICK.lookup(type(pairs))
    if rule is not None and rule in _PROBABILITY_RULES:
        return rule(pairs, eps)
    values = rule(pairs, eps) if rule is not None else _max_over(pairs, hockey_stick, eps=eps)
    return _probability(values)


def _probability(values: Array) -> Array:
    """values clipped to [0, 1], never −0.0 (np.clip costs 4 µs)."""
    return np.minimum(np.maximum(values, 0.0), 1.0) + 0.0


def pairs_renyi(pairs: PairSet, alpha: Array) -> Array:
    """max over pairs of R_alpha(mu || nu) for a 1-D array of orders in (1, inf]."""
    rule = RENYI.lookup(type(pairs))
    return rule(pairs, alpha) if rule is not None else _max_over(pairs, renyi, alpha=alpha)


def pairs_argmax(pairs: PairSet, eps: float) -> int:
    """The index of a pair attaining the max hockey-stick divergence at `eps`."""
    rule = ARGMAX.lookup(type(pairs))
    if rule is not None:
        return rule(pairs, eps)
    return int(np.argmax([float(hockey_stick(mu, nu, eps=eps)) for mu, nu in pairs]))


def pairs_epsilon(pairs: PairSet, delta: float) -> float:
    """The smallest eps with max over pairs of E_{e^eps} <= delta (inf if none); conservative in floats.

    At delta = 0 the answer is R_inf (pure DP iff eps >= log ess sup of the likelihood ratio), read from the
    exact Rényi curve — never from a profile that merely underflowed to 0 (a Gaussian is never pure DP) —
    and raised by ulps until the profile there is exactly 0. A kind of pair set may register a closed form.
    """
    rule = EPSILON.lookup(type(pairs))
    return rule(pairs, delta) if rule is not None else _generic_epsilon(pairs, delta)


def _generic_epsilon(pairs: PairSet, delta: float) -> float:
    def profile(e: float) -> float:
        return float(pairs_hockey_stick(pairs, np.array([e]))[0])

    if delta == 0.0:
        return rounded_up(float(pairs_renyi(pairs, np.array([math.inf]))[0]), profile)
    return invert_profile(profile, delta)


# ------------------------------------------------------------------------------------------- finite rows
#: `_rows_hockey_stick` of all pairs takes the one-pass sums up to this many pairs x outputs per eps.
_ONE_PASS_WORK_PER_EPS = 2**11


@HOCKEY_STICK.register(RowPairs)
def _rows_hockey_stick(pairs: RowPairs, eps: Array) -> Array:
    # Local DP on a big matrix: the numba all-pairs coefficient (AAC-eta), one pass per eps with both directions
    # of a pair at once. Otherwise one pass for all eps; it costs about as much as 2**11 pair-outputs of the
    # coefficient per eps (measured at k = 2..200, m = 10..1e5).
    if pairs.all_pairs and len(pairs) * pairs.matrix.shape[1] > _ONE_PASS_WORK_PER_EPS * eps.size:
        return _probability(np.array([dobrushin(pairs, float(e)) for e in eps]))  # pairs.matrix: validated
    return hockey_stick_finite_worst(pairs.matrix, pairs.index, eps)  # each pair's value >= +0.0, the max <= 1


@ARGMAX.register(RowPairs)
def _rows_argmax(pairs: RowPairs, eps: float) -> int:
    # (n_eps, n_pairs) of Σ_y [P_i(y) − e^eps P_j(y)]_+: exact finite sums
    return int(np.argmax(hockey_stick_finite_pairs(pairs.matrix, pairs.index, np.array([eps]))[0]))


@RENYI.register(RowPairs)
def _rows_renyi(pairs: RowPairs, alpha: Array) -> Array:
    # R_inf is the pure-DP eps: rounded up exactly, never below the truth
    return _renyi_rows(pairs).worst(alpha, lambda: _rows_pure_epsilon(pairs))


#: `_renyi_rows` keeps the alpha-independent work on pair sets of up to this many matrix entries (the logs double
#: the matrix's memory; past this size that work is small beside the matrix products).
_KEEP_RENYI_ROWS = 2**22


def _renyi_rows(pairs: RowPairs) -> RenyiRows:
    """`RenyiRows` of the pair set: the logs of the rows and the support check, once (`renyi_finite_worst`).

    Kept in the pair's ``__dict__`` (as `_normal_ratio` keeps D/s): the pair set is frozen, its matrix and index are
    read-only arrays it owns, and a mechanism hands out the same pair set on every call.
    """
    cache = pairs.__dict__
    rows = cache.get("_renyi_rows")
    if rows is None:
        rows = RenyiRows(pairs.matrix, pairs.index, all_pairs=pairs.all_pairs)
        if pairs.matrix.size <= _KEEP_RENYI_ROWS:
            cache["_renyi_rows"] = rows
    return rows


def _rows_pure_epsilon(pairs: RowPairs) -> float:
    """max over the pairs (i, j) of max_y log(P_i(y) / P_j(y)), rounded up exactly (`pure_epsilon`); over all
    pairs the column max against the column min."""
    m = pairs.matrix
    if pairs.all_pairs:
        return pure_epsilon(m.max(axis=0), m.min(axis=0)) if m.shape[0] > 1 else 0.0
    return pure_epsilon(m[pairs.index[:, 0]], m[pairs.index[:, 1]])


@EPSILON.register(RowPairs)
def _rows_epsilon(pairs: RowPairs, delta: float) -> float:
    if pairs.all_pairs:  # AAC-T1 through the numba coefficient
        eps = ldp_epsilon(pairs.matrix, delta)
        if delta == 0.0:  # exact (rounded up), and the pair set's own float profile is 0 there too
            eps = rounded_up(eps, lambda e: float(_rows_hockey_stick(pairs, np.array([e]))[0]))
        return eps
    return _generic_epsilon(pairs, delta)


# ------------------------------------------------------------------------------------------- shift pairs
@HOCKEY_STICK.register(ShiftPair)
def _shift_hockey_stick(pairs: ShiftPair, eps: Array) -> Array:
    """Two isotropic Normals of one sigma: STD-GaussHS at D/s, the registry's own rule without its dispatch (the
    same values); any other shift pair, and values the closed form leaves NaN, through the registry (which falls
    back to quadrature)."""
    ratio = _normal_ratio(pairs)
    if ratio is not None:
        values = gauss_hockey_stick(ratio, eps)
        # in [0, 1] or NaN (the sum is NaN iff a value is); never NaN from the numba pass
        if (compiled_ratio(ratio) and math.isfinite(ratio)) or not math.isnan(values.sum()):
            return values
    return _probability(_max_over(pairs, hockey_stick, eps=eps))


def _normal_ratio(pairs: ShiftPair) -> float | None:
    """D/s of a shift pair of isotropic Normals of one sigma (as `gaussian.normal_ratio` reads it), else None.

    Kept in the pair's ``__dict__`` (as `functools.cached_property` keeps its values): the pair is frozen, and a
    mechanism hands out the same pair on every call.
    """
    cache = pairs.__dict__
    if "_normal_ratio" not in cache:
        cache["_normal_ratio"] = normal_ratio(pairs.noise, pairs.shifted)
    return cache["_normal_ratio"]


# -------------------------------------------------------------------------------------- Gaussian ball pair
@HOCKEY_STICK.register(GaussianBallPair)
def _ball_hockey_stick(pairs: GaussianBallPair, eps: Array) -> Array:
    """STD-GaussHS at the largest Mahalanobis distance."""
    return gauss_hockey_stick(pairs.ratio, eps)


@RENYI.register(GaussianBallPair)
def _ball_renyi(pairs: GaussianBallPair, alpha: Array) -> Array:
    """STD-GaussRenyi at the largest Mahalanobis distance: alpha ratio² / 2 (alpha = inf: inf unless ratio = 0)."""
    ratio = np.float64(pairs.ratio)  # ratio * ratio overflows to inf (a Python float's ** would raise)
    with np.errstate(invalid="ignore", over="ignore"):  # ratio is certified upward; so is the rest (< 5 ulps)
        out = alpha * (ratio * ratio) / 2.0 * RENYI_ROUNDING
    return np.where(np.isinf(alpha), 0.0 if ratio == 0.0 else math.inf, out)


# ----------------------------------------------------------------------------------- randomized response
# Closed forms of `RandomizedResponsePairs` (see its docstring): every ordered pair has the same divergences.
@HOCKEY_STICK.register(RandomizedResponsePairs)
def _rr_hockey_stick(pairs: RandomizedResponsePairs, eps: Array) -> Array:
    # delta(eps) = p (−expm1(eps − eps0)) for eps < eps0: exp(log p) keeps p exact past e^eps0 overflow
    p = math.exp(pairs.log_probs[0])
    with np.errstate(invalid="ignore"):  # eps = inf: inf − eps0 is fine, the mask sets 0
        return np.where(eps < pairs.eps0, p * -np.expm1(np.minimum(eps - pairs.eps0, 0.0)), 0.0) + 0.0


@ARGMAX.register(RandomizedResponsePairs)
def _rr_argmax(pairs: RandomizedResponsePairs, eps: float) -> int:
    return 0  # every ordered pair attains the maximum (symmetry)


@RENYI.register(RandomizedResponsePairs)
def _rr_renyi(pairs: RandomizedResponsePairs, alpha: Array) -> Array:
    log_p, log_q = pairs.log_probs
    eps0, k = pairs.eps0, pairs.k
    out = np.empty(alpha.shape)
    for n, a in enumerate(alpha):
        if math.isinf(a):
            out[n] = eps0  # R_inf = log max p/q
            continue
        x = (a - 1.0) * eps0
        if x < 0.5:
            # Σ P ((P/Q)^(alpha−1) − 1) = p expm1(x) + q expm1(−x) = p [4 sinh²(x/2) + expm1(−eps0) expm1(−x)]
            # (the k − 2 equal coordinates add 0): two terms >= 0, no cancellation as eps0 → 0.
            s = math.exp(log_p) * (4.0 * math.sinh(x / 2.0) ** 2 + math.expm1(-eps0) * math.expm1(-x))
            out[n] = math.log1p(s) / (a - 1.0)
        else:
            terms = [log_p + x, log_p - a * eps0, math.log(k - 2) + log_q if k > 2 else -math.inf]
            out[n] = float(np.logaddexp.reduce(terms)) / (a - 1.0)
    return out + 0.0


@EPSILON.register(RandomizedResponsePairs)
def randomized_response_epsilon(pairs: RandomizedResponsePairs, delta: float) -> float:
    """The smallest eps with delta(eps) <= delta, from the closed-form inverse (see the class).

    Conservative in floats: the candidate is raised by ulps until the closed-form profile there is
    <= delta exactly; at delta = 0 it is eps0, where the profile is exactly 0.
    """
    log_p = pairs.log_probs[0]
    p = math.exp(log_p)
    if delta >= p * -math.expm1(-pairs.eps0):  # delta(0) = p − q
        return 0.0
    eps = max(pairs.eps0 + math.log1p(-delta / p), 0.0) if delta > 0.0 else pairs.eps0
    return rounded_up(eps, lambda e: float(_rr_hockey_stick(pairs, np.array([e]))[0]), delta)


#: The rules whose values are probabilities as they stand (in [0, 1], never −0.0), so `pairs_profile` does not
#: clip them: the finite one-pass max (each pair's value >= +0.0, the max capped at 1), STD-GaussHS (clipped in
#: `gauss_hockey_stick`), randomized response (p (−expm1(x)), p <= 1, x <= 0, + 0.0).
_PROBABILITY_RULES = frozenset({_rows_hockey_stick, _shift_hockey_stick, _ball_hockey_stick, _rr_hockey_stick})


# ------------------------------------------------------------------- canonical pair and black boxes
@HOCKEY_STICK.register(CanonicalPairs)
def _canonical_hockey_stick(pairs: CanonicalPairs, eps: Array) -> Array:
    return dominating_pair_curve(pairs.eps0, pairs.delta0, eps)


@RENYI.register(CanonicalPairs)
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


@HOCKEY_STICK.register(BlackBoxPairs)
def _black_box_hockey_stick(pairs: BlackBoxPairs, eps: Array) -> Array:
    from ._black_box_kernels import worst_case_hockey_stick  # numba: imported where used

    return worst_case_hockey_stick(pairs.P, pairs.Q, pairs.matrix, eps)[0]


#: Maps per block in `_black_box_renyi`, so the (maps, outputs) arrays stay near 2^22 floats.
_RENYI_BLOCK = 2**22


@RENYI.register(BlackBoxPairs)
def _black_box_renyi(pairs: BlackBoxPairs, alpha: Array) -> Array:
    """max over every map of R_alpha(P T K || Q T K): the rows of all maps at once, block by block
    (R_alpha's power sum is jointly convex, so the deterministic maps attain the sup; STD-BlackBoxExact)."""
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


@ARGMAX.register(BlackBoxPairs)
def _black_box_argmax(pairs: BlackBoxPairs, eps: float) -> int:
    from ._black_box_kernels import worst_case_hockey_stick

    t = worst_case_hockey_stick(pairs.P, pairs.Q, pairs.matrix, np.array([eps]))[1][0]
    k = pairs.matrix.shape[0]
    return int(np.ravel_multi_index(tuple(t[list(pairs.free_points)]), (k,) * len(pairs.free_points)))


__all__ = ["ARGMAX", "EPSILON", "HOCKEY_STICK", "RENYI", "pairs_argmax", "pairs_epsilon", "pairs_hockey_stick",
           "pairs_profile", "pairs_renyi"]
