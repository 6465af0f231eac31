"""Pure-DP eps of finite mechanisms is rounded upward on every path (issue 13 §3).

The reference is the definition, in mpmath at 50 digits from the float matrix: M is eps-DP for the listed
neighbours iff max over the ordered pairs (i, j) of E_{e^eps}(P_i || P_j) = Σ_y [P_i(y) − e^eps P_j(y)]_+ is 0,
i.e. iff eps >= max_y log(P_i(y) / P_j(y)). Every returned eps must satisfy it exactly, and sit within a few ulps
of that maximum (the float just above it, nudged at most a few ulps so the float profile is 0 there too).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from mpmath import mp, mpf

import markovdp as md
from markovdp._profiles import pure_epsilon, rounded_up

mp.dps = 50

#: The most ulps a returned pure eps may sit above the exact max log-ratio, plus `floor`: the answer is also
#: nudged until the float profile is 0 there (a contract of privacy_epsilon, dobrushin and certify), and that
#: profile reads the log-ratios log p − log q to a few ulps of |log p|, so near eps = 0 it cannot resolve eps
#: finer than that.
ULPS = 4


def floor(matrix) -> float:
    """The float profile's resolution in eps: 8 ulps of 1 times the largest |log p|."""
    positive = np.asarray(matrix)[np.asarray(matrix) > 0]
    return 8 * 2.0**-52 * max(1.0, float(np.abs(np.log(positive)).max()))


def above(eps: float, truth: mpf, matrix) -> bool:
    """truth <= eps <= truth + ULPS ulps(eps) + floor(matrix)."""
    return truth <= mpf(eps) <= truth + ULPS * mpf(float(np.spacing(eps))) + floor(matrix)


def exact_max_log_ratio(p, q) -> mpf:
    """max_y log(p_y / q_y) over p_y > 0 (inf if q_y = 0 there), from the float values, at 50 digits."""
    best = mpf("-inf")
    for a, b in zip(np.ravel(p).tolist(), np.ravel(q).tolist(), strict=True):
        if a > 0:
            best = max(best, mp.inf if b == 0 else mp.log(mpf(a)) - mp.log(mpf(b)))
    return best


def exact_delta(matrix, pairs, eps: float) -> mpf:
    """max over ordered pairs (i, j) of Σ_y [P_i(y) − e^eps P_j(y)]_+ at 50 digits (THEORY: Notation)."""
    gamma = mp.exp(mpf(eps))
    return max(sum(max(mpf(a) - gamma * mpf(b), 0) for a, b in zip(matrix[i], matrix[j], strict=True))
               for i, j in pairs)


def ordered(pairs):
    return [(i, j) for a, b in pairs for i, j in ((a, b), (b, a))]


def random_mechanism(rng: np.random.Generator):
    """A random k x m row-stochastic matrix — Dirichlet rows of a random concentration (tiny ones give
    probabilities down to ~1e-300), sometimes rows that differ by a relative 1e-12 (eps near 0) — and a random
    non-empty neighbour list, or None (all pairs)."""
    k, m = int(rng.integers(2, 6)), int(rng.integers(2, 8))
    kind = rng.integers(0, 3)
    if kind == 0:
        matrix = rng.dirichlet(np.full(m, 10 ** rng.uniform(-1.5, 1)), size=k)
    elif kind == 1:
        base = rng.dirichlet(np.ones(m))
        matrix = base * (1 + 1e-12 * rng.normal(size=(k, m)))
    else:
        matrix = np.exp(rng.uniform(-600, 0, size=(k, m)))
    matrix = matrix / matrix.sum(axis=1, keepdims=True)
    matrix = np.maximum(matrix, 1e-300)
    matrix = matrix / matrix.sum(axis=1, keepdims=True)
    if rng.random() < 0.25:
        return matrix, None
    extra = int(rng.integers(0, 3))
    pairs = {(0, 1)} | {tuple(sorted(map(int, rng.choice(k, 2, replace=False)))) for _ in range(extra)}
    return matrix, sorted(pairs)


