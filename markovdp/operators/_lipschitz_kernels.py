"""numba kernels of `LipschitzGaussianKernel` chains (imported only where a chain is sampled or ψ is applied).

A chain is a list of *segments* (ψ, sigma, projection, repeats). `chain_sampler(psis, d)` compiles, once per
tuple of distinct maps and dimension, one function that runs each point through every segment with its state
in two scratch vectors (no pass over all points per step), drawing the normals inline from the numba-native
generator `markovdp._fast_normal` (xoshiro256++ and a ziggurat; `normal_step` on the state words held in
local variables).

Order of the normals (what a plain implementation must reproduce to get the same floats): the points are taken
in blocks of P = `BLOCK_POINTS`; block b (points b·P … b·P + P − 1) draws from its own xoshiro256++ stream,
row b of `block_states`, and point b·P + j consumes that stream's normals consecutively: with R steps in all,
the noise of step s, coordinate k is its (j·R·d + s·d + k)-th normal, i.e.
``Z_b = fill_normals(states[b], (P, R, d))`` (`fast.fill_normals` order) and ``Z[b·P + j, s, k] = Z_b[j, s, k]``.
Block b's state is words 4b … 4b + 3 of ``root.generate_state(4·B, uint64)`` for the root SeedSequence of the
caller's `rng` (`root_seed`: seeded by four words of ``as_generator(rng)``): an address, so a point's noise
depends on the root, its block and its place in the block only, not on how many points or blocks the call has.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from .. import _fast_normal as fast
from .._random import RNGLike, as_generator
from ._projection_kernels import project_inplace

#: Points per block: each block of points draws from its own xoshiro256++ stream (see the module docstring).
BLOCK_POINTS = 4096


@lru_cache(maxsize=256)
def inplace_form(psi: Any, arity: int) -> Any:
    """ψ as ``step(x, out)`` writing ψ(x) into out: the user's in-place map itself (arity 2) or an adapter that
    copies the array a returning map allocates (arity 1)."""
    if arity == 2:
        return psi

    @njit(inline="always")
    def step(x: np.ndarray, out: np.ndarray) -> None:
        y = psi(x)
        for k in range(out.size):
            out[k] = y[k]

    return step


def root_seed(rng: RNGLike) -> np.random.SeedSequence:
    """The root SeedSequence of a call: four 64-bit words drawn from ``as_generator(rng)`` (`fast.make_state`,
    advancing a Generator by exactly four words), so an int seed, ``default_rng`` of it and a SeedSequence of
    it give the same samples, as every sampler of the library does."""
    return np.random.SeedSequence([int(w) for w in fast.make_state(as_generator(rng))])


def block_states(rng: RNGLike, n: int) -> np.ndarray:
    """(B, 4) uint64: the xoshiro256++ state of each of the B = ⌈n / BLOCK_POINTS⌉ blocks of n points, row b
    = words 4b … 4b + 3 of the root SeedSequence's ``generate_state`` (never all zero)."""
    blocks = -(-n // BLOCK_POINTS)
    states = root_seed(rng).generate_state(4 * blocks, np.uint64).reshape(blocks, 4)
    states[~states.any(axis=1), 0] = np.uint64(0x9E3779B97F4A7C15)  # probability 2^-256 per block
    return np.ascontiguousarray(states)


# D is a compile-time constant: the loops over coordinates unroll, with no run-time vectorisation checks
# (measured 2-4x faster at d = 1 than a run-time d). The projection is called only when there is one: its
# inlined body holds an opaque call (libm sqrt) that otherwise makes the loop spill the generator's state
# (measured 2.5x at d = 1 without a projection). Advancing 4 points in lockstep (unrolled) measured 1.0-1.6x
# faster but compiled in 12 s instead of 3 s.
_CHAIN_SOURCE = '''
def run(x, out, states, noise, which, sigmas, repeats, codes, params, offsets):
    n = x.shape[0]
    a = np.empty(D)
    c = np.empty(D)
    s0 = s1 = s2 = s3 = np.uint64(0)
    for blk in range((n + BLOCK_POINTS - 1) // BLOCK_POINTS):
        if noise:
            s0, s1, s2, s3 = states[blk, 0], states[blk, 1], states[blk, 2], states[blk, 3]
        for i in range(blk * BLOCK_POINTS, min(n, (blk + 1) * BLOCK_POINTS)):
            for k in range(D):
                a[k] = x[i, k]
            for s in range(which.size):
                w = which[s]
                sigma = sigmas[s]
                code = codes[s]
                p = params[offsets[s]:offsets[s + 1]]
                for _ in range(repeats[s]):
{dispatch}
                    if noise:
                        for k in range(D):
                            z, s0, s1, s2, s3 = normal_step(s0, s1, s2, s3)
                            a[k] = c[k] + sigma * z
                    else:
                        for k in range(D):
                            a[k] = c[k]
                    if code != 0:
                        project_inplace(code, p, a)
            for k in range(D):
                out[i, k] = a[k]
'''


@lru_cache(maxsize=64)
def chain_sampler(psis: tuple[Any, ...], d: int) -> Any:
    """The compiled ``run(x, out, states, noise, which, sigmas, repeats, codes, params, offsets)`` on R^d.

    x, out: (n, d) float64; states: `block_states` for n points (unread when ``noise=False``); segment s
    applies ``repeats[s]`` times y = Π(ψ_{which[s]}(x) + sigmas[s] Z), the projection given by ``codes[s]`` and
    ``params[offsets[s]:offsets[s + 1]]`` (see `project_inplace`), Z in the order of the module docstring.
    ``noise=False`` draws nothing and takes Z = 0 (then one step without projection is ψ itself).
    Compiled once per (maps, d) and process (the source is generated, so not cached on disk): about a second.
    """
    lines = [f"                    {'if' if j == 0 else 'elif'} w == {j}:\n                        psi_{j}(a, c)"
             for j in range(len(psis))]
    if len(psis) == 1:
        lines = ["                    psi_0(a, c)"]
    namespace: dict[str, Any] = {"np": np, "project_inplace": project_inplace, "normal_step": fast.normal_step,
                                 "BLOCK_POINTS": BLOCK_POINTS, "D": d}
    namespace.update({f"psi_{j}": psi for j, psi in enumerate(psis)})
    exec(_CHAIN_SOURCE.format(dispatch="\n".join(lines)), namespace)  # one branch per distinct map
    return njit(namespace["run"])
