"""A general 1-D push mu >> K on a grid, for kernels y = x + Z with shift-invariant noise, with a stated error bound.

THEORY: STD-GridPush (docs/theory.md).

Where ``K.push(mu)`` has no closed form (e.g. ``Normal >> LaplaceKernel``), `grid_push` approximates the law of
X + Z (X ~ mu, Z ~ the kernel's noise, independent) by a `GridLaw` whose CDF is within ``error_bound`` of the true
CDF H(y) = E G(y − X) at every y in R (Kolmogorov distance), G the CDF and g the density of Z.

Method (nodes x_j = x_0 + j h, cells [x_j − h/2, x_j + h/2]). Expanding G(y − x) to first order about each node,
with the remainder bounded by ``Lip(g) (x − x_j)²/2`` (Lip(g) = sup |g'|),

    H(y) = Σ_j [m_j G(y − x_j) − m1_j g(y − x_j)] + R(y),   |R(y)| <= Lip(g)/2 · Σ_j m2_j + tau,

with m_j, m1_j, m2_j the mass and first two moments about x_j of mu on cell j and tau the mass of mu outside
the grid. At the nodes both sums are discrete convolutions (FFT). Linear interpolation between nodes adds at
most ``Lip(g) h²/8`` (H'' = g' * mu is bounded by Lip(g)), and setting the CDF to 0 below x_0 and 1 above
x_N adds the estimated mass beyond the ends. So the stated bound is

    error_bound = Lip(g) Σ m2_j / 2 + tau + Lip(g) h²/8 + (mass beyond the ends) + 4 (N + 1) eps_mach,

the last term for rounding. Σ m2_j ≈ h²/12 for a smooth mu, so the bound is ≈ Lip(g) h²/6, second order
in h/scale(Z) and independent of mu's scale. The moments are exact sums for atomic mu; for continuous mu they
are 8-point Gauss–Legendre sums on sub-cells no wider than 1/8 of mu's smallest quadrature scale, split at
its quadrature locations (the kinks of Laplace-type densities): exact to rounding for densities analytic
between those locations (Normal, Laplace, LaplaceSum), which the bound assumes. tau is measured as
1 − Σ m_j, so heavier tails than the grid allows show up in the bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._dispatch import KindRegistry
from .._random import RNGLike, as_generator
from .._validation import check_instance, check_int, check_points, check_positive, fail, readonly
from ..distributions import Distribution
from ..spaces import RealSpace, require_compatible
from .base import MarkovOperator
from .gaussian import GaussianKernel
from .laplace import LaplaceKernel

Array = NDArray[np.float64]
_EPS = float(np.finfo(float).eps)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)


# -------------------------------------------------------------------------------------------------- noise
@dataclass(frozen=True)
class ShiftNoise:
    """The noise Z of a kernel y = x + Z on R: its CDF G, density g, ``density_lipschitz`` = sup |g'| and a
    scale (the default grid step is scale/100)."""

    cdf: Callable[[Array], Array]
    pdf: Callable[[Array], Array]
    density_lipschitz: float
    scale: float

    def __post_init__(self) -> None:
        for name in ("cdf", "pdf"):
            if not callable(getattr(self, name)):
                raise fail(name, "a callable on arrays", type(getattr(self, name)).__name__, TypeError)
        object.__setattr__(self, "density_lipschitz", check_positive("density_lipschitz", self.density_lipschitz))
        object.__setattr__(self, "scale", check_positive("scale", self.scale))


#: ``rule(kernel) -> ShiftNoise`` by kernel class: a new kernel y = x + Z joins with ``@SHIFT_NOISE.register(K)``.
SHIFT_NOISE: KindRegistry[Callable[[Any], ShiftNoise]] = KindRegistry("shift noise")


def shift_noise(kernel: MarkovOperator) -> ShiftNoise:
    """The `ShiftNoise` of a kernel y = x + Z on R (the rule registered in `SHIFT_NOISE` for its class)."""
    check_instance("kernel", kernel, MarkovOperator, "a MarkovOperator (a kernel y = x + Z on R)")
    rule = SHIFT_NOISE.lookup(type(kernel))
    if rule is None:
        raise NotImplementedError(
            f"{type(kernel).__name__} is not known to add shift-invariant noise on R (register it with "
            f"`markovdp.operators.grid_push.SHIFT_NOISE.register({type(kernel).__name__})`).")
    return rule(kernel)


@SHIFT_NOISE.register(GaussianKernel)
def _gaussian_noise(kernel: GaussianKernel) -> ShiftNoise:
    """N(0, sigma²): sup |g'| = g'(sigma) = e^(−1/2) / (sigma² sqrt(2 pi))."""
    from scipy import special

    if kernel.dim != 1:
        raise NotImplementedError(f"grid_push is 1-D; got {kernel!r}.")
    s = kernel.sigma
    return ShiftNoise(cdf=lambda z: special.ndtr(z / s),
                      pdf=lambda z: np.exp(-0.5 * (z / s) ** 2) / (s * math.sqrt(2.0 * math.pi)),
                      density_lipschitz=math.exp(-0.5) / (s * s * math.sqrt(2.0 * math.pi)), scale=s)


@SHIFT_NOISE.register(LaplaceKernel)
def _laplace_noise(kernel: LaplaceKernel) -> ShiftNoise:
    """Lap(0, b): g = e^(−|z|/b)/(2b), sup |g'| = 1/(2 b²) (at z → 0±; g is Lipschitz, not differentiable at 0)."""
    b = kernel.scale

    def cdf(z: Array) -> Array:
        tail = 0.5 * np.exp(-np.abs(z) / b)
        return np.where(z < 0.0, tail, 1.0 - tail)

    return ShiftNoise(cdf=cdf, pdf=lambda z: np.exp(-np.abs(z) / b) / (2.0 * b),
                      density_lipschitz=1.0 / (2.0 * b * b), scale=b)


