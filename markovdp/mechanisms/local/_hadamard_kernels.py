"""numba kernels of the small-output frequency oracles (HR, BH, k-ary RR): one report per user.

Imported only inside the oracles' ``sample`` methods, so ``import markovdp`` does not import numba. Every draw
is exact for the channel's doubles: the rare event (a report outside C_x, a flipped bit, a label other than x)
is an exact Bernoulli of its probability computed without cancellation (`_unary_kernels.bernoulli`, any double
in [0, 1), so e^-eps/(1 + e^-eps) is realised exactly at eps = 50, where u < 1 − that would never fail), and the
uniform indices are exact uniform integers (the top bits of ``random()`` = j 2^-53 for a power-of-2 range,
Lemire's multiply-and-reject otherwise). `rng` is the numpy Generator itself (numba draws from it in the loop).
Sylvester Hadamard entries: H[r, j] = (−1)^parity(r & j) (THEORY SRP-Tab1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._subset_kernels import uniform_below
from ._unary_kernels import bernoulli

_TWO53 = 9007199254740992.0


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


@njit(cache=True, inline="always")
def _bit_length(v: int) -> int:
    n = 0
    while v > 0:
        v >>= 1
        n += 1
    return n


@njit(cache=True, inline="always")
def uniform_int(rng: np.random.Generator, m: int) -> int:
    """An exactly uniform integer in [0, m), 1 <= m <= 2^53: `uniform_below` (Lemire, 32 bits) up to 2^31, else
    the top L = bit_length(m − 1) bits of ``random()`` = j 2^-53, rejected while >= m (probability < 1/2)."""
    if m <= 2147483648:
        return uniform_below(rng, m)
    shift = 53 - _bit_length(m - 1)
    while True:
        v = np.int64(rng.random() * _TWO53) >> shift
        if v < m:
            return v


@njit(cache=True)
def hadamard_response(rng: np.random.Generator, x: np.ndarray, half: int, rare: float, out: np.ndarray) -> None:
    """out[i] = a uniform column of C_{x_i} (H[x_i + 1, ·] = +1), or of its complement with probability `rare`
    (= 1 − a, exact Bernoulli). half = K/2, a power of 2: the index z = floor(2^m random()), K/2 = 2^m, is
    exactly uniform on [K/2].

    With r = x + 1 and b its lowest set bit, inserting a 0 at b's position maps z in [K/2] to j' with bit b
    clear; {j', j' | b} has one column of each sign (flipping b flips parity(r & j)), so choosing the one of the
    wanted sign is a bijection from [K/2] onto C_x (or onto its complement).
    """
    for i in range(x.shape[0]):
        want = 1 if bernoulli(rng, rare) else 0
        r = x[i] + 1
        b = r & -r
        z = np.int64(rng.random() * half)
        low = z & (b - 1)
        j = ((z - low) << 1) | low  # z with a 0 inserted at bit b
        if parity(r & j) != want:
            j |= b
        out[i] = j


@njit(cache=True)
def binary_hadamard(rng: np.random.Generator, x: np.ndarray, order: int, rare: float, out: np.ndarray) -> None:
    """out[i] = 2 j + bit: j = floor(K random()) uniform on [K] (the public column, K = `order` a power of 2)
    and bit = parity((x_i + 1) & j), flipped with probability `rare` (= 1 − a, exact Bernoulli)."""
    for i in range(x.shape[0]):
        flip = 1 if bernoulli(rng, rare) else 0
        j = np.int64(rng.random() * order)
        out[i] = 2 * j + (parity((x[i] + 1) & j) ^ flip)


@njit(cache=True)
def randomized_response(rng: np.random.Generator, x: np.ndarray, k: int, rare: float, flip: bool,
                        out: np.ndarray) -> None:
    """out[i] = x_i, or a uniform label of the k − 1 others (exact uniform integers).

    The report is another label with probability `rare` = (k − 1) q (``flip=False``), or with probability
    1 − `rare`, `rare` = p (``flip=True``): one exact Bernoulli of the rarer of the two, so either keeps full
    relative precision (k-ary RR: p = 1/(1 + (k − 1) e^-eps) on the diagonal, q = e^-eps p off it).
    """
    for i in range(x.shape[0]):
        row = x[i]
        if bernoulli(rng, rare) != flip:
            t = uniform_int(rng, k - 1)
            out[i] = t + (t >= row)
        else:
            out[i] = row
