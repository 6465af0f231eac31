"""AAC: local DP as contraction of E_gamma — the LDP profile curve (AAC-T1, AAC-eta) and phi_n (AAC-phi)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_int, check_probability
from .coefficients import dobrushin


def ldp_profile(K: Any, eps: ArrayLike) -> float | NDArray[np.float64]:
    """The LDP profile of a finite channel: delta(eps) = eta_{e^eps}(K) = max_{x, x'} E_{e^eps}(K(x) || K(x')).

    THEORY: AAC-T1 (K is (eps, delta)-LDP iff delta >= this curve at eps), AAC-eta (the two-point
    characterisation of the E_gamma contraction coefficient). Each value is `dobrushin(K, eps)` — the same
    arithmetic, so ``ldp_profile(K, ldp_epsilon(K, d)) <= d`` holds exactly; the curve is non-increasing in eps,
    in [0, 1], with TV's Dobrushin coefficient at eps = 0 and the D_inf coefficient at eps = inf.

    Parameters
    ----------
    K : FiniteKernel, finite mechanism, or array-like (k, m)
        Anything with a ``.matrix``, or a row-stochastic matrix.
    eps : float or array-like
        Privacy levels in nats, each >= 0 (``inf`` allowed).

    Returns
    -------
    float or ndarray
        A float for a scalar `eps`, else an array of the shape of `eps`.

    Raises
    ------
    ValueError
        An `eps` NaN or negative; `K` not row-stochastic.
    NotImplementedError
        `K` is an operator without a finite matrix.
    """
    grid = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    values = np.array([dobrushin(K, float(e)) for e in grid.reshape(-1)]).reshape(grid.shape)
    return float(values) if grid.ndim == 0 else values


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


__all__ = ["ldp_contraction_bound", "ldp_profile"]
