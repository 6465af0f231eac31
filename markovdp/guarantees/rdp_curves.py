"""STD-RDP2DP inverted: an RDP curve alpha ↦ r(alpha) as a privacy profile delta(eps), and as a `Bound`.

For one order alpha > 1, (alpha, r)-RDP gives (eps, delta)-DP at every eps >= 0 with
``log delta = (alpha − 1)(r − eps) + (alpha − 1) log((alpha − 1)/alpha) − log alpha`` (Balle et al. 2020,
Thm 21, solved for delta) and with Mironov's ``log delta = (alpha − 1)(r − eps)``; at alpha = inf, delta = 0
for eps >= r(inf). The curve is the smallest of these over a grid of orders, clipped to [0, 1]; it is the
delta-side of `markovdp.guarantees.conversions.rdp_to_dp` on the same orders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_callable, check_eps, check_order, check_range, fail
from .types import Bound, Curve

#: The default orders: alpha − 1 from 1e-3 to 1e5, 20 per decade, then alpha = inf.
ALPHA_GRID = np.concatenate([1.0 + np.logspace(-3.0, 5.0, 161), [np.inf]])


def rdp_delta_curve(rdp_curve: Callable[[NDArray[np.float64]], ArrayLike],
                    alphas: ArrayLike = ALPHA_GRID) -> Curve:
    """STD-RDP2DP: the privacy profile eps ↦ delta(eps) certified by an RDP curve on the orders `alphas`.

    `rdp_curve` maps an array of orders to RDP values (nats, >= 0, inf allowed) and is evaluated once, on
    first use. The returned curve takes an array of eps (nats, >= 0) and gives delta in [0, 1].
    """
    check_callable("rdp_curve", rdp_curve, "a function of an array of orders (alpha ↦ RDP in nats)")
    grid = np.atleast_1d(np.asarray(check_order("alphas", alphas), dtype=np.float64))
    if grid.size == 0:
        raise fail("alphas", "at least one Rényi order in (1, inf]", "no orders (an empty list)")
    cache: list[NDArray[np.float64]] = []

    def values() -> NDArray[np.float64]:
        if not cache:
            raw = np.asarray(rdp_curve(grid), dtype=np.float64).reshape(grid.shape)
            cache.append(check_range("rdp_curve", raw, low=0.0, allow_inf=True, allowed=">= 0 (inf allowed)"))
        return cache[0]

    def curve(eps: NDArray[np.float64]) -> NDArray[np.float64]:
        eps = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
        r = values()
        finite = np.isfinite(grid) & np.isfinite(r)
        a, rf = grid[finite], r[finite]
        e = eps.reshape(-1, 1)
        mironov = (a - 1.0) * (rf - e)  # -inf at eps = inf
        balle = mironov + (a - 1.0) * np.log1p(-1.0 / a) - np.log(a)
        best = np.min(np.minimum(balle, mironov), axis=1, initial=0.0)
        pure = grid == np.inf
        if pure.any() and np.isfinite(r[pure][0]):
            best = np.where(eps.ravel() >= r[pure][0], -np.inf, best)
        return np.clip(np.exp(best), 0.0, 1.0).reshape(eps.shape)

    return curve


def rdp_bound(theorem_id: str, inputs: Mapping[str, Any], rdp_curve: Callable[[NDArray[np.float64]], ArrayLike],
              alphas: ArrayLike = ALPHA_GRID) -> Bound:
    """A `Bound` carrying the RDP curve itself and its STD-RDP2DP profile (`rdp_delta_curve` on `alphas`)."""
    check_callable("rdp_curve", rdp_curve, "a function of an array of orders (alpha ↦ RDP in nats)")

    def renyi(alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(rdp_curve(np.asarray(alpha, dtype=np.float64)), dtype=np.float64)

    return Bound(theorem_id, dict(inputs), rdp_delta_curve(renyi, alphas), renyi)


__all__ = ["rdp_bound", "rdp_delta_curve"]
