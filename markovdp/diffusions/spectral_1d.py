"""BBGG-T6-1D: the intrinsic sensitivity Lambda(t) of BBGG-T6 for any one-dimensional SDE, from its coefficients.

For dX = u(X) dt + v(X) dW on R (a = v², a > 0): the generator ``L f = u f' + ½ a f'' = (pi a f')' / (2 pi)`` is
symmetric in L²(pi) for ``pi ∝ a^{-1} exp(Phi)``, ``Phi = ∫ 2u/a``; Gamma(f) = ½ a (f')² (BBGG-S, BBGG-A). This
module

- finds where pi lives (`invariant_window`: pi normalisable, the boundaries ±inf not attracting, the pi mass
  outside the grid measured), or refuses with the reason;
- discretises L by finite volumes reversible w.r.t. the discretised pi (cell fluxes ``(pi a)_{i+½} (f_{i+1} −
  f_i)/(2 h² pi_i)``): its similarity transform D^{½} L_h D^{−½} is a symmetric tridiagonal matrix, whose
  eigen-decomposition (LAPACK dstemr, the modes with e^{t mu} >= e^{−MODE_CUTOFF}) gives
  ``p_s(x, y)/pi(y) = 1 + Σ_k e^{s mu_k} psi_k(x) psi_k(y)`` on the nodes (`spectral_grid`, cached per SDE and grid);
- computes ``kappa_{x,x'}(s) = sup_y ½ a(y) (∂_y log p_s(x, y)/p_s(x', y))²`` on the nodes and
  ``Lambda(t) = sup_{|x − x'| = Delta} ∫_t^∞ kappa ds`` on nested grids (h, h/2, h/4, … until the grid error is
  below TOLERANCE x Lambda), extrapolates (Richardson) and adds the measured grid error
  (`spectral_intrinsic_sensitivity`).

scipy and numba are imported inside the functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import check_positive, fail
from .sde import SDE, arity

#: Points of each probe grid that looks for the invariant density, and its half-widths (doubled until pi decays).
PROBE_POINTS = 4001
PROBE_HALF_WIDTHS = tuple(2.0**k for k in range(17))
#: The grid covers the y where log pi >= max log pi − TAIL_LOG (pi above 2e-16 of its peak): the reflecting walls
#: of the grid chain sit where the process hardly goes.
TAIL_LOG = 36.0
#: Query values x, x' scanned: where pi >= e^(−QUERY_LOG) (1e-3) of its peak.
QUERY_LOG = 3.0 * math.log(10.0)
#: The scale function exp(−Phi) must not converge at ±inf (a non-attracting boundary, BBGG-A(1)): its integral over
#: [2R, 4R] must be at least this fraction of that over [R, 2R] (convergent ~1/x²: 1/2; divergent ~1/x: 1).
SCALE_RATIO = 0.75
#: kappa(s) is the max over the nodes y where both p_s(x, ·) and p_s(x', ·) are above this fraction of their peaks
#: (below it the spectral sum's rounding reaches ~1e-6 of the value).
RELIABLE_FRACTION = 1e-8
#: Modes with e^(t mu_k) < e^(−MODE_CUTOFF) are dropped (each changes p_t/pi by less than e^(−45) ≈ 3e-20), at
#: every s >= t those with e^(s mu_k) < e^(−MODE_CUTOFF).
MODE_CUTOFF = 45.0
#: The coarsest step is at most a t / (RESOLUTION (sqrt(a t) + Delta)) (a: the smallest a over the query values;
#: sqrt(a t) the transition's width, Delta/(a t) the slope of the log-ratio across it) and the window width /
#: MIN_NODES; no grid has more than MAX_NODES nodes.
RESOLUTION = 4.0
MIN_NODES = 128
MAX_NODES = 8193
#: Nested grids h, h/2, h/4 (LEVELS), then h/8, … while the grid error exceeds TOLERANCE x Lambda and the next grid
#: holds at most MAX_NODES nodes; the last three give the estimate.
LEVELS = 3
TOLERANCE = 2e-6
#: Second order observed (d2/d1 within ORDER_TOLERANCE of 1/4, d1 and d2 the differences of the last three):
#: Richardson's extrapolations E = L_h' + (L_h' − L_2h')/3 of the last two pairs of grids, the finer one the
#: estimate and EXTRAPOLATION_SAFETY x |E2 − E1| (30x its asymptotic error |E2 − E1|/15) the grid error. Otherwise
#: the finest grid's value with SAFETY x |d2| r/(1 − r), r = |d2/d1| >= 1/4; |d2/d1| above MAX_RATIO is not
#: convergence (refused).
ORDER_TOLERANCE = 0.02
EXTRAPOLATION_SAFETY = 2.0
SAFETY = 3.0
MAX_RATIO = 0.6
#: Pairs (x, x + Delta) scanned on the coarsest grid (then around the best); on every grid, the REFINED_PAIRS best
#: of the scan and the starts within NEAR of the best so far (in that grid's steps) are recomputed.
SCAN_POINTS = 33
REFINED_PAIRS = 3
NEAR = 2
#: kappa is integrated over s in [t, t + TAIL_RATE/lambda_1] (e^(−2 lambda_1 s) has fallen by e^(−2 TAIL_RATE)),
#: the rest bounded; GAUSS_POINTS-point Gauss–Legendre panels in log s: SCAN_PANELS for the scan, PANELS for the
#: refined pairs (each compared with half as many).
TAIL_RATE = 20.0
GAUSS_POINTS = 10
SCAN_PANELS, PANELS = 1, 2


def _coefficients(sde: SDE, z: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(u(z), a(z) = (v vᵀ)(z)) at the points z, refusing a non-finite value or a <= 0 (a degenerate diffusion)."""
    drift_arity, diffusion_arity = arity("drift", sde.drift), arity("diffusion", sde.diffusion)
    u, a = np.empty(z.size), np.empty(z.size)
    point, out_u, out_v = np.empty(1), np.empty(1), np.empty(sde.diffusion_shape)
    for i, x in enumerate(z):
        point[0] = x
        if drift_arity == 1:
            out_u = np.asarray(sde.drift(point.copy()), dtype=np.float64)
        else:
            sde.drift(point.copy(), out_u)
        if diffusion_arity == 1:
            out_v = np.asarray(sde.diffusion(point.copy()), dtype=np.float64)
        else:
            sde.diffusion(point.copy(), out_v)
        u[i], a[i] = out_u.reshape(-1)[0], float(np.sum(np.square(out_v)))
    bad = ~(np.isfinite(u) & np.isfinite(a) & (a > 0.0))
    if bad.any():
        x = float(z[bad][0])
        raise fail("sde", "a one-dimensional SDE with finite drift and diffusion v != 0 on R (BBGG-A: a "
                          "non-degenerate diffusion on R)",
                   f"u = {float(u[bad][0])!r}, v² = {float(a[bad][0])!r} at x = {x!r}")
    return u, a


