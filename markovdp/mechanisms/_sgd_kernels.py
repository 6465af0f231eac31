"""numba kernels of `NoisyProjSGD` (BBGG-A1): the built-in gradients and the simulator.

Imported only inside the functions that run them, so ``import markovdp`` does not import numba.

Order of the noise (what a plain implementation must reproduce to get the same floats): the runs are taken in
blocks of P = `markovdp.mechanisms.sgd.BLOCK` runs (passed to the kernels as `block`); block b (runs b·P … b·P +
P − 1) draws from its own xoshiro256++ stream (`markovdp._fast_normal`), and run b·P + j consumes that stream's
normals consecutively: with n records, the noise of step i (record i + 1), coordinate k is the
(j·n·d + i·d + k)-th normal, i.e. ``Z_b = fill_normals(states[b], (P, n, d))`` and ``Z[b·P + j, i, k] =
Z_b[j, i, k]``. Block b's state is words 4b … 4b + 3 of ``root.generate_state(4·B, uint64)``, the root
SeedSequence being seeded by four 64-bit words of the caller's Generator (`block_states`, as
`markovdp.operators._lipschitz_kernels` does). Seeds are addresses: a run's noise depends on the root, its block
and its place in the block only, not on how many runs a call has.

The built-in losses run in one cached kernel compiled per (loss, projection, d) — numba literals, so that the
coordinates of `LANES` runs sit in registers and the branches on the loss and the projection are resolved at
compile time; `LANES` blocks are advanced in lockstep, one run of each at a time, so that the latency of one run's
step (its square root, its exponential) overlaps the others'. That is scheduling only: every run's floats are
those of the order above. A user gradient runs in a kernel that takes it as an argument (numba cannot cache that
one), with the noise of each block drawn by `fill_normals` in the same order.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numba import literally, njit, types
from numba.np.numpy_support import carray

from .. import _fast_normal as fast
from .._fast_math import exp_nonpositive
from .._numba_inline import stack_matrix
from ..operators._projection_kernels import project_ball, project_box, project_inplace
from ..operators.projections import BALL, BOX
from .losses import LOGISTIC, QUADRATIC

#: Blocks advanced in lockstep by the built-in kernel (scheduling only: the floats do not depend on it).
LANES = 4
#: Largest d compiled as a constant (its coordinates in registers); larger d share one kernel per loss/projection.
MAX_CONSTANT_DIM = 8


def block_states(gen: np.random.Generator, runs: int, block: int) -> np.ndarray:
    """(B, 4) uint64: the xoshiro256++ state of each of the B = ⌈runs / block⌉ blocks, row b = words 4b … 4b + 3
    of ``SeedSequence(four words of gen).generate_state(4 B, uint64)`` (never all zero); advances gen by four words."""
    root = np.random.SeedSequence([int(w) for w in fast.make_state(gen)])
    blocks = -(-runs // block)
    states = root.generate_state(4 * blocks, np.uint64).reshape(blocks, 4)
    states[~states.any(axis=1), 0] = np.uint64(0x9E3779B97F4A7C15)  # probability 2^-256 per block
    return np.ascontiguousarray(states)


@njit(cache=True, inline="always")
def gradient(code: int, parameters: np.ndarray, x: np.ndarray, z: np.ndarray, out: np.ndarray) -> None:
    """out ← ∇_x ℓ(x; z) for a built-in loss: `QuadraticLoss` (x − z) or `LogisticLoss` (−y s(−y aᵀx) a + λ x)."""
    d = x.size
    if code == QUADRATIC:
        for k in range(d):
            out[k] = x[k] - z[k]
    elif code == LOGISTIC:
        margin = 0.0
        for k in range(d):
            margin += z[k] * x[k]
        y = z[d]
        margin *= y
        # s(−m) = 1 / (1 + e^m) without overflow: e^−|m| / (1 + e^−|m|) for m >= 0, 1 / (1 + e^−|m|) for m < 0;
        # a select, not a branch (the sign of the margin is a coin flip for a branch predictor). e^−|m| inlined
        # (`exp_nonpositive`, relative error < 2^-52: libm's exp is a call, ~5 ns); a NaN margin stays NaN.
        e = exp_nonpositive(-abs(margin)) if margin == margin else margin
        s = (e if margin >= 0.0 else 1.0) / (1.0 + e)
        c = -y * s
        lam = parameters[0]
        for k in range(d):
            out[k] = c * z[k] + lam * x[k]


@njit(cache=True, nogil=True)
def simulate_builtin(loss_code: int, projection_code: int, dim: int, loss_parameters: np.ndarray,
                     projection_parameters: np.ndarray, data: np.ndarray, starts: np.ndarray, eta: float,
                     sigma: float, block: int, states: np.ndarray, out: np.ndarray) -> None:
    """out[r] = x_n of run r: x_i = Π_W(x_{i−1} − eta (∇ℓ(x_{i−1}, z_i) + sigma ξ_i)), ξ_i ~ N(0, I_d) (BBGG-A1).

    loss_code, projection_code and dim are numba literals (`builtin_kernel` compiles them; dim = 0: d read from
    `out` at run time). data: (1 or runs, n, p) datasets (run r uses data[r] when there is one per run); starts:
    (1 or runs, d) x_0; states: `block_states` for the runs in blocks of `block`. Noise in the order of the module
    docstring.
    """
    literally(loss_code)
    literally(projection_code)
    literally(dim)
    runs, d = out.shape
    if dim > 0:
        d = dim
        x = carray(stack_matrix(LANES, dim), (LANES, dim))
        g = carray(stack_matrix(1, dim), (dim,))
    else:
        x = np.empty((LANES, d))
        g = np.empty(d)
    n = data.shape[1]
    shared_data = data.shape[0] == 1
    shared_start = starts.shape[0] == 1
    blocks = states.shape[0]
    words = np.empty((LANES, 4), dtype=np.uint64)
    for b0 in range(0, blocks, LANES):
        used = min(LANES, blocks - b0)
        for lane in range(used):
            for w in range(4):
                words[lane, w] = states[b0 + lane, w]
        for j in range(block):
            active = 0  # lanes whose block has run j: a prefix (only the last block can be short)
            for lane in range(used):
                r = (b0 + lane) * block + j
                if r < runs:
                    active = lane + 1
                    start = starts[0 if shared_start else r]
                    for k in range(d):
                        x[lane, k] = start[k]
            if active == 0:
                break
            for i in range(n):
                for lane in range(active):
                    r = (b0 + lane) * block + j
                    xr = x[lane]
                    gradient(loss_code, loss_parameters, xr, data[0 if shared_data else r, i], g)
                    s0, s1, s2, s3 = words[lane, 0], words[lane, 1], words[lane, 2], words[lane, 3]
                    for k in range(d):
                        z, s0, s1, s2, s3 = fast.normal_step_outlined(s0, s1, s2, s3)
                        xr[k] = xr[k] - eta * (g[k] + sigma * z)
                    words[lane, 0], words[lane, 1], words[lane, 2], words[lane, 3] = s0, s1, s2, s3
                    if projection_code == BALL:
                        project_ball(projection_parameters[0], xr)
                    elif projection_code == BOX:
                        project_box(projection_parameters, xr)
            for lane in range(active):
                r = (b0 + lane) * block + j
                for k in range(d):
                    out[r, k] = x[lane, k]


_F1 = types.Array(types.float64, 1, "C")
_F2 = types.Array(types.float64, 2, "C")


@cache
def builtin_kernel(loss_code: int, projection_code: int, d: int) -> Any:
    """The compiled `simulate_builtin` for a loss, a projection and a dimension (d as a constant up to
    `MAX_CONSTANT_DIM`), loaded from numba's disk cache after the first compilation; called directly, without the
    dispatcher's type resolution (which would retry the literal dispatch on every call)."""
    dim = d if d <= MAX_CONSTANT_DIM else 0
    signature = (types.IntegerLiteral(loss_code), types.IntegerLiteral(projection_code), types.IntegerLiteral(dim),
                 _F1, _F1, types.Array(types.float64, 3, "C"), _F2, types.float64, types.float64, types.int64,
                 types.Array(types.uint64, 2, "C"), _F2)
    simulate_builtin.compile(signature)
    entry = simulate_builtin.overloads[signature].entry_point

    def run(loss_parameters: np.ndarray, projection_parameters: np.ndarray, data: np.ndarray, starts: np.ndarray,
            eta: float, sigma: float, block: int, states: np.ndarray, out: np.ndarray) -> None:
        entry(loss_code, projection_code, dim, loss_parameters, projection_parameters, data, starts, eta, sigma,
              block, states, out)

    return run


