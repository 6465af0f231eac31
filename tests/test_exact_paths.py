"""The exact paths made fast (issue 13 §6) return the values they returned before, bit for bit.

Each fast path is held against the previous computation written out here in plain Python/numpy/scipy (never the
code under test): the one-pass finite hockey-stick sum with per-pair logs and bisection (`previous_one_pass`), the
numpy form of STD-GaussHS with scipy's erfcx (the compiled pass has its own), the divergence registry behind a
Gaussian shift pair, and the matrix product Rényi formula per pair. Random inputs, fixed seeds; equality is exact
(a 1e-15 relative tolerance would pass the same cases). Accuracy against mpmath is tested in test_speed_paths.py,
test_divergences.py and test_gaussian_erfcx.py. THEORY: Notation (E_gamma, D_inf, R_alpha), STD-GaussHS,
STD-GaussRenyi. No timing assertions.
"""

from __future__ import annotations

import bisect
import math

import numpy as np
import pytest
from scipy import special

import markovdp as md
from markovdp._profiles import invert_profile
from markovdp.distributions import Normal
from markovdp.divergences.exact import gaussian, hockey_stick
from markovdp.divergences.exact.finite import (
    _EXP_SAFE,
    _GRAM_MIN_LOG_SUM,
    _KEEP_RATIO,
    _NORMAL_PRODUCT,
    _SAFE_GAP,
    hockey_stick_finite_pairs,
    hockey_stick_finite_worst,
    renyi_finite_pairs,
    renyi_finite_rows,
    renyi_finite_worst,
)
from markovdp.mechanisms.base import AllPairs, neighbour_pairs
from markovdp.pairs import RowPairs
from markovdp.pairs_gaussian import GaussianBallPair

SEEDS = range(6)


# ------------------------------------------------------------------------------- finite one-pass profile


def previous_one_pass(P, Q, index, eps):
    """The one-pass sum as computed before (issue 5 §4), in plain Python: L = log p − log q per pair, buckets by
    bisection over the sorted cuts eps and eps + 0.7, A − e^eps B from suffix sums, the near terms one by one
    where more than two bits cancel."""
    finite = [e for e in eps if e < math.inf]
    cuts = sorted(finite + [e + _SAFE_GAP for e in finite])

    def gamma_times(e, b):
        if b == 0.0:
            return 0.0
        if e <= _EXP_SAFE:
            return math.exp(e) * b
        half = math.exp(min(e, 1400.0) / 2.0)
        return half * (half * b)

    out = np.empty((len(eps), len(index)))
    for r, (i, k) in enumerate(index):
        mass_p, mass_q = [0.0] * (len(cuts) + 2), [0.0] * (len(cuts) + 2)
        bucket, ratio, dinf = {}, {}, 0.0
        for y in range(P.shape[1]):
            p, q = float(P[i, y]), float(Q[k, y])
            if p == 0.0:
                continue
            if q == 0.0:
                ratio[y], bucket[y] = math.inf, len(cuts)
                dinf += p
            else:
                ratio[y] = math.log(p) - math.log(q)
                bucket[y] = bisect.bisect_left(cuts, ratio[y])  # the cuts < L
            mass_p[bucket[y]] += p
            mass_q[bucket[y]] += q
        for b in range(len(cuts) - 1, -1, -1):
            mass_p[b] += mass_p[b + 1]
            mass_q[b] += mass_q[b + 1]
        for j, e in enumerate(eps):
            if e == math.inf:
                out[j, r] = dinf
                continue
            lo, hi = bisect.bisect_right(cuts, e), bisect.bisect_right(cuts, e + _SAFE_GAP)  # the cuts <= x
            a = mass_p[lo]
            value = a - gamma_times(e, mass_q[lo])
            if a > _KEEP_RATIO * value:
                value = mass_p[hi] - gamma_times(e, mass_q[hi])
                for y in sorted(bucket, key=lambda y: (bucket[y], y)):  # by bucket, then by outcome
                    if lo <= bucket[y] < hi:
                        value -= float(P[i, y]) * math.expm1(e - ratio[y])
            out[j, r] = max(value, 0.0) + 0.0
    return out


def random_rows(rng, k, m, zeros, power):
    matrix = rng.random((k, m)) ** power
    matrix[rng.random((k, m)) < zeros] = 0.0
    matrix[:, 0] += 1e-3
    return matrix / matrix.sum(axis=1, keepdims=True)


