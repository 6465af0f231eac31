"""numba kernels of `LipschitzGaussianKernel` chains (imported only where a chain is sampled or ψ is applied).

A chain is a list of *segments* (ψ, sigma, projection, repeats). `chain_sampler` compiles, once per tuple of
distinct maps, dimension and segment kinds, one function that runs each point through every segment with its
state in two stack vectors (no pass over all points per step), the user's maps inlined, drawing the normals
inline from the numba-native generator `markovdp._fast_normal` (xoshiro256++ and a ziggurat;
`normal_step_outlined` on the state words held in local variables).

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

import textwrap
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit
from numba.np.numpy_support import carray

from .. import _fast_normal as fast
from .._numba_inline import stack_buffer
from .._random import RNGLike, as_generator
from ._projection_kernels import project_ball, project_box
from .projections import BALL, BOX, NO_PROJECTION

#: Points per block: each block of points draws from its own xoshiro256++ stream (see the module docstring).
BLOCK_POINTS = 4096


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


# D and NOISE are compile-time constants, and so is each segment kind (map, projection): the branch on the kind is
# taken once per segment, and inside it the map, the projection and the coordinate loops are inlined and unrolled,
# with the point in two stack vectors and the generator's words in local variables, all kept in registers. A
# projection chosen at run time inside the step loop (one function for every projection) measured 2.5x slower at
# d = 1; advancing 4 points in lockstep measured 1.0-1.6x faster but compiled in 12 s instead of 3 s.
_CHAIN_SOURCE = '''
def run(x, out, states, kinds, sigmas, repeats, params, offsets):
    n = x.shape[0]
    a = carray(stack_a(), (D,))
    c = carray(stack_c(), (D,))
    s0 = s1 = s2 = s3 = np.uint64(0)
    for blk in range((n + BLOCK_POINTS - 1) // BLOCK_POINTS):
        if NOISE:
            s0, s1, s2, s3 = states[blk, 0], states[blk, 1], states[blk, 2], states[blk, 3]
        for i in range(blk * BLOCK_POINTS, min(n, (blk + 1) * BLOCK_POINTS)):
            for k in range(D):
                a[k] = x[i, k]
            for s in range(kinds.size):
                kind = kinds[s]
                sigma = sigmas[s]
{dispatch}
            for k in range(D):
                out[i, k] = a[k]
'''

# One step of a segment kind: ψ, then the noise (NOISE) or none, then the projection (by its code).
_STEP = {"map": "psi_{w}(a, c)",
         "noise": "for k in range(D):\n    z, s0, s1, s2, s3 = draw(s0, s1, s2, s3)\n    a[k] = c[k] + sigma * z",
         "copy": "for k in range(D):\n    a[k] = c[k]",
         NO_PROJECTION: "", BALL: "project_ball(radius, a)", BOX: "project_box(box, a)"}
_SETUP = {NO_PROJECTION: "", BALL: "radius = params[offsets[s]]", BOX: "box = params[offsets[s]:offsets[s + 1]]"}


def _kind_source(j: int, w: int, code: int, noise: bool) -> str:
    """The branch of segment kind j: `repeats[s]` steps of ψ_w, noise and the projection of the given code."""
    step = "\n".join([_STEP["map"].format(w=w), _STEP["noise" if noise else "copy"], _STEP[code]]).strip("\n")
    body = "\n".join(filter(None, [_SETUP[code], "for _ in range(repeats[s]):",
                                    textwrap.indent(step, "    ")]))
    return f"if kind == {j}:\n" + textwrap.indent(body, "    ")


@lru_cache(maxsize=64)
def chain_sampler(psis: tuple[Any, ...], d: int, kinds: tuple[tuple[int, int], ...], noise: bool) -> Any:
    """The compiled ``run(x, out, states, kinds, sigmas, repeats, params, offsets)`` on R^d.

    psis: the distinct in-place maps (`markovdp._numba_inline.inplace_form`); kinds: the distinct segment kinds
    (index into psis, projection code), compiled in. x, out: (n, d) float64; states: `block_states` for n points
    (unread when not `noise`); segment s, of kind ``kinds[s]``, applies ``repeats[s]`` times
    y = Π(ψ(x) + sigmas[s] Z), the projection's parameters being ``params[offsets[s]:offsets[s + 1]]``, Z in the
    order of the module docstring. ``noise=False`` draws nothing and projects nothing: y = ψ(x).
    Compiled once per (maps, d, kinds, noise) and process (the source is generated, so not cached on disk).
    """
    branches = [_kind_source(j, w, code if noise else NO_PROJECTION, noise) for j, (w, code) in enumerate(kinds)]
    dispatch = "\n".join(b if j == 0 else "el" + b for j, b in enumerate(branches))
    namespace: dict[str, Any] = {"np": np, "carray": carray, "draw": fast.normal_step_outlined,
                                 "project_ball": project_ball, "project_box": project_box,
                                 "BLOCK_POINTS": BLOCK_POINTS, "D": d, "NOISE": noise,
                                 "stack_a": stack_buffer(d), "stack_c": stack_buffer(d)}
    namespace.update({f"psi_{j}": psi for j, psi in enumerate(psis)})
    exec(_CHAIN_SOURCE.format(dispatch=textwrap.indent(dispatch, " " * 16)), namespace)
    return njit(namespace["run"])
