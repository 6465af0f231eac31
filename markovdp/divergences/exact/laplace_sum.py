"""Exact divergences between two shifts of one `LaplaceSum` law (BBGG-E2, BBGG-L3; STD-LapHS for one Laplace).

P = LaplaceSum(m1, l1, l2), Q = LaplaceSum(m2, l1, l2), shift Δ = |m1 − m2|, a = max(l1, l2), b = min(l1, l2).
By translation and the symmetry x ↦ −x every divergence depends on Δ only, so take P = f, Q = f(· − Δ) with f the
centred density of `markovdp.distributions.laplace_sum` (notation v, k = 1/b − 1/a, phi, rho from there).

The privacy loss L(x) = log f(x) − log f(x − Δ) is non-increasing (f is log-concave), odd about Δ/2
(L(Δ − x) = −L(x)) and, left of 0 with u = −x,

    L(−u) = Δ/a − log1p(w(u)),   w(u) = e^(−k u) (Δ/a) phi(k Δ) / (1 + v(u)) ∈ (0, Δ/(a + u)],

so sup L = Δ/a is approached in the tail but never attained: R_inf = Δ/max(l1, l2) exactly (BBGG-L3) and
E_{e^eps} = 0 exactly for eps >= Δ/a. On [0, Δ/2], L(x) = (Δ − 2x)/a + log1p(v(x)) − log1p(v(Δ − x)).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..._validation import check_eps, check_order, check_positive, check_range, fail
from ...distributions.laplace_sum import LaplaceSum, _phi
from .registry import Array, NoRule, register

_TAIL = 80.0  # the integrands are truncated where they fall below e^-80 of their peak
_EPS_MACH = float(np.finfo(float).eps)
_RTOL = 4 * _EPS_MACH


class _ShiftPair:
    """f against f(· − Δ) for the centred LaplaceSum density f with scales a >= b (module docstring)."""

    def __init__(self, dist: float, a: float, b: float) -> None:
        self.dist, self.a, self.b = dist, a, b
        self.k = (a - b) / (a * b)
        self.z = dist / a  # sup of the privacy loss (BBGG-L3)
        self.w0 = self.z * float(_phi(self.k * dist))  # w(0) = v(Δ)

    def v(self, u: Array) -> Array:
        return (u / self.a) * _phi(self.k * u)

    def log_f(self, x: Array) -> Array:
        u = np.abs(x)
        return -u / self.a - math.log(2.0 * (self.a + self.b)) + np.log1p(self.v(u))

    def log_sf(self, u: Array) -> Array:
        """log P(X > u) for u >= 0 (X ~ f)."""
        return -u / self.a - math.log(2.0) + np.log1p(self.b / (self.a + self.b) * self.v(u))

    def log_w(self, u: Array) -> Array:
        return -self.k * u + math.log(self.w0) - np.log1p(self.v(u))

    def loss(self, x: Array) -> Array:
        """L(x) for x <= Δ/2 (>= 0 there), each side by its cancellation-free form."""
        x = np.asarray(x, dtype=np.float64)
        u = np.maximum(-x, 0.0)
        left = self.z - np.log1p(np.exp(self.log_w(u)))
        t = np.clip(x, 0.0, self.dist / 2.0)
        middle = (self.dist - 2.0 * t) / self.a + np.log1p(self.v(t)) - np.log1p(self.v(self.dist - t))
        return np.maximum(np.where(x <= 0.0, left, middle), 0.0)


# ------------------------------------------------------------------------------------------ hockey-stick
def _scales(dist: float, a: float, b: float) -> tuple[float, float, float]:
    """Checked (Δ, a, b): Δ >= 0 finite, a >= b > 0 finite (a the larger of the two scales)."""
    d = float(check_range("dist", dist, low=0.0, allowed=">= 0 and finite (a distance |m1 − m2|)"))
    a, b = check_positive("a", a), check_positive("b", b)
    if b > a:
        raise fail("b", f"<= a = {a!r} (a is the larger of the two scales)", b)
    return d, a, b


def _as_output(values: Array, shape: tuple[int, ...]) -> float | Array:
    out = values.reshape(shape)
    return float(out) if out.ndim == 0 else out


def laplace_sum_hockey_stick(dist: float, a: float, b: float, eps: ArrayLike) -> float | Array:
    """E_{e^eps}(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)) for `dist` Δ >= 0, scales a >= b > 0 and eps >= 0
    (``inf`` allowed; scalar or array). THEORY: BBGG-E2, BBGG-L3 (STD-LapHS); the method: `_hockey_stick`."""
    d, a, b = _scales(dist, a, b)
    values = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    return _as_output(_hockey_stick(d, a, b, values.ravel()), values.shape)


def _hockey_stick(dist: float, a: float, b: float, eps: Array) -> Array:
    """E_{e^eps}(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)), a >= b. THEORY: BBGG-E2, BBGG-L3 (STD-LapHS).

    The loss is monotone, so the optimal event is a half-line {x <= t} with L(t) = eps, and the value is
    F(t) − e^eps F(t − Δ). It is exactly 0 for eps >= Δ/a (the loss never reaches Δ/a). For
    L(0) <= eps < Δ/a, t = −u <= 0 solves w(u) = expm1(Δ/a − eps) (in closed form u = Δ/w − a when a = b,
    else by Brent's method on log w, bracketed by u <= Δ/w and u <= log(w(0)/w)/k), and at the root the
    value is ``Δ phi(kΔ) e^(−u/b) / (2 (a + b) (1 + v(u + Δ)))`` — a product of positive terms, evaluated in
    log space, so there is no cancellation however close eps is to Δ/a. For eps < L(0), t ∈ (0, Δ/2] by
    Brent's method on L and the value is (1 − S(t)) − e^eps S(Δ − t) (absolute error ~1e-16; at eps = 0 the TV
    1 − 2 S(Δ/2) is taken as −expm1(log 2 + log S(Δ/2)), relative accuracy for tiny Δ too).
    """
    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    if dist == 0.0:
        return out
    pair = _ShiftPair(dist, a, b)
    l0 = float(pair.loss(np.array([0.0]))[0])
    for n, e in enumerate(eps):
        if not e < pair.z:
            continue  # exactly 0: E_gamma vanishes once gamma exceeds the ess sup of the ratio
        out[n] = _hs_left(pair, float(e)) if e >= l0 else _hs_middle(pair, float(e))
    return np.clip(out, 0.0, 1.0) + 0.0


def _hs_left(pair: _ShiftPair, eps: float) -> float:
    """L(0) <= eps < Δ/a: the event is {x <= −u} with w(u) = expm1(Δ/a − eps); the value at the root."""
    from scipy import optimize  # here, not at import (scipy.optimize is heavy)

    dist, a, b = pair.dist, pair.a, pair.b
    target = math.log(math.expm1(pair.z - eps))
    if pair.k == 0.0:
        u = max(dist / math.exp(target) - a, 0.0)  # w(u) = Δ/(a + u)
    else:
        def excess(x: float) -> float:
            return float(pair.log_w(np.array([x]))[0]) - target

        hi = max(min(dist / math.exp(target), (math.log(pair.w0) - target) / pair.k), 1e-300)
        while excess(hi) > 0.0:
            hi *= 2.0
        u = 0.0 if excess(0.0) <= 0.0 else optimize.brentq(excess, 0.0, hi, xtol=1e-300, rtol=_RTOL)
    log_value = (math.log(dist * float(_phi(pair.k * dist)) / (2.0 * (a + b))) - u / b
                 - math.log1p(float(pair.v(np.array([u + dist]))[0])))
    return math.exp(log_value)


def _hs_middle(pair: _ShiftPair, eps: float) -> float:
    """0 <= eps < L(0): the event is {x <= t}, t in (0, Δ/2] with L(t) = eps."""
    from scipy import optimize

    dist, a, b = pair.dist, pair.a, pair.b
    if eps == 0.0:  # TV = 1 − 2 S(Δ/2) = −expm1(log 2 + log S(Δ/2)): relative accuracy also for tiny Δ
        half = dist / 2.0
        return -math.expm1(-half / a + math.log1p(b / (a + b) * float(pair.v(np.array([half]))[0])))
    t = optimize.brentq(lambda x: float(pair.loss(np.array([x]))[0]) - eps, 0.0, dist / 2.0, xtol=1e-300,
                        rtol=_RTOL)
    log_s = pair.log_sf(np.array([t, dist - t]))
    return -math.expm1(float(log_s[0])) - math.exp(eps + float(log_s[1]))


# ------------------------------------------------------------------------------------------ Rényi and KL
def log_half_line_integral(h: Callable[[Array], Array], *, scale: float, step: float, half: float, reach: float,
                           what: str, scan: tuple[int, int] = (1500, 65)) -> float:
    """log ∫_{−inf}^{half} e^h, by Gauss–Legendre on pieces with the integrand rescaled by its peak.

    The peak of h is found on a scan (`scan` = points left of 0, points on [0, half]) out to `reach` left of 0
    (which must exceed its distance from 0); the pieces end at 0 (the kink of f), half and peak ± step 2^j
    (j >= −3; `step` the smaller scale: w decays at rate <= 1/step), within [x_end, half], x_end being past the
    peak with h(x_end) < peak − 80 (found in steps of `scale`, the largest scale). On such pieces e^h varies by
    at most a factor about e^(2^j) away from the peak, where the 40-point rule is exact to rounding; the
    20-point rule on the same pieces estimates the error, and a RuntimeWarning is raised if the two differ by
    more than 1e-10 relative (plus 64 ulps of the peak value c: the rounding of h itself when c is huge, e.g.
    1e7 at alpha = 1e3, Δ/a = 1e4). Shared by the Laplace-sum and noise-chain pairs (`noise_chain`).
    """
    a = scale
    grid = np.concatenate([-a * np.sinh(np.linspace(0.0, math.asinh(reach / a), scan[0])),
                           np.linspace(0.0, half, scan[1])])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = np.nan_to_num(h(grid), nan=-np.inf)
        top = int(np.argmax(values))
        x_peak, c = float(grid[top]), float(values[top])
        x_end = float(grid[values >= c - _TAIL].min()) - a
        while h(np.array([x_end]))[0] >= c - _TAIL:
            x_end = 2.0 * x_end - a
        powers = step * 2.0 ** np.arange(-3, 64)
        pts = np.unique(np.concatenate([[x_end, 0.0, half, x_peak], x_peak - powers, x_peak + powers]))
        pts = pts[(pts >= x_end) & (pts <= half)]
        mid, width = (pts[1:] + pts[:-1]) / 2.0, (pts[1:] - pts[:-1]) / 2.0
        nodes = [(mid[:, None] + width[:, None] * x).ravel() for x, _ in _RULES]
        both = np.nan_to_num(h(np.concatenate(nodes)), nan=-np.inf) - c  # one call of h for both rules
        parts = np.split(both, [nodes[0].size])
        totals = [float(np.sum(width * (np.exp(part).reshape(mid.size, w.size) @ w)))
                  for part, (_, w) in zip(parts, _RULES, strict=True)]
    total, coarse = totals
    if abs(total - coarse) > (1e-10 + 64 * _EPS_MACH * abs(c)) * total:  # h itself is rounded to ~ulp(c)
        warnings.warn(f"quadrature for {what} may be inaccurate: the 20- and 40-point rules give {coarse!r} and "
                      f"{total!r} (times e^{c!r})", RuntimeWarning, stacklevel=3)
    return c + math.log(total) if total > 0.0 else -math.inf


def _log_integral(pair: _ShiftPair, h: Callable[[Array], Array], reach: float, what: str) -> float:
    """`log_half_line_integral` for the pair's h: largest scale a, smaller scale b, up to Δ/2."""
    return log_half_line_integral(h, scale=pair.a, step=pair.b, half=pair.dist / 2.0, reach=reach, what=what)


