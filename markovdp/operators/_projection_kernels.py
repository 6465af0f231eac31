"""numba form of the projections of `markovdp.operators.projections` (imported where compiled code needs it)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .projections import BALL, BOX


@njit(cache=True, inline="always")
def project_inplace(code: int, parameters: np.ndarray, x: np.ndarray) -> None:
    """x ← Π_W(x) for one point x of R^d; code 0 leaves x unchanged (W = R^d), 1 is `Ball`, 2 is `Box`."""
    d = x.size
    if code == BALL:
        sq = 0.0
        for k in range(d):
            sq += x[k] * x[k]
        radius = parameters[0]
        if sq > radius * radius:
            scale = radius / math.sqrt(sq)
            for k in range(d):
                x[k] *= scale
    elif code == BOX:
        for k in range(d):
            x[k] = min(max(x[k], parameters[k]), parameters[d + k])