def eps_grids(rng):
    return {
        "ascending": np.linspace(0.0, 5.0, 40),
        "log grid": np.logspace(-4.0, 1.5, 30),  # cuts crowd into the first cells of the lookup table
        "unsorted": rng.permutation(np.concatenate([rng.random(15) * 4.0, [0.0, 0.0, 2.5, 2.5]])),
        "edges": np.array([0.0, 1e-300, 0.7, 1.4, 709.5, 745.0, 800.0, 1e4, math.inf]),
        "one": np.array([0.3]),
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_finite_one_pass_is_the_previous_sum(seed):
    """Row logs taken once, cuts merged, buckets from the cell table: the previous values, bit for bit."""
    rng = np.random.default_rng(seed)
    k, m = (2, 600) if seed % 2 else (4, 150)  # enough terms per pair for the lookup table to be built
    matrix = random_rows(rng, k, m, zeros=0.1 * (seed % 3), power=1.0 + 2.0 * seed)
    index = neighbour_pairs(AllPairs(), k)
    for name, eps in eps_grids(rng).items():
        expected = previous_one_pass(matrix, matrix, index, eps)
        np.testing.assert_array_equal(hockey_stick_finite_pairs(matrix, index, eps), expected, err_msg=name)
        np.testing.assert_array_equal(hockey_stick_finite_worst(matrix, index, eps),
                                      np.minimum(expected.max(axis=1), 1.0), err_msg=name)


def test_finite_one_pass_near_identical_rows_and_ties():
    """Log-ratios at and near the cuts (the cancelling regime) and equal eps: the previous values."""
    rng = np.random.default_rng(7)
    p = rng.random(400)
    q = p * np.exp(rng.choice([-1.0, 1.0], 400) * rng.choice([0.0, 0.05, 0.7, 1e-9], 400))
    matrix = np.stack([p / p.sum(), q / q.sum()])
    index = np.array([[0, 1], [1, 0]])
    eps = np.array([0.0, 0.05, 0.05, 0.7, 0.75, 1.4])
    np.testing.assert_array_equal(hockey_stick_finite_pairs(matrix, index, eps),
                                  previous_one_pass(matrix, matrix, index, eps))


@pytest.mark.parametrize("seed", SEEDS)
def test_privacy_profile_of_finite_mechanisms_is_the_previous_sum(seed):
    """The public call, all pairs and listed pairs, built from a plain or a read-only array."""
    rng = np.random.default_rng(100 + seed)
    matrix = random_rows(rng, 3, 80, zeros=0.2, power=2.0)
    eps = np.linspace(0.0, 3.0, 25)
    for neighbours, index in ((None, neighbour_pairs(AllPairs(), 3)), ([(0, 2)], np.array([[0, 2], [2, 0]]))):
        expected = np.minimum(previous_one_pass(matrix, matrix, index, eps).max(axis=1), 1.0)
        frozen = matrix.copy()
        frozen.setflags(write=False)
        for given in (matrix, frozen):
            mech = md.FiniteMechanism(given, neighbours=neighbours)
            np.testing.assert_array_equal(md.privacy_profile(mech, eps), expected)


def test_mechanism_rows_do_not_follow_the_callers_array():
    """The set-up keeps validated read-only arrays without copying; a writable one is still copied."""
    matrix = np.array([[0.5, 0.5], [0.2, 0.8]])
    mech = md.FiniteMechanism(matrix)
    before = md.privacy_profile(mech, np.array([0.0, 0.5]))
    matrix[:] = [[0.9, 0.1], [0.1, 0.9]]
    np.testing.assert_array_equal(md.privacy_profile(mech, np.array([0.0, 0.5])), before)
    assert not mech.matrix.flags.writeable
    assert mech.dominating_pairs().matrix is mech.matrix  # no second copy
    writable = np.array([[0.5, 0.5], [0.2, 0.8]])
    pairs = RowPairs(writable, np.array([[0, 1]]))
    assert pairs.matrix is not writable and not pairs.matrix.flags.writeable
    index = neighbour_pairs(AllPairs(), 4)
    assert neighbour_pairs(AllPairs(), 4) is index and not index.flags.writeable
    with pytest.raises(ValueError):
        index[0, 0] = 3


# ----------------------------------------------------------------------------------------- Gaussian


def numpy_form(ratio, eps):
    """STD-GaussHS by the numpy form that ran before the compiled pass (D/s >= 0.1), written out: scipy's erfcx
    ufunc, numpy's exp, the two branches of `gauss_hockey_stick`'s docstring."""
    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    finite = np.isfinite(eps)
    e = eps[finite]
    with np.errstate(over="ignore", invalid="ignore"):  # eps/ratio past 1.8e308
        shift = e / ratio
        a = ratio / 2.0 - shift
        erfcx_b = special.erfcx((ratio / 2.0 + shift) * math.sqrt(0.5))
        w = 0.5 * np.exp(-0.5 * np.square(a))
        erfcx_a = special.erfcx(np.abs(a) * math.sqrt(0.5))
        values = np.where(a < 0.0, w * (erfcx_a - erfcx_b), (1.0 - w * erfcx_a) - w * erfcx_b)
    values = np.where(np.isinf(shift), 0.0, values)
    values = np.where(e == 0.0, special.erf(ratio / (2.0 * math.sqrt(2.0))), values)
    out[finite] = np.clip(values, 0.0, 1.0)
    return out + 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_gaussian_profile_is_the_numpy_form(seed):
    rng = np.random.default_rng(200 + seed)
    for trial in range(60):
        ratio = float(np.exp(rng.uniform(math.log(0.1), math.log(1e5)))) if trial else 0.1
        n = int(rng.integers(1, 400))
        eps = {0: rng.uniform(0.0, 20.0, n), 1: np.exp(rng.uniform(-30.0, 40.0, n)),
               2: ratio**2 / 2 + rng.normal(0.0, 1e-3, n).clip(-ratio**2 / 2, None),  # a near 0
               3: np.concatenate([rng.uniform(0.0, 3.0, n), [0.0, math.inf, 1e300, 5e-324, 1.7e308, -0.0]])}[trial % 4]
        values = gaussian.gauss_hockey_stick(ratio, eps)
        np.testing.assert_array_equal(values, numpy_form(ratio, eps), err_msg=f"ratio {ratio!r}")
        assert not np.signbit(values).any()
        assert gaussian.compiled_ratio(ratio) and not np.isnan(values).any()  # the shift pair skips its NaN scan
    unchecked = np.array([-1.0, -1e-3, math.nan, 2.0])  # not valid eps, but the same values as the numpy form
    np.testing.assert_array_equal(gaussian.gauss_hockey_stick(2.0, unchecked), numpy_form(2.0, unchecked))
    grid = np.linspace(0.0, 10.0, 1000).reshape(10, 100)  # any shape, a read-only array
    grid.setflags(write=False)
    np.testing.assert_array_equal(gaussian.gauss_hockey_stick(1.0, grid), numpy_form(1.0, grid))


def test_gaussian_numpy_form_is_scipys_closed_form():
    """The reference above is the textbook Phi(a) − e^eps Phi(b) where that does not cancel (independent)."""
    for ratio in (0.1, 1.0, 10.0):
        eps = np.linspace(0.0, 0.5 * ratio**2, 50)  # a >= 0: Phi(a) >= 1/2, no cancellation of note
        textbook = special.ndtr(ratio / 2 - eps / ratio) - np.exp(eps) * special.ndtr(-ratio / 2 - eps / ratio)
        np.testing.assert_allclose(gaussian.gauss_hockey_stick(ratio, eps), textbook, rtol=1e-13, atol=0)


@pytest.mark.parametrize(("sigma", "sensitivity", "dim"), [(1.0, 1.0, 1), (0.3, 2.0, 1), (7.0, 0.5, 3),
                                                           (1e-3, 1.0, 1), (40.0, 1.0, 2)])
def test_gaussian_shift_pair_reads_the_registry_rule(sigma, sensitivity, dim):
    """The shift pair's direct STD-GaussHS equals the divergence registry on its two Normals (the path before)."""
    mech = md.GaussianMechanism(sigma, sensitivity=sensitivity, dim=dim)
    noise, shifted = mech.dominating_pairs()[0]
    assert mech.dominating_pairs() is mech.dominating_pairs()  # built once
    eps = np.concatenate([np.linspace(0.0, 10.0, 200), [1e-9, 700.0, math.inf]])
    np.testing.assert_array_equal(md.privacy_profile(mech, eps), hockey_stick(noise, shifted, eps=eps))
    for pipeline in (mech >> md.GaussianKernel(2.0 * sigma, dim),):
        mu, nu = pipeline.dominating_pairs()[0]
        np.testing.assert_array_equal(md.privacy_profile(pipeline, eps), hockey_stick(mu, nu, eps=eps))


@pytest.mark.parametrize(("sigma", "delta"), [(0.5, 1e-5), (1.0, 1e-10), (5.0, 1e-5), (2.0, 0.3), (1.0, 0.0)])
def test_gaussian_epsilon_is_the_previous_search(sigma, delta):
    """privacy_epsilon of a Gaussian: the same search over the registry's profile as before, bit for bit, never
    below dp_accounting's analytic Gaussian (Balle–Wang, independent) beyond its own 1e-12 search tolerance."""
    mech = md.GaussianMechanism(sigma)
    noise, shifted = mech.dominating_pairs()[0]
    expected = invert_profile(lambda e: float(hockey_stick(noise, shifted, eps=np.array([e]))[0]), delta)
    eps = md.privacy_epsilon(mech, delta)
    assert eps == expected if delta > 0 else eps == math.inf
    if 0 < delta:
        assert md.privacy_profile(mech, eps) <= delta
        dp_accounting = pytest.importorskip("dp_accounting")
        assert eps >= dp_accounting.get_epsilon_gaussian(sigma, delta) - 1e-11


def test_laplace_and_unequal_normal_shift_pairs_use_the_registry():
    eps = np.linspace(0.0, 3.0, 30)
    mech = md.LaplaceMechanism(1.3)
    noise, shifted = mech.dominating_pairs()[0]
    np.testing.assert_array_equal(md.privacy_profile(mech, eps), hockey_stick(noise, shifted, eps=eps))
    assert gaussian.normal_ratio(Normal(0.0, 1.0), Normal(1.0, 2.0)) is None
    assert gaussian.normal_ratio(Normal(0.0, 1.0), Normal([1.0, 0.0], 1.0)) is None
    assert gaussian.normal_ratio(Normal(0.0, 2.0), Normal(-3.0, 2.0)) == 1.5


# --------------------------------------------------------------------------------------- Rényi, all pairs


def previous_renyi(matrix, index, alpha):
    """max over the pairs of R_alpha by the matrix product formula per pair, written out (renyi_finite_pairs
    before it shared its products): shifts, one product, log-sum, row by row where it is small or the product
    nears underflow, inf where the support of the first row is not inside the second's."""
    out = []
    i, j = index[:, 0], index[:, 1]
    support = matrix > 0
    singular = (support[i] & ~support[j]).any(axis=1)
    with np.errstate(divide="ignore"):
        logs = np.log(matrix)
    for a in alpha:
        if math.isinf(a):
            values = renyi_finite_rows(matrix[i], matrix[j], np.array([a]))[0]
        else:
            left = a * logs
            right = np.where(support, (1.0 - a) * logs, -np.inf)
            shift_l, shift_r = left.max(axis=1), right.max(axis=1)
            s = (np.exp(left - shift_l[:, None]) @ np.exp(right - shift_r[:, None]).T)[i, j]
            with np.errstate(divide="ignore"):
                log_sum = np.log(s) + shift_l[i] + shift_r[j]
            values = log_sum / (a - 1.0)
            rows = ~singular & ((s < _NORMAL_PRODUCT) | (log_sum < _GRAM_MIN_LOG_SUM))
            values[rows] = renyi_finite_rows(matrix[i[rows]], matrix[j[rows]], np.array([a]))[0]
        values[singular] = math.inf
        out.append(values)
    return np.array(out)


ALPHAS = np.array([1.001, 1.5, 2.0, 8.0, 32.0, math.inf])


@pytest.mark.parametrize("seed", SEEDS)
def test_renyi_of_all_pairs_is_the_previous_product(seed):
    rng = np.random.default_rng(300 + seed)
    k = (3, 12, 40, 60, 25, 8)[seed]
    if seed == 4:  # zeros on the same outcomes in every row: supports nested, no pair singular
        matrix = random_rows(rng, k, k, zeros=0.0, power=2.0)
        matrix[:, -3:] = 0.0
        matrix /= matrix.sum(axis=1, keepdims=True)
    elif seed == 5:  # near-identical rows: log-sums below 1e-3, summed row by row
        base = rng.random(30)
        matrix = base * (1.0 + 1e-3 * rng.standard_normal((k, 30)))
        matrix /= matrix.sum(axis=1, keepdims=True)
    else:
        matrix = random_rows(rng, k, k + 5, zeros=0.0, power=1.0 + seed)
    index = neighbour_pairs(AllPairs(), k)
    expected = previous_renyi(matrix, index, ALPHAS)
    np.testing.assert_array_equal(renyi_finite_pairs(matrix, index, ALPHAS), expected)
    np.testing.assert_array_equal(renyi_finite_worst(matrix, index, ALPHAS), expected.max(axis=1))
    np.testing.assert_array_equal(renyi_finite_worst(matrix, index, ALPHAS, all_pairs=True), expected.max(axis=1))
    profile = md.renyi_profile(md.FiniteMechanism(matrix), ALPHAS)
    np.testing.assert_array_equal(profile[:-1], expected.max(axis=1)[:-1])
    # R_inf is the pure-DP eps, rounded upward from the exact ratio (`_profiles.pure_epsilon`, checked against
    # mpmath in test_pure_epsilon.py); the float difference of logs above is accurate only to ~ulp(max |log p|)
    slack = 4 * math.ulp(profile[-1]) + 8 * 2.0**-52 * float(np.abs(np.log(matrix[matrix > 0])).max())
    assert abs(profile[-1] - expected.max(axis=1)[-1]) <= slack


def test_renyi_listed_pairs_and_singular_pairs_are_the_previous_product():
    rng = np.random.default_rng(11)
    matrix = random_rows(rng, 10, 14, zeros=0.25, power=2.0)
    listed = np.array([[0, 3], [3, 0], [2, 5], [5, 2], [1, 3], [3, 1], [7, 8], [8, 7]] + [[u, v] for u in range(6)
                                                                                        for v in range(6) if u != v])
    listed = np.unique(listed, axis=0)
    expected = previous_renyi(matrix, listed, ALPHAS)
    assert np.isinf(expected).any() and np.isfinite(expected).any()
    np.testing.assert_array_equal(renyi_finite_pairs(matrix, listed, ALPHAS), expected)
    np.testing.assert_array_equal(renyi_finite_worst(matrix, listed, ALPHAS), expected.max(axis=1))
    nested = matrix.copy()
    nested[nested == 0] = 1e-3  # every support full: no singular pair, the maximum finite
    nested /= nested.sum(axis=1, keepdims=True)
    expected = previous_renyi(nested, listed, ALPHAS)
    np.testing.assert_array_equal(renyi_finite_worst(nested, listed, ALPHAS), expected.max(axis=1))


# ------------------------------------------------------------------------------------ the profile's set-up


def test_rules_left_unclipped_return_probabilities():
    """`pairs_profile` skips the clip for the rules of `_PROBABILITY_RULES`: their values are in [0, 1] and never
    −0.0 as they stand (checked against np.clip and the sign bit), at edge eps included; the other rules are
    clipped."""
    from markovdp.guarantees import pair_maxima

    rng = np.random.default_rng(17)
    eps = np.concatenate([np.linspace(0.0, 12.0, 300), [1e-300, 5e-324, 700.0, 745.0, 1e300, math.inf]])
    mechanisms = [md.FiniteMechanism(random_rows(rng, k, m, zeros=0.2, power=3.0)) for k, m in ((2, 7), (5, 40))]
    mechanisms += [md.FiniteMechanism(random_rows(rng, 3, 9, zeros=0.0, power=1.0), neighbours=[(0, 2)])]
    mechanisms += [md.GaussianMechanism(s, dim=d) for s, d in ((1e-3, 1), (0.3, 1), (1.0, 2), (25.0, 1), (1e4, 1))]
    mechanisms += [md.RandomizedResponse(k, e) for k, e in ((2, 0.5), (5, 3.0), (40, 1e-6))]
    mechanisms += [md.GaussianMechanism(1.0) >> md.GaussianKernel(2.0, 1), md.LaplaceMechanism(0.8)]
    pair_sets = [mech.dominating_pairs() for mech in mechanisms]
    pair_sets += [GaussianBallPair(np.diag([s, 2.0]), np.eye(2), 1.0) for s in (1e-8, 0.5, 1e6)]
    seen = set()
    for pairs in pair_sets:
        rule = pair_maxima.HOCKEY_STICK.lookup(type(pairs))
        values = rule(pairs, eps.copy())
        if rule in pair_maxima._PROBABILITY_RULES:
            seen.add(rule)
            np.testing.assert_array_equal(values, np.clip(values, 0.0, 1.0), err_msg=repr(pairs))
            assert not np.signbit(values).any(), repr(pairs)
        np.testing.assert_array_equal(pair_maxima.pairs_profile(pairs, eps.copy()), np.clip(values, 0.0, 1.0))
    assert seen == pair_maxima._PROBABILITY_RULES
    big = md.FiniteMechanism(random_rows(rng, 40, 100, zeros=0.3, power=3.0)).dominating_pairs()  # by dobrushin
    few = np.array([0.0, 0.5, math.inf])
    assert len(big) * 100 > pair_maxima._ONE_PASS_WORK_PER_EPS * few.size
    values = pair_maxima._rows_hockey_stick(big, few)
    np.testing.assert_array_equal(values, np.clip(values, 0.0, 1.0))
    assert not np.signbit(values).any()


def test_profile_fast_call_is_the_checked_call():
    """A 1-D float64 eps (alpha) array, checked in one pass, gives what a list, a strided view and a 2-D array give;
    the caller's array is not modified; NaN and out-of-range values are refused as before."""
    eps = np.array([0.0, 0.3, 1.0, 2.5, math.inf, 7.0])
    for mech in (md.GaussianMechanism(0.7), md.FiniteMechanism(np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])),
                 md.RandomizedResponse(3, 1.2)):
        fast = md.privacy_profile(mech, eps)
        assert fast.dtype == np.float64 and fast.shape == eps.shape
        np.testing.assert_array_equal(fast, md.privacy_profile(mech, eps.tolist()))
        np.testing.assert_array_equal(fast[::2], md.privacy_profile(mech, eps[::2]))
        np.testing.assert_array_equal(fast, md.privacy_profile(mech, eps.reshape(2, 3)).ravel())
        np.testing.assert_array_equal(fast, [md.privacy_profile(mech, float(e)) for e in eps])
        np.testing.assert_array_equal(eps, [0.0, 0.3, 1.0, 2.5, math.inf, 7.0])
        for bad in (np.array([0.1, math.nan]), np.array([0.1, -1e-300]), np.array([-math.inf])):
            with pytest.raises(ValueError, match="`eps` must be"):
                md.privacy_profile(mech, bad)
        assert md.privacy_profile(mech, np.array([])).shape == (0,)
        alpha = np.array([1.5, 2.0, math.inf, 1.0 + 1e-9, 40.0])
        fast = md.renyi_profile(mech, alpha)
        np.testing.assert_array_equal(fast, md.renyi_profile(mech, alpha.tolist()))
        np.testing.assert_array_equal(fast, [md.renyi_profile(mech, float(a)) for a in alpha])
        np.testing.assert_array_equal(fast[::2], md.renyi_profile(mech, alpha[::2]))
        for bad in (np.array([2.0, math.nan]), np.array([2.0, 1.0]), np.array([0.5])):
            with pytest.raises(ValueError, match="`alpha` must be"):
                md.renyi_profile(mech, bad)


