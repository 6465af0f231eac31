"""The LDP profile curve delta(eps) of a finite channel (AAC-T1, AAC-eta) against a plain-python brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markovdp as md
from markovdp.guarantees.aac import ldp_profile
from tests.strategies import stochastic_matrices

EXAMPLES = settings(max_examples=100, deadline=None, derandomize=True, database=None)
GRID = np.array([0.0, 1e-9, 0.5, 2.0, 50.0, 709.5, 710.0, math.inf])


def hockey_stick_sum(p, q, eps: float) -> float:
    """Σ_y [p_y − e^eps q_y]_+ term by term in plain python: a term is positive iff log p − log q > eps, and
    then equals −p expm1(eps + log q − log p) (no overflow of e^eps); q_y = 0 contributes p_y (THEORY: Notation)."""
    total = 0.0
    for a, b in zip(p, q, strict=True):
        if a <= 0.0:
            continue
        if b == 0.0:
            total += a
        elif math.log(a) - math.log(b) > eps:
            total += -a * math.expm1(eps + math.log(b) - math.log(a))
    return total


def profile_bruteforce(matrix, eps: float) -> float:
    """max over ordered input pairs (x, x'), x != x', of the explicit output sum (AAC-eta)."""
    k = len(matrix)
    return max((hockey_stick_sum(matrix[i], matrix[j], eps) for i in range(k) for j in range(k) if i != j),
               default=0.0)


@EXAMPLES
@given(stochastic_matrices())
def test_aac_eta_ldp_profile_matches_explicit_sum_over_outputs(matrix):
    """AAC-eta: delta(eps) on a whole grid (eps up to inf) equals the pairwise sum of [p − e^eps q]_+, and
    dobrushin(K, eps) bit for bit."""
    values = ldp_profile(md.FiniteKernel(matrix), GRID)
    expected = [profile_bruteforce(matrix.tolist(), float(e)) for e in GRID]
    np.testing.assert_allclose(values, expected, rtol=1e-10, atol=1e-13)
    assert np.all(np.diff(values) <= 1e-15), "the profile must be non-increasing in eps"
    # one arithmetic with dobrushin (so one inverse, ldp_epsilon), and a float for a scalar eps
    eps = float(GRID[len(matrix) % GRID.size])
    assert ldp_profile(matrix, eps) == md.dobrushin(matrix, eps)
    assert isinstance(ldp_profile(matrix, eps), float)


@EXAMPLES
@given(stochastic_matrices(), st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1e-12, 1e-6, 0.5, 1.0])))
def test_aac_t1_ldp_profile_inverts_ldp_epsilon(matrix, delta):
    """AAC-T1: at a finite eps = ldp_epsilon(K, d) the curve is <= d exactly, and above d just below it (the
    smallest eps); eps = inf means the curve stays above d everywhere, its D_inf limit included."""
    kernel = md.FiniteKernel(matrix)
    eps = md.ldp_epsilon(kernel, delta)
    if math.isinf(eps):
        assert ldp_profile(kernel, math.inf) > delta
        return
    assert ldp_profile(kernel, eps) <= delta
    if eps > 1e-9:
        assert ldp_profile(kernel, eps - 2e-12) > delta


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("eps0", [0.1, 1.0, 4.0])
def test_aac_t1_ldp_profile_of_randomized_response_closed_form(k, eps0):
    """k-ary RR: delta(eps) = p (1 − e^(eps − eps0)) for eps < eps0 and 0 after, p = e^eps0 / (e^eps0 + k − 1)."""
    grid = np.linspace(0.0, 1.5 * eps0, 13)
    p = math.exp(eps0) / (math.exp(eps0) + k - 1)
    expected = [p * -math.expm1(e - eps0) if e < eps0 else 0.0 for e in grid]
    np.testing.assert_allclose(ldp_profile(md.RandomizedResponse(k, eps0), grid), expected, rtol=1e-12, atol=1e-15)


def test_ldp_profile_keeps_the_shape_of_eps():
    K = md.RandomizedResponse(3, 1.0)
    assert ldp_profile(K, np.zeros((2, 3))).shape == (2, 3)
    assert ldp_profile(K, []).shape == (0,)
    assert ldp_profile(np.eye(1), [0.0, 1.0]).tolist() == [0.0, 0.0]  # one input: nothing to distinguish


@pytest.mark.parametrize("K, eps, kind, name", [
    (np.eye(2), -0.1, ValueError, "`eps`"),
    (np.eye(2), [0.0, math.nan], ValueError, "`eps`"),
    (np.eye(2), "1", TypeError, "`eps`"),
    ([[0.5, 0.4], [0.0, 1.0]], 1.0, ValueError, "`K`"),
])
def test_ldp_profile_rejects_bad_input(K, eps, kind, name):
    with pytest.raises(kind, match=name):
        ldp_profile(K, eps)


def test_ldp_profile_needs_a_finite_channel():
    with pytest.raises(NotImplementedError, match="finite"):
        ldp_profile(md.GaussianKernel(1.0), 1.0)
