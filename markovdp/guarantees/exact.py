"""Exact privacy of a mechanism or pipeline: the profile delta(eps), its inverse, and the RDP curve.

delta(eps) = sup over neighbouring pairs of E_{e^eps}(M(D) || M(D')) (THEORY: Notation), read as the max
over the mechanism's dominating pairs (`Mechanism.dominating_pairs`, DESIGN §4) of the divergence registry.
Nothing here switches on the mechanism's type: a new mechanism or kernel is a class plus a registration.
Where no exact pairs are known the mechanism's NotImplementedError names it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_order, check_probability
from ..mechanisms.base import Mechanism
from ..pairs import PairSet, RowPairs, ShiftPair
from .pair_maxima import pairs_argmax, pairs_epsilon, pairs_profile, pairs_renyi


def _check_subject(subject: Any) -> Mechanism:
    if not isinstance(subject, Mechanism):
        raise TypeError(f"`mechanism` must be a Mechanism or a pipeline `M >> K`; got {type(subject).__name__}.")
    return subject


def exact_pairs(mechanism: Mechanism, what: str) -> PairSet:
    """The mechanism's dominating pairs, or NotImplementedError naming the pipeline and the reason."""
    try:
        return _check_subject(mechanism).dominating_pairs()
    except NotImplementedError as exc:
        raise NotImplementedError(f"No exact method computes the {what} of {mechanism!r}: {exc}") from exc


def worst_pair(mechanism: Mechanism, eps: float) -> tuple[int, int] | tuple[float, float]:
    """The neighbouring pair (i, j) of a finite mechanism/pipeline attaining the profile at `eps`; for additive
    noise on R (a `ShiftPair`: Gaussian, Laplace and their chains) the query values (0, sensitivity), which attain
    it at every eps (STD-LaplaceSumN, STD-NormalLaplace: the full shift dominates)."""
    pairs = exact_pairs(mechanism, "worst neighbouring pair")
    e = float(check_eps("eps", eps, allow_inf=True))
    if isinstance(pairs, ShiftPair) and pairs.noise.space.size == 1:
        return tuple(float(np.ravel(getattr(law, "loc", getattr(law, "mean", np.nan)))[0]) for law in pairs[0])
    if not isinstance(pairs, RowPairs):
        raise NotImplementedError(f"No exact method computes the worst neighbouring pair of {mechanism!r}: "
                                  f"its dominating pairs ({type(pairs).__name__}) are not rows of inputs.")
    i, j = pairs.index[pairs_argmax(pairs, e)]
    return int(i), int(j)


def privacy_profile(mechanism: Mechanism, eps: ArrayLike) -> float | NDArray[np.float64]:
    """Exact delta(eps) = max over the dominating pairs (mu, nu) of E_{e^eps}(mu || nu).

    THEORY: Notation; STD-GaussHS, STD-LapHS, STD-DominatingPair, STD-BlackBoxExact; AAC-eta for finite
    local-DP mechanisms. `eps` in nats (broadcast over arrays; eps = inf gives the D_inf mass). Raises
    NotImplementedError naming the pipeline where no exact method exists.
    """
    pairs = exact_pairs(mechanism, "privacy profile")
    if type(eps) is np.ndarray and eps.dtype == np.float64 and eps.ndim == 1 and eps.size:  # the common call:
        if np.minimum.reduce(eps) >= 0.0:  # checked in one pass (NaN fails the test; inf is allowed)
            return pairs_profile(pairs, eps.copy())
    eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    values = pairs_profile(pairs, eps_arr.reshape(-1)).reshape(eps_arr.shape)
    return float(values) if eps_arr.ndim == 0 else values


def privacy_epsilon(mechanism: Mechanism, delta: float) -> float:
    """The smallest eps with privacy_profile(M, eps) <= delta (inf if none): the inverse profile.

    Finite local-DP mechanisms use `ldp_epsilon` (AAC-T1: closed form at delta = 0, 1e-12 otherwise). At
    delta = 0 the answer is R_inf (pure DP iff eps >= log ess sup of the likelihood ratio), rounded up until
    the profile there is exactly 0, so the returned eps is always conservative.
    """
    pairs = exact_pairs(mechanism, "privacy profile")
    return float(pairs_epsilon(pairs, float(check_probability("delta", delta))))


def renyi_profile(mechanism: Mechanism, alpha: ArrayLike) -> float | NDArray[np.float64]:
    """Exact RDP curve eps(alpha) = max over the dominating pairs of R_alpha(mu || nu), alpha in (1, inf].

    THEORY: Notation; STD-GaussRenyi, STD-LapRenyi, BBGG-E1 (Gaussian then Gaussian kernel is exact).
    """
    pairs = exact_pairs(mechanism, "Rényi profile")
    if type(alpha) is np.ndarray and alpha.dtype == np.float64 and alpha.ndim == 1 and alpha.size:  # the common call:
        # checked in one pass (NaN fails the test; inf is allowed); a few orders in Python, without a numpy call
        if (all(map((1.0).__lt__, alpha.tolist())) if alpha.size <= 16 else np.minimum.reduce(alpha) > 1.0):
            return pairs_renyi(pairs, alpha.copy()) + 0.0
    alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    values = pairs_renyi(pairs, np.atleast_1d(alpha_arr).ravel()).reshape(alpha_arr.shape) + 0.0
    return float(values) if alpha_arr.ndim == 0 else values
