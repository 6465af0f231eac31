"""AAC-Fano packing and AAC-LeCam-mean: the hypercube packing, the Kairouz–Oh–Viswanath dominating channel, and the
private mean-estimation lower bounds against exact risks of small discrete instances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import optimize
from scipy.spatial.distance import pdist

from markovdp.guarantees.bayes_bernoulli import canonical_ldp_channel
from markovdp.guarantees.coefficients import dobrushin, ldp_epsilon
from markovdp.guarantees.fano import PriorFamily, mutual_information, private_fano_bound
from markovdp.guarantees.le_cam import _count_log_pmfs
from markovdp.guarantees.mean_estimation import l2_mean_fano_bound, mean_le_cam
from markovdp.guarantees.packing import MAX_PACKING_K, check_packing, hypercube_packing, packing_size
from markovdp.mechanisms.finite import RandomizedResponse

# ------------------------------------------------------------------------------------------------ packing


@pytest.mark.parametrize("k", [1, 5, 11, 12, 16, 33, 64, 96])
def test_aac_packing_has_the_size_and_separation(k):
    vectors = hypercube_packing(k, rng=k)
    assert vectors.shape == (math.ceil(math.exp(k / 16)), k)
    assert set(np.unique(vectors)) <= {-1, 1}
    assert pdist(vectors.astype(float), "cityblock").min() >= k / 2  # scipy's l1, not the module's inner products
    found = check_packing(vectors)
    assert found.ok and found.size == packing_size(k) and found.required_l1 == k / 2
    assert np.array_equal(vectors, hypercube_packing(k, rng=k))  # deterministic given the seed


def test_aac_packing_check_finds_bad_packings_and_the_size_limit():
    good = hypercube_packing(32, rng=3)
    close = good.copy()
    close[1] = close[0]
    close[1, :7] *= -1  # l1 distance 14 < k/2 = 16 from row 0
    assert check_packing(close).min_l1 <= 14.0 and not check_packing(close).ok
    assert not check_packing(good[:-1]).ok  # too few
    assert check_packing(good[:1]).min_l1 == math.inf
    with pytest.raises(ValueError, match="`vectors` must be an array of entries in"):
        check_packing([[1, 0], [1, -1]])
    with pytest.raises(ValueError, match=f"`k` must be at most {MAX_PACKING_K}.*got {MAX_PACKING_K + 1}"):
        hypercube_packing(MAX_PACKING_K + 1)
    with pytest.raises(ValueError, match=f"`k` must be at most {MAX_PACKING_K}"):
        l2_mean_fano_bound(MAX_PACKING_K + 1, 10, 1.0, 0.0)


# ------------------------------------------------------------------------------------------------ KOV


def is_post_processing(Q: np.ndarray, K: np.ndarray) -> float:
    """The least max-residual |Q W − K| over row-stochastic W (a linear programme): 0 iff K = Q W."""
    a, b = Q.shape[1], K.shape[1]
    # variables: W (a*b, row-major) and r >= |Q W − K| entrywise; minimise r
    n_w = a * b
    A_eq = np.zeros((a, n_w + 1))
    for i in range(a):
        A_eq[i, i * b:(i + 1) * b] = 1.0
    rows, rhs = [], []
    for x in range(Q.shape[0]):
        for y in range(b):
            row = np.zeros(n_w + 1)
            row[[i * b + y for i in range(a)]] = Q[x]
            for sign in (1.0, -1.0):
                rows.append(np.append(sign * row[:-1], -1.0))
                rhs.append(sign * K[x, y])
    cost = np.zeros(n_w + 1)
    cost[-1] = 1.0
    found = optimize.linprog(cost, A_ub=np.array(rows), b_ub=np.array(rhs), A_eq=A_eq, b_eq=np.ones(a),
                             bounds=[(0, None)] * (n_w + 1), method="highs")
    assert found.status == 0
    return float(found.fun)


def random_binary_channel(rng: np.random.Generator) -> np.ndarray:
    m = int(rng.integers(2, 5))
    K = rng.dirichlet(np.full(m, 0.7), size=2)
    if rng.random() < 0.3:
        K[0, 0], K[1, 0] = 0.0, K[1, 0] + 0.05  # an output only one input reaches: delta > 0 at every eps
        K = K / K.sum(axis=1, keepdims=True)
    return K


def test_aac_kov_every_binary_ldp_channel_is_a_post_processing_of_the_dominating_channel():
    rng = np.random.default_rng(2015)
    checked = 0
    for _ in range(50):
        K = random_binary_channel(rng)
        delta = float(rng.choice([0.0, 0.02, 0.3]))
        eps = ldp_epsilon(K, delta)
        if not math.isfinite(eps):  # an output only one input reaches, with more mass than delta
            continue
        checked += 1
        Q = canonical_ldp_channel(eps, delta)
        assert dobrushin(Q, eps) <= delta + 1e-12  # Q is itself (eps, delta)-LDP ...
        assert dobrushin(Q, eps) == pytest.approx(delta, abs=1e-12)  # ... with no slack
        assert is_post_processing(Q, K) <= 1e-9
    assert checked >= 30
    # and a channel that is not (eps, delta)-LDP is not one
    assert is_post_processing(canonical_ldp_channel(0.5, 0.0), RandomizedResponse(2, 1.0).matrix) > 1e-3


# ------------------------------------------------------------------------------------------------ 1-D mean


def two_point_bayes(K: np.ndarray, p0, p1, n: int, theta0: float, theta1: float) -> float:
    """The exact Bayes risk of squared loss under the uniform prior on the pair (posterior mean of the n outputs),
    by brute force over every output sequence."""
    m = K.shape[1]
    zs = np.array(list(itertools.product(range(m), repeat=n))).reshape(-1, n)
    a = np.prod((np.asarray(p0) @ K)[zs], axis=1)
    b = np.prod((np.asarray(p1) @ K)[zs], axis=1)
    both = a + b > 0
    return (theta1 - theta0) ** 2 / 2.0 * float(np.sum(a[both] * b[both] / (a[both] + b[both])))


def unbiased_worst_risk(eps: float, delta: float, n: int) -> float:
    """The worst-case risk over theta in [−1, 1] of a concrete (eps, delta)-LDP estimator of the mean of data in
    [−1, 1]: round X to ±1 with P(+1) = (1 + X)/2, privatise by Q, report f(Z) unbiased for X's sign, average.
    Its risk Var(f(Z))/n is computed exactly from Q on a grid of theta (an upper bound on the minimax risk)."""
    Q = canonical_ldp_channel(eps, delta)
    c = math.tanh(eps / 2)
    f = np.array([-1.0, -1.0 / c, 1.0 / c, 1.0])
    worst = 0.0
    for theta in np.linspace(-1, 1, 41):
        law = np.array([(1 - theta) / 2, (1 + theta) / 2]) @ Q
        assert law @ f == pytest.approx(theta, abs=1e-9)  # unbiased
        worst = max(worst, float(law @ f**2 - theta**2) / n)
    return min(worst, 1.0)  # the estimator 0 has risk theta² <= 1


def test_aac_lecam_mean_bounded_below_exact_risks():
    """Random (n, eps, delta): the bound <= the exact two-point Bayes risk (best estimator of the outputs) through
    the dominating channel Q and through a random channel with the same (eps, delta) (a post-processing of Q), and
    <= the worst-case risk of a concrete private estimator; the phi closed form <= the bound."""
    rng = np.random.default_rng(7)
    for _ in range(25):
        K = random_binary_channel(rng)
        delta = float(rng.choice([0.0, 0.001, 0.05]))
        eps = ldp_epsilon(K, delta)
        if not 0.05 < eps < 4.0:
            continue
        n = int(rng.integers(1, 7))
        for model in ("bounded", "second_moment"):
            found = mean_le_cam(n, eps, delta, model=model, sigma=1.0)
            Q = canonical_ldp_channel(eps, delta)
            assert found.closed_form <= found.bound * (1 + 1e-12)
            bayes_q = two_point_bayes(Q, found.p0, found.p1, n, found.theta0, found.theta1)
            bayes_k = two_point_bayes(K, found.p0, found.p1, n, found.theta0, found.theta1)
            assert found.bound <= bayes_q * (1 + 1e-12) <= bayes_k * (1 + 1e-9)
            if model == "bounded":
                assert found.bound <= unbiased_worst_risk(eps, delta, n)
            else:
                assert found.bound <= 1.0  # the estimator 0: risk (E X)² <= E X² <= sigma²


def test_aac_lecam_mean_scaling_and_no_privacy_limit():
    big = mean_le_cam(50, 0.5, 0.0, model="second_moment", sigma=3.0)
    support, p0, p1 = np.array(big.support), np.array(big.p0), np.array(big.p1)
    assert p1 @ support**2 == pytest.approx(9.0, rel=1e-12) and p0 @ support**2 == 0.0  # the model: E X² <= sigma²
    assert (big.theta0, big.theta1) == pytest.approx((p0 @ support, p1 @ support), rel=1e-12)
    assert big.bound == pytest.approx((big.theta1 - big.theta0) ** 2 / 4 * (1 - big.tv), rel=1e-9)
    # eps = 50, delta = 0: Q is the identity on two points to double precision; the non-private two-point bound
    free = mean_le_cam(20, 50.0, 0.0)
    gamma = free.theta1
    p, q = np.array(free.p0), np.array(free.p1)
    tv = 0.5 * sum(abs(math.comb(20, j) * (p[1] ** j * p[0] ** (20 - j) - q[1] ** j * q[0] ** (20 - j)))
                   for j in range(21))
    assert free.bound == pytest.approx(gamma**2 * (1 - tv), rel=1e-9)
    assert free.phi == 1.0  # 1 − e^-50 rounds to 1
    # more privacy, larger bound
    assert mean_le_cam(50, 0.25, 0.0).bound > mean_le_cam(50, 1.0, 0.0).bound > mean_le_cam(50, 4.0, 0.0).bound


def test_aac_lecam_mean_rejects_bad_input():
    with pytest.raises(ValueError, match="`model` must be one of"):
        mean_le_cam(10, 1.0, 0.0, model="variance")
    with pytest.raises(ValueError, match="`n` must be small enough"):
        mean_le_cam(10**4, 1.0, 0.1)
    with pytest.raises(ValueError, match="`sigma` must be"):
        mean_le_cam(10, 1.0, 0.0, model="second_moment", sigma=0.0)


# ------------------------------------------------------------------------------------------------ l2 ball


def l2_family(k: int, s: float, seed: int = 0) -> tuple[PriorFamily, np.ndarray]:
    """The packing family on the 2k atoms ±e_j (atom 2j is +e_j, 2j + 1 is −e_j): P_v(±e_j) = (1 ± s v_j)/(2k)."""
    packing = hypercube_packing(k, rng=seed).astype(float)
    laws = np.empty((packing.shape[0], 2 * k))
    laws[:, 0::2] = (1 + s * packing) / (2 * k)
    laws[:, 1::2] = (1 - s * packing) / (2 * k)
    atoms = np.zeros((2 * k, k))
    atoms[0::2] = np.eye(k)
    atoms[1::2] = -np.eye(k)
    means = laws @ atoms  # E_v X, computed from the atoms, not from the formula s v / k
    return PriorFamily(laws, means, metric="l2", power=2.0), means


def l2_bayes_risk(family: PriorFamily, means: np.ndarray, K: np.ndarray, n: int) -> float:
    """The exact uniform-prior Bayes risk E ||E_V X − E[E_V X | Z^n]||² over the count vectors of n outputs of K."""
    out = family.laws @ K
    log_p = np.stack([_count_log_pmfs(q, q, n)[0] for q in out / out.sum(axis=1, keepdims=True)])
    p = np.exp(log_p) / family.size
    weight = p.sum(axis=0)
    posterior_mean = (p.T @ means) / np.where(weight > 0, weight, 1.0)[:, None]
    return float(np.sum(p * ((means[:, None, :] - posterior_mean[None, :, :]) ** 2).sum(axis=2)))


@pytest.mark.parametrize(("k", "n", "eps", "delta"), [(12, 1, 1.0, 0.0), (12, 2, 0.5, 0.0), (16, 2, 2.0, 0.01),
                                                      (16, 3, 0.25, 0.0), (24, 1, 1.0, 0.1)])
def test_aac_fano_l2_mean_bound_against_the_packing_family(k, n, eps, delta):
    found = l2_mean_fano_bound(k, n, eps, delta)
    family, means = l2_family(k, found.s)
    assert found.size == family.size
    assert np.abs(np.linalg.norm(means, axis=1)).max() <= 1.0  # means of laws on the unit sphere
    assert family.tau >= found.tau * (1 - 1e-12)  # separation computed from the means >= s/(2 sqrt k)
    assert mutual_information(family.laws) <= found.input_information * (1 + 1e-12)
    direct = private_fano_bound((eps, delta), family, n)
    assert direct.risk_bound >= found.bound * (1 - 1e-9)  # the concrete family is at least as good
    assert found.bound > 0.0
    # the minimax risk is at least the Bayes risk of the family through every (eps, delta)-LDP channel: RR on the
    # 2k atoms mixed with delta of the identity
    rr = RandomizedResponse(2 * k, eps).matrix
    for K in (rr, (1 - delta) * rr + delta * np.eye(2 * k)):
        assert dobrushin(K, eps) <= delta + 1e-12
        assert found.bound <= l2_bayes_risk(family, means, K, n)
