"""numba integrators of `SDE` ensembles (imported only by `simulate`): pure array functions with a status code.

`integrator(scheme, drift, diffusion, d, m)` compiles, once per process for each (scheme, maps, d, m), one function
``run(x, out, saved, state, seg_steps, seg_h, seg_save, status)`` that advances the paths of one block (rows of x)
one after the other. The user's maps are recompiled with ``inline="always"`` (`markovdp._numba_inline.inplace_form`)
and are globals of the generated source, d and m compile-time constants, and the scratch vectors live on the
kernel's stack (`markovdp._numba_inline.stack_buffer`), so the maps inline, the coordinate loops unroll and the
state stays in registers.

Normals: the xoshiro256++/ziggurat stream of `markovdp._fast_normal` from the block's state (uint64[4]), drawn
inline (`markovdp._fast_normal.normal_step_outlined`): path i of the block takes its draws consecutively, step s
coordinate j being the (i·S·m + s·m + j)-th normal (S steps in all), the layout of ``fill_normals(state, z)`` for z
of shape (n, S, m).
Measured (OU and Brownian, d = 1 and 10, EM and Milstein, x numpy's ``standard_normal`` rate, benchmarks/sde.py):
drawing inline 2.4-4.4x; `fill_normals` into a per-chunk buffer 1.8-4.2x (faster only for EM at d = 10, below 2x
for Milstein at d = 1); `normal_step` fully inlined as fast but 0.5-1.5 s more to compile per SDE.

Why not ``cache=True`` on `run`: a kernel specialised on a user's dispatcher has that dispatcher's identity in its
type, which differs in every process, so an on-disk cache never hits (and its index would grow). The alternative,
first-class function pointers, is cacheable but calls the maps indirectly (no inlining): measured about 2x
slower at d = 1. The generic piece (the ziggurat's rejection branch) is cached.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit, uint64
from numba.np.numpy_support import carray

from .._fast_normal import normal_step_outlined
from .._numba_inline import stack_buffer

# numpy's SeedSequence hash (numpy/random/bit_generator.pyx, pool size 4), in uint64 arithmetic masked to 32 bits.
_M32 = uint64(0xFFFFFFFF)
_INIT_A, _MULT_A = uint64(0x43B0D7E5), uint64(0x931E8875)
_INIT_B, _MULT_B = uint64(0x8B51F9DD), uint64(0x58F38DED)
_MIX_L, _MIX_R = uint64(0xCA01F9DD), uint64(0x4973F715)
_XSHIFT = uint64(16)
_POOL = 4


@njit(inline="always")
def _hashmix(value: Any, h: Any) -> Any:
    value = (value ^ h) & _M32
    h = (h * _MULT_A) & _M32
    value = (value * h) & _M32
    return value ^ (value >> _XSHIFT), h


@njit(inline="always")
def _mix(x: Any, y: Any) -> Any:
    r = (_MIX_L * x - _MIX_R * y) & _M32
    return r ^ (r >> _XSHIFT)


@njit(cache=True, nogil=True)
def address_state(prefix: np.ndarray, block: int) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=(*key, block)).generate_state(4, np.uint64)``, bit for bit, with the
    all-zero state replaced as `markovdp._fast_normal.make_state` does; `prefix` holds the entropy's 32-bit
    words padded with zeros to 4, then the key's words (uint64 values < 2^32), and block >= 0. numpy's
    SeedSequence costs 15-35 µs a block in Python; this, under 1 µs."""
    entropy = np.empty(prefix.size + 2, dtype=np.uint64)
    for i in range(prefix.size):  # explicit loops: a slice assignment and .any() measured ~6 s more to compile
        entropy[i] = prefix[i]
    n = prefix.size
    b = uint64(block)
    if b == 0:
        entropy[n] = 0
        n += 1
    while b > 0:
        entropy[n] = b & _M32
        b >>= uint64(32)
        n += 1
    pool = np.empty(_POOL, dtype=np.uint64)
    h = _INIT_A
    for i in range(_POOL):
        pool[i], h = _hashmix(entropy[i] if i < n else uint64(0), h)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                value, h = _hashmix(pool[src], h)
                pool[dst] = _mix(pool[dst], value)
    for src in range(_POOL, n):
        for dst in range(_POOL):
            value, h = _hashmix(entropy[src], h)
            pool[dst] = _mix(pool[dst], value)
    state = np.zeros(4, dtype=np.uint64)
    h = _INIT_B
    for i in range(8):  # 8 words of 32 bits, read as 4 little-endian words of 64
        value = pool[i % _POOL] ^ h
        h = (h * _MULT_B) & _M32
        value = (value * h) & _M32
        state[i // 2] |= (value ^ (value >> _XSHIFT)) << uint64(32 * (i % 2))
    if (state[0] | state[1] | state[2] | state[3]) == 0:
        state[0] = uint64(0x9E3779B97F4A7C15)
    return state


# One path at a time, its state in scratch vectors and the generator's four words in local variables (registers);
# every step is followed by the finiteness check, which stops the block with status = (path, step) instead of
# letting NaN or inf run on. `noise` is the block's generator state (uint64[4]) or, with given increments, the
# block's increments (n, S, m). DW(w, j) stands for w = the Brownian increment of noise coordinate j at this step:
# sqrt(h) times the next normal of the block's stream, or the given increment noise[i, step, j].
_SOURCE = '''
def run(x, out, saved, noise, seg_steps, seg_h, seg_save, status):
{alloc}
{load}    status[0] = -1
    status[1] = -1
    for i in range(x.shape[0]):
        for k in range(D):
            a[k] = x[i, k]
        step = 0
        for g in range(seg_steps.size):
            h = seg_h[g]
            sq = math.sqrt(h)
{constants}
            for _ in range(seg_steps[g]):
{step}
                step += 1
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
{store}'''

# Euler–Maruyama, diagonal noise: a_k += u_k h + v_k sqrt(h) Z_k (STD-EulerMaruyama).
_EM_DIAGONAL = '''
drift(a, u)
diffusion(a, v)
for k in range(D):
    DW(dwk, k)
    a[k] = a[k] + u[k] * h + v[k] * dwk
'''

# Euler–Maruyama, general noise: a += u h + v ΔW with ΔW = sqrt(h) Z in R^M (STD-EulerMaruyama).
_EM_GENERAL = '''
drift(a, u)
diffusion(a, v)
for q in range(M):
    DW(dwq, q)
    w[q] = dwq
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
    DW(dwk, k)
    w[k] = dwk
    c[k] = a[k] + u[k] * h + v[k] * sq
diffusion(c, vc)
for k in range(D):
    a[k] = a[k] + u[k] * h + v[k] * w[k] + (vc[k] - v[k]) * (w[k] * w[k] - h) * half_inv_sq
'''

SCHEMES = {("euler_maruyama", "diagonal"): _EM_DIAGONAL, ("euler_maruyama", "general"): _EM_GENERAL,
           ("milstein", "diagonal"): _MILSTEIN_DIAGONAL}




@lru_cache(maxsize=64)
def integrator(scheme: str, noise: str, drift: Any, diffusion: Any, d: int, m: int, given: bool = False) -> Any:
    """The compiled block integrator for one scheme, noise type, pair of in-place maps and dimensions (d, m).

    ``run(x, out, saved, noise, seg_steps, seg_h, seg_save, status)``: x, out (n, d); `noise` the block's
    xoshiro256++ words (uint64[4], advanced), or with ``given=True`` the block's Brownian increments (n, S, m),
    ΔW ~ N(0, h I) in units of sqrt(time), used as they are (no generator); segment g takes ``seg_steps[g]``
    steps of size ``seg_h[g]`` and then, when ``seg_save[g] >= 0``, writes the state into
    ``saved[:, seg_save[g]]``. On a non-finite state it sets status = (path, step count) and returns; else
    status = (-1, -1). Compiled on the first call (see `benchmarks/sde.py`).
    """
    if given:  # the increment of coordinate j at this step, as given
        dw = r"\1\2 = noise[i, step, \3]"
    else:  # sqrt(h) times the next normal of the block's stream (sq * z: the floats of the given case for sq * Z)
        dw = r"\1_z, s0, s1, s2, s3 = draw(s0, s1, s2, s3)\n\1\2 = sq * _z"
    body = re.sub(r"(?m)^(\s*)DW\((\w+), (\w+)\)", dw, SCHEMES[(scheme, noise)])
    step = "\n".join(" " * 16 + line for line in body.strip("\n").splitlines())
    v_shape = (d, m) if noise == "general" else (d,)
    shapes = {"a": (d,), "u": (d,), "v": v_shape, "c": (d,), "w": (m,), "vc": v_shape}
    used = [name for name in shapes if re.search(rf"\b{name}\b", body)]  # only the scratch the scheme uses
    alloc = "\n".join(f"    {name} = carray(stack_{math.prod(shapes[name])}(), {shapes[name]})" for name in used)
    constants = "            half_inv_sq = 0.5 / sq if sq > 0.0 else 0.0" if "half_inv_sq" in body else ""
    load = "" if given else "    s0, s1, s2, s3 = noise[0], noise[1], noise[2], noise[3]\n"
    store = "" if given else "    noise[0], noise[1], noise[2], noise[3] = s0, s1, s2, s3\n"
    namespace: dict[str, Any] = {"np": np, "math": math, "carray": carray, "draw": normal_step_outlined, "drift": drift,
                                 "diffusion": diffusion, "D": d, "M": m}
    namespace |= {f"stack_{math.prod(shape)}": stack_buffer(math.prod(shape)) for shape in shapes.values()}
    # d, m compile-time constants and the maps as globals: inlined, unrolled
    exec(_SOURCE.format(step=step, alloc=alloc, constants=constants, load=load, store=store), namespace)
    return njit(nogil=True)(namespace["run"])
