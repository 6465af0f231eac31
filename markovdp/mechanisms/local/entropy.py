"""Shannon entropy in bits: the randomness a local mechanism spends (SRP-D, SRP-Tab1)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..._validation import check_probability, check_probability_vector, fail

__all__ = ["binary_entropy", "entropy_bits"]


def entropy_bits(p: ArrayLike) -> float:
    """H(p) = −Σ_i p_i log2 p_i in bits, with 0 log 0 = 0 (SRP-D).

    Raises ValueError unless `p` is a probability vector (non-negative, summing to 1 ± 1e-12).
    """
    from scipy.special import entr

    probs = check_probability_vector("p", p)
    return float(entr(probs).sum() / math.log(2.0))


def binary_entropy(p: float) -> float:
    """H2(p) = −p log2 p − (1 − p) log2(1 − p) in bits, for p in [0, 1] (SRP-D: the key of binary RR)."""
    checked = check_probability("p", p)
    if np.ndim(checked) != 0:
        raise fail("p", "a scalar probability in [0, 1]", p, TypeError)
    q = float(checked)
    return entropy_bits([q, 1.0 - q])
