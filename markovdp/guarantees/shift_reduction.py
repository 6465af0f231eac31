"""BBGG-E2r: additive noise on R then r additive-noise kernels, by BBGG-T2 applied step by step (RDP, nats).

The mechanism's outputs are ``u + Z_0`` and ``v + Z_0`` with ||u − v|| = Delta; kernel i adds Z_i (i = 1..r),
every Z_i Gaussian (isotropic) or Laplace. With ``rho_i(s) = R_alpha(s + Z_i || Z_i)``,
``R_alpha <= min over s_0 + … + s_r = Delta, s_i >= 0, of Σ_i rho_i(s_i)``.

Every rho_i is convex and non-decreasing in s >= 0: the Gaussian alpha s²/(2 sigma²), and the Laplace
log g_alpha(s/b)/(alpha − 1) with log g_alpha(z) = log(w1 e^((alpha−1) z) + w2 e^(−alpha z)), a log-sum-exp of
affine functions of z (STD-LapRenyi). So the minimum is a convex problem, solved by its KKT condition
rho_i'(s_i) = lambda for all i (every rho_i'(0) = 0, so no s_i is 0 at the optimum):

- Gaussian: s = lambda sigma² / alpha;
- Laplace (scale b): rho'(s) = (1 − (2alpha − 1) q / (alpha − 1)) / b with q = 1/(1 + (w1/w2) e^((2alpha−1) s/b)),
  which saturates at 1/b: lambda < 1/b_max, the largest Laplace scale. Writing lambda = 1/b_max − g,
  ``q = w2 (1 − b/b_max + b g)`` and ``s = b (log((1 − q)/q) − log(w1/w2)) / (2 alpha − 1)``, clipped at 0.

The total shift is decreasing in log g; it is solved by bisection on log g (vectorised over the orders), which
stays accurate when the largest-scale Laplace takes almost all of a long shift. Soundness never rests on the
solver: rho_i is non-decreasing, so every split with Σ s_i >= Delta gives a valid bound. The split found is
scaled to sum to Delta, lifted by 2^-40 relative, and the objective evaluated at it is lifted by 2^-40 relative
(far above its float rounding), so the value is never below the bound of BBGG-E2r at that split.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_order, check_positive, fail
from .coupling import _gaussian_shift, _laplace_shift

#: The relative lift of the split (so Σ s_i >= Delta in exact arithmetic) and of the objective (its rounding).
LIFT = 1.0 + 2.0**-40
#: Bisection steps on log g (the bracket shrinks by 2^-200: far below the float spacing).
_STEPS = 200
KINDS = ("gaussian", "laplace")


def _check_noises(noises: object) -> tuple[tuple[str, float, int], ...]:
    """The (kind, scale, count) steps, identical kinds and scales merged (their optimal shares are equal)."""
    allowed = "a non-empty sequence of (kind, scale, count) with kind 'gaussian' or 'laplace'"
    if isinstance(noises, (str, bytes)) or not isinstance(noises, Sequence) or not noises:
        raise fail("noises", allowed, noises, TypeError)
    merged: dict[tuple[str, float], int] = {}
    for step in noises:
        if not isinstance(step, (tuple, list)) or len(step) != 3 or step[0] not in KINDS:
            raise fail("noises", allowed, step, TypeError if not isinstance(step, (tuple, list)) else ValueError)
        key = (step[0], check_positive("scale", step[1]))
        merged[key] = merged.get(key, 0) + check_int("count", step[2], minimum=1)
    return tuple((kind, scale, count) for (kind, scale), count in merged.items())


def _laplace_splits(a: NDArray[np.float64], log_g: NDArray[np.float64], scales: NDArray[np.float64],
                    b_max: float) -> NDArray[np.float64]:
    """s_j(lambda = 1/b_max − e^log_g) for each order (rows) and Laplace scale (columns)."""
    a, log_g = a[:, None], log_g[:, None]
    log_w2 = np.log(a - 1.0) - np.log(2.0 * a - 1.0)
    with np.errstate(divide="ignore"):
        gap = np.log((b_max - scales) / b_max)  # -inf for the largest scale
    log_q = log_w2 + np.logaddexp(gap, np.log(scales) + log_g)
    z = (np.log1p(-np.exp(log_q)) - log_q + np.log1p(-1.0 / a)) / (2.0 * a - 1.0)
    return scales * np.maximum(z, 0.0)


def _gaussian_splits(a: NDArray[np.float64], log_g: NDArray[np.float64], sigmas: NDArray[np.float64],
                     b_max: float) -> NDArray[np.float64]:
    lam = -np.expm1(log_g + math.log(b_max)) / b_max
    return np.maximum(lam, 0.0)[:, None] * sigmas**2 / a[:, None]


def optimal_split(alpha: ArrayLike, *, sensitivity: float,
                  noises: Sequence[tuple[str, float, int]]) -> NDArray[np.float64]:
    """BBGG-E2r: the shares s of the shift, one column per merged (kind, scale) of `noises` (each of its `count`
    steps takes s), one row per finite order alpha > 1; Σ count · s >= `sensitivity` (never less).

    `noises`: (kind, scale, count) with kind ``"gaussian"`` (scale = sigma) or ``"laplace"`` (scale = b), count
    >= 1 steps, the mechanism's own noise included. Orders must be finite (alpha = inf needs no split).
    """
    a = np.atleast_1d(np.asarray(check_order("alpha", alpha), dtype=np.float64))
    if np.isinf(a).any():
        raise fail("alpha", "finite orders > 1 (alpha = inf needs no split)", alpha)
    delta = check_positive("sensitivity", sensitivity)
    steps = _check_noises(noises)
    kinds = np.array([kind for kind, _, _ in steps])
    scales = np.array([scale for _, scale, _ in steps])
    counts = np.array([count for _, _, count in steps], dtype=np.float64)
    lap, gau = kinds == "laplace", kinds == "gaussian"
    if not lap.any():  # all Gaussian: s_i ∝ sigma_i², in closed form
        weights = scales**2 / float(np.sum(counts * scales**2))
        return np.tile(delta * weights * LIFT, (a.size, 1))
    b_max = float(scales[lap].max())

    def splits(log_g: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.empty((a.size, len(steps)))
        out[:, lap] = _laplace_splits(a, log_g, scales[lap], b_max)
        out[:, gau] = _gaussian_splits(a, log_g, scales[gau], b_max)
        return out

    def total(log_g: NDArray[np.float64]) -> NDArray[np.float64]:
        return splits(log_g) @ counts

    hi = np.full(a.size, -math.log(b_max))  # lambda = 0: every share 0
    # The largest-scale Laplace alone reaches Delta once −log q >= (2a − 1) Delta/b_max + log(a/(a − 1)) + 1.
    lo = hi - (2.0 * a - 1.0) * delta / b_max + np.log1p(-1.0 / a) - 1.0 - np.log((a - 1.0) / (2.0 * a - 1.0))
    short = total(lo) < delta
    while np.any(short):  # widen where the first guess falls short (it should not)
        lo = np.where(short, lo - (hi - lo), lo)
        short = total(lo) < delta
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        reaches = total(mid) >= delta
        lo, hi = np.where(reaches, mid, lo), np.where(reaches, hi, mid)
        if np.all(hi - lo <= 4.0 * np.spacing(np.abs(lo))):
            break
    found = splits(lo)
    return found * (delta / (found @ counts))[:, None] * LIFT


def shift_reduction_rdp(alpha: ArrayLike, *, sensitivity: float,
                        noises: Sequence[tuple[str, float, int]]) -> float | NDArray[np.float64]:
    """BBGG-E2r: min over s_0 + … + s_r = Delta of Σ_i rho_i(s_i), rounded upward, for each order in (1, inf].

    rho_i is STD-GaussRenyi (alpha s²/(2 sigma²)) or STD-LapRenyi (log g_alpha(s/b)/(alpha − 1)); the split is
    `optimal_split`. At alpha = inf: Delta / (the largest Laplace scale) when there is Laplace noise (its shift
    takes everything, BBGG-L3), inf for Gaussian noise only. `noises` as in `optimal_split`; nats.
    """
    orders = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    flat = np.atleast_1d(orders).ravel()
    delta = check_positive("sensitivity", sensitivity)
    steps = _check_noises(noises)
    out = np.empty(flat.shape)
    inf = np.isinf(flat)
    laplace = [scale for kind, scale, _ in steps if kind == "laplace"]
    out[inf] = delta / max(laplace) * LIFT if laplace else math.inf
    if (~inf).any():
        finite = flat[~inf]
        shares = optimal_split(finite, sensitivity=delta, noises=steps)
        values = []
        for a, row in zip(finite, shares, strict=True):
            terms = [count * (_laplace_shift(float(a), s, scale) if kind == "laplace"
                              else _gaussian_shift(float(a), s, scale))
                     for (kind, scale, count), s in zip(steps, row, strict=True)]
            values.append(math.fsum(terms) * LIFT)
        out[~inf] = values
    out = out.reshape(orders.shape) + 0.0
    return float(out) if out.ndim == 0 else out


__all__ = ["optimal_split", "shift_reduction_rdp"]
