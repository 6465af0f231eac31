"""AAC-Bayes, AAC's Bernoulli example: the smallest Bayes risk over every (eps, delta)-LDP channel, as a curve in eps.

THEORY: AAC-Bayes. theta on the midpoint grid (j + 1/2)/m of [0, 1] with the uniform prior (the finite version
of the uniform prior on [0, 1]; the risk converges to it as m grows), X_i ~ Bernoulli(theta), n samples each
privatised by one (eps, delta)-LDP channel. For binary inputs every (eps, delta)-LDP channel is a post-processing
of the canonical four-output channel (Kairouz–Oh–Viswanath 2015), and post-processing cannot lower the Bayes risk
(an estimator of the processed outputs is one of the canonical outputs), so that channel's exact Bayes risk is
the minimum over all (eps, delta)-LDP channels: a valid lower bound must lie below it at every eps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_int, check_probability, check_size, readonly
from ..mechanisms.canonical import canonical_rows
from .bayes import bayes_risk, ldp_bayes_lower_bound


def canonical_ldp_channel(eps: float, delta: float) -> NDArray[np.float64]:
    """The binary-input (eps, delta)-LDP channel every other is a post-processing of (Kairouz–Oh–Viswanath 2015):
    rows [delta, (1 − delta) e^eps / (1 + e^eps), (1 − delta) / (1 + e^eps), 0] and its reverse (2, 4)."""
    eps = float(check_eps("eps", eps))
    delta = float(check_probability("delta", delta))
    return readonly(np.stack(canonical_rows(eps, delta)))


def bernoulli_grid(m: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The parameters (j + 1/2)/m, j < m, and their Bernoulli laws (m, 2) (columns P(X = 0), P(X = 1))."""
    m = check_int("m", m, minimum=2)
    check_size("m", m, 4.0 * m, what="the grid and its laws")
    thetas = (np.arange(m) + 0.5) / m
    return thetas, np.stack([1.0 - thetas, thetas], axis=1)


@dataclass(frozen=True)
class BernoulliBayesCurve:
    """AAC's Bernoulli example per eps (arrays of the shape of ``eps``; risks in the units of the loss).

    ``best_risk``: the exact Bayes risk through the canonical (eps, delta) channel = the least over every
    (eps, delta)-LDP channel; ``rr_risk``: through binary randomized response at eps (eps-LDP, for comparison);
    ``nonprivate_risk``: with the raw samples; ``le_cam``, ``e_gamma``, ``bound``: the lower bounds of
    `ldp_bayes_lower_bound`, valid for every (eps, delta)-LDP channel (so each <= ``best_risk``).
    """

    eps: NDArray[np.float64]
    delta: float
    n: int
    m: int
    loss: str
    best_risk: NDArray[np.float64]
    rr_risk: NDArray[np.float64]
    nonprivate_risk: float
    le_cam: NDArray[np.float64]
    e_gamma: NDArray[np.float64]
    bound: NDArray[np.float64]


def bernoulli_bayes_curve(eps_grid: ArrayLike, delta: float = 1e-4, n: int = 20, *, m: int = 100,
                          loss: str = "absolute") -> BernoulliBayesCurve:
    """AAC's Bernoulli example (uniform prior, delta = 1e-4, n = 20, absolute loss) as a curve over eps.

    THEORY: AAC-Bayes. theta uniform on the m-point midpoint grid of [0, 1] (`bernoulli_grid`); see the module
    docstring for why the canonical channel's risk is the least over all (eps, delta)-LDP channels.

    Parameters
    ----------
    eps_grid : float or array-like
        Privacy levels in nats, each >= 0 and finite.
    delta : float
        In [0, 1].
    n : int
        Number of samples, >= 1.
    m : int
        Grid size, >= 2.
    loss : {"zero_one", "absolute", "squared"}

    Raises
    ------
    ValueError, TypeError
        Bad `eps_grid`, `delta`, `n`, `m` or `loss`.
    """
    grid = np.asarray(check_eps("eps_grid", eps_grid), dtype=np.float64)
    delta = float(check_probability("delta", delta))
    n = check_int("n", n, minimum=1)
    thetas, laws = bernoulli_grid(m)
    nonprivate = bayes_risk(np.eye(2), thetas, laws, n, loss=loss).risk
    rows = []
    for e in grid.reshape(-1).tolist():
        best = bayes_risk(canonical_ldp_channel(e, delta), thetas, laws, n, loss=loss).risk
        rr = bayes_risk(canonical_ldp_channel(e, 0.0)[:, 1:3], thetas, laws, n, loss=loss).risk
        low = ldp_bayes_lower_bound(e, delta, thetas, laws, n, loss=loss)
        rows.append((best, rr, low.le_cam, low.e_gamma, low.bound))
    table = np.array(rows, dtype=np.float64).reshape(grid.size, 5)
    cols = [readonly(table[:, i].reshape(grid.shape)) for i in range(5)]
    return BernoulliBayesCurve(readonly(grid), delta, n, int(m), loss, cols[0], cols[1], nonprivate, *cols[2:])


def bernoulli_crossing_eps(level: float, delta: float = 1e-4, n: int = 20, *, m: int = 100,
                           loss: str = "absolute") -> float:
    """The eps at which the least Bayes risk over (eps, delta)-LDP channels (`bernoulli_bayes_curve`'s
    ``best_risk``, non-increasing in eps) equals `level`: above it no lower bound >= `level` is valid.
    inf if the risk stays above `level` (level <= the non-private risk); 0 if it starts below.

    Raises
    ------
    ValueError
        `level` not in [0, 1]; bad `delta`, `n`, `m`, `loss`.
    """
    from scipy import optimize  # here, not at import

    level = float(check_probability("level", level))
    delta = float(check_probability("delta", delta))
    n = check_int("n", n, minimum=1)
    thetas, laws = bernoulli_grid(m)

    def gap(e: float) -> float:
        return bayes_risk(canonical_ldp_channel(e, delta), thetas, laws, n, loss=loss).risk - level

    if gap(0.0) <= 0.0:
        return 0.0
    high = 1.0
    while gap(high) > 0.0:
        high *= 2.0
        if high > 64.0:
            return float("inf")
    return float(optimize.brentq(gap, 0.0 if high == 1.0 else high / 2.0, high, xtol=1e-10))


__all__ = ["BernoulliBayesCurve", "bernoulli_bayes_curve", "bernoulli_crossing_eps", "bernoulli_grid",
           "canonical_ldp_channel"]
