"""Correctness of the fast paths (issue 5 §4): the one-pass finite hockey-stick profile, its rows/pairs
versions behind `RowPairs`, and the matrix-product Rényi divergence of all pairs.

Every value is held against an independent computation: mpmath sums over the atoms (tests/oracles.py),
event enumeration, or the term-by-term formula of issue 2 written out here. No timing assertions.
THEORY: Notation (E_gamma, D_inf, R_alpha), AAC-eta (all-pairs coefficient).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import coefficient_bruteforce, hockey_stick_bruteforce, mp_hockey_stick_atoms, renyi_categorical_mp

import markovdp as md
from markovdp.divergences.exact.finite import (
    hockey_stick_finite,
    hockey_stick_finite_pairs,
    hockey_stick_finite_rows,
    hockey_stick_finite_worst,
    renyi_finite_pairs,
)
from markovdp.guarantees import pair_maxima as pairs_module
from markovdp.mechanisms.base import AllPairs, neighbour_pairs

ULP = 2.0**-52
EPS_GRID = np.concatenate([np.linspace(0.0, 6.0, 25), [0.3, 709.5, 745.0, 750.0, 800.0, 1e4, math.inf]])


def term_by_term(p, q, eps):
    """Issue 2's formula: Σ over L = log p − log q > eps of −p expm1(eps − L), plus D_inf (p where q = 0)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    keep = p > 0
    p, q = p[keep], q[keep]
    out = []
    for e in eps:
        if e == math.inf:
            out.append(p[q == 0].sum())
            continue
        pos = q > 0
        L = np.log(p[pos]) - np.log(q[pos])
        out.append(p[~pos].sum() + np.sum(-p[pos][L > e] * np.expm1(e - L[L > e])))
    return np.array(out)


def mp_profile(p, q, eps):
    """mpmath sums over the atoms (eps = inf: the mass of p where q = 0)."""
    return np.array([float(np.sum(np.asarray(p)[np.asarray(q) == 0])) if e == math.inf
                     else mp_hockey_stick_atoms(p, q, e) for e in eps])


def random_pair(rng, m, zeros=0.2, power=3.0):
    p, q = rng.random(m) ** power, rng.random(m) ** power
    p[rng.random(m) < zeros] = 0.0
    q[rng.random(m) < zeros] = 0.0
    p[0] += p.sum() == 0
    q[-1] += q.sum() == 0
    return p / p.sum(), q / q.sum()


