"""numba kernels of the unary-encoding oracle: exact Bernoulli draws and per-user bit reports (DESIGN §9).

Imported only inside `UnaryEncoding.sample` (and the subset kernels), so ``import markovdp`` does not import numba.

Exact Bernoulli(b) for a double b in [0, 1): draw U uniform on [0, 1) digit block by digit block and return
U < b, comparing each block of U with the same block of b's binary expansion; only on a tie is the next block
needed. `bernoulli` compares 53 bits at a time (numpy's ``random()`` is j·2^-53, j uniform on [0, 2^53));
`sample_unary` compares 8 bits at a time, six bytes from each ``random()``: with b·256 = B + R (B an integer,
R in [0, 1)), P[byte < B] = B/256 and a tie (probability 1/256) continues with a fresh Bernoulli(R), so the
draw is Bernoulli(B/256 + R/256) = Bernoulli(b) exactly at ~1/6 of a ``random()`` per bit. A law whose 1 is
likelier than its 0 draws its 0 instead (``flip``), so the rarer probability keeps full relative precision.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_TWO53 = 9007199254740992.0
_BYTE = uint64(255)
_EIGHT = uint64(8)


@njit(cache=True)
def bernoulli(rng: np.random.Generator, b: float) -> bool:
    """An exact Bernoulli(b) for a double b in [0, 1): compare 53 random bits at a time with b's digits.

    Unchecked (a hot inner function): b >= 1 gives True, NaN gives False; every caller passes a probability
    computed in [0, 1)."""
    while b > 0.0:
        scaled = b * _TWO53  # exact: a power-of-two scaling
        digits = np.floor(scaled)
        u = rng.random() * _TWO53  # an integer-valued double in [0, 2^53)
        if u < digits:
            return True
        if u > digits:
            return False
        b = scaled - digits  # exact: the fractional part of a double
    return False


@njit(cache=True)
def sample_unary(rng: np.random.Generator, x: np.ndarray, true_law: tuple, other_law: tuple,
                 out: np.ndarray) -> None:
    """out[i, j] ~ the other bit's law for j != x[i], the true bit's law at j = x[i]; bits independent.

    Each law is (B, R, flip) from `bernoulli_split`. The true bit is drawn from its own law, never from the
    other law (no "set, then perturb" that leaves it set too often). Bits are drawn in row-major order.
    """
    t_byte, t_tail, t_flip = true_law
    o_byte, o_tail, o_flip = other_law
    # A flipped law's bit is 1 iff byte > B, i.e. iff (255 − byte) < (255 − B): one comparison either way.
    t_mask, o_mask = uint64(255 if t_flip else 0), uint64(255 if o_flip else 0)
    t_thr, o_thr = uint64(t_byte) ^ t_mask, uint64(o_byte) ^ o_mask
    n, k = out.shape
    pool = uint64(0)
    left = 0
    for i in range(n):
        xi = x[i]
        for j in range(k):
            if left == 0:
                pool = uint64(rng.random() * _TWO53)
                left = 6
            mine = j == xi  # selects, not branches: the loop stays branch-free
            byte = (pool & _BYTE) ^ (t_mask if mine else o_mask)
            pool >>= _EIGHT
            left -= 1
            threshold = t_thr if mine else o_thr
            bit = byte < threshold
            if byte == threshold:  # probability 1/256: the next digits decide
                bit = bernoulli(rng, t_tail if mine else o_tail) != (t_flip if mine else o_flip)
            out[i, j] = bit


@njit(cache=True)
def count_states(x: np.ndarray, k: int) -> np.ndarray:
    """n_j = #{i: x_i = j}, j < k, for checked states x in [0, k): `np.bincount` in one pass, about twice as fast."""
    out = np.zeros(k, np.int64)
    for v in x:
        out[v] += 1
    return out
