"""Composition through Google's dp_accounting: privacy loss distributions (PLDs) from dominating pairs.

markovdp computes one run's exact privacy; dp_accounting composes many runs. A PLD of a pair (mu, nu) has
delta(eps) = E_{e^eps}(mu || nu) and composes by convolution, so ``to_pld(M).self_compose(n)`` accounts for
n independent runs of M on the same pair of neighbouring inputs (THEORY: Notation, STD-DominatingPair).
Only pairs that map exactly are converted: finite laws become probability mass functions
(`from_two_probability_mass_functions`), the Gaussian shift pair `from_gaussian_mechanism`, the Laplace
shift pair `from_laplace_mechanism`; every PLD rounds pessimistically by default (its delta is >= the exact
one). Needs the optional extra ``markovdp[accounting]`` (dp-accounting >= 0.4), imported only here.

Several pairs: composition does not commute with the max over neighbouring pairs (the worst pair of one
run need not be the worst of n runs), so no single PLD stands for a mechanism with several neighbouring
pairs. `to_plds` returns one PLD per pair (a finite mechanism's pairs {i, j} carry both directions, as
dp_accounting's remove/add PLDs); compose each and take the max delta. `to_pld` returns the one PLD when
there is one pair, or the pair chosen by ``pair=``, and raises otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._validation import check_positive, fail
from .distributions import Categorical, Distribution, Laplace, Normal
from .mechanisms.base import Mechanism
from .pairs import PairSet, RowPairs

#: Key of a PLD in `to_plds`: the input pair (i, j) of a finite mechanism (both directions when both are
#: neighbours), else the position of the pair in the mechanism's dominating pairs.
PairKey = tuple[int, int] | int


def to_pld(mechanism: Mechanism, *, pair: PairKey | None = None, value_discretization_interval: float = 1e-4,
           pessimistic_estimate: bool = True) -> Any:
    """The dp_accounting `PrivacyLossDistribution` of a mechanism or pipeline with one dominating pair.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism or pipeline ``M >> K`` whose `dominating_pairs` map exactly (see the module).
    pair : (i, j) or int, optional
        Which pair, when there are several: an input pair of a finite mechanism (its PLD covers (i, j) and,
        if they are neighbours, (j, i)), or a position in the dominating pairs. Keys as in `to_plds`.
    value_discretization_interval : float, default 1e-4
        dp_accounting's grid of privacy-loss values, in nats, > 0.
    pessimistic_estimate : bool, default True
        Round privacy losses up, so every delta of the PLD (and of its compositions) is >= the exact one.

    Raises
    ------
    ValueError
        Several pairs and no `pair`, or a `pair` that is not one of them.
    NotImplementedError
        A pair of laws with no exact PLD (e.g. Normals of different sigmas); no known dominating pairs.
    ImportError
        dp_accounting is not installed (``pip install markovdp[accounting]``).
    """
    plds = to_plds(mechanism, value_discretization_interval=value_discretization_interval,
                   pessimistic_estimate=pessimistic_estimate)
    if pair is None:
        if len(plds) == 1:
            return next(iter(plds.values()))
        raise fail("pair", f"one of the {len(plds)} pairs {sorted(plds, key=str)} (no single PLD dominates "
                   "them all: compose each of to_plds(...) and take the max delta)", "None")
    key = _key(pair)
    if key not in plds:
        raise fail("pair", f"one of the pairs {sorted(plds, key=str)}", repr(pair))
    return plds[key]


def to_plds(mechanism: Mechanism, *, value_discretization_interval: float = 1e-4,
            pessimistic_estimate: bool = True) -> dict[PairKey, Any]:
    """One dp_accounting PLD per dominating pair of `mechanism`, keyed as in `to_pld`.

    The max over the returned PLDs of ``pld.get_delta_for_epsilon(eps)`` is the exact profile (rounded up,
    when pessimistic) of one run; of ``pld.self_compose(n)``, that of n runs on the same neighbouring inputs.
    """
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"`mechanism` must be a Mechanism or a pipeline `M >> K`; got {type(mechanism).__name__}.")
    interval = float(check_positive("value_discretization_interval", value_discretization_interval))
    if not isinstance(pessimistic_estimate, (bool, np.bool_)):
        raise fail("pessimistic_estimate", "True or False", repr(pessimistic_estimate), TypeError)
    pld = _dp_accounting()
    options = {"value_discretization_interval": interval, "pessimistic_estimate": bool(pessimistic_estimate)}
    pairs = mechanism.dominating_pairs()
    if isinstance(pairs, RowPairs):
        return _row_plds(pld, pairs, options)
    return {n: _pair_pld(pld, mu, nu, options) for n, (mu, nu) in enumerate(_pairs_of(pairs))}


def _dp_accounting() -> Any:
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError as exc:
        raise ImportError("markovdp.interop needs dp_accounting: pip install 'markovdp[accounting]'.") from exc
    return privacy_loss_distribution


def _key(pair: Any) -> PairKey:
    if isinstance(pair, (int, np.integer)) and not isinstance(pair, bool):
        return int(pair)
    try:
        i, j = (int(v) for v in pair)
    except (TypeError, ValueError):
        raise fail("pair", "an input pair (i, j) or a pair position n", repr(pair), TypeError) from None
    return (i, j)


def _pairs_of(pairs: PairSet) -> list[tuple[Distribution, Distribution]]:
    return list(pairs)


def _log_pmf(probs: np.ndarray) -> dict[int, float]:
    """{outcome: log mass} over the support (dp_accounting reads a missing outcome as mass 0)."""
    return {int(y): math.log(float(probs[y])) for y in np.flatnonzero(probs > 0)}


def _row_plds(pld: Any, pairs: RowPairs, options: dict[str, Any]) -> dict[PairKey, Any]:
    """One PLD per unordered input pair {i, j}: remove = (row i, row j), add = (row j, row i) when both
    ordered pairs are neighbours; a lone direction (i, j) is a symmetric PLD of (row i, row j)."""
    ordered = {(int(i), int(j)) for i, j in pairs.index}
    out: dict[PairKey, Any] = {}
    for i, j in sorted(ordered):
        both = (j, i) in ordered
        if both and j < i:
            continue
        upper, lower = _log_pmf(pairs.matrix[i]), _log_pmf(pairs.matrix[j])
        # dp_accounting: delta = Σ_o [mu_upper(o) − e^eps mu_lower(o)]_+, i.e. E(upper || lower).
        out[(i, j)] = pld.from_two_probability_mass_functions(upper, lower, symmetric=not both, **options)
    return out


def _pair_pld(pld: Any, mu: Distribution, nu: Distribution, options: dict[str, Any]) -> Any:
    """The PLD of E(mu || nu) where the pair maps exactly onto a dp_accounting constructor."""
    if isinstance(mu, Categorical) and isinstance(nu, Categorical):
        return pld.from_two_probability_mass_functions(_log_pmf(np.asarray(mu.probs)),
                                                       _log_pmf(np.asarray(nu.probs)), symmetric=True, **options)
    if isinstance(mu, Normal) and isinstance(nu, Normal) and mu.sigma == nu.sigma:
        # STD-GaussHS: the PLD depends on the shift length only (isotropic noise).
        shift = float(np.linalg.norm(np.asarray(nu.mean, dtype=np.float64) - np.asarray(mu.mean, dtype=np.float64)))
        return pld.from_gaussian_mechanism(float(mu.sigma), sensitivity=shift, **options)
    if isinstance(mu, Laplace) and isinstance(nu, Laplace) and mu.scale == nu.scale:
        # STD-LapHS: Lap(a, b) vs Lap(a + D, b) depends on |D| only.
        return pld.from_laplace_mechanism(float(mu.scale), sensitivity=abs(float(nu.loc) - float(mu.loc)),
                                          **options)
    raise NotImplementedError(
        f"No exact dp_accounting PLD for the pair ({type(mu).__name__}, {type(nu).__name__}) "
        f"{'' if not isinstance(mu, (Normal, Laplace)) else 'of different scales '}: finite laws, Normals of one "
        "sigma and Laplace laws of one scale map exactly.")


__all__ = ["PairKey", "to_pld", "to_plds"]
