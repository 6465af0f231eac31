"""Coverage of the E_gamma and R_alpha estimators (THEORY: Notation; DESIGN §6).

Each coverage test runs R = 200 independent repetitions with n = 2000 samples per side from a fixed
SeedSequence and asserts that the fraction of repetitions whose interval covers the true divergence is at
least ``confidence − 3 sd``, ``sd = sqrt(confidence (1 − confidence) / R)`` (nominal minus 3 standard
errors). True values are computed here by plain sums from the definitions, never by the code under test.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy import integrate, stats

from markovdp.divergences.estimate import (
    Estimate,
    estimate_hockey_stick,
    estimate_hockey_stick_from_counts,
    estimate_renyi,
    estimate_renyi_from_counts,
    split_counts,
)

ENTROPY = 0x6D61726B6F76  # fixed root of every random stream in this file
R = 200  # repetitions per coverage test
N = 2000  # samples per side
CONFIDENCE = 0.95
MIN_COVERAGE = CONFIDENCE - 3 * math.sqrt(CONFIDENCE * (1 - CONFIDENCE) / R)  # ≈ 0.904
TOL = 1e-12  # float slack when comparing a bound with a true value of 0


def rng_for(tag: str) -> np.random.Generator:
    """A generator addressed by the test's tag (not a stateful spawn)."""
    return np.random.default_rng(np.random.SeedSequence(ENTROPY, spawn_key=(zlib.crc32(tag.encode()),)))


# -------------------------------------------------------------------------------------------------
# true values, from the definitions (THEORY: Notation)


def true_hockey_stick(p, q, eps: float) -> float:
    """E_{e^eps}(p||q) = Σ_y [p_y − e^eps q_y]_+."""
    return float(np.sum(np.maximum(np.asarray(p) - math.exp(eps) * np.asarray(q), 0.0)))


