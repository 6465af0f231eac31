"""Gaussian plus Laplace noise on R: the law of loc + N(0, sigma²) + Σ_i Lap(0, b_i) (THEORY: STD-NormalLaplace).

One Laplace (Reed 2004's normal-Laplace law): Lap(0, b) is the even mixture of ±Exp(1/b), and each exponential
convolved with the Gaussian is an exponentially modified Gaussian, so with u = |x − loc| >= 0, s = sigma,
z1 = s/b − u/s and z2 = s/b + u/s,

    f = (1/(2b)) (T1 + T2),   T1 = e^(s²/(2b²) − u/b) Phi(−z1),   T2 = e^(s²/(2b²) + u/b) Phi(−z2),
    P(X > loc + u) = T1/2 + Phi(−u/s) − T2/2.

Phi(−z) = erfcx(z/√2) e^(−z²/2)/2 turns T = e^(−u²/(2s²)) erfcx(z/√2)/2 for z >= 0 (the large exponents cancel
exactly on paper, not in floats); for z < 0, log T = s²/(2b²) ∓ u/b + log_ndtr(−z). Both terms are positive;
in the survival function Phi(−u/s) − T2/2 >= Phi(−u/s)/2 (it is ∫_{g > u} (1 − e^{(u − g)/b}/2) dN(g)), so the
subtraction loses at most one bit. Relative accuracy ~1e-15 everywhere, in log space.

Several Laplaces: f(x) = ∫ phi_s(x − y) g(y) dy with g the STD-LaplaceSumN density, by Gauss–Legendre on
panels of width 2s over x ± 40s (the Gaussian factor beyond is below e^(−800) of its peak), split where g has its
kink (y = loc) and on panels growing geometrically from it by the smallest scale (a global lattice of panels, so
the values of g at its nodes are computed once per law and reused). Every node adds a positive
term. The error is estimated by the 10-point rule on the same panels (the 20-point value is kept) and reported by
`convolution_error`; a RuntimeWarning is raised where it exceeds 1e-9 relative.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_points, check_positive, check_real, fail
from ..spaces import RealSpace
from .base import SymmetricLaw, _count, log_symmetric_side
from .laplace_sum_n import _check_scales, laplace_sum_log_terms

Array = NDArray[np.float64]

_LOG_HALF = math.log(0.5)
#: half-width of the Gaussian window, in sigmas (e^(−40²/2) = e^(−800))
_WINDOW = 40.0
_RULES = (np.polynomial.legendre.leggauss(20), np.polynomial.legendre.leggauss(10))
#: relative error of the convolution above which a RuntimeWarning is raised
_WARN = 1e-9


def _log_emg(s: float, b: float, u: Array, z: Array, sign: float) -> Array:
    """log T for T = e^(s²/(2b²) + sign u/b) Phi(−z) (module docstring), without overflow or cancellation."""
    from scipy import special  # here, not at import: `import markovdp` stays light

    pos = z >= 0.0
    with np.errstate(over="ignore", divide="ignore"):
        small = -u * u / (2.0 * s * s) + np.log(special.erfcx(np.where(pos, z, 0.0) / math.sqrt(2.0)) / 2.0)
        large = s * s / (2.0 * b * b) + sign * u / b + special.log_ndtr(-np.where(pos, 0.0, z))
    return np.where(pos, small, large)


def normal_laplace_log_terms(sigma: float, b: float, u: Array, *, survival: bool) -> Array:
    """log f(loc + u) or log P(X > loc + u), u >= 0, for N(0, sigma²) + Lap(0, b). THEORY: STD-NormalLaplace."""
    from scipy import special  # here, not at import: `import markovdp` stays light

    s = sigma
    log_t1 = _log_emg(s, b, u, s / b - u / s, -1.0)
    log_t2 = _log_emg(s, b, u, s / b + u / s, 1.0)
    if not survival:
        return np.logaddexp(log_t1, log_t2) - math.log(2.0 * b)
    log_phi = special.log_ndtr(-u / s)
    # Phi(−u/s) − T2/2 = Phi(−u/s) (1 − e^(log T2/2 − log Phi)) and the ratio is <= 1/2 (module docstring)
    rest = log_phi + np.log1p(-np.exp(np.minimum(log_t2 + _LOG_HALF - log_phi, _LOG_HALF)))
    return np.logaddexp(log_t1 + _LOG_HALF, rest)


@dataclass(frozen=True)
class NormalLaplace(SymmetricLaw):
    """The law of loc + G + Σ_i X_i, G ~ N(0, sigma²), X_i ~ Lap(0, b_i), all independent: Gaussian and Laplace
    noise in any order and count (Gaussians merge into one sigma). THEORY: STD-NormalLaplace, STD-LaplaceSumN.

    Symmetric about `loc` and log-concave. One Laplace: closed form in log space; several: a Gaussian
    convolution of the STD-LaplaceSumN density by quadrature, its estimated error given by `convolution_error`.
    """

    loc: float
    sigma: float
    scales: tuple[float, ...]
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        loc = check_real("loc", self.loc)
        if np.ndim(loc) != 0:
            raise fail("loc", "a scalar (NormalLaplace is 1-D)", f"shape {np.shape(loc)}", TypeError)
        object.__setattr__(self, "loc", float(loc))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "scales", _check_scales(self.scales))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1)

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        return [self.loc], sorted({self.sigma, *self.scales})

    def sample(self, n: int, *, rng: RNGLike = None) -> Array:
        gen = as_generator(rng)
        n = _count(n)
        out = self.loc + self.sigma * gen.standard_normal(n)
        for b in self.scales:
            out += gen.laplace(0.0, b, size=n)
        return out

    def variance(self) -> float:
        """Var = sigma² + Σ 2 b_i²."""
        return float(self.sigma**2 + sum(2.0 * b * b for b in self.scales))

    # ---------------------------------------------------------------- standardised pieces (u = |x − loc| >= 0)
    def _log_density_u(self, u: Array) -> Array:
        if len(self.scales) == 1:
            return normal_laplace_log_terms(self.sigma, self.scales[0], u, survival=False)
        return self._convolved(u, survival=False)[0]

    def _log_sf_u(self, u: Array) -> Array:
        if len(self.scales) == 1:
            return normal_laplace_log_terms(self.sigma, self.scales[0], u, survival=True)
        return self._convolved(u, survival=True)[0]

    def _convolved(self, u: Array, *, survival: bool) -> tuple[Array, Array]:
        """(log value, estimated relative error) of ∫ phi_s(u − y) h(y) dy, h the STD-LaplaceSumN density or
        survival function (module docstring), for each u.

        The panels are global: the cells [2 s k, 2 s (k + 1)] of a lattice, those near y = 0 subdivided at 0 and at
        ± b_min 2^j; the window of u is the 42 cells around u ± 40 s. The Gauss–Legendre nodes of a cell and h there
        are computed once per law and kept (``__dict__``, as `functools.cached_property` does), so repeated and
        scattered calls (a quadrature, a root search) reuse them.
        """
        u = np.asarray(u, dtype=np.float64).reshape(-1)
        cells, windows = self.__dict__.setdefault("_cells", (({}, {}), ({}, {})))
        cells, windows = cells[int(survival)], windows[int(survival)]
        width = 2.0 * self.sigma
        first = np.floor((u - _WINDOW * self.sigma) / width).astype(np.int64)
        todo = sorted({int(k) for f in np.unique(first) for k in range(f, f + 42)} - cells.keys())
        if todo:
            self._fill(cells, todo, survival)
        values, errors = np.empty(u.size), np.empty(u.size)
        for n, (un, f) in enumerate(zip(u, first, strict=True)):
            window = windows.get(int(f))
            if window is None:  # the 42 cells' nodes and log weights · h, joined once per window
                parts = [cells[k] for k in range(int(f), int(f) + 42)]
                window = windows[int(f)] = tuple((np.concatenate([p[rule][0] for p in parts]),
                                                  np.concatenate([p[rule][1] for p in parts])) for rule in (0, 1))
            totals = [_log_sum_exp(logs + _log_gauss(un - y, self.sigma)) for y, logs in window]
            values[n], errors[n] = totals[0], abs(math.expm1(totals[1] - totals[0]))
        if np.any(errors > _WARN):
            warnings.warn(f"the Gaussian convolution of {self!r} may be inaccurate: estimated relative error "
                          f"{float(errors.max())!r}", RuntimeWarning, stacklevel=3)
        return values, errors

    def _fill(self, cells: dict, todo: list[int], survival: bool) -> None:
        """Nodes, log weights + log h of the lattice cells `todo` (20- and 10-point rules), in one batched call."""
        width, b_min = 2.0 * self.sigma, self.scales[-1]
        geometric = b_min * 2.0 ** np.arange(-4, 60)
        geometric = geometric[geometric < 2.0 * _WINDOW * self.sigma]
        kink = np.concatenate([[0.0], geometric, -geometric])
        per_cell = []
        for k in todo:
            lo, hi = k * width, (k + 1) * width
            pts = np.unique(np.concatenate([[lo, hi], kink[(kink > lo) & (kink < hi)]]))
            mid, half = (pts[1:] + pts[:-1]) / 2.0, (pts[1:] - pts[:-1]) / 2.0
            per_cell.append([((mid[:, None] + half[:, None] * nodes).ravel(),
                              (np.log(half)[:, None] + np.log(weights)[None, :]).ravel()) for nodes, weights in _RULES])
        y = np.concatenate([y for cell in per_cell for y, _ in cell])
        log_h = _signed_log(self.scales, y, survival)
        start = 0
        for k, cell in zip(todo, per_cell, strict=True):
            entry = []
            for y_rule, log_w in cell:
                entry.append((y_rule, log_w + log_h[start:start + y_rule.size]))
                start += y_rule.size
            cells[k] = tuple(entry)

    def convolution_error(self, x: ArrayLike) -> Array:
        """The estimated relative error of `density` at x (20- against 10-point Gauss–Legendre on the same panels;
        the Gaussian window adds at most e^(−800) relative); 0 for one Laplace (closed form)."""
        x = check_points("x", x, 1)
        if len(self.scales) == 1:
            return np.zeros(x.shape)
        return self._convolved(np.abs(x - self.loc), survival=False)[1].reshape(x.shape)


def _log_sum_exp(logs: Array) -> float:
    """log Σ e^logs of a 1-D array (scipy's logsumexp costs ~10x more per call here); −inf if every term is."""
    top = float(logs.max())
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.exp(logs - top).sum()))


def _log_gauss(g: Array, s: float) -> Array:
    return -0.5 * (g / s) ** 2 - math.log(s * math.sqrt(2.0 * math.pi))


def _signed_log(scales: tuple[float, ...], y: Array, survival: bool) -> Array:
    """log h(y) for y of any sign: the Laplace-sum density (even) or P(L > y) (from the upper tail or 1 − it)."""
    if not survival:
        return laplace_sum_log_terms(scales, np.abs(y), survival=False)
    return log_symmetric_side(lambda v: laplace_sum_log_terms(scales, v, survival=True), -y)


__all__ = ["NormalLaplace"]
