"""The driver: an ensemble of SDE paths by a fixed-step solver, compiled (numba) or by sdeint for cross-checks.

Seeds are addresses (DESIGN §7): the paths are cut into blocks of `BLOCK_PATHS`, and block b draws its normals
from its own xoshiro256++ stream (`markovdp._fast_normal`), seeded by ``SeedSequence(entropy, spawn_key=(*key,
b))`` under the root of `rng` (`root_seed`, `block_state`). Path i of a block takes its normals consecutively,
step s coordinate j being the (i·S·m + s·m + j)-th normal of the block's stream (S steps in all): the layout of
``fill_normals(block_state(root, b), z)`` for z of shape (paths of the block, S, m). So a path depends only on the
seed and its index (not on the number of paths, nor on how or on how many threads blocks are run), no state is
shared between blocks, and the same seed gives identical paths.

Given increments (``increments=``, as ``sdeint``'s ``dW=`` and diffrax's Brownian paths): path i takes
``increments[i, s]`` as its ΔW at step s and no generator is built, so the same increments drive any starting
points (a synchronous coupling) and a path drawn by the seed is reproduced from ``sqrt(h) · fill_normals(...)``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_positive, check_range, check_real, check_size, check_work, fail
from ..spaces import IncompatibleSpaces
from .sde import SDE, arity
from .solvers import Solver

#: Paths per block: each block has its own stream (by address), so this fixes which normals a path gets.
BLOCK_PATHS = 256
#: A segment of length Δ takes ceil(Δ/dt − STEP_SLACK) steps: a t1/dt that is an integer up to rounding is one.
STEP_SLACK = 1e-9
BACKENDS = ("numba", "sdeint")


def _positive(name: str, value: Any) -> float:
    """`check_positive`, with a fast path for a plain finite positive float (the common case)."""
    if type(value) is float and 0.0 < value < math.inf:
        return value
    return check_positive(name, value)


def _initial_points(x0: ArrayLike, dim: int, n_paths: int | None) -> NDArray[np.float64]:
    """x0 as a C-contiguous (n, dim) array: one point repeated n_paths times, or n points (n_paths None)."""
    if type(x0) is float and math.isfinite(x0):
        arr = np.array(x0)
    else:
        arr = np.asarray(check_real("x0", x0), dtype=np.float64)
    one_point = arr.ndim <= 1 and arr.size == dim
    if arr.ndim == 2 and arr.shape[1] != dim or arr.ndim == 1 and dim > 1 and arr.size != dim:
        raise IncompatibleSpaces(f"`x0` has points of R^{arr.shape[-1]}, but the SDE is on R^{dim}.")
    if n_paths is not None:
        n = check_int("n_paths", n_paths, minimum=1)
        check_size("n_paths", n, 2.0 * n * dim, what="the paths' states")
        if not one_point:
            scalar = " or a scalar" if dim == 1 else ""
            raise fail("x0", f"one point of R^{dim} (shape ({dim},){scalar}) when `n_paths` is given",
                       f"shape {arr.shape}")
        points = np.empty((n, dim))
        points[:] = arr.reshape(1, dim)
        return points
    if arr.ndim == 2 or arr.ndim == 1 and dim == 1:
        if arr.size == 0:
            raise fail("x0", "at least one point", f"shape {arr.shape}")
        return np.ascontiguousarray(arr.reshape(-1, dim))
    shapes = f"(n_paths, {dim})" + (" or (n_paths,)" if dim == 1 else "")
    raise fail("x0", f"points of shape {shapes}, or one point with `n_paths=`", f"shape {arr.shape}")


@lru_cache(maxsize=64)
def _plain_segments(t1: float, dt: float) -> tuple[NDArray[Any], ...]:
    """`_segments` without save times (cached: a single path costs a few tens of microseconds; not modified)."""
    return _segments(t1, dt, None)


def _segments(t1: float, dt: float, save_at: ArrayLike | None) -> tuple[NDArray[Any], ...]:
    """Boundaries, steps, step sizes and save slots of the segments between 0, the save times and t1."""
    if save_at is None:
        times = np.zeros(0)
    else:
        times = np.atleast_1d(check_range("save_at", save_at, low=0.0, high=t1, allowed=f"times in [0, t1 = {t1!r}]"))
        if times.ndim != 1 or times.size == 0:
            raise fail("save_at", "a non-empty 1-D array of times", f"shape {times.shape}")
        if np.any(np.diff(times) <= 0):
            raise fail("save_at", "strictly increasing times", times.tolist())
    bounds = np.concatenate([[0.0], times, [t1]])
    lengths = np.diff(bounds)
    steps = np.where(lengths > 0, np.maximum(1, np.ceil(lengths / dt - STEP_SLACK)), 0).astype(np.int64)
    h = np.where(steps > 0, lengths / np.maximum(steps, 1), 0.0)
    save = np.concatenate([np.arange(times.size), [-1]]).astype(np.int64)
    return bounds, steps, h, save, times


def root_seed(rng: RNGLike) -> tuple[Any, tuple[int, ...]]:
    """(entropy, spawn key) of the root: an int seed or a SeedSequence itself; a Generator (or None: fresh
    entropy) gives one draw of root entropy, so successive calls with one Generator differ."""
    if isinstance(rng, np.random.SeedSequence):
        return rng.entropy, tuple(rng.spawn_key)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return int(rng), ()
    return int(as_generator(rng).integers(0, 2**63)), ()


def block_seed(root: tuple[Any, tuple[int, ...]], block: int) -> np.random.SeedSequence:
    """The seed of block `block`: ``SeedSequence(entropy, spawn_key=(*key, block))``, an address under the root
    (never a stateful spawn, so it does not depend on the order in which blocks run)."""
    entropy, key = root
    return np.random.SeedSequence(entropy, spawn_key=(*key, block))


def _words(value: Any) -> list[int] | None:
    """The 32-bit words numpy's SeedSequence reads from an int >= 0 or a sequence of them (None otherwise)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 0:
        n = int(value)
        words = [n & 0xFFFFFFFF] if n == 0 else []
        while n > 0:
            words.append(n & 0xFFFFFFFF)
            n >>= 32
        return words
    if isinstance(value, (list, tuple, np.ndarray)):
        parts = [_words(v) for v in value]
        return None if any(p is None for p in parts) else [w for p in parts for w in p]  # type: ignore[union-attr]
    return None