# ------------------------------------------------------------------------------ Rényi: the candidates for the max


@pytest.mark.parametrize("seed", SEEDS)
def test_renyi_candidates_hold_every_entry_that_attains_the_max(seed):
    """`_renyi_candidates` keeps every listed entry whose exact log-sum (numpy, over all entries) equals the max,
    and leaves out only entries below it; where it answers, `renyi_finite_worst` is the full computation's max."""
    from markovdp.divergences.exact import _finite_kernels

    rng = np.random.default_rng(400 + seed)
    for trial in range(40):
        k_l, k_r = int(rng.integers(2, 30)), int(rng.integers(2, 30))
        s = rng.random((k_l, k_r)) ** rng.uniform(1.0, 30.0) + 1e-200
        if trial % 3 == 0:  # ties: equal entries and equal shifts
            s[:, : k_r // 2] = s[0, 0]
        shift_l = rng.choice([0.0, 1.0, -7.5], k_l) * rng.uniform(0.0, 300.0)
        shift_r = rng.normal(0.0, 1.0, k_r) * rng.choice([1e-3, 1.0, 50.0])
        listed = rng.random((k_l, k_r)) < rng.uniform(0.2, 1.0)
        listed[0, 0] = True
        u, v, terms = _finite_kernels._renyi_candidates(s, shift_l, shift_r, listed, -math.inf, 0.0, 1e3)
        log_sum = np.log(s) + shift_l[:, None] + shift_r[None, :]
        log_sum[~listed] = -np.inf
        best = log_sum.max()
        assert u.size, "the bound decided nothing"
        assert listed[u, v].all()
        kept = np.zeros(listed.shape, dtype=bool)
        kept[u, v] = True
        assert kept[log_sum == best].all() and (log_sum[listed & ~kept] < best).all()
        np.testing.assert_array_equal(terms, [s[u, v], shift_l[u], shift_r[v]])
        assert (np.log(terms[0]) + terms[1] + terms[2]).max() == best


def test_renyi_candidates_refuse_what_they_cannot_bound():
    """Empty (the caller sums every entry) for a listed product near underflow, a max below the floor, and right
    shifts 600 apart."""
    from markovdp.divergences.exact import _finite_kernels

    s, listed = np.full((3, 3), 0.5), np.ones((3, 3), dtype=bool)
    zeros, ones = np.zeros(3), np.ones(3)
    assert _finite_kernels._renyi_candidates(s, zeros, zeros, listed, -1.0, 1e-280, 1e3)[0].size
    tiny = s.copy()
    tiny[1, 2] = 1e-290
    assert not _finite_kernels._renyi_candidates(tiny, zeros, zeros, listed, -1.0, 1e-280, 1e3)[0].size
    listed_off = listed.copy()
    listed_off[1, 2] = False  # the tiny entry is not a pair: no matter
    assert _finite_kernels._renyi_candidates(tiny, zeros, zeros, listed_off, -1.0, 1e-280, 1e3)[0].size
    assert not _finite_kernels._renyi_candidates(s, ones, zeros, listed, 0.5, 1e-280, 1e3)[0].size  # max log 2 + 1
    assert _finite_kernels._renyi_candidates(s, ones, zeros, listed, 0.3, 1e-280, 1e3)[0].size
    apart = np.array([0.0, -601.0, 3.0])
    assert not _finite_kernels._renyi_candidates(s, zeros, apart, listed, -1.0, 1e-280, 1e3)[0].size


@pytest.mark.parametrize("seed", SEEDS)
def test_renyi_worst_is_the_previous_product_on_many_shapes(seed, monkeypatch):
    """Random shapes, zeros, steep rows, orders up to 1e3: `renyi_finite_worst` (candidates or the full sum) is the
    previous computation's max, bit for bit; both ways are taken."""
    from markovdp.divergences.exact import _finite_kernels

    answers = []
    bound = _finite_kernels._renyi_candidates_orders

    def counted(*args):
        counts, terms = bound(*args)
        answers.extend((counts > 0).tolist())
        return counts, terms

    monkeypatch.setattr(_finite_kernels, "_renyi_candidates_orders", counted)
    rng = np.random.default_rng(500 + seed)
    alpha = np.array([1.0001, 1.01, 1.5, 3.0, 20.0, 200.0, 1e3])
    for _ in range(6):
        k, m = int(rng.integers(2, 40)), int(rng.integers(5, 60))
        matrix = random_rows(rng, k, m, zeros=rng.choice([0.0, 0.0, 0.3]), power=rng.uniform(0.5, 12.0))
        if rng.random() < 0.3:
            matrix[:, -2:] = 0.0  # the same zeros in every row: nested supports
            matrix /= matrix.sum(axis=1, keepdims=True)
        if rng.random() < 0.3:  # circulant rows: R(i || j) depends on j − i alone, so k pairs tie for the max
            matrix = np.stack([np.roll(matrix[0], i) for i in range(k)])
        index = neighbour_pairs(AllPairs(), k)
        expected = previous_renyi(matrix, index, alpha).max(axis=1)
        np.testing.assert_array_equal(renyi_finite_worst(matrix, index, alpha, all_pairs=True), expected)
        listed = index[rng.random(index.shape[0]) < 0.5]
        if listed.size:
            np.testing.assert_array_equal(renyi_finite_worst(matrix, listed, alpha),
                                          previous_renyi(matrix, listed, alpha).max(axis=1))
    assert any(answers) and not all(answers)
