"""SRP-Rec-HR: the recoverable mechanism with an XOR key on a bent set, against independent computations: direct
Walsh sums, brute force over every (x, u), numpy's SVD and pseudo-inverse on the explicit channel (built by loops),
direct entropy sums, Hadamard response's risk from its own channel, and a seeded Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import hadamard

from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.exact import privacy_epsilon, privacy_profile
from markovdp.guarantees.registry import certify
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.hadamard import HadamardResponse
from markovdp.mechanisms.local.ibu import ibu_estimate
from markovdp.mechanisms.local.oracles import is_frequency_oracle
from markovdp.mechanisms.local.recoverable import min_recoverable_randomness
from markovdp.mechanisms.local.recoverable_hadamard import HadamardRecoverableMechanism, _maiorana_mcfarland
from markovdp.mechanisms.local.recoverable_id import IdentifiableRecoverableMechanism
from markovdp.operators.finite import FiniteKernel

EPS = (0.05, 0.5, 1.0, 2.0, 5.0, 20.0)


def entropy_direct(p) -> float:
    p = np.asarray(p, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def explicit_channel(k: int, eps: float) -> np.ndarray:
    """Q[x, y] = e^eps/Z if <a, b> = 1 else 1/Z for x XOR y = a + 2^m b, by loops over bits (no module code)."""
    m = 1
    while 4**m < k:
        m += 1
    n = 4**m

    def f(u: int) -> int:
        a, b = u % 2**m, u // 2**m
        return sum(((a >> i) & 1) * ((b >> i) & 1) for i in range(m)) % 2

    weights = [math.exp(eps) if f(u) else 1.0 for u in range(n)]
    z = sum(weights)
    return np.array([[weights[x ^ y] / z for y in range(n)] for x in range(k)])


def pinv_risk(matrix: np.ndarray, p: np.ndarray, n: int) -> float:
    """E||f̂ − p||² of f̂ = (1/n) Σ_i W[y_i], W = pinv(Q) (numpy), after checking Q W = I."""
    weights = np.linalg.pinv(matrix)
    np.testing.assert_allclose(matrix @ weights, np.eye(matrix.shape[0]), atol=1e-8)
    mu = p @ matrix
    return float(((mu @ weights**2) - (mu @ weights) ** 2).sum() / n)


def hr_risk(k: int, eps: float, p: np.ndarray) -> float:
    """n · risk of HadamardResponse(k, eps) at p, from its own channel and weights H[x + 1, y]/tanh(eps/2)."""
    oracle = HadamardResponse(k, eps)
    weights = hadamard(oracle.hadamard_order)[1:k + 1].T / math.tanh(eps / 2)
    mu = p @ oracle.matrix
    return float(((mu @ weights**2) - (mu @ weights) ** 2).sum())


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_maiorana_mcfarland_is_bent(m):
    """|W_f(w)| = 2^m for every w (direct double sum over u, w as bit vectors), W_f(w) = 2^m (−1)^{f(w)} (self-dual),
    and |S| = 4^m/2 − 2^{m−1}."""
    f = _maiorana_mcfarland(m).astype(np.int64)
    u = np.arange(4**m)
    dots = np.zeros((u.size, u.size), dtype=np.int64)
    for i in range(2 * m):
        dots ^= ((u[:, None] >> i) & 1) & ((u[None, :] >> i) & 1)
    walsh = ((-1.0) ** (f[None, :] + dots)).sum(axis=1)
    np.testing.assert_array_equal(walsh, 2**m * (-1.0) ** f)
    assert f.sum() == 4**m // 2 - 2 ** (m - 1)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 9, 16, 17])
def test_recovery_exact_ldp_exact_and_law_as_stated(k):
    """Every (x, u): recover(x XOR u, u) = x; ldp_epsilon <= eps exactly, within 1e-12 (privacy_epsilon too);
    privacy_profile(eps) = 0; the matrix is the explicit channel (1e-13); H(U) is the direct entropy sum."""
    for eps in EPS:
        mech = HadamardRecoverableMechanism(k, eps)
        n = mech.n_outputs
        assert k <= n < 4 * k
        xs, us = np.meshgrid(np.arange(k), np.arange(n), indexing="ij")
        np.testing.assert_array_equal(mech.recover(mech.keyed.table[xs, us], us), xs)
        assert eps - 1e-12 <= ldp_epsilon(mech) <= eps
        assert privacy_epsilon(mech, 0.0) == pytest.approx(eps, abs=1e-12) and privacy_profile(mech, eps) <= 1e-15
        np.testing.assert_allclose(mech.matrix, explicit_channel(k, eps), rtol=1e-13)
        assert mech.randomness_bits == pytest.approx(entropy_direct(mech.key_probs), abs=1e-12)


@pytest.mark.parametrize("k", [2, 3, 4, 6, 16, 20, 64])
def test_full_rank_and_singular_values_closed_form(k):
    """numpy's SVD of the explicit channel = the closed form (λ k − 1 times, sqrt(λ² + (1 − λ²) k/N) once) with
    λ = tanh(eps/2)/(2^m − tanh(eps/2)); rank k at every eps, down to 1e-8."""
    for eps in (1e-8, *EPS):
        mech = HadamardRecoverableMechanism(k, eps)
        sv = np.linalg.svd(explicit_channel(k, eps), compute_uv=False)
        t = math.tanh(eps / 2)
        lam = t / (2**mech.m - t)
        assert mech.smallest_singular_value == pytest.approx(lam, rel=1e-6)
        np.testing.assert_allclose(np.sort(mech.singular_values), np.sort(sv), rtol=1e-6, atol=1e-15)
        assert sv.min() > 0.5 * lam and mech.condition_number == pytest.approx(sv.max() / sv.min(), rel=1e-6)


@pytest.mark.parametrize("k", [2, 3, 5, 8, 16, 17, 40])
def test_exact_risk_against_the_pseudo_inverse_of_the_explicit_channel(k):
    """l2_risk (WHT closed form) = the risk of numpy's pinv estimator on the explicit channel (1e-9), at three p;
    estimate(reports) = the counts' frequencies times pinv (1e-9)."""
    rng = np.random.default_rng(k)
    for eps in (0.5, 1.0, 3.0):
        mech = HadamardRecoverableMechanism(k, eps)
        matrix = explicit_channel(k, eps)
        for p in (np.full(k, 1.0 / k), rng.dirichlet(np.ones(k)), np.eye(k)[k - 1]):
            assert mech.l2_risk(p, 7) == pytest.approx(pinv_risk(matrix, p, 7), rel=1e-9)
        reports = rng.integers(0, mech.n_outputs, size=50)
        freq = np.bincount(reports, minlength=mech.n_outputs) / 50
        np.testing.assert_allclose(mech.estimate(reports), freq @ np.linalg.pinv(matrix), rtol=1e-9, atol=1e-9)


