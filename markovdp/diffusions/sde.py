"""A time-homogeneous Itô SDE dX = u(X) dt + v(X) dW on R^d, described by two numba-compiled maps.

The description is separate from the solver (`markovdp.diffusions.solvers`) and from the driver that runs an
ensemble of paths (`markovdp.diffusions.simulate`), as in diffrax. THEORY: BBGG-S (the generator of this SDE is
``L f = <u, ∇f> + ½ <v vᵀ, Hess f>``). numba is imported only when an `SDE` is built.
"""

from __future__ import annotations

import inspect
from dataclasses import InitVar, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int, check_size, check_vector, fail

NOISES = ("diagonal", "general")

_HOW_TO_COMPILE = ("a numba-compiled function: `from numba import njit`, then decorate it with `@njit` — either "
                   "`def {name}(x): return ...` (a new array) or `def {name}(x, out): out[...] = ...` (in place, "
                   "no allocation per step: several times faster)")


def arity(name: str, fn: Any) -> int:
    """1 for ``fn(x) -> array``, 2 for ``fn(x, out)``; TypeError saying how to compile a plain function."""
    from numba.core.dispatcher import Dispatcher

    if not isinstance(fn, Dispatcher):
        raise fail(name, _HOW_TO_COMPILE.format(name=name), f"{fn!r} of type {type(fn).__name__}", TypeError)
    params = inspect.signature(fn.py_func).parameters.values()
    if len(params) not in (1, 2) or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        raise fail(name, f"a function of one point, `{name}(x)` or `{name}(x, out)`",
                   f"{fn.__name__}{inspect.signature(fn.py_func)}", TypeError)
    return len(params)


def evaluate(name: str, fn: Any, fn_arity: int, x: NDArray[np.float64],
             shape: tuple[int, ...]) -> NDArray[np.float64]:
    """fn(x) at one point, checked to have `shape` and finite values (ValueError naming the point otherwise)."""
    from numba.core.errors import TypingError

    size = int(np.prod(shape))
    try:
        if fn_arity == 1:
            y = fn(x.copy())
            if not isinstance(y, np.ndarray) or y.shape != shape:
                got = f"shape {getattr(y, 'shape', None)} ({type(y).__name__})"
                raise fail(name, f"a function returning an array of shape {shape}", got)
            y = np.asarray(y, dtype=np.float64)
        else:
            buffer = np.full(2 * size, np.nan)  # out = buffer[:size]; a write past it lands in buffer[size:]
            out = buffer[:size].reshape(shape)
            result = fn(x.copy(), out)
            if result is not None:
                raise fail(name, f"an in-place function `{name}(x, out)` that fills out and returns None",
                           f"a return value of type {type(result).__name__}", TypeError)
            if not np.all(np.isnan(buffer[size:])):
                raise fail(name, f"a function writing exactly the entries of `out` (shape {shape})", "writes past them")
            y = out
    except TypingError as exc:  # numba cannot compile fn for this signature (e.g. an `out` of the wrong rank)
        kind = f"`{name}(x)`" if fn_arity == 1 else f"`{name}(x, out)` with out of shape {shape}"
        raise fail(name, f"a function {kind} of a float64 point of R^{x.size}",
                   f"a numba typing error: {str(exc).strip().splitlines()[0]}", TypeError) from exc
    if not np.all(np.isfinite(y)):
        raise fail(name, f"a function with finite values at the test point (every entry of shape {shape} written)",
                   f"{y.tolist()!r} at x = {x.tolist()!r}")
    return y


@dataclass(frozen=True)
class SDE:
    """dX = u(X) dt + v(X) dW: a time-homogeneous Itô SDE on R^dim (THEORY: BBGG-S).

    `drift` u and `diffusion` v are ``@njit`` functions of one point x (a float64 array of shape (dim,), not to be
    modified), each in either signature: ``f(x) -> array`` (a new array) or ``f(x, out) -> None`` (writes into
    ``out``; no allocation per step, several times faster). Shapes:

    - ``drift``: (dim,);
    - ``diffusion`` with ``noise="diagonal"``: (dim,), the diagonal of v, so that dX_i = u_i dt + v_i(X) dW_i
      with dim independent Brownian motions (Milstein needs v_i to depend on x_i only: see `Milstein`);
    - ``diffusion`` with ``noise="general"``: (dim, noise_dim), the matrix v, dX = u dt + v dW with W a Brownian
      motion of R^noise_dim (`noise_dim` defaults to `dim`; only for ``noise="general"``).

    Both are evaluated once at construction at `test_point` (default: the origin), which checks the compiled
    signature (TypeError), the output shape and that the values there are finite (ValueError).
    """

    drift: Any
    diffusion: Any
    dim: int
    noise: str = "diagonal"
    noise_dim: int | None = None
    test_point: InitVar[ArrayLike | None] = None
    #: (drift, diffusion) as in-place ``f(x, out)`` maps, what the compiled integrators call.
    inplace_maps: tuple[Any, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self, test_point: ArrayLike | None) -> None:
        drift_arity, diffusion_arity = arity("drift", self.drift), arity("diffusion", self.diffusion)
        dim = check_int("dim", self.dim, minimum=1)
        object.__setattr__(self, "dim", dim)
        if not isinstance(self.noise, str) or self.noise not in NOISES:
            raise fail("noise", "'diagonal' or 'general'", repr(self.noise))
        if self.noise == "diagonal":
            if self.noise_dim not in (None, dim):
                raise fail("noise_dim", f"None or {dim} (= dim) for diagonal noise", self.noise_dim)
            m = dim
        else:
            m = dim if self.noise_dim is None else check_int("noise_dim", self.noise_dim, minimum=1)
        object.__setattr__(self, "noise_dim", m)
        check_size("dim", dim, dim * (m + 2) if self.noise == "general" else 3 * dim,
                   what="the test point and the drift and diffusion values")
        x = np.zeros(dim) if test_point is None else check_vector("test_point", test_point, dim)
        evaluate("drift", self.drift, drift_arity, x, (dim,))
        evaluate("diffusion", self.diffusion, diffusion_arity, x, self.diffusion_shape)
        from .._numba_inline import inplace_form

        general = self.noise == "general"
        maps = (inplace_form(self.drift, drift_arity, False), inplace_form(self.diffusion, diffusion_arity, general))
        object.__setattr__(self, "inplace_maps", maps)

    @property
    def diffusion_shape(self) -> tuple[int, ...]:
        """(dim,) for diagonal noise, (dim, noise_dim) for general noise."""
        return (self.dim,) if self.noise == "diagonal" else (self.dim, int(self.noise_dim or self.dim))

    def __repr__(self) -> str:
        m = "" if self.noise == "diagonal" else f", noise_dim={self.noise_dim}"
        return (f"SDE(drift={self.drift.__name__}, diffusion={self.diffusion.__name__}, dim={self.dim}, "
                f"noise={self.noise!r}{m})")


__all__ = ["SDE"]
