"""Our erfcx (`_gaussian_kernels.erfcx`, the table `_erfcx_table`) and the compiled STD-GaussHS pass built on it.

Independent references only: the table recomputed from its recipe with mpmath, erfcx against mpmath at 50 digits
and against scipy's erfcx (a separate implementation of the same scheme), the profile against 50-digit mpmath over
a dense eps grid (eps up to 50, sigma 1e-3 … 10). THEORY: STD-GaussHS. No timing assertions.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from numba import njit
from oracles import mp_gauss_hockey_stick_textbook
from scipy import special

from markovdp.divergences.exact._erfcx_table import ERFCX_POLYNOMIALS
from markovdp.divergences.exact._gaussian_kernels import erfcx
from markovdp.divergences.exact.gaussian import gauss_hockey_stick

U = 2.0**-53  # unit round-off of a double


@njit(cache=False)
def erfcx_many(xs):
    out = np.empty(xs.size)
    for j in range(xs.size):
        out[j] = erfcx(xs[j])
    return out


def recipe_row(i: int) -> list[float]:
    """The table's recipe for y = 400/(4 + x) in [i, i + 1): the degree-6 Chebyshev projection (Chebyshev–Gauss,
    40 nodes, 40 digits) of t -> erfcx(400/(i + (t + 1)/2) − 4), in powers of t, 20 digits, then a double."""
    nodes = 40
    with mp.workdps(40):
        theta = [mp.pi * (j + mp.mpf(1) / 2) / nodes for j in range(nodes)]
        values = []
        for th in theta:
            x = 400 / (i + (mp.cos(th) + 1) / 2) - 4
            values.append(mp.erfc(x) * mp.exp(x * x))
        cheb = [2 * mp.fsum(v * mp.cos(k * th) for v, th in zip(values, theta, strict=True)) / nodes
                for k in range(7)]
        cheb[0] /= 2
        powers = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]  # T_k in powers of t: T_k = 2t T_(k−1) − T_(k−2)
        for _ in range(2, 7):
            new = [mp.mpf(0)] + [2 * c for c in powers[-1]]
            for j, c in enumerate(powers[-2]):
                new[j] -= c
            powers.append(new)
        row = [mp.fsum(cheb[k] * powers[k][j] for k in range(j, 7) if j < len(powers[k])) for j in range(7)]
        return [float(mp.nstr(c, 20, min_fixed=1, max_fixed=0)) for c in row]


def test_the_erfcx_table_is_its_recipe():
    assert len(ERFCX_POLYNOMIALS) == 93
    for i, row in enumerate(ERFCX_POLYNOMIALS, start=7):
        assert list(row) == recipe_row(i), i


def erfcx_arguments() -> np.ndarray:
    rng = np.random.default_rng(11)
    edges = 400.0 / np.arange(8, 101) - 4.0  # where the polynomial changes (y = i), and the float below each
    return np.concatenate([np.logspace(-20, 9, 1500), rng.uniform(0.0, 60.0, 1500), edges, np.nextafter(edges, 0.0),
                           [0.0, 4.4e-16, 5e-16, 50.0, np.nextafter(50.0, 0.0), 5e7, np.nextafter(5e7, np.inf)]])


def test_erfcx_matches_mpmath():
    """Within 1e-15 relative of 50 digits (measured: 8.9e-16, at x ~ 1e-4, the degree-6 fit; scipy's is the same)."""
    xs = erfcx_arguments()
    with mp.workdps(50):
        truth = np.array([float(mp.erfc(mp.mpf(x)) * mp.exp(mp.mpf(x) ** 2)) for x in xs])
    np.testing.assert_allclose(erfcx_many(xs), truth, rtol=1e-15, atol=0.0)
    assert erfcx(math.inf) == 0.0 and math.isnan(erfcx(math.nan))


def test_erfcx_is_scipys_to_the_bit_but_for_rare_ulps():
    """scipy's erfcx is Johnson's scheme with his own table: ours gives the same double on all but about 2 in 10^6
    arguments (one coefficient's last bit) and is within 1 ulp on those."""
    rng = np.random.default_rng(12)
    xs = np.concatenate([erfcx_arguments(), rng.uniform(0.0, 50.0, 200_000), np.exp(rng.uniform(-40, 20, 100_000))])
    ours, theirs = erfcx_many(xs), special.erfcx(xs)
    assert np.mean(ours != theirs) < 2e-5
    assert np.all(np.abs(ours - theirs) <= np.spacing(theirs))


def error_bound(ratio: float, eps: float) -> tuple[float, float]:
    """50-digit STD-GaussHS and the float error model of its erfcx form (the rounding of a, b and a²/2, each term
    to a few ulps; as tests/test_robustness.py)."""
    value, phi_a, scaled_b, pdf_a = mp_gauss_hockey_stick_textbook(ratio, eps)
    a = ratio / 2 - eps / ratio
    rounding = (phi_a + scaled_b) * (1 + a * a) + pdf_a * (ratio / 2 + eps / ratio)
    return value, float(1e-13 * value + 32 * U * rounding)


@pytest.mark.parametrize("sigma", [1e-3, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0])
def test_compiled_profile_matches_mpmath_on_a_dense_grid(sigma):
    """The compiled pass (D/s = 1/sigma >= 0.1) on a log-spaced grid to eps = 50 and a linear one to 10."""
    ratio = 1.0 / sigma
    eps = np.concatenate([[0.0], np.logspace(-6.0, math.log10(50.0), 200), np.linspace(0.0, 10.0, 60)[1:]])
    values = gauss_hockey_stick(ratio, eps)
    for e, value in zip(eps, values, strict=True):
        oracle, bound = error_bound(ratio, float(e))
        assert abs(value - oracle) <= bound, (sigma, e, value, oracle, bound)