def test_monte_carlo_risk_and_unbiasedness_at_16_1():
    """k = 16, eps = 1: 400 seeded runs of n = 2 000 users; each coordinate's mean within 4 standard errors of p,
    the mean l2² error within 4 standard errors of `l2_risk`; ibu through the channel sums to 1."""
    k, eps, n, runs = 16, 1.0, 2000, 400
    mech = HadamardRecoverableMechanism(k, eps)
    p = np.random.default_rng(3).dirichlet(np.ones(k))
    rng = np.random.default_rng(11)
    x = rng.choice(k, size=(runs, n), p=p)
    y = mech.sample(x, rng=rng)
    est = np.stack([mech.estimate(row) for row in y])
    se = est.std(axis=0, ddof=1) / math.sqrt(runs)
    assert np.all(np.abs(est.mean(axis=0) - p) <= 4 * se)
    errors = ((est - p) ** 2).sum(axis=1)
    assert abs(errors.mean() - mech.l2_risk(p, n)) <= 4 * errors.std(ddof=1) / math.sqrt(runs)
    assert ibu_estimate(mech, y[0]).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("k", [2, 3, 4, 8, 16, 33, 64, 256, 1024])
def test_eve_risk_hadamard_order(k):
    """The issue's "order optimal": n · risk <= n · risk_HR + 16/k at every p (proved in docs SRP-Rec-HR; so
    <= 9 × HR's), checked at uniform and Dirichlet p against HR's risk from its own channel; and below
    k/tanh²(eps/2), HR's leading term. IdentifiableRecoverableMechanism is 30x worse or more at k = 64, eps <= 1."""
    rng = np.random.default_rng(k)
    for eps in (0.5, 1.0, 2.0, 5.0):
        mech = HadamardRecoverableMechanism(k, eps)
        t = math.tanh(eps / 2)
        for p in (np.full(k, 1.0 / k), rng.dirichlet(np.ones(k))):
            ours = mech.l2_risk(p, 1)
            assert 0 < ours <= hr_risk(k, eps, p) + 16.0 / k
            assert ours <= k * (1 - t / 2**mech.m) ** 2 / t**2 + (mech.key_probs.max() * mech.n_outputs) ** 2 / k
    if k == 64:
        for eps in (0.5, 1.0):
            p = np.full(k, 1.0 / k)
            assert IdentifiableRecoverableMechanism(k, eps).l2_risk(p, 1) > 30 * HadamardRecoverableMechanism(
                k, eps).l2_risk(p, 1)


