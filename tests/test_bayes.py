"""AAC-Bayes: the exact Bayes risk against enumeration of every sequence and scipy.optimize; its lower bounds below
it on random finite instances; the canonical (eps, delta) channel; AAC's Bernoulli example."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import markovdp as md
from markovdp.guarantees.aac import ldp_contraction_bound
from markovdp.guarantees.bayes import (
    LOSSES,
    bayes_lower_bound,
    bayes_risk,
    ldp_bayes_lower_bound,
    ldp_e_gamma,
    ldp_tv_coefficient,
)
from markovdp.guarantees.bayes_bernoulli import (
    bernoulli_bayes_curve,
    bernoulli_crossing_eps,
    bernoulli_grid,
    canonical_ldp_channel,
)
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.spaces import IncompatibleSpaces


def sequence_laws(laws: np.ndarray, K: np.ndarray, n: int) -> np.ndarray:
    """(m, r^n): P_j(z_1..z_n) = Σ_{x^n} Π_i P_j(x_i) K[x_i, z_i], over every input and output sequence (no
    independence shortcut, no counts)."""
    k, r = K.shape
    xs = np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64).reshape(-1, n)
    zs = np.array(list(itertools.product(range(r), repeat=n)), dtype=np.int64).reshape(-1, n)
    channel = np.ones((xs.shape[0], zs.shape[0]))
    for i in range(n):
        channel *= K[xs[:, i][:, None], zs[:, i][None, :]]
    return np.stack([np.prod(law[xs], axis=1) @ channel for law in laws])


def enumerated_risk(K, thetas, laws, n, prior, loss):
    """Σ_z min_a Σ_j w_j P_j(z) loss(a, theta_j): 0-1 by the best theta, else scipy's bounded scalar minimiser
    (the posterior risk is convex in a) and the best theta, whichever is lower."""
    from scipy import optimize

    joint = prior[:, None] * sequence_laws(laws, K, n)
    total = 0.0
    for z in range(joint.shape[1]):
        lik = joint[:, z]
        if loss == "zero_one":
            total += min(lik.sum() - lik[j] for j in range(lik.size))
            continue
        def risk(a, lik=lik):
            return float(lik @ (np.abs(a - thetas) if loss == "absolute" else (a - thetas) ** 2))
        found = optimize.minimize_scalar(risk, bounds=(thetas.min(), thetas.max()), method="bounded",
                                         options={"xatol": 1e-12})
        total += min(found.fun, *(risk(t) for t in thetas))
    return total


def random_instance(rng, k_max=3, r_max=3, m_max=4):
    k, r, m = rng.integers(2, k_max + 1), rng.integers(2, r_max + 1), rng.integers(2, m_max + 1)
    K = rng.dirichlet(np.full(r, rng.choice([0.3, 1.0, 5.0])), size=k)
    laws = rng.dirichlet(np.full(k, 0.8), size=m)
    thetas = rng.choice(np.arange(-5, 6), size=m, replace=False) * rng.uniform(0.1, 1.0)
    prior = rng.dirichlet(np.ones(m))
    return K, thetas, laws, prior


# ------------------------------------------------------------------------------------------ the exact risk
@pytest.mark.parametrize("loss", LOSSES)
def test_aac_bayes_risk_equals_enumeration_of_every_sequence(loss):
    rng = np.random.default_rng(["zero_one", "absolute", "squared"].index(loss))
    for _ in range(12):
        K, thetas, laws, prior = random_instance(rng)
        n = int(rng.integers(1, 4))
        expected = enumerated_risk(K, thetas, laws, n, prior, loss)
        found = bayes_risk(md.FiniteKernel(K), thetas, laws, n, prior=prior, loss=loss)
        assert found.risk == pytest.approx(expected, rel=1e-9, abs=1e-14)
        assert found.log_risk == pytest.approx(math.log(found.risk), abs=1e-12)


@pytest.mark.parametrize("loss", LOSSES)
def test_aac_bayes_estimator_table_is_the_pointwise_minimiser(loss):
    """Each action minimises the posterior expected loss (scipy's minimiser over any real a) and its marginal
    law is the Multinomial mixture; the actions' risk summed over count vectors is the Bayes risk."""
    from scipy import optimize, stats

    rng = np.random.default_rng(7)
    K, thetas, laws, prior = random_instance(rng, m_max=5)
    n = 5
    found = bayes_risk(K, thetas, laws, n, prior=prior, loss=loss, estimator=True)
    q = laws @ K
    total = 0.0
    for c, a, log_marginal in zip(found.counts, found.actions, found.log_marginal, strict=True):
        lik = prior * np.array([stats.multinomial.pmf(c, n, row) for row in q])
        assert math.exp(log_marginal) == pytest.approx(lik.sum(), rel=1e-9)
        def risk(x, lik=lik):
            return float(lik @ {"zero_one": (x != thetas).astype(float), "absolute": np.abs(x - thetas),
                                "squared": (x - thetas) ** 2}[loss])
        best = min(risk(t) for t in thetas)
        if loss != "zero_one":
            best = min(best, optimize.minimize_scalar(risk, bounds=(thetas.min(), thetas.max()), method="bounded",
                                                      options={"xatol": 1e-12}).fun)
        assert risk(a) <= best * (1 + 1e-9) + 1e-15
        total += risk(a)
    assert found.risk == pytest.approx(total, rel=1e-9)


def test_aac_bayes_log_space_keeps_tiny_risks():
    """Two Bernoulli laws far apart, n = 4000: the 0-1 Bayes risk ½ Σ_j min(Bin(n, p)(j), Bin(n, q)(j)) is far
    below the smallest double; its log matches mpmath at 50 digits."""
    from mpmath import mp, mpf

    mp.dps = 50
    n, a, b = 4000, mpf("0.2"), mpf("0.8")
    found = bayes_risk(np.eye(2), [0.0, 1.0], [[0.8, 0.2], [0.2, 0.8]], n)
    exact = mp.fsum(mp.binomial(n, j) * min(a**j * (1 - a) ** (n - j), b**j * (1 - b) ** (n - j))
                    for j in range(n // 2 - 200, n // 2 + 201)) / 2  # the rest: < 1e-100 relative
    assert found.risk == 0.0 and math.isfinite(found.log_risk)
    assert found.log_risk == pytest.approx(float(mp.log(exact)), rel=1e-10)
    for loss in ("absolute", "squared"):  # the two-point risks: 0-1 risk times |Δ| (abs) or Δ² p q/(p+q) (sq)
        assert bayes_risk(np.eye(2), [0.0, 1.0], [[0.8, 0.2], [0.2, 0.8]], 40, loss=loss).risk > 0


def test_aac_bayes_prior_and_order_invariance():
    rng = np.random.default_rng(3)
    K, thetas, laws, prior = random_instance(rng, m_max=4)
    order = rng.permutation(thetas.size)
    for loss in LOSSES:
        a = bayes_risk(K, thetas, laws, 3, prior=prior, loss=loss).risk
        b = bayes_risk(K, thetas[order], laws[order], 3, prior=prior[order], loss=loss).risk
        assert a == pytest.approx(b, rel=1e-12)
    # a point-mass prior: the risk is 0 (0-1 and absolute/squared: act at the only theta)
    point = np.zeros(thetas.size)
    point[1] = 1.0
    assert all(bayes_risk(K, thetas, laws, 3, prior=point, loss=loss).risk == 0.0 for loss in LOSSES)


# --------------------------------------------------------------------------------------------- lower bounds
def test_aac_bayes_lower_bounds_below_exact_on_random_instances():
    """500 random finite instances: the channel's Le Cam and E_gamma-information bounds, and the bounds for every
    (eps, delta)-LDP channel at the channel's own (eps, delta) (eps = ldp_epsilon(K, delta)), lie below the exact
    Bayes risk; binary inputs: the LDP bounds also lie below the canonical channel's risk (the least over LDP)."""
    rng = np.random.default_rng(2024)
    worst = 0.0
    for i in range(500):
        K, thetas, laws, prior = random_instance(rng)
        if i % 5 == 0:
            prior = np.full(thetas.size, 1.0 / thetas.size)
        n, loss = int(rng.integers(1, 6)), LOSSES[i % 3]
        if i % 2:
            delta, eps = 0.0, ldp_epsilon(K, 0.0)
        else:  # the smallest delta at a given eps (AAC-T1: K is then (eps, delta)-LDP)
            eps = float(rng.uniform(0.0, 3.0))
            delta = md.ldp_profile(K, eps)
        exact = bayes_risk(K, thetas, laws, n, prior=prior, loss=loss).risk
        for low in (bayes_lower_bound(K, thetas, laws, n, prior=prior, loss=loss),):
            assert max(low.le_cam, low.e_gamma) == low.bound <= exact * (1 + 1e-9) + 1e-15
        if math.isfinite(eps):
            low = ldp_bayes_lower_bound(eps, delta, thetas, laws, n, prior=prior, loss=loss)
            assert low.bound <= exact * (1 + 1e-9) + 1e-15
            if laws.shape[1] == 2:
                best = bayes_risk(canonical_ldp_channel(eps, delta), thetas, laws, n, prior=prior, loss=loss).risk
                assert low.bound <= best * (1 + 1e-9) + 1e-15 and best <= exact * (1 + 1e-9) + 1e-15
            worst = max(worst, low.bound / exact if exact > 0 else 0.0)
    assert worst > 0.5  # the bounds are not vacuous


def test_aac_bayes_two_points_zero_one_le_cam_is_exact():
    """Two points, 0-1 loss: R = Σ_c min(w M_0, (1 − w) M_1) = w (1 − E_{(1−w)/w}(M_0 || M_1)) exactly; the
    E_gamma summed over the enumerated output sequences."""
    rng = np.random.default_rng(5)
    for _ in range(10):
        K, _, laws, _ = random_instance(rng, m_max=2)
        laws = laws[:2]
        w = float(rng.uniform(0.05, 0.5))
        n = 3
        exact = bayes_risk(K, [0.0, 1.0], laws, n, prior=[w, 1 - w]).risk
        seq = sequence_laws(laws, K, n)
        e_gamma = np.maximum(seq[0] - (1 - w) / w * seq[1], 0.0).sum()
        assert exact == pytest.approx(w * (1 - e_gamma), rel=1e-9)
        assert bayes_lower_bound(K, [0.0, 1.0], laws, n, prior=[w, 1 - w]).le_cam == pytest.approx(exact, rel=1e-9)


# --------------------------------------------------------------------------------------- the LDP coefficients
def test_aac_bayes_canonical_channel_dominates_every_binary_ldp_channel():
    """Kairouz–Oh–Viswanath: a random binary-input (eps, delta)-LDP K equals C T for a stochastic T (scipy linprog
    finds one), C the canonical channel; so its Bayes risk is at least C's."""
    from scipy import optimize

    rng = np.random.default_rng(11)
    for _ in range(30):
        r = int(rng.integers(2, 5))
        K = rng.dirichlet(np.full(r, 0.7), size=2)
        delta = float(rng.choice([0.0, 0.05, 0.2]))
        eps = ldp_epsilon(K, delta)
        C = canonical_ldp_channel(eps, delta)
        # unknown T (4 x r) flattened: C T = K (2r equations), rows of T sum to 1, T >= 0
        A = np.vstack([np.kron(C, np.eye(r)), np.kron(np.eye(4), np.ones(r))])
        b = np.concatenate([K.reshape(-1), np.ones(4)])
        res = optimize.linprog(np.zeros(4 * r), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
        assert res.status == 0
        thetas, laws = bernoulli_grid(3)
        assert bayes_risk(C, thetas, laws, 3, loss="absolute").risk <= bayes_risk(
            K, thetas, laws, 3, loss="absolute").risk * (1 + 1e-9)


def test_aac_bayes_ldp_coefficients():
    """h_1(gamma) = delta + (1 − delta)(e^eps − gamma)_+/(1 + e^eps); h_n(1) <= phi_n (AAC-phi); t(eps, delta) <=
    phi(eps, delta) and equals the canonical rows' TV; E_gamma(mu K || nu K) <= h_1(gamma) E_gamma(mu || nu) for
    random LDP K (AAC-eta); h_n(gamma) >= E_gamma of n samples of a random LDP K's two rows."""
    rng = np.random.default_rng(13)
    for eps, delta in [(0.0, 0.0), (0.3, 1e-4), (1.0, 0.1), (4.0, 0.0)]:
        gammas = np.array([1.0, 1.2, math.e, 10.0])
        np.testing.assert_allclose(ldp_e_gamma(eps, delta, 1, gammas),
                                   delta + (1 - delta) * np.maximum(math.exp(eps) - gammas, 0) / (1 + math.exp(eps)),
                                   rtol=1e-12, atol=1e-15)
        for n in (1, 3, 8):
            assert ldp_e_gamma(eps, delta, n, 1.0)[0] <= ldp_contraction_bound(eps, delta, n) + 1e-12
        C = canonical_ldp_channel(eps, delta)
        assert ldp_tv_coefficient(eps, delta) == pytest.approx(0.5 * np.abs(C[0] - C[1]).sum(), abs=1e-14)
        assert ldp_tv_coefficient(eps, delta) <= ldp_contraction_bound(eps, delta) + 1e-15
    for _ in range(40):
        K = rng.dirichlet(np.full(3, 1.0), size=3)
        delta = float(rng.choice([0.0, 0.05]))
        eps = ldp_epsilon(K, delta)
        gamma = float(rng.uniform(1.0, 3.0))
        mu, nu = rng.dirichlet(np.ones(3), size=2)
        before = np.maximum(mu - gamma * nu, 0).sum()
        after = np.maximum(mu @ K - gamma * nu @ K, 0).sum()
        assert after <= ldp_e_gamma(eps, delta, 1, gamma)[0] * before + 1e-12
        rows = sequence_laws(np.eye(3)[:2], K, 3)
        assert np.maximum(rows[0] - gamma * rows[1], 0).sum() <= ldp_e_gamma(eps, delta, 3, gamma)[0] + 1e-12


# ------------------------------------------------------------------------------------ AAC's Bernoulli example
def test_aac_bayes_bernoulli_curve():
    """delta = 1e-4, n = 20, absolute loss, uniform prior on a 60-point grid: every bound below the least risk over
    LDP channels, which is below randomized response's and above the non-private risk, non-increasing in eps; the
    non-private grid risk is close to the continuous uniform prior's (Beta posteriors, quadrature)."""
    from scipy import integrate, stats

    eps = np.array([0.0, 0.25, 1.0, 3.0])
    curve = bernoulli_bayes_curve(eps, m=60)
    assert np.all(curve.bound <= curve.best_risk * (1 + 1e-9))
    assert np.all(curve.best_risk <= curve.rr_risk * (1 + 1e-9))
    assert np.all(curve.best_risk >= curve.nonprivate_risk * (1 - 1e-9))
    assert np.all(np.diff(curve.best_risk) < 0)
    n = 20
    continuous = 0.0
    for s in range(n + 1):  # theta ~ U[0, 1], S ~ Bin(n, theta): P(S = s) = 1/(n + 1), posterior Beta(s+1, n−s+1)
        post = stats.beta(s + 1, n - s + 1)
        med = post.median()
        continuous += integrate.quad(lambda t, post=post, med=med: abs(t - med) * post.pdf(t), 0, 1,
                                     points=[med], epsabs=1e-13)[0] / (n + 1)
    assert curve.nonprivate_risk == pytest.approx(continuous, abs=2e-3)


def test_aac_bayes_bernoulli_crossing():
    """At the crossing eps the least risk equals the level (0.08); below it it is larger, above it smaller."""
    crossing = bernoulli_crossing_eps(0.08, m=30)
    assert 0 < crossing < math.inf
    near = bernoulli_bayes_curve([crossing - 0.01, crossing, crossing + 0.01], m=30).best_risk
    assert near[0] > 0.08 > near[2]
    assert near[1] == pytest.approx(0.08, abs=1e-8)
    assert bernoulli_crossing_eps(0.01, m=30, n=5) == math.inf  # below the non-private risk at n = 5


# ------------------------------------------------------------------------------------------------ bad input
def test_aac_bayes_rejects_bad_input():
    laws = [[0.5, 0.5], [0.2, 0.8]]
    with pytest.raises(ValueError, match="`thetas`"):
        bayes_risk(np.eye(2), [1.0, 1.0], laws, 3)
    with pytest.raises(ValueError, match="`laws`"):
        bayes_risk(np.eye(2), [0.0, 1.0, 2.0], laws, 3)
    with pytest.raises(ValueError, match="`prior`"):
        bayes_risk(np.eye(2), [0.0, 1.0], laws, 3, prior=[1.0])
    with pytest.raises(ValueError, match="`loss`"):
        bayes_risk(np.eye(2), [0.0, 1.0], laws, 3, loss="hinge")
    with pytest.raises(ValueError, match="`n`"):
        bayes_risk(np.eye(2), [0.0, 1.0], laws, 0)
    with pytest.raises(ValueError, match="`channel`"):
        bayes_risk([[0.5, 0.6], [0.5, 0.5]], [0.0, 1.0], laws, 3)
    with pytest.raises(IncompatibleSpaces):
        bayes_risk(np.eye(3), [0.0, 1.0], laws, 3)
    with pytest.raises(ValueError, match="`gamma`"):
        ldp_e_gamma(1.0, 0.0, 2, 0.5)
    with pytest.raises(ValueError, match="`n`"):
        bernoulli_bayes_curve(1.0, n=10**9, m=4)


def test_aac_bayes_scenario_simulation_brackets_the_exact_risk():
    """The AAC-Bayes scenario's Monte Carlo (theta from the prior, raw Bernoulli samples, each privatised, the Bayes
    estimator's loss) is an independent route to the exact risk: its 0.999 Hoeffding interval holds the exact
    ratio lower bound / risk."""
    from markovdp.validation.catalogue_bayes import AAC_BAYES

    point = {"eps": 0.5, "n": 20, "loss": "absolute"}
    counts = np.stack([AAC_BAYES.simulate(point, 10_000, np.random.default_rng([17, b])) for b in range(2)])
    found = AAC_BAYES.estimate(point, counts, 0.999)
    exact = AAC_BAYES.evaluate(point)["exact"]
    assert found.n == 40_000 and found.ci_low <= exact <= found.ci_high
    assert found.ci_high - found.ci_low < 0.1 * exact
