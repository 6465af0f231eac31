"""numba kernels of local hashing (OLH): the public hash h_s(v) of a 64-bit seed s and the server's support counts.

Imported only inside `LocalHashing`'s sampling and estimation, so ``import markovdp`` does not import numba.
h_s(v) is the splitmix64 finaliser of s + (v + 1) φ (φ = 0x9E3779B97F4A7C15, arithmetic mod 2^64), reduced to
[0, g) without bias: a 64-bit value z below 2^64 mod g is rejected (re-mixed) and z mod g kept otherwise, so each
value is exactly uniform on [g] given uniform 64-bit mixes (the pseudo-random-function model of every deployed
OLH; pure-LDP uses xxhash).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


@njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def hash_value(seed: np.uint64, v: np.int64, g: np.uint64, floor: np.uint64) -> np.int64:
    """h_seed(v) in [0, g): uniform given uniform mixes (`floor` = 2^64 mod g, the rejected low values)."""
    z = _mix(seed + (np.uint64(v) + np.uint64(1)) * _PHI)
    while z < floor:
        z = _mix(z + _PHI)
    return np.int64(z % g)


@njit(cache=True)
def hash_inputs(seeds: np.ndarray, x: np.ndarray, g: np.uint64, floor: np.uint64, out: np.ndarray) -> None:
    """out[i] = h_{seeds[i]}(x[i])."""
    for i in range(x.shape[0]):
        out[i] = hash_value(seeds[i], x[i], g, floor)


@njit(cache=True)
def hash_tables(seeds: np.ndarray, k: int, g: np.uint64, floor: np.uint64, out: np.ndarray) -> None:
    """out[i, v] = h_{seeds[i]}(v) for v in [0, k)."""
    for i in range(seeds.shape[0]):
        for v in range(k):
            out[i, v] = hash_value(seeds[i], v, g, floor)


@njit(cache=True, nogil=True)
def support_counts(seeds: np.ndarray, y: np.ndarray, k: int, g: np.uint64, floor: np.uint64) -> np.ndarray:
    """c_v = #{i : h_{seeds[i]}(v) = y_i} for v in [0, k): O(n k) hash evaluations."""
    counts = np.zeros(k, dtype=np.int64)
    for i in range(seeds.shape[0]):
        s = seeds[i]
        yi = y[i]
        for v in range(k):
            if hash_value(s, v, g, floor) == yi:
                counts[v] += 1
    return counts
