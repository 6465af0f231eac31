"""Frequency estimation helpers (SRP-Est): the simplex projection against brute force, scipy's QP and its KKT
conditions; the losses against scipy's distances; empirical frequencies against a Counter."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.spatial import distance

from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.frequency import (
    empirical_frequencies,
    l1_error,
    l2_squared_error,
    linf_error,
    project_simplex,
)
from markovdp.spaces import IncompatibleSpaces

vectors = st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=12).map(np.array)


def brute_force_projection(f: np.ndarray) -> np.ndarray:
    """Over every support S: w_S = f_S − (Σ f_S − 1)/|S| (the projection onto the face's affine hull); keep the
    feasible ones (w_S >= 0) and return the closest to f. Exact, and exponential in k."""
    best, best_dist = None, math.inf
    for size in range(1, f.size + 1):
        for support in itertools.combinations(range(f.size), size):
            idx = list(support)
            w = np.zeros_like(f)
            w[idx] = f[idx] - (f[idx].sum() - 1.0) / size
            if (w >= 0).all() and (dist := float(((w - f) ** 2).sum())) < best_dist:
                best, best_dist = w, dist
    return best


def test_srp_est_projection_matches_brute_force_over_supports():
    rng = np.random.default_rng(1)
    for k in (1, 2, 3, 5, 7):
        for _ in range(40):
            f = rng.normal(0.2, 0.6, k)
            np.testing.assert_allclose(project_simplex(f), brute_force_projection(f), atol=1e-12)


def test_srp_est_projection_matches_scipy_qp():
    """min ||w − f||² s.t. Σw = 1, w >= 0, solved by scipy's SLSQP (an independent solver; tolerance 1e-7)."""
    rng = np.random.default_rng(2)
    for _ in range(10):
        f = rng.normal(0.1, 0.5, 6)
        result = minimize(lambda w, f=f: ((w - f) ** 2).sum(), np.full(6, 1 / 6), jac=lambda w, f=f: 2 * (w - f),
                          method="SLSQP", bounds=[(0.0, None)] * 6,
                          constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0}],
                          options={"ftol": 1e-14, "maxiter": 500})
        assert result.success
        np.testing.assert_allclose(project_simplex(f), result.x, atol=1e-7)


@settings(max_examples=200, deadline=None)
@given(vectors)
def test_srp_est_projection_kkt(f):
    """w >= 0, Σw = 1, f_i − w_i = tau on the support and f_i <= tau off it (the KKT conditions: the optimum)."""
    w = project_simplex(f)
    assert (w >= 0).all()
    assert abs(w.sum() - 1.0) <= 1e-12 * max(1.0, np.abs(f).sum())
    support = w > 0
    assert support.any()
    tau = f[support] - w[support]
    scale = 1e-12 * max(1.0, float(np.abs(f).max()))
    assert np.ptp(tau) <= 10 * scale
    assert (f[~support] <= tau.max() + 10 * scale).all()


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 6).flatmap(lambda m: st.lists(st.lists(st.floats(-3.0, 3.0), min_size=m, max_size=m),
                                                     min_size=1, max_size=4)).map(np.array))
def test_projection_of_a_batch_is_rowwise(batch):
    np.testing.assert_array_equal(project_simplex(batch), np.array([project_simplex(row) for row in batch]))


def test_projection_keeps_simplex_points_and_is_biased():
    """A distribution is its own projection; projecting RR's unbiased one-user estimates is biased:
    Σ_y Q[x, y] project(f̂(y)) != e_x (computed exactly from the channel)."""
    p = np.array([0.1, 0.0, 0.6, 0.3])
    np.testing.assert_allclose(project_simplex(p), p, atol=1e-15)
    rr = RandomizedResponse(3, 1.0)
    G = np.array([rr.estimate([y]) for y in range(3)])
    np.testing.assert_allclose(rr.channel.matrix @ G, np.eye(3), atol=1e-12)
    assert np.abs(rr.channel.matrix @ project_simplex(G) - np.eye(3)).max() > 0.1


def test_losses_match_scipy_distances():
    rng = np.random.default_rng(4)
    a, b = rng.random(9), rng.random(9)
    assert l1_error(a, b) == pytest.approx(distance.cityblock(a, b), rel=1e-14)
    assert l2_squared_error(a, b) == pytest.approx(distance.sqeuclidean(a, b), rel=1e-14)
    assert linf_error(a, b) == pytest.approx(distance.chebyshev(a, b), rel=1e-14)
    batch = rng.random((3, 9))
    np.testing.assert_allclose(l2_squared_error(batch, b), [distance.sqeuclidean(r, b) for r in batch], rtol=1e-14)


def test_empirical_frequencies_match_a_counter():
    x = np.random.default_rng(5).integers(0, 6, 1000)
    counts = Counter(x.tolist())
    np.testing.assert_array_equal(empirical_frequencies(x, 7), [counts[v] / 1000 for v in range(7)])


def test_frequency_bad_input():
    with pytest.raises(IncompatibleSpaces, match="3.*4"):
        l1_error([0.5, 0.5, 0.0], [0.25] * 4)
    with pytest.raises(ValueError, match="`estimate`"):
        linf_error([0.1, math.nan], [0.5, 0.5])
    with pytest.raises(ValueError, match="`f`"):
        project_simplex([])
    with pytest.raises(ValueError, match="`f`"):
        project_simplex([0.3, math.inf])
    with pytest.raises(ValueError, match=r"`x`.*n >= 1"):
        empirical_frequencies([], 3)
    with pytest.raises(ValueError, match="`x`"):
        empirical_frequencies([0, 3], 3)
    with pytest.raises(ValueError, match="`k`"):
        empirical_frequencies([0], 0)