#: Gauss–Legendre rules on [−1, 1]: 40 points (the value) and 20 points (its error estimate).
_RULES = (np.polynomial.legendre.leggauss(40), np.polynomial.legendre.leggauss(20))


def log_expm1(y: Array) -> Array:
    """log(e^y − 1) for y > 0, without overflow."""
    return y + np.log(-np.expm1(-y))


def laplace_sum_renyi(dist: float, a: float, b: float, alpha: ArrayLike) -> float | Array:
    """R_alpha(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)) for `dist` Δ >= 0, scales a >= b > 0 and alpha in
    (1, inf] (scalar or array), in nats. THEORY: BBGG-E2."""
    d, a, b = _scales(dist, a, b)
    values = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    return _as_output(_renyi(d, a, b, values.ravel()), values.shape)


def _renyi(dist: float, a: float, b: float, alpha: Array) -> Array:
    """R_alpha(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)), a >= b, alpha in (1, inf]. THEORY: BBGG-E2.

    No closed form is known; by the oddness of L about Δ/2,
    ``∫ p^alpha q^(1−alpha) − 1 = ∫_{x < Δ/2} f(x) expm1((alpha − 1) L(x)) (−expm1(−alpha L(x))) dx =: I``,
    a positive integrand (no cancellation, also as R_alpha → 0), integrated in log space by quad
    (`_log_integral`, relative tolerance 1e-13, warned above 1e-9). R_alpha = log1p(I)/(alpha − 1), so a
    relative error r of I moves R_alpha by at most r/(alpha − 1) in absolute terms (and by r relative at
    small R_alpha). The value is clipped to [0, Δ/a]; alpha = inf gives Δ/a exactly (BBGG-L3).
    """
    out = np.empty(alpha.shape)
    pair = _ShiftPair(dist, a, b) if dist > 0.0 else None
    for n, al in enumerate(alpha):
        if pair is None:
            out[n] = 0.0
        elif math.isinf(al):
            out[n] = pair.z
        else:
            def h(x: Array, al: float = float(al)) -> Array:
                loss = pair.loss(x)
                return pair.log_f(x) + log_expm1((al - 1.0) * loss) + np.log(-np.expm1(-al * loss))

            log_i = _log_integral(pair, h, (al - 1.0) * dist + 200.0 * a, f"the Rényi divergence at alpha={al!r}")
            out[n] = min(max(float(np.logaddexp(0.0, log_i)) / (al - 1.0), 0.0), pair.z)
    return out


