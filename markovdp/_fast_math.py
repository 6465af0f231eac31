"""Vectorisable exponentials for z <= 0 in numba (private; imports numba): `exp_nonpositive`, `expm1_nonpositive`.

libm's exp and expm1 are calls LLVM cannot vectorise or see into (about 5.5 and 16-20 ns a value here, and a call
in a loop makes it spill its registers); numpy's SIMD float64 exp needs AVX-512. These are plain arithmetic,
inlined by LLVM: the one-pass estimator sums (`markovdp.divergences._estimate_kernels`) and `tanh_map`
(`markovdp.operators.maps`) use them. Accuracy (tests/test_fast_math.py, against mpmath): relative
error < 2^-52 for e^z; for e^z − 1 relative error < 2^-51 near 0 and absolute error < 2^-52 everywhere.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# e^z for z <= 0, vectorisable (libm's exp is a call LLVM cannot vectorise: 5.5 ns a value here, numpy's SIMD
# float64 exp needs AVX-512). z = n ln2 + r, n = round(z / ln2) by the 1.5 * 2^52 trick, ln2 split in two
# (Cody–Waite: n * _LN2_HI is exact for |n| < 2^21), |r| <= ln2 / 2 + 2^-40; e^r by its Taylor polynomial of
# degree 13 (remainder < 0.35^14 / 14! < 5e-18) in Estrin's order; 2^n built in the exponent bits.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # the upper 32 bits of ln 2 (fdlibm)
_LN2_LO = 1.90821492927058770002e-10  # ln 2 − _LN2_HI
_ROUND = 6755399441055744.0  # 1.5 * 2^52: t = x + _ROUND rounds x to an integer in t's low mantissa bits
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (1.0 / math.factorial(k) for k in range(2, 14))
#: Below this e^z < 3.4e-308 is returned as 0 (2^n stays a normal number above it).
EXP_FLOOR = -708.0


@njit(cache=True, fastmath={"contract"})  # FMAs only; reassoc would let LLVM fold (t − _ROUND) to zc · log2 e
def exp_parts(zc: float) -> tuple[float, float]:
    """(p, 2^n) with e^zc = (1 + p) 2^n, zc = n ln2 + r, p = e^r − 1 (|r| <= ln2 / 2), for −708 <= zc <= 0."""
    t = zc * _LOG2E + _ROUND
    n = t - _ROUND
    r = (zc - n * _LN2_HI) - n * _LN2_LO
    r2 = r * r
    r4 = r2 * r2
    low = (r + (0.5 + _C3 * r) * r2) + ((_C4 + _C5 * r) + (_C6 + _C7 * r) * r2) * r4
    high = ((_C8 + _C9 * r) + (_C10 + _C11 * r) * r2) + (_C12 + _C13 * r) * r4
    scale = np.int64((np.float64(t).view(np.int64) + 1023) << 52).view(np.float64)  # 2^n: low bits of t hold n
    return low + high * (r4 * r4), scale


@njit(cache=True, fastmath={"contract"})
def exp_nonpositive(z: float) -> float:
    """e^z for z <= 0 (−inf allowed), relative error < 2^-52 (2 ulp; 1.83 · 2^-53 measured); 0 where z < −708."""
    p, scale = exp_parts(max(z, EXP_FLOOR))
    return (1.0 + p) * scale if z >= EXP_FLOOR else 0.0  # 1 added last: e^r − 1 is small


@njit(cache=True, fastmath={"contract"})
def expm1_nonpositive(z: float) -> float:
    """e^z − 1 for z <= 0 (−inf allowed) in full relative precision near 0 (|z| <= ln2 / 2: e^r − 1 itself, no
    1 added and taken away; relative error < 2^-51, 1.02 · 2^-52 measured), absolute error < 2^-52 everywhere;
    −1 where z < −708."""
    p, scale = exp_parts(max(z, EXP_FLOOR))
    if z < EXP_FLOOR:
        return -1.0
    return p * scale + (scale - 1.0)  # (1 + p) 2^n − 1 with 2^n − 1 exact: no rounding of 1 + p
