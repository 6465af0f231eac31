"""The rules "MECH" (a mechanism's own guarantee) and "POST" (it survives any post-processing)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mechanisms.base import Mechanism, PostProcessed
from ..mechanisms.canonical import CanonicalPairs
from .exact import exact_pairs, privacy_profile, renyi_profile
from .registry import theorem
from .types import Bound, NotApplicable


def mechanism_bound(mechanism: Mechanism, theorem_id: str) -> Bound:
    """The mechanism's own curve: its exact profile and RDP curve, read from its dominating pairs (a
    `DeclaredDP`: the canonical pair, STD-DominatingPair). NotImplementedError where none is known."""
    pairs = exact_pairs(mechanism, "privacy profile")
    source = "STD-DominatingPair" if isinstance(pairs, CanonicalPairs) else "exact profile"
    return Bound(theorem_id, {"mechanism": mechanism, "source": source},
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
