"""numba kernels of `LipschitzGaussianKernel` chains (imported only where a chain is sampled or ψ is applied).

A chain is a list of *segments* (ψ, sigma, projection, repeats). `chain_sampler(psis, d)` compiles, once per
tuple of distinct maps and dimension, one function that takes the points in blocks: it draws a block's normals
with the numpy Generator passed in (`fill_normals`: numpy's ``standard_normal`` stream bit for bit), then runs
each point of the block through every segment with its state in two scratch vectors (no pass over all points
per step). Point i consumes its draws consecutively: the noise of step s, coordinate k is the
(i·R·d + s·d + k)-th normal of the stream (R steps in total), i.e. the layout of
``rng.standard_normal((n, R, d))``, whatever the block size."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from ._projection_kernels import project_inplace


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


#: Normals drawn per block of points (block · steps · d of them, at least one point's worth): 128 KiB, in cache.
BLOCK_DRAWS = 16384


@njit(cache=True)
def fill_normals(rng: np.random.Generator, out: np.ndarray) -> None:
    """out[j] = the j-th normal of ``rng.standard_normal``'s stream (compiled once, cached on disk)."""
    for j in range(out.size):
        out[j] = rng.standard_normal()


# D is a compile-time constant: the loops over coordinates unroll, with no run-time vectorisation checks
# (measured 2-4x faster at d = 1 than a run-time d; advancing 4 points at a time measured no faster).
_CHAIN_SOURCE = '''
def run(x, out, rng, noise, which, sigmas, repeats, codes, params, offsets):
    n = x.shape[0]
    steps = repeats.sum()
    block = max(1, BLOCK_DRAWS // max(1, steps * D))
    z = np.zeros(block * steps * D)
    a = np.empty(D)
    b = np.empty(D)
    for start in range(0, n, block):
        stop = min(start + block, n)
        if noise:
            fill_normals(rng, z[:(stop - start) * steps * D])
        t = 0
        for i in range(start, stop):
            for k in range(D):
                a[k] = x[i, k]
            for s in range(which.size):
                w = which[s]
                sigma = sigmas[s]
                code = codes[s]
                p = params[offsets[s]:offsets[s + 1]]
                for _ in range(repeats[s]):
{dispatch}
                    for k in range(D):
                        a[k] = b[k] + sigma * z[t + k]
                    t += D
                    project_inplace(code, p, a)
            for k in range(D):
                out[i, k] = a[k]
'''


@lru_cache(maxsize=64)
def chain_sampler(psis: tuple[Any, ...], d: int) -> Any:
    """The compiled ``run(x, out, rng, noise, which, sigmas, repeats, codes, params, offsets)`` for maps on R^d.

    x, out: (n, d) float64; segment s applies ``repeats[s]`` times y = Π(ψ_{which[s]}(x) + sigmas[s] Z), the
    projection given by ``codes[s]`` and ``params[offsets[s]:offsets[s + 1]]`` (see `project_inplace`).
    ``noise=False`` draws nothing and takes Z = 0 (then one step without projection is ψ itself).
    Compiled once per (maps, d): about a second.
    """
    lines = [f"                    {'if' if j == 0 else 'elif'} w == {j}:\n                        psi_{j}(a, b)"
             for j in range(len(psis))]
    if len(psis) == 1:
        lines = ["                    psi_0(a, b)"]
    namespace: dict[str, Any] = {"np": np, "project_inplace": project_inplace, "fill_normals": fill_normals,
                                 "BLOCK_DRAWS": BLOCK_DRAWS, "D": d}
    namespace.update({f"psi_{j}": psi for j, psi in enumerate(psis)})
    exec(_CHAIN_SOURCE.format(dispatch="\n".join(lines)), namespace)  # one branch per distinct map
    return njit(namespace["run"])