def root_prefix(root: tuple[Any, tuple[int, ...]]) -> NDArray[np.uint64] | None:
    """The words `_kernels.address_state` hashes before the block index: the root entropy's, zero-padded to
    numpy's pool size 4, then the root key's; None for an entropy of another form (numpy's SeedSequence then)."""
    entropy, key = _words(root[0]), _words(root[1])
    if entropy is None or key is None:
        return None
    return np.array(entropy + [0] * (4 - len(entropy)) + key, dtype=np.uint64)


def block_state(root: tuple[Any, tuple[int, ...]], block: int,
                prefix: NDArray[np.uint64] | None = None) -> NDArray[np.uint64]:
    """The xoshiro256++ state of block `block`, ``make_state(block_seed(root, block))`` (`markovdp._fast_normal`):
    its normals are that state's `fill_normals` stream. Hashed in numba from `root_prefix` (given or computed)."""
    prefix = root_prefix(root) if prefix is None else prefix
    if prefix is None:
        from .._fast_normal import make_state

        return make_state(block_seed(root, block))
    from ._kernels import address_state

    return address_state(prefix, block)


def _increments(increments: ArrayLike, n: int, total: int, m: int) -> NDArray[np.float64]:
    """The given Brownian increments as a C-contiguous float64 (n, S, m) array of finite values."""
    dw = np.ascontiguousarray(check_real("increments", increments), dtype=np.float64)
    if dw.shape != (n, total, m):
        raise fail("increments", f"an array of shape (n_paths, steps, noise_dim) = ({n}, {total}, {m}) (one "
                   "increment per path, step of the grid and noise coordinate)", f"shape {dw.shape}")
    return dw


