"""Guarantees as curves (DESIGN §5): a `Bound` is a certified privacy profile delta(eps) and RDP curve.

Exact values, bounds and estimates are different types: a `Bound` always carries the THEORY ID of the
theorem that produced it and the inputs it was applied to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_order, check_probability

Curve = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def _as_output(values: NDArray[np.float64], like: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
    return float(values) if np.ndim(like) == 0 else np.asarray(values, dtype=np.float64)


def evaluate_curve(curve: Curve, eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """delta(eps) for an array of eps, clipped into [0, 1]."""
    flat = np.atleast_1d(np.asarray(eps, dtype=np.float64)).ravel()
    values = np.asarray(curve(flat), dtype=np.float64).reshape(flat.shape)
    return np.clip(values, 0.0, 1.0).reshape(np.shape(eps))


def invert_profile(profile: Callable[[float], float], delta: float, *, xtol: float = 1e-12,
                   eps_max: float = 2.0**60) -> float:
    """The smallest eps >= 0 with profile(eps) <= delta, for a non-increasing profile (inf if none).

    inf when even profile(inf) (the D_inf limit) exceeds delta; otherwise doubling then bisection
    (robust to flat and step-like curves such as STD-DominatingPair) to `xtol` relative in eps. The
    returned eps always satisfies profile(eps) <= delta; a NaN value never counts as satisfied.
    """

    def satisfied(eps: float) -> bool:
        return bool(profile(eps) <= delta)  # False for NaN

    if satisfied(0.0):
        return 0.0
    if not satisfied(math.inf):
        return math.inf
    hi = 1.0
    while not satisfied(hi):
        hi *= 2.0
        if hi > eps_max:
            return math.inf
    lo = hi / 2.0 if hi > 1.0 else 0.0
    while hi - lo > xtol * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if satisfied(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class Bound:
    """A certified guarantee: the curve delta(eps) and the RDP curve eps(alpha) of one theorem.

    `theorem` is a THEORY ID (e.g. "BBGG-T1.3"); `inputs` records what the theorem was applied to
    (coefficients, the mechanism, …). `renyi(alpha)` is inf where the theorem says nothing about RDP.
    """

    theorem: str
    inputs: Mapping[str, Any]
    delta_curve: Curve = field(repr=False)
    renyi_curve: Curve | None = field(default=None, repr=False)

    def delta(self, eps: ArrayLike) -> float | NDArray[np.float64]:
        """Certified delta at `eps` (nats, >= 0, inf allowed; broadcast over arrays)."""
        eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
        return _as_output(evaluate_curve(self.delta_curve, eps_arr), eps_arr)

    def epsilon(self, delta: float) -> float:
        """The smallest eps with delta(eps) <= `delta` (inf if none).

        At delta = 0 a bound with an RDP curve answers with its R_inf bound (eps-DP iff R_inf <= eps), not
        with a profile that may only have underflowed to 0 (a Gaussian is never pure DP).
        """
        target = float(check_probability("delta", delta))
        if target == 0.0 and self.renyi_curve is not None:
            return float(self.renyi(np.inf))
        return invert_profile(lambda e: float(self.delta(e)), target)

    def renyi(self, alpha: ArrayLike) -> float | NDArray[np.float64]:
        """Certified RDP eps(alpha) for alpha in (1, inf] (inf where the theorem gives none)."""
        alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
        if self.renyi_curve is None:
            return _as_output(np.full(alpha_arr.shape, np.inf), alpha_arr)
        flat = np.atleast_1d(alpha_arr).ravel()
        values = np.maximum(np.asarray(self.renyi_curve(flat), dtype=np.float64), 0.0).reshape(alpha_arr.shape)
        return _as_output(values, alpha_arr)


@dataclass(frozen=True)
class NotApplicable:
    """A theorem whose hypotheses do not hold (or cannot be checked), with the reason."""

    theorem: str
    reason: str


class NoApplicableTheorem(ValueError):
    """`certify(..., require=True)` found no theorem that applies; the message lists every reason."""


@dataclass(frozen=True)
class Certificate:
    """Every registered rule's answer for one mechanism or pipeline; the best candidate at each point."""

    subject: Any
    candidates: Mapping[str, Bound | NotApplicable]

    @property
    def bounds(self) -> list[Bound]:
        return [c for c in self.candidates.values() if isinstance(c, Bound)]

    def delta(self, eps: ArrayLike) -> float | NDArray[np.float64]:
        """min over candidate bounds of delta(eps); 1.0 where nothing applies."""
        eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
        best = np.ones(eps_arr.shape)
        for bound in self.bounds:
            best = np.minimum(best, bound.delta(eps_arr))
        return _as_output(best, eps_arr)

    def epsilon(self, delta: float) -> float:
        """The smallest eps certified at `delta` by any candidate (inf if none)."""
        check_probability("delta", delta)
        return min((b.epsilon(delta) for b in self.bounds), default=math.inf)

    def renyi(self, alpha: ArrayLike) -> float | NDArray[np.float64]:
        """min over candidates of the RDP curve at alpha; inf where nothing applies."""
        alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
        best = np.full(alpha_arr.shape, np.inf)
        for bound in self.bounds:
            best = np.minimum(best, bound.renyi(alpha_arr))
        return _as_output(best, alpha_arr)

    def best(self, *, eps: float | None = None, alpha: float | None = None) -> Bound | None:
        """The winning Bound at `eps` (or at RDP order `alpha`); None if nothing applies (or, for `alpha`,
        if no candidate bounds RDP at all).

        Ties go to the rule registered first (MECH, POST, then BBGG-T1.1 … T1.4).
        """
        if (eps is None) == (alpha is None):
            raise TypeError("`best` takes exactly one of `eps` or `alpha`.")
        name, point = ("eps", eps) if eps is not None else ("alpha", alpha)
        if np.ndim(point) != 0:
            raise TypeError(f"`{name}` must be a scalar for `best`; got an array of shape {np.shape(point)}.")
        bounds = self.bounds
        values = [float(b.delta(eps)) if eps is not None else float(b.renyi(alpha)) for b in bounds]
        if not bounds or (alpha is not None and min(values) == math.inf):
            return None
        return bounds[int(np.argmin(values))]

    def reasons(self) -> dict[str, str]:
        """Why each non-applicable rule does not apply."""
        return {k: c.reason for k, c in self.candidates.items() if isinstance(c, NotApplicable)}
