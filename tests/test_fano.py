"""AAC-Fano: the private Fano bound against the exact MAP error and the exact I(V; Z^n) of small finite problems."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special

import markovdp as md
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.fano import PriorFamily, fano_error_bound, private_fano_bound
from markovdp.guarantees.le_cam import _count_log_pmfs

INSTANCES = 500


def count_log_pmfs(laws: np.ndarray, n: int) -> np.ndarray:
    """log P_v(c) of the count vector c of n i.i.d. draws from each row, on le_cam's one list of count vectors."""
    return np.stack([_count_log_pmfs(q, q, n)[0] for q in laws])


def exact_map_error_and_information(out_laws: np.ndarray, n: int,
                                    log_p: np.ndarray | None = None) -> tuple[float, float]:
    """P(V̂ ≠ V) of the MAP test and I(V; Z^n), V uniform, from the count vectors (sufficient for i.i.d. Z)."""
    log_p = count_log_pmfs(out_laws, n) if log_p is None else log_p
    M = log_p.shape[0]
    success = float(np.exp(special.logsumexp(log_p.max(axis=0)))) / M
    log_mean = special.logsumexp(log_p, axis=0) - math.log(M)
    p = np.exp(log_p)
    with np.errstate(invalid="ignore"):
        terms = np.where(p > 0, p * (log_p - log_mean[None, :]), 0.0)
    return 1.0 - success, float(terms.sum()) / M


def sequence_laws(out_laws: np.ndarray, n: int) -> np.ndarray:
    """The laws of the whole sequence z^n by brute force over every sequence (no counts)."""
    m = out_laws.shape[1]
    zs = np.array(list(itertools.product(range(m), repeat=n)))
    return np.stack([np.prod(q[zs], axis=1) for q in out_laws])


def random_instance(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, float]:
    k, m, M, n = int(rng.integers(2, 5)), int(rng.integers(2, 4)), int(rng.integers(2, 6)), int(rng.integers(1, 6))
    laws = rng.dirichlet(np.full(k, 0.6), size=M)
    K = rng.dirichlet(np.full(m, 0.8), size=k)
    if rng.random() < 0.2:
        K[rng.integers(k)] = np.eye(m)[rng.integers(m)]  # a deterministic row: delta > 0 needed
    return laws, K, n, float(rng.choice([0.0, 0.01, 0.2]))


def test_aac_fano_counts_equal_sequence_enumeration():
    """The test's own count-vector computation agrees with brute force over every output sequence."""
    rng = np.random.default_rng(1)
    for M, m, n in [(2, 2, 4), (3, 3, 3), (4, 2, 5)]:
        out = rng.dirichlet(np.ones(m), size=M)
        seq = sequence_laws(out, n)
        error = 1.0 - seq.max(axis=0).sum() / M
        mean = seq.mean(axis=0)
        info = float(special.rel_entr(seq, mean[None, :]).sum()) / M
        got_error, got_info = exact_map_error_and_information(out, n)
        assert got_error == pytest.approx(error, rel=1e-12, abs=1e-14)
        assert got_info == pytest.approx(info, rel=1e-10, abs=1e-14)


def test_aac_fano_bounds_below_the_exact_map_error_on_random_instances():
    """500 random (laws, channel, n): every route's I bound >= the exact I(V; Z^n); both Fano error bounds <= the
    exact MAP error; the risk bound <= the exact uniform-prior Bayes risk (posterior mean, squared loss)."""
    rng = np.random.default_rng(2015)
    sharp_positive = 0
    for _ in range(INSTANCES):
        laws, K, n, delta = random_instance(rng)
        theta = rng.normal(size=laws.shape[0])
        family = PriorFamily(laws, theta, metric="l2", power=2.0)
        out = laws @ K
        log_p = count_log_pmfs(out / out.sum(axis=1, keepdims=True), n)
        error, info = exact_map_error_and_information(out, n, log_p)
        found = private_fano_bound(K, family, n, delta=delta)
        pair = private_fano_bound((ldp_epsilon(K, delta), delta), family, n)
        for bound in (found, pair):
            assert min(bound.routes.values()) == bound.mutual_information
            for value in bound.routes.values():
                assert value >= info * (1 - 1e-11) - 1e-15
            assert bound.error_bound <= bound.error_bound_sharp + 1e-15
            assert bound.error_bound_sharp <= error + 1e-12
        # exact uniform-prior Bayes risk of squared error: E Var(theta_V | counts)
        p = np.exp(log_p) / laws.shape[0]
        weight = p.sum(axis=0)
        post_mean = (theta @ p) / np.where(weight > 0, weight, 1.0)
        bayes = float(np.sum(p * (theta[:, None] - post_mean[None, :]) ** 2))
        assert found.risk_bound <= bayes * (1 + 1e-12) + 1e-15
        assert found.route in ("exact", "eta_tv", "phi") and pair.route == "phi"
        assert found.routes["exact"] <= found.routes["eta_tv"] * (1 + 1e-9) + 1e-15  # SDPI for I: eta_KL <= eta_TV
        assert found.routes["eta_tv"] <= found.routes["phi"] * (1 + 1e-9) + 1e-15  # AAC-phi: eta_TV <= phi
        sharp_positive += found.error_bound_sharp > 0
    assert sharp_positive > INSTANCES // 5  # the check is not vacuous