def true_renyi(p, q, alpha: float) -> float:
    """R_alpha(p||q) = log(Σ_{p_y > 0} p_y^alpha q_y^(1−alpha)) / (alpha − 1); R_inf = log max p/q."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    support = p > 0
    if (q[support] == 0).any():
        return math.inf
    log_ratio = np.log(p[support] / q[support])
    if math.isinf(alpha):
        return float(log_ratio.max())
    # Σ p r^(alpha−1) with r = p/q, summed relative to its largest term so alpha = 1e3 does not overflow.
    exponents = np.log(p[support]) + (alpha - 1) * log_ratio
    top = exponents.max()
    return float((top + np.log(np.sum(np.exp(exponents - top)))) / (alpha - 1))


def normal_hockey_stick(eps: float) -> float:
    """E_{e^eps}(N(0,1) || N(1,1)).

    log p(x)/q(x) = −x²/2 + (x − 1)²/2 = 1/2 − x, so p > e^eps q exactly on the half-line
    E = {x < x*}, x* = 1/2 − eps (the mirror image of x > 1/2 + eps for the pair N(1,1) || N(0,1)), and
    E_gamma = P(E) − e^eps Q(E) = Phi(x*) − e^eps Phi(x* − 1).
    """
    x_star = 0.5 - eps
    return float(stats.norm.cdf(x_star) - math.exp(eps) * stats.norm.cdf(x_star - 1.0))


def normal_renyi(alpha: float) -> float:
    """R_alpha(N(0,1) || N(1,1)) = alpha/2.

    p^alpha q^(1−alpha) = phi(x − (1 − alpha)) e^(alpha (alpha − 1)/2) integrates to e^(alpha (alpha − 1)/2).
    """
    return alpha / 2


def binned_normal_laws(edges):
    """Cell probabilities of N(0,1) and N(1,1) on the bins [e_j, e_{j+1}) with outer edges −inf/+inf."""
    full = np.concatenate([[-np.inf], edges, [np.inf]])
    return np.diff(stats.norm.cdf(full)), np.diff(stats.norm.cdf(full - 1.0))


# -------------------------------------------------------------------------------------------------
# helpers


def run(estimator, samples_p, samples_q, **kwargs) -> dict[str, np.ndarray]:
    """Estimates over the repetitions (rows); also checks ci_low <= value <= ci_high every time (where
    ci_high is claimed: NaN means the method gives no upper bound)."""
    ests = [estimator(xp, xq, **kwargs) for xp, xq in zip(samples_p, samples_q, strict=True)]
    out = {f: np.array([getattr(e, f) for e in ests]) for f in ("value", "ci_low", "ci_high")}
    assert (out["ci_low"] <= out["value"] + TOL).all()
    assert (np.isnan(out["ci_high"]) | (out["value"] <= out["ci_high"] + TOL)).all()
    return out


def discrete_samples(tag: str, p, q) -> tuple[np.ndarray, np.ndarray]:
    rng = rng_for(tag)
    return rng.choice(len(p), size=(R, N), p=p), rng.choice(len(q), size=(R, N), p=q)


def normal_samples(tag: str) -> tuple[np.ndarray, np.ndarray]:
    rng = rng_for(tag)
    return rng.normal(0.0, 1.0, size=(R, N)), rng.normal(1.0, 1.0, size=(R, N))


def lower_coverage(result, truth) -> float:
    return float(np.mean(result["ci_low"] <= np.asarray(truth) + TOL))


def two_sided_coverage(result, truth) -> float:
    truth = np.asarray(truth)
    return float(np.mean((result["ci_low"] <= truth + TOL) & (truth <= result["ci_high"] + TOL)))


# Discrete pairs: (p, q, eps). The last three have true E_gamma = 0 (identical laws, eps above the max log
# ratio log 2.5) or a zero cell (q_y = 0 < p_y).
HS_CASES = {
    "generic": ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 0.5),
    "identical_laws_zero": ([0.4, 0.35, 0.25], [0.4, 0.35, 0.25], 0.0),
    "eps_above_max_ratio_zero": ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 1.0),
    "zero_cell": ([0.5, 0.3, 0.2], [0.6, 0.4, 0.0], 0.3),
}


def test_true_values_of_the_cases():
    assert true_hockey_stick(*HS_CASES["generic"]) == pytest.approx(0.5 - math.exp(0.5) * 0.2)
    assert true_hockey_stick(*HS_CASES["identical_laws_zero"]) == 0.0
    assert true_hockey_stick(*HS_CASES["eps_above_max_ratio_zero"]) == 0.0
    assert true_hockey_stick(*HS_CASES["zero_cell"]) == pytest.approx(0.2)


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.5])
def test_normal_pair_truth_matches_quadrature(eps):
    """The half-line formula against ∫ [p − e^eps q]_+ dx (THEORY: Notation, STD-GaussHS)."""
    gamma = math.exp(eps)
    integrand = lambda x: max(stats.norm.pdf(x) - gamma * stats.norm.pdf(x, loc=1.0), 0.0)  # noqa: E731
    value = integrate.quad(integrand, -np.inf, 0.5 - eps)[0] + integrate.quad(integrand, 0.5 - eps, np.inf)[0]
    assert normal_hockey_stick(eps) == pytest.approx(value, abs=1e-9)


# -------------------------------------------------------------------------------------------------
# hockey-stick: discrete


@pytest.mark.parametrize("case", HS_CASES)
@pytest.mark.parametrize("method", ["split", "box", "plugin"])
def test_hockey_stick_discrete_lower_bound_coverage(method, case):
    p, q, eps = HS_CASES[case]
    xp, xq = discrete_samples(f"hs-{case}", p, q)
    result = run(estimate_hockey_stick, xp, xq, eps=eps, k=len(p), method=method, confidence=CONFIDENCE)
    assert lower_coverage(result, true_hockey_stick(p, q, eps)) >= MIN_COVERAGE


@pytest.mark.parametrize("case", HS_CASES)
def test_hockey_stick_box_two_sided_coverage(case):
    p, q, eps = HS_CASES[case]
    xp, xq = discrete_samples(f"hs-{case}", p, q)
    result = run(estimate_hockey_stick, xp, xq, eps=eps, k=len(p), method="box", confidence=CONFIDENCE)
    assert two_sided_coverage(result, true_hockey_stick(p, q, eps)) >= MIN_COVERAGE


def test_coverage_check_rejects_the_point_estimate_as_a_lower_bound():
    """Negative control: the same check fails for an invalid bound (the plug-in covers ~half the time)."""
    p, q, eps = HS_CASES["generic"]
    xp, xq = discrete_samples("hs-generic", p, q)
    result = run(estimate_hockey_stick, xp, xq, eps=eps, k=len(p), method="box")
    assert lower_coverage({"ci_low": result["value"]}, true_hockey_stick(p, q, eps)) < MIN_COVERAGE


@pytest.mark.parametrize("method", ["split", "box"])
def test_hockey_stick_estimates_are_informative(method):
    """Guard against trivially valid intervals: the estimate tracks the truth and ci_low is mostly > 0."""
    p, q, eps = HS_CASES["generic"]
    xp, xq = discrete_samples("hs-generic", p, q)
    result = run(estimate_hockey_stick, xp, xq, eps=eps, k=len(p), method=method)
    truth = true_hockey_stick(p, q, eps)
    assert abs(result["value"].mean() - truth) < 0.01
    assert np.mean(result["ci_low"] > 0) > 0.99
    assert np.mean(truth - result["ci_low"]) < 0.1
    if method == "box":
        assert np.mean(result["ci_high"] - result["ci_low"]) < 0.2


def test_hockey_stick_eps_array_broadcasts():
    p, q, _ = HS_CASES["generic"]
    xp, xq = discrete_samples("hs-generic", p, q)
    eps = np.array([0.0, 0.5, 1.0])
    for method in ("split", "box"):
        both = estimate_hockey_stick(xp[0], xq[0], eps=eps, method=method)
        assert both.value.shape == eps.shape
        for i, e in enumerate(eps):
            one = estimate_hockey_stick(xp[0], xq[0], eps=e, method=method)
            np.testing.assert_array_equal([one.value, one.ci_low, one.ci_high],
                                          [both.value[i], both.ci_low[i], both.ci_high[i]])


# -------------------------------------------------------------------------------------------------
# hockey-stick: continuous (N(0,1) vs N(1,1))


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("method", ["split", "histogram"])
def test_hockey_stick_normal_lower_bound_coverage(method, eps):
    xp, xq = normal_samples("hs-normal")
    result = run(estimate_hockey_stick, xp, xq, eps=eps, method=method, confidence=CONFIDENCE)
    assert lower_coverage(result, normal_hockey_stick(eps)) >= MIN_COVERAGE


def test_hockey_stick_normal_split_is_informative():
    """The split value estimates one chosen event's advantage (<= E_gamma): slightly low, never far off."""
    xp, xq = normal_samples("hs-normal")
    result = run(estimate_hockey_stick, xp, xq, eps=0.5)
    truth = normal_hockey_stick(0.5)
    assert truth - 0.05 < result["value"].mean() < truth + 0.01
    assert np.mean(result["ci_low"] > 0) > 0.99


