"""numba kernels of the subset-selection oracle: exact uniform integers and per-user d-subsets (DESIGN §9).

Imported only inside `SubsetSelection.sample`, so ``import markovdp`` does not import numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._unary_kernels import bernoulli

_TWO32 = 4294967296.0
_TWO53 = 9007199254740992.0
_TWO32_INT = 2**32
_MASK32 = 2**32 - 1


@njit(cache=True, inline="always")
def uniform_below(rng: np.random.Generator, m: int) -> int:
    """An exactly uniform integer in [0, m), 1 <= m <= 2^31: Lemire's multiply-and-reject on 32 random bits,
    floor(u 2^32) = the top 32 of the 53 bits of numpy's ``random()`` u (int64 arithmetic: bits * m < 2^63)."""
    while True:
        prod = np.int64(rng.random() * _TWO32) * m
        low = prod & _MASK32
        if low >= m or low >= (_TWO32_INT - m) % m:  # reject the 2^32 mod m low values that would bias
            return prod >> 32


#: Chunk widths W for the uniform labels: W random bits per draw, 53 // W draws per ``random()``, for ranges
#: up to 2^(W − 6) (rejection probability < 2^-6); beyond the last, 32 bits per ``random()`` (`uniform_below`).
CHUNK_BITS = ((16, 10), (26, 20))


def chunk_width(others: int) -> int:
    """The chunk width W for labels in [0, others), or 0 for the 32-bit path."""
    return next((w for w, log_range in CHUNK_BITS if others <= 2**log_range), 0)


@njit(cache=True)
def sample_subsets(rng: np.random.Generator, x: np.ndarray, d: int, rare: float, flip: bool, width: int,
                   out: np.ndarray) -> None:
    """out[i] (zeros on entry, k = out.shape[1]) becomes the indicator of user i's d-subset: x[i] joins with
    probability `rare` (an exact Bernoulli; with ``flip``, `rare` is the probability that it does not join),
    then the rest is a uniform subset of the other k − 1 labels (Floyd's algorithm on 0..k−2, labels
    o >= x[i] shifted up by one; the row itself is the membership table).

    Uniform integers: Lemire's multiply-and-reject, exact, on W-bit chunks (`width`, from `chunk_width`) of
    the 53 bits j of ``random()`` = j 2^-53 (disjoint bit fields of j are independent uniform integers), or
    `uniform_below` (32 bits) for ``width = 0``.
    """
    n, k = out.shape
    others = k - 1
    per_draw = 53 // width if width else 0
    span = np.int64(1) << np.int64(max(width, 1))
    pool = np.int64(0)
    left = 0
    for i in range(n):
        xi = x[i]
        row = out[i]
        need = d
        if bernoulli(rng, rare) != flip:
            row[xi] = 1
            need = d - 1
        for j in range(others - need, others):  # Floyd: a uniform `need`-subset of 0..others−1
            m = j + 1
            if width:
                while True:
                    if left == 0:
                        pool = np.int64(rng.random() * _TWO53)
                        left = per_draw
                    chunk = pool & (span - 1)
                    pool >>= width
                    left -= 1
                    prod = chunk * m
                    low = prod & (span - 1)
                    if low >= m or low >= span % m:  # reject the 2^W mod m low values that would bias
                        t = prod >> width
                        break
            else:
                t = uniform_below(rng, m)
            label = t + (t >= xi)
            if row[label]:
                label = j + (j >= xi)  # j itself cannot be marked yet
            row[label] = 1
