"""`calibrate` (issue 14 §1): the parameter of a one-parameter family that just meets a target (eps, delta), held
against independent closed forms — the analytic Gaussian calibration of BW18 solved here with scipy on the ndtr
formula — and always on the safe side."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import ndtr

import markovdp as md
from markovdp.guarantees import calibrate
from tests.oracles import hockey_stick_bruteforce

TARGETS = [(1.0, 1e-5), (0.5, 1e-3), (3.0, 1e-9), (0.1, 0.05)]


def bw_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    """BW18 Theorem 8: delta(eps) = Phi(D/2s − eps s/D) − e^eps Phi(−D/2s − eps s/D) of N(f(D), s²)."""
    a, b = sensitivity / (2.0 * sigma), eps * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(eps) * ndtr(-a - b))


def bw_sigma(eps: float, delta: float) -> float:
    """BW18's analytic calibration: the sigma with bw_delta(eps, sigma) = delta (sensitivity 1), by scipy's brentq
    on the ndtr formula at full precision."""
    return brentq(lambda s: bw_delta(eps, s) - delta, 1e-3, 1e4, xtol=1e-15, rtol=4 * np.finfo(float).eps)


@pytest.mark.parametrize("eps, delta", TARGETS)
def test_noise_scale_of_the_gaussian_mechanism_is_the_analytic_calibration(eps, delta):
    found = calibrate(lambda s: md.GaussianMechanism(s), eps, delta, bounds=(0.01, 1000.0))
    assert isinstance(found, float)
    assert found == pytest.approx(bw_sigma(eps, delta), rel=1e-9)
    assert float(md.privacy_profile(md.GaussianMechanism(found), eps)) <= delta  # safe side, in floats


@pytest.mark.parametrize("eps, delta", TARGETS)
def test_kernel_strength_after_a_gaussian_mechanism(eps, delta):
    """N(f(D), 1) through N(0, s²) is N(f(D), 1 + s²): the kernel must bring the total to BW18's sigma."""
    sigma = bw_sigma(eps, delta)
    if sigma <= 1.0:
        pytest.skip("the mechanism alone meets this target")
    found = calibrate(lambda s: md.GaussianMechanism(1.0) >> md.GaussianKernel(s), eps, delta, bounds=(1e-3, 1e3))
    assert found == pytest.approx(math.sqrt(sigma**2 - 1.0), rel=1e-8)
    assert float(md.certify(md.GaussianMechanism(1.0) >> md.GaussianKernel(found)).delta(eps)) <= delta


@pytest.mark.parametrize("eps, delta", TARGETS)
def test_number_of_steps_is_the_least_integer_that_meets_the_target(eps, delta):
    """N(f(D), 1) through r kernels N(0, 0.5²): variance 1 + r/4, so r = ceil(4 (sigma² − 1)) by BW18."""
    sigma = bw_sigma(eps, delta)
    expected = max(1, math.ceil(4.0 * (sigma**2 - 1.0)))
    found = calibrate(lambda r: md.GaussianMechanism(1.0) >> md.GaussianKernel(0.5) ** r, eps, delta,
                      bounds=(1, 400), integer=True)
    assert isinstance(found, int) and found == expected
    assert bw_delta(eps, math.sqrt(1 + found / 4)) <= delta * (1 + 1e-9)
    assert bw_delta(eps, math.sqrt(1 + (found - 1) / 4)) > delta


def test_an_increasing_family_returns_the_largest_parameter_that_meets_the_target():
    """The sensitivity of N(f(D), 1): delta grows with it, so the answer is the largest, 1/sigma(BW18)."""
    found = calibrate(lambda d: md.GaussianMechanism(1.0, sensitivity=d), 1.0, 1e-5, bounds=(1e-3, 10.0))
    assert found == pytest.approx(1.0 / bw_sigma(1.0, 1e-5), rel=1e-9)
    assert float(md.privacy_profile(md.GaussianMechanism(1.0, sensitivity=found), 1.0)) <= 1e-5


