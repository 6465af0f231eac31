"""numba kernel of `markovdp.divergences.exact.gaussian`: STD-GaussHS in one pass, compiled on first use.

THEORY: STD-GaussHS. The same arithmetic as the numpy form of `gauss_hockey_stick` (D/s >= 0.1), term by term:
scipy's own erfcx (`scipy.special.cython_special`, linked by address) and numpy's exp (taken between the two
passes), so the values are the numpy form's to the last bit. Imported only inside `gauss_hockey_stick`, so
``import markovdp`` does not import numba.
"""

from __future__ import annotations

import ctypes
import math

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types
from numba.core.extending import get_cython_function_address

_SQRT_HALF = math.sqrt(0.5)
#: The symbol under which scipy's real erfcx (``double erfcx(double, int skip_dispatch)``) is linked.
_ERFCX = "markovdp_scipy_erfcx"


def _link_erfcx() -> bool:
    """Link scipy's compiled erfcx; False where this scipy does not export it as expected (then the numpy form
    is used). Checked on two values against the ufunc, so a changed signature cannot slip through."""
    from scipy import special

    try:
        address = get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1erfcx")
    except (ImportError, ValueError, KeyError, AttributeError):
        return False
    probe = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int)(address)
    if any(probe(x, 0) != special.erfcx(x) for x in (0.3, 57.0)):
        return False
    llvm.add_symbol(_ERFCX, address)
    return True


LINKED = _link_erfcx()
_erfcx = types.ExternalFunction(_ERFCX, types.float64(types.float64, types.intc))


@njit(cache=True)
def gauss_exponents(ratio: float, eps: np.ndarray, shift: np.ndarray, exponent: np.ndarray) -> None:
    """shift = eps s/D and exponent = −a²/2, a = D/(2s) − shift (0 where eps = inf): w = ½ e^exponent."""
    half = ratio / 2.0
    for j in range(eps.size):
        shift[j] = eps[j] / ratio
        a = half - shift[j]
        exponent[j] = -0.5 * (a * a) if eps[j] < math.inf else 0.0  # NaN too


@njit(cache=True)
def gauss_hockey_stick_pass(ratio: float, tv: float, eps: np.ndarray, shift: np.ndarray, exp_terms: np.ndarray,
                            out: np.ndarray) -> None:
    """STD-GaussHS for D/s = ratio >= 0.1 at every eps, given `gauss_exponents`' shift and exp_terms = e^exponent
    (numpy's exp) and tv = erf(ratio/(2 sqrt 2)), the value at eps = 0; 0 at eps = inf. Clipped to [0, 1],
    never −0.0. The two erfcx are taken in two loops: each sees ascending arguments on an ascending grid, which
    keeps the branch of scipy's table predictable (one loop alternating the two costs ~2x). Where w = 0 (e^(−a²/2)
    underflowed, |a| > 38.6) the numpy form's value is w times finite erfcx values: 0 if a < 0, 1 − 0 − 0 = 1 if
    a >= 0; those eps skip both erfcx."""
    half = ratio / 2.0
    n = eps.size
    erfcx_b = np.empty(n)  # erfcx(−b/√2)
    erfcx_a = np.empty(n)  # erfcx(|a|/√2)
    for j in range(n):
        needed = eps[j] < math.inf and eps[j] != 0.0 and exp_terms[j] != 0.0
        erfcx_b[j] = _erfcx((half + shift[j]) * _SQRT_HALF, 0) if needed else 0.0
    for j in range(n):
        needed = eps[j] < math.inf and eps[j] != 0.0 and exp_terms[j] != 0.0
        erfcx_a[j] = _erfcx(abs(half - shift[j]) * _SQRT_HALF, 0) if needed else 0.0
    for j in range(n):
        e = eps[j]
        if not e < math.inf:  # inf (and NaN, as the numpy form leaves it): 0
            out[j] = 0.0
            continue
        if e == 0.0:
            value = tv
        elif exp_terms[j] == 0.0:
            value = 0.0 if half - shift[j] < 0.0 else 1.0
        else:
            a = half - shift[j]
            w = 0.5 * exp_terms[j]
            value = w * (erfcx_a[j] - erfcx_b[j]) if a < 0.0 else (1.0 - w * erfcx_a[j]) - w * erfcx_b[j]
        out[j] = min(max(value, 0.0), 1.0) + 0.0
