"""AAC-Test: the exact Neyman–Pearson trade-off beta_n(alpha) of n privatised samples, against enumeration of every
sequence, a linear program over all randomised tests, the hockey-stick of the enumerated product laws, the
Chernoff–Stein sandwich and mpmath; the Stein exponent against the contraction bounds (AAC-phi)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize

import markovdp as md
from markovdp.divergences.exact.finite import hockey_stick_finite
from markovdp.guarantees.testing import private_test_tradeoff
from markovdp.spaces import IncompatibleSpaces


def product_laws(P: np.ndarray, Q: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """P^{⊗n}, Q^{⊗n} on all m^n sequences (Kronecker products: no counts)."""
    out_p, out_q = np.ones(1), np.ones(1)
    for _ in range(n):
        out_p, out_q = np.kron(out_p, P), np.kron(out_q, Q)
    return out_p, out_q


def lp_beta(Pn: np.ndarray, Qn: np.ndarray, alpha: float) -> float:
    """min Σ Q^n(s)(1 − phi(s)) s.t. Σ P^n(s) phi(s) <= alpha, 0 <= phi <= 1: every randomised test, by HiGHS."""
    res = optimize.linprog(-Qn, A_ub=Pn[None, :], b_ub=[alpha], bounds=(0.0, 1.0), method="highs")
    assert res.status == 0
    return 1.0 + float(res.fun)


def random_instance(rng: np.random.Generator, k: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    K = rng.dirichlet(np.full(m, 0.7), size=k)
    if rng.random() < 0.3:  # zeros in the channel: likelihood ratios 0 and inf
        K[rng.integers(k), rng.integers(m)] = 0.0
        K /= K.sum(axis=1, keepdims=True)
    return K, rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))


def test_aac_test_beta_equals_the_linear_program_over_every_randomised_test():
    """beta_n(alpha) equals the LP optimum over all randomised tests on the m^n enumerated sequences."""
    rng = np.random.default_rng(15)
    alphas = np.array([0.0, 1e-3, 0.05, 0.5, 1.0])
    for trial in range(10):
        k, m, n = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(1, 4))
        K, p0, p1 = random_instance(rng, k, m)
        result = private_test_tradeoff(K, p0, p1, n, alphas)
        Pn, Qn = product_laws(p0 @ K, p1 @ K, n)
        expected = np.array([lp_beta(Pn, Qn, a) for a in alphas])
        np.testing.assert_allclose(result.beta, expected, rtol=1e-9, atol=1e-12, err_msg=f"trial {trial}")
        np.testing.assert_allclose(np.exp(result.log_beta), result.beta, rtol=1e-12, atol=0)


def test_aac_test_the_reported_test_attains_alpha_and_beta_on_enumerated_sequences():
    """The test (threshold, randomisation) applied to every sequence has type-I error alpha and type-II beta_n."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        K, p0, p1 = random_instance(rng, 3, 3)
        n = 3
        alphas = rng.random(5)
        result = private_test_tradeoff(K, p0, p1, n, alphas)
        P, Q = p0 @ K, p1 @ K
        Pn, Qn = product_laws(P, Q, n)
        seqs = np.array(list(itertools.product(range(3), repeat=n)))
        with np.errstate(divide="ignore", invalid="ignore"):
            llr = np.where(Pn > 0, np.log(Qn) - np.log(Pn), np.inf)
        for a, t, r, b in zip(alphas, result.threshold, result.randomisation, result.beta, strict=True):
            tol = 1e-9 * max(1.0, abs(t))
            reject = np.where(llr > t + tol, 1.0, np.where(llr >= t - tol, r, 0.0))
            reject[(Pn == 0) & (Qn == 0)] = 0.0
            assert seqs.shape[0] == Pn.size
            assert float(Pn @ reject) == pytest.approx(a, abs=1e-12)
            assert float(Qn @ (1.0 - reject)) == pytest.approx(b, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_aac_test_privacy_profile_of_the_product_is_the_conjugate_of_beta(seed):
    """E_{e^eps}(P^n || Q^n) = max_alpha (1 − alpha − e^eps beta(alpha)) and E_{e^eps}(Q^n || P^n) =
    max_alpha (1 − beta(alpha) − e^eps alpha), the hockey-sticks summed over the enumerated sequences."""
    rng = np.random.default_rng(100 + seed)
    K, p0, p1 = random_instance(rng, int(rng.integers(2, 4)), int(rng.integers(2, 4)))
    n = int(rng.integers(1, 5))
    result = private_test_tradeoff(K, p0, p1, n, 0.5)
    Pn, Qn = product_laws(p0 @ K, p1 @ K, n)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0])
    gamma = np.exp(eps)[:, None]
    a, b = result.alpha_vertices[None, :], result.beta_vertices[None, :]
    # the curve is convex and piecewise linear: the sup of a linear functional is at a vertex
    np.testing.assert_allclose((1 - a - gamma * b).max(axis=1), hockey_stick_finite(Pn, Qn, eps), atol=1e-12)
    np.testing.assert_allclose((1 - b - gamma * a).max(axis=1), hockey_stick_finite(Qn, Pn, eps), atol=1e-12)
    # the vertices lie on the curve
    np.testing.assert_allclose(private_test_tradeoff(K, p0, p1, n, result.alpha_vertices).beta[1:],
                               result.beta_vertices[1:], atol=1e-12)


