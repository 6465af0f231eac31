"""Intrinsic sensitivity Lambda(t) of a diffusion mechanism (BBGG-T6): closed forms and the numerical route.

BBGG-T6: under BBGG-A, M_t^f(D) = P_t(f(D)) is (alpha, alpha Lambda(t))-RDP with
``Lambda(t) = sup_{D≃D'} ∫_t^∞ kappa_{f(D), f(D')}(s) ds`` and
``kappa_{x,x'}(s) = sup_y Gamma(h_s)(y)``, ``h_s(y) = log p_s(x, y) − log p_s(x', y)`` (the log ratio is the same
for densities w.r.t. Lebesgue or w.r.t. the invariant measure). For a diffusion with diffusion matrix
``a = v vᵀ``, ``Gamma(h) = ½ ∇hᵀ a ∇h``. Closed forms: Brownian motion (BBGG-BM) ``Delta²/(4t)``, the
Ornstein–Uhlenbeck semigroup (BBGG-C7) ``theta Delta²/(2 rho² (e^(2 theta t) − 1))``. All values in nats.

The numerical route (`numerical_intrinsic_sensitivity`) maximises Gamma(h_s) over a box of y — numerically: a
multistart local search (a grid of 33 / 13 / 7 points per axis for d = 1 / 2 / 3 and the previous maximiser, then
L-BFGS-B from the best few and from the neighbours of the best unless Gamma is flat on the grid), so a sup over
the box, found not proven — with ∇h_s analytic or by fourth-order central differences (their rounding bound is
added to the reported error; a gradient lost in rounding raises rather than giving kappa = 0), and integrates
kappa over [t, ∞) by `scipy.integrate.quad` after the change of variables s = t/u, u in (0, 1]
(the tail becomes a finite interval; kappa = c/s² becomes a constant).
scipy is imported inside the functions (`import markovdp` stays light).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_callable,
    check_int,
    check_positive,
    check_range,
    check_scalar,
    check_vector,
    fail,
)
from ..diffusions.base import Semigroup
from ..diffusions.intrinsic_sensitivity import brownian_intrinsic_sensitivity, ou_intrinsic_sensitivity
from ..spaces import RealSpace

#: log_density(s, x, y): log p_s(x, y) for one point x of shape (d,) and points y of shape (n, d) → shape (n,).
LogDensity = Callable[[float, NDArray[np.float64], NDArray[np.float64]], ArrayLike]
#: carre_du_champ(y, grad): Gamma(h)(y) = ½ ∇h(y)ᵀ a(y) ∇h(y) for points y and gradients ∇h(y), both (n, d).
CarreDuChamp = Callable[[NDArray[np.float64], NDArray[np.float64]], ArrayLike]
#: gradient(s, y): ∇_y h_s(y) of the log ratio, points y of shape (n, d) → shape (n, d).
LogRatioGradient = Callable[[float, NDArray[np.float64]], ArrayLike]

#: Relative tolerance asked of `scipy.integrate.quad` (absolute tolerance 0); kappa itself carries the rounding
#: of the central differences (~1e-11 relative), so a tighter request only spends subdivisions on noise.
QUAD_EPSREL = 1e-9
#: The same with ∇h by central differences: their rounding (up to ~1e-9 relative in the tails) makes a tighter
#: request subdivide on noise (2x the evaluations on the double well), and 1e-8 is still 1% of `QUAD_ERROR_RTOL`.
QUAD_EPSREL_FD = 1e-8
#: Subinterval limit of `scipy.integrate.quad`.
QUAD_LIMIT = 200
#: `integrate_kappa` refuses a quadrature whose error estimate exceeds this fraction of its value (or that quad
#: reports as not converged): the issue's accuracy target for the numerical route is 1e-6 relative, so an
#: estimate above it means the integral is not known to that accuracy (or diverges, as ∫_t^∞ ds/s).
QUAD_ERROR_RTOL = 1e-6
#: The largest t `integrate_kappa` accepts: s = t/u over u in (0, 1] stays a double for quad's nodes.
MAX_TIME = 1e300
#: Central-difference step for ∇h, relative to the width of the box searched over y.
FD_STEP = 1e-3
#: Gamma(h_s) varying by less than this (relative) over the starting grid, plus the rounding error of its central
#: differences at the best and the worst grid point, is taken as constant in y (h_s linear in y, as for the
#: Brownian and OU semigroups) and the L-BFGS-B polish is skipped.
FLAT_RTOL = 1e-8
#: Step of the central differences of Gamma(h_s) in y that steer the L-BFGS-B polish, relative to the box width.
POLISH_STEP = 1e-4
#: Points per axis of the starting grid of the search over y, by dimension (larger d: centre and axis points).
GRID_POINTS = {1: 33, 2: 13, 3: 7}
#: L-BFGS-B polishes start from the best start, and from this many of the best grid-local maxima in other basins.
POLISH_STARTS = 3
#: Central differences whose rounding bound reaches the value of Gamma (relative error >= 1) are "lost"; such an
#: s is tolerated only where kappa(s) s (its weight in ∫ kappa ds over [s, 2s]; the whole tail ∫_s^∞ for
#: kappa ∝ s^(−2)) is below this fraction of the integral — a tenth of the accuracy target `QUAD_ERROR_RTOL` —
#: otherwise the numerical route raises. (The rounding floor itself does not decay in s, so it cannot be weighed
#: this way: a lost kappa(s) is trusted to the size of its own noise, which a kappa lost everywhere fails.)
LOST_RTOL = 1e-7


def _box(y_bounds: Any, d: int, name: str = "y_bounds") -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    try:
        lower, upper = y_bounds
    except (TypeError, ValueError) as exc:
        raise fail(name, "a pair (lower, upper) of scalars or vectors of length d", repr(y_bounds),
                   TypeError) from exc
    lo = check_vector(name, lower, d, broadcast=True)
    hi = check_vector(name, upper, d, broadcast=True)
    if not np.all(lo < hi):
        raise fail(name, "a box with lower < upper in every coordinate", f"lower {lo}, upper {hi}")
    return lo, hi


def _starts(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The starting points of the search and their spacing per axis: a GRID_POINTS[d]^d grid of the box (d <= 3),
    else the centre and the points a quarter width from it along each axis."""
    d = lo.size
    if d in GRID_POINTS:
        axes = [np.linspace(a, b, GRID_POINTS[d]) for a, b in zip(lo, hi, strict=True)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d), (hi - lo) / (GRID_POINTS[d] - 1)
    centre = 0.5 * (lo + hi)
    offsets = np.concatenate([np.diag(0.25 * (hi - lo)), np.diag(-0.25 * (hi - lo))])
    return np.vstack([centre, centre + offsets]), 0.25 * (hi - lo)


