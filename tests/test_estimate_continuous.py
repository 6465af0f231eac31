"""Coverage and bad input of the R^d estimators (THEORY: Notation, STD-DPI, STD-GaussHS, STD-GaussRenyi;
STD-EventBound, STD-DensityRatioMC; DESIGN §6).

Every coverage test runs R = 200 independent repetitions of n = 2000 samples per side (fixed SeedSequence) on
Gaussian pairs in d = 1 (different sigmas) and d = 2, and checks every side of the interval that the method
claims. The true value comes from the closed forms `markovdp.hockey_stick` / `markovdp.renyi` (STD-GaussHS,
STD-GaussRenyi), never from the Monte Carlo code under test. The allowance is derived from the 200
repetitions: with k covering repetitions, the one-sided 99.9% Clopper–Pearson *upper* limit of the coverage
must reach the nominal level, i.e. the data must not show (at level 0.001) that the coverage is below
nominal; an exact-level interval fails this check with probability <= 0.001 (k >= 179 of 200 at 0.95).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy import stats

import markovdp as md
from markovdp.divergences.estimate_density_ratio import (
    WeightedEstimate,
    estimate_hockey_stick_importance,
    estimate_renyi_density_ratio,
)
from markovdp.divergences.estimate_events import estimate_hockey_stick_event, estimate_renyi_histogram
from markovdp.spaces import IncompatibleSpaces

ENTROPY = 0x52645F6D63  # fixed root of every random stream in this file
R = 200  # repetitions per coverage test
N = 2000  # samples per side
CONFIDENCE = 0.95
TOL = 1e-12

PAIRS = {
    "d1": (md.Normal(0.0, 1.0), md.Normal(1.0, 1.3)),
    "d2": (md.Normal([0.0, 0.0], 1.0), md.Normal([0.6, 0.3], 1.0)),
}


def rng_for(tag: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(ENTROPY, spawn_key=(zlib.crc32(tag.encode()),)))


def covered_enough(hits) -> bool:
    """The one-sided 99.9% CP upper limit of the observed coverage k/R is >= the nominal level."""
    k, reps = int(np.sum(hits)), len(hits)
    upper = 1.0 if k == reps else float(stats.beta.isf(0.001, k + 1, reps - k))
    return upper >= CONFIDENCE


def draws(tag: str, case: str) -> tuple[np.ndarray, np.ndarray]:
    """R repetitions of N samples of P and of Q: shape (R, N) or (R, N, d)."""
    P, Q = PAIRS[case]
    rng = rng_for(f"{tag}/{case}")
    xp, xq = P.sample(R * N, rng=rng), Q.sample(R * N, rng=rng)
    return xp.reshape((R, N) + xp.shape[1:]), xq.reshape((R, N) + xq.shape[1:])


def fields(ests) -> dict[str, np.ndarray]:
    """value / ci_low / ci_high over the repetitions; checks ci_low <= value <= ci_high where claimed."""
    ests = list(ests)
    out = {f: np.array([getattr(e, f) for e in ests], dtype=float) for f in ("value", "ci_low", "ci_high")}
    assert (out["ci_low"] <= out["value"] + TOL).all()
    assert (np.isnan(out["ci_high"]) | (out["value"] <= out["ci_high"] + TOL)).all()
    return out


def densities(case: str) -> dict:
    P, Q = PAIRS[case]
    return dict(log_density_p=P.log_density, log_density_q=Q.log_density)


def test_the_coverage_check_rejects_an_invalid_lower_bound():
    """The point estimate used as a lower bound covers about half the time: the check must fail it."""
    xp, xq = draws("check", "d1")
    res = fields(estimate_importance(x, 0.5, "clt") for x in xp)
    truth = md.hockey_stick(*PAIRS["d1"], eps=0.5)
    assert not covered_enough(res["value"] <= truth)
    assert covered_enough(res["ci_low"] <= truth + TOL)


def estimate_importance(x, eps, interval):
    return estimate_hockey_stick_importance(x, eps=eps, interval=interval, **densities("d1"))


# -------------------------------------------------------------------------------------------------
# hockey-stick: events


@pytest.mark.parametrize(("case", "eps"), [("d1", 0.4), ("d2", 0.0)])
def test_lr_fixed_event_covers_on_both_sides(case, eps):
    """E = {log p − log q > eps} is optimal (P(E) − e^eps Q(E) = E_gamma): both ends and the pair are claimed."""
    xp, xq = draws(f"lr-fixed/{eps}", case)
    truth = md.hockey_stick(*PAIRS[case], eps=eps)
    res = fields(estimate_hockey_stick_event(a, b, eps=eps, **densities(case)) for a, b in zip(xp, xq, strict=True))
    low_ok, high_ok = res["ci_low"] <= truth + TOL, truth <= res["ci_high"] + TOL
    assert covered_enough(low_ok & high_ok)
    assert covered_enough(low_ok) and covered_enough(high_ok)
    # unbiased before clipping (truth > 0.1 here): the mean is within 4 standard errors of the truth
    assert abs(res["value"].mean() - truth) <= 4 * res["value"].std() / np.sqrt(R) + 1e-3


@pytest.mark.parametrize("case", ["d1", "d2"])
def test_lr_split_event_lower_bound_covers(case):
    eps = 0.3
    xp, xq = draws("lr-split", case)
    truth = md.hockey_stick(*PAIRS[case], eps=eps)
    ests = [estimate_hockey_stick_event(a, b, eps=eps, thresholds=[0.0, 0.15, 0.3, 0.45, 0.6], **densities(case))
            for a, b in zip(xp, xq, strict=True)]
    assert {e.method for e in ests} == {"lr-split"}
    res = fields(ests)
    assert np.isnan(res["ci_high"]).all()
    assert covered_enough(res["ci_low"] <= truth + TOL)
    assert res["ci_low"].mean() > 0.5 * truth  # informative


def test_lr_fixed_lower_bound_holds_for_wrong_densities():
    """Any event gives a lower bound: with the densities of another pair, ci_low still covers the truth."""
    xp, xq = draws("wrong-densities", "d1")
    truth = md.hockey_stick(*PAIRS["d1"], eps=0.2)
    wrong = dict(log_density_p=md.Normal(0.0, 1.0).log_density, log_density_q=md.Normal(2.0, 0.5).log_density)
    res = fields(estimate_hockey_stick_event(a, b, eps=0.2, **wrong) for a, b in zip(xp, xq, strict=True))
    assert covered_enough(res["ci_low"] <= truth + TOL)


@pytest.mark.parametrize("case", ["d1", "d2"])
def test_histogram_split_lower_bound_covers_and_names_the_projection(case):
    eps = 0.3
    xp, xq = draws("hist-split", case)
    truth = md.hockey_stick(*PAIRS[case], eps=eps)
    ests = [estimate_hockey_stick_event(a, b, eps=eps, bins=16) for a, b in zip(xp, xq, strict=True)]
    expected = ("histogram-split, 16 cells" if case == "d1"
                else "histogram-split, 16 cells, projected from R^2 on the difference of the first-half means")
    assert {e.method for e in ests} == {expected}
    res = fields(ests)
    assert np.isnan(res["ci_high"]).all()
    assert covered_enough(res["ci_low"] <= truth + TOL)
    assert res["ci_low"].mean() > 0.4 * truth


def test_fixed_direction_projection_is_named():
    xp, xq = draws("direction", "d2")
    est = estimate_hockey_stick_event(xp[0], xq[0], eps=0.0, direction=[1.0, 0.0], bins=[-0.5, 0.0, 0.5])
    assert est.method == "histogram-split, given edges, projected from R^2 on the given direction"
    assert 0.0 <= est.ci_low <= est.value


def test_event_estimator_eps_array_and_extreme_eps():
    xp, xq = draws("eps-array", "d2")
    eps = np.array([0.0, 0.4, 50.0])
    est = estimate_hockey_stick_event(xp[0], xq[0], eps=eps, **densities("d2"))
    assert est.value.shape == est.ci_low.shape == est.ci_high.shape == (3,)
    one = estimate_hockey_stick_event(xp[0], xq[0], eps=0.4, **densities("d2"))
    assert (est.value[1], est.ci_low[1], est.ci_high[1]) == (one.value, one.ci_low, one.ci_high)
    assert est.value[2] == 0.0 and est.ci_low[2] == 0.0 and 0.0 < est.ci_high[2] < 1e-2


# -------------------------------------------------------------------------------------------------
# hockey-stick: importance sampling


@pytest.mark.parametrize("case", ["d1", "d2"])
@pytest.mark.parametrize("interval", ["bernstein", "hoeffding", "clt"])
def test_importance_interval_covers_on_both_sides(case, interval):
    eps = 0.3
    xp, _ = draws("importance", case)
    truth = md.hockey_stick(*PAIRS[case], eps=eps)
    ests = [estimate_hockey_stick_importance(a, eps=eps, interval=interval, **densities(case)) for a in xp]
    assert {e.method for e in ests} == {f"importance-{interval}"}
    res = fields(ests)
    low_ok, high_ok = res["ci_low"] <= truth + TOL, truth <= res["ci_high"] + TOL
    assert covered_enough(low_ok) and covered_enough(high_ok) and covered_enough(low_ok & high_ok)
    # unbiased: the mean of the 200 values is within 4 standard errors of the truth
    assert abs(res["value"].mean() - truth) <= 4 * res["value"].std() / np.sqrt(R)


def test_importance_bernstein_is_narrower_than_hoeffding_for_small_variance():
    """At large eps the terms are mostly 0: the variance-adaptive bound is much tighter."""
    xp, _ = draws("bernstein-width", "d1")
    kw = dict(eps=1.0, **densities("d1"))
    b = estimate_hockey_stick_importance(xp[0], interval="bernstein", **kw)
    h = estimate_hockey_stick_importance(xp[0], interval="hoeffding", **kw)
    assert b.ci_high - b.ci_low < 0.7 * (h.ci_high - h.ci_low)


def test_importance_eps_array_and_extreme_eps():
    xp, _ = draws("importance-array", "d1")
    est = estimate_hockey_stick_importance(xp[0], eps=[[0.0, 0.3], [5.0, 50.0]], **densities("d1"))
    assert est.value.shape == est.ci_low.shape == est.ci_high.shape == (2, 2)
    one = estimate_hockey_stick_importance(xp[0], eps=0.3, **densities("d1"))
    assert (est.value[0, 1], est.ci_low[0, 1], est.ci_high[0, 1]) == (one.value, one.ci_low, one.ci_high)
    assert est.value[1, 1] == est.ci_low[1, 1] == 0.0 and 0.0 < est.ci_high[1, 1] < 0.01


def uniform_log_density(width: float):
    def log_density(x):
        x = np.asarray(x, dtype=float)
        return np.where((x >= 0) & (x <= width), -np.log(width), -np.inf)
    return log_density


def test_support_mismatch_gives_the_exact_mass_and_infinite_renyi():
    """P = U(0, 2), Q = U(0, 1): E_gamma = ∫ [1/2 − gamma 1_[0,1]]_+ = 1/2 for every eps >= 0; R_alpha = inf."""
    x = rng_for("uniform").uniform(0.0, 2.0, size=N)
    kw = dict(log_density_p=uniform_log_density(2.0), log_density_q=uniform_log_density(1.0))
    est = estimate_hockey_stick_importance(x, eps=[0.0, 3.0], **kw)
    assert (est.ci_low <= 0.5).all() and (est.ci_high >= 0.5).all()
    ren = estimate_renyi_density_ratio(x, alpha=2.0, **kw)
    assert ren.value == ren.ci_low == ren.ci_high == np.inf
    assert ren.ess >= 1


# -------------------------------------------------------------------------------------------------
# Rényi


@pytest.mark.parametrize("case", ["d1", "d2"])
def test_renyi_density_ratio_clt_covers_on_both_sides(case):
    alpha = 2.0
    xp, _ = draws("renyi-ratio", case)
    truth = md.renyi(*PAIRS[case], alpha=alpha)
    ests = [estimate_renyi_density_ratio(a, alpha=alpha, **densities(case)) for a in xp]
    assert all(isinstance(e, WeightedEstimate) and e.method == "density-ratio-clt" for e in ests)
    res = fields(ests)
    low_ok, high_ok = res["ci_low"] <= truth + TOL, truth <= res["ci_high"] + TOL
    assert covered_enough(low_ok) and covered_enough(high_ok) and covered_enough(low_ok & high_ok)


def test_renyi_density_ratio_ess_matches_the_lognormal_weights():
    """Equal sigmas, separation s = |v|/sigma: L ~ N(s²/2, s²) under P, so ESS/n -> exp(−(alpha − 1)² s²)."""
    xp, _ = draws("ess", "d2")
    s2 = 0.6**2 + 0.3**2
    for alpha in (1.5, 2.0, 3.0):
        ess = np.array([estimate_renyi_density_ratio(a, alpha=alpha, **densities("d2")).ess for a in xp[:50]])
        expected = np.exp(-((alpha - 1) ** 2) * s2)
        assert abs(ess.mean() / N - expected) < 0.05, alpha


def test_renyi_density_ratio_flags_heavy_tails_and_stays_finite_at_alpha_1e3():
    xp, _ = draws("heavy", "d2")
    est = estimate_renyi_density_ratio(xp[0], alpha=[2.0, 30.0, 1e3], **densities("d2"))
    assert np.isfinite(est.value).all() and np.isfinite(est.ci_high).all()
    assert est.ess[0] > 0.5 * N and est.ess[1] < 0.01 * N and 1.0 <= est.ess[2] < 2.0
    truth = md.renyi(*PAIRS["d2"], alpha=1e3)
    assert est.value[2] < truth  # heavy tails: the estimate is far below the truth, as the ESS warns


@pytest.mark.parametrize("case", ["d1", "d2"])
def test_renyi_histogram_lower_bound_covers(case):
    alpha = 2.0
    xp, xq = draws("renyi-hist", case)
    truth = md.renyi(*PAIRS[case], alpha=alpha)
    ests = [estimate_renyi_histogram(a, b, alpha=alpha, bins=4) for a, b in zip(xp, xq, strict=True)]
    assert {e.method.split(",")[0] for e in ests} == {"histogram"}
    assert case == "d1" or "4 cells, projected from R^2" in ests[0].method
    res = fields(ests)
    assert np.isnan(res["ci_high"]).all()
    assert covered_enough(res["ci_low"] <= truth + TOL)
    assert res["ci_low"].mean() > 0.0


def gaussian_log_ratio(case: str):
    """Closed-form L for equal sigmas: log p − log q = <x, v>/s² − |v|²/(2 s²) for P = N(0, s²), Q = N(v, s²)."""
    P, Q = PAIRS[case]
    v, s2 = np.asarray(Q.mean) - np.asarray(P.mean), P.sigma**2
    return lambda x: -(np.asarray(x) @ v) / s2 + float(v @ v) / (2 * s2)


def test_log_ratio_callable_gives_the_same_estimates_as_the_two_densities():
    xp, xq = draws("log-ratio", "d2")
    by_ratio, by_densities = dict(log_ratio=gaussian_log_ratio("d2")), densities("d2")
    for call, args, kw in [(estimate_hockey_stick_event, (xp[0], xq[0]), dict(eps=0.3)),
                           (estimate_hockey_stick_importance, (xp[0],), dict(eps=0.3)),
                           (estimate_renyi_density_ratio, (xp[0],), dict(alpha=3.0))]:
        a, b = call(*args, **kw, **by_ratio), call(*args, **kw, **by_densities)
        assert a.method == b.method
        np.testing.assert_allclose([a.value, a.ci_low, a.ci_high], [b.value, b.ci_low, b.ci_high], rtol=1e-9)


def test_histogram_cells_are_chosen_on_the_first_halves_only():
    """Changing the second halves leaves the cells (hence the first-half counts) unchanged."""
    from markovdp.divergences.estimate_events import _histogram_counts

    xp, xq = draws("cells", "d1")
    cp, cq, _ = _histogram_counts(xp[0], xq[0], 8)
    yp, yq = xp[0].copy(), xq[0].copy()
    yp[N // 2:] *= 10.0
    yq[N // 2:] += 5.0
    cp2, cq2, _ = _histogram_counts(yp, yq, 8)
    assert (cp2[0] == cp[0]).all() and (cq2[0] == cq[0]).all()
    assert cp.sum(axis=1).tolist() == [N // 2, N - N // 2]


def test_column_points_are_read_as_r1():
    xp, xq = draws("column", "d1")
    flat = estimate_hockey_stick_event(xp[0], xq[0], eps=0.2, **densities("d1"))
    column = estimate_hockey_stick_event(xp[0][:, None], xq[0][:, None], eps=0.2, **densities("d1"))
    assert flat == column


def test_weighted_estimate_equality_includes_ess():
    a = WeightedEstimate(0.1, 0.0, 0.2, 10, "density-ratio-clt", 0.95, ess=5.0)
    assert a == WeightedEstimate(0.1, 0.0, 0.2, 10, "density-ratio-clt", 0.95, ess=5.0)
    assert a != WeightedEstimate(0.1, 0.0, 0.2, 10, "density-ratio-clt", 0.95, ess=6.0)
    assert hash(a) == hash(WeightedEstimate(0.1, 0.0, 0.2, 10, "density-ratio-clt", 0.95, ess=5.0))


# -------------------------------------------------------------------------------------------------
# numerics of the vectorised one-pass kernels (issue 6 §5): against mpmath, math.fsum and numpy/scipy formulas


LOSSES = {  # L = log p − log q arrays (n = 20001) with ties at the top, ±inf and wide or narrow spreads
    "normal": rng_for("L/normal").normal(0.3, 1.0, 20001),
    "heavy": rng_for("L/heavy").standard_t(2, 20001) * 5.0,
    "narrow": rng_for("L/narrow").normal(0.0, 1e-3, 20001),
    "with -inf": np.where(rng_for("L/ninf").random(20001) < 0.2, -np.inf, rng_for("L/ninf2").normal(0.0, 2.0, 20001)),
    "with +inf": np.concatenate([rng_for("L/pinf").normal(1.0, 3.0, 20000), [np.inf]]),
}


@pytest.mark.parametrize("case", sorted(LOSSES))
def test_one_pass_sums_match_exact_sums_of_libm_terms(case):
    """Kernel sums (vectorised exp, SIMD-lane sums) vs math.fsum of terms from numpy's expm1/exp (<= 1e-13)."""
    import math

    from markovdp.divergences._estimate_kernels import hockey_stick_term_sums, weight_sums

    L = LOSSES[case]
    for eps in (0.0, 0.3, 5.0, 50.0):
        with np.errstate(invalid="ignore", over="ignore"):
            terms = np.where(L > eps, -np.expm1(eps - L), 0.0)
        s1, s2 = hockey_stick_term_sums(L, eps)
        np.testing.assert_allclose([s1, s2], [math.fsum(terms), math.fsum(terms**2)], rtol=1e-13, atol=1e-300)
    finite = L[L < np.inf]
    top = float(finite.max())
    for a in (1e-6, 1e-3, 1.0, 30.0, 999.0):
        u, w = np.exp(a * (finite - top)), np.expm1(a * (finite - top))
        np.testing.assert_allclose(weight_sums(finite, a, top),
                                   [math.fsum(u), math.fsum(u**2), math.fsum(w), math.fsum(w**2)], rtol=1e-13)


