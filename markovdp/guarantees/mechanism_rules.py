"""The rules "MECH" (a mechanism's own guarantee) and "POST" (it survives any post-processing)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..mechanisms.base import Mechanism, PostProcessed
from ..mechanisms.declared import DeclaredDP
from .exact import privacy_profile, renyi_profile
from .registry import theorem
from .types import Bound, NotApplicable


def dominating_pair_curve(eps0: float, delta0: float):
    """STD-DominatingPair: delta(eps) = delta0 + (1 − delta0)(e^eps0 − e^eps)/(1 + e^eps0) on [0, eps0],
    delta0 beyond — the profile of the canonical four-point (eps0, delta0) pair."""

    def curve(eps: NDArray[np.float64]) -> NDArray[np.float64]:
        # (e^eps0 − e^eps)/(1 + e^eps0) = (1 − e^(eps − eps0)) / (1 + e^-eps0): no overflow at eps0 = 50.
        inside = (-np.expm1(np.minimum(eps, eps0) - eps0)) / (1.0 + np.exp(-eps0))
        return delta0 + (1.0 - delta0) * inside

    return curve


def mechanism_bound(mechanism: Mechanism, theorem_id: str) -> Bound:
    """The mechanism's own curve: exact profile (finite, Gaussian, Laplace) or its declared point."""
    if isinstance(mechanism, DeclaredDP):
        eps0, delta0 = mechanism.eps, mechanism.delta
        # Pure DP bounds every Rényi order by eps0 (R_alpha <= R_inf); approximate DP bounds none.
        renyi = (lambda a: np.full(a.shape, eps0)) if delta0 == 0 else None
        return Bound(theorem_id, {"mechanism": mechanism, "source": "STD-DominatingPair"},
                     dominating_pair_curve(eps0, delta0), renyi)
    privacy_profile(mechanism, 1.0)  # raises NotImplementedError where no exact curve exists
    return Bound(theorem_id, {"mechanism": mechanism, "source": "exact profile"},
                 lambda e: np.asarray(privacy_profile(mechanism, e)),
                 lambda a: np.asarray(renyi_profile(mechanism, a)))


@theorem("MECH")
def mech(subject: Any) -> Bound | NotApplicable:
    """A mechanism's own guarantee (closed form, exact finite profile, or STD-DominatingPair)."""
    if isinstance(subject, PostProcessed):
        return NotApplicable("MECH", "MECH certifies a mechanism itself; a pipeline M >> K is certified by POST.")
    return mechanism_bound(subject, "MECH")


@theorem("POST")
def post(subject: Any) -> Bound | NotApplicable:
    """Post-processing: K ∘ M has M's guarantee for every kernel K (THEORY: Notation)."""
    if not isinstance(subject, PostProcessed):
        return NotApplicable("POST", "POST applies to a post-processed pipeline M >> K.")
    bound = mechanism_bound(subject.mechanism, "POST")
    return Bound("POST", {**bound.inputs, "kernel": subject.kernel}, bound.delta_curve, bound.renyi_curve)
