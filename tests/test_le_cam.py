"""AAC-LeCam: exact TV of n-fold product output laws and the two-point Le Cam bound, against full enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markovdp as md
from markovdp.guarantees.aac import ldp_contraction_bound
from markovdp.guarantees.le_cam import bernoulli_rr_le_cam, le_cam_bound, product_tv
from markovdp.spaces import IncompatibleSpaces

EXAMPLES = settings(max_examples=100, deadline=None, derandomize=True, database=None)
seeds = st.integers(0, 2**32 - 1)


def sequence_laws(P0: np.ndarray, P1: np.ndarray, K: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The laws of (Z_1, …, Z_n), Z_i = K(X_i), X_i i.i.d. from P0 (and P1), by summing over every input and
    output sequence: P(z) = Σ_x Π_i P(x_i) K[x_i, z_i] (no independence shortcut, no counts)."""
    k, m = K.shape
    xs = np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64).reshape(-1, n)
    zs = np.array(list(itertools.product(range(m), repeat=n)), dtype=np.int64).reshape(-1, n)
    channel = np.ones((xs.shape[0], zs.shape[0]))
    for i in range(n):
        channel *= K[xs[:, i][:, None], zs[:, i][None, :]]
    return tuple(np.prod(P[xs], axis=1) @ channel for P in (P0, P1))


def tv_enumerated(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p - q).sum())


def two_point_bayes_risk(p: np.ndarray, q: np.ndarray, theta0: float, theta1: float) -> float:
    """The exact Bayes risk of squared loss under the uniform prior on {theta0, theta1}: for each outcome the
    posterior mean is optimal, leaving (theta1 − theta0)² p q / (p + q) / 2. A lower bound on the minimax risk
    (the max is at least the average), computed here as an independent check that Le Cam's bound is below it."""
    both = (p + q) > 0
    return (theta1 - theta0) ** 2 / 2.0 * float(np.sum(p[both] * q[both] / (p[both] + q[both])))


def estimator_max_risk(p: np.ndarray, q: np.ndarray, estimate: np.ndarray, theta0: float, theta1: float) -> float:
    """max_i E_i (hat − theta_i)² of one concrete estimator: an upper bound on the two-point minimax risk."""
    return max(float(np.sum(p * (estimate - theta0) ** 2)), float(np.sum(q * (estimate - theta1) ** 2)))


# ---------------------------------------------------------------------------------------- product TV


@pytest.mark.parametrize("n", range(1, 9))
def test_aac_lecam_binomial_count_tv_equals_enumeration_of_bernoulli_sequences(n):
    """The TV of n-fold Bernoulli products equals the TV of the two Binomial(n, ·) count laws (sufficiency)."""
    rng = np.random.default_rng(n)
    for a, b in [(0.3, 0.6), (0.0, 0.2), (1e-9, 1.0), *rng.random((5, 2))]:
        p, q = np.array([1 - a, a]), np.array([1 - b, b])
        expected = tv_enumerated(*sequence_laws(p, q, np.eye(2), n))
        assert product_tv(p, q, n) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("m, n", [(3, 1), (3, 4), (3, 6), (4, 5), (1, 3)])
def test_aac_lecam_multinomial_count_tv_equals_enumeration(m, n):
    rng = np.random.default_rng(10 * m + n)
    for _ in range(4):
        p, q = rng.dirichlet(np.full(m, 0.7), size=2)
        p[rng.random(m) < 0.2] = 0.0
        p = p / p.sum() if p.sum() > 0 else np.full(m, 1.0 / m)
        expected = tv_enumerated(*sequence_laws(p, q, np.eye(m), n))
        assert product_tv(md.Categorical(p), q, n) == pytest.approx(expected, rel=1e-11, abs=1e-14)


