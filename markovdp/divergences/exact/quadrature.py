"""The quadrature fallback for two laws on R^1 with log densities and location/scale hints.

`scipy.integrate.quad` on pieces split at the locations, at powers-of-two multiples of the scales and at
the crossings ``log p − log q = eps``, with the integrand rescaled by its maximum so values such as 1e-23
keep full relative accuracy. A law takes part by defining ``quadrature_hints()``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...distributions import Distribution
from ...spaces import RealSpace
from .registry import FALLBACKS, Array, NoRule

_EPSREL = 1e-11
_RTOL = 4 * np.finfo(float).eps
_TAIL = 100.0  # the integrand is negligible (< e^-100 of its peak) outside the window
_FAR = 1e100  # no window extends beyond ±_FAR
_GRID_T = np.sinh(np.linspace(-math.asinh(1e5), math.asinh(1e5), 2001))  # in scale units, dense near 0


def _hints(law: Distribution) -> tuple[list[float], list[float]] | None:
    return law.quadrature_hints()


def _quadrature_ready(mu: Distribution, nu: Distribution) -> bool:
    return mu.space == RealSpace(1) and _hints(mu) is not None and _hints(nu) is not None


def _log_density_1d(law: Distribution) -> Callable[[Any], Array]:
    def f(x: Any) -> Array:
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        out = np.asarray(law.log_density(x), dtype=np.float64)
        if out.shape != x.shape:  # laws whose points are rows of length 1 (e.g. Normal with mean [m])
            out = np.asarray(law.log_density(x[:, None]), dtype=np.float64)
        return out

    return f


class _Problem:
    """Shared quadrature setup for a pair of laws on R^1: densities, hints and a scan grid."""

    def __init__(self, mu: Distribution, nu: Distribution) -> None:
        (lm, sm), (ln, sn) = _hints(mu), _hints(nu)  # type: ignore[misc]
        self.locs = sorted(set(lm + ln))
        self.scales = sorted(set(sm + sn))
        self.log_p, self.log_q = _log_density_1d(mu), _log_density_1d(nu)
        grid = np.concatenate([loc + s * _GRID_T for loc in self.locs for s in self.scales])
        self.grid = np.unique(grid[np.isfinite(grid)])
        with np.errstate(invalid="ignore"):
            self.grid_lp, self.grid_lq = self.log_p(self.grid), self.log_q(self.grid)
            self.grid_loss = self.grid_lp - self.grid_lq

    def loss(self, x: float) -> float:
        with np.errstate(invalid="ignore"):
            return float(self.log_p(x)[0] - self.log_q(x)[0])

    def peak(self, h: Callable[[Array], Array], values: Array) -> tuple[float, float]:
        """(argmax, max) of the log-integrand h: grid argmax refined by bounded Brent between neighbours."""
        from scipy import optimize

        i = int(np.argmax(values))
        x_best, c = float(self.grid[i]), float(values[i])
        lo, hi = self.grid[max(i - 1, 0)], self.grid[min(i + 1, self.grid.size - 1)]
        if hi > lo and np.isfinite(h(np.array([lo]))[0]) and np.isfinite(h(np.array([hi]))[0]):
            xatol = 1e-14 * max(abs(lo), abs(hi), 1e-300)
            res = optimize.minimize_scalar(lambda x: -float(h(np.array([x]))[0]), bounds=(lo, hi),
                                           method="bounded", options={"xatol": xatol})
            if np.isfinite(res.fun) and -res.fun > c:
                x_best, c = float(res.x), float(-res.fun)
        return x_best, c

    def window(self, h: Callable[[Array], Array], values: Array, x_peak: float,
               c: float) -> tuple[float, float]:
        """An interval outside which h < c − _TAIL."""
        big = np.flatnonzero(values >= c - _TAIL)
        lo = self.grid[max(big[0] - 1, 0)] if big.size else x_peak
        hi = self.grid[min(big[-1] + 1, self.grid.size - 1)] if big.size else x_peak
        lo, hi = min(lo, x_peak), max(hi, x_peak)
        with np.errstate(over="ignore", invalid="ignore"):
            step = self.scales[0]
            while h(np.array([lo]))[0] >= c - _TAIL and lo > -_FAR:  # heavy tails beyond the grid
                lo, step = lo - step, step * 2
            step = self.scales[0]
            while h(np.array([hi]))[0] >= c - _TAIL and hi < _FAR:
                hi, step = hi + step, step * 2
        return float(lo), float(hi)

    def breakpoints(self, lo: float, hi: float, centres: list[float], extra: list[float]) -> Array:
        """Pieces for quad: the window ends, `extra` (kinks) and centre ± scale·2^k for each centre."""
        centres = [*self.locs, *centres]
        powers = self.scales[0] * 2.0 ** np.arange(0, 64)
        pts = [lo, hi, *centres, *extra]
        for centre in centres:
            pts.extend(centre + powers)
            pts.extend(centre - powers)
        pts_arr = np.unique(np.asarray(pts, dtype=np.float64))
        return pts_arr[(pts_arr >= lo) & (pts_arr <= hi)]

    def integrate(self, f: Callable[[float], float], pts: Array) -> tuple[float, float]:
        """Σ over consecutive pieces of quad(f); returns (value, error estimate)."""
        from scipy import integrate  # here, not at import: scipy.integrate costs ~0.15 s to import

        total, error = 0.0, 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                value, err = integrate.quad(f, a, b, epsabs=0.0, epsrel=_EPSREL, limit=200)
                total += value
                error += err
        return total, error


def _warn_inaccurate(value: float, error: float, what: str, *, slack: float = 0.0) -> None:
    """Warn when quad's error estimate exceeds 1e-6 of the value (+ `slack`, relative)."""
    if error > (1e-6 + slack) * abs(value) and error > 1e-300:
        warnings.warn(f"quadrature for {what} may be inaccurate: estimate {value!r}, "
                      f"error estimate {error!r}", RuntimeWarning, stacklevel=4)


