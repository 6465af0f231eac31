"""SRP-Rec-ID (a recoverable mechanism with an invertible public channel) and SRP-ML-HR (multi-level privacy with
binary-Hadamard views), against independent computations: numpy's SVD and FFT, direct entropy sums, brute force
over every (x, u), the risk of a linear estimator from the channel matrix, and seeded Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import hadamard

from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.exact import privacy_epsilon, privacy_profile
from markovdp.guarantees.registry import certify
from markovdp.guarantees.srp import multilevel_exact_epsilons, multilevel_predicted_epsilon
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
from markovdp.mechanisms.local.hadamard import HadamardResponse
from markovdp.mechanisms.local.ibu import ibu_estimate
from markovdp.mechanisms.local.multilevel import MultiLevelMechanism
from markovdp.mechanisms.local.multilevel_hadamard import MultiLevelHadamard
from markovdp.mechanisms.local.oracles import is_frequency_oracle
from markovdp.mechanisms.local.recoverable import RecoverableMechanism, min_recoverable_randomness, min_recoverable_s
from markovdp.mechanisms.local.recoverable_id import (
    IdentifiableRecoverableMechanism,
    identifiable_recoverable_s,
    recoverable_factor_bound,
)
from markovdp.operators.finite import FiniteKernel

EPS = (0.05, 0.5, 1.0, 2.0, 5.0, 20.0)


def entropy_direct(p) -> float:
    p = np.asarray(p, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def q_textbook(k: int, eps: float, s: int) -> np.ndarray:
    d = s * math.exp(eps) + k - s
    return np.array([math.exp(eps) / d] * s + [1.0 / d] * (k - s))


def linear_risk(matrix: np.ndarray, weights: np.ndarray, p: np.ndarray, n: int) -> float:
    """E||f̂ − p||² of f̂ = (1/n) Σ_i W[y_i] with y_i ~ pQ, after checking unbiasedness (Q W = I)."""
    np.testing.assert_allclose(matrix @ weights, np.eye(matrix.shape[0]), atol=1e-9)
    mu = p @ matrix
    return float(((mu @ weights**2) - (mu @ weights) ** 2).sum() / n)


# --------------------------------------------------------------------------------------------------- SRP-Rec-ID
def test_rec_id_tiny_eps_still_full_rank_and_never_above_eps():
    """eps down to 1e-13: ldp_epsilon <= eps (the law is built at eps shaded by a few 1e-17 where needed) and the
    float matrix is invertible, its smallest singular value the closed form (numpy SVD, 1e-6 relative)."""
    for eps in (1e-13, 1e-10, 1e-6, 1e-3):
        for k in (3, 4, 8):
            mech = IdentifiableRecoverableMechanism(k, eps)
            assert ldp_epsilon(mech) <= eps
            sv = np.linalg.svd(mech.matrix, compute_uv=False).min()
            assert mech.smallest_singular_value > 0 and sv == pytest.approx(mech.smallest_singular_value, rel=1e-6)


def test_rec_id_full_rank_where_the_least_randomness_key_is_singular():
    """(4, 0.5) and (8, 2): today's argmin s* = 2 gives a singular circulant (numpy's smallest singular value ~1e-17);
    the identifiable mechanism's is the closed form, > 0.1, and numpy's rank is k."""
    for k, eps in ((4, 0.5), (8, 2.0)):
        old = RecoverableMechanism(k, eps, min_recoverable_s(k, eps))
        assert min_recoverable_s(k, eps) == 2
        assert np.linalg.svd(old.matrix, compute_uv=False).min() < 1e-15
        new = IdentifiableRecoverableMechanism(k, eps)
        sv = np.linalg.svd(new.matrix, compute_uv=False)
        assert new.smallest_singular_value == pytest.approx(sv.min(), rel=1e-9)
        assert new.smallest_singular_value > 0.1 and np.linalg.matrix_rank(new.matrix) == k
        assert new.condition_number == pytest.approx(np.linalg.cond(new.matrix), rel=1e-9)


@pytest.mark.parametrize("k", [2, 3, 4, 6, 8, 9, 12, 16, 30])
def test_rec_id_singular_values_closed_form_against_svd_and_fft(k):
    """Singular values of the circulant = |DFT of q| (numpy FFT) = numpy SVD = the closed form; all > 0;
    gcd(s, k) = 1."""
    for eps in EPS:
        mech = IdentifiableRecoverableMechanism(k, eps)
        assert math.gcd(mech.s, k) == 1
        closed = np.sort(mech.singular_values)
        np.testing.assert_allclose(closed, np.sort(np.abs(np.fft.fft(mech.key_probs))), rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(closed, np.sort(np.linalg.svd(mech.matrix, compute_uv=False)), rtol=1e-8,
                                   atol=1e-15)
        assert closed[0] > 0 and closed[-1] == 1.0


@pytest.mark.parametrize("k", [2, 3, 4, 5, 8, 12])
def test_rec_id_recovery_exact_and_ldp_never_above_eps(k):
    """Every (x, u): recover(table[x, u], u) = x; ldp_epsilon <= eps exactly and within 1e-12 (privacy_epsilon,
    rounded up, within 1e-12); privacy_profile(eps) = 0;
    the key law is q_min^s as written in THEORY (to 1e-13); the bits are the direct entropy sum."""
    xs, us = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    for eps in EPS:
        mech = IdentifiableRecoverableMechanism(k, eps)
        np.testing.assert_array_equal(mech.recover(mech.keyed.table[xs, us], us), xs)
        assert eps - 1e-12 <= ldp_epsilon(mech) <= eps
        assert privacy_epsilon(mech, 0.0) == pytest.approx(eps, abs=1e-12) and privacy_profile(mech, eps) <= 1e-15
        np.testing.assert_allclose(mech.key_probs, q_textbook(k, eps, mech.s), rtol=1e-13)
        assert mech.randomness_bits == pytest.approx(entropy_direct(mech.key_probs), abs=1e-12)


def test_rec_id_randomness_ratio_within_the_factor_bound():
    """Over k = 2..40 and 20 eps in [0.01, 20]: 1 <= H(q^{s_ID}) / min_s H(q^s) <= recoverable_factor_bound(k),
    the entropies summed directly; the bound is log2 3 for powers of two (k >= 4) and 1 for primes."""
    grid = np.geomspace(0.01, 20.0, 20)
    for k in range(2, 41):
        bound = recoverable_factor_bound(k)
        for eps in grid:
            s = identifiable_recoverable_s(k, float(eps))
            direct = [entropy_direct(q_textbook(k, float(eps), t)) for t in range(1, k)]
            ratio = entropy_direct(q_textbook(k, float(eps), s)) / min(direct)
            assert 1.0 - 1e-12 <= ratio <= bound + 1e-12
            assert min_recoverable_randomness(k, float(eps)) == pytest.approx(min(direct), rel=1e-12)
        if k >= 4 and k & (k - 1) == 0:
            assert bound == pytest.approx(math.log2(3), abs=1e-15)
        if all(k % p for p in range(2, k)):
            assert bound == 1.0


def test_rec_id_entropy_step_lemma_on_random_instances():
    """The lemma behind the factor: for s <= s', H(q^{s'}) <= H(q^s) + log2(s'/s), and H(q^s) >= log2 s; 2 000
    random (k, eps, s, s') with the entropies summed directly."""
    rng = np.random.default_rng(7)
    for _ in range(2000):
        k = int(rng.integers(3, 40))
        eps = float(rng.uniform(0.0, 10.0))
        s, s2 = sorted(int(v) for v in rng.integers(1, k, size=2))
        h, h2 = entropy_direct(q_textbook(k, eps, s)), entropy_direct(q_textbook(k, eps, s2))
        assert h2 <= h + math.log2(s2 / s) + 1e-12
        assert h >= math.log2(s) - 1e-12


@pytest.mark.parametrize(("k", "eps"), [(4, 0.5), (8, 2.0)])
def test_rec_id_public_estimator_unbiased_and_its_risk(k, eps):
    """The public analyst's p̂ = f_Y Q^{-1}: over 400 seeded runs of n = 4 000 users, each coordinate's mean is
    within 4 standard errors of p, and the mean l2² error within 4 standard errors of `l2_risk` (exact
    trace formula, itself checked against the linear-estimator risk of W = Q^{-1})."""
    mech = IdentifiableRecoverableMechanism(k, eps)
    p = np.random.default_rng(3).dirichlet(np.ones(k))
    n, runs = 4000, 400
    risk = mech.l2_risk(p, n)
    assert risk == pytest.approx(linear_risk(mech.matrix, np.linalg.inv(mech.matrix), p, n), rel=1e-9)
    rng = np.random.default_rng(11)
    x = rng.choice(k, size=(runs, n), p=p)
    y = mech.sample(x, rng=rng)
    est = np.stack([mech.estimate(row) for row in y])
    se = est.std(axis=0, ddof=1) / math.sqrt(runs)
    assert np.all(np.abs(est.mean(axis=0) - p) <= 4 * se)
    errors = ((est - p) ** 2).sum(axis=1)
    assert abs(errors.mean() - risk) <= 4 * errors.std(ddof=1) / math.sqrt(runs)
    assert ibu_estimate(mech, y[0]).sum() == pytest.approx(1.0)


def test_rec_id_goes_through_the_same_door():
    """certify (EXACT and POST), privacy_profile, >> a kernel on its outputs, KeyedMechanism form, secure keys."""
    mech = IdentifiableRecoverableMechanism(6, 1.0)
    cert = certify(mech)
    assert cert.epsilon(0.0) <= 1.0 + 1e-12 and cert.delta(1.0) == 0.0
    noisy = mech >> FiniteKernel(RandomizedResponse(6, 1.0).matrix)
    assert privacy_epsilon(noisy, 0.0) < privacy_epsilon(mech, 0.0)
    np.testing.assert_allclose(mech.keyed.matrix, mech.matrix, rtol=1e-14)
    y, u = mech.sample_with_keys(np.arange(60) % 6, secure=True)
    np.testing.assert_array_equal(mech.recover(y, u), np.arange(60) % 6)
    assert repr(mech) == "IdentifiableRecoverableMechanism(k=6, eps=1.0)"
    assert mech.randomness_ratio == pytest.approx(mech.randomness_bits / min_recoverable_randomness(6, 1.0))
    assert is_frequency_oracle(mech) and is_frequency_oracle(MultiLevelHadamard((2.0, 1.0), k=6))


def test_rec_id_bad_input():
    """eps = 0 (no identifiable eps-LDP channel), k < 2, bad p / n / reports, each naming the parameter."""
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="`eps`"):
            IdentifiableRecoverableMechanism(4, bad)
    with pytest.raises(ValueError, match="`k`"):
        IdentifiableRecoverableMechanism(1, 1.0)
    for bad in (800.0, 1e-300, 1e-17):  # a subnormal key probability; a float law with one value (rank 1)
        with pytest.raises(ValueError, match="`eps`"):
            IdentifiableRecoverableMechanism(4, bad)
    mech = IdentifiableRecoverableMechanism(4, 1.0)
    with pytest.raises(ValueError, match="`p`"):
        mech.l2_risk([0.5, 0.6, 0.0, 0.0], 10)
    with pytest.raises(ValueError, match="`n`"):
        mech.l2_risk([0.25] * 4, 0)
    with pytest.raises(ValueError, match="`reports`"):
        mech.estimate([0, 4])
    with pytest.raises(ValueError, match="`k`"):
        recoverable_factor_bound(1)


# --------------------------------------------------------------------------------------------------- SRP-ML-HR
def test_ml_hr_every_view_is_binary_hadamard_and_never_above_its_eps():
    """200 seeded random level lists and two with tiny levels: view(j) equals BinaryHadamard(k, eps_j)'s channel
    (1e-12) and its exact eps (ldp_epsilon, AAC-T1) is <= eps_j and within 1e-12 of it; view(j) >> added_key(j)
    is view(j + 1)."""
    rng = np.random.default_rng(5)
    fixed = [(1e-6, 1e-9, 1e-12), (40.0, 20.0, 1e-3)]  # tiny levels: the shading is in steps of 2^-54 there
    for i in range(202):
        d = int(rng.integers(1, 4))
        levels = fixed[i - 200] if i >= 200 else tuple(sorted(rng.uniform(0.05, 12.0, d), reverse=True))
        d = len(levels)
        mech = MultiLevelHadamard(levels, k=int(rng.integers(2, 7)))
        exact = multilevel_exact_epsilons(mech)
        for j, eps in enumerate(levels, start=1):
            np.testing.assert_allclose(mech.view(j).matrix, BinaryHadamard(mech.k, eps).matrix, rtol=1e-12,
                                       atol=1e-300)
            assert eps - 1e-12 <= exact[j - 1] <= eps
            if j < d:
                np.testing.assert_allclose((mech.view(j) >> mech.added_key(j)).matrix, mech.view(j + 1).matrix,
                                           rtol=1e-13)


def test_ml_hr_randomness_against_the_trivial_scheme():
    """Σ H(U_j) equals the binary scheme's (direct entropy sums of its key laws); the trivial d independent BH
    releases cost Σ H2(e^eps_j/(e^eps_j + 1)); saving > 0 for d >= 2, none for d = 1."""
    for levels in ((2.0, 1.0, 0.5), (1.0, 0.5), (5.0, 1.0), (0.7,)):
        mech = MultiLevelHadamard(levels, k=16)
        direct = sum(entropy_direct(law) for law in mech.key_probs)
        trivial = sum(entropy_direct([1 / (1 + math.exp(-e)), 1 / (1 + math.exp(e))]) for e in levels)
        assert mech.randomness_bits == pytest.approx(direct, abs=1e-12)
        assert mech.trivial_randomness_bits == pytest.approx(trivial, abs=1e-12)
        assert mech.randomness_bits < trivial - 1e-3 if len(levels) > 1 else mech.randomness_bits == pytest.approx(
            trivial, abs=1e-12)


def _hadamard_weights(k: int) -> np.ndarray:
    order = 1 << k.bit_length()
    return hadamard(order)[1:k + 1].T.astype(np.float64)  # W0[c, x] = H[x + 1, c]


def test_ml_hr_risk_per_level_against_hr_bh_and_today_multilevel():
    """k = 16, eps = (2, 1, 0.5): level j's exact risk (k/λ_j² − ||p||²)/n equals the linear-estimator risk from its
    channel (W[2c + b, x] = (−1)^b H[x + 1, c]/λ_j), and HR's and BH's at eps_j computed the same way from their
    own channels; today's MultiLevelMechanism view (k-RR, its risk against the RR closed form) is worse at
    eps <= 1 and better at eps = 2."""
    k, n, levels = 16, 1000, (2.0, 1.0, 0.5)
    mech = MultiLevelHadamard(levels, k=k)
    today = MultiLevelMechanism(levels, k=k)
    p = np.random.default_rng(2).dirichlet(np.ones(k))
    w0 = _hadamard_weights(k)
    for j, eps in enumerate(levels, start=1):
        lam = math.tanh(eps / 2)
        w_bh = np.repeat(w0, 2, axis=0) * np.tile([1.0, -1.0], w0.shape[0])[:, None] / lam
        risk = mech.l2_risk(j, p, n)
        assert risk == pytest.approx(linear_risk(mech.view(j).matrix, w_bh / (mech.signal(j) / lam), p, n), rel=1e-9)
        assert risk == pytest.approx(linear_risk(BinaryHadamard(k, eps).matrix, w_bh, p, n), rel=1e-9)
        assert risk == pytest.approx(linear_risk(HadamardResponse(k, eps).matrix, w0 / lam, p, n), rel=1e-9)
        rr = today.view(j).matrix
        rr_risk = linear_risk(rr, np.linalg.inv(rr), p, n)
        a, b = math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)  # k-RR closed form
        mu = b + (a - b) * p
        assert rr_risk == pytest.approx(float((mu * (1 - mu)).sum() / (n * (a - b) ** 2)), rel=1e-9)
        # Hadamard order wins where eps is small against log k: k-RR is 2.3x worse at 0.5, 1.33x at 1, but
        # 0.42x (better) at eps = 2 for k = 16
        assert (rr_risk > 1.3 * risk) if eps <= 1.0 else (rr_risk < 0.5 * risk)