def test_pure_epsilon_is_the_float_just_above_the_max_log_ratio():
    """`pure_epsilon` against mpmath on ratios near 1 (eps ~ 1e-12), huge ones (q subnormal) and random laws:
    eps >= the exact max, and the float below it is not."""
    rng = np.random.default_rng(0)
    for case in range(600):
        m = int(rng.integers(1, 9))
        kind = case % 4
        if kind == 0:
            p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        elif kind == 1:
            p = rng.dirichlet(np.ones(m))
            q = p * (1 + 1e-12 * rng.normal(size=m))
        elif kind == 2:
            p, q = np.exp(rng.uniform(-700, 0, m)), np.exp(rng.uniform(-700, 0, m))
        else:
            p, q = np.exp(rng.uniform(-30, 0, m)), np.exp(rng.uniform(-745, -700, m))  # q down to subnormal
        eps = pure_epsilon(p, q)
        truth = max(exact_max_log_ratio(p, q), 0)
        assert mpf(eps) >= truth, case
        if eps > 0:
            assert mpf(float(np.nextafter(eps, 0.0))) < truth, case
    assert pure_epsilon([0.5, 0.5, 0.0], [0.5, 0.5, 0.0]) == 0.0
    assert pure_epsilon([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert pure_epsilon([0.0, 1.0], [1.0, 0.0]) == math.inf
    assert pure_epsilon([0.0, 1.0], [0.5, 1.0]) == 0.0  # p = 0 never binds; the ratio 1 gives eps = 0


def test_pure_dp_eps_through_neighbour_lists_and_certify_is_never_below_the_truth():
    """400 random finite mechanisms (neighbour lists and all pairs): privacy_epsilon(M, 0) and
    certify(M).epsilon(0) make the exact profile 0 (mpmath), within ULPS (+ `floor`) of the max log-ratio; the float
    profile is 0 there too. Before the fix about 40% of them were 1-3 ulps low (all pairs too)."""
    rng = np.random.default_rng(13)
    for case in range(400):
        matrix, pairs = random_mechanism(rng)
        mech = md.FiniteMechanism(matrix, neighbours=pairs)
        listed = ordered(pairs) if pairs is not None else [(i, j) for i in range(len(matrix))
                                                           for j in range(len(matrix)) if i != j]
        truth = max(exact_max_log_ratio(matrix[i], matrix[j]) for i, j in listed)
        exact, certified = md.privacy_epsilon(mech, 0.0), md.certify(mech).epsilon(0.0)
        for eps in (exact, certified):
            assert exact_delta(matrix, listed, eps) == 0, (case, eps)
            assert above(eps, truth, matrix), (case, eps, float(truth))
        assert md.privacy_profile(mech, certified) == 0.0  # the float profile is 0 there too
        if pairs is not None:
            assert md.privacy_profile(mech, exact) == 0.0
        assert md.renyi_profile(mech, math.inf) >= truth


def test_rounded_up_is_the_least_float_above_its_closed_form_where_the_profile_is_met():
    """`rounded_up` never returns less than its closed form (a noisy float profile that is 0 far below it cannot
    pull the answer under it), and it finds the least float where the profile is met, however many ulps away."""
    start = 0.75

    def noisy(e: float) -> float:
        return 0.0 if e < 0.1 or e >= 0.8 else 1e-3

    assert rounded_up(start, noisy) == 0.8
    assert rounded_up(start, lambda e: 0.0) == start
    far = 1e-12 + 1e-20  # 10^4 ulps above 1e-12
    assert rounded_up(1e-12, lambda e: 0.0 if e >= far else 1.0) == far
    assert rounded_up(1.0, lambda e: 1.0) == math.inf  # never met


@pytest.mark.parametrize("k", [2, 5])
def test_randomized_response_pure_eps_is_its_eps0_rounded_up(k):
    """RR's rows as a plain FiniteMechanism: the pure eps is log of the float ratio of its probabilities."""
    eps0 = 1.3
    rr = md.RandomizedResponse(k, eps0)
    mech = md.FiniteMechanism(rr.matrix, neighbours=[(0, 1)])
    truth = exact_max_log_ratio(rr.matrix[0], rr.matrix[1])
    got = md.privacy_epsilon(mech, 0.0)
    assert above(got, truth, rr.matrix)


def test_outputs_sharing_the_largest_ratio_are_one_candidate():
    """Proportional rows put many outputs at one exact ratio (p = 1.5 q on half the outputs, distinct values): the
    exact reduction names each ratio once, so the maximum is still exact (brute-force Fractions, subnormals and
    near-ties included) without one Fraction per output."""
    from fractions import Fraction

    from markovdp._profiles import _distinct_ratios

    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        q = rng.random(n) * 10.0 ** rng.integers(-300, 0, n)
        p = q * rng.choice([1.5, 2.0, 3.0, 1 + 1e-15, 0.999], n)
        p[0] = np.nextafter(p[0], 1.0)  # a ratio one ulp off a tie
        q[-1] = 5e-324 * int(rng.integers(1, 100))  # a subnormal denominator
        ratios, (top, bottom) = _distinct_ratios(p, q)
        exact = [Fraction(a) / Fraction(b) for a, b in zip(p.tolist(), q.tolist(), strict=True)]
        assert sorted(ratios) == sorted(set(exact))
        assert Fraction(top) / Fraction(bottom) == max(exact)
    q = rng.random(200_000)
    ratios, _ = _distinct_ratios(2.0 * q, q)  # 2 q is exact: one ratio for all 200 000 outputs
    assert ratios == [Fraction(2)]
    mp.dps = 50
    eps = pure_epsilon(2.0 * q, q)  # the smallest double >= log 2
    assert mpf(eps) >= mp.log(2) > mpf(float(np.nextafter(eps, 0.0)))