def binned_box(estimator, edges, **kwargs):
    """The box on counts over fixed edges: two-sided for the divergence of the binned laws."""
    def estimate(xp, xq, **kw):
        return estimator(split_counts(xp, edges=edges), split_counts(xq, edges=edges), method="box", **kw)

    return estimate


def test_hockey_stick_histogram_fixed_edges_two_sided_coverage_of_binned_law():
    """With explicit edges, the box covers the binned divergence; ci_low also covers the true one (DPI),
    and the sample-level histogram claims no upper bound on the true (continuous) divergence."""
    edges = np.linspace(-2.0, 3.0, 11)
    p, q = binned_normal_laws(edges)
    xp, xq = normal_samples("hs-normal")
    eps = 0.3  # x* = 0.2 is not an edge, so binning loses something
    result = run(estimate_hockey_stick, xp, xq, eps=eps, method="histogram", bins=edges)
    assert true_hockey_stick(p, q, eps) < normal_hockey_stick(eps)
    assert lower_coverage(result, normal_hockey_stick(eps)) >= MIN_COVERAGE
    assert np.isnan(result["ci_high"]).all()
    binned = run(binned_box(estimate_hockey_stick_from_counts, edges), xp, xq, eps=eps, confidence=CONFIDENCE)
    assert two_sided_coverage(binned, true_hockey_stick(p, q, eps)) >= MIN_COVERAGE
    np.testing.assert_array_equal(binned["ci_low"], result["ci_low"])


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_split_claims_no_upper_bound(eps):
    """The split estimator's upper end would bound one chosen event, not E_gamma: at eps = 3 the old
    interval was [0, 0] while E_gamma(N(0,1) || N(1,1)) = 0.0015. Now ci_high is NaN and ci_low is honest."""
    xp, xq = normal_samples("hs-normal")
    result = run(estimate_hockey_stick, xp, xq, eps=eps, method="split", confidence=CONFIDENCE)
    assert np.isnan(result["ci_high"]).all()
    assert normal_hockey_stick(3.0) == pytest.approx(0.0015, abs=1e-4)
    assert lower_coverage(result, normal_hockey_stick(eps)) >= MIN_COVERAGE
    est = estimate_hockey_stick(xp[0], xq[0], eps=eps, method="split", seed=12345)
    assert not est.has_upper_bound and est.seed == 12345
    dp, dq = discrete_samples("hs-generic", *HS_CASES["generic"][:2])
    assert estimate_hockey_stick(dp[0], dq[0], eps=0.5, method="box").has_upper_bound


