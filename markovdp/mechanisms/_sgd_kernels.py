"""numba kernels of `NoisyProjSGD` (BBGG-A1): the built-in gradients and the blocked simulator.

Imported only inside the functions that run them, so ``import markovdp`` does not import numba. The numpy
`Generator` is passed into the compiled code (its stream is numpy's, bit for bit). The built-in losses run in one
cached kernel that switches on the loss's code; a user gradient runs in a kernel that takes it as an argument
(numba cannot cache that one, so it is kept small and fast to compile).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from ..operators._projection_kernels import project_inplace
from .losses import LOGISTIC, QUADRATIC


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
        if margin >= 0.0:  # s(−m) = 1 / (1 + e^m), evaluated without overflow
            e = math.exp(-margin)
            s = e / (1.0 + e)
        else:
            s = 1.0 / (1.0 + math.exp(margin))
        c = -y * s
        lam = parameters[0]
        for k in range(d):
            out[k] = c * z[k] + lam * x[k]


@njit(cache=True)
def simulate_builtin(loss_code: int, loss_parameters: np.ndarray, projection_code: int,
                     projection_parameters: np.ndarray, data: np.ndarray, starts: np.ndarray, eta: float,
                     sigma: float, block: int, gen: Any, out: np.ndarray) -> None:
    """out[r] = x_n of run r: x_i = Π_W(x_{i−1} − eta (∇ℓ(x_{i−1}, z_i) + sigma ξ)), ξ ~ N(0, I_d) (BBGG-A1).

    data: (1 or runs, n, p) datasets (run r uses data[r] when there is one per run); starts: (1 or runs, d) x_0.
    Runs go in blocks of `block`; within a block the order of draws is step i, then run, then coordinate, the
    order of a numpy loop over i that draws ``gen.standard_normal((block, d))`` per step.
    """
    runs, d = out.shape
    n = data.shape[1]
    shared_data = data.shape[0] == 1
    shared_start = starts.shape[0] == 1
    x = np.empty((block, d))
    g = np.empty(d)
    for b0 in range(0, runs, block):
        m = min(block, runs - b0)
        for r in range(m):
            x[r] = starts[0 if shared_start else b0 + r]
        for i in range(n):
            for r in range(m):
                xr = x[r]
                gradient(loss_code, loss_parameters, xr, data[0 if shared_data else b0 + r, i], g)
                for k in range(d):
                    xr[k] = xr[k] - eta * (g[k] + sigma * gen.standard_normal())
                project_inplace(projection_code, projection_parameters, xr)
        out[b0:b0 + m] = x[:m]


@njit
def _user_steps(user_gradient: Any, projection_code: int, projection_parameters: np.ndarray, data: np.ndarray,
                first: int, x: np.ndarray, noise: np.ndarray, eta: float, sigma: float) -> None:
    """The n steps of `simulate_builtin` for the runs first..first+m−1 (states x, (m, d)) with a user gradient
    and pre-drawn noise (n, m, d). Not cached: numba compiles it once per gradient and process."""
    m, d = x.shape
    shared_data = data.shape[0] == 1
    g = np.empty(d)
    for i in range(data.shape[1]):
        for r in range(m):
            xr = x[r]
            user_gradient(xr, data[0 if shared_data else first + r, i], g)
            for k in range(d):
                xr[k] = xr[k] - eta * (g[k] + sigma * noise[i, r, k])
            project_inplace(projection_code, projection_parameters, xr)


def simulate_user(user_gradient: Any, projection_code: int, projection_parameters: np.ndarray, data: np.ndarray,
                  starts: np.ndarray, eta: float, sigma: float, block: int, gen: np.random.Generator,
                  out: np.ndarray) -> None:
    """`simulate_builtin` for ``user_gradient(x, z, out)``, same stream of draws: the noise of each block is drawn
    by numpy as one (n, block, d) array (the kernel's order: step, run, coordinate). A compiled loop that takes
    the Generator costs seconds to compile, which a gradient that cannot be cached would pay in every process."""
    runs, d = out.shape
    n = data.shape[1]
    for b0 in range(0, runs, block):
        m = min(block, runs - b0)
        x = np.array(np.broadcast_to(starts if starts.shape[0] == 1 else starts[b0:b0 + m], (m, d)))
        _user_steps(user_gradient, projection_code, projection_parameters, data, b0, x,
                    gen.standard_normal((n, m, d)), eta, sigma)
        out[b0:b0 + m] = x
