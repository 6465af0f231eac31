"""Black boxes computed exactly: DeclaredDP(eps0, delta0) and DeclaredDP(eps0, delta0) >> K for finite K.

THEORY: STD-DominatingPair (the declared point as a curve), STD-BlackBoxExact (the worst case over every
(eps0, delta0)-DP mechanism followed by K). Oracles: an LP over all indistinguishable input pairs with event
enumeration (tests/oracles.py), mpmath for the closed form, event enumeration for single maps.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from oracles import black_box_worst_case_lp, coefficient_bruteforce, events, hockey_stick_bruteforce
from strategies import eps_values, stochastic_matrices

import markovdp as md
from markovdp.guarantees import _black_box_kernels as _worst_case
from markovdp.guarantees.types import Bound
from markovdp.mechanisms.canonical import canonical_rows

RULES = ("POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4")


def random_cases(n: int, seed: int):
    """n random (K, eps0, delta0, eps) with 2 <= k, m <= 4: dense, cubed (skewed), sparse, identical rows;
    delta0 = 0 in a third of the cases, eps below eps0 in three quarters (where the worst case is not 0)."""
    rng = np.random.default_rng(seed)
    for case in range(n):
        k, m = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        raw = rng.random((k, m)) ** (3.0 if case % 2 else 1.0)
        style = case % 4
        if style == 2:
            raw[rng.random((k, m)) < 0.5] = 0.0
            raw[np.arange(k), rng.integers(0, m, size=k)] += 0.1
        elif style == 3:
            raw = np.tile(raw[:1], (k, 1))
        eps0 = float(rng.uniform(0.0, 3.0))
        delta0 = 0.0 if case % 3 == 0 else float(rng.uniform(0.0, 1.0))
        eps = float(rng.uniform(0.0, eps0 if case % 4 != 1 else 3.0))
        yield raw / raw.sum(axis=1, keepdims=True), eps0, delta0, eps


# ------------------------------------------------------------------------------------------- the kernel


def test_kernel_matches_the_lp_over_all_indistinguishable_pairs():
    """STD-BlackBoxExact against an LP that never sees the canonical pair: 40 random cases agree to 1e-9."""
    worst = 0.0
    for K, eps0, delta0, eps in random_cases(40, seed=5):
        expected = black_box_worst_case_lp(K, eps0, delta0, eps)
        got = md.privacy_profile(md.DeclaredDP(eps0, delta0) >> md.FiniteKernel(K), eps)
        assert got == pytest.approx(expected, abs=1e-9), (K, eps0, delta0, eps)
        worst = max(worst, abs(got - expected))
    print(f"max |kernel - LP| over 40 cases: {worst:.1e}")


@pytest.mark.parametrize("delta0", [0.0, 0.2])
def test_kernel_values_and_argmax_match_event_enumeration_over_every_map(delta0):
    """Each value is the max over maps of E_gamma by event enumeration, and the argmax map attains it."""
    rng = np.random.default_rng(11)
    eps = np.array([0.0, 0.4, 1.5, 30.0, 709.9, 750.0, math.inf])
    for _ in range(6):
        k, m = int(rng.integers(2, 5)), int(rng.integers(1, 5))
        K = rng.random((k, m)) ** 3
        K[rng.random((k, m)) < 0.3] = 0.0
        K[:, 0] += 1e-3
        K /= K.sum(axis=1, keepdims=True)
        P, Q = canonical_rows(1.2, delta0)
        values, argmax = _worst_case.worst_case_hockey_stick(P, Q, K, eps)
        for j, e in enumerate(eps):
            maps = np.array(np.meshgrid(*[range(k)] * 4, indexing="ij")).reshape(4, -1).T
            best = max(hockey_stick_bruteforce(P @ K[t], Q @ K[t], e) for t in maps)
            assert values[j] == pytest.approx(best, abs=1e-14)
            t = argmax[j]
            assert hockey_stick_bruteforce(P @ K[t], Q @ K[t], e) == pytest.approx(values[j], abs=1e-14)


@pytest.mark.parametrize("style", ["dense", "sparse", "near_deterministic"])
def test_branch_and_bound_equals_the_full_enumeration_at_k_8(style):
    """The pruned search against numpy over all 8^4 maps at once (sums of [a − e^eps b]_+), 50 eps."""
    rng = np.random.default_rng(17)
    K = rng.random((8, 6))
    if style == "sparse":
        K[rng.random(K.shape) < 0.5] = 0.0
        K[np.arange(8), rng.integers(0, 6, size=8)] += 0.5
    elif style == "near_deterministic":
        K = 1e-6 * K
        K[np.arange(8), rng.integers(0, 6, size=8)] = 1.0
    K /= K.sum(axis=1, keepdims=True)
    eps = np.linspace(0.0, 4.0, 50)
    for eps0, delta0 in [(1.0, 0.1), (0.2, 0.6), (2.5, 0.0)]:
        P, Q = canonical_rows(eps0, delta0)
        rows = K[np.array(np.meshgrid(*[range(8)] * 4, indexing="ij")).reshape(4, -1).T]  # (maps, 4, m)
        a, b = np.einsum("i,niy->ny", P, rows), np.einsum("i,niy->ny", Q, rows)
        full = np.stack([np.maximum(a - math.exp(e) * b, 0.0).sum(axis=1).max() for e in eps])
        got = _worst_case.worst_case_hockey_stick(P, Q, K, eps)[0]
        np.testing.assert_allclose(got, full, rtol=0, atol=1e-15)


@pytest.mark.parametrize("eps", [700.0, 709.9, 715.0, 735.0])
def test_kernel_is_exact_where_e_to_the_eps_overflows(eps):
    """Subnormal entries make log(a/b) exceed eps past 709.78 (e^eps overflows): the log-space terms, against
    the maximum over all 16 maps of Σ_y [a_y − e^eps b_y]_+ summed in mpmath from the same doubles."""
    K = np.array([[1.0 - 1e-310, 1e-310], [1e-320, 1.0 - 1e-320]])
    P, Q = canonical_rows(2.0, 0.3)
    got = _worst_case.worst_case_hockey_stick(P, Q, K, np.array([eps]))[0][0]
    with mp.workdps(60):
        gamma = mp.exp(mp.mpf(eps))
        best = mp.mpf(0)
        for t in np.array(np.meshgrid(*[range(2)] * 4, indexing="ij")).reshape(4, -1).T:
            a = [mp.fsum(mp.mpf(P[i]) * mp.mpf(K[t[i], y]) for i in range(4)) for y in range(2)]
            b = [mp.fsum(mp.mpf(Q[i]) * mp.mpf(K[t[i], y]) for i in range(4)) for y in range(2)]
            best = max(best, mp.fsum(max(a[y] - gamma * b[y], 0) for y in range(2)))
    assert best > 1e-3  # the case is not trivial
    assert got == pytest.approx(float(best), rel=1e-12)


def test_a_declared_delta0_of_one_gives_the_dobrushin_coefficient():
    """delta0 = 1 allows any pair of inputs (P, Q = point masses on points 0 and 3): the worst case is
    sup_{x, x'} E_{e^eps}(K[x] || K[x']) (BBGG-D1.2, AAC-eta), here by event enumeration."""
    rng = np.random.default_rng(3)
    for eps in (0.0, 0.7, 800.0, math.inf):
        K = rng.random((4, 3)) ** 3
        K[0, 1] = 0.0
        K /= K.sum(axis=1, keepdims=True)
        got = md.privacy_profile(md.DeclaredDP(2.0, 1.0) >> md.FiniteKernel(K), eps)
        assert got == pytest.approx(coefficient_bruteforce(K, eps), abs=1e-15)


def test_no_symmetry_between_the_two_free_points_when_delta0_is_zero():
    """Why the kernel does not prune (x1, x2) against (x2, x1): the two maps differ in general."""
    K = np.array([[1.0, 0.0], [0.5, 0.5]])
    P, Q = canonical_rows(1.0, 0.0)
    one_two = hockey_stick_bruteforce(P @ K[[0, 0, 1, 0]], Q @ K[[0, 0, 1, 0]], 0.2)
    two_one = hockey_stick_bruteforce(P @ K[[0, 1, 0, 0]], Q @ K[[0, 1, 0, 0]], 0.2)
    assert abs(one_two - two_one) > 0.01


def test_kernel_limit_names_k_and_the_limit():
    with pytest.raises(NotImplementedError, match=r"k = 200, m = 1 .* MAX_WORK = 1073741824"):
        md.privacy_profile(md.DeclaredDP(1.0, 0.1) >> md.FiniteKernel(np.ones((200, 1))), 0.5)
    with pytest.raises(NotImplementedError, match=r"k\^2 maps .* k = 33000"):
        md.privacy_profile(md.DeclaredDP(1.0, 0.0) >> md.FiniteKernel(np.ones((33000, 1))), 0.5)


@pytest.mark.parametrize(("args", "match"), [
    ((np.array([0.5, 0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5, 0.0])), "`P` must be a probability vector"),
    ((np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])), r"`P` must be a law on the four canonical points"),
    ((np.array([1.0, np.nan, 0.0, 0.0]), np.array([0.0, 0.5, 0.5, 0.0])), "`P` must be a number, not NaN"),
])
def test_kernel_validates_its_laws(args, match):
    with pytest.raises(ValueError, match=match):
        _worst_case.worst_case_hockey_stick(*args, np.eye(2), np.array([0.0]))


def test_kernel_validates_eps_and_the_matrix():
    P, Q = canonical_rows(1.0, 0.1)
    with pytest.raises(ValueError, match="`eps` must be >= 0"):
        _worst_case.worst_case_hockey_stick(P, Q, np.eye(2), np.array([-1.0]))
    with pytest.raises(ValueError, match="`K` must be row-stochastic"):
        _worst_case.worst_case_hockey_stick(P, Q, np.array([[0.5, 0.4]]), np.array([0.0]))


# ------------------------------------------------------------------------------------------- the declared curve


@pytest.mark.parametrize(("eps0", "delta0"), [(0.0, 0.0), (0.7, 0.0), (1.0, 0.05), (3.0, 0.5), (50.0, 1e-6),
                                              (2.0, 1.0)])
def test_declared_profile_is_the_std_dominating_pair_curve(eps0, delta0):
    """delta(eps) = delta0 + (1 − delta0)(e^eps0 − e^eps)/(1 + e^eps0) on [0, eps0], delta0 beyond (mpmath)."""
    eps = np.array([0.0, 1e-9, eps0 / 3, eps0 / 2, eps0 * (1 - 1e-9), eps0, eps0 + 0.5, 800.0, math.inf])
    got = md.privacy_profile(md.DeclaredDP(eps0, delta0), eps)
    with mp.workdps(40):
        e0, d0 = mp.mpf(eps0), mp.mpf(delta0)
        want = [float(d0 + (1 - d0) * (mp.exp(e0) - mp.exp(mp.mpf(e))) / (1 + mp.exp(e0))) if e < eps0
                else delta0 for e in eps]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-300)


# ------------------------------------------------------------------------------------------- the worst mechanism


def test_worst_case_mechanism_attains_the_value_and_is_declared_dp():
    for K, eps0, delta0, eps in random_cases(40, seed=7):
        kernel = md.FiniteKernel(K)
        pipeline = md.DeclaredDP(eps0, delta0) >> kernel
        mech = md.worst_case_mechanism(pipeline, eps)
        assert mech.matrix.shape == (2, K.shape[0])
        exact = md.privacy_profile(pipeline, eps)
        # both sides are finite sums of the same ~16 products, in different orders: a few ulps apart
        assert md.privacy_profile(mech >> kernel, eps) == pytest.approx(exact, abs=1e-15)
        assert exact == pytest.approx(black_box_worst_case_lp(K, eps0, delta0, eps), abs=1e-9)
        mu, nu = mech.matrix
        # (eps0, delta0)-DP, by the definition (every event both ways) and by the exact profile at eps0;
        # 1e-15: the rows are sums of the canonical masses (each exact to 1 ulp), renormalised
        for mask in events(mu.size):
            assert mu[mask].sum() <= math.exp(eps0) * nu[mask].sum() + delta0 + 1e-15
            assert nu[mask].sum() <= math.exp(eps0) * mu[mask].sum() + delta0 + 1e-15
        assert md.privacy_profile(mech, eps0) <= delta0 + 1e-15


def test_worst_case_mechanism_rejects_what_is_not_a_finite_black_box():
    with pytest.raises(TypeError, match="`pipeline` must be a black box post-processed by a kernel"):
        md.worst_case_mechanism(md.DeclaredDP(1.0, 0.1), 0.5)
    with pytest.raises(TypeError, match="`pipeline` must be a black box"):
        md.worst_case_mechanism(md.RandomizedResponse(2, 1.0) >> md.FiniteKernel(np.eye(2)), 0.5)
    with pytest.raises(NotImplementedError, match="only through a finite kernel .* GaussianKernel"):
        md.worst_case_mechanism(md.DeclaredDP(1.0, 0.1) >> md.GaussianKernel(1.0), 0.5)
    pipeline = md.DeclaredDP(1.0, 0.1) >> md.FiniteKernel(np.eye(2))
    with pytest.raises(TypeError, match="`eps` must be a scalar"):
        md.worst_case_mechanism(pipeline, [0.5, 1.0])
    with pytest.raises(ValueError, match="`eps` must be >= 0"):
        md.worst_case_mechanism(pipeline, -0.5)


# ------------------------------------------------------------------------------------------- soundness

#: (BBGG-T1.2 met the exact worst case to 1e-12, T1.2 applied) per example of the property below.
T1_2_TIGHT: list[bool] = []


@st.composite
def black_boxes(draw):
    k, m = draw(st.integers(2, 6)), draw(st.integers(1, 6))
    eps0 = draw(st.one_of(st.floats(0.0, 50.0), st.sampled_from([0.0, 1e-9, 5.0, 50.0])))
    delta0 = draw(st.one_of(st.just(0.0), st.floats(0.0, 1.0), st.sampled_from([1e-12, 1.0])))
    return eps0, delta0, md.FiniteKernel(draw(stochastic_matrices(rows=k, cols=m)))


@settings(max_examples=2000, deadline=None, derandomize=True, database=None)
@given(black_boxes(), eps_values)
def check_no_bound_below_the_black_box_worst_case(box, eps):
    eps0, delta0, kernel = box
    pipeline = md.DeclaredDP(eps0, delta0) >> kernel
    exact = md.privacy_profile(pipeline, eps)
    cert = md.certify(pipeline)
    for rule in RULES:
        cand = cert.candidates[rule]
        if isinstance(cand, Bound):
            bound = float(cand.delta(eps))
            # Tolerance: the bound formulas (T1.3's gamma (1 − e^(eps' − eps)(1 − delta)), T1.2's eps~) and the
            # exact sum are each a handful of float operations on values in [0, 1]: relative errors of a few
            # 1e-16 and absolute errors of about m ulp(1) <= 1e-15. 1e-9 relative plus 1e-12 absolute (the
            # verdict tolerance of `markovdp validate`) is 1000x wider, and any real violation is far larger.
            assert exact <= bound * (1 + 1e-9) + 1e-12, f"{rule}: exact {exact!r} > bound {bound!r}"
            if rule == "BBGG-T1.2":
                T1_2_TIGHT.append(abs(bound - exact) <= 1e-12)


def test_no_certified_bound_lies_below_the_black_box_worst_case(record_property):
    """STD-BlackBoxExact: every Bound (POST, BBGG-T1.1–T1.4) for DeclaredDP(eps0, delta0) >> K lies above the
    exact worst case, over >= 2000 random kernels and parameters. The fraction where BBGG-T1.2 is tight is
    recorded (THEORY observed it in 547 random cases; not asserted)."""
    T1_2_TIGHT.clear()
    check_no_bound_below_the_black_box_worst_case()
    assert len(T1_2_TIGHT) >= 2000
    fraction = sum(T1_2_TIGHT) / len(T1_2_TIGHT)
    record_property("bbgg_t1_2_tight_fraction", fraction)
    print(f"BBGG-T1.2 met the exact worst case to 1e-12 in {sum(T1_2_TIGHT)} of {len(T1_2_TIGHT)} cases "
          f"({fraction:.4f})")


@pytest.mark.parametrize("delta0", [0.0, 0.05, 1.0])
def test_black_box_renyi_fast_path_equals_the_max_over_every_listed_pair(delta0):
    """The vectorised Rényi over all maps against the generic max over the pairs, one Categorical at a time."""
    from markovdp.guarantees.pair_maxima import _max_over

    rng = np.random.default_rng(17)
    alpha = np.array([1.01, 2.0, 7.5, np.inf])
    for k, m in ((2, 3), (3, 2), (4, 4)):
        raw = rng.dirichlet(np.full(m, 0.7), size=k)
        raw[0, 0] = 0.0  # a zero cell: some maps are singular
        kernel = md.FiniteKernel(raw / raw.sum(axis=1, keepdims=True))
        pairs = (md.DeclaredDP(0.8, delta0) >> kernel).dominating_pairs()
        generic = _max_over(pairs, md.renyi, alpha=alpha)
        np.testing.assert_allclose(md.renyi_profile(md.DeclaredDP(0.8, delta0) >> kernel, alpha), generic,
                                   rtol=1e-12)