def _nonfinite(path: int, step: int, bounds: NDArray[Any], steps: NDArray[Any], h: NDArray[Any]) -> FloatingPointError:
    """The error for a state that left the finite numbers after `step` steps (time from the segments)."""
    before = np.concatenate([[0], np.cumsum(steps)])
    g = int(np.searchsorted(before, step, side="left")) - 1
    t = float(bounds[g] + (step - before[g]) * h[g])
    return FloatingPointError(
        f"SDE path {path} has a non-finite state (NaN or inf) after step {step} (t = {t!r}): the integration stopped "
        "there. Reduce `dt` or check that the drift and diffusion do not grow too fast for an explicit scheme.")


def simulate(sde: SDE, solver: Solver, x0: ArrayLike, *, t1: float, dt: float, rng: RNGLike = None,
             save_at: ArrayLike | None = None, backend: str = "numba",
             n_paths: int | None = None, workers: int = 1, increments: ArrayLike | None = None) -> Any:
    """An ensemble of paths of dX = u(X) dt + v(X) dW from x0 to time t1 by a fixed-step `solver`.

    Parameters
    ----------
    sde, solver : the `SDE` and a solver (`EulerMaruyama()`, `Milstein()`; THEORY: STD-EulerMaruyama,
        STD-Milstein).
    x0 : points of shape (n_paths, dim) (or (n_paths,) when dim = 1), one path from each; or one point (shape
        (dim,), or a scalar when dim = 1) together with ``n_paths=``, every path starting there.
    t1 : the final time, > 0 (the same units as dt).
    dt : the largest step, 0 < dt <= t1. Each stretch between 0, the save times and t1 of length Δ is cut into
        ceil(Δ/dt) equal steps, so the grid hits every save time and t1 exactly.
    rng : an int seed or a SeedSequence (the root itself), or a Generator (one draw of root entropy is taken
        from it; None: fresh entropy). Block b of `BLOCK_PATHS` paths draws from its own xoshiro256++ stream,
        seeded by ``SeedSequence(entropy, spawn_key=(*root key, b))``: a path depends on the seed and its index.
        Not used (a Generator is not advanced) when `increments` is given.
    save_at : optional increasing times in [0, t1] at which to record the state.
    workers : threads running blocks at once (numba backend; the kernels release the GIL). Each block has its own
        generator state and output rows, so the result is bit-identical for any number of workers.
    backend : "numba" (compiled, the normals of each block drawn inside the loop) or "sdeint" (``sdeint.itoEuler``
        on the same increments for EulerMaruyama, path by path equal to the numba result up to rounding;
        ``sdeint.itoSRI2`` for Milstein, equal in law only; slow, one path per call: for cross-checks).
    increments : optional Brownian increments ΔW, shape (n_paths, S, noise_dim) with S the number of steps of
        the grid (S = ceil(t1/dt) without `save_at`; in general the sum over the stretches of ceil(Δ/dt)), in
        units of sqrt(time): ΔW at a step of size h should be N(0, h I) (only the shape and finiteness are
        checked). Path i takes ``increments[i, s]`` at step s, in every solver and backend (sdeint's
        ``itoSRI2`` then gets the repeated integrals I_jk = (ΔW_j ΔW_k − h δ_jk)/2, i.e. zero Lévy areas:
        exact for commutative noise, where Milstein has order 1). Shared increments from two starting points
        give a synchronous coupling (`markovdp.guarantees.synchronous_coupling`).

    Returns
    -------
    The final states, an array of shape (n_paths, dim); with `save_at`, an ``xarray.DataArray`` of the states
    over dims (path, time, dim).

    Raises
    ------
    TypeError, ValueError (bad arguments, naming them), IncompatibleSpaces (x0 not in R^dim),
    NotImplementedError (a solver that does not support the noise type), FloatingPointError (a state became NaN
    or inf: names the path, the step and the time; no NaN is returned).
    """
    if not isinstance(sde, SDE):
        raise fail("sde", "an SDE", f"{sde!r} of type {type(sde).__name__}", TypeError)
    if not isinstance(solver, Solver):
        raise fail("solver", "a solver such as EulerMaruyama() or Milstein()",
                   f"{solver!r} of type {type(solver).__name__}", TypeError)
    solver.check_noise(sde.noise)
    t1, dt = _positive("t1", t1), _positive("dt", dt)
    if dt > t1:
        raise fail("dt", f"<= t1 = {t1!r}", dt)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise fail("backend", "'numba' or 'sdeint'", repr(backend))
    x = _initial_points(x0, sde.dim, n_paths)
    check_work("dt", dt, float(x.shape[0]) * sde.dim * (t1 / dt),
               what=f"{x.shape[0]} paths on R^{sde.dim} of t1/dt = {t1 / dt:.3g} steps each")
    if save_at is not None:
        check_size("save_at", f"{np.size(save_at)} times", float(x.shape[0]) * sde.dim * (np.size(save_at) + 1),
                   what="the saved states (paths x times x dim)")
    bounds, steps, h, save, times = _plain_segments(t1, dt) if save_at is None else _segments(t1, dt, save_at)
    noise = root_seed(rng) if increments is None else _increments(increments, x.shape[0], int(steps.sum()),
                                                                  int(sde.noise_dim or sde.dim))
    run = _run_numba if backend == "numba" else _run_sdeint
    workers = check_int("workers", workers, minimum=1)
    out, saved = run(sde, solver, x, noise, bounds, steps, h, save, times.size, workers)
    if save_at is None:
        return out
    import xarray as xr

    seed = ("given increments", "") if increments is not None else tuple(map(str, noise))
    return xr.DataArray(
        saved, dims=("path", "time", "dim"),
        coords={"path": np.arange(x.shape[0]), "time": ("time", times, {"long_name": "time t"}),
                "dim": np.arange(sde.dim)},
        name="state", attrs={"long_name": "state X_t of the SDE", "sde": repr(sde), "solver": repr(solver),
                             "dt": float(h.max()), "t1": t1, "backend": backend,
                             "seed_entropy": seed[0], "seed_spawn_key": seed[1]})