@EXAMPLES
@given(st.integers(2, 3), st.integers(2, 3), st.integers(1, 6), seeds)
def test_aac_lecam_bound_from_enumerated_private_laws(k, m, n, seed):
    """le_cam_bound = (theta1 − theta0)² / 4 · (1 − TV) with the TV of the n privatised samples summed over every
    input and output sequence; below the exact two-point Bayes risk, itself below a concrete estimator's risk."""
    rng = np.random.default_rng(seed)
    K = rng.dirichlet(np.full(m, rng.choice([0.3, 1.0, 5.0])), size=k)
    P0, P1 = rng.dirichlet(np.ones(k), size=2)
    theta0, theta1 = sorted(rng.normal(size=2))
    p, q = sequence_laws(P0, P1, K, n)
    bound = le_cam_bound(md.FiniteKernel(K), P0, P1, n, theta0=theta0, theta1=theta1)
    assert bound == pytest.approx((theta1 - theta0) ** 2 / 4 * (1 - tv_enumerated(p, q)), rel=1e-9, abs=1e-15)
    assert bound <= two_point_bayes_risk(p, q, theta0, theta1) * (1 + 1e-9) + 1e-15
    midpoint = np.full(p.size, 0.5 * (theta0 + theta1))
    assert two_point_bayes_risk(p, q, theta0, theta1) <= estimator_max_risk(p, q, midpoint, theta0, theta1) + 1e-15