def test_ml_hr_monte_carlo_risk_and_views():
    """Seeded: the public y and the shares give each analyst its view (y ^ parity of the shares it holds), whose
    estimate has mean l2² error within 4 standard errors of the exact risk (300 runs of 2 000 users, k = 8)."""
    k, n, runs, levels = 8, 2000, 300, (2.0, 1.0, 0.5)
    mech = MultiLevelHadamard(levels, k=k)
    p = np.random.default_rng(4).dirichlet(np.ones(k))
    rng = np.random.default_rng(9)
    x = rng.choice(k, size=(runs, n), p=p)
    y, keys = mech.sample_with_keys(x, rng=rng)
    assert keys.shape == (runs, n, 3)
    np.testing.assert_array_equal(mech.estimate(y[0]), mech.estimate(mech.analyst_view(y[0], keys[0], 3), 3))
    for j in (1, 2, 3):
        seen = mech.analyst_view(y, keys, j)
        errors = np.array([((mech.estimate(row, j) - p) ** 2).sum() for row in seen])
        risk = mech.l2_risk(j, p, n)
        assert abs(errors.mean() - risk) <= 4 * errors.std(ddof=1) / math.sqrt(runs)
        freq = np.bincount(seen[x == 0], minlength=4 * mech.hadamard_order // 2) / (x == 0).sum()
        row = mech.view(j).matrix[0]
        assert np.all(np.abs(freq - row) <= 5 * np.sqrt(row * (1 - row) / (x == 0).sum()))


def test_ml_hr_goes_through_the_same_door():
    """certify / privacy_profile / >> on the public view, BBGG-T1 prediction through multilevel_predicted_epsilon
    (sound: the added key is block diagonal over the public column, so T1 gives eps_j back), ibu, secure keys."""
    mech = MultiLevelHadamard((2.0, 1.0), k=5)
    assert privacy_epsilon(mech, 0.0) == pytest.approx(1.0, abs=1e-12) and certify(mech).delta(1.0) == 0.0
    assert privacy_profile(mech.view(1), 1.0) > 0.0
    predicted = multilevel_predicted_epsilon(mech, 1)
    assert predicted >= ldp_epsilon(mech.view(2))
    noisy = mech >> mech.added_key(1)
    assert privacy_epsilon(noisy, 0.0) < 1.0
    assert ibu_estimate(mech, mech.sample(np.arange(500) % 5, rng=1)).sum() == pytest.approx(1.0)
    y, keys = mech.sample_with_keys(np.arange(50) % 5, secure=True)
    assert y.shape == (50,) and keys.shape == (50, 2)
    assert repr(mech) == "MultiLevelHadamard(eps_levels=(2.0, 1.0), k=5)"


def test_ml_hr_bad_input():
    """Levels not strictly decreasing / not positive; k < 2; bad level j; bad keys shape; p of the wrong size."""
    for levels in [(1.0, 1.0), (0.5, 1.0), (1.0, 0.0), ()]:
        with pytest.raises(ValueError, match="`eps_levels`"):
            MultiLevelHadamard(levels)
    with pytest.raises(ValueError, match="`k`"):
        MultiLevelHadamard((1.0, 0.5), k=1)
    mech = MultiLevelHadamard((1.0, 0.5), k=3)
    for j in (0, 3):
        with pytest.raises(ValueError, match="`j`"):
            mech.view(j)
    with pytest.raises(ValueError, match="`j`"):
        mech.added_key(2)
    with pytest.raises(ValueError, match="`keys`"):
        mech.analyst_view([0, 1], [[0, 1], [1, 0], [0, 0]], 1)
    with pytest.raises((ValueError, TypeError), match="`p`|p"):
        mech.l2_risk(1, [0.5, 0.5], 10)
    with pytest.raises(ValueError, match="`x`"):
        mech.sample([3], rng=0)
