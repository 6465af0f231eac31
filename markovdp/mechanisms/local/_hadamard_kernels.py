"""numba kernels of the small-output frequency oracles (HR, BH, k-ary RR): one report per user.

Imported only inside the oracles' ``sample`` methods, so ``import markovdp`` does not import numba. The random
numbers are drawn in bulk by numpy (its fastest paths) and passed in; the kernels only map them to reports.
Sylvester Hadamard entries: H[r, j] = (−1)^parity(r & j) (THEORY SRP-Tab1).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def parity(v: int) -> int:
    """popcount(v) mod 2 for 0 <= v < 2^63 (xor folding)."""
    v ^= v >> 32
    v ^= v >> 16
    v ^= v >> 8
    v ^= v >> 4
    v ^= v >> 2
    v ^= v >> 1
    return v & 1


@njit(cache=True)
def hadamard_response(x: np.ndarray, uniforms: np.ndarray, index: np.ndarray, keep: float, out: np.ndarray) -> None:
    """out[i] = the index[i]-th column of C_{x_i} (H[x_i + 1, ·] = +1) if uniforms[i] < keep, else of its complement.

    ``index`` is uniform on [K/2]. With r = x + 1 and b its lowest set bit, inserting a 0 at b's position maps
    z in [K/2] to j' with bit b clear; {j', j' | b} has one column of each sign (flipping b flips parity(r & j)),
    so choosing the one of the wanted sign is a bijection from [K/2] onto C_x (or onto its complement).
    """
    for i in range(x.shape[0]):
        r = x[i] + 1
        b = r & -r
        z = index[i]
        low = z & (b - 1)
        j = ((z - low) << 1) | low  # z with a 0 inserted at bit b
        want = 0 if uniforms[i] < keep else 1
        if parity(r & j) != want:
            j |= b
        out[i] = j


@njit(cache=True)
def binary_hadamard(x: np.ndarray, uniforms: np.ndarray, column: np.ndarray, keep: float, out: np.ndarray) -> None:
    """out[i] = 2 j + bit with j = column[i] and bit = parity((x_i + 1) & j), flipped unless uniforms[i] < keep."""
    for i in range(x.shape[0]):
        j = column[i]
        bit = parity((x[i] + 1) & j)
        if uniforms[i] >= keep:
            bit ^= 1
        out[i] = 2 * j + bit


@njit(cache=True)
def randomized_response(x: np.ndarray, uniforms: np.ndarray, k: int, p: float, q: float, out: np.ndarray) -> None:
    """out[i] = the first y with F_x(y) > uniforms[i], F_x the CDF of row x of k-ary RR (p on the diagonal, q off it).

    Closed-form inverse CDF: F_x(y) = (y + 1) q for y < x, x q + p at y = x and x q + p + (y − x) q beyond, so
    no table is read (the guide-table sampler misses the cache at k = 1024). It returns the table sampler's index
    except where a uniform lies within rounding (~1e-16 k) of a CDF step.
    """
    for i in range(x.shape[0]):
        u = uniforms[i]
        row = x[i]
        below = row * q
        if u < below:
            y = min(int(u / q), row - 1)
        elif u < below + p:
            y = row
        else:
            y = min(row + 1 + int((u - below - p) / q), k - 1)
        out[i] = y