def _local_maxima(values: NDArray[np.float64], n_grid: int, d: int) -> NDArray[np.intp]:
    """Indices of the starts, best first, that are at least their axis neighbours on the grid (the first n_grid
    values; the starts after them, and all of them for d > 3, count as maxima)."""
    is_max = np.ones(values.size, dtype=bool)
    if d in GRID_POINTS:
        grid = values[:n_grid].reshape((GRID_POINTS[d],) * d)
        padded = np.pad(grid, 1, constant_values=-np.inf)
        centre = padded[(slice(1, -1),) * d]
        mask = np.ones(grid.shape, dtype=bool)
        for axis in range(d):
            for shift in (0, 2):
                index = [slice(1, -1)] * d
                index[axis] = slice(shift, shift + grid.shape[axis])
                mask &= centre >= padded[tuple(index)]
        is_max[:n_grid] = mask.reshape(-1)
    candidates = np.flatnonzero(is_max)
    return candidates[np.argsort(values[candidates])[::-1]]


class _LogRatio:
    """Gamma(h_s)(y) for h_s = log p_s(x, ·) − log p_s(x', ·), with ∇h analytic or by central differences."""

    def __init__(self, log_density: LogDensity, carre_du_champ: CarreDuChamp, x: NDArray[np.float64],
                 x_prime: NDArray[np.float64], gradient: LogRatioGradient | None, step: NDArray[np.float64]) -> None:
        self.log_density, self.carre_du_champ, self.gradient = log_density, carre_du_champ, gradient
        self.x, self.x_prime, self.step = x, x_prime, step
        shifts = np.diag(step)  # row i: step_i e_i
        self.offsets = np.concatenate([2.0 * shifts, shifts, -shifts, -2.0 * shifts])  # (4d, d)
        self.last: NDArray[np.float64] | None = None

    def _h(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """h_s at the points y, and max(|log p_s(x, y)|, |log p_s(x', y)|) (the scale of the rounding of h)."""
        values = [np.asarray(self.log_density(s, z, y), dtype=np.float64).reshape(-1) for z in (self.x, self.x_prime)]
        if values[0].shape != (y.shape[0],) or values[1].shape != (y.shape[0],):
            raise ValueError(f"`log_density(s, x, y)` must return one value per point y ({y.shape[0]}); "
                             f"got shape {values[0].shape}.")
        return values[0] - values[1], np.maximum(np.abs(values[0]), np.abs(values[1]))

    def grad(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """∇h_s at the points y, and per point a bound on the relative rounding error of Gamma = O(|∇h|²):
        0 if analytic, inf where the central differences give ∇h = 0 (lost in rounding)."""
        n, d = y.shape
        if self.gradient is not None:
            return np.asarray(self.gradient(s, y), dtype=np.float64).reshape(y.shape), np.zeros(n)
        # the fourth-order central stencil, exact for h of degree <= 4 (step `FD_STEP` x the box width)
        h, size = self._h(s, (y[:, None, :] + self.offsets[None]).reshape(-1, d))
        h = h.reshape(n, 4, d)
        g = (8.0 * (h[:, 1] - h[:, 2]) - (h[:, 0] - h[:, 3])) / (12.0 * self.step)
        norm = np.sqrt((g**2).sum(axis=1))
        # each h carries ~2 eps |log p|; the stencil multiplies it by 18/12 / step; Gamma's relative error is twice
        # the gradient's; x 10 for safety
        bound = 10.0 * 2.0 * 1.5 * 2.0 * np.finfo(np.float64).eps * size.reshape(n, 4 * d).max(axis=1) \
            / float(self.step.min())
        with np.errstate(divide="ignore"):
            return g, np.where(norm > 0.0, bound / np.where(norm > 0.0, norm, 1.0), np.inf)

    def gamma(self, s: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.gamma_and_rounding(s, y)[0]

    def gamma_and_rounding(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Gamma(h_s) at the points y and, per point, the relative rounding error of the central differences."""
        grad, rounding = self.grad(s, y)
        value = np.asarray(self.carre_du_champ(y, grad), dtype=np.float64).reshape(-1)
        if value.shape != (y.shape[0],) or np.isnan(value).any():
            raise ValueError(f"`carre_du_champ(y, grad)` must return one number per point y ({y.shape[0]}); "
                             f"got {value!r}.")
        return value, rounding

    def _objective(self, y: NDArray[np.float64], s: float, scale: float,
                   step: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """−Gamma(h_s)(y)/scale and its gradient in y by central differences, in one call of `gamma`."""
        shifts = np.diag(step)
        values = self.gamma(s, np.vstack([y, y + shifts, y - shifts]))
        d = y.size
        return -float(values[0]) / scale, -(values[1:d + 1] - values[d + 1:]) / (2.0 * step * scale)

    def kappa(self, s: float, lo: NDArray[np.float64], hi: NDArray[np.float64], polish: bool) -> tuple[float, float]:
        """(sup over the box of Gamma(h_s), the relative rounding error of Gamma at the maximiser found).

        A numerical sup: a multistart local search. Gamma on the grid of `_starts` and at the previous call's
        maximiser (kappa's maximiser moves continuously with s); unless Gamma is flat there (`FLAT_RTOL`),
        L-BFGS-B (bounds = the box) from the best point; if it does not move (a stationary point, e.g. a saddle
        between two peaks), also from the points half a grid step from it along each axis; then from each of the
        POLISH_STARTS best grid-local maxima more than a grid step from every peak found. The best value found is
        kept. A peak narrower than the grid spacing whose basin holds no start can still be missed.
        """
        grid, spacing = _starts(lo, hi)
        starts = grid if self.last is None else np.vstack([grid, self.last])
        values, rounding = self.gamma_and_rounding(s, starts)
        best, worst = int(np.argmax(values)), int(np.argmin(values))
        value, where = float(values[best]), starts[best]

        def error(i: int) -> float:  # the rounding bound of Gamma at start i, absolute (0 where Gamma = 0)
            return float(rounding[i] * values[i]) if values[i] > 0.0 else 0.0

        flat = value - float(values[worst]) <= FLAT_RTOL * abs(value) + error(best) + error(worst)
        if polish and math.isfinite(value) and not flat:
            from scipy.optimize import minimize

            scale = value if value > 0.0 else 1.0  # the objective near −1: absolute tolerances become relative

            def climb(seed: NDArray[np.float64]) -> NDArray[np.float64]:
                nonlocal value, where
                found = minimize(self._objective, seed, args=(s, scale, POLISH_STEP * (hi - lo)), jac=True,
                                 method="L-BFGS-B", bounds=list(zip(lo, hi, strict=True)),
                                 options={"ftol": 1e-13, "gtol": 1e-8, "maxiter": 100})
                if -float(found.fun) * scale > value:
                    value, where = -float(found.fun) * scale, np.asarray(found.x, dtype=np.float64)
                return np.asarray(found.x, dtype=np.float64)

            peaks = [climb(starts[best])]
            if np.all(np.abs(peaks[0] - starts[best]) <= 1e-3 * spacing):  # stuck: maybe a saddle between peaks
                shifts = np.concatenate([np.diag(0.5 * spacing), np.diag(-0.5 * spacing)])
                peaks += [climb(seed) for seed in np.clip(starts[best] + shifts, lo, hi)]
            for i in _local_maxima(values, grid.shape[0], lo.size)[:POLISH_STARTS]:
                if all(np.any(np.abs(starts[i] - peak) > spacing) for peak in peaks):  # another basin
                    peaks.append(climb(starts[i]))
        self.last = where.reshape(1, -1)
        if self.gradient is None:
            value, rounding_at = (float(v[0]) for v in self.gamma_and_rounding(s, self.last))
            return value, rounding_at
        return value, 0.0


def intrinsic_kappa(log_density: LogDensity, carre_du_champ: CarreDuChamp, x: ArrayLike, x_prime: ArrayLike,
                    s: float, *, y_bounds: Any, gradient: LogRatioGradient | None = None,
                    polish: bool = True) -> float:
    """BBGG-T6: kappa_{x,x'}(s) = sup_y Gamma(log p_s(x, ·)/p_s(x', ·))(y), the sup over the box `y_bounds`.

    Numerical: a multistart local search over the box (`_LogRatio.kappa`: a grid of 33 points per axis for d = 1,
    13 for d = 2, 7 for d = 3, then L-BFGS-B from several of them), not a proof of the sup. Raises ValueError when
    the central differences lose ∇h in rounding at the maximiser (pass `gradient`). Arguments as in
    `numerical_intrinsic_sensitivity`; `s` > 0 (time). Units: nats per unit time.
    """
    ratio, lo, hi = _prepare(log_density, carre_du_champ, x, x_prime, y_bounds, gradient)
    s = check_positive("s", s)
    value, rounding = ratio.kappa(s, lo, hi, polish)
    if rounding >= 1.0:
        raise ValueError(f"kappa(s) at s = {s!r}: the central differences lose ∇h in rounding (relative error bound "
                         f"{rounding:.3g}); pass the analytic `gradient`.")
    return value


def _prepare(log_density: Any, carre_du_champ: Any, x: ArrayLike, x_prime: ArrayLike, y_bounds: Any,
             gradient: Any) -> tuple[_LogRatio, NDArray[np.float64], NDArray[np.float64]]:
    for name, fn in (("log_density", log_density), ("carre_du_champ", carre_du_champ)):
        if not callable(fn):
            raise fail(name, "a function", type(fn).__name__, TypeError)
    if gradient is not None and not callable(gradient):
        raise fail("gradient", "None or a function (s, y) -> ∇_y log ratio", type(gradient).__name__, TypeError)
    xv = check_vector("x", x)
    xp = check_vector("x_prime", x_prime, xv.size)
    lo, hi = _box(y_bounds, xv.size)
    return _LogRatio(log_density, carre_du_champ, xv, xp, gradient, FD_STEP * (hi - lo)), lo, hi


def _scalar_in(name: str, value: Any, *, allowed: str, **interval: Any) -> float:
    """A scalar in the interval of `check_range` (TypeError for an array)."""
    arr = check_range(name, value, allowed=allowed, **interval)
    return check_scalar(name, arr if arr.ndim else float(arr), allowed)


def integrate_kappa(kappa: Callable[[float], float], t: float, *, epsrel: float = QUAD_EPSREL,
                    rtol: float = QUAD_ERROR_RTOL) -> tuple[float, float]:
    """(∫_t^∞ kappa(s) ds, quad's error estimate): s = t/u, ∫_0^1 kappa(t/u) t/u² du by `scipy.integrate.quad`.

    If quad does not converge at `epsrel` (kappa carries rounding noise), it is asked again at 0.1 `rtol`.
    Raises ValueError when quad reports that it did not converge then (subdivision limit, roundoff, divergence:
    e.g. kappa = 1/s) or when its error estimate exceeds `rtol` x the value (default `QUAD_ERROR_RTOL` = 1e-6, the
    accuracy asked of the numerical route), or when the value is not a finite number >= 0; each names `t`.
    `t` in (0, `MAX_TIME`] (beyond it s = t/u overflows), `epsrel` in [50 x machine epsilon, 1), `rtol` > 0.
    """
    check_callable("kappa", kappa, "a function s ↦ kappa(s) >= 0")
    t = _scalar_in("t", t, low=0.0, low_open=True, high=MAX_TIME,
                   allowed=f"a time in (0, {MAX_TIME:g}] (beyond it s = t/u overflows)")
    epsrel = _scalar_in("epsrel", epsrel, low=50.0 * np.finfo(np.float64).eps, high=1.0, high_open=True,
                        allowed="a relative tolerance in [50 x machine epsilon, 1)")
    rtol = check_positive("rtol", rtol)
    from scipy.integrate import quad

    def integrand(u: float) -> float:
        try:
            value = kappa(t / u)
        except ArithmeticError as exc:  # overflow or division by zero inside the caller's kappa
            raise fail("kappa", "a function that returns a float (inf allowed) at every s >= t",
                       f"{type(exc).__name__}({exc}) at s = {t / u!r}") from exc
        return 0.0 if value == 0.0 else value * (t / u) / u

    for request in (epsrel, max(epsrel, 0.1 * rtol)):  # a noisy kappa may need a looser request to converge
        out = quad(integrand, 0.0, 1.0, epsabs=0.0, epsrel=request, limit=QUAD_LIMIT, full_output=1)
        if len(out) == 3:  # converged (ier = 0)
            break
    value, error = float(out[0]), float(out[1])
    if not (math.isfinite(value) and value >= 0.0):
        raise fail("t", f"a time where ∫_t^∞ kappa(s) ds is a finite number >= 0 (quadrature gave {value!r}: kappa "
                        f"grows too fast as s → t or decays too slowly as s → ∞)", t)
    if len(out) > 3:  # quad's message: ier != 0
        raise fail("t", f"a time where the quadrature of ∫_t^∞ kappa(s) ds converges (it did not converge: value "
                        f"{value!r}, error estimate {error!r}: {' '.join(str(out[3]).split())})", t)
    if not error <= rtol * value:
        raise fail("t", f"a time where quad's error estimate of ∫_t^∞ kappa(s) ds is <= rtol = {rtol!r} x the value "
                        f"(error estimate {error!r}, value {value!r})", t)
    return value, error


def numerical_intrinsic_sensitivity(log_density: LogDensity, carre_du_champ: CarreDuChamp, x: ArrayLike,
                                    x_prime: ArrayLike, t: float, *, y_bounds: Any,
                                    gradient: LogRatioGradient | None = None, polish: bool = True) -> float:
    """BBGG-T6 for one pair of query values: ∫_t^∞ kappa_{x,x'}(s) ds (nats), kappa by optimisation over y.

    `log_density(s, x, y)`: log p_s(x, y) for a point x (shape (d,)) and points y (shape (n, d)), shape (n,)
    (w.r.t. Lebesgue or the invariant measure: the ratio is the same). `carre_du_champ(y, grad)`: Gamma(h)(y)
    from the gradient of h at y (a diffusion: ½ gradᵀ a(y) grad). `gradient(s, y)`: ∇_y h_s(y), by central
    differences when None. `y_bounds`: (lower, upper) of the box searched for the sup over y — the result is
    the sup over that box, so it bounds Lambda only when the sup over R^d is attained there (always for the
    Brownian and OU semigroups, whose Gamma(h_s) does not depend on y). `t` > 0.

    The sup over y is numerical (`intrinsic_kappa`: a multistart local search over the box, not a proof).
    Raises ValueError when the central differences lose ∇h in rounding at an s that matters (`LOST_RTOL`) or
    the quadrature is not accurate to `QUAD_ERROR_RTOL`; never returns 0 from a gradient lost in rounding.

    Lambda(t) itself is the sup over neighbouring (x, x'); for a semigroup whose kappa depends on x − x' only
    through ||x − x'|| (Brownian motion, OU) the pair x = 0, x' = Delta e_1 attains it
    (`semigroup_intrinsic_sensitivity`).
    """
    return intrinsic_sensitivity_with_error(log_density, carre_du_champ, x, x_prime, t, y_bounds=y_bounds,
                                            gradient=gradient, polish=polish)[0]


def intrinsic_sensitivity_with_error(log_density: LogDensity, carre_du_champ: CarreDuChamp, x: ArrayLike,
                                     x_prime: ArrayLike, t: float, *, y_bounds: Any,
                                     gradient: LogRatioGradient | None = None,
                                     polish: bool = True) -> tuple[float, float]:
    """`numerical_intrinsic_sensitivity` and a bound on its absolute error: (value, error), nats.

    error = quad's estimate + value x the largest relative rounding bound of the central differences of ∇h over
    the s that matter (0 with an analytic `gradient`). An s where that bound reaches 1 (∇h lost in rounding) is
    accepted only if kappa(s) s is below LOST_RTOL x the value (a far tail); else, or if the value is 0 or a
    kappa(s) = 0 lies among the resolved s, ValueError.
    """
    ratio, lo, hi = _prepare(log_density, carre_du_champ, x, x_prime, y_bounds, gradient)
    seen: list[tuple[float, float, float]] = []  # (s, kappa(s), relative rounding bound at the maximiser)

    def kappa(s: float) -> float:
        value, rounding = ratio.kappa(s, lo, hi, polish)
        seen.append((s, value, rounding))
        return value

    value, error = integrate_kappa(kappa, check_positive("t", t),
                                   epsrel=QUAD_EPSREL if gradient is not None else QUAD_EPSREL_FD)
    if gradient is not None:
        return value, error
    matters = [(s, k, r) for s, k, r in seen if s * k >= LOST_RTOL * value]
    resolved_until = max((s for s, k, r in matters if r < 1.0), default=-math.inf)
    lost = [(s, k, r) for s, k, r in matters if r >= 1.0] + [(s, k, r) for s, k, r in seen
                                                              if k == 0.0 and s <= resolved_until]
    if value == 0.0 or lost:
        where = lost[0][0] if lost else t
        raise ValueError(f"BBGG-T6 (numerical): the central differences lose ∇h in rounding at s = {where!r} (t = "
                         f"{t!r}): Lambda cannot be bounded this way; pass the analytic `gradient`.")
    return value, error + value * max(r for _, _, r in matters)


def coordinate_carre_du_champ(carre_du_champ: Callable[..., Callable[[ArrayLike], ArrayLike]],
                              dim: int) -> CarreDuChamp:
    """Gamma(h)(y) = ∇hᵀ G(y) ∇h from a semigroup's carré du champ on test functions, G_ij = Gamma(y_i, y_j).

    For a diffusion (BBGG-A(3)), Gamma(f, g) = ½ ∇fᵀ a ∇g, so its values on the coordinate functions y ↦ y_i
    are the entries of ½ a(y) (exact for central differences: the coordinates are linear). `carre_du_champ(f, g)`
    returns a callable y ↦ Gamma(f, g)(y) on points of shape (n,) (dim = 1) or (n, dim), as
    `OrnsteinUhlenbeckSemigroup.carre_du_champ` does.
    """
    if not callable(carre_du_champ):
        raise fail("carre_du_champ", "a function (f, g) -> (y -> Gamma(f, g)(y))", type(carre_du_champ).__name__,
                   TypeError)
    dim = check_int("dim", dim, minimum=1)

    def coordinate(i: int) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        return (lambda y: y) if dim == 1 else (lambda y: y[:, i])

    def gamma(y: NDArray[np.float64], grad: NDArray[np.float64]) -> NDArray[np.float64]:
        points = y[:, 0] if dim == 1 else y
        total = np.zeros(y.shape[0])
        for i in range(dim):
            for j in range(i, dim):
                g_ij = np.asarray(carre_du_champ(coordinate(i), coordinate(j))(points), dtype=np.float64).reshape(-1)
                total += (1.0 if i == j else 2.0) * g_ij * grad[:, i] * grad[:, j]
        return total

    return gamma


def semigroup_log_density(semigroup: Semigroup, dim: int) -> LogDensity:
    """`log_density(s, x, y)` of the numerical route from ``semigroup.log_density(t, x, y)`` (points of shape (n,)
    for dim = 1, (n, dim) otherwise; one x broadcast against many y)."""
    _check_semigroup(semigroup)
    dim = check_int("dim", dim, minimum=1)
    if dim != semigroup.space.size:
        raise fail("dim", f"the dimension of the semigroup's space ({semigroup.space.describe()})", dim)
    method = semigroup.log_density
    if dim == 1:
        return lambda s, x, y: method(s, x, y[:, 0])
    return lambda s, x, y: method(s, x, y)


def _check_semigroup(semigroup: Any) -> None:
    if not isinstance(semigroup, Semigroup):
        raise fail("semigroup", "a markovdp.Semigroup", type(semigroup).__name__, TypeError)


def default_y_bounds(x: NDArray[np.float64], x_prime: NDArray[np.float64], *,
                     domain: Any = None) -> tuple[NDArray[np.float64], ...]:
    """The box searched over y by default: the box of x and x' widened by w = max(||x − x'||, 1) on each side,
    clipped to `domain` = (lower, upper) (scalars or vectors) when given — the box where a semigroup's
    ``log_density`` is defined (its ``log_density_domain``) — and then moved in by 2.5 FD_STEP x the width on a
    clipped side, so that the central differences of ∇h stay in the domain."""
    x = check_vector("x", x)
    x_prime = check_vector("x_prime", x_prime, x.size)
    width = max(float(np.linalg.norm(x - x_prime)), 1.0)
    lo, hi = np.minimum(x, x_prime) - width, np.maximum(x, x_prime) + width
    if domain is None:
        return lo, hi
    d_lo, d_hi = _box(domain, x.size, "domain")
    clipped_lo, clipped_hi = np.clip(lo, d_lo, d_hi), np.clip(hi, d_lo, d_hi)
    # keep the central differences of ∇h (± 2 FD_STEP x the width) inside the domain
    margin = 2.5 * FD_STEP * (clipped_hi - clipped_lo)
    return np.where(lo < d_lo, clipped_lo + margin, clipped_lo), np.where(hi > d_hi, clipped_hi - margin, clipped_hi)


def semigroup_log_ratio_gradient(semigroup: Any, x: NDArray[np.float64],
                                 x_prime: NDArray[np.float64]) -> LogRatioGradient | None:
    """`gradient(s, y)` of the numerical route from ``semigroup.log_ratio_gradient(t, x, x_prime, y)`` (the
    analytic ∇_y log p_t(x, y)/p_t(x', y), points y of shape (n, d)); None when the semigroup has none."""
    _check_semigroup(semigroup)
    x = check_vector("x", x, semigroup.space.size)
    x_prime = check_vector("x_prime", x_prime, semigroup.space.size)
    if not semigroup.provides("log_ratio_gradient"):
        return None
    return lambda s, y: semigroup.log_ratio_gradient(s, x, x_prime, y)


def semigroup_intrinsic_sensitivity(semigroup: Semigroup, sensitivity: float, t: float, *, x: ArrayLike | None = None,
                                    x_prime: ArrayLike | None = None, y_bounds: Any = None,
                                    polish: bool = True) -> float:
    """BBGG-T6 by the numerical route for a semigroup with ``log_density(t, x, y)`` and ``carre_du_champ(f, g)``.

    The pair defaults to x = 0, x' = Delta e_1 and the box to `default_y_bounds` (clipped to the semigroup's
    ``log_density_domain`` if it has one); ∇h is the semigroup's ``log_ratio_gradient`` if it has one (Brownian
    motion and OU: exact at every t), else central differences. That one pair is the sup over
    the L2 ball when kappa_{x,x'} depends on x − x' only through ||x − x'|| and grows with it — Brownian motion and
    OU (kappa = Delta² e^(−2 theta s) rho² / s_s⁴, the same for every pair at distance Delta); for another
    semigroup pass the pairs and take the max. `sensitivity` Delta > 0 (L2), `t` > 0; nats.
    """
    delta = check_positive("sensitivity", sensitivity)
    _check_semigroup(semigroup)
    if not isinstance(semigroup.space, RealSpace):
        raise fail("semigroup", "a semigroup on R^d", f"one on {semigroup.space.describe()}", TypeError)
    dim = semigroup.space.d
    xv = np.zeros(dim) if x is None else check_vector("x", x, dim)
    xp = delta * np.eye(dim)[0] if x_prime is None else check_vector("x_prime", x_prime, dim)
    domain = semigroup.log_density_domain() if semigroup.provides("log_density_domain") else None
    bounds = default_y_bounds(xv, xp, domain=domain) if y_bounds is None else y_bounds
    return numerical_intrinsic_sensitivity(semigroup_log_density(semigroup, dim),
                                           coordinate_carre_du_champ(semigroup.carre_du_champ, dim),
                                           xv, xp, t, y_bounds=bounds, gradient=semigroup_log_ratio_gradient(
                                               semigroup, xv, xp), polish=polish)


__all__ = [
    "brownian_intrinsic_sensitivity",
    "coordinate_carre_du_champ",
    "default_y_bounds",
    "integrate_kappa",
    "intrinsic_sensitivity_with_error",
    "intrinsic_kappa",
    "numerical_intrinsic_sensitivity",
    "ou_intrinsic_sensitivity",
    "semigroup_intrinsic_sensitivity",
    "semigroup_log_density",
    "semigroup_log_ratio_gradient",
]