# -------------------------------------------------------------------------------------------------- the law
@dataclass(frozen=True, eq=False)
class GridLaw(Distribution):
    """A law on R with a piecewise-linear CDF through (grid[k], cdf_values[k]) (a piecewise-uniform density),
    0 below grid[0] and 1 above grid[-1]; built by `grid_push`, whose true law has a CDF within
    `error_bound` of this one everywhere (sup norm; `terms` lists the parts of the bound).
    """

    grid: Any
    cdf_values: Any
    error_bound: float
    terms: Mapping[str, float] = field(default_factory=dict)
    kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        grid = check_points("grid", self.grid, 1)
        values = check_points("cdf_values", self.cdf_values, 1)
        if grid.ndim != 1 or grid.size < 2 or np.any(np.diff(grid) <= 0.0):
            raise fail("grid", "a strictly increasing 1-D array of >= 2 points", f"shape {grid.shape}")
        if values.shape != grid.shape:
            raise fail("cdf_values", f"an array of the grid's shape {grid.shape}", f"shape {values.shape}")
        if values[0] != 0.0 or values[-1] != 1.0 or np.any(np.diff(values) < 0.0):
            raise fail("cdf_values", "non-decreasing from 0 to 1", f"first {values[0]!r}, last {values[-1]!r}")
        object.__setattr__(self, "grid", readonly(grid))
        object.__setattr__(self, "cdf_values", readonly(values))
        object.__setattr__(self, "error_bound", check_positive("error_bound", self.error_bound))
        object.__setattr__(self, "terms", MappingProxyType(dict(self.terms)))

    @property
    def space(self) -> RealSpace:
        return RealSpace(1)

    @property
    def masses(self) -> Array:
        """The mass of each cell [grid[k], grid[k+1]]."""
        return np.diff(self.cdf_values)

    def cdf(self, x: ArrayLike) -> Array:
        return np.interp(check_points("x", x, 1), self.grid, self.cdf_values, left=0.0, right=1.0)

    def sf(self, x: ArrayLike) -> Array:
        return 1.0 - self.cdf(x)

    def density(self, x: ArrayLike) -> Array:
        """The piecewise-constant density of this law (cell mass / cell width; 0 outside the grid)."""
        x = check_points("x", x, 1)
        cell = np.searchsorted(self.grid, x, side="right") - 1
        inside = (cell >= 0) & (cell < self.grid.size - 1)
        safe = np.clip(cell, 0, self.grid.size - 2)
        return np.where(inside, self.masses[safe] / np.diff(self.grid)[safe], 0.0)

    def log_density(self, x: ArrayLike) -> Array:
        with np.errstate(divide="ignore"):
            return np.log(self.density(x))

    def sample(self, n: int, *, rng: RNGLike = None) -> Array:
        """Inverse-CDF sampling: a cell by its mass, then a uniform point in it."""
        gen = as_generator(rng)
        n = check_int("n", n, minimum=0)
        cell = np.minimum(np.searchsorted(self.cdf_values, gen.random(n), side="right") - 1, self.grid.size - 2)
        cell = np.maximum(cell, 0)
        return self.grid[cell] + gen.random(n) * np.diff(self.grid)[cell]

    def quadrature_hints(self) -> tuple[list[float], list[float]]:
        q25, q50, q75 = np.interp([0.25, 0.5, 0.75], self.cdf_values, self.grid)
        return [float(q50)], sorted({float(q75 - q25) / 2.0 or float(self.grid[1] - self.grid[0])})

    def __repr__(self) -> str:
        return (f"GridLaw({self.grid.size} points on [{float(self.grid[0])!r}, {float(self.grid[-1])!r}], "
                f"error_bound={self.error_bound!r})")


