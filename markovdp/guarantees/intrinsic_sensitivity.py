"""Intrinsic sensitivity Lambda(t) of a diffusion mechanism (BBGG-T6): closed forms and the numerical route.

BBGG-T6: under BBGG-A, M_t^f(D) = P_t(f(D)) is (alpha, alpha Lambda(t))-RDP with
``Lambda(t) = sup_{D≃D'} ∫_t^∞ kappa_{f(D), f(D')}(s) ds`` and
``kappa_{x,x'}(s) = sup_y Gamma(h_s)(y)``, ``h_s(y) = log p_s(x, y) − log p_s(x', y)`` (the log ratio is the same
for densities w.r.t. Lebesgue or w.r.t. the invariant measure). For a diffusion with diffusion matrix
``a = v vᵀ``, ``Gamma(h) = ½ ∇hᵀ a ∇h``. Closed forms: Brownian motion (BBGG-BM) ``Delta²/(4t)``, the
Ornstein–Uhlenbeck semigroup (BBGG-C7) ``theta Delta²/(2 rho² (e^(2 theta t) − 1))``. All values in nats.

The numerical route (`numerical_intrinsic_sensitivity`) maximises Gamma(h_s) over a box of y (a grid and the
previous maximiser, then L-BFGS-B from the best of them unless Gamma is flat on the grid), with ∇h_s analytic or by
fourth-order central differences, and integrates kappa over [t, ∞) by `scipy.integrate.quad` after the change of
variables s = t/u, u in (0, 1] (the tail becomes a finite interval; kappa = c/s² becomes a constant).
scipy is imported inside the functions (`import markovdp` stays light).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_positive, check_range, check_vector, fail

#: log_density(s, x, y): log p_s(x, y) for one point x of shape (d,) and points y of shape (n, d) → shape (n,).
LogDensity = Callable[[float, NDArray[np.float64], NDArray[np.float64]], ArrayLike]
#: carre_du_champ(y, grad): Gamma(h)(y) = ½ ∇h(y)ᵀ a(y) ∇h(y) for points y and gradients ∇h(y), both (n, d).
CarreDuChamp = Callable[[NDArray[np.float64], NDArray[np.float64]], ArrayLike]
#: gradient(s, y): ∇_y h_s(y) of the log ratio, points y of shape (n, d) → shape (n, d).
LogRatioGradient = Callable[[float, NDArray[np.float64]], ArrayLike]

#: Relative tolerance asked of `scipy.integrate.quad` (absolute tolerance 0); kappa itself carries the rounding
#: of the central differences (~1e-11 relative), so a tighter request only spends subdivisions on noise.
QUAD_EPSREL = 1e-9
#: Subinterval limit of `scipy.integrate.quad`.
QUAD_LIMIT = 200
#: Central-difference step for ∇h, relative to the width of the box searched over y.
FD_STEP = 1e-3
#: Gamma(h_s) varying by less than this (relative) over the starting grid, or by less than the rounding error of
#: its central differences, is taken as constant in y (h_s linear in y, as for the Brownian and OU semigroups)
#: and the L-BFGS-B polish is skipped.
FLAT_RTOL = 1e-8
#: Step of the central differences of Gamma(h_s) in y that steer the L-BFGS-B polish, relative to the box width.
POLISH_STEP = 1e-4
#: Points per axis of the starting grid of the search over y (d <= 3; larger d: centre and axis points).
GRID_POINTS = 5


def _time(name: str, t: float) -> float:
    """A time t >= 0 (finite scalar)."""
    return float(check_range(name, t, low=0.0, allowed=">= 0 and finite").reshape(()))


def brownian_intrinsic_sensitivity(sensitivity: float, t: float) -> float:
    """BBGG-BM: Lambda(t) = Delta²/(4t) for dX = √2 dW (the Gaussian mechanism with sigma² = 2t); inf at t = 0.

    `sensitivity` Delta > 0 (L2), `t` >= 0.
    """
    delta = check_positive("sensitivity", sensitivity)
    t = _time("t", t)
    if t == 0.0:
        return math.inf
    return delta * (delta / (4.0 * t))


def ou_intrinsic_sensitivity(theta: float, rho: float, sensitivity: float, t: float) -> float:
    """BBGG-C7: Lambda(t) = theta Delta² / (2 rho² (e^(2 theta t) − 1)) for dX = −theta X dt + √2 rho dW.

    Evaluated as ``c / expm1(2 theta t)`` with c = theta Delta²/(2 rho²) where that is a normal float, and
    otherwise in log space, ``exp(log c − 2 theta t − log(−expm1(−2 theta t)))``: finite and correct at huge theta t
    (0 only when the value underflows). inf at t = 0. `theta`, `rho`, `sensitivity` > 0, `t` >= 0.
    """
    theta = check_positive("theta", theta)
    rho = check_positive("rho", rho)
    delta = check_positive("sensitivity", sensitivity)
    t = _time("t", t)
    x = 2.0 * theta * t
    if x == 0.0:
        return math.inf
    with np.errstate(over="ignore", under="ignore"):
        c = theta * (delta / rho) ** 2 / 2.0
        if x < 700.0 and math.isfinite(c) and c > 0.0:
            value = c / math.expm1(x)
            if np.finfo(np.float64).tiny <= value < math.inf:
                return value
        log_c = math.log(theta) + 2.0 * (math.log(delta) - math.log(rho)) - math.log(2.0)
        return float(np.exp(log_c - x - math.log(-math.expm1(-x))))


def _box(y_bounds: Any, d: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    try:
        lower, upper = y_bounds
    except (TypeError, ValueError) as exc:
        raise fail("y_bounds", "a pair (lower, upper) of scalars or vectors of length d", repr(y_bounds),
                   TypeError) from exc
    lo = check_vector("y_bounds", lower, d, broadcast=True)
    hi = check_vector("y_bounds", upper, d, broadcast=True)
    if not np.all(lo < hi):
        raise fail("y_bounds", "a box with lower < upper in every coordinate", f"lower {lo}, upper {hi}")
    return lo, hi


def _starts(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """The starting points of the search: a GRID_POINTS^d grid of the box (d <= 3), else centre and axis points."""
    d = lo.size
    if d <= 3:
        axes = [np.linspace(a, b, GRID_POINTS) for a, b in zip(lo, hi, strict=True)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
    centre = 0.5 * (lo + hi)
    offsets = np.concatenate([np.diag(0.25 * (hi - lo)), np.diag(-0.25 * (hi - lo))])
    return np.vstack([centre, centre + offsets])


class _LogRatio:
    """Gamma(h_s)(y) for h_s = log p_s(x, ·) − log p_s(x', ·), with ∇h analytic or by central differences."""

    def __init__(self, log_density: LogDensity, carre_du_champ: CarreDuChamp, x: NDArray[np.float64],
                 x_prime: NDArray[np.float64], gradient: LogRatioGradient | None, step: NDArray[np.float64]) -> None:
        self.log_density, self.carre_du_champ, self.gradient = log_density, carre_du_champ, gradient
        self.x, self.x_prime, self.step = x, x_prime, step
        shifts = np.diag(step)  # row i: step_i e_i
        self.offsets = np.concatenate([2.0 * shifts, shifts, -shifts, -2.0 * shifts])  # (4d, d)
        self.last: NDArray[np.float64] | None = None

    def _h(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """h_s at the points y, and the largest |log p_s| met (the scale of the rounding error of h)."""
        values = [np.asarray(self.log_density(s, z, y), dtype=np.float64).reshape(-1) for z in (self.x, self.x_prime)]
        if values[0].shape != (y.shape[0],) or values[1].shape != (y.shape[0],):
            raise ValueError(f"`log_density(s, x, y)` must return one value per point y ({y.shape[0]}); "
                             f"got shape {values[0].shape}.")
        return values[0] - values[1], float(max(np.abs(values[0]).max(), np.abs(values[1]).max()))

    def grad(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """∇h_s at the points y, and a bound on the relative rounding error of Gamma = O(|∇h|²) (0 if analytic)."""
        if self.gradient is not None:
            return np.asarray(self.gradient(s, y), dtype=np.float64).reshape(y.shape), 0.0
        # the fourth-order central stencil, exact for h of degree <= 4 (step `FD_STEP` x the box width)
        n, d = y.shape
        h, size = self._h(s, (y[:, None, :] + self.offsets[None]).reshape(-1, d))
        h = h.reshape(n, 4, d)
        g = (8.0 * (h[:, 1] - h[:, 2]) - (h[:, 0] - h[:, 3])) / (12.0 * self.step)
        norm = float(np.sqrt((g**2).sum(axis=1)).min())
        # each h carries ~2 eps |log p|; the stencil multiplies it by 18/12 / step; Gamma's relative error is twice
        # the gradient's; x 10 for safety
        rounding = 10.0 * 2.0 * 1.5 * 2.0 * np.finfo(np.float64).eps * size / (float(self.step.min()) * norm) \
            if norm > 0.0 else math.inf
        return g, rounding

    def gamma(self, s: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.gamma_and_rounding(s, y)[0]

    def gamma_and_rounding(self, s: float, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """Gamma(h_s) at the points y and the relative rounding error of the central differences."""
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

    def kappa(self, s: float, lo: NDArray[np.float64], hi: NDArray[np.float64], polish: bool) -> float:
        """sup over the box of Gamma(h_s): the best of a grid and of the previous call's maximiser (kappa's
        maximiser moves continuously with s), then L-BFGS-B from it (bounds = the box) unless Gamma is flat on
        the grid (`FLAT_RTOL`)."""
        starts = _starts(lo, hi) if self.last is None else np.vstack([_starts(lo, hi), self.last])
        values, rounding = self.gamma_and_rounding(s, starts)
        best = int(np.argmax(values))
        value, where = float(values[best]), starts[best]
        flat = value - float(values.min()) <= max(FLAT_RTOL, rounding) * abs(value)
        if polish and math.isfinite(value) and not flat:
            from scipy.optimize import minimize

            scale = value if value > 0.0 else 1.0  # the objective near −1: absolute tolerances become relative
            found = minimize(self._objective, where, args=(s, scale, POLISH_STEP * (hi - lo)), jac=True,
                             method="L-BFGS-B", bounds=list(zip(lo, hi, strict=True)),
                             options={"ftol": 1e-13, "gtol": 1e-8, "maxiter": 100})
            if -float(found.fun) * scale > value:
                value, where = -float(found.fun) * scale, np.asarray(found.x, dtype=np.float64)
        self.last = where.reshape(1, -1)
        return value


def intrinsic_kappa(log_density: LogDensity, carre_du_champ: CarreDuChamp, x: ArrayLike, x_prime: ArrayLike,
                    s: float, *, y_bounds: Any, gradient: LogRatioGradient | None = None,
                    polish: bool = True) -> float:
    """BBGG-T6: kappa_{x,x'}(s) = sup_y Gamma(log p_s(x, ·)/p_s(x', ·))(y), the sup over the box `y_bounds`.

    Arguments as in `numerical_intrinsic_sensitivity`; `s` > 0 (time). Units: nats per unit time.
    """
    ratio, lo, hi = _prepare(log_density, carre_du_champ, x, x_prime, y_bounds, gradient)
    return ratio.kappa(check_positive("s", s), lo, hi, polish)


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


def integrate_kappa(kappa: Callable[[float], float], t: float) -> tuple[float, float]:
    """(∫_t^∞ kappa(s) ds, quad's error estimate): s = t/u, ∫_0^1 kappa(t/u) t/u² du by `scipy.integrate.quad`."""
    from scipy.integrate import quad

    t = check_positive("t", t)

    def integrand(u: float) -> float:
        value = kappa(t / u)
        return 0.0 if value == 0.0 else value * (t / u) / u

    value, error = quad(integrand, 0.0, 1.0, epsabs=0.0, epsrel=QUAD_EPSREL, limit=QUAD_LIMIT)
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"∫_t^∞ kappa(s) ds must be a finite number >= 0; quadrature gave {value!r} at t = {t!r} "
                         f"(kappa grows too fast as s → t or decays too slowly as s → ∞).")
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
    """`numerical_intrinsic_sensitivity` and quad's estimate of its absolute error: (value, error), nats."""
    ratio, lo, hi = _prepare(log_density, carre_du_champ, x, x_prime, y_bounds, gradient)
    return integrate_kappa(lambda s: ratio.kappa(s, lo, hi, polish), t)


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


def semigroup_log_density(semigroup: Any, dim: int) -> LogDensity:
    """`log_density(s, x, y)` of the numerical route from ``semigroup.log_density(t, x, y)`` (points of shape (n,)
    for dim = 1, (n, dim) otherwise; one x broadcast against many y)."""
    method = getattr(semigroup, "log_density", None)
    if not callable(method):
        raise fail("semigroup", "a semigroup with a log_density(t, x, y) method", type(semigroup).__name__, TypeError)
    if dim == 1:
        return lambda s, x, y: method(s, x, y[:, 0])
    return lambda s, x, y: method(s, x, y)


def default_y_bounds(x: NDArray[np.float64], x_prime: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """The box searched over y by default: the box of x and x' widened by w = max(||x − x'||, 1) on each side."""
    width = max(float(np.linalg.norm(x - x_prime)), 1.0)
    return np.minimum(x, x_prime) - width, np.maximum(x, x_prime) + width


def semigroup_intrinsic_sensitivity(semigroup: Any, sensitivity: float, t: float, *, x: ArrayLike | None = None,
                                    x_prime: ArrayLike | None = None, y_bounds: Any = None,
                                    polish: bool = True) -> float:
    """BBGG-T6 by the numerical route for a semigroup with ``log_density(t, x, y)`` and ``carre_du_champ(f, g)``.

    The pair defaults to x = 0, x' = Delta e_1 and the box to `default_y_bounds`. That one pair is the sup over
    the L2 ball when kappa_{x,x'} depends on x − x' only through ||x − x'|| and grows with it — Brownian motion and
    OU (kappa = Delta² e^(−2 theta s) rho² / s_s⁴, the same for every pair at distance Delta); for another
    semigroup pass the pairs and take the max. `sensitivity` Delta > 0 (L2), `t` > 0; nats.
    """
    delta = check_positive("sensitivity", sensitivity)
    space = getattr(semigroup, "space", None)
    dim = getattr(space, "size", None)
    if not isinstance(dim, int):
        raise fail("semigroup", "a semigroup on R^d (with a `space` of some size d)", type(semigroup).__name__,
                   TypeError)
    xv = np.zeros(dim) if x is None else check_vector("x", x, dim)
    xp = delta * np.eye(dim)[0] if x_prime is None else check_vector("x_prime", x_prime, dim)
    bounds = default_y_bounds(xv, xp) if y_bounds is None else y_bounds
    return numerical_intrinsic_sensitivity(semigroup_log_density(semigroup, dim),
                                           coordinate_carre_du_champ(semigroup.carre_du_champ, dim),
                                           xv, xp, t, y_bounds=bounds, polish=polish)


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
]
