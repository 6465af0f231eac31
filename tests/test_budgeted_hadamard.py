"""SRP-R: binary Hadamard under a randomness budget of R bits per user (`BudgetedHadamard`), the search over keyed
mechanisms (`optimise_keyed_mechanism`), the linear unbiased risk and the risk–randomness curve.

Every check is against an independent computation: exact eps by `ldp_epsilon` (AAC-T1) of the built channel,
entropies by scipy from the channel's rows and the key law, chi and entropies by mpmath from the rows, the
estimator's mean and variance from its weight matrix, BH's closed form, a brute-force grid over binary channels,
GRR's closed-form risk, and Monte Carlo with its confidence interval.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy

import markovdp as md
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.keyed_search import linear_unbiased_risk, optimise_keyed_mechanism
from markovdp.guarantees.srp_r import randomness_risk_curve
from markovdp.mechanisms.local import BinaryHadamard
from markovdp.mechanisms.local.budgeted_hadamard import BudgetedHadamard, budgeted_feature_channel
from markovdp.mechanisms.local.oracles import is_frequency_oracle, make_oracle
from markovdp.sweeps import VIOLATION, run_sweep
from markovdp.validation.catalogue_srp_r import SRP_R

#: z of a two-sided 1e-6 false-failure rate.
Z = 4.89


def h2a(eps: float) -> float:
    a = math.exp(eps) / (math.exp(eps) + 1.0)
    return float(-(a * math.log2(a) + (1 - a) * math.log2(1 - a)))


def _bits(p: np.ndarray) -> np.ndarray:
    """−Σ p log2 p along the last axis (0 log 0 = 0), written out."""
    safe = np.where(p > 0, p, 1.0)
    return -(p * np.log2(safe)).sum(axis=-1)


def test_certified_and_within_budget_on_500_random_instances() -> None:
    """ldp_epsilon(channel) <= eps (+1e-12, the float channel's rounding), the per-user output entropy
    max_{x,j} H(Y | X = x, j) (from K × the channel's column blocks) <= R under budget="output", the key entropy
    H(U) <= R under budget="key" (both + 1e-12, `BITS_TOLERANCE`), and each user's keyed mechanism (every 10th
    instance) has that block as channel."""
    rng = np.random.default_rng(20261205)
    for i in range(500):
        k = int(rng.integers(2, 10))
        eps = float(rng.choice([rng.uniform(0.01, 0.3), rng.uniform(0.3, 3.0), rng.uniform(3.0, 12.0)]))
        R = float(rng.uniform(0.0, 1.1) * h2a(eps))
        budget = str(rng.choice(["output", "key"]))
        scheme = BudgetedHadamard(k, eps, R, budget)
        assert ldp_epsilon(scheme.channel) <= eps + 1e-12
        K = scheme.hadamard_order
        blocks = scheme.matrix.reshape(k, K, 3) * K
        assert np.abs(blocks.sum(axis=2) - 1.0).max() <= 1e-14
        user_bits = float(_bits(blocks).max())
        key_bits = float(_bits(scheme.feature.key_probs))
        assert (user_bits if budget == "output" else key_bits) <= R + 1e-12
        assert user_bits <= key_bits + 1e-12  # H(g(s, U)) <= H(U)
        if i % 10 == 0:
            j = int(rng.integers(0, K))
            assert np.abs(scheme.user_mechanism(j).matrix - blocks[:, j, :]).max() <= 1e-15


def _exact_bits(p: np.ndarray) -> float:
    """The entropy (bits) of the law p / Σp of the doubles p, at 60 digits (mpmath, exact rationals)."""
    with mpmath.workdps(60):
        terms = [mpmath.mpf(float(v)) for v in p]
        total = mpmath.fsum(terms)
        return float(-mpmath.fsum(v / total * mpmath.log(v / total, 2) for v in terms if v > 0))


def test_extreme_budgets_are_certified_or_refused() -> None:
    """Tiny budgets and huge eps: the scheme is built, exactly eps-LDP (no probability underflowed to 0 beside a
    positive one) and within its budget (the exact entropy of the laws of its doubles, to a relative 1e-12), or
    refused naming `R`."""
    for eps in (1.0, 40.0, 300.0, 690.0):
        for R in (1e-300, 1e-250, 1e-200, 1e-100, 1e-30, 1e-12):
            for budget in ("output", "key"):
                try:
                    scheme = BudgetedHadamard(3, eps, R, budget)
                except ValueError as err:
                    assert "`R`" in str(err)
                    continue
                assert ldp_epsilon(scheme.channel) <= eps + 1e-12 * eps
                laws = [scheme.feature.key_probs] if budget == "key" else list(scheme.feature.rows)
                assert max(_exact_bits(law) for law in laws) <= R * (1 + 1e-12)


@pytest.mark.parametrize(("eps", "R", "budget", "family"), [
    (1.0, 0.3, "output", "erasure"), (1.0, 0.8, "output", "one-sided"), (1.0, 0.8, "key", "erasure"),
    (3.0, 0.1, "output", "erasure"), (0.3, 0.9, "output", "one-sided"), (2.0, 0.4, "key", "erasure")])
def test_feature_channel_against_mpmath(eps: float, R: float, budget: str, family: str) -> None:
    """The rows realise the key (Σ_{u: g(s,u) = b} q_u), chi = Σ D²/M and the binding entropy equal R (mpmath
    at 40 digits, from the rows and the key law), and the column ratios are <= e^eps."""
    ch = budgeted_feature_channel(eps, R, budget)
    assert ch.family == family
    for s in range(2):
        realised = np.bincount(ch.table[s], weights=ch.key_probs, minlength=3)
        np.testing.assert_allclose(realised, ch.rows[s], atol=1e-15)
    mpmath.mp.dps = 40
    plus, minus = ([mpmath.mpf(float(v)) for v in row] for row in ch.rows)
    chi = sum((a - b) ** 2 / (2 * (a + b)) for a, b in zip(plus, minus, strict=True) if a + b > 0)
    assert float(chi) == pytest.approx(ch.chi, rel=1e-12)

    def bits(vec):
        return float(-sum(v * mpmath.log(v, 2) for v in vec if v > 0))

    binding = bits(minus) if budget == "output" else bits([mpmath.mpf(float(q)) for q in ch.key_probs])
    assert binding == pytest.approx(R, abs=1e-12) and binding <= R + 1e-15
    ratios = [max(a / b, b / a) for a, b in zip(plus, minus, strict=True) if a + b > 0]
    assert float(max(ratios)) <= math.exp(eps) * (1 + 1e-14)


@pytest.mark.parametrize(("eps", "R"), [(0.5, 0.5), (1.0, 0.7), (2.0, 0.3), (1.0, 0.1)])
def test_one_sided_is_the_best_binary_channel(eps: float, R: float) -> None:
    """Over a 1200 × 1200 log-spaced grid of binary channels (P(1|+), P(1|−)) that are eps-LDP with both row
    entropies <= R, the largest chi = d²/(c(1 − c)) is the one-sided family's closed form (docs SRP-R), to the
    grid's accuracy."""
    ch = budgeted_feature_channel(eps, R, "output")
    small = np.geomspace(1e-7, 0.5, 600)
    rho = np.concatenate([small, 1.0 - small[::-1]])
    a, b = np.meshgrid(rho, rho, indexing="ij")
    h = lambda v: -(v * np.log2(v) + (1 - v) * np.log2(1 - v))  # noqa: E731
    e = math.exp(eps)
    ok = (a <= e * b) & (b <= e * a) & (1 - a <= e * (1 - b)) & (1 - b <= e * (1 - a)) & (h(a) <= R) & (h(b) <= R)
    c, d = (a + b) / 2, (a - b) / 2
    best = float(np.max(np.where(ok, d**2 / (c * (1 - c)), 0.0)))
    t = math.exp(-eps)
    rho_r = float(mpmath.findroot(lambda v: -(v * mpmath.log(v, 2) + (1 - v) * mpmath.log(1 - v, 2)) - R,
                                  (mpmath.mpf("1e-30"), mpmath.mpf("0.5")), solver="anderson"))
    closed = rho_r * (1 - t) ** 2 / ((1 + t) * (2 - rho_r * (1 + t)))
    assert best <= closed * (1 + 1e-9)
    assert best >= closed * 0.95
    if ch.family == "one-sided":
        assert ch.chi == pytest.approx(closed, rel=1e-9)
    else:
        assert ch.chi > closed  # the erasure family beats every binary channel here


@pytest.mark.parametrize(("eps", "R", "budget"), [(1.0, 0.8, "output"), (2.0, 0.2, "key")])
def test_search_finds_the_scheme_and_nothing_better(eps: float, R: float, budget: str) -> None:
    """At k = 2 (one sign per user) the search space (3 keys, 3 outputs) contains the scheme's feature channel,
    so the certified optimum has chi = 1/(2 n risk) equal to the scheme's chi (to the search's 1e-7 margins)."""
    found = optimise_keyed_mechanism(2, eps, R, budget=budget, starts=0)
    assert found.mechanism is not None and found.certified > 0
    assert ldp_epsilon(found.mechanism.channel) <= eps + 1e-12
    bits = found.key_bits if budget == "key" else found.output_bits
    assert bits <= R and bits == pytest.approx(scipy_entropy(found.mechanism.key_probs, base=2)
                                               if budget == "key" else bits)
    chi_search = 1.0 / (2.0 * found.risk)
    chi_scheme = budgeted_feature_channel(eps, R, budget).chi
    assert chi_search <= chi_scheme * (1 + 1e-6)
    assert chi_search >= chi_scheme * (1 - 1e-4)


def test_srp_r_search_table() -> None:
    """simulations/srp_r_search.py's table (committed with the script): every certified search result is eps-LDP
    within its budget, and none beats the scheme's chi (relative gap <= 0; the search's margins cost <= 2e-6)."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "srp_r_search.csv"
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 36
    for row in rows:
        assert float(row["certified_eps"]) <= float(row["eps"]) + 1e-12
        bits = float(row["key_bits"] if row["budget"] == "key" else row["output_bits"])
        assert bits <= float(row["R"])
        assert -2e-6 <= float(row["rel_gap"]) <= 0.0
        assert float(row["chi_scheme"]) == pytest.approx(budgeted_feature_channel(
            float(row["eps"]), float(row["R"]), row["budget"]).chi, rel=1e-10)


def test_linear_unbiased_risk_against_closed_forms() -> None:
    """GRR: the inverse channel is the only unbiased linear estimator, risk (1 − 1/k)/(α − β)² at the uniform law;
    a two-input channel: 1/(2 chi); a rank-deficient channel: inf."""
    for k, eps in [(3, 0.5), (5, 1.0), (8, 2.5)]:
        e = math.exp(eps)
        alpha, beta = e / (e + k - 1), 1 / (e + k - 1)
        assert linear_unbiased_risk(md.RandomizedResponse(k, eps).matrix, n=7) == pytest.approx(
            (1 - 1 / k) / (alpha - beta) ** 2 / 7, rel=1e-12)
    ch = budgeted_feature_channel(1.0, 0.5)
    assert linear_unbiased_risk(ch.rows) == pytest.approx(1 / (2 * ch.chi), rel=1e-10)
    assert linear_unbiased_risk([[0.5, 0.5], [0.5, 0.5]]) == math.inf


@pytest.mark.parametrize(("k", "eps", "R", "budget"), [(5, 1.0, 0.4, "output"), (8, 0.5, 0.9, "output"),
                                                       (3, 2.0, 0.2, "key"), (16, 1.0, 0.8, "output")])
def test_estimator_is_unbiased_and_exact_risk_is_its_variance(k: int, eps: float, R: float, budget: str) -> None:
    """f̂ = (1/n) Σ_i A[y_i]: E f̂ = p Q A = p (Q A = I), and n E||f̂ − p||² = Σ_y π_y ||A_y||² − ||p||² equals
    `exact_risk`; the best linear unbiased estimator of the same channel is no worse."""
    scheme = BudgetedHadamard(k, eps, R, budget)
    K = scheme.hadamard_order
    H = np.array([[(-1) ** bin((x + 1) & j).count("1") for j in range(K)] for x in range(k)])
    A = (H[:, :, None] * scheme.estimator_weights[None, None, :]).reshape(k, 3 * K).T  # A[3j + b, x]
    np.testing.assert_allclose(scheme.matrix @ A, np.eye(k), atol=1e-10)
    p = np.random.default_rng(k).dirichlet(np.ones(k))
    pi = p @ scheme.matrix
    second = float(pi @ (A**2).sum(axis=1)) - float(p @ p)
    assert scheme.exact_risk(p, n=100) == pytest.approx(second / 100, rel=1e-10)
    assert linear_unbiased_risk(scheme.matrix, p, n=100) <= scheme.exact_risk(p, n=100) * (1 + 1e-12)
    reports = np.arange(3 * K).repeat(3)  # the estimate is A's mean over the reports
    np.testing.assert_allclose(scheme.estimate(reports), A.mean(axis=0), atol=1e-12)


@pytest.mark.parametrize(("k", "eps"), [(4, 0.5), (16, 1.0), (7, 3.0)])
def test_reaches_binary_hadamard_at_its_randomness(k: int, eps: float) -> None:
    """At R = H2(e^eps/(e^eps + 1)) (and above) the channel is BH's (the ⊥ columns empty) and so is the risk,
    (k/tanh²(eps/2) − ||p||²)/n; the randomness is BH's."""
    bh = BinaryHadamard(k, eps)
    for R in (bh.randomness_bits, bh.randomness_bits + 0.5):
        scheme = BudgetedHadamard(k, eps, R)
        assert scheme.family == "BH"
        m = scheme.matrix
        assert np.all(m[:, 2::3] == 0.0)
        np.testing.assert_allclose(m[:, 0::3], bh.matrix[:, 0::2], rtol=1e-14)
        np.testing.assert_allclose(m[:, 1::3], bh.matrix[:, 1::2], rtol=1e-14)
        p = np.full(k, 1 / k)
        assert scheme.exact_risk(p, n=50) == pytest.approx((k / math.tanh(eps / 2) ** 2 - 1 / k) / 50, rel=1e-12)
        assert scheme.randomness_bits == pytest.approx(bh.randomness_bits, rel=1e-12)


def test_zero_budget_is_useless_but_valid() -> None:
    """R = 0: every report is ⊥ (exact eps 0, no randomness), the estimate is the uniform law and the risk is
    ||p − 1/k||² whatever n."""
    scheme = BudgetedHadamard(6, 1.0, 0.0)
    assert np.all(scheme.matrix[:, 0::3] == 0.0) and np.all(scheme.matrix[:, 1::3] == 0.0)
    assert ldp_epsilon(scheme.channel) == 0.0
    assert scheme.randomness_bits == 0.0 and scheme.user_output_entropy_bits == 0.0
    y = scheme.sample(np.arange(6).repeat(10), rng=1)
    assert np.all(y % 3 == 2)
    np.testing.assert_array_equal(scheme.estimate(y), np.full(6, 1 / 6))
    p = np.array([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])
    assert scheme.exact_risk(p, n=10) == pytest.approx(float(np.sum((p - 1 / 6) ** 2)), rel=1e-14)


def test_samples_follow_the_channel() -> None:
    """200 000 reports of one input: each of the 3K report frequencies within Z binomial standard errors of the row."""
    scheme = BudgetedHadamard(5, 1.0, 0.6)
    n = 200_000
    y = scheme.sample(np.full(n, 3), rng=11)
    freq = np.bincount(y, minlength=scheme.matrix.shape[1]) / n
    row = scheme.matrix[3]
    assert np.all(np.abs(freq - row) <= Z * np.sqrt(row * (1 - row) / n) + 1e-12)


def test_monte_carlo_risk_matches_the_exact_risk() -> None:
    """randomness_risk_curve: the Monte Carlo mean squared error over 200 runs of 500 users is within Z standard
    errors of the exact risk, the certified eps is eps, and a point's runs are addressed (same draws alone)."""
    ds = randomness_risk_curve(8, 1.0, 500, [0.3, 0.75, h2a(1.0)], reps=200, seed=3)
    se = (ds.risk_mc_high - ds.risk_mc) / 1.959963984540054
    assert np.all(np.abs(ds.risk_mc - ds.risk) <= Z * se)
    assert np.all(ds.certified_eps <= 1.0 + 1e-12)
    assert list(ds.family.values) == ["erasure", "one-sided", "BH"]
    assert np.all(np.diff(ds.risk.values) < 0)  # more randomness, less risk
    assert ds.attrs["bh_risk"] == pytest.approx(float(ds.risk[-1]), rel=1e-12)
    again = randomness_risk_curve(8, 1.0, 500, [0.75], reps=200, seed=3)
    assert float(again.risk_mc[0]) == float(ds.risk_mc[1])  # run r at R is an address: same draws
    zero = randomness_risk_curve(4, 1.0, 10, [0.0])
    assert zero.worst_risk.item() == pytest.approx(0.75) and zero.risk.item() == 0.0


def test_registered_oracle_and_one_contract() -> None:
    """BH-half is a registered FrequencyOracle and a Mechanism: certify, privacy_epsilon, privacy_profile (against
    brute force) and >> work."""
    oracle = make_oracle("BH-half", 5, 1.0)
    assert is_frequency_oracle(oracle) and isinstance(oracle, md.Mechanism)
    assert oracle.R == pytest.approx(h2a(1.0) / 2, rel=1e-12)
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(1.0, rel=1e-12)
    assert md.certify(oracle).epsilon(0.0) <= 1.0 + 1e-12
    merged = md.FiniteKernel(np.kron(np.eye(oracle.hadamard_order), np.ones((3, 1))))  # forget b: keep j
    assert ldp_epsilon((oracle >> merged).matrix) == 0.0
    grid = np.array([0.0, 0.3, 0.7])  # the exact profile against a brute-force max over the ordered row pairs
    m = oracle.matrix
    brute = [max(np.maximum(m[i] - math.exp(e) * m[j], 0.0).sum() for i in range(5) for j in range(5) if i != j)
             for e in grid]
    np.testing.assert_allclose(md.privacy_profile(oracle, grid), brute, rtol=1e-12, atol=1e-15)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="`R`"):
        BudgetedHadamard(4, 1.0, -0.1)
    with pytest.raises(ValueError, match="`R`"):
        BudgetedHadamard(4, 1.0, math.nan)
    with pytest.raises(TypeError, match="`R`"):
        BudgetedHadamard(4, 1.0, [0.1, 0.2])
    with pytest.raises(ValueError, match="`budget`"):
        BudgetedHadamard(4, 1.0, 0.2, "bits")
    with pytest.raises(ValueError, match="`k`"):
        BudgetedHadamard(1, 1.0, 0.2)
    with pytest.raises(ValueError, match="`eps`"):
        BudgetedHadamard(4, 800.0, 0.2)
    with pytest.raises(ValueError, match="`p`"):
        BudgetedHadamard(4, 1.0, 0.2).exact_risk([0.5, 0.5])
    with pytest.raises(ValueError, match="`R`"):  # lam e^-690 / (1 + e^-690) / K underflows
        BudgetedHadamard(4, 690.0, 1e-298)
    with pytest.raises(ValueError, match="`R`"):  # lam (1 − a) / K is subnormal
        BudgetedHadamard(4, 1.0, 5e-306)
    with pytest.raises(ValueError, match="`j`"):
        BudgetedHadamard(4, 1.0, 0.2).user_mechanism(8)
    with pytest.raises(ValueError, match="`n_keys`"):
        optimise_keyed_mechanism(4, 1.0, 0.5, n_keys=6)
    with pytest.raises(ValueError, match="`p`"):
        linear_unbiased_risk(np.eye(2), [1.0, 0.0])
    with pytest.raises(ValueError, match="`reps`"):
        randomness_risk_curve(4, 1.0, 10**6, [0.5], reps=10**7)


def _half_claim(k: int, eps0: float, fraction: float, eps: float) -> md.DeclaredDP:
    return md.DeclaredDP(float(eps0) / 2, 0.0)


def test_srp_r_scenario_holds_and_catches_an_under_declared_eps() -> None:
    """The SRP-R quick grid has no violation, its certified eps is eps0 (1e-12), the randomness used is within R and
    the risk is at least BH's; claiming eps0/2 for the same channel is a violation at eps = eps0/2."""
    kwargs = {"samples": 2000, "seed": 1, "quick": True, "executor": "synchronous"}
    ds = run_sweep(SRP_R, **kwargs)
    assert not bool((ds["verdict"] == VIOLATION).any())
    assert float(np.abs(ds["eps_excess"]).max()) <= 1e-12
    assert bool((ds["output_bits"] <= ds["budget_bits"] + 1e-12).all())
    assert bool((ds["risk_over_bh"] > 1.0).all())
    under = dataclasses.replace(SRP_R, pipeline=_half_claim, grid_quick={"k": (4,), "eps0": (1.0,),
                                                                          "fraction": (0.5,), "eps": (0.5,)})
    assert bool((run_sweep(under, **kwargs)["verdict"] == VIOLATION).all())