def rounding_tolerance(p, q, eps, exact):
    """|E − exact| allowed: 8 m ulps of E (summation), plus the rounding of L = log p − log q on the terms
    within 1e-6 of the threshold (a few ulps of |log p| + |log q| + eps in each, times p)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p, log_q = np.log(p), np.log(q)
        L = np.where(p > 0, log_p - log_q, -np.inf)
    size = np.where(p > 0, np.abs(log_p) + np.where(q > 0, np.abs(log_q), 0.0), 0.0)
    out = []
    for e, x in zip(eps, exact, strict=True):
        near = (np.abs(L - e) < 1e-6) & (p > 0) & (q > 0) if math.isfinite(e) else np.zeros(p.size, bool)
        out.append(8 * ULP * p.size * x + 8 * ULP * np.sum(p[near] * (size[near] + e + 1)) + 1e-300)
    return np.array(out)


# ------------------------------------------------------------------------------ hockey_stick_finite


@pytest.mark.parametrize("seed", range(40))
def test_finite_profile_matches_mpmath_and_term_by_term(seed):
    rng = np.random.default_rng(seed)
    p, q = random_pair(rng, int(rng.integers(1, 40)))
    eps = np.concatenate([EPS_GRID, rng.random(10) * 4])
    value = hockey_stick_finite(p, q, eps)
    exact = mp_profile(p, q, eps)
    assert np.all(np.abs(value - exact) <= rounding_tolerance(p, q, eps, exact))
    old = term_by_term(p, q, eps)
    np.testing.assert_allclose(value, old, rtol=16 * ULP, atol=0)


@pytest.mark.parametrize("seed", range(20))
def test_finite_profile_where_the_sorted_sums_cancel(seed):
    """q = p e^-c (1 + 1e-9 noise): at eps near c the tail difference is ~1e-9 of the tail mass, so
    A − e^eps B cancels ~30 bits; the one-by-one terms must recover it (and every log-ratio as eps)."""
    rng = np.random.default_rng(100 + seed)
    m, c = int(rng.integers(2, 60)), float(rng.uniform(0.2, 3.0))
    p = rng.random(m)
    p /= p.sum()
    q = p * math.exp(-c) * (1 + rng.normal(0, 1e-9, m))
    q, p = np.append(q, 1 - q.sum()), np.append(p, 0.0)
    eps = np.concatenate([[c, c - 1e-9, c + 1e-9, c - 3e-9, c + 0.69, c + 0.71], np.log(p[:-1] / q[:-1])])
    value = hockey_stick_finite(p, q, eps)
    exact = mp_profile(p, q, eps)
    assert np.all(np.abs(value - exact) <= rounding_tolerance(p, q, eps, exact))
    np.testing.assert_allclose(value, term_by_term(p, q, eps), rtol=16 * ULP, atol=0)


def test_finite_profile_equal_log_ratios_and_ties():
    """Every log-ratio equal (the whole tail sits at the threshold) and eps exactly at it: 0, never < 0."""
    p = np.full(8, 1 / 8)
    q = np.array([0.5, 0.5 / 7, 0.5 / 7, 0.5 / 7, 0.5 / 7, 0.5 / 7, 0.5 / 7, 0.5 / 7])
    L = math.log(1 / 8) - math.log(0.5 / 7)
    eps = np.array([L, np.nextafter(L, 0), np.nextafter(L, 9), L - 1e-12, 0.0])
    value = hockey_stick_finite(p, q, eps)
    exact = mp_profile(p, q, eps)
    assert np.all(np.abs(value - exact) <= rounding_tolerance(p, q, eps, exact))
    assert not np.signbit(value).any()


def test_finite_profile_large_eps_and_d_inf():
    """No overflow of e^eps up to eps = 800 and beyond; eps = inf is the mass of p where q = 0."""
    p = np.array([0.5, 0.25, 0.25 - 1e-300, 1e-300])
    q = np.array([0.0, 1e-300, 0.5, 0.5 - 1e-300])
    eps = np.array([600.0, 689.0, 700.0, 709.0, 709.9, 740.0, 800.0, 1500.0, math.inf])
    value = hockey_stick_finite(p, q, eps)
    exact = mp_profile(p, q, eps)
    np.testing.assert_allclose(value, exact, rtol=8 * ULP, atol=0)
    assert value[-1] == 0.5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=7),
       st.floats(0, 3, allow_nan=False))
def test_finite_profile_against_event_enumeration(weights, eps):
    """sup over events E of p(E) − e^eps q(E), by enumeration (oracles), on small integer-weight laws."""
    a = np.array([w for w, _ in weights], float)
    b = np.array([w for _, w in weights], float)
    if a.sum() == 0 or b.sum() == 0:
        return
    p, q = a / a.sum(), b / b.sum()
    value = float(hockey_stick_finite(p, q, np.array([eps]))[0])
    assert value == pytest.approx(hockey_stick_bruteforce(p, q, eps), rel=1e-12, abs=1e-15)


def test_rows_and_pairs_match_each_pair_alone():
    rng = np.random.default_rng(7)
    P = np.stack([random_pair(rng, 30)[0] for _ in range(6)])
    Q = np.stack([random_pair(rng, 30)[1] for _ in range(6)])
    eps = EPS_GRID
    rows = hockey_stick_finite_rows(P, Q, eps)
    assert rows.shape == (eps.size, 6)
    for r in range(6):
        exact = mp_profile(P[r], Q[r], eps)
        assert np.all(np.abs(rows[:, r] - exact) <= rounding_tolerance(P[r], Q[r], eps, exact))
    index = np.array([[0, 3], [3, 0], [5, 5], [2, 4]])
    values = hockey_stick_finite_pairs(P, index, eps)
    for n, (i, j) in enumerate(index):
        np.testing.assert_allclose(values[:, n], term_by_term(P[i], P[j], eps), rtol=16 * ULP, atol=0)
    assert np.all(values[:, 2] == 0.0)
    worst = hockey_stick_finite_worst(P, index, eps)  # the max over pairs taken inside the pass
    brute = np.max([term_by_term(P[i], P[j], eps) for i, j in index], axis=0)
    np.testing.assert_allclose(worst, np.minimum(brute, 1.0), rtol=16 * ULP, atol=0)


# ------------------------------------------------------------------------------ RowPairs fast paths


def random_matrix(rng, k, m, zeros=0.1):
    matrix = rng.random((k, m)) ** 2
    matrix[rng.random((k, m)) < zeros] = 0.0
    matrix[:, 0] += 1e-3
    return matrix / matrix.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("one_pass", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_all_pairs_profile_both_branches_match_bruteforce(monkeypatch, seed, one_pass):
    """Local DP: the one-pass sums and the numba coefficient (AAC-eta) both equal event enumeration."""
    monkeypatch.setattr(pairs_module, "_ONE_PASS_WORK_PER_EPS", 2**40 if one_pass else 0)
    rng = np.random.default_rng(seed)
    matrix = random_matrix(rng, 4, 6)
    eps = np.array([0.0, 0.2, 0.7, 1.5, 3.0])
    values = md.privacy_profile(md.FiniteMechanism(matrix), eps)
    expected = [coefficient_bruteforce(matrix, e) for e in eps]
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)


def test_index_pairs_profile_and_worst_pair_match_bruteforce():
    rng = np.random.default_rng(11)
    matrix = random_matrix(rng, 5, 6)
    neighbours = [(0, 1), (1, 2), (3, 4)]
    mech = md.FiniteMechanism(matrix, neighbours=neighbours)
    eps = np.array([0.0, 0.4, 1.0, 2.5])
    ordered = [(i, j) for a, b in neighbours for i, j in ((a, b), (b, a))]
    per_pair = np.array([[hockey_stick_bruteforce(matrix[i], matrix[j], e) for i, j in ordered] for e in eps])
    np.testing.assert_allclose(md.privacy_profile(mech, eps), per_pair.max(axis=1), rtol=1e-12, atol=1e-15)
    for n, e in enumerate(eps):
        i, j = md.worst_pair(mech, float(e))
        assert hockey_stick_bruteforce(matrix[i], matrix[j], e) == pytest.approx(per_pair[n].max(), abs=1e-15)


# ------------------------------------------------------------------------------ Rényi, all pairs


@pytest.mark.parametrize("seed", range(3))
def test_renyi_all_pairs_product_matches_mpmath(seed):
    rng = np.random.default_rng(seed)
    matrix = random_matrix(rng, 12, 9, zeros=0.15 if seed else 0.0)
    index = neighbour_pairs(AllPairs(), 12)
    alpha = np.array([1.0001, 1.5, 2.0, 8.0, 64.0, math.inf])
    values = renyi_finite_pairs(matrix, index, alpha)
    for n, (i, j) in enumerate(index):
        exact = [renyi_categorical_mp(matrix[i], matrix[j], a) for a in alpha]
        np.testing.assert_allclose(values[:, n], exact, rtol=1e-11, atol=1e-15)


def test_renyi_all_pairs_nearby_laws():
    """Rows 1e-3 apart: log Σ p^alpha q^(1−alpha) ~ 1e-6 is below the product's threshold, so those pairs are
    summed row by row (log1p/expm1 form). Its error is the rounding of log p − log q (~1e-16 absolute) over
    a sum of ~1e-6: relative 1e-9 at most."""
    base = np.linspace(1.0, 2.0, 10)
    base /= base.sum()
    tilt = base * (1 + 1e-3 * np.linspace(-1, 1, 10))
    matrix = np.stack([base, tilt / tilt.sum(), base[::-1]])
    index = neighbour_pairs(AllPairs(), 3)
    alpha = np.array([1.5, 4.0])
    values = renyi_finite_pairs(matrix, index, alpha)
    for n, (i, j) in enumerate(index):
        exact = [renyi_categorical_mp(matrix[i], matrix[j], a) for a in alpha]
        np.testing.assert_allclose(values[:, n], exact, rtol=1e-9, atol=0)


# ------------------------------------------------------------------------------ ldp_epsilon, pruned pairs


@pytest.mark.parametrize("max_pairs", [256, 0])
@pytest.mark.parametrize("seed", range(6))
def test_pruned_ldp_epsilon_equals_root_finding(monkeypatch, seed, max_pairs):
    """AAC-T1: the pruned search (seed pairs, one pass, candidates alone) returns what root finding on the
    full coefficient returns, and keeps its contract: dobrushin(K, eps) <= delta < dobrushin(K, eps − 1e-12).
    max_pairs = 0 forces the rounds that raise the lower bound (and, when they run out, root finding)."""
    from markovdp.guarantees import coefficients

    rng = np.random.default_rng(200 + seed)
    matrix = random_matrix(rng, int(rng.integers(3, 30)), int(rng.integers(2, 20)), zeros=0.2 * (seed % 2))
    for delta in (1e-6, 1e-3, 0.05, 0.3):
        monkeypatch.setattr(coefficients, "_PRUNE_MIN_ROWS", 10**9)
        root = coefficients.ldp_epsilon(matrix, delta)
        monkeypatch.setattr(coefficients, "_PRUNE_MIN_ROWS", 2)
        monkeypatch.setattr(coefficients, "_PRUNE_MAX_PAIRS", max_pairs)
        pruned = coefficients.ldp_epsilon(matrix, delta)
        assert pruned == pytest.approx(root, abs=coefficients.EPS_XTOL)
        if math.isfinite(pruned):
            assert coefficients.dobrushin(matrix, pruned) <= delta
            assert pruned == 0.0 or coefficients.dobrushin(matrix, pruned - coefficients.EPS_XTOL) > delta


def test_pruned_ldp_epsilon_randomized_response(monkeypatch):
    """k-ary RR: every pair is alike, so the seed pair alone decides; its E_{e^eps} at the answer is the
    closed form (e^eps0 − e^eps)/(e^eps0 + k − 1) (SRP-D), = delta there."""
    from markovdp.guarantees import coefficients

    monkeypatch.setattr(coefficients, "_PRUNE_MIN_ROWS", 2)
    k, eps0, delta = 40, 2.0, 1e-3
    eps = coefficients.ldp_epsilon(md.RandomizedResponse(k, eps0), delta)
    assert eps == pytest.approx(math.log(math.exp(eps0) - delta * (math.exp(eps0) + k - 1)), abs=1e-11)
