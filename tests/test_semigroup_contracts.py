"""The contract every registered semigroup satisfies (DESIGN §4, THEORY: BBGG-S).

``P.at(t) >> P.at(s) == P.at(t + s)`` (as objects: the merge rule) and in law (Monte Carlo: samples of P_t then
P_s, drawn step by step without the merge, against samples of P_{t+s}: per-coordinate means and variances
within Z standard errors estimated from the samples, and a two-sample KS test); ``P.at(0)`` is the identity;
`space`; sample shapes and seeds. Add a semigroup to `SEMIGROUPS` to put it under the contract.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from markovdp.diffusions import (
    SDE,
    BrownianSemigroup,
    DiffusionSemigroup,
    Milstein,
    OrnsteinUhlenbeckSemigroup,
    Semigroup,
    TimeSlice,
)
from markovdp.operators.identity import Identity
from markovdp.spaces import RealSpace


@njit
def _double_well_drift(x, out):
    for k in range(x.size):
        out[k] = x[k] - x[k] ** 3


@njit
def _sqrt2_diffusion(x, out):
    for k in range(x.size):
        out[k] = math.sqrt(2.0)


#: every semigroup under the contract; an integrated one steps by t / ceil(t / dt): with dyadic times and dt the
#: steps of at(t) then at(s) are those of at(t + s), so the law holds exactly for it too.
SEMIGROUPS: list[Semigroup] = [
    BrownianSemigroup(1),
    BrownianSemigroup(3),
    OrnsteinUhlenbeckSemigroup(0.7, 1.3),
    OrnsteinUhlenbeckSemigroup(2.0, 0.5, dim=2),
    DiffusionSemigroup(SDE(_double_well_drift, _sqrt2_diffusion, 1), dt=2**-6),
    DiffusionSemigroup(SDE(_double_well_drift, _sqrt2_diffusion, 2), solver=Milstein(), dt=2**-6),
]
TIMES = [(0.25, 0.5), (1.0, 0.125)]  # dyadic, so that integrators with a fixed step land on t exactly
N = 20_000
Z = 5.0


def points(P: Semigroup, n: int) -> np.ndarray:
    d = P.space.size
    x0 = np.linspace(-0.5, 1.0, d)
    return np.full(n, x0[0]) if d == 1 else np.broadcast_to(x0, (n, d)).copy()


def as_rows(y: np.ndarray, d: int) -> np.ndarray:
    return np.asarray(y).reshape(-1, d)


@pytest.fixture(params=SEMIGROUPS, ids=repr)
def P(request) -> Semigroup:
    return request.param


def test_space(P):
    assert isinstance(P, Semigroup) and isinstance(P.space, RealSpace)
    op = P.at(0.5)
    assert op.domain == P.space and op.codomain == P.space


@pytest.mark.parametrize(("t", "s"), TIMES)
def test_semigroup_law_exact(P, t, s):
    """BBGG-S: the algebra merges P_t then P_s into P_{t+s}."""
    merged = P.at(t) >> P.at(s)
    assert isinstance(merged, TimeSlice) and merged == P.at(t + s) and merged.semigroup == P


@pytest.mark.parametrize(("t", "s"), TIMES)
def test_semigroup_law_in_law(P, t, s):
    """BBGG-S in law: step by step P_t, P_s against P_{t+s} from the same start (Monte Carlo)."""
    d = P.space.size
    x = points(P, N)
    two = as_rows(P.at(s).sample(P.at(t).sample(x, rng=11), rng=12), d)
    one = as_rows(P.at(t + s).sample(x, rng=13), d)
    se_mean = np.sqrt((two.var(axis=0) + one.var(axis=0)) / N)
    np.testing.assert_array_less(np.abs(two.mean(axis=0) - one.mean(axis=0)), Z * se_mean)
    # standard error of a sample variance: sqrt((m4 − var²)/n), m4 the fourth central moment (from the samples)
    def se_var(y):
        c = y - y.mean(axis=0)
        return ((c**4).mean(axis=0) - (c**2).mean(axis=0) ** 2) / N

    np.testing.assert_array_less(np.abs(two.var(axis=0) - one.var(axis=0)), Z * np.sqrt(se_var(two) + se_var(one)))
    for i in range(d):
        assert stats.ks_2samp(two[:, i], one[:, i]).pvalue > 1e-4


def test_at_zero_is_the_identity(P):
    assert P.at(0) == Identity(P.space) and P.at(0.0) == Identity(P.space)
    assert P.at(0) >> P.at(0.5) == P.at(0.5) and P.at(0.5) >> P.at(0) == P.at(0.5)
    x = points(P, 7)
    np.testing.assert_array_equal(P.at(0).sample(x, rng=0), x)


def test_sample_shapes_and_seeds(P):
    d = P.space.size
    op = P.at(0.5)
    x = points(P, 9)
    many = op.sample(x, rng=3)
    np.testing.assert_array_equal(x, points(P, 9))  # the input is not modified
    assert many is not x
    assert many.shape == ((9,) if d == 1 else (9, d)) and np.all(np.isfinite(many))
    one = op.sample(points(P, 1)[0], rng=3)
    assert np.shape(one) == (() if d == 1 else (d,))
    np.testing.assert_array_equal(op.sample(points(P, 9), rng=3), many)
    np.testing.assert_array_equal(op.sample(points(P, 9), rng=np.random.SeedSequence(3)), many)
    assert not np.array_equal(op.sample(points(P, 9), rng=4), many)


def test_negative_time_is_refused(P):
    with pytest.raises(ValueError, match="`t`"):
        P.at(-1.0)
    with pytest.raises(ValueError, match="`t`"):
        P.at(math.nan)
