"""Lipschitz Gaussian kernels y = Π_W(ψ(x) + N(0, σ² I)) on R^d and their compiled chain sampler (BBGG-T4, BBGG-E3).

ψ is a numba-compiled map with a declared Lipschitz constant, checked on random point pairs at construction.
Chains ``K1 >> K2 >> …`` and powers ``K ** r`` of these kernels are sampled by one compiled call
(`sample_chain`, `LipschitzGaussianKernel.sample_steps`); numba is imported only when a kernel is built.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_instance, check_int, check_points, check_positive, check_size, fail
from ..spaces import IncompatibleSpaces, RealSpace
from .algebra import Chain, Power
from .base import MarkovOperator
from .projections import Projection, check_projection, no_projection

#: A declared constant L is refused when some checked pair has ||ψ(x) − ψ(y)|| / ||x − y|| > L (1 + this).
LIPSCHITZ_SLACK = 1e-9
#: The declaration is checked on this many random pairs: centres of scale 10^-2 … 10^3, offsets 10^-3 … 10
#: times the centre scale (so rounding in ψ cannot fake a ratio above L (1 + LIPSCHITZ_SLACK)).
LIPSCHITZ_PAIRS = 256
LIPSCHITZ_SEED = 20190611
#: Allowance for rounding in the two evaluations of ψ, in ulps (times d) of ||ψ(x)|| + ||ψ(y)|| + L (||x|| + ||y||).
ROUNDING_ULPS = 16
_CENTRE_SCALES = (1e-2, 1.0, 1e2, 1e3)
_OFFSET_SCALES = (1e-3, 1e-1, 1.0, 10.0)

_HOW_TO_COMPILE = ("a numba-compiled map: `from numba import njit`, then decorate it with `@njit` — either "
                   "`def psi(x): return ...` (a new array of length d) or `def psi(x, out): out[:] = ...`")


def _arity(psi: Any) -> int:
    """1 for ``psi(x) -> array``, 2 for ``psi(x, out)``; TypeError naming the two signatures otherwise."""
    from numba.core.dispatcher import Dispatcher

    if not isinstance(psi, Dispatcher):
        raise fail("psi", _HOW_TO_COMPILE, f"{psi!r} of type {type(psi).__name__}", TypeError)
    params = inspect.signature(psi.py_func).parameters.values()
    if len(params) not in (1, 2) or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        raise fail("psi", "a function of one point, `psi(x)` or `psi(x, out)`",
                   f"{psi.__name__}{inspect.signature(psi.py_func)}", TypeError)
    return len(params)


def _evaluate(psi: Any, arity: int, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """ψ(x) for one point, checking it has shape (d,) and is finite (ValueError naming the point otherwise)."""
    d = x.size
    if arity == 1:
        y = psi(x.copy())
        shape = getattr(y, "shape", None)
        if not isinstance(y, np.ndarray) or y.shape != (d,):
            raise fail("psi", f"a map returning an array of shape ({d},)", f"shape {shape} ({type(y).__name__})")
        y = np.asarray(y, dtype=np.float64)
    else:
        buffer = np.full(2 * d, np.nan)  # out = buffer[:d]; a write past it lands in buffer[d:], seen below
        result = psi(x.copy(), buffer[:d])
        if result is not None:
            raise fail("psi", "an in-place map `psi(x, out)` that writes ψ(x) into out and returns None",
                       f"a return value of type {type(result).__name__}", TypeError)
        if not np.all(np.isnan(buffer[d:])):
            raise fail("psi", f"a map writing exactly the {d} coordinates of `out`", "writes past them")
        y = buffer[:d]
        if np.isnan(y).any():
            k = int(np.flatnonzero(np.isnan(y))[0])
            raise fail("psi", f"a map writing all {d} coordinates of `out` (finite values)",
                       f"out[{k}] left unwritten or NaN at x = {x.tolist()!r}")
    if not np.all(np.isfinite(y)):
        raise fail("psi", "a map with finite values", f"ψ(x) = {y.tolist()!r} at x = {x.tolist()!r}")
    return y


def check_lipschitz(psi: Any, arity: int, lipschitz: float, d: int, projection: Projection | None) -> None:
    """Refuse an obviously false Lipschitz constant: ValueError showing the worst of `LIPSCHITZ_PAIRS` random pairs.

    A pair refutes L when ||ψ(x) − ψ(y)|| > L (1 + `LIPSCHITZ_SLACK`) ||x − y|| + the rounding error of the two
    evaluations (`ROUNDING_ULPS` ulps of their scale), so rounding never refuses a true constant. With a
    projection the pairs are drawn in W (ψ need only be Lipschitz on W, BBGG-T4). A check, not a proof.
    """
    rng = np.random.default_rng(LIPSCHITZ_SEED)
    per = LIPSCHITZ_PAIRS // (len(_CENTRE_SCALES) * len(_OFFSET_SCALES))
    for centre in _CENTRE_SCALES:
        for offset in _OFFSET_SCALES:
            x = centre * rng.standard_normal((per, d))
            y = x + centre * offset * rng.standard_normal((per, d))
            if projection is not None:
                x, y = projection.project(x).reshape(per, d), projection.project(y).reshape(per, d)
            for xi, yi in zip(x, y, strict=True):
                gap = float(np.linalg.norm(xi - yi))
                if gap == 0.0:
                    continue
                fx, fy = _evaluate(psi, arity, xi), _evaluate(psi, arity, yi)
                scale = float(np.linalg.norm(fx) + np.linalg.norm(fy)) + lipschitz * float(np.linalg.norm(xi)
                                                                                            + np.linalg.norm(yi))
                rounding = ROUNDING_ULPS * d * np.finfo(float).eps * scale
                excess = float(np.linalg.norm(fx - fy)) - rounding
                if excess > lipschitz * (1.0 + LIPSCHITZ_SLACK) * gap:
                    ratio = float(np.linalg.norm(fx - fy)) / gap
                    raise fail("lipschitz", f"a true Lipschitz constant of psi ({psi.__name__})",
                               f"{lipschitz!r}, but ||ψ(x) − ψ(y)|| / ||x − y|| = {ratio!r} at x = {xi.tolist()!r}, "
                               f"y = {yi.tolist()!r}")


@dataclass(frozen=True)
class LipschitzGaussianKernel(MarkovOperator):
    """K(x) = law of Π_W(ψ(x) + Z), Z ~ N(0, sigma² I_d): a Lipschitz map, Gaussian noise, then a projection.

    THEORY: BBGG-T4 (Y_i = Π_W(ψ_i(x) + Z_i)), BBGG-E3 (no projection). `sigma` is a standard deviation;
    `lipschitz` is a declared L with ||ψ(x) − ψ(y)||_2 <= L ||x − y||_2 (on W when a projection is given),
    checked on `LIPSCHITZ_PAIRS` random pairs at construction (an obviously false L is refused).

    `psi` is an ``@njit`` function of one point ``x`` (a 1-D float64 array of length d, not to be modified), in
    either signature:

    - ``psi(x) -> y``: returns a new float64 array of shape (d,) (simplest);
    - ``psi(x, out) -> None``: writes ψ(x) into ``out`` (a distinct float64 array of length d). No allocation
      per step, so chains sample several times faster; the built-in maps (`linear_map`, `tanh_map`,
      `diagonal_map`, `gradient_step_map`) use it.

    `projection` is None (W = R^d), `Ball(d, radius)` or `Box(low, high)`; `dim` is d (from the projection when
    given, else the keyword, default 1). Points have shape (n,) when d = 1 and (n, d) otherwise.

    `lipschitz_everywhere`: whether L holds on all of R^d, not only on W (then the constant is checked on pairs of
    R^d, and BBGG-T4 accepts the step whatever its inputs). Default: True without a projection and for the
    built-in maps (`markovdp.operators.maps`), False for a user map with a projection.
    """

    psi: Any
    lipschitz: float
    sigma: float
    projection: Projection | None = None
    dim: int | None = None
    lipschitz_everywhere: bool | None = None

    def __post_init__(self) -> None:
        arity = _arity(self.psi)
        object.__setattr__(self, "lipschitz", check_positive("lipschitz", self.lipschitz))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        if self.dim is None:
            dim = self.projection.dim if isinstance(self.projection, Projection) else 1
        else:
            dim = check_int("dim", self.dim, minimum=1)
        check_size("dim", dim, 4 * LIPSCHITZ_PAIRS * dim, what="the points of the Lipschitz check")
        object.__setattr__(self, "projection", check_projection(self.projection, dim))
        object.__setattr__(self, "dim", dim)
        from numba.core.errors import TypingError

        origin = np.zeros(dim) if self.projection is None else self.projection.project(np.zeros(dim)).reshape(dim)
        try:
            _evaluate(self.psi, arity, origin)
        except TypingError as exc:  # numba cannot compile ψ for one float64 point of R^dim
            raise fail("psi", f"a map of one point of R^{dim} (a float64 array of shape ({dim},))",
                       f"a numba typing error: {str(exc).strip().splitlines()[0]}", TypeError) from exc
        everywhere = self.lipschitz_everywhere
        if everywhere is None:
            from .maps import is_lipschitz_everywhere

            everywhere = is_lipschitz_everywhere(self.psi)
        elif not isinstance(everywhere, (bool, np.bool_)):
            raise fail("lipschitz_everywhere", "True, False or None", repr(everywhere), TypeError)
        everywhere = bool(everywhere) or self.projection is None
        object.__setattr__(self, "lipschitz_everywhere", everywhere)
        check_lipschitz(self.psi, arity, self.lipschitz, dim, None if everywhere else self.projection)

    @property
    def domain(self) -> RealSpace:
        return RealSpace(self.dim)

    @property
    def codomain(self) -> RealSpace:
        return RealSpace(self.dim)

    def apply_psi(self, x: ArrayLike) -> NDArray[np.float64]:
        """ψ at each point (compiled; same shapes as `sample`)."""
        return _sample_segments([(self, 1)], x, None, noise=False)

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        """One step y = Π_W(ψ(x) + sigma Z) for each point (the normals as in `sample_chain`)."""
        return sample_chain((self,), x, rng)

    def sample_steps(self, x: ArrayLike, r: int, rng: RNGLike = None) -> NDArray[np.float64]:
        """r steps of this kernel (the law of ``K ** r``) in one compiled call; see `sample_chain`."""
        return _sample_segments([(self, check_int("r", r, minimum=1))], x, rng)

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """log of the N(ψ(x), sigma² I) density at y (no projection only: with one the law has atoms on ∂W)."""
        if self.projection is not None:
            raise NotImplementedError(
                f"LipschitzGaussianKernel with projection {self.projection!r} has no density: Π_W puts positive "
                "mass on the boundary of W (atoms), so the law is not absolutely continuous.")
        diff = check_points("y", y, self.dim) - self.apply_psi(x)
        sq = diff**2 if self.dim == 1 else (diff**2).sum(axis=-1)
        return -0.5 * sq / self.sigma**2 - self.dim * (math.log(self.sigma) + 0.5 * math.log(2 * math.pi))

    def __repr__(self) -> str:
        projection = "" if self.projection is None else f", projection={self.projection!r}"
        return (f"LipschitzGaussianKernel(psi={self.psi.__name__}, lipschitz={self.lipschitz!r}, "
                f"sigma={self.sigma!r}{projection}, dim={self.dim})")


def is_lipschitz_chain(operators: Sequence[MarkovOperator]) -> bool:
    """Whether every operator is a `LipschitzGaussianKernel` or a `Power` of one (so `sample_chain` applies).

    `operators`: a non-empty list or tuple of MarkovOperators.
    """
    allowed = "a non-empty list or tuple of MarkovOperators"
    if not isinstance(operators, (list, tuple)):
        raise fail("operators", allowed, type(operators).__name__, TypeError)
    if not operators:
        raise fail("operators", allowed, "an empty sequence")
    for op in operators:
        check_instance("operators", op, MarkovOperator, allowed)
    return _is_lipschitz_chain(operators)


def _is_lipschitz_chain(operators: Sequence[MarkovOperator]) -> bool:
    return all(isinstance(op, LipschitzGaussianKernel)
               or (isinstance(op, Power) and isinstance(op.base, LipschitzGaussianKernel)) for op in operators)


def sample_chain(kernels: Sequence[MarkovOperator] | MarkovOperator, x: ArrayLike,
                 rng: RNGLike = None) -> NDArray[np.float64]:
    """Sample ``kernels[0] >> kernels[1] >> …`` (Lipschitz Gaussian kernels, powers of them, or a `Chain` of
    those) at each point in one compiled call, with the state of each point kept in scratch vectors.

    The noise comes from the numba-native generator `markovdp._fast_normal` (xoshiro256++, ziggurat), one
    stream per block of `BLOCK_POINTS` points seeded by address under a root SeedSequence seeded by four words
    of ``as_generator(rng)`` (a Generator advances by four): with R steps in all, step s of point i = b·P + j
    adds sigma_s times ``Z_b[j, s]`` of ``Z_b = fill_normals(states[b], (P, R, d))``
    (`markovdp.operators._lipschitz_kernels`).
    Same `rng` → same samples; the samples of a point depend on `rng`, its block and its place in it only.
    """
    ops = kernels.operators if isinstance(kernels, Chain) else kernels
    if not isinstance(ops, (MarkovOperator, list, tuple)):
        raise fail("kernels", "a non-empty sequence of LipschitzGaussianKernel (or Power of one)",
                   type(ops).__name__, TypeError)
    ops = (ops,) if isinstance(ops, MarkovOperator) else tuple(ops)
    if not ops or not _is_lipschitz_chain(ops):
        raise fail("kernels", "a non-empty sequence of LipschitzGaussianKernel (or Power of one)",
                   f"{ops!r}", TypeError)
    segments = [(op.base, op.r) if isinstance(op, Power) else (op, 1) for op in ops]
    return _sample_segments(segments, x, rng)


def _sample_segments(segments: list[tuple[LipschitzGaussianKernel, int]], x: ArrayLike, rng: RNGLike,
                     noise: bool = True) -> NDArray[np.float64]:
    """The chain of segments (kernel, repeats) at each point; ``noise=False``: ψ alone (no noise, no projection)."""
    from .._numba_inline import inplace_form
    from ._lipschitz_kernels import block_states, chain_sampler

    dim = segments[0][0].dim
    for kernel, _ in segments[1:]:
        if kernel.dim != dim:
            raise IncompatibleSpaces(f"`kernels`: cannot chain a kernel on R^{dim} with one on R^{kernel.dim}.")
    points = check_points("x", x, dim)
    flat = np.ascontiguousarray(points.reshape(-1, dim))
    merged: list[list[Any]] = []  # consecutive equal kernels → one segment
    for kernel, r in segments:
        if merged and merged[-1][0] == kernel:
            merged[-1][1] += r
        else:
            merged.append([kernel, r])
    steps = [inplace_form(k.psi, _arity(k.psi)) for k, _ in merged]
    psis = tuple(dict.fromkeys(steps))
    forms = [no_projection() if k.projection is None or not noise else k.projection.numba_form() for k, _ in merged]
    segment_kinds = [(psis.index(step), code) for step, (code, _) in zip(steps, forms, strict=True)]
    kinds = tuple(dict.fromkeys(segment_kinds))
    params = [p for _, p in forms]
    out = np.empty_like(flat)
    states = block_states(rng, flat.shape[0]) if noise else np.zeros((0, 4), dtype=np.uint64)
    chain_sampler(psis, dim, kinds, noise)(
        flat, out, states,
        np.array([kinds.index(kind) for kind in segment_kinds], dtype=np.int64),
        np.array([k.sigma if noise else 0.0 for k, _ in merged]),
        np.array([r for _, r in merged], dtype=np.int64),
        np.concatenate([np.zeros(0), *params]),
        np.concatenate([[0], np.cumsum([p.size for p in params])]).astype(np.int64),
    )
    return out.reshape(points.shape)


__all__ = ["LipschitzGaussianKernel", "is_lipschitz_chain", "sample_chain"]