# -------------------------------------------------------------------------------------------------
# Rényi


ALPHAS = np.array([2.0, 10.0, np.inf])
RENYI_CASES = {
    "generic": ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]),
    "identical_laws_zero": ([0.4, 0.35, 0.25], [0.4, 0.35, 0.25]),
    "zero_cell_in_p": ([0.6, 0.4, 0.0], [0.3, 0.3, 0.4]),  # p_y = 0 < q_y: finite
}


@pytest.mark.parametrize("case", RENYI_CASES)
def test_renyi_box_lower_and_two_sided_coverage(case):
    p, q = RENYI_CASES[case]
    xp, xq = discrete_samples(f"renyi-{case}", p, q)
    result = run(estimate_renyi, xp, xq, alpha=ALPHAS, k=len(p), confidence=CONFIDENCE)
    for j, alpha in enumerate(ALPHAS):
        truth = true_renyi(p, q, alpha)
        column = {f: v[:, j] for f, v in result.items()}
        assert lower_coverage(column, truth) >= MIN_COVERAGE, alpha
        assert two_sided_coverage(column, truth) >= MIN_COVERAGE, alpha


def test_renyi_zero_cell_in_q_is_infinite():
    """q_y = 0 < p_y: R_alpha = inf; the plug-in and ci_high say so, ci_low stays a finite lower bound."""
    p, q = [0.5, 0.3, 0.2], [0.6, 0.4, 0.0]
    assert true_renyi(p, q, 2.0) == math.inf
    xp, xq = discrete_samples("renyi-zero-q", p, q)
    est = estimate_renyi(xp[0], xq[0], alpha=ALPHAS, k=3)
    assert np.isinf(est.value).all() and np.isinf(est.ci_high).all()
    assert np.isfinite(est.ci_low).all() and (est.ci_low > 0).all()


def test_renyi_normal_histogram_lower_bound_coverage():
    xp, xq = normal_samples("renyi-normal")
    alphas = np.array([2.0, 5.0])
    result = run(estimate_renyi, xp, xq, alpha=alphas, bins=16)
    for j, alpha in enumerate(alphas):
        assert lower_coverage({"ci_low": result["ci_low"][:, j]}, normal_renyi(alpha)) >= MIN_COVERAGE


def test_renyi_normal_histogram_fixed_edges_two_sided_coverage_of_binned_law():
    edges = np.linspace(-2.0, 3.0, 11)
    p, q = binned_normal_laws(edges)
    xp, xq = normal_samples("renyi-normal")
    result = run(estimate_renyi, xp, xq, alpha=2.0, bins=edges)
    assert true_renyi(p, q, 2.0) <= normal_renyi(2.0)
    assert np.isnan(result["ci_high"]).all()
    binned = run(binned_box(estimate_renyi_from_counts, edges), xp, xq, alpha=2.0, confidence=CONFIDENCE)
    assert two_sided_coverage(binned, true_renyi(p, q, 2.0)) >= MIN_COVERAGE