def _rescaled(h: Callable[[Array], Array], c: float) -> Callable[[float], float]:
    """x ↦ exp(h(x) − c): the integrand divided by its peak e^c, so quad sees values of order 1."""
    return lambda x: math.exp(h(np.array([x]))[0] - c)


def _crossings(prob: _Problem, eps: float) -> list[float]:
    """Points where log p − log q = eps: sign changes on the scan grid, polished by brentq."""
    from scipy import optimize

    s = prob.grid_loss - eps
    ok = np.isfinite(s)
    idx = np.flatnonzero(ok[:-1] & ok[1:] & (np.sign(s[:-1]) * np.sign(s[1:]) < 0))
    roots = []
    for i in idx:
        a, b = prob.grid[i], prob.grid[i + 1]
        roots.append(optimize.brentq(lambda x: prob.loss(x) - eps, a, b, xtol=1e-300, rtol=_RTOL))
    return roots


def _hs_log_integrand(prob: _Problem, eps: float) -> Callable[[Array], Array]:
    """log [p − e^eps q]_+ = log p + log(−expm1(eps − L)) where L = log p − log q > eps.

    L within rounding of eps counts as L = eps (integrand 0): a plateau L = eps (Laplace pairs at
    eps = D/b) would otherwise integrate pure rounding noise.
    """
    def h(x: Array) -> Array:
        lp, lq = prob.log_p(x), prob.log_q(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = lp - lq
            noise = _RTOL * (np.abs(lp) + np.abs(lq) + abs(eps))
            inside = (loss > eps + noise) | (np.isposinf(loss) & np.isfinite(lp))
            factor = np.where(np.isposinf(loss), 0.0, np.log(-np.expm1(np.minimum(eps - loss, 0.0))))
            return np.where(inside, lp + factor, -np.inf)

    return h


def _quadrature_hockey_stick(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    prob = _Problem(mu, nu)
    out = np.empty(eps.shape)
    for i, e in enumerate(eps):
        h = _hs_log_integrand(prob, float(e))
        values = h(prob.grid)
        if not np.isfinite(values).any():
            out[i] = 0.0
            continue
        x_peak, c = prob.peak(h, values)
        lo, hi = prob.window(h, values, x_peak, c)
        cross = [x for x in _crossings(prob, float(e)) if lo <= x <= hi] if math.isfinite(e) else []
        # h < log p, and near a crossing h can exceed every grid value by far (a steep log p beside a
        # crossing between coarse grid points: Laplace(0, 0.01) against Normal(0, 100) at eps = 12), so the
        # rescaling takes log p at the crossings as well: exp(h − c) then cannot overflow.
        c = max([c, *(float(prob.log_p(x)[0]) for x in cross)])
        pts = prob.breakpoints(lo, hi, [x_peak], cross)
        value, err = prob.integrate(_rescaled(h, c), pts)
        _warn_inaccurate(value, err, f"the hockey-stick divergence at eps={float(e)!r}")
        out[i] = math.exp(c) * value if value > 0 else 0.0
    return out


def _quadrature_kl(mu: Distribution, nu: Distribution, _: None) -> Array:
    prob = _Problem(mu, nu)
    values = prob.grid_lp
    x_peak, c = prob.peak(prob.log_p, values)
    lo, hi = prob.window(prob.log_p, values, x_peak, c)
    pts = prob.breakpoints(lo, hi, [x_peak], [])

    def f(x: float) -> float:
        lp, lq = prob.log_p(x)[0], prob.log_q(x)[0]
        if lp == -math.inf:
            return 0.0
        return math.exp(lp - c) * (lp - lq)

    value, err = prob.integrate(f, pts)
    _warn_inaccurate(value, err, "the KL divergence")
    return np.array([math.exp(c) * value])


def _quadrature_renyi(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    prob = _Problem(mu, nu)
    out = np.empty(alpha.shape)
    for i, a in enumerate(alpha):
        if math.isinf(a):
            out[i] = _numerical_ess_sup(prob)
            continue

        def h(x: Array, a: float = float(a)) -> Array:
            # log of p^alpha q^(1−alpha), rescaled below by its maximum c
            lp, lq = prob.log_p(x), prob.log_q(x)
            with np.errstate(invalid="ignore"):
                return np.where(np.isneginf(lp), -np.inf, a * lp + (1.0 - a) * lq)

        values = h(prob.grid)
        top = int(np.argmax(values))
        if np.isposinf(values[top]) or top in (0, values.size - 1):
            # p^alpha q^(1−alpha) largest 1e5 scales away from every law: it grows in the tails and the
            # integral diverges (e.g. Gaussians with s_a² = alpha s2² + (1 − alpha) s1² <= 0)
            out[i] = math.inf
            continue
        x_peak, c = prob.peak(h, values)
        lo, hi = prob.window(h, values, x_peak, c)
        if lo <= -_FAR or hi >= _FAR:
            # not decayed by e^-100 from the peak 1e100 scales away: tails that do not decay (e.g.
            # Lap(0, 3) against Lap(1, 1) at alpha = 1.5, where the exponent's slope is 0), so +inf
            # (an upper bound in any case; there h also loses every digit to cancellation)
            out[i] = math.inf
            continue
        pts = prob.breakpoints(lo, hi, [x_peak], [])
        value, err = prob.integrate(_rescaled(h, c), pts)
        out[i] = (c + math.log(value)) / (a - 1.0) if value > 0 else math.inf
        # a relative error r of the integral moves R_alpha by r/(alpha − 1): judge that against R_alpha.
        # (At large alpha, alpha log p + (1 − alpha) log q carries rounding noise ~ alpha·ulp(log p).)
        _warn_inaccurate(value, err, f"the Rényi divergence at alpha={float(a)!r}",
                         slack=1e-6 * (a - 1.0) * abs(out[i]) + 1e-12 * (a - 1.0))
    return out


def _numerical_ess_sup(prob: _Problem) -> float:
    """R_inf = sup_x log p/q on the scan grid, refined by bounded Brent; inf if it grows at the grid ends."""
    from scipy import optimize

    loss = np.where(np.isnan(prob.grid_loss), -np.inf, prob.grid_loss)
    i = int(np.argmax(loss))
    if i in (0, loss.size - 1) or np.isposinf(loss[i]):
        return math.inf
    res = optimize.minimize_scalar(lambda x: -prob.loss(x), bounds=(prob.grid[i - 1], prob.grid[i + 1]),
                                   method="bounded", options={"xatol": 1e-13})
    return max(float(loss[i]), float(-res.fun))


def _fallback(method: Callable[[Distribution, Distribution, Any], Array]):
    def run(mu: Distribution, nu: Distribution, par: Any) -> Array:
        if not _quadrature_ready(mu, nu):
            raise NoRule("quadrature needs two laws on R^1 with log densities and location/scale hints")
        return method(mu, nu, par)

    return run


FALLBACKS.update(hockey_stick=_fallback(_quadrature_hockey_stick), kl=_fallback(_quadrature_kl),
                 renyi=_fallback(_quadrature_renyi))
