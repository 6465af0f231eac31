"""`Certificate.plot`: every applicable rule's delta(eps) against the exact profile (STD-Exact), on a log axis,
with each theorem's tightness exact / bound in the legend."""

from __future__ import annotations

import math
import textwrap
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps
from .exact import privacy_profile
from .types import EXACT_ID


def plot_certificate(cert: Any, ax: Any = None, eps: ArrayLike | None = None) -> Any:
    """delta(eps) of every applicable rule of `cert` on a log y axis, with the exact profile where
    `privacy_profile` knows it; the theorems that win somewhere on the grid drawn bold. Returns the Axes.

    Lines: one per applicable rule. The exact profile is one dashed black line: the rule EXACT (STD-Exact) when
    it applies, else `privacy_profile` where it is known; the bold winners are then the best *theorems* (the rules
    other than EXACT), and each theorem's legend entry gives its tightness exact / bound over the grid (where
    0 < bound < 1). Points where delta = 0 are not drawn (log axis), which the legend title says. Default eps
    grid: 0 to 1.5 × the best eps at delta = 1e-5 (at least 1, at most 20 nats).
    """
    import matplotlib.pyplot as plt

    if eps is None:
        reach = cert.epsilon(1e-5)
        eps_max = min(max(1.5 * reach, 1.0), 20.0) if math.isfinite(reach) else 5.0
        eps = np.linspace(0.0, eps_max, 241)
    grid = np.atleast_1d(np.asarray(check_eps("eps", eps, allow_inf=False), dtype=np.float64)).ravel()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.2), layout="constrained")
    curves = {b.theorem: np.asarray(b.delta(grid), dtype=np.float64) for b in cert.bounds if b.theorem != EXACT_ID}
    exact, exact_label = _exact_curve(cert, grid)
    stacked = np.array(list(curves.values())).reshape(len(curves), grid.size)
    best = stacked.min(axis=0, initial=1.0)
    # The winner at each eps as in `Certificate.best` (ties: the rule registered first), counted where the
    # best bound is informative (0 < delta < 1): at delta = 0 every rule that reaches 0 ties.
    winner = np.where((best > 0) & (best < 1), np.argmin(stacked, axis=0) if curves else -1, -1)
    zero = False
    for index, (tid, values) in enumerate(curves.items()):
        wins = winner == index
        label = tid + (f"  (best {_span(grid[wins])})" if wins.any() else "") + _tightness(exact, values)
        zero |= bool((values == 0).any())
        ax.plot(grid, np.where(values > 0, values, np.nan), lw=2.6 if wins.any() else 1.1,
                alpha=1.0 if wins.any() else 0.75, label=label, zorder=3 if wins.any() else 2)
    if exact is not None:
        zero |= bool((exact == 0).any())
        ax.plot(grid, np.where(exact > 0, exact, np.nan), color="black", ls="--", lw=1.4, label=exact_label, zorder=4)
    ax.set_yscale("log")
    positive = [v[v > 0] for v in (*curves.values(), *([exact] if exact is not None else []))]
    low = min((float(v.min()) for v in positive if v.size), default=1e-6)
    ax.set_ylim(max(low, 1e-16) / 2.0, 1.6)
    ax.set_xlabel("eps (nats)")
    ax.set_ylabel("delta(eps)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, title="delta = 0 not drawn (log axis)" if zero else None, title_fontsize=8)
    ax.set_title(textwrap.shorten(repr(cert.subject), 90, placeholder=" …"), fontsize=9)
    return ax


def _exact_curve(cert: Any, grid: NDArray[np.float64]) -> tuple[NDArray[np.float64] | None, str]:
    """The exact profile on the grid and its legend label: the rule EXACT if it applies, else `privacy_profile`
    where it is known (a certificate computed without EXACT), else None."""
    if cert.exact is not None:
        return np.asarray(cert.exact.delta(grid), dtype=np.float64), f"{EXACT_ID} (exact privacy_profile)"
    try:
        return np.asarray(privacy_profile(cert.subject, grid), dtype=np.float64), "exact privacy_profile"
    except NotImplementedError:
        return None, ""


def _tightness(exact: NDArray[np.float64] | None, values: NDArray[np.float64]) -> str:
    """The legend suffix "  (tightness a–b)": the range of exact / bound where 0 < bound < 1 (informative)."""
    if exact is None:
        return ""
    shown = (values > 0) & (values < 1)
    if not shown.any():
        return ""
    ratio = exact[shown] / values[shown]
    low, high = float(ratio.min()), float(ratio.max())
    return f"  (tightness {low:.2g})" if f"{low:.2g}" == f"{high:.2g}" else f"  (tightness {low:.2g}–{high:.2g})"


def _span(eps: NDArray[np.float64]) -> str:
    low, high = float(eps.min()), float(eps.max())
    return f"at eps = {low:.3g}" if low == high else f"for eps in [{low:.3g}, {high:.3g}]"


__all__ = ["plot_certificate"]
