"""numba kernel of `markovdp.divergences.exact.gaussian`: STD-GaussHS in one pass, compiled on first use.

THEORY: STD-GaussHS. The same arithmetic as the numpy form of `gauss_hockey_stick` (D/s >= 0.1), term by term, with
numpy's exp (taken between the two passes) and our own `erfcx` inlined in the loop: S. G. Johnson's scheme (the one
scipy's erfcx uses) with coefficients we computed (`_erfcx_table`). It agrees with scipy's erfcx to the bit on all
but about 2 in 10^6 arguments and within 1 ulp on those. Imported only inside `gauss_hockey_stick`, so
``import markovdp`` does not import numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._erfcx_table import ERFCX_POLYNOMIALS

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_POLYNOMIALS = np.array(ERFCX_POLYNOMIALS)


@njit(cache=True)
def erfcx(x: float) -> float:
    """erfcx(x) = e^(x²) erfc(x) for x >= 0 (and +inf; NaN gives NaN), as in Johnson's Faddeeva package.

    x < 50: the degree-6 polynomial of `_erfcx_table` on y = 400/(4 + x) in [i, i + 1), in t = 2y − (2i + 1)
    (y = 100 exactly, i.e. x < 4.5e-16: 1). x >= 50: Laplace's continued fraction
    ``erfcx(x) = (1/√π) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))`` cut at ``2/x``, i.e.
    ``(1/√π) (x² (x² + 4.5) + 2) / (x (x² (x² + 5) + 3.75))`` (relative error < 1e-16 there); x > 5e7: 1/(x√π).
    """
    if x < 50.0:
        y = 400.0 / (4.0 + x)
        i = int(y)
        if i >= 100:
            return 1.0
        t = 2.0 * y - (2 * i + 1)
        c = _POLYNOMIALS[i - 7]
        return c[0] + (c[1] + (c[2] + (c[3] + (c[4] + (c[5] + c[6] * t) * t) * t) * t) * t) * t
    if x > 5e7:
        return _INV_SQRT_PI / x
    xx = x * x
    return _INV_SQRT_PI * (xx * (xx + 4.5) + 2.0) / (x * (xx * (xx + 5.0) + 3.75))


@njit(cache=True)
def gauss_exponents(ratio: float, eps: np.ndarray, shift: np.ndarray, exponent: np.ndarray) -> bool:
    """shift = eps s/D and exponent = −a²/2, a = D/(2s) − shift (0 where eps = inf): w = ½ e^exponent.
    Returns whether some eps is 0 (where the value is erf(ratio/(2 sqrt 2)))."""
    half = ratio / 2.0
    zero = False
    for j in range(eps.size):
        shift[j] = eps[j] / ratio
        a = half - shift[j]
        exponent[j] = -0.5 * (a * a) if eps[j] < math.inf else 0.0  # NaN too
        zero |= eps[j] == 0.0
    return zero


@njit(cache=True)
def gauss_hockey_stick_pass(ratio: float, tv: float, eps: np.ndarray, shift: np.ndarray, exp_terms: np.ndarray,
                            out: np.ndarray) -> None:
    """STD-GaussHS for D/s = ratio >= 0.1 at every eps, given `gauss_exponents`' shift and exp_terms = e^exponent
    (numpy's exp) and tv = erf(ratio/(2 sqrt 2)), the value at eps = 0; 0 at eps = inf. Clipped to [0, 1],
    never −0.0. Where w = 0 (e^(−a²/2) underflowed, |a| > 38.6) the numpy form's value is w times finite erfcx
    values: 0 if a < 0, 1 − 0 − 0 = 1 if a >= 0; those eps skip both erfcx."""
    half = ratio / 2.0
    for j in range(eps.size):
        e = eps[j]
        if not e < math.inf:  # inf (and NaN, as the numpy form leaves it): 0
            out[j] = 0.0
            continue
        a = half - shift[j]
        if e == 0.0:
            value = tv
        elif exp_terms[j] == 0.0:
            value = 0.0 if a < 0.0 else 1.0
        else:
            w = 0.5 * exp_terms[j]
            erfcx_a = erfcx(abs(a) * _SQRT_HALF)
            erfcx_b = erfcx((half + shift[j]) * _SQRT_HALF)  # erfcx(−b/√2)
            value = w * (erfcx_a - erfcx_b) if a < 0.0 else (1.0 - w * erfcx_a) - w * erfcx_b
        out[j] = min(max(value, 0.0), 1.0) + 0.0
