"""STD-BlackBoxExact kernels: the worst case of every (eps0, delta0)-DP mechanism post-processed by K.

(Reference numpy version; to be replaced by the numba kernel.)
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

#: The largest number of (tuple, output) terms evaluated per eps.
MAX_WORK = 2**31


def worst_case_hockey_stick(P: NDArray[np.float64], Q: NDArray[np.float64], K: NDArray[np.float64],
                            eps: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """max over (x0, x1, x2, x3) in [k]^4 of E_{e^eps}(Σ_i P_i K[x_i] || Σ_i Q_i K[x_i]), and an argmax tuple."""
    from ..divergences.exact import hockey_stick_finite

    k = K.shape[0]
    values = np.zeros(eps.shape)
    best = np.zeros((eps.size, 4), dtype=np.int64)
    for t in itertools.product(range(k), repeat=4):
        a = P @ K[list(t)]
        b = Q @ K[list(t)]
        v = hockey_stick_finite(a, b, eps)
        better = v > values
        values = np.where(better, v, values)
        best[better] = t
    return values, best