def test_aac_fano_error_bound_inverts_fanos_inequality():
    """The sharp bound solves h(p) + p log(M − 1) = log M − I (mpmath-free: the inverse checked by substitution)."""
    for M, info in [(2, 0.1), (3, 0.0), (5, 0.3), (50, 2.0), (7, 10.0)]:
        closed, sharp = fano_error_bound(info, M)
        assert closed == max(1 - (info + math.log(2)) / math.log(M), 0.0)
        assert closed <= sharp <= 1 - 1 / M
        if sharp > 0:
            h = -sharp * math.log(sharp) - (1 - sharp) * math.log1p(-sharp) + sharp * math.log(M - 1)
            assert h == pytest.approx(math.log(M) - info, abs=1e-12)
        else:
            assert info >= math.log(M)


def test_aac_fano_identity_channel_and_separation():
    """With no privatisation and n = 1 the exact route is I(V; X); tau is half the least distance."""
    laws = np.eye(3)
    family = PriorFamily([md.Categorical(row) for row in laws], [[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]], metric="l2")
    assert family.tau == 0.5 and family.size == 3
    found = private_fano_bound(np.eye(3), family, 1)
    assert found.input_information == pytest.approx(math.log(3), rel=1e-14)
    assert found.mutual_information == pytest.approx(math.log(3), rel=1e-11)
    assert found.eta_tv == 1.0 and found.error_bound == 0.0
    assert PriorFamily(laws, [0.0, 2.0, 5.0], metric="linf", power=1.0).tau == 1.0


def test_aac_fano_rejects_bad_input():
    family = PriorFamily(np.eye(2), [0.0, 1.0])
    with pytest.raises(ValueError, match="`parameters` must be pairwise distinct"):
        PriorFamily(np.eye(2), [1.0, 1.0])
    with pytest.raises(ValueError, match="`laws` must be at least two laws"):
        PriorFamily([[1.0, 0.0]], [1.0])
    with pytest.raises(ValueError, match="`channel_or_eps_delta` must be"):
        private_fano_bound((-1.0, 0.0), family, 2)
    with pytest.raises(ValueError, match="`prior_family` must be laws on the channel's 3 inputs"):
        private_fano_bound(np.eye(3), family, 2)
    with pytest.raises(TypeError, match="`prior_family` must be a PriorFamily"):
        private_fano_bound((1.0, 0.0), np.eye(2), 2)
    with pytest.raises(ValueError, match="`n` must be"):
        private_fano_bound((1.0, 0.0), family, 0)


def test_aac_fano_is_below_the_library_bayes_risk_and_its_bayes_bounds_are_consistent():
    """AAC-Fano against AAC-Bayes (two independent modules): the Fano error bound <= `bayes_risk` with 0-1 loss and
    uniform prior (the MAP error), which also equals this test's own count-vector MAP error."""
    rng = np.random.default_rng(16)
    for _ in range(60):
        laws, K, n, delta = random_instance(rng)
        out = laws @ K
        error, _ = exact_map_error_and_information(out / out.sum(axis=1, keepdims=True), n)
        risk = md.guarantees.bayes_risk(K, np.arange(laws.shape[0], dtype=float), laws, n).risk
        assert risk == pytest.approx(error, rel=1e-9, abs=1e-14)
        family = PriorFamily(laws, np.arange(laws.shape[0], dtype=float), metric="l2", power=2.0)
        assert private_fano_bound(K, family, n, delta=delta).error_bound_sharp <= risk + 1e-12