def test_randomness_factor_for_eps_at_most_one():
    """H(U) / min_recoverable_randomness(k, eps) <= 2.382 over k = 2..300 and eps in [0.01, 1]; the proof's steps:
    F(k) = log2 N / min_recoverable_randomness(k, 1) <= 2.382 for k <= 1024 and the tail bound
    (2 + log2(k − 1))/(log2(k − 1) − log2 e) <= 1.403 from k = 1025 on; exactly 1 at (4, 1); and the heavy-on-S law
    never spends more than heavy-off-S (direct entropy sums)."""
    for k in range(2, 301):
        for eps in (0.01, 0.3, 1.0):
            mech = HadamardRecoverableMechanism(k, eps)
            assert 1.0 - 1e-12 <= mech.randomness_ratio <= 2.382
            reverse = np.where(mech.bent_set, 1.0, math.exp(eps))
            assert mech.randomness_bits <= entropy_direct(reverse / reverse.sum()) + 1e-12
    assert HadamardRecoverableMechanism(4, 1.0).randomness_ratio == pytest.approx(1.0, abs=1e-9)
    ks = range(2, 1025)
    factor = [2 * HadamardRecoverableMechanism(k, 1.0).m / min_recoverable_randomness(k, 1.0) for k in ks]
    assert max(factor) <= 2.382 and int(np.argmax(factor)) == 0
    tail = np.log2(np.arange(1024, 10**6))
    assert np.all(np.diff((2 + tail) / (tail - math.log2(math.e))) < 0)
    assert (2 + 10) / (10 - math.log2(math.e)) <= 1.403
    assert HadamardRecoverableMechanism(2, 1.0).min_randomness_bits == min_recoverable_randomness(2, 1.0)


def test_goes_through_the_same_door():
    """certify (EXACT), privacy_profile, >> a kernel on its outputs, KeyedMechanism form, secure keys, repr."""
    mech = HadamardRecoverableMechanism(6, 1.0)
    cert = certify(mech)
    assert cert.epsilon(0.0) <= 1.0 + 1e-12 and cert.delta(1.0) == 0.0
    noisy = mech >> FiniteKernel(RandomizedResponse(16, 1.0).matrix)
    assert privacy_epsilon(noisy, 0.0) < privacy_epsilon(mech, 0.0)
    np.testing.assert_allclose(mech.keyed.matrix, mech.matrix, rtol=1e-14)
    y, u = mech.sample_with_keys(np.arange(60) % 6, secure=True)
    np.testing.assert_array_equal(mech.recover(y, u), np.arange(60) % 6)
    assert repr(mech) == "HadamardRecoverableMechanism(k=6, eps=1.0)"
    assert mech.output_entropy_bits == mech.randomness_bits and is_frequency_oracle(mech)


def test_bad_input():
    """eps = 0 (no identifiable eps-LDP channel), negative, inf, NaN, tiny, huge; k < 2 or not an integer; bad p / n /
    reports / y."""
    for bad in (0.0, -1.0, math.inf, math.nan, 1e-17, 800.0):
        with pytest.raises(ValueError, match="`eps`"):
            HadamardRecoverableMechanism(4, bad)
    for bad in (1, 0, -3):
        with pytest.raises(ValueError, match="`k`"):
            HadamardRecoverableMechanism(bad, 1.0)
    with pytest.raises(TypeError, match="`k`"):
        HadamardRecoverableMechanism(2.5, 1.0)
    with pytest.raises(ValueError, match="`k`"):
        HadamardRecoverableMechanism(10**12, 1.0)
    mech = HadamardRecoverableMechanism(4, 1.0)
    with pytest.raises(ValueError, match="`p`"):
        mech.l2_risk([0.5, 0.6, 0.0, 0.0], 10)
    with pytest.raises(ValueError, match="`n`"):
        mech.l2_risk([0.25] * 4, 0)
    with pytest.raises(ValueError, match="`reports`"):
        mech.estimate([0, 4])
    with pytest.raises(ValueError, match="`y`"):
        mech.recover([5], [0])
    with pytest.raises(ValueError, match="`u`"):
        HadamardRecoverableMechanism(3, 1.0).recover([0, 1], [1, 2])  # 1 XOR 2 = 3 is no input of k = 3
    with pytest.raises(ValueError, match="`x`"):
        mech.sample([4], rng=0)


def test_ldp_never_above_eps_on_random_instances():
    """300 seeded (k in 2..20, eps log-uniform in [1e-8, 50]): ldp_epsilon <= eps exactly (the float-safe shading)
    and within 1e-12 relative of it (the channel attains its eps)."""
    rng = np.random.default_rng(23)
    for _ in range(300):
        k, eps = int(rng.integers(2, 21)), float(np.exp(rng.uniform(math.log(1e-8), math.log(50.0))))
        certified = ldp_epsilon(HadamardRecoverableMechanism(k, eps))
        assert eps * (1 - 1e-12) - 1e-15 <= certified <= eps
