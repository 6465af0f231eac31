"""The rule "EXACT" (STD-Exact): the exact privacy profile of a mechanism or pipeline as its own certificate.

Registered after every other built-in rule, so a theorem whose curve equals the exact one wins the tie
(`Certificate.best`) and is credited; `Certificate.summary` shows every other rule's tightness (exact / bound)
against it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._profiles import invert_profile
from . import bbgg, coupling_rules, diffusion_rules, mechanism_rules  # noqa: F401  (registered before EXACT)
from .exact import exact_pairs
from .pair_maxima import pairs_epsilon, pairs_profile, pairs_renyi
from .registry import theorem
from .types import EXACT_ID, Bound, NotApplicable

#: The THEORY ID of the rule (STD-Exact).
EXACT = EXACT_ID


@theorem(EXACT)
def exact_rule(subject: Any) -> Bound | NotApplicable:
    """STD-Exact: the exact privacy profile delta(eps) and Rényi profile, wherever they can be computed.

    Applies wherever `privacy_profile` does (the subject's dominating pairs are known and the divergence
    registry covers them; tried, never looked up in a list of classes). The curve is `privacy_profile` itself,
    so `cert.best` is never looser than the exact value and never below it; eps(delta) is `privacy_epsilon`
    raised by ulps (`rounded_up`, in `Bound.epsilon`) until the profile there is <= delta in floats. RDP:
    `renyi_profile`, inf where the divergence registry has no Rényi method for the pairs.
    """
    try:
        pairs = exact_pairs(subject, "privacy profile")
        pairs_profile(pairs, np.zeros(1))  # tried once: the divergence registry covers the pairs
    except NotImplementedError as exc:
        return NotApplicable(EXACT, str(exc))

    def delta_curve(eps: NDArray[np.float64]) -> NDArray[np.float64]:
        return pairs_profile(pairs, np.asarray(eps, dtype=np.float64).copy())

    def renyi_curve(alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        try:
            return pairs_renyi(pairs, np.asarray(alpha, dtype=np.float64).copy())
        except NotImplementedError:  # no Rényi method for these pairs: the rule says nothing about RDP
            return np.full(np.shape(alpha), math.inf)

    def profile(eps: float) -> float:
        return float(delta_curve(np.array([eps]))[0])

    def epsilon_curve(delta: float) -> float:
        # the pair set's own inverse (closed forms where registered); `Bound.epsilon` lifts it by ulps
        # (`rounded_up`) until delta_curve there is <= delta in floats
        try:
            return float(pairs_epsilon(pairs, delta))
        except NotImplementedError:  # at delta = 0 it needs R_inf: without it, pure DP is not certified
            return math.inf if delta == 0.0 else invert_profile(profile, delta)

    return Bound(EXACT, {"source": "privacy_profile", "pairs": type(pairs).__name__}, delta_curve, renyi_curve,
                 epsilon_curve)


__all__ = ["EXACT", "exact_rule"]
