"""AAC: local DP as contraction of E_gamma (AAC-phi)."""

from __future__ import annotations

import numpy as np

from .._validation import check_eps, check_int, check_probability


def ldp_contraction_bound(eps: float, delta: float, n: int = 1) -> float:
    """phi_n(eps, delta) = 1 − e^(−n eps) (1 − delta)^n: every f-divergence contraction coefficient of a
    product of n (eps, delta)-LDP kernels is at most this (AAC-phi; n = 1 gives phi(eps, delta)).

    Not (1 − e^(−eps)(1 − delta))^n: a product kernel contracts no more than one factor (THEORY note).
    """
    eps = float(check_eps("eps", eps, allow_inf=True))
    delta = float(check_probability("delta", delta))
    n = check_int("n", n, minimum=1)
    if delta == 1.0 or np.isinf(eps):
        return 1.0
    return float(-np.expm1(n * (-eps + np.log1p(-delta))))