# -------------------------------------------------------------------------------------------------- the push
def grid_push(mu: Distribution, kernel: MarkovOperator, *, step: float | None = None, tail: float = 40.0,
              max_points: int = 2**20) -> GridLaw:
    """The law of mu >> kernel on a uniform grid, with a stated sup-norm bound on its CDF error (module docstring).

    Parameters
    ----------
    mu : Distribution
        A law on R: atomic (``atoms``), or continuous with ``log_density`` and ``quadrature_hints``.
    kernel : MarkovOperator
        A kernel y = x + Z with a registered `shift_noise` (GaussianKernel, LaplaceKernel).
    step : float, optional
        The grid step h (> 0); default: the noise scale / 100, giving a bound ≈ 4e-6 (Gaussian) or 8e-6 (Laplace).
    tail : float
        The grid spans mu's locations ± tail·(its largest scale) ± tail·(noise scale); >= 1.
    max_points : int
        Refuse grids with more nodes (ValueError naming `step`).

    Returns
    -------
    GridLaw with ``error_bound`` >= sup_y |CDF error| and the parts of the bound in ``terms``.
    """
    if not isinstance(mu, Distribution):
        raise fail("mu", "a Distribution", type(mu).__name__, TypeError)
    if not isinstance(kernel, MarkovOperator):
        raise fail("kernel", "a MarkovOperator", type(kernel).__name__, TypeError)
    require_compatible(mu.space, kernel.domain, "mu >> K")
    if mu.space != RealSpace(1):
        raise NotImplementedError(f"grid_push is 1-D; got a law on {mu.space.describe()}.")
    noise = shift_noise(kernel)
    h = noise.scale / 100.0 if step is None else check_positive("step", step)
    tail = float(check_positive("tail", tail))
    if tail < 1.0:
        raise fail("tail", ">= 1", tail)
    max_points = check_int("max_points", max_points, minimum=2)

    support, cells = _support(mu, tail)
    lo, hi = support[0] - tail * noise.scale, support[1] + tail * noise.scale
    if not math.isfinite(hi - lo):
        raise fail("tail", "small enough that the grid's span is finite", tail)
    if not h <= hi - lo:
        raise fail("step", f"at most the grid's span {hi - lo:g}", h)
    n = int(math.ceil((hi - lo) / h)) + 1
    if n > max_points:
        raise fail("step", f"large enough for at most max_points = {max_points} nodes "
                   f"(the grid spans [{lo:g}, {hi:g}])", h)
    nodes = lo + h * np.arange(n)
    m0, m1, m2 = cells(nodes, h)

    offsets = h * np.arange(-(n - 1), n)
    step_at_zero = np.where(offsets >= 0.0, 1.0, 0.0)  # G − 1{z >= 0} decays on both sides
    cdf_nodes = (_convolve(m0, noise.cdf(offsets) - step_at_zero)[n - 1:2 * n - 1] + np.cumsum(m0)
                 - _convolve(m1, noise.pdf(offsets))[n - 1:2 * n - 1])
    lip = noise.density_lipschitz
    terms = {"taylor": 0.5 * lip * float(m2.sum()), "truncation": max(1.0 - float(m0.sum()), 0.0),
             "interpolation": lip * h * h / 8.0, "rounding": 4.0 * (n + 1) * _EPS,
             "ends": max(float(cdf_nodes[0]), 1.0 - float(cdf_nodes[-1]), 0.0)}
    values = np.clip(np.maximum.accumulate(cdf_nodes), 0.0, 1.0)  # monotone: keeps every nodal error bound
    values[0], values[-1] = 0.0, 1.0
    return GridLaw(nodes, values, float(sum(terms.values())), terms)