def laplace_sum_kl(dist: float, a: float, b: float) -> float:
    """KL(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)) for `dist` Δ >= 0 and scales a >= b > 0, in nats.
    THEORY: BBGG-E2."""
    return _kl(*_scales(dist, a, b))


def _kl(dist: float, a: float, b: float) -> float:
    """KL(LaplaceSum(0, a, b) || LaplaceSum(dist, a, b)) = ∫_{x < Δ/2} f L (−expm1(−L)) dx (oddness of L
    about Δ/2: a positive integrand), by quad as in `laplace_sum_renyi`; clipped to [0, Δ/a]."""
    if dist == 0.0:
        return 0.0
    pair = _ShiftPair(dist, a, b)

    def h(x: Array) -> Array:
        loss = pair.loss(x)
        return pair.log_f(x) + np.log(loss) + np.log(-np.expm1(-loss))

    return min(max(math.exp(_log_integral(pair, h, 200.0 * a, "the KL divergence")), 0.0), pair.z)


# ------------------------------------------------------------------------------------------ registration
def _shift(mu: LaplaceSum, nu: LaplaceSum) -> tuple[float, float, float]:
    """(Δ, a, b) for two LaplaceSum laws with the same pair of scales; NoRule otherwise."""
    if mu.scales != nu.scales:
        raise NoRule(f"the LaplaceSum rules need the same two scales (got {mu.scales!r} and {nu.scales!r})")
    return abs(mu.loc - nu.loc), *mu.scales


@register("hockey_stick", "closed_form", (LaplaceSum, LaplaceSum))
def _hs_laplace_sum(mu: LaplaceSum, nu: LaplaceSum, eps: Array) -> Array:
    if mu.scales != nu.scales and np.all(np.isinf(eps)):
        return np.zeros(eps.shape)  # D_inf = 0: both laws have positive densities everywhere
    return _hockey_stick(*_shift(mu, nu), eps)


@register("renyi", "closed_form", (LaplaceSum, LaplaceSum))
def _renyi_laplace_sum(mu: LaplaceSum, nu: LaplaceSum, alpha: Array) -> Array:
    return _renyi(*_shift(mu, nu), alpha)


@register("kl", "closed_form", (LaplaceSum, LaplaceSum))
def _kl_laplace_sum(mu: LaplaceSum, nu: LaplaceSum, _: None) -> Array:
    return np.array([_kl(*_shift(mu, nu))])


__all__ = ["laplace_sum_hockey_stick", "laplace_sum_kl", "laplace_sum_renyi"]