def _log_invariant(sde: SDE, z: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(log pi, Phi) at the points z (up to one constant), Phi = ∫ 2u/a by the cumulative Simpson rule."""
    from scipy.integrate import cumulative_simpson

    u, a = _coefficients(sde, z)
    phi = cumulative_simpson(2.0 * u / a, x=z, initial=0.0)
    return phi - np.log(a), phi


@dataclass(frozen=True)
class InvariantWindow:
    """Where the invariant density pi of a 1-D SDE lives: the interval [lower, upper] with log pi >= peak −
    TAIL_LOG, the query interval where pi >= e^(−QUERY_LOG) of its peak, the pi mass outside [lower, upper]
    (quadrature on the probe grid out to ±`probe`; relative to the total) and the smallest a over the query
    interval."""

    lower: float
    upper: float
    query: tuple[float, float]
    outside_mass: float
    probe: float
    a_query: float


@lru_cache(maxsize=32)
def invariant_window(sde: SDE) -> InvariantWindow:
    """The window of pi ∝ a^{-1} exp(∫ 2u/a) (BBGG-T6-1D), or ValueError naming what fails.

    Probes [−R, R] for R = 1, 2, …, 2^16 until log pi at both ends is below its peak by TAIL_LOG; refuses when it
    never is (pi not normalisable: e.g. u = +x, or pure Brownian motion), and when the scale function exp(−Phi)
    converges toward an end (that boundary attracts the process: Assumption 1 fails).
    """
    if not isinstance(sde, SDE) or sde.dim != 1:
        raise fail("sde", "a one-dimensional SDE (dim = 1)", repr(sde), TypeError if not isinstance(sde, SDE)
                   else ValueError)
    for half in PROBE_HALF_WIDTHS:
        z = np.linspace(-half, half, PROBE_POINTS)
        log_pi, _ = _log_invariant(sde, z)
        peak = float(log_pi.max())
        if log_pi[0] < peak - TAIL_LOG and log_pi[-1] < peak - TAIL_LOG:
            break
    else:
        sides = [name for name, end in (("−inf", 0), ("+inf", -1)) if log_pi[end] >= peak - TAIL_LOG]
        raise fail("sde", "an SDE whose invariant density pi ∝ v⁻² exp(∫ 2u/v²) is normalisable (BBGG-A(1)) and falls "
                          f"below e^-{TAIL_LOG:g} of its peak within |x| <= {half:g}",
                   f"log pi(−{half:g}) − max log pi = {log_pi[0] - peak:.3g}, log pi(+{half:g}) − max log pi = "
                   f"{log_pi[-1] - peak:.3g}: pi does not decay toward {' and '.join(sides)}")
    wide = np.linspace(-4.0 * half, 4.0 * half, 4 * PROBE_POINTS - 3)
    log_pi, phi = _log_invariant(sde, wide)
    _check_scale(wide, phi, half)
    peak = float(log_pi.max())
    inside = np.flatnonzero(log_pi >= peak - TAIL_LOG)
    step = wide[1] - wide[0]
    lower, upper = float(wide[inside[0]] - step), float(wide[inside[-1]] + step)
    if inside.size < 400:  # pi lives on a few probe points: probe again on the window itself
        z = np.linspace(lower - 0.5 * (upper - lower), upper + 0.5 * (upper - lower), PROBE_POINTS)
        log_pi_z, _ = _log_invariant(sde, z)
        keep = np.flatnonzero(log_pi_z >= float(log_pi_z.max()) - TAIL_LOG)
        lower, upper = float(z[keep[0]] - (z[1] - z[0])), float(z[keep[-1]] + (z[1] - z[0]))
    from scipy.special import logsumexp

    weights = log_pi - peak
    outside = (wide < lower) | (wide > upper)
    outside_mass = float(np.exp(logsumexp(weights[outside]) - logsumexp(weights))) if outside.any() else 0.0
    fine = np.linspace(lower, upper, PROBE_POINTS)
    log_pi_fine, _ = _log_invariant(sde, fine)
    query = fine[log_pi_fine >= float(log_pi_fine.max()) - QUERY_LOG]
    a_query = float(_coefficients(sde, np.linspace(query[0], query[-1], 257))[1].min())
    return InvariantWindow(lower, upper, (float(query[0]), float(query[-1])), outside_mass, 4.0 * half, a_query)


def _check_scale(z: NDArray[np.float64], phi: NDArray[np.float64], half: float) -> None:
    """Refuse when ∫ exp(−Phi) over [2R, 4R] is below SCALE_RATIO x that over [R, 2R] at either end (the scale
    function converges there: the boundary attracts, the process may leave R in finite time)."""
    from scipy.special import logsumexp

    for sign, name in ((1.0, "+inf"), (-1.0, "−inf")):
        r = sign * z
        near, far = (r >= half) & (r < 2.0 * half), (r >= 2.0 * half)
        log_ratio = float(logsumexp(-phi[far]) - logsumexp(-phi[near]))
        if log_ratio < math.log(SCALE_RATIO):
            ratio = math.exp(log_ratio)
            raise fail("sde", "an SDE whose boundaries ±inf do not attract (the scale function ∫ exp(−∫ 2u/v²) "
                              "diverges at both ends; BBGG-A)",
                       f"a scale function converging toward {name} (its increment over [2R, 4R] is {ratio:.3g} x that "
                       f"over [R, 2R], R = {half:g})")


@dataclass(frozen=True)
class SpectralGrid:
    """One finite-volume grid of the generator: nodes, log weights log w_i of the discretised pi (sum w = 1),
    a at the midpoints, the step, and the kept modes (eigenvalues mu_k < 0 of the symmetrised generator, k >= 1,
    and their eigenvectors as columns; the mode mu_0 = 0 with eigenvector sqrt(w) is exact and not stored)."""

    nodes: NDArray[np.float64]
    log_weights: NDArray[np.float64]
    a_mid: NDArray[np.float64]
    step: float
    eigenvalues: NDArray[np.float64]
    eigenvectors: NDArray[np.float64]

    def ratio(self, s: float, rows: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(A, P) at time s for the nodes `rows` (x) and every node y: p_s(x, y)/pi(y) = 1 + A(x, y) on the grid,
        and P = w_y (1 + A) the grid chain's transition probabilities (their row peaks locate the reliable y)."""
        lw = self.log_weights
        # the modes with e^(s mu_k) >= e^(−MODE_CUTOFF) (at least two): fewer as s grows
        k = max(2, int(np.searchsorted(-self.eigenvalues, MODE_CUTOFF / s, side="right")))
        b = (self.eigenvectors[rows, :k] * np.exp(s * self.eigenvalues[:k])) @ self.eigenvectors[:, :k].T
        a = b * np.exp(-0.5 * (lw[rows][:, None] + lw[None, :]))
        return a, (1.0 + a) * np.exp(lw)[None, :]

    def transition(self, s: float, x: float) -> NDArray[np.float64]:
        """P_s(x, {y_j}) of the grid chain for the node nearest x: probabilities over `nodes`."""
        row = np.array([int(np.argmin(np.abs(self.nodes - x)))])
        a, _ = self.ratio(check_positive("s", s), row)
        return np.maximum((1.0 + a[0]) * np.exp(self.log_weights), 0.0)


@lru_cache(maxsize=1)
def _dstemr() -> Any:
    """LAPACK dstemr (MRRR) from scipy.linalg.cython_lapack, called through ctypes: scipy's Python wrapper allocates
    and fills an n x n eigenvector array whatever the number of modes asked for (537 MB and ~1 s at n = 8193)."""
    import ctypes

    from numba.extending import get_cython_function_address

    i, d = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)
    prototype = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p, i, d, d, d, d, i, i, i, d, d, i, i, i, i, d,
                                 i, i, i, i)
    return prototype(get_cython_function_address("scipy.linalg.cython_lapack", "dstemr"))