@EXAMPLES
@given(st.floats(0.0, 5.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(1, 60))
def test_aac_lecam_private_tv_at_most_phi_n_times_nonprivate(eps, theta0, theta1, n):
    """AAC-phi with n: TV(P0^n K^n, P1^n K^n) <= phi_n(eps, 0) TV(P0^n, P1^n) for binary randomized response,
    the exact eps-LDP channel; and the provable effective-sample-size bound (KL(P0 K || P1 K) <= phi KL(P0 || P1)
    summed over n samples, then Bretagnolle–Huber) stays below the exact Le Cam bound."""
    if theta0 == theta1:
        return
    table = bernoulli_rr_le_cam(eps, [n], theta0=theta0, theta1=theta1)
    assert table.tv_private[0] <= ldp_contraction_bound(eps, 0.0, n) * table.tv_nonprivate[0] * (1 + 1e-9) + 1e-12
    assert table.tv_phi_bound[0] == ldp_contraction_bound(eps, 0.0, n) * table.tv_nonprivate[0]
    assert table.le_cam_effective[0] <= table.le_cam_private[0] * (1 + 1e-9) + 1e-15
    assert table.le_cam_nonprivate[0] <= table.le_cam_private[0] * (1 + 1e-9) + 1e-15  # privatising loses information


def test_aac_lecam_bernoulli_table_against_enumeration():
    """Every exact column of `bernoulli_rr_le_cam` for n <= 8, from the enumerated sequence laws."""
    eps, t0, t1 = 1.0, 0.35, 0.55
    table = bernoulli_rr_le_cam(eps, np.arange(1, 9), theta0=t0, theta1=t1)
    K = md.RandomizedResponse(2, eps).matrix
    P0, P1 = np.array([1 - t0, t0]), np.array([1 - t1, t1])
    phi = 1.0 - math.exp(-eps)
    for i, n in enumerate(range(1, 9)):
        tv_priv = tv_enumerated(*sequence_laws(P0, P1, K, n))
        tv_non = tv_enumerated(*sequence_laws(P0, P1, np.eye(2), n))
        assert table.tv_private[i] == pytest.approx(tv_priv, rel=1e-12)
        assert table.tv_nonprivate[i] == pytest.approx(tv_non, rel=1e-12)
        assert table.le_cam_private[i] == pytest.approx((t1 - t0) ** 2 / 4 * (1 - tv_priv), rel=1e-12)
        assert table.le_cam_nonprivate[i] == pytest.approx((t1 - t0) ** 2 / 4 * (1 - tv_non), rel=1e-12)
        kl = t0 * math.log(t0 / t1) + (1 - t0) * math.log((1 - t0) / (1 - t1))
        assert table.le_cam_effective[i] == pytest.approx((t1 - t0) ** 2 / 8 * math.exp(-phi * n * kl), rel=1e-12)
        m = math.ceil(phi * n)
        tv_eff = tv_enumerated(*sequence_laws(P0, P1, np.eye(2), m))
        assert table.le_cam_at_effective_n[i] == pytest.approx((t1 - t0) ** 2 / 4 * (1 - tv_eff), rel=1e-12)
    np.testing.assert_allclose(table.n_effective, phi * np.arange(1, 9), rtol=1e-15)
    np.testing.assert_allclose(table.n_effective_duchi, 4 * eps**2 * np.arange(1, 9), rtol=1e-15)
    assert table.phi == ldp_contraction_bound(eps, 0.0)


def test_aac_lecam_large_n_keeps_tiny_bounds_accurate():
    """The overlap 1 − TV is summed in log space: at n = 20000 the bound is far below 1e-16 (1 − TV would round
    to 0) yet matches the log-space sum of min(Binomial pmfs) computed with mpmath."""
    from mpmath import mp, mpf

    mp.dps = 40
    n, a, b = 20000, mpf("0.4"), mpf("0.6")
    bound = le_cam_bound(np.eye(2), [0.6, 0.4], [0.4, 0.6], n, theta0=0.4, theta1=0.6)
    # min of the two pmfs is the pmf of the farther law on each side of n/2: sum it exactly
    overlap = mp.fsum(mp.binomial(n, j) * min(a**j * (1 - a) ** (n - j), b**j * (1 - b) ** (n - j))
                      for j in range(n // 2 - 600, n // 2 + 601))
    assert 0 < bound < 1e-16
    assert bound == pytest.approx(float(mpf("0.04") / 4 * overlap), rel=1e-9)


def test_aac_lecam_shapes_and_no_data_limit():
    assert bernoulli_rr_le_cam(1.0, 5).tv_private.shape == ()
    assert bernoulli_rr_le_cam(1.0, [[1, 2], [3, 4]]).le_cam_private.shape == (2, 2)
    zero = bernoulli_rr_le_cam(0.0, [3], theta0=0.2, theta1=0.5)  # eps = 0: the outputs carry no information
    assert zero.tv_private[0] == 0.0
    assert zero.le_cam_private[0] == pytest.approx(0.09 / 4, rel=1e-12)
    assert zero.le_cam_at_effective_n[0] == pytest.approx(0.09 / 4, rel=1e-12)


@pytest.mark.parametrize("call, kind, name", [
    (lambda: product_tv([0.5, 0.5], [0.5, 0.5], 0), ValueError, "`n`"),
    (lambda: product_tv([0.5, 0.5], [0.5, 0.5], 1.5), TypeError, "`n`"),
    (lambda: product_tv([0.5, 0.6], [0.5, 0.5], 2), ValueError, "`p`"),
    (lambda: product_tv([0.5, 0.5], [0.2, 0.3, 0.5], 2), IncompatibleSpaces, "2 and 3"),
    (lambda: product_tv(np.full(30, 1 / 30), np.full(30, 1 / 30), 100), ValueError, "`n`"),
    (lambda: le_cam_bound(np.eye(2), [0.5, 0.5], [1.0, 0.0, 0.0], 2, theta0=0, theta1=1), IncompatibleSpaces, "3"),
    (lambda: le_cam_bound([[0.5, 0.6], [0.5, 0.5]], [0.5, 0.5], [1, 0], 2, theta0=0, theta1=1), ValueError, "`K`"),
    (lambda: le_cam_bound(np.eye(2), [0.5, 0.5], [1, 0], 2, theta0=math.nan, theta1=1), ValueError, "`theta0`"),
    (lambda: le_cam_bound(md.GaussianKernel(1.0), [0.5, 0.5], [1, 0], 2, theta0=0, theta1=1),
     NotImplementedError, "finite"),
    (lambda: bernoulli_rr_le_cam(-1.0, [3]), ValueError, "`eps`"),
    (lambda: bernoulli_rr_le_cam(math.inf, [3]), ValueError, "`eps`"),
    (lambda: bernoulli_rr_le_cam(1.0, [3], theta0=1.5), ValueError, "`theta0`"),
    (lambda: bernoulli_rr_le_cam(1.0, [3], theta0=0.5, theta1=0.5), ValueError, "`theta1`"),
    (lambda: bernoulli_rr_le_cam(1.0, [0, 3]), ValueError, "`n`"),
    (lambda: bernoulli_rr_le_cam(1.0, [2.5]), TypeError, "`n`"),
])
def test_aac_lecam_rejects_bad_input(call, kind, name):
    with pytest.raises(kind, match=name):
        call()