def test_aac_test_beta_is_non_increasing_and_convex():
    rng = np.random.default_rng(3)
    grid = np.linspace(0.0, 1.0, 401)
    for _ in range(10):
        K, p0, p1 = random_instance(rng, 3, 4)
        beta = private_test_tradeoff(K, p0, p1, 6, grid).beta
        assert np.all(np.diff(beta) <= 1e-13)
        assert np.all(beta[:-2] - 2 * beta[1:-1] + beta[2:] >= -1e-12)
        assert beta[-1] == 0.0 and 0.0 <= beta[0] <= 1.0


@pytest.mark.parametrize(("P", "Q", "ns"), [((0.6, 0.4), (0.4, 0.6), (10, 100, 1000, 10000, 100000)),
                                            ((0.5, 0.3, 0.2), (0.2, 0.3, 0.5), (10, 100, 600))])
def test_aac_test_chernoff_stein_exponent_within_the_derived_band(P, Q, ns):
    """−(1/n) log beta_n(alpha) lies in [D − s1 sqrt(V/n), D + s2 sqrt(V/n) + log(2/(1 − alpha))/n], D = KL(P||Q),
    V = Var_P log(P/Q); s1 = sqrt(1/alpha − 1), s2 = sqrt(2/(1 − alpha) − 1) (Cantelli's inequality on the LLR:
    the test "accept iff LLR_{P/Q} >= nD − s1 sqrt(nV)" has level alpha and beta <= e^(−threshold); any level-alpha
    test has beta >= e^(−t) (1 − alpha − P(LLR > t))). The band shrinks like n^(−1/2): the exponent tends to D."""
    P, Q = np.array(P), np.array(Q)
    ell = np.log(P / Q)
    D, V = float(P @ ell), float(P @ ell**2 - (P @ ell) ** 2)
    alpha = 0.1
    s1, s2 = math.sqrt(1 / alpha - 1), math.sqrt(2 / (1 - alpha) - 1)
    gaps = []
    for n in ns:
        result = private_test_tradeoff(np.eye(P.size), P, Q, n, alpha)
        assert result.stein_exponent == pytest.approx(D, rel=1e-12)
        exponent = -result.log_beta / n
        assert D - s1 * math.sqrt(V / n) <= exponent <= D + s2 * math.sqrt(V / n) + math.log(2 / (1 - alpha)) / n
        gaps.append(abs(exponent - D))
    assert gaps[-1] < gaps[0]