def _tridiagonal_modes(diagonal: NDArray[np.float64], off: NDArray[np.float64], *, lower: float | None = None,
                       top: int = 0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(eigenvalues ascending, eigenvectors as columns) of the symmetric tridiagonal matrix (`diagonal`, `off`):
    those above `lower`, or the `top` largest, by LAPACK dstemr (what `scipy.linalg.eigh_tridiagonal(...,
    lapack_driver="stemr")` returns, in memory proportional to the modes kept)."""
    import ctypes

    n = diagonal.size
    upper = float(np.max(diagonal + np.abs(np.append(off, 0.0)) + np.abs(np.insert(off, 0, 0.0)))) + 1.0  # Gershgorin
    count, info, w = ctypes.c_int(0), ctypes.c_int(0), np.zeros(n)

    def ref(value: Any) -> Any:
        return ctypes.byref(ctypes.c_double(value) if isinstance(value, float) else ctypes.c_int(value))

    def ptr(array: NDArray[Any]) -> Any:
        return array.ctypes.data_as(ctypes.POINTER(ctypes.c_int if array.dtype == np.intc else ctypes.c_double))

    def call(z: NDArray[np.float64], columns: int, lwork: int, liwork: int) -> None:
        """One dstemr call (columns = lwork = liwork = −1: the sizes query, answered in z[0], work[0], iwork[0])."""
        d, e = np.array(diagonal, dtype=np.float64), np.append(np.asarray(off, dtype=np.float64), 0.0)
        isuppz = np.zeros(2 * max(1, columns), dtype=np.intc)
        _dstemr()(
            b"V", b"I" if lower is None else b"V", ref(n), ptr(d), ptr(e),  # jobz, range, n, d, e
            ref(0.0 if lower is None else float(lower)), ref(upper), ref(n - top + 1), ref(n),  # vl, vu, il, iu
            ctypes.byref(count), ptr(w), ptr(z), ref(n), ref(columns), ptr(isuppz),  # m, w, z, ldz, nzc, isuppz
            ref(1), ptr(work), ref(lwork), ptr(iwork), ref(liwork), ctypes.byref(info),  # tryrac, work…, info
        )
        if info.value != 0:
            raise ValueError(f"BBGG-T6-1D: LAPACK dstemr failed (info = {info.value}) on the grid of {n} nodes.")

    query, work, iwork = np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.intc)
    call(query, -1, -1, -1)
    columns, lwork, liwork = max(1, int(query[0])), int(work[0]), int(iwork[0])
    z, work, iwork = np.zeros((columns, n)), np.zeros(lwork), np.zeros(liwork, dtype=np.intc)
    call(z, columns, lwork, liwork)  # z: Fortran's n x columns array, column-major
    return w[: count.value].copy(), z[: count.value].T.copy()


@lru_cache(maxsize=16)
def spectral_grid(sde: SDE, first: int, last: int, step: float, rate: float) -> SpectralGrid:
    """The grid of nodes k `step`, k = first..last, with the modes of eigenvalue >= −`rate` (cached: one
    eigen-decomposition per SDE, grid and rate)."""
    from scipy.integrate import cumulative_simpson

    n = last - first + 1
    half = np.arange(2 * first, 2 * last + 1) * (0.5 * step)  # nodes and midpoints
    u, a = _coefficients(sde, half)
    phi = cumulative_simpson(2.0 * u / a, x=half, initial=0.0)
    phi_node, phi_mid, a_node = phi[::2], phi[1::2], a[::2]
    log_pi = phi_node - np.log(a_node)
    up = np.exp(phi_mid - phi_node[:-1]) * a_node[:-1] / (2.0 * step**2)  # rate i -> i+1
    down = np.exp(phi_mid - phi_node[1:]) * a_node[1:] / (2.0 * step**2)  # rate i+1 -> i
    diagonal = np.zeros(n)
    diagonal[:-1] -= up
    diagonal[1:] -= down
    off = np.sqrt(up * down)  # the symmetrised off-diagonal: exp(Phi_mid − ½(log pi_i + log pi_(i+1))) / (2h²)
    mu, vectors = _tridiagonal_modes(diagonal, off, lower=-rate)
    if mu.size < 3:  # a late time: keep the first modes all the same (kappa decays like e^(−2 lambda_1 s))
        mu, vectors = _tridiagonal_modes(diagonal, off, top=3)
    order = np.argsort(mu)[::-1]
    mu, vectors = mu[order], vectors[:, order]
    if mu.size < 2 or not abs(mu[0]) <= 1e-6 * abs(mu[1]):
        raise ValueError(f"BBGG-T6-1D: the grid generator's top eigenvalue is {mu[0]!r}, not 0 next to the gap "
                         f"{mu[1] if mu.size > 1 else math.nan!r}: the grid of {n} nodes does not resolve the SDE.")
    log_w = log_pi - float(np.logaddexp.reduce(log_pi))
    return SpectralGrid(np.arange(first, last + 1) * step, log_w, a[1::2], step, mu[1:], vectors[:, 1:])


def kappa(grid: SpectralGrid, s: float, rows: NDArray[np.int64], partners: NDArray[np.int64]) -> NDArray[np.float64]:
    """kappa_{x,x'}(s) for the node pairs (rows[i], partners[i]): the max over the midpoints y between reliable
    nodes of ½ a(y) (Δ_y h_s / h)², h_s = log p_s(x, ·) − log p_s(x', ·), refined by the parabola through the
    three values around the largest (the sup between midpoints)."""
    both = np.concatenate([rows, partners])
    a, p = grid.ratio(s, both)
    reliable = p >= RELIABLE_FRACTION * p.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_r = np.where(reliable, np.log1p(np.where(reliable, a, 0.0)), np.nan)
    m = rows.size
    slope = np.diff(log_r[:m] - log_r[m:], axis=1) / grid.step
    gamma = 0.5 * grid.a_mid * slope**2
    gamma = np.where(np.isfinite(gamma), gamma, -np.inf)
    out = np.empty(m)
    for i in range(m):
        j = int(np.argmax(gamma[i]))
        best = gamma[i, j]
        if 0 < j < gamma.shape[1] - 1 and np.isfinite(gamma[i, j - 1]) and np.isfinite(gamma[i, j + 1]):
            left, right = gamma[i, j - 1], gamma[i, j + 1]
            curvature = 2.0 * best - left - right
            if curvature > 0.0:
                best = best + (right - left) ** 2 / (8.0 * curvature)
        out[i] = best if np.isfinite(best) else 0.0
    return out


def _integral(grid: SpectralGrid, t: float, rows: NDArray[np.int64], partners: NDArray[np.int64],
              panels: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(∫_t^∞ kappa ds, error bound) for each pair: over tau = log(s/t) in [0, log(s_end/t)], s_end = t +
    TAIL_RATE/lambda_1, by GAUSS_POINTS-point Gauss–Legendre on 2 `panels` equal panels (the value) and on `panels`
    (the error: their difference), plus the tail beyond s_end bounded by kappa(s_end)/lambda_1 (twice the
    integral of kappa(s_end) e^(−2 lambda_1 (s − s_end)))."""
    gap = -float(grid.eigenvalues[0])
    s_end = t + TAIL_RATE / gap
    x, w = np.polynomial.legendre.leggauss(GAUSS_POINTS)
    results = []
    for count in (panels, 2 * panels):
        edges = np.linspace(0.0, math.log(s_end / t), count + 1)
        half = 0.5 * np.diff(edges)
        taus = (edges[:-1, None] + half[:, None] * (x[None, :] + 1.0)).ravel()
        weights = (half[:, None] * w[None, :]).ravel()
        total = np.zeros(rows.size)
        for tau, weight in zip(taus, weights, strict=True):
            s = t * math.exp(tau)
            total += weight * s * kappa(grid, s, rows, partners)
        results.append(total)
    tail = kappa(grid, s_end, rows, partners) / gap
    return results[1] + tail, np.abs(results[1] - results[0]) + tail


@dataclass(frozen=True)
class SpectralLambda:
    """Lambda(t) of BBGG-T6-1D (nats per unit of alpha) and how it was obtained.

    `value` = `estimate` + `grid_error` + `quadrature_error` is the certified Lambda. `by_level` is, on each grid
    (`levels` its node counts, coarsest first), the sup over the scanned pairs of ∫ kappa (attained at `pair`,
    between nodes by the parabola through the best three); `ratio` the observed d2/d1 of the last three. With
    `refinement` "richardson" (second order observed), `estimate` is the extrapolation E2 of the two finest grids
    and `grid_error` EXTRAPOLATION_SAFETY x |E2 − E1| (E1 that of the next pair) plus twice the quadrature errors;
    with "geometric", `estimate` is the finest grid's value and `grid_error` SAFETY x (|d2| r/(1 − r) + the
    quadrature errors). `window` is the grid interval, `outside_mass` the pi mass beyond it, `query` the interval of
    query values scanned (pairs at
    distance Delta with both ends in it; `pairs` scanned).
    """

    value: float
    estimate: float
    grid_error: float
    quadrature_error: float
    pair: tuple[float, float]
    levels: tuple[int, ...]
    by_level: tuple[float, ...]
    ratio: float
    refinement: str
    window: tuple[float, float]
    outside_mass: float
    query: tuple[float, float]
    pairs: int


def _layout(window: InvariantWindow, delta: float, t: float) -> tuple[int, int, int, float]:
    """(first, last, m, h): the coarsest grid's nodes k h, k = first..last, with Delta = m h (pairs on nodes)."""
    width = window.upper - window.lower
    spread = window.a_query * t
    target = min(spread / (RESOLUTION * (math.sqrt(spread) + delta)), width / MIN_NODES)
    coarsest = width * 2 ** (LEVELS - 1) / (MAX_NODES - 1)  # the finest grid holds at most MAX_NODES nodes
    target = max(target, coarsest)
    m = math.ceil(delta / target)
    if delta / m < coarsest:  # the resolution asked for would overfill the finest grid: as fine as it holds
        m = math.floor(delta / coarsest)
    if m < 1:
        raise fail("sensitivity", f"at least {coarsest:.3g} for this SDE (a pair (x, x + Delta) of grid nodes, the "
                                  f"grid over [{window.lower:.4g}, {window.upper:.4g}] holding <= {MAX_NODES} nodes)",
                   delta)
    h = delta / m
    return math.floor(window.lower / h), math.ceil(window.upper / h), m, h


def _refinement(sups: list[float], errors: list[float]) -> tuple[float, float, float, float, str] | None:
    """(estimate, grid error, quadrature error, d2/d1, method) from the last three grids' values and quadrature
    errors (see ORDER_TOLERANCE), or None when they do not converge (|d2/d1| > MAX_RATIO)."""
    (coarse, middle, fine), (e_coarse, e_middle, e_fine) = sups[-3:], errors[-3:]
    d1, d2 = middle - coarse, fine - middle
    floor = 1e-12 * abs(fine) + e_coarse + e_middle + e_fine
    ratio = d2 / d1 if abs(d1) > floor else 0.0
    if abs(ratio - 0.25) <= ORDER_TOLERANCE:
        first, second = middle + d1 / 3.0, fine + d2 / 3.0
        error = EXTRAPOLATION_SAFETY * abs(second - first) + 2.0 * floor
        return second, error, (4.0 * e_fine + e_middle) / 3.0, ratio, "richardson"
    if abs(ratio) > MAX_RATIO and abs(d2) > floor:
        return None
    r = max(abs(ratio), 0.25)
    return fine, SAFETY * (abs(d2) * r / (1.0 - r) + floor), e_fine, ratio, "geometric"


@lru_cache(maxsize=64)
def spectral_intrinsic_sensitivity(sde: SDE, sensitivity: float, t: float) -> SpectralLambda:
    """BBGG-T6-1D: Lambda(t) for dX = u dt + v dW on R and query values at distance <= `sensitivity` (> 0) in the
    region where pi >= 1e-3 of its peak; `t` > 0. Raises ValueError naming what fails (pi not normalisable, an
    attracting boundary, v = 0, a grid refinement that does not converge)."""
    delta = check_positive("sensitivity", sensitivity)
    t = check_positive("t", t)
    window = invariant_window(sde)
    first, last, m, h = _layout(window, delta, t)
    q_lo, q_hi = math.ceil(window.query[0] / h), math.floor(window.query[1] / h) - m
    if q_hi < q_lo:
        raise fail("sensitivity", f"at most the width {window.query[1] - window.query[0]:.4g} of the interval "
                                  f"[{window.query[0]:.4g}, {window.query[1]:.4g}] where pi >= 1e-3 of its peak (the "
                                  f"query values scanned)", delta)
    rate = MODE_CUTOFF / t
    coarse = spectral_grid(sde, first, last, h, rate)
    lo, hi = q_lo - first, q_hi - first
    starts = _scan(coarse, t, lo, hi, m)
    others = sorted(starts, key=starts.get, reverse=True)[:REFINED_PAIRS]
    position = float(max(starts, key=starts.get))  # the best start, in coarse steps
    sups, offsets, errors, levels = [], [], [], []
    level, found = 0, None
    while True:
        k = 2**level
        grid = spectral_grid(sde, k * first, k * last, h / k, rate)
        centre = round(position * k)  # the best pair's start on this grid: it and its neighbours, in its steps
        near = [j for j in range(centre - NEAR, centre + NEAR + 1) if k * lo <= j <= k * hi]
        rows = np.array(sorted({*(k * i for i in others), *near}))
        value, error = _integral(grid, t, rows, rows + k * m, PANELS)
        sup, offset = _sup_over_x(dict(zip(rows.tolist(), value.tolist(), strict=True)))
        position = offset / k
        sups.append(sup)
        offsets.append(position)
        errors.append(float(error.max()))
        levels.append(grid.nodes.size)
        level += 1
        if level < LEVELS:
            continue
        found = _refinement(sups, errors)
        if (found is not None and found[1] <= TOLERANCE * abs(found[0])) or 2 * levels[-1] - 1 > MAX_NODES:
            break
    if found is None:
        raise ValueError(f"BBGG-T6-1D: the grid refinement does not converge at t = {t!r}: Lambda on {levels} nodes "
                         f"= {sups} (ratio of differences {(sups[-1] - sups[-2]) / (sups[-2] - sups[-3]):.3g}, "
                         f"beyond ±{MAX_RATIO}); the SDE varies on scales the grid does not resolve.")
    estimate, grid_error, quadrature_error, ratio, method = found
    x = float(coarse.nodes[0] + offsets[-1] * h)
    return SpectralLambda(estimate + grid_error + quadrature_error, estimate, grid_error, quadrature_error,
                          (x, x + delta), tuple(levels), tuple(sups), ratio, method, (window.lower, window.upper),
                          window.outside_mass, window.query, len(starts))


def _sup_over_x(values: dict[int, float]) -> tuple[float, float]:
    """(sup over x of ∫ kappa, the start of that pair in grid steps) from the values at the starts: the largest
    value, or the vertex of the parabola through the best start and its two neighbours when it is concave with its
    vertex between them (the sup between nodes: Lambda(x) is smooth in x)."""
    start = max(values, key=values.get)
    sup = values[start]
    if start - 1 in values and start + 1 in values:
        left, right = values[start - 1], values[start + 1]
        curvature = 2.0 * sup - left - right
        offset = (right - left) / (2.0 * curvature) if curvature > 0.0 else math.inf
        if abs(offset) <= 1.0:
            return sup + (right - left) ** 2 / (8.0 * curvature), start + offset
    return sup, float(start)


def spectral_grids(sde: SDE, sensitivity: float, t: float) -> tuple[SpectralGrid, ...]:
    """The nested grids (coarsest first) on which `spectral_intrinsic_sensitivity` computed Lambda(t) (cached)."""
    delta, t = check_positive("sensitivity", sensitivity), check_positive("t", t)
    count = len(spectral_intrinsic_sensitivity(sde, delta, t).levels)
    first, last, m, h = _layout(invariant_window(sde), delta, t)
    return tuple(spectral_grid(sde, 2**k * first, 2**k * last, h / 2**k, MODE_CUTOFF / t) for k in range(count))


def _scan(grid: SpectralGrid, t: float, lo: int, hi: int, m: int) -> dict[int, float]:
    """∫ kappa on the coarsest grid for the pairs (i, i + m), i in [lo, hi]: SCAN_POINTS starts, then the nodes
    around the best. Returns start index → value."""
    count = hi - lo + 1
    stride = max(1, math.ceil(count / SCAN_POINTS))
    found: dict[int, float] = {}

    def run(starts: list[int]) -> None:
        new = np.array(sorted(set(starts) - set(found)), dtype=np.int64)
        if new.size:
            value, _ = _integral(grid, t, new, new + m, SCAN_PANELS)
            found.update(zip(new.tolist(), value.tolist(), strict=True))

    run(list(range(lo, hi + 1, stride)) + [hi])
    best = max(found, key=found.get)
    run(list(range(max(lo, best - stride), min(hi, best + stride) + 1, max(1, stride // 8))))
    return found


__all__ = ["InvariantWindow", "SpectralGrid", "SpectralLambda", "invariant_window", "kappa", "spectral_grid",
           "spectral_grids", "spectral_intrinsic_sensitivity"]
