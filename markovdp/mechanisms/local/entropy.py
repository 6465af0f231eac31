"""Shannon entropy in bits: the randomness a local mechanism spends (SRP-D, SRP-Tab1)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..._validation import check_probability, check_probability_vector, fail

__all__ = ["binary_entropy", "entropy_bits"]


def entropy_bits(p: ArrayLike) -> float:
    """H(p / Σp) = log2 Σp − Σ_i (p_i / Σp) log2 p_i in bits, with 0 log 0 = 0 (SRP-D).

    The entropy of the law that `draw_keys` samples from the doubles p, Σp taken exactly (``math.fsum``): when
    p = (fl(1/(1 + e^-40)), …) rounds to (1.0, 4.2e-18), the log2 Σp term carries the mass the rounding
    took from the first entry. Raises ValueError unless `p` is a probability vector (non-negative, summing to
    1 ± 1e-12).
    """
    from scipy.special import entr

    probs = check_probability_vector("p", p)
    excess = math.fsum([*probs.tolist(), -1.0])  # Σp − 1, exactly rounded
    return float((math.log1p(excess) + entr(probs).sum() / (1.0 + excess)) / math.log(2.0))


def binary_entropy(p: float) -> float:
    """H2(p) = −p log2 p − (1 − p) log2(1 − p) in bits, for p in [0, 1] (SRP-D: the key of binary RR).

    Computed from q = min(p, 1 − p) (exact: 1 − p is exact for p >= 1/2, Sterbenz) as
    (−q ln q − (1 − q) log1p(−q)) / ln 2, so it keeps full relative precision as p → 0 or 1; pass the smaller
    probability itself when it is known more precisely than 1 − p.
    """
    checked = check_probability("p", p)
    if np.ndim(checked) != 0:
        raise fail("p", "a scalar probability in [0, 1]", p, TypeError)
    q = min(float(checked), 1.0 - float(checked))
    if q == 0.0:
        return 0.0
    return (-q * math.log(q) - (1.0 - q) * math.log1p(-q)) / math.log(2.0)
