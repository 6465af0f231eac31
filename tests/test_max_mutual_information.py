"""AAC-MI: the exact max of I(X; Z) over (eps, delta)-LDP channels, against the binary canonical mechanism (KOV 2015),
a brute-force local search over channels, 500+ random LDP channels and the library's local mechanisms; the bounds
phi H(X) and eta_TV H(X) above it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

import markovdp as md
from markovdp.guarantees.mutual_information import MAX_K_APPROX, MAX_K_PURE, max_mutual_information
from markovdp.mechanisms.local.oracles import make_oracle, oracle_names


def mi(law: np.ndarray, K: np.ndarray) -> np.ndarray:
    """I(X; Z) in nats for one channel (k, m) or a stack (s, k, m): Σ P_x K_xz log(K_xz / (P K)_z)."""
    K = np.asarray(K, dtype=float)
    out = np.einsum("x,...xz->...z", law, K)[..., None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(K > 0, law[:, None] * K * np.log(K / out), 0.0)
    return terms.sum(axis=(-2, -1))


def canonical_binary(eps: float, delta: float) -> np.ndarray:
    """The (eps, delta) binary mechanism every (eps, delta)-DP pair of laws is a post-processing of (Kairouz, Oh,
    Viswanath 2015, Thm 2.2 of the composition paper): by data processing its MI is the maximum for k = 2."""
    a, b = (1 - delta) * math.exp(eps) / (1 + math.exp(eps)), (1 - delta) / (1 + math.exp(eps))
    return np.array([[delta, a, b, 0.0], [0.0, b, a, delta]])


def random_ldp_channels(rng: np.random.Generator, s: int, k: int, m: int, eps: float, delta: float) -> np.ndarray:
    """s random (eps, delta)-LDP channels: A (Dirichlet rows) mixed with the uniform channel at the least weight t
    with every ratio <= e^eps, t = max over pairs of d / (d + (e^eps − 1)/m), d = A_xz − e^eps A_x'z; then
    (1 − delta) that + delta · a deterministic map (joint convexity of E_{e^eps})."""
    A = rng.dirichlet(np.full(m, rng.choice([0.2, 1.0])), size=(s, k))
    d = A[:, :, None, :] - math.exp(eps) * A[:, None, :, :]
    c = math.expm1(eps) / m
    t = np.max(np.where(d > 0, d / (d + c), 0.0), axis=(1, 2, 3))[:, None, None] * (1 + 1e-12)
    Q = (1 - t) * A + t / m
    D = np.eye(m)[rng.integers(0, m, size=(s, k))]
    return (1 - delta) * Q + delta * D


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("delta", [0.0, 0.05, 0.3])
def test_aac_mi_binary_equals_the_canonical_mechanism(eps, delta):
    rng = np.random.default_rng(int(10 * eps + 100 * delta))
    for law in [np.array([0.5, 0.5]), *rng.dirichlet(np.ones(2), size=3)]:
        r = max_mutual_information(2, eps, delta, law)
        assert r.mi_nats == pytest.approx(mi(law, canonical_binary(eps, delta)), rel=1e-8, abs=1e-12)
        assert r.mi_bits == pytest.approx(r.mi_nats / math.log(2), rel=1e-14)
    if delta == 0.0:  # uniform input: log 2 − H(e^eps / (1 + e^eps)) for binary randomized response
        p = math.exp(eps) / (1 + math.exp(eps))
        expected = math.log(2) + p * math.log(p) + (1 - p) * math.log(1 - p)
        assert max_mutual_information(2, eps).mi_nats == pytest.approx(expected, rel=1e-9)


def brute_force_max(law: np.ndarray, eps: float, delta: float, m: int, starts: int, seed: int) -> float:
    """Local search (SLSQP, analytic gradient) over k x m channels from random starts; delta > 0 through slack
    variables t_{x,x',z} >= K_xz − e^eps K_x'z, Σ_z t_{x,x',z} <= delta (slow to find the max there: the tests use
    it at delta = 0)."""
    k = law.size
    pairs = [(x, y) for x in range(k) for y in range(k) if x != y]
    nq, nt = k * m, len(pairs) * m if delta > 0 else 0
    g = math.exp(eps)

    def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
        K = np.maximum(v[:nq].reshape(k, m), 1e-300)
        out = law @ K
        grad = np.zeros_like(v)
        grad[:nq] = -(law[:, None] * np.log(K / out)).ravel()
        return -float(mi(law, K)), grad

    rows_eq = np.zeros((k, nq + nt))
    for x in range(k):
        rows_eq[x, x * m:(x + 1) * m] = 1.0
    ineq = []  # A v >= b form for SLSQP: e^eps K_x'z − K_xz + t >= 0, delta − Σ_z t >= 0
    for j, (x, y) in enumerate(pairs):
        for z in range(m):
            row = np.zeros(nq + nt)
            row[y * m + z], row[x * m + z] = g, -1.0
            if nt:
                row[nq + j * m + z] = 1.0
            ineq.append((row, 0.0))
        if nt:
            row = np.zeros(nq + nt)
            row[nq + j * m:nq + (j + 1) * m] = -1.0
            ineq.append((row, -delta))
    A = np.array([r for r, _ in ineq])
    b = np.array([c for _, c in ineq])
    constraints = [{"type": "eq", "fun": lambda v: rows_eq @ v - 1.0, "jac": lambda v: rows_eq},
                   {"type": "ineq", "fun": lambda v: A @ v - b, "jac": lambda v: A}]
    rng = np.random.default_rng(seed)
    best = 0.0
    for _ in range(starts):
        start = np.concatenate([random_ldp_channels(rng, 1, k, m, eps, delta)[0].ravel(), np.zeros(nt)])
        if nt:
            K0 = start[:nq].reshape(k, m)
            start[nq:] = np.concatenate([np.maximum(K0[x] - g * K0[y], 0.0) for x, y in pairs])
        res = optimize.minimize(objective, start, jac=True, method="SLSQP", constraints=constraints,
                                bounds=[(0.0, 1.0)] * (nq + nt), options={"maxiter": 300, "ftol": 1e-12})
        K = np.clip(res.x[:nq].reshape(k, m), 0.0, None)
        K /= K.sum(axis=1, keepdims=True)
        slack = max(np.maximum(K[x] - g * K[y], 0.0).sum() for x, y in pairs)
        if slack <= delta + 1e-9:  # keep only (numerically) feasible channels
            best = max(best, float(mi(law, K)))
    return best


@pytest.mark.parametrize(("k", "eps", "law"), [(2, 1.0, (0.3, 0.7)), (3, 0.7, (1 / 3, 1 / 3, 1 / 3)),
                                               (3, 1.5, (0.5, 0.3, 0.2))])
def test_aac_mi_pure_brute_force_search_over_channels_finds_no_more_and_reaches_it(k, eps, law):
    """A local search over all k x (k + 1) eps-LDP channels (an optimal vertex has <= k outputs) from 6 random
    starts: nothing beats the LP value over the KOV patterns, and the best found reaches it to 1e-6."""
    law = np.array(law)
    exact = max_mutual_information(k, eps, 0.0, law).mi_nats
    found = brute_force_max(law, eps, 0.0, m=k + 1, starts=6, seed=k)
    assert exact - 1e-6 <= found <= exact + 1e-9


def column_lp(law: np.ndarray, eps: float, delta: float, columns: np.ndarray) -> float:
    """max Σ_c w_c mu(c) over channels whose columns are multiples of the given ones (rows sum to 1, every ordered
    pair's Σ_c w_c [c_x − e^eps c_x']_+ <= delta): every solution is an (eps, delta)-LDP channel."""
    k = law.size
    mass = columns @ law
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where(columns > 0, law * columns * np.log(columns / mass[:, None]), 0.0).sum(axis=1)
    slack = np.array([np.maximum(columns[:, x] - math.exp(eps) * columns[:, y], 0.0)
                      for x in range(k) for y in range(k) if x != y])
    res = optimize.linprog(-util, A_eq=columns.T, b_eq=np.ones(k), A_ub=slack, b_ub=np.full(len(slack), delta),
                           bounds=(0, None), method="highs")
    return -float(res.fun)


@pytest.mark.parametrize(("k", "eps", "delta"), [(2, 1.0, 0.1), (3, 0.7, 0.1), (3, 1.0, 0.05), (3, 2.0, 0.3)])
def test_aac_mi_columns_off_the_rays_do_not_help(k, eps, delta):
    """The LP over a fine grid of columns (entries 0 or e^(−eps t), t in steps of 1/8 up to 2: fractional levels,
    which the rays leave out) plus 3000 random columns with random zeros reaches exactly the LP over the rays, no
    more: splitting a column into rays never lowers the MI (the derivation's claim)."""
    rng = np.random.default_rng(k + int(10 * eps))
    law = rng.dirichlet(np.ones(k))
    levels = np.concatenate([[0.0], np.exp(-eps * np.arange(0, 17) / 8)])
    grid = np.array(np.meshgrid(*[levels] * k, indexing="ij")).reshape(k, -1).T
    random = rng.random((3000, k)) * (rng.random((3000, k)) > 0.2)
    columns = np.vstack([grid, random])
    columns = columns[columns.sum(axis=1) > 0]
    exact = max_mutual_information(k, eps, delta, law).mi_nats
    assert column_lp(law, eps, delta, columns) == pytest.approx(exact, abs=1e-9)


def test_aac_mi_above_540_random_ldp_channels():
    rng = np.random.default_rng(1505)
    total = 0
    for k in (2, 3, 4):
        for eps in (0.5, 1.0, 2.0):
            for delta in (0.0, 0.05):
                exact = max_mutual_information(k, eps, delta).mi_nats
                law = np.full(k, 1 / k)
                for m in (k, 2 * k + 1):
                    channels = random_ldp_channels(rng, 15, k, m, eps, delta)
                    assert max(md.dobrushin(c, eps) for c in channels[:3]) <= delta + 1e-12
                    assert np.all(mi(law, channels) <= exact + 1e-10)
                    total += channels.shape[0]
    assert total >= 500


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_aac_mi_above_the_library_mechanisms(k):
    """Every registered frequency oracle (RR, unary encodings, Hadamard, subset selection, local hashing) at eps0:
    its MI under a uniform input is at most the maximum at its exact eps (<= eps0)."""
    law = np.full(k, 1 / k)
    for eps0 in (0.5, 2.0):
        exact = max_mutual_information(k, eps0).mi_nats
        for name in oracle_names():
            channel = make_oracle(name, k, eps0).channel
            matrix = getattr(channel, "matrix", None)
            if matrix is None:
                matrix = channel.to_kernel().matrix
            assert md.ldp_epsilon(matrix) <= eps0 * (1 + 1e-12)
            assert mi(law, matrix) <= exact + 1e-10, name
        rr = md.RandomizedResponse(k, eps0).matrix
        assert mi(law, rr) <= exact + 1e-10


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_aac_mi_reported_numbers_and_bounds(k):
    rng = np.random.default_rng(k)
    for eps in (0.1, 1.0, 4.0):
        for delta in (0.0, 0.01, 0.2):
            law = rng.dirichlet(np.ones(k))
            r = max_mutual_information(k, eps, delta, md.Categorical(law))
            K = r.channel
            assert K.shape[0] == k and K.shape[1] <= k * k + k and not K.flags.writeable
            np.testing.assert_allclose(K.sum(axis=1), 1.0, atol=1e-13)
            assert r.certified_delta <= delta + 1e-12
            assert r.mi_nats == pytest.approx(float(mi(law, K)), rel=1e-12, abs=1e-15)
            entropy = -float(law @ np.log(law))
            eta = max(0.5 * np.abs(K[i] - K[j]).sum() for i in range(k) for j in range(k))
            assert r.entropy_nats == pytest.approx(entropy, rel=1e-12)
            assert r.phi == pytest.approx(1 - (1 - delta) * math.exp(-eps), rel=1e-12)
            assert r.eta_tv == pytest.approx(eta, rel=1e-9, abs=1e-15)
            assert r.mi_nats <= r.eta_tv_bound_nats + 1e-12 <= r.phi_bound_nats + 2e-12
            assert (r.mcgregor_bound == 3 * eps) if delta == 0 else math.isnan(r.mcgregor_bound)
            if delta == 0:
                assert r.mi_nats <= eps  # I <= E log(K(z|x)/K(z)) <= eps for pure eps-LDP


def test_aac_mi_delta_to_zero_is_the_pure_value_and_monotone():
    for k in (3, 4):
        pure = max_mutual_information(k, 1.0).mi_nats
        assert max_mutual_information(k, 1.0, 1e-12).mi_nats == pytest.approx(pure, abs=1e-9)
        values = [max_mutual_information(k, 1.0, d).mi_nats for d in (0.0, 0.01, 0.1, 0.5, 1.0)]
        assert all(a <= b + 1e-10 for a, b in zip(values, values[1:], strict=False))
        assert values[-1] == pytest.approx(math.log(k), rel=1e-9)  # delta = 1: every channel, the identity


def test_aac_mi_refuses_beyond_the_size_limit_and_bad_input():
    with pytest.raises(ValueError, match=f"`k` must be an integer <= {MAX_K_APPROX} for delta > 0"):
        max_mutual_information(MAX_K_APPROX + 1, 1.0, 0.1)
    with pytest.raises(ValueError, match=f"`k` must be an integer <= {MAX_K_PURE} for delta = 0"):
        max_mutual_information(MAX_K_PURE + 1, 1.0)
    with pytest.raises(ValueError, match="`input_law` must be a probability vector on k = 3 points"):
        max_mutual_information(3, 1.0, 0.0, [0.5, 0.5])
    with pytest.raises(ValueError, match="`eps` must be >= 0"):
        max_mutual_information(3, -1.0)
    assert max_mutual_information(3, 0.0).mi_nats == 0.0  # eps = 0: only constant channels