def _convolve(a: Array, b: Array) -> Array:
    """The full linear convolution of a and b by numpy's real FFT (scipy.signal costs seconds to import)."""
    size = a.size + b.size - 1
    n = 1 << (size - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)[:size]


def _support(mu: Distribution, tail: float) -> tuple[tuple[float, float], Callable[[Array, float], Moments]]:
    """(the span of mu's mass, a function (nodes, h) ↦ per-cell mass and first two moments about the nodes)."""
    if mu.kind == "atomic":
        atoms, weights = mu.atoms()
        x = np.asarray(atoms, dtype=np.float64).reshape(-1)

        def atomic_cells(nodes: Array, h: float) -> Moments:
            idx = np.clip(np.rint((x - nodes[0]) / h).astype(np.int64), 0, nodes.size - 1)
            d = x - nodes[idx]
            m0, m1, m2 = (np.bincount(idx, weights * d**p, minlength=nodes.size) for p in range(3))
            return m0, m1, m2

        return (float(x.min()), float(x.max())), atomic_cells
    hints = mu.quadrature_hints()
    if hints is None:
        raise NotImplementedError(
            f"grid_push needs an atomic law or one with quadrature_hints(); got {type(mu).__name__}.")
    locs, scales = (np.asarray(v, dtype=np.float64) for v in hints)
    span = (float(locs.min() - tail * scales.max()), float(locs.max() + tail * scales.max()))
    return span, lambda nodes, h: _continuous_cells(mu, locs, float(scales.min()), span, nodes, h)


Moments = tuple[Array, Array, Array]


def _continuous_cells(mu: Distribution, locs: Array, scale: float, span: tuple[float, float], nodes: Array,
                      h: float) -> Moments:
    """Per-cell mass and moments about the node, by 8-point Gauss–Legendre on sub-cells of width
    <= min(h, scale/8), split at mu's quadrature locations, over the cells that meet mu's span."""
    first = max(int(math.floor((span[0] - nodes[0]) / h)), 0)
    last = min(int(math.ceil((span[1] - nodes[0]) / h)), nodes.size - 1)
    sub = int(math.ceil(h / min(h, scale / 8.0)))
    edges = nodes[first] - h / 2.0 + (h / sub) * np.arange((last - first + 1) * sub + 1)
    pts = np.unique(np.concatenate([edges, locs[(locs > edges[0]) & (locs < edges[-1])]]))
    mid, half = (pts[1:] + pts[:-1]) / 2.0, (pts[1:] - pts[:-1]) / 2.0
    x = mid[:, None] + half[:, None] * _GL_NODES
    with np.errstate(under="ignore"):
        dens = np.exp(np.asarray(mu.log_density(x.ravel()), dtype=np.float64).reshape(x.shape))
    cell = np.clip(np.rint((mid - nodes[0]) / h).astype(np.int64), 0, nodes.size - 1)
    d = x - nodes[cell][:, None]
    m0, m1, m2 = (np.bincount(cell, ((dens * d**p) @ _GL_WEIGHTS) * half, minlength=nodes.size) for p in range(3))
    return m0, m1, m2


__all__ = ["SHIFT_NOISE", "GridLaw", "ShiftNoise", "grid_push", "shift_noise"]
