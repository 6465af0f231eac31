"""A numba-native normal generator: xoshiro256++ uniforms and a 256-layer ziggurat (private; imports numba).

Uniforms: xoshiro256++ (Blackman & Vigna 2021, "Scrambled linear pseudorandom number generators"), period
2^256 − 1, state a uint64 array of 4 words, never all zero. The state is seeded from a `numpy.random.SeedSequence`
(``generate_state(4, np.uint64)``), so a sweep keeps deriving one child seed per (grid point, batch) by address
(`markovdp._random.task_seed`).

Normals: the ziggurat of Marsaglia & Tsang (2000, J. Stat. Softw. 5(8)) in numpy's 256-layer form, with
Doornik's (2005) correction: the layer index, the sign and the 52-bit abscissa come from disjoint bits of one
64-bit word. With f(x) = exp(−x²/2) and common layer area v, the abscissae are x_255 = r and
f(x_{i−1}) = f(x_i) + v/x_i down to x_0 = 0, where r solves this with v = r f(r) + ∫_r^∞ f (the base layer:
a rectangle of height f(r) plus the tail). The tail beyond r is sampled exactly by Marsaglia's (1964)
exponential method: X = r + E1/r, accepted when 2·E2 > (E1/r)², E1, E2 standard exponentials.
Tables are computed once, in float64, when this module is imported (no scipy).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import int64, njit, types, uint64
from numba.extending import intrinsic

from ._random import RNGLike
from ._validation import check_int, fail

LAYERS = 256
_MANTISSA = float(2**52)


def _abscissae(r: float) -> tuple[np.ndarray, float]:
    """x_1..x_255 of the recursion down from x_255 = r (x_0 unset), and the layer area v; NaN from the first
    layer whose top would pass f = 1 (layers too wide: r too small)."""
    v = r * math.exp(-0.5 * r * r) + math.sqrt(math.pi / 2.0) * math.erfc(r / math.sqrt(2.0))
    x = np.full(LAYERS, math.nan)
    x[LAYERS - 1] = r
    for i in range(LAYERS - 1, 1, -1):
        top = v / x[i] + math.exp(-0.5 * x[i] * x[i])
        if top >= 1.0:
            break
        x[i - 1] = math.sqrt(-2.0 * math.log(top))
    return x, v


def _closing_gap(r: float) -> float:
    """v/x_1 + f(x_1) − 1, the top layer's overshoot past f = 1: zero when it closes at x_0 = 0, > 0 when r is
    too small, < 0 when r is too large."""
    x, v = _abscissae(r)
    if math.isnan(x[1]):
        return 1.0
    return v / x[1] + math.exp(-0.5 * x[1] * x[1]) - 1.0


def ziggurat_r() -> float:
    """The rightmost abscissa r of the 256-layer ziggurat, by bisection on the closing condition."""
    lo, hi = 3.0, 4.5  # gap > 0 at lo (layers too wide), < 0 at hi
    if not (_closing_gap(lo) > 0.0 > _closing_gap(hi)):
        raise RuntimeError("ziggurat bracket lost")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _closing_gap(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def ziggurat_tables() -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(r, v, x, k, w, f): abscissae x_i (x_0 := 0), accept thresholds k_i (uint64, in units of 2^-52 of the
    layer width), widths w_i = x_i/2^52 (w_0 = (v/f(r))/2^52, the base strip) and heights f_i = f(x_i), f_0 = 1.

    Layer i ≥ 1 spans heights [f_i, f_{i−1}] and abscissae [0, x_i]; a draw |X| = U·x_i is inside the curve for
    sure when |X| < x_{i−1}, so k_i = ⌊2^52 x_{i−1}/x_i⌋ (k_1 = 0). The base layer 0 has width v/f(r) and
    k_0 = ⌊2^52 r f(r)/v⌋; a base draw beyond r goes to the tail."""
    r = ziggurat_r()
    x, v = _abscissae(r)
    x[0] = 0.0
    f = np.exp(-0.5 * x * x)
    base = v / math.exp(-0.5 * r * r)
    w = x / _MANTISSA
    w[0] = base / _MANTISSA
    k = np.zeros(LAYERS, dtype=np.uint64)
    k[2:] = np.floor(_MANTISSA * x[1:-1] / x[2:]).astype(np.uint64)
    k[0] = np.uint64(math.floor(_MANTISSA * r / base))
    return r, v, x, k, w, f


