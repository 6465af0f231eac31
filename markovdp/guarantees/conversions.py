"""STD-RDP2DP: from an RDP curve to (eps, delta)-DP."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_order, check_probability, check_range, fail


def rdp_to_dp(rdp_curve_or_value: ArrayLike | Callable[[NDArray[np.float64]], ArrayLike], alpha: ArrayLike,
              delta: float) -> float:
    """The best eps over the given orders for which (alpha, rdp(alpha))-RDP implies (eps, delta)-DP.

    STD-RDP2DP: eps = r + log((alpha − 1)/alpha) − (log delta + log alpha)/(alpha − 1) (Balle et al. 2020,
    Thm 21), never worse than Mironov's r + log(1/delta)/(alpha − 1); alpha = inf gives eps = r.
    Clipped at 0. `rdp_curve_or_value`: a curve alpha ↦ eps(alpha) (e.g. ``Certificate.renyi``), one value
    per order, or one value for all orders, in nats. ValueError for an empty list of orders `alpha`.
    """
    alpha_arr = np.atleast_1d(np.asarray(check_order("alpha", alpha), dtype=np.float64))
    if alpha_arr.size == 0:
        raise fail("alpha", "at least one Rényi order in (1, inf]", "no orders (an empty list)")
    values = rdp_curve_or_value(alpha_arr) if callable(rdp_curve_or_value) else rdp_curve_or_value
    rdp_arr = np.atleast_1d(check_range("rdp_curve_or_value", values, low=0.0, allow_inf=True, allowed=">= 0"))
    if rdp_arr.size not in (1, alpha_arr.size):
        raise fail("rdp_curve_or_value", f"one value or one per order ({alpha_arr.size})",
                   f"{rdp_arr.size} values")
    rdp_arr = np.broadcast_to(rdp_arr, alpha_arr.shape)
    delta = float(check_probability("delta", delta))
    if delta == 1.0:
        return 0.0
    finite = np.isfinite(alpha_arr)
    eps = np.where(finite, np.inf, rdp_arr)
    if delta > 0:
        a = alpha_arr[finite]
        r = rdp_arr[finite]
        balle = r + np.log1p(-1.0 / a) - (np.log(delta) + np.log(a)) / (a - 1.0)
        mironov = r + np.log(1.0 / delta) / (a - 1.0)
        eps[finite] = np.minimum(balle, mironov)
    return float(max(np.min(eps), 0.0))