def _run_numba(sde: SDE, solver: Solver, x: NDArray[np.float64], noise: Any,
               bounds: NDArray[Any], steps: NDArray[Any], h: NDArray[Any], save: NDArray[Any],
               n_save: int, workers: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """`noise`: the root seed (entropy, key), or the given increments (n, S, m)."""
    from ._kernels import integrator

    given = isinstance(noise, np.ndarray)
    run = integrator(solver.scheme, sde.noise, *sde.inplace_maps, sde.dim, int(sde.noise_dim or sde.dim), given)
    prefix = None if given else root_prefix(noise)

    def block_noise(b: int, start: int, stop: int) -> NDArray[Any]:
        return noise[start:stop] if given else block_state(noise, b, prefix)

    n = x.shape[0]
    out = np.empty_like(x)
    saved = np.empty((n if n_save else 0, n_save, sde.dim))
    if n <= BLOCK_PATHS:  # one block: no bookkeeping (a single path is a few tens of microseconds)
        status1 = np.empty(2, dtype=np.int64)
        run(x, out, saved, block_noise(0, 0, n), steps, h, save, status1)
        if status1[0] >= 0:
            raise _nonfinite(int(status1[0]), int(status1[1]), bounds, steps, h)
        return out, saved
    starts = range(0, n, BLOCK_PATHS)
    status = np.full((len(starts), 2), -1, dtype=np.int64)  # one row per block: no state shared across threads

    def block(b: int) -> bool:
        start = starts[b]
        stop = min(start + BLOCK_PATHS, n)
        run(x[start:stop], out[start:stop], saved[start:stop], block_noise(b, start, stop), steps, h, save, status[b])
        return bool(status[b, 0] < 0)

    if workers == 1 or len(starts) == 1:
        all(block(b) for b in range(len(starts)))  # stops at the first block with a non-finite state
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(workers, len(starts))) as pool:  # the kernels release the GIL
            list(pool.map(block, range(len(starts))))
    failed = np.flatnonzero(status[:, 0] >= 0)
    if failed.size:  # the first failing block, whatever the number of workers
        b = int(failed[0])
        raise _nonfinite(starts[b] + int(status[b, 0]), int(status[b, 1]), bounds, steps, h)
    return out, saved