@pytest.mark.parametrize("alpha", [1e3, np.inf])
def test_renyi_large_orders_are_finite_for_finite_support(alpha):
    p, q = RENYI_CASES["generic"]
    xp, xq = discrete_samples("renyi-generic", p, q)
    est = estimate_renyi(xp[0], xq[0], alpha=alpha, k=3)
    assert all(math.isfinite(v) for v in (est.value, est.ci_low, est.ci_high))
    assert est.ci_low <= true_renyi(p, q, alpha) <= est.ci_high
    if alpha == 1e3:  # close to R_inf = log 2.5, from below
        assert est.value == pytest.approx(estimate_renyi(xp[0], xq[0], alpha=np.inf, k=3).value, rel=0.01)


# -------------------------------------------------------------------------------------------------
# batches merge exactly


@pytest.mark.parametrize("method", ["split", "box", "plugin"])
def test_batched_counts_give_the_identical_hockey_stick_estimate(method):
    """Counts of batches add up: the estimate from summed batch counts equals the one-shot estimate.

    For "split" the one-shot sample is arranged as (all batches' first halves, all second halves), so its
    first half is exactly the union of the batches' selection halves.
    """
    p, q, eps = HS_CASES["generic"]
    xp, xq = discrete_samples("hs-generic", p, q)
    batches_p, batches_q = xp[0].reshape(8, -1), xq[0].reshape(8, -1)
    counts_p = sum(split_counts(b, k=3) for b in batches_p)
    counts_q = sum(split_counts(b, k=3) for b in batches_q)
    arranged_p = np.concatenate([batches_p[:, :125].ravel(), batches_p[:, 125:].ravel()])
    arranged_q = np.concatenate([batches_q[:, :125].ravel(), batches_q[:, 125:].ravel()])
    merged = estimate_hockey_stick_from_counts(counts_p, counts_q, eps=eps, method=method)
    assert merged == estimate_hockey_stick(arranged_p, arranged_q, eps=eps, k=3, method=method)
    assert merged.n == N
    if method != "split":  # order within the sample is irrelevant to the box
        assert merged == estimate_hockey_stick(xp[0], xq[0], eps=eps, k=3, method=method)


def test_batched_counts_give_the_identical_continuous_estimates():
    xp, xq = normal_samples("hs-normal")
    edges = np.linspace(-2.0, 3.0, 21)
    counts_p = sum(split_counts(b, edges=edges) for b in xp[0].reshape(4, -1))
    counts_q = sum(split_counts(b, edges=edges) for b in xq[0].reshape(4, -1))
    whole = estimate_renyi(xp[0], xq[0], alpha=[2.0, np.inf], bins=edges)
    merged = estimate_renyi_from_counts(counts_p, counts_q, alpha=[2.0, np.inf])
    assert merged == Estimate(whole.value, whole.ci_low, merged.ci_high, whole.n, "box", whole.confidence)
    assert np.isnan(whole.ci_high).all() and np.isfinite(merged.ci_high).all()  # binned law only: counts say so
    box = estimate_hockey_stick_from_counts(counts_p, counts_q, eps=0.5, method="box")
    hist = estimate_hockey_stick(xp[0], xq[0], eps=0.5, method="histogram", bins=edges)
    assert (box.value, box.ci_low, box.n) == (hist.value, hist.ci_low, hist.n)


def test_estimate_is_frozen_and_compares_arrays():
    est = estimate_renyi([0, 1, 1, 2], [0, 1, 2, 2], alpha=[2.0, 3.0])
    assert est == estimate_renyi([0, 1, 1, 2], [0, 1, 2, 2], alpha=[2.0, 3.0])
    assert isinstance(est, Estimate) and est.method == "box" and est.confidence == 0.95
    with pytest.raises(AttributeError):
        est.value = 0.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        est.value[0] = 0.0


# -------------------------------------------------------------------------------------------------
# bad input


XD = np.array([0, 1, 2, 1, 0, 2])
XC = np.array([0.1, -0.3, 1.2, 0.5])