R, V, _X, KI, WI, FI = ziggurat_tables()
INV_R = 1.0 / R


# ------------------------------------------------------------------------------------------- xoshiro256++
# The building blocks pass the state as four uint64 scalars (returned updated), so that a loop keeps it in
# registers. Everything on the sampling path is inlined at numba-IR level and calls nothing opaque (log and exp
# are LLVM intrinsics), so LLVM can also keep a state *array* in registers across a caller's loop: with an opaque
# call in the loop (the rejection branch compiled as a separate function) the array was loaded and stored on
# every draw and an Euler–Maruyama loop ran at 1.7x numpy's rate instead of 3.1x.


@njit(inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always")
def xoshiro_step(s0, s1, s2, s3):
    """(word, s0', s1', s2', s3'): one step of xoshiro256++ (Blackman & Vigna's reference code)."""
    result = _rotl(s0 + s3, 23) + s0
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always")
def _uniform(s0, s1, s2, s3):
    """(u, state'): u on (0, 1], (top 53 bits + 1)·2^-53, never 0 so log u is finite."""
    word, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
    return float(int64(word >> uint64(11)) + 1) * (1.0 / 9007199254740992.0), s0, s1, s2, s3


# ------------------------------------------------------------------------------------------- ziggurat


@intrinsic
def _likely(typingctx, cond):
    """`cond`, marked as almost always true for LLVM (``llvm.expect``): the rejection branch's calls (log, exp,
    `_slow_path`) then stop the register allocator from spilling the caller's loop-carried values on the hot
    path (measured: an Euler–Maruyama loop 1.8x -> 3.2x numpy's rate)."""
    sig = types.boolean(types.boolean)

    def codegen(context, builder, signature, args):
        i1 = ir.IntType(1)
        expect = builder.module.declare_intrinsic("llvm.expect", [i1], ir.FunctionType(i1, [i1, i1]))
        return builder.call(expect, [args[0], ir.Constant(i1, 1)])

    return sig, codegen


# Word layout: bits 0–7 the layer, bit 8 the sign, bits 12–63 the 52-bit abscissa (disjoint: Doornik 2005).
# The sign is read through a 512-entry table of signed widths (a branch on it measured 2x slower: mispredicted).

SIGNED_WI = np.concatenate([WI, -WI])
KI_SIGNED = KI.astype(np.int64)  # every k_i < 2^52


@njit(inline="always")
def _slow_path(idx, x, s0, s1, s2, s3):
    """(z, state'): the rejection branch, the tail beyond r (layer 0, exact by the exponential method) or the
    wedge test (layers ≥ 1, z = x accepted or NaN rejected: the caller draws again)."""
    if idx == 0:
        while True:
            u1, s0, s1, s2, s3 = _uniform(s0, s1, s2, s3)
            u2, s0, s1, s2, s3 = _uniform(s0, s1, s2, s3)
            xx = -INV_R * math.log(u1)
            yy = -math.log(u2)
            if yy + yy > xx * xx:
                return (-(R + xx) if x < 0.0 else R + xx), s0, s1, s2, s3
    u, s0, s1, s2, s3 = _uniform(s0, s1, s2, s3)
    if (FI[idx - 1] - FI[idx]) * u + FI[idx] < math.exp(-0.5 * x * x):
        return x, s0, s1, s2, s3
    return math.nan, s0, s1, s2, s3


@njit(inline="always")
def _normal_and_branch(s0, s1, s2, s3):
    """(z, tails, state'): a standard normal and how many times its draw took the tail branch (for tests)."""
    tails = 0
    while True:
        bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        j = np.intp(bits & uint64(0x1FF))
        idx = j & 0xFF
        rabs = int64(bits >> uint64(12))
        x = float(rabs) * SIGNED_WI[j]
        if _likely(rabs < KI_SIGNED[idx]):
            return x, tails, s0, s1, s2, s3
        tails += idx == 0
        z, s0, s1, s2, s3 = _slow_path(idx, x, s0, s1, s2, s3)
        if z == z:
            return z, tails, s0, s1, s2, s3


@njit(inline="always")
def normal_step(s0, s1, s2, s3):
    """(z, s0', s1', s2', s3'): one standard normal from the xoshiro256++ state given as four words (for loops
    that keep the words in local variables, as `fill_normals` does)."""
    z, _, s0, s1, s2, s3 = _normal_and_branch(s0, s1, s2, s3)
    return z, s0, s1, s2, s3


@njit(cache=True, nogil=True)
def rejection(idx, x, s0, s1, s2, s3):
    """`_slow_path` compiled once and cached on disk: the out-of-line rejection branch of `normal_step_outlined`."""
    return _slow_path(idx, x, s0, s1, s2, s3)


@njit(inline="always")
def normal_step_outlined(s0, s1, s2, s3):
    """(z, s0', s1', s2', s3'): `normal_step`'s normal, bit for bit, with the fast path inlined and the rejection
    branch (about 1 draw in 100) a call of the cached `rejection`. As fast inside a generated step loop (the
    rejection call is marked unlikely, so it does not make the loop spill), and the ziggurat is not recompiled
    into every kernel (0.5-1.5 s less to compile per SDE integrator)."""
    while True:
        bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        j = np.intp(bits & uint64(0x1FF))
        idx = j & 0xFF
        rabs = int64(bits >> uint64(12))
        x = float(rabs) * SIGNED_WI[j]
        if _likely(rabs < KI_SIGNED[idx]):
            return x, s0, s1, s2, s3
        z, s0, s1, s2, s3 = rejection(idx, x, s0, s1, s2, s3)
        if z == z:
            return z, s0, s1, s2, s3


@njit(cache=True, inline="always")
def next_uint64(state):
    """The next 64-bit word of xoshiro256++, advancing `state` (uint64[4]) in place."""
    word, state[0], state[1], state[2], state[3] = xoshiro_step(state[0], state[1], state[2], state[3])
    return word


@njit(cache=True, inline="always")
def next_normal(state):
    """One standard normal from the stream in `state` (uint64[4], advanced in place). Inlined into the calling
    kernel at numba-IR level, where LLVM keeps the state in registers across the caller's loop."""
    z, state[0], state[1], state[2], state[3] = normal_step(state[0], state[1], state[2], state[3])
    return z


@njit(cache=True)
def fill_normals(state, out):
    """out[j] = the j-th next standard normal of `state`'s stream (out: a contiguous float64 array)."""
    flat = out.reshape(-1)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for j in range(flat.size):
        flat[j], s0, s1, s2, s3 = normal_step(s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True)
def fill_uint64(state, out):
    """out[j] = the j-th next raw 64-bit word of `state`'s stream."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for j in range(out.size):
        out[j], s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True)
def count_tail(state, n):
    """(tail branches taken, normals beyond r) over the next n normals of `state`'s stream (the stream of
    `fill_normals`): the test that the tail branch is exercised and that every draw beyond r comes from it."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    hits = 0
    beyond = 0
    for _ in range(n):
        z, tails, s0, s1, s2, s3 = _normal_and_branch(s0, s1, s2, s3)
        hits += tails
        beyond += abs(z) > R
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return hits, beyond