def test_steps_of_a_finite_kernel_against_brute_force():
    """Randomized response through r lazy steps of a 3-state kernel, checked by brute force over events."""
    kernel = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    rr = md.RandomizedResponse(3, 3.0)

    def exact(r: int, eps: float) -> float:
        rows = rr.matrix @ np.linalg.matrix_power(kernel, r)
        return max(hockey_stick_bruteforce(rows[a], rows[b], eps) for a in range(3) for b in range(3) if a != b)

    found = calibrate(lambda r: rr >> md.FiniteKernel(kernel) ** r, 0.5, 1e-3, bounds=(1, 100), integer=True)
    assert exact(found, 0.5) <= 1e-3 + 1e-12 < exact(found - 1, 0.5)


def test_the_result_is_on_the_safe_side_of_a_step_like_curve():
    """DeclaredDP(eps0, 0) at eps = 1: delta is 0 for every eps0 <= 1 (flat, ties at the end lo), then rises; the
    answer is the largest eps0 that meets the target, and it meets it in floats."""
    found = calibrate(lambda e0: md.DeclaredDP(e0, 0.0), 1.0, 0.05, bounds=(0.01, 5.0))
    assert float(md.certify(md.DeclaredDP(found, 0.0)).delta(1.0)) <= 0.05
    # STD-DominatingPair at delta0 = 0: (e^eps0 − e^eps)/(1 + e^eps0) = 0.05 (a closed form)
    assert found == pytest.approx(math.log((math.e + 0.05) / 0.95), rel=1e-9)


def test_refuses_a_bracket_where_both_or_neither_end_meets_the_target():
    with pytest.raises(ValueError, match=r"`bounds` must be .*both ends meet it"):
        calibrate(lambda s: md.GaussianMechanism(s), 1.0, 1e-5, bounds=(10.0, 100.0))
    with pytest.raises(ValueError, match=r"`bounds` must be .*neither end meets it"):
        calibrate(lambda s: md.GaussianMechanism(s), 1.0, 1e-5, bounds=(0.1, 1.0))


def test_refuses_a_family_that_is_not_monotone_at_the_ends():
    """sigma = |p| on (−2, 5): the end hi meets the target, but next to lo delta rises with p."""
    with pytest.raises(ValueError, match=r"`family` must be monotone in p over `bounds`"):
        calibrate(lambda p: md.GaussianMechanism(abs(p) + 0.1), 1.0, 1e-5, bounds=(-2.0, 5.0))


@pytest.mark.parametrize("kwargs, kind, match", [
    ({"target_eps": -1.0}, ValueError, "`target_eps` must be >= 0"),
    ({"target_eps": math.inf}, ValueError, "`target_eps` must be >= 0 and finite"),
    ({"target_delta": 1.5}, ValueError, r"`target_delta` must be in \[0, 1\]"),
    ({"bounds": (1.0, 1.0)}, ValueError, "`bounds` must be .*lo < hi"),
    ({"bounds": (5.0, 1.0)}, ValueError, "`bounds` must be .*lo < hi"),
    ({"bounds": (0.5, math.inf)}, ValueError, "`bounds` must be finite"),
    ({"bounds": (0.5, 1.0, 2.0)}, TypeError, "`bounds` must be a pair"),
    ({"bounds": 3.0}, TypeError, "`bounds` must be a pair"),
    ({"bounds": (0.5, 50.0), "integer": True}, TypeError, "`bounds` must be a pair of integers"),
    ({"integer": "yes"}, TypeError, "`integer` must be True or False"),
    ({"family": 3.0}, TypeError, "`family` must be a function"),
    ({"family": lambda s: md.GaussianKernel(s)}, TypeError, "`family` must return a Mechanism"),
])
def test_bad_input_names_the_parameter(kwargs, kind, match):
    args = {"family": lambda s: md.GaussianMechanism(s), "target_eps": 1.0, "target_delta": 1e-5,
            "bounds": (0.5, 50.0), **kwargs}
    family = args.pop("family")
    with pytest.raises(kind, match=match):
        calibrate(family, **args)