@njit
def _user_steps(user_gradient: Any, projection_code: int, projection_parameters: np.ndarray, data: np.ndarray,
                first: int, x: np.ndarray, noise: np.ndarray, eta: float, sigma: float) -> None:
    """The n steps of runs first..first+m−1 (states x, (m, d)) with a user gradient and their noise (m, n, d).
    Not cached: numba compiles it once per gradient and process."""
    m, d = x.shape
    shared_data = data.shape[0] == 1
    g = np.empty(d)
    for i in range(data.shape[1]):
        for r in range(m):
            xr = x[r]
            user_gradient(xr, data[0 if shared_data else first + r, i], g)
            for k in range(d):
                xr[k] = xr[k] - eta * (g[k] + sigma * noise[r, i, k])
            project_inplace(projection_code, projection_parameters, xr)


def simulate_user(user_gradient: Any, projection_code: int, projection_parameters: np.ndarray, data: np.ndarray,
                  starts: np.ndarray, eta: float, sigma: float, block: int, states: np.ndarray,
                  out: np.ndarray) -> None:
    """`simulate_builtin` for ``user_gradient(x, z, out)``, same noise: block b's noise drawn by
    ``fill_normals(states[b], (runs of the block, n, d))``. A compiled loop with the generator inside would cost
    seconds to compile for a gradient that cannot be cached, in every process."""
    runs, d = out.shape
    n = data.shape[1]
    for b, b0 in enumerate(range(0, runs, block)):
        m = min(block, runs - b0)
        x = np.array(np.broadcast_to(starts if starts.shape[0] == 1 else starts[b0:b0 + m], (m, d)))
        noise = np.empty((m, n, d))
        fast.fill_normals(states[b].copy(), noise)
        _user_steps(user_gradient, projection_code, projection_parameters, data, b0, x, noise, eta, sigma)
        out[b0:b0 + m] = x