def test_aac_test_log_beta_where_beta_underflows_matches_mpmath():
    """n = 1500 through binary RR: beta ~ e^(−2000) underflows; log beta against an mpmath NP test on the
    Binomial count (LLR increasing in the count j of output 1 when Q_1 > P_1)."""
    n, alpha = 1500, 0.05
    K = md.RandomizedResponse(2, 3.0).matrix
    result = private_test_tradeoff(K, [0.95, 0.05], [0.05, 0.95], n, alpha)
    assert result.beta == 0.0 and math.isfinite(result.log_beta)
    mpmath.mp.dps = 40
    P1 = mpmath.mpf(float((np.array([0.95, 0.05]) @ K)[1]))
    Q1 = mpmath.mpf(float((np.array([0.05, 0.95]) @ K)[1]))

    def pmf(j: int, x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.binomial(n, j) * x**j * (1 - x) ** (n - j)

    # reject j > c, at j = c with probability r: P(J > c) <= alpha < P(J >= c)
    tail, c = mpmath.mpf(0), n
    while tail + pmf(c, P1) <= alpha:
        tail += pmf(c, P1)
        c -= 1
    r = (alpha - tail) / pmf(c, P1)
    beta = mpmath.fsum(pmf(j, Q1) for j in range(c)) + (1 - r) * pmf(c, Q1)
    assert result.log_beta == pytest.approx(float(mpmath.log(beta)), rel=1e-11)
    assert result.randomisation == pytest.approx(float(r), rel=1e-9)


def test_aac_test_stein_exponent_below_phi_and_eta_tv_on_500_random_channels():
    """D(p0 K || p1 K) <= eta_TV(K) D(p0 || p1) <= phi(eps, delta) D(p0 || p1) on 500 random finite instances, each
    number recomputed here (KL by numpy, eta_TV as the max over row pairs, phi = 1 − (1 − delta) e^(−eps))."""
    rng = np.random.default_rng(2026)
    for trial in range(500):
        k, m = int(rng.integers(2, 5)), int(rng.integers(2, 6))
        K = rng.dirichlet(np.full(m, rng.choice([0.3, 1.0, 5.0])), size=k)
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        delta = float(rng.choice([0.0, 0.0, 0.01, 0.1]))
        r = private_test_tradeoff(K, p0, p1, 1, 0.5, delta=delta)
        P, Q = p0 @ K, p1 @ K
        d_out, d_in = float(np.sum(P * np.log(P / Q))), float(np.sum(p0 * np.log(p0 / p1)))
        eta = max(0.5 * np.abs(K[i] - K[j]).sum() for i in range(k) for j in range(k))
        assert r.stein_exponent == pytest.approx(d_out, rel=1e-9, abs=1e-15)
        assert r.kl_input == pytest.approx(d_in, rel=1e-9, abs=1e-15)
        assert r.eta_tv == pytest.approx(eta, rel=1e-12, abs=1e-15)
        assert md.dobrushin(K, r.eps) <= delta
        assert r.phi == pytest.approx(1 - (1 - delta) * math.exp(-r.eps), rel=1e-12)
        assert d_out <= eta * d_in * (1 + 1e-12) + 1e-15, trial
        assert eta <= r.phi * (1 + 1e-12) + 1e-15, trial
        assert r.stein_exponent <= r.eta_tv_bound * (1 + 1e-12) + 1e-15 <= r.phi_bound * (1 + 1e-12) + 3e-15


def test_aac_test_given_eps_is_checked_and_used():
    K = md.RandomizedResponse(3, 1.0).matrix
    r = private_test_tradeoff(K, [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 4, 0.1, eps=2.0)
    assert r.eps == 2.0 and r.phi == pytest.approx(1 - math.exp(-2.0))
    assert private_test_tradeoff(K, [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 4, 0.1).eps == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="`eps` must be a level at which the channel is"):
        private_test_tradeoff(K, [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 4, 0.1, eps=0.5)


def test_aac_test_shapes_and_edge_cases():
    K = md.RandomizedResponse(2, 1.0).matrix
    r = private_test_tradeoff(md.FiniteKernel(K), md.Categorical([0.7, 0.3]), [0.3, 0.7], 5, [[0.1, 0.2]])
    assert r.beta.shape == (1, 2) and r.threshold.shape == (1, 2) and not r.beta.flags.writeable
    same = private_test_tradeoff(K, [0.5, 0.5], [0.5, 0.5], 3, np.array([0.0, 0.3, 1.0]))
    np.testing.assert_allclose(same.beta, [1.0, 0.7, 0.0], atol=1e-15)  # identical laws: beta = 1 − alpha
    assert same.stein_exponent == 0.0
    constant = private_test_tradeoff(np.full((2, 3), 1 / 3), [1.0, 0.0], [0.0, 1.0], 2, 0.25)
    assert constant.phi == 0.0 and constant.phi_bound == 0.0 and constant.kl_input == math.inf
    disjoint = private_test_tradeoff(np.eye(2), [1.0, 0.0], [0.0, 1.0], 2, 0.0)
    assert disjoint.beta == 0.0 and disjoint.stein_exponent == math.inf


def test_aac_test_rejects_bad_input():
    K = np.eye(2)
    with pytest.raises(IncompatibleSpaces):
        private_test_tradeoff(K, [0.5, 0.3, 0.2], [0.5, 0.5], 2, 0.1)
    with pytest.raises(ValueError, match="`alpha` must be in \\[0, 1\\]"):
        private_test_tradeoff(K, [0.5, 0.5], [0.4, 0.6], 2, 1.5)
    with pytest.raises(ValueError, match="`n` must be small enough"):
        private_test_tradeoff(np.full((2, 3), 1 / 3) + [[0.1, -0.1, 0.0], [0.0, 0.1, -0.1]], [0.5, 0.5],
                              [0.4, 0.6], 5000, 0.1)
    with pytest.raises(TypeError, match="`n` must be an integer"):
        private_test_tradeoff(K, [0.5, 0.5], [0.4, 0.6], 2.5, 0.1)