# ------------------------------------------------------------------------------------------- Python side


def make_state(seed: RNGLike) -> np.ndarray:
    """A xoshiro256++ state (uint64[4], never all zero) from a SeedSequence, an int seed or None
    (``SeedSequence(seed).generate_state(4, np.uint64)``), or from a Generator (four words drawn from it)."""
    if isinstance(seed, np.random.Generator):
        state = seed.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    elif isinstance(seed, np.random.SeedSequence):
        state = seed.generate_state(4, np.uint64)
    elif seed is None:
        state = np.random.SeedSequence().generate_state(4, np.uint64)
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise fail("seed", "a non-negative int, a SeedSequence, a Generator or None", seed)
        state = np.random.SeedSequence(int(seed)).generate_state(4, np.uint64)
    else:
        raise fail("seed", "a non-negative int, a SeedSequence, a Generator or None", seed, TypeError)
    state = np.ascontiguousarray(state, dtype=np.uint64)
    if not state.any():  # probability 2^-256; the all-zero state is the one fixed point of xoshiro
        state[0] = np.uint64(0x9E3779B97F4A7C15)
    return state


def normals(n: int, seed: RNGLike) -> np.ndarray:
    """n standard normals from a fresh xoshiro256++ stream seeded by `seed` (see `make_state`)."""
    n = check_int("n", n, minimum=0)
    out = np.empty(n)
    fill_normals(make_state(seed), out)
    return out
