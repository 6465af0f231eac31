"""Exact certification of the SRP constructions: key reuse (SRP-Seq) and multi-level privacy (SRP-ML).

These read the mechanisms of `markovdp.mechanisms.local` and certify them with `ldp_epsilon` (AAC-T1) and the
theorem registry; eps in nats, randomness in bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._validation import fail
from ..mechanisms.local.entropy import entropy_bits
from ..mechanisms.local.key_reuse import _keyed_parts, per_sample_epsilon, sequence_channel
from ..mechanisms.local.multilevel import BBGG_T1_RULES, MultiLevelMechanism
from ..mechanisms.local.multilevel_hadamard import MultiLevelHadamard
from .coefficients import ldp_epsilon
from .registry import certify


@dataclass(frozen=True)
class KeyReuse:
    """Exact eps (nats) and key entropy (bits) of T samples with fresh keys vs one reused key (SRP-Seq)."""

    T: int
    eps_single: float
    tuple_eps_fresh: float
    tuple_eps_reused: float
    sample_eps_fresh: float
    sample_eps_reused: float
    bits_fresh: float
    bits_reused: float


def compare_key_reuse(mechanism: Any, T: int) -> KeyReuse:
    """Build both T-sample channels of a keyed mechanism and certify each exactly with `ldp_epsilon` (tuple
    LDP) and `per_sample_epsilon` (samples as neighbours); randomness T · H(U) vs H(U) bits (SRP-Seq)."""
    table, probs, _ = _keyed_parts(mechanism)
    k = table.shape[0]
    fresh = sequence_channel(mechanism, T, reuse=False)
    reused = sequence_channel(mechanism, T, reuse=True)
    bits = entropy_bits(probs)
    return KeyReuse(T=T, eps_single=ldp_epsilon(mechanism),
                    tuple_eps_fresh=ldp_epsilon(fresh), tuple_eps_reused=ldp_epsilon(reused),
                    sample_eps_fresh=per_sample_epsilon(fresh, k, T),
                    sample_eps_reused=per_sample_epsilon(reused, k, T),
                    bits_fresh=T * bits, bits_reused=bits)


def _check_multilevel(mechanism: Any) -> None:
    if not isinstance(mechanism, (MultiLevelMechanism, MultiLevelHadamard)):
        raise fail("mechanism", "a MultiLevelMechanism or MultiLevelHadamard", type(mechanism).__name__, TypeError)


def multilevel_exact_epsilons(mechanism: MultiLevelMechanism | MultiLevelHadamard) -> tuple[float, ...]:
    """`ldp_epsilon` of every view of a `MultiLevelMechanism` or `MultiLevelHadamard` (AAC-T1): equal to its
    `eps_levels` to rounding (never above them for `MultiLevelHadamard`, SRP-ML-HR)."""
    _check_multilevel(mechanism)
    return tuple(ldp_epsilon(mechanism.view(j)) for j in range(1, mechanism.d + 1))


def multilevel_predicted_epsilon(mechanism: MultiLevelMechanism, j: int,
                                 rules: tuple[str, ...] = BBGG_T1_RULES) -> float:
    """BBGG-T1's eps for level j+1 (at delta = 0) from level j's view pushed through the added key
    (``view(j) >> added_key(j)``, an ultra-mixing kernel): the best of `rules` via `certify` (SRP-ML).

    With every T1 rule this is tight: T1.2 at eps~(eps) = log(1 + (e^eps − 1)/delta_j(eps)) reaches the exact
    eps_{j+1} (derived in docs SRP-ML); T1.4 alone gives log(1 + gamma (e^eps_j − 1)), gamma = 1 − b'/a'.

    The rules are evaluated in floating point, where a tight one can land a few ulps below the exact eps of
    the float matrix ``view(j) >> added_key(j)`` (`ldp_epsilon`); within 16 ulps of it the result is rounded
    outward to that exact value, so it is never below it. A larger gap is returned as it is (and would show
    as an unsound rule: the tests compare it with the exact value)."""
    _check_multilevel(mechanism)
    pipeline = mechanism.view(j) >> mechanism.added_key(j)
    eps = certify(pipeline, rules=rules).epsilon(0.0)
    exact = ldp_epsilon(pipeline)
    if eps < exact <= eps + 16 * math.ulp(exact):
        eps = exact
    return eps


__all__ = ["KeyReuse", "compare_key_reuse", "multilevel_exact_epsilons", "multilevel_predicted_epsilon"]
