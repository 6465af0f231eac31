"""numba integrators of `SDE` ensembles (imported only by `simulate`): pure array functions with a status code.

`integrator(scheme, drift, diffusion, d, m)` compiles, once per process for each (scheme, maps, d, m), one
function ``run(x, out, saved, rng, seg_steps, seg_h, seg_save, status)`` that advances the paths of one block
(rows of x) one after the other. The user's maps are globals of the generated source and d, m compile-time
constants, so the maps inline and the coordinate loops unroll (at d = 1 a run-time d measured 2-4x slower in the
Lipschitz chain sampler). The normals are numpy's ``standard_normal`` stream of the block's Generator, bit for
bit, drawn by the cached `fill_normals` (a loop doing nothing else) `CHUNK_STEPS` steps at a time into a scratch
buffer that the update loop then reads: path i of the block takes its draws consecutively, step s coordinate j
being the (i·S·m + s·m + j)-th normal (S steps in all), the layout of ``rng.standard_normal((n, S, m))``.
Calling the cached sampler, rather than drawing inside the generated loop, also keeps numpy's normal sampler out
of what is compiled per SDE (measured 1.5-3 s less on first use).

Why not ``cache=True`` on `run`: a kernel specialised on a user's dispatcher has that dispatcher's identity in its
type, which differs in every process, so an on-disk cache never hits (and its index would grow). The alternative,
first-class function pointers, is cacheable but calls the maps indirectly (no inlining): measured about 2x
slower at d = 1. The generic pieces (`fill_normals`) are cached.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fill_normals(rng: np.random.Generator, out: np.ndarray) -> None:
    """out[j] = the j-th normal of ``rng.standard_normal``'s stream (the rate ceiling for the benchmarks)."""
    for j in range(out.size):
        out[j] = rng.standard_normal()


@lru_cache(maxsize=256)
def inplace_form(fn: Any, fn_arity: int, matrix: bool) -> Any:
    """fn as ``fn(x, out)``: the user's in-place map itself (arity 2) or an adapter copying the array it returns."""
    if fn_arity == 2:
        return fn
    if matrix:
        @njit(inline="always")
        def step_matrix(x: np.ndarray, out: np.ndarray) -> None:
            y = fn(x)
            for i in range(out.shape[0]):  # explicit loops: a slice assignment measured ~5 s more to compile
                for j in range(out.shape[1]):
                    out[i, j] = y[i, j]

        return step_matrix

    @njit(inline="always")
    def step(x: np.ndarray, out: np.ndarray) -> None:
        y = fn(x)
        for k in range(out.size):
            out[k] = y[k]

    return step


# One path at a time, its state in scratch vectors; every step is followed by the finiteness check, which stops
# the block with status = (path, step) instead of letting NaN or inf run on.
_SOURCE = '''
def run(x, out, saved, rng, seg_steps, seg_h, seg_save, status):
{alloc}
    z = np.empty(CHUNK * M)
    status[0] = -1
    status[1] = -1
    for i in range(x.shape[0]):
        for k in range(D):
            a[k] = x[i, k]
        step = 0
        left = seg_steps.sum()
        j = z.size
        for g in range(seg_steps.size):
            h = seg_h[g]
            sq = math.sqrt(h)
{constants}
            for _ in range(seg_steps[g]):
                if j == z.size:
                    fill_normals(rng, z[:min(CHUNK, left) * M])
                    j = 0
{step}
                j += M
                step += 1
                left -= 1
                for k in range(D):
                    if not math.isfinite(a[k]):
                        status[0] = i
                        status[1] = step
                        return
            r = seg_save[g]
            if r >= 0:
                for k in range(D):
                    saved[i, r, k] = a[k]
        for k in range(D):
            out[i, k] = a[k]
'''

# Euler–Maruyama, diagonal noise: a_k += u_k h + v_k sqrt(h) Z_k (STD-EulerMaruyama).
_EM_DIAGONAL = '''
drift(a, u)
diffusion(a, v)
for k in range(D):
    a[k] = a[k] + u[k] * h + v[k] * (sq * z[j + k])
'''

# Euler–Maruyama, general noise: a += u h + v ΔW with ΔW = sqrt(h) Z in R^M (STD-EulerMaruyama).
_EM_GENERAL = '''
drift(a, u)
diffusion(a, v)
for q in range(M):
    w[q] = sq * z[j + q]
for k in range(D):
    acc = a[k] + u[k] * h
    for q in range(M):
        acc += v[k, q] * w[q]
    a[k] = acc
'''

# Derivative-free Milstein (Kloeden–Platen §11.1 per coordinate, STD-Milstein): with the support value
# Υ = a + u h + v sqrt(h), v_k(Υ) − v_k(a) = v_k ∂_k v_k sqrt(h) + O(h), so the correction
# (v_k(Υ) − v_k(a)) (ΔW_k² − h) / (2 sqrt(h)) is Milstein's ½ v_k ∂_k v_k (ΔW_k² − h) without the derivative.
_MILSTEIN_DIAGONAL = '''
drift(a, u)
diffusion(a, v)
for k in range(D):
    w[k] = sq * z[j + k]
    c[k] = a[k] + u[k] * h + v[k] * sq
diffusion(c, vc)
for k in range(D):
    a[k] = a[k] + u[k] * h + v[k] * w[k] + (vc[k] - v[k]) * (w[k] * w[k] - h) * half_inv_sq
'''

SCHEMES = {("euler_maruyama", "diagonal"): _EM_DIAGONAL, ("euler_maruyama", "general"): _EM_GENERAL,
           ("milstein", "diagonal"): _MILSTEIN_DIAGONAL}


#: Steps whose normals are drawn at once (a tight loop over the Generator) before the update loop uses them.
CHUNK_STEPS = 1024


@lru_cache(maxsize=64)
def integrator(scheme: str, noise: str, drift: Any, diffusion: Any, d: int, m: int) -> Any:
    """The compiled block integrator for one scheme, noise type, pair of in-place maps and dimensions (d, m).

    ``run(x, out, saved, rng, seg_steps, seg_h, seg_save, status)``: x, out (n, d); segment g takes
    ``seg_steps[g]`` steps of size ``seg_h[g]`` and then, when ``seg_save[g] >= 0``, writes the state into
    ``saved[:, seg_save[g]]``. On a non-finite state it sets status = (path, step count) and returns; else
    status = (-1, -1). Compiled on the first call (1-3 s on the 2-core test machine; see `benchmarks/sde.py`).
    """
    body = SCHEMES[(scheme, noise)]
    step = "\n".join(" " * 16 + line for line in body.strip("\n").splitlines())
    shapes = {"a": "D", "u": "D", "v": "V_SHAPE", "c": "D", "w": "M", "vc": "V_SHAPE"}
    used = [name for name in shapes if re.search(rf"\b{name}\b", body)]  # only the scratch the scheme uses
    alloc = "\n".join(f"    {name} = np.empty({shapes[name]})" for name in used)
    constants = "            half_inv_sq = 0.5 / sq if sq > 0.0 else 0.0" if "half_inv_sq" in body else ""
    namespace: dict[str, Any] = {"np": np, "math": math, "fill_normals": fill_normals, "drift": drift,
                                 "diffusion": diffusion, "D": d, "M": m, "CHUNK": CHUNK_STEPS,
                                 "V_SHAPE": (d, m) if noise == "general" else d}
    # d, m compile-time constants and the maps as globals: inlined, unrolled
    exec(_SOURCE.format(step=step, alloc=alloc, constants=constants), namespace)
    return njit(nogil=True)(namespace["run"])