def test_density_ratio_estimates_match_their_numpy_formulas_at_extreme_orders():
    """The estimators vs their documented formulas in numpy/scipy (logsumexp, two-pass variance), 1e-12."""
    from scipy.special import logsumexp, ndtri

    n, z = 20001, ndtri(0.975)
    for case in ("normal", "heavy", "with -inf"):
        L = LOSSES[case]
        log_ratio = lambda x, L=L: L  # noqa: E731
        for eps in (0.0, 0.3, 5.0, 50.0):
            with np.errstate(invalid="ignore", over="ignore"):
                terms = np.where(L > eps, -np.expm1(eps - L), 0.0)
            m, s = terms.mean(), terms.std(ddof=1)
            half = np.sqrt(2 * s**2 * np.log(80) / n) + 7 * np.log(80) / (3 * (n - 1))
            est = estimate_hockey_stick_importance(np.zeros(n), eps=eps, log_ratio=log_ratio)
            np.testing.assert_allclose([est.value, est.ci_low, est.ci_high],
                                       [m, max(m - half, 0.0), min(m + half, 1.0)], rtol=1e-12, atol=1e-15)
        for alpha in (2.0, 30.0, 1e3):
            a = alpha - 1.0
            log_mean = logsumexp(a * L) - np.log(n)
            w = np.exp(a * L - logsumexp(a * L))  # weights over their sum
            sd_over_mean = np.sqrt(n / (n - 1) * (n * np.sum(w**2) - 1.0))  # sd of the weights / their mean
            low_arg, high_arg = 1.0 - z * sd_over_mean / np.sqrt(n), 1.0 + z * sd_over_mean / np.sqrt(n)
            est = estimate_renyi_density_ratio(np.zeros(n), alpha=alpha, log_ratio=log_ratio)
            expected = [max(log_mean / a, 0.0), max((log_mean + np.log(low_arg)) / a, 0.0) if low_arg > 0 else 0.0,
                        max((log_mean + np.log(high_arg)) / a, 0.0)]
            np.testing.assert_allclose([est.value, est.ci_low, est.ci_high], expected, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(est.ess, 1.0 / np.sum(w**2), rtol=1e-12)


def test_finiteness_check_finds_every_position_and_layout():
    """The one-pass check of float64 samples (and the fallback for other layouts) gives `_points`' answers."""
    from markovdp.divergences._estimate_kernels import all_finite

    x = rng_for("finite").normal(size=1001)
    assert all_finite(x)
    for bad in (np.nan, np.inf, -np.inf):
        for i in (0, 500, 1000):
            y = x.copy()
            y[i] = bad
            assert not all_finite(y)
            for samples in (y, y.reshape(-1, 1), np.asfortranarray(np.stack([y, y], axis=1)), y[::2]):
                with pytest.raises(ValueError, match="`samples_p`"):
                    estimate_hockey_stick_importance(samples, eps=0.1, log_ratio=lambda s: np.zeros(s.shape[0]))
    xp, _ = draws("layout", "d2")
    strided, kw = xp[0][::2], densities("d2")
    for call, arg in ((estimate_hockey_stick_importance, dict(eps=0.3)),
                      (estimate_renyi_density_ratio, dict(alpha=2.0))):
        assert call(strided, **arg, **kw) == call(np.ascontiguousarray(strided), **arg, **kw)
        assert call(np.asfortranarray(xp[0]), **arg, **kw) == call(xp[0], **arg, **kw)


def test_a_nan_log_ratio_is_found_by_the_estimators_own_pass():
    """NaN anywhere in a `log_ratio` result raises naming it, for scalar and array eps / alpha."""
    x = rng_for("nan-ratio").normal(size=101)
    for i in (0, 50, 100):
        def log_ratio(s, i=i):
            out = np.zeros(s.shape[0])
            out[i] = np.nan
            return out
        for call, arg in ((estimate_hockey_stick_importance, dict(eps=0.1)),
                          (estimate_hockey_stick_importance, dict(eps=[50.0, 0.0])),
                          (estimate_renyi_density_ratio, dict(alpha=2.0)),
                          (estimate_renyi_density_ratio, dict(alpha=[2.0, 1e3]))):
            with pytest.raises(ValueError, match="`log_ratio`"):
                call(x, log_ratio=log_ratio, **arg)


# -------------------------------------------------------------------------------------------------
# bad input


X1 = np.array([0.1, -0.3, 1.2, 0.5])
X2 = np.array([[0.1, 0.2], [-0.3, 0.4], [1.2, 0.0], [0.5, 0.5]])
LP, LQ = md.Normal(0.0, 1.0).log_density, md.Normal(1.0, 1.0).log_density
DENS = dict(log_density_p=LP, log_density_q=LQ)


@pytest.mark.parametrize(
    ("call", "kwargs", "error", "match"),
    [
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=-0.1), ValueError, "`eps`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=np.nan), ValueError, "`eps`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=[0.1, np.nan], eps=0.1), ValueError,
         "`samples_q`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, confidence=1.0), ValueError,
         "`confidence`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, confidence=0.0), ValueError,
         "`confidence`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X2, eps=0.1), IncompatibleSpaces,
         "R\\^2.*R\\^1"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_density_p=LP), ValueError,
         "`log_density_q`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_ratio=LP, **DENS), ValueError,
         "`log_ratio`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_ratio=lambda x: x * np.nan),
         ValueError, "`log_ratio`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, bins=2), ValueError, "`bins`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, bins=4.5), TypeError, "`bins`"),
        (estimate_hockey_stick_importance, dict(samples_p=X1, eps=0.1), ValueError, "`log_density_p`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_density_p=1.0,
                                           log_density_q=LQ), TypeError, "`log_density_p`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_density_p=lambda x: x[:2],
                                           log_density_q=LQ), ValueError, "`log_density_p`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_density_p=lambda x: x * np.nan,
                                           log_density_q=LQ), ValueError, "`log_density_p`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, thresholds=[0.0]), ValueError,
         "`thresholds`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, bins=4, **DENS), ValueError,
         "`bins`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, thresholds=[], **DENS),
         ValueError, "`thresholds`"),
        (estimate_hockey_stick_event, dict(samples_p=X2, samples_q=X2, eps=0.1, direction=[1.0, 0.0, 0.0]),
         ValueError, "`direction`"),
        (estimate_hockey_stick_event, dict(samples_p=X2, samples_q=X2, eps=0.1, direction=[0.0, 0.0]),
         ValueError, "`direction`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, direction=[1.0]), ValueError,
         "`direction`"),
        (estimate_hockey_stick_event, dict(samples_p=X2[:1], samples_q=X2, eps=0.1), ValueError, "`samples_p`"),
        (estimate_hockey_stick_event, dict(samples_p=[], samples_q=X1, eps=0.1), ValueError, "`samples_p`"),
        (estimate_hockey_stick_importance, dict(samples_p=X1, eps=-1.0, **DENS), ValueError, "`eps`"),
        (estimate_hockey_stick_importance, dict(samples_p=X1, eps=0.1, interval="wald", **DENS), ValueError,
         "`interval`"),
        (estimate_hockey_stick_importance, dict(samples_p=X1, eps=0.1, confidence=2.0, **DENS), ValueError,
         "`confidence`"),
        (estimate_hockey_stick_importance, dict(samples_p=[np.nan, 1.0], eps=0.1, **DENS), ValueError,
         "`samples_p`"),
        (estimate_hockey_stick_importance, dict(samples_p=[1.0], eps=0.1, **DENS), ValueError, "`samples_p`"),
        (estimate_hockey_stick_importance, dict(samples_p=X2, eps=0.1, **DENS), ValueError, "`x`"),
        (estimate_renyi_density_ratio, dict(samples_p=X1, alpha=1.0, **DENS), ValueError, "`alpha`"),
        (estimate_renyi_density_ratio, dict(samples_p=X1, alpha=2.0, log_density_p=lambda x: np.full(x.shape, -np.inf),
                                            log_density_q=LQ), ValueError, "`log_density_p`"),
        (estimate_hockey_stick_event, dict(samples_p=X1, samples_q=X1, eps=0.1, log_density_p=lambda x: -np.inf * x**0,
                                           log_density_q=lambda x: -np.inf * x**0), ValueError, "`samples_p`"),
        (estimate_renyi_density_ratio, dict(samples_p=X1, alpha=0.5, **DENS), ValueError, "`alpha`"),
        (estimate_renyi_density_ratio, dict(samples_p=X1, alpha=np.inf, **DENS), ValueError, "`alpha`"),
        (estimate_renyi_density_ratio, dict(samples_p=X1, alpha=2.0, confidence=-0.1, **DENS), ValueError,
         "`confidence`"),
        (estimate_renyi_histogram, dict(samples_p=X1, samples_q=X1, alpha=1.0), ValueError, "`alpha`"),
        (estimate_renyi_histogram, dict(samples_p=X2, samples_q=X1, alpha=2.0), IncompatibleSpaces,
         "R\\^1.*R\\^2"),
        (estimate_renyi_histogram, dict(samples_p=X1, samples_q=[np.nan, 0.0], alpha=2.0), ValueError,
         "`samples_q`"),
        (estimate_renyi_histogram, dict(samples_p=X1, samples_q=X1, alpha=2.0, confidence=1.0), ValueError,
         "`confidence`"),
    ],
)
def test_bad_input_raises_naming_the_parameter(call, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(**kwargs)


def test_incompatible_spaces_message_names_both_sizes():
    with pytest.raises(IncompatibleSpaces, match="`samples_q` are points of R\\^2; `samples_p` are points of R\\^1"):
        estimate_hockey_stick_event(X1, X2, eps=0.1)


@pytest.mark.parametrize("alpha", [1.0 + 1e-6, 1.0 + 1e-3, 1.5])
def test_density_ratio_near_alpha_one_matches_the_formula_in_50_digits(alpha):
    """Near alpha = 1 every weight e^{(alpha − 1) L} is close to 1: the estimate and both ends of its interval vs
    the documented formula in mpmath at 50 digits (mean and sample variance of the weights, log of mean ± half),
    to 1e-9 relative — sums of u rather than of u − 1 lost up to 1e-3 here."""
    import mpmath
    from scipy.special import ndtri

    L = LOSSES["normal"][:4001]
    n, a = L.size, alpha - 1.0
    with mpmath.workdps(50):
        u = [mpmath.exp(mpmath.mpf(a) * mpmath.mpf(float(v))) for v in L]
        mean = mpmath.fsum(u) / n
        var = mpmath.fsum((x - mean) ** 2 for x in u) / (n - 1)
        half = mpmath.mpf(float(ndtri(0.975))) * mpmath.sqrt(var / n)
        expected = [float(mpmath.log(m) / a) for m in (mean, mean - half, mean + half)]
    est = estimate_renyi_density_ratio(np.zeros(n), alpha=alpha, log_ratio=lambda x: L)
    np.testing.assert_allclose([est.value, est.ci_low, est.ci_high], np.maximum(expected, 0.0), rtol=1e-9)
