"""numba form of the projections of `markovdp.operators.projections` (imported where compiled code needs it)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .projections import BALL, BOX


@njit(cache=True, inline="always")
def project_ball(radius: float, x: np.ndarray) -> None:
    """x ← Π_W(x) for W the centred L2 ball of the given radius (`Ball`): x·radius/||x||_2 outside it."""
    sq = 0.0
    for k in range(x.size):
        sq += x[k] * x[k]
    if sq > radius * radius:
        scale = radius / math.sqrt(sq)
        for k in range(x.size):
            x[k] *= scale


@njit(cache=True, inline="always")
def project_box(parameters: np.ndarray, x: np.ndarray) -> None:
    """x ← Π_W(x) for W the box [lo, hi] (`Box`; parameters = (lo_1 … lo_d, hi_1 … hi_d)): coordinatewise clip."""
    d = x.size
    for k in range(d):
        x[k] = min(max(x[k], parameters[k]), parameters[d + k])


@njit(cache=True, inline="always")
def project_inplace(code: int, parameters: np.ndarray, x: np.ndarray) -> None:
    """x ← Π_W(x) for one point x of R^d; code 0 leaves x unchanged (W = R^d), 1 is `Ball`, 2 is `Box`."""
    if code == BALL:
        project_ball(parameters[0], x)
    elif code == BOX:
        project_box(parameters, x)