@pytest.mark.parametrize(
    ("call", "kwargs", "error", "match"),
    [
        (estimate_hockey_stick, dict(samples_p=XC, samples_q=[0.2, np.nan, 1.0], eps=0.5), ValueError,
         "`samples_q`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=-0.1), ValueError, "`eps`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=np.nan), ValueError, "`eps`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=0.5, confidence=1.0), ValueError,
         "`confidence`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=0.5, confidence=0.0), ValueError,
         "`confidence`"),
        (estimate_hockey_stick, dict(samples_p=[], samples_q=XD, eps=0.5), ValueError, "`samples_p`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=0.5, method="median"), ValueError,
         "`method` must be one of 'box', 'split', 'plugin'"),
        (estimate_hockey_stick, dict(samples_p=XC, samples_q=XC, eps=0.5, method="box"), ValueError,
         "`method` must be one of 'split', 'histogram', 'plugin'"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=0.5, k=2), ValueError, "`samples_p`"),
        (estimate_hockey_stick, dict(samples_p=XD - 1, samples_q=XD, eps=0.5), ValueError, "`samples_p`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XC, eps=0.5), TypeError, "`samples_q`"),
        (estimate_hockey_stick, dict(samples_p=XC, samples_q=XC, eps=0.5, k=3), ValueError, "`k`"),
        (estimate_hockey_stick, dict(samples_p=XD, samples_q=XD, eps=0.5, bins=4), ValueError, "`bins`"),
        (estimate_hockey_stick, dict(samples_p=XC, samples_q=XC, eps=0.5, bins=[1.0, 0.0]), ValueError,
         "`bins`"),
        (estimate_hockey_stick, dict(samples_p=[0], samples_q=XD, eps=0.5, method="split"), ValueError,
         "`samples_p`"),
        (estimate_renyi, dict(samples_p=XD, samples_q=XD, alpha=1.0), ValueError, "`alpha`"),
        (estimate_renyi, dict(samples_p=XD, samples_q=XD, alpha=0.5), ValueError, "`alpha`"),
        (estimate_renyi, dict(samples_p=XD, samples_q=XD, alpha=2.0, method="split"), ValueError,
         "`method` must be one of 'box', 'plugin'"),
        (estimate_renyi, dict(samples_p=[0.0, np.nan], samples_q=XC, alpha=2.0), ValueError, "`samples_p`"),
        (estimate_renyi, dict(samples_p=XD, samples_q=XD, alpha=2.0, confidence=1.5), ValueError,
         "`confidence`"),
        (estimate_hockey_stick_from_counts, dict(counts_p=[[1, 2], [3, -1]], counts_q=[[1, 1], [1, 1]],
                                                 eps=0), ValueError, "`counts_p`"),
        (estimate_hockey_stick_from_counts, dict(counts_p=[[1, 2], [3, 1]], counts_q=[[1, 1, 0], [1, 1, 0]],
                                                 eps=0), ValueError, "`counts_q`"),
        (estimate_hockey_stick_from_counts, dict(counts_p=[1, 2], counts_q=[1, 1], eps=0), ValueError,
         "`counts_p`"),
        (estimate_hockey_stick_from_counts, dict(counts_p=[[1, 2], [0, 0]], counts_q=[[1, 1], [1, 1]],
                                                 eps=0), ValueError, "`counts_p`"),
        (estimate_hockey_stick_from_counts, dict(counts_p=[[1, 2], [3, 1]], counts_q=[[1, 1], [1, 1]], eps=0,
                                                 method="histogram"), ValueError, "`method`"),
        (estimate_renyi_from_counts, dict(counts_p=[1.5, 2], counts_q=[1, 1], alpha=2), ValueError,
         "`counts_p`"),
        (estimate_renyi_from_counts, dict(counts_p=[1, 2], counts_q=[1, 1], alpha=np.nan), ValueError,
         "`alpha`"),
        (split_counts, dict(samples=XC, k=3), ValueError, "`k`"),
        (split_counts, dict(samples=XD), ValueError, "`k`"),
    ],
)
def test_bad_input_raises_naming_the_parameter(call, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(**kwargs)