def _sdeint_maps(sde: SDE) -> tuple[Any, Any]:
    """Python callables f(y, t) -> (d,) and G(y, t) -> (d, m) around the compiled maps, for sdeint."""
    d, general = sde.dim, sde.noise == "general"
    shape = sde.diffusion_shape

    arities = {id(fn): arity(name, fn) for name, fn in (("drift", sde.drift), ("diffusion", sde.diffusion))}

    def call(fn: Any, y: NDArray[np.float64], out_shape: tuple[int, ...]) -> NDArray[np.float64]:
        y = np.ascontiguousarray(y, dtype=np.float64)
        if arities[id(fn)] == 1:
            return np.asarray(fn(y), dtype=np.float64).reshape(out_shape)
        out = np.empty(out_shape)
        fn(y, out)
        return out

    def f(y: NDArray[np.float64], t: float) -> NDArray[np.float64]:
        return call(sde.drift, y, (d,))

    def G(y: NDArray[np.float64], t: float) -> NDArray[np.float64]:
        v = call(sde.diffusion, y, shape)
        return v if general else np.diag(v)

    return f, G


def _run_sdeint(sde: SDE, solver: Solver, x: NDArray[np.float64], noise: Any,
                bounds: NDArray[Any], steps: NDArray[Any], h: NDArray[Any], save: NDArray[Any],
                n_save: int, workers: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    import warnings

    import sdeint

    from .._fast_normal import fill_normals

    f, G = _sdeint_maps(sde)
    method = getattr(sdeint, solver.sdeint_name)
    n, m = x.shape[0], int(sde.noise_dim or sde.dim)
    out = np.empty_like(x)
    saved = np.empty((n if n_save else 0, n_save, sde.dim))
    total = int(steps.sum())
    given = isinstance(noise, np.ndarray)
    for b, start in enumerate(range(0, n, BLOCK_PATHS)):
        if not given:
            state = block_state(noise, b)
            gen = np.random.default_rng(block_seed(noise, b).spawn(1)[0])  # itoSRI2's own draws (its Itô integrals)
        for i in range(start, min(start + BLOCK_PATHS, n)):
            if not given:
                z = np.empty((total, m))
                fill_normals(state, z)  # the numba kernel's draws for this path, in the same order
            y, done = x[i].copy(), 0
            for g in range(steps.size):
                k = int(steps[g])
                if k:
                    tspan = bounds[g] + h[g] * np.arange(k + 1)
                    dw = noise[i, done:done + k] if given else math.sqrt(h[g]) * z[done:done + k]
                    kwargs: dict[str, Any] = {}
                    if solver.sdeint_name != "itoEuler" and given:  # zero Lévy areas (commutative noise)
                        kwargs["I"] = 0.5 * (dw[:, :, None] * dw[:, None, :] - h[g] * np.eye(m))
                    elif solver.sdeint_name != "itoEuler":
                        kwargs["generator"] = gen
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # overflow: reported below as an error
                        path = method(f, G, y, tspan, dW=dw, **kwargs)
                    bad = ~np.all(np.isfinite(path[1:]), axis=1)
                    if bad.any():
                        raise _nonfinite(i, done + int(np.argmax(bad)) + 1, bounds, steps, h)
                    y, done = path[-1].copy(), done + k
                if save[g] >= 0:
                    saved[i, save[g]] = y
            out[i] = y
    return out, saved


__all__ = ["BLOCK_PATHS", "simulate"]
