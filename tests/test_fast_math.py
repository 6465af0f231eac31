"""The vectorisable exponentials of `markovdp._fast_math` and the tanh map built on them, against 60-digit mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from markovdp._fast_math import exp_nonpositive, expm1_nonpositive
from markovdp.operators.maps import tanh_map

RNG = np.random.default_rng(20261202)
HALVES = -np.arange(2043) * np.log(2.0) / 2  # the range reduction's cut points, met from both sides
Z = np.concatenate([-RNG.uniform(0.0, 1.0, 500), -RNG.uniform(0.0, 708.0, 500), -np.exp(RNG.uniform(-40, 6.5, 500)),
                    np.nextafter(HALVES, 0.0), np.nextafter(HALVES, -np.inf), [0.0, -0.0, -5e-324, -1e-300, -708.0]])
Z = Z[Z >= -708.0]


def test_exp_is_within_two_ulp_of_mpmath():
    """e^z for z <= 0 within 2^-52 relative; 0 below −708 (and at −inf), 1 at 0."""
    with mpmath.workdps(60):
        err = max(abs(mpmath.mpf(exp_nonpositive(float(v))) / mpmath.exp(mpmath.mpf(float(v))) - 1) for v in Z)
    assert err < 2.0**-52
    assert exp_nonpositive(0.0) == 1.0
    assert [exp_nonpositive(v) for v in (-708.1, -745.2, -1e308, -np.inf)] == [0.0] * 4


def test_expm1_has_full_relative_precision_near_zero_and_absolute_precision_beyond():
    """e^z − 1: relative error < 2^-51 where |z| <= ln2/2 (down to subnormal z), absolute < 2^-52 everywhere."""
    with mpmath.workdps(60):
        exact = [mpmath.expm1(mpmath.mpf(float(v))) for v in Z]
        got = [mpmath.mpf(expm1_nonpositive(float(v))) for v in Z]
        near = [abs(g / e - 1) for g, e, v in zip(got, exact, Z, strict=True) if -np.log(2.0) / 2 <= v < 0.0]
        far = [abs(g - e) for g, e in zip(got, exact, strict=True)]
    assert max(near) < 2.0**-51 and max(far) < 2.0**-52
    assert expm1_nonpositive(0.0) == 0.0 and expm1_nonpositive(-5e-324) == -5e-324
    assert [expm1_nonpositive(v) for v in (-708.1, -1e308, -np.inf)] == [-1.0] * 3


def test_tanh_map_is_within_three_ulp_of_mpmath():
    """L tanh(x) from expm1_nonpositive: within 3 ulp of the correctly rounded value (the worst band is
    0.17 <= |x| <= 0.6, where e^(−2|x|) − 1 is formed from a reduced argument), odd, exact at 0 and ±inf."""
    psi, _ = tanh_map(0.9)
    x = np.concatenate([RNG.uniform(-20.0, 20.0, 3000), RNG.uniform(0.17, 0.6, 6000),  # 2|x| past ln2/2: n = −1
                        np.geomspace(1e-300, 1.0, 300), -np.geomspace(1e-300, 1.0, 300),
                        [0.0, -0.0, 0.2748003054758824, 0.1768188568947573, 20.0, 40.0, np.inf, -np.inf]])
    out = np.empty_like(x)
    psi(x, out)
    with mpmath.workdps(40):
        ref = np.array([float(mpmath.mpf(0.9) * mpmath.tanh(mpmath.mpf(float(v)))) for v in x])
    assert np.max(np.abs(out - ref) / np.spacing(np.abs(ref) + 1e-320)) <= 3.0
    flipped = np.empty_like(x)
    psi(-x, flipped)
    np.testing.assert_array_equal(flipped, -out)
    assert out[-2] == 0.9 and out[-1] == -0.9
