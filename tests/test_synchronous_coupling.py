"""`synchronous_coupling`: two copies on shared noise, their distance against the contraction the bounds assume.

Independent references: the OU difference under Euler–Maruyama is deterministic, (1 − theta h) per step of size h
(the noise cancels), so every pair's distance must equal Π (1 − theta h_k) ||x − x'|| to rounding; a linear map
L x with common noise gives exactly L^s ||x − x'||; unprojected quadratic SGD gives eta ||z_i − z'_i|| (1 − eta)^(s − i)
after the differing record i. Projected/nonlinear cases must never exceed the declared bound (L^s, and BBGG-T5's
2 eta C L^(s − i)). One copy alone has the law of the process (quadratic SGD: the closed-form Normal).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

import markovdp as md
from markovdp.guarantees.synchronous_coupling import sgd_contraction, synchronous_coupling

THETA = 0.8


@numba.njit
def ou_drift(x, out):
    for k in range(x.size):
        out[k] = -THETA * x[k]


@numba.njit
def ou_diffusion(x, out):
    for k in range(x.size):
        out[k] = 1.3


OU_SDE = md.SDE(ou_drift, ou_diffusion, 2)
BALL = md.Ball(2, 1.0)
# few distinct kernels: each (map, projection) compiles one chain sampler
LINEAR = md.LipschitzGaussianKernel(*md.linear_map(0.7, dim=2), 0.5, dim=2)
TANH_BALL = md.LipschitzGaussianKernel(*md.tanh_map(0.9), 0.4, projection=BALL)


@pytest.mark.parametrize("solver", [md.EulerMaruyama(), pytest.param(md.Milstein(), marks=pytest.mark.slow)])
def test_ou_distance_is_the_schemes_exact_factor_on_every_path(solver):
    semigroup = md.DiffusionSemigroup(OU_SDE, solver, 0.1)
    times = np.array([0.25, 1.0])  # stretches 0.25 (3 steps of 1/12) and 0.75 (8 steps of 0.09375)
    x, x_prime = np.array([0.5, -1.0]), np.array([1.5, 1.0])
    ds = synchronous_coupling(semigroup, x, x_prime, n_paths=50, rng=3, times=times)
    gap = float(np.linalg.norm(x - x_prime))
    factor_1 = (1.0 - THETA * 0.25 / 3) ** 3
    factor_2 = factor_1 * (1.0 - THETA * 0.75 / 8) ** 8
    want = gap * np.array([1.0, factor_1, factor_2])
    np.testing.assert_allclose(ds["distance"].values, np.broadcast_to(want, (50, 3)), rtol=1e-12)
    assert np.all(ds["ci_low"].values <= ds["mean"].values + 1e-15)
    # the flow's e^(−theta t) is the dt → 0 limit of the scheme's factor (within O(theta² t dt) here)
    assert ds["mean"].values[-1] == pytest.approx(gap * math.exp(-THETA), rel=0.05)
    assert "reference" not in ds
    assert not np.allclose(ds["state"].values[:, -1], ds["state"].values[0, -1])  # the paths are random


def test_a_linear_chain_contracts_by_exactly_L_per_step():
    ds = synchronous_coupling(LINEAR ** 6, [1.0, 0.0], [0.0, 2.0], n_paths=40, rng=1)
    want = math.sqrt(5.0) * 0.7 ** np.arange(7)
    np.testing.assert_allclose(ds["distance"].values, np.broadcast_to(want, (40, 7)), rtol=1e-12)
    np.testing.assert_allclose(ds["reference"].values, want, rtol=1e-12)


def test_projected_lipschitz_chains_never_exceed_L_to_the_r():
    ds = synchronous_coupling([TANH_BALL, LINEAR, TANH_BALL ** 3], [0.8, 0.0], [-0.5, 0.5], n_paths=500, rng=2)
    assert np.all(ds["max"].values <= ds["reference"].values * (1 + 1e-12))
    np.testing.assert_allclose(ds["reference"].values[-1], math.hypot(1.3, 0.5) * 0.9**4 * 0.7, rtol=1e-12)
    assert ds["max"].values[-1] < ds["reference"].values[-1]  # the projection and tanh contract further here


def sgd_data(index, n=8, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.uniform(-0.5, 0.5, (n, 2))
    other = data.copy()
    other[index - 1] = [0.7, -0.7]
    return data, other


def test_unprojected_quadratic_sgd_distance_is_exact_and_below_bbgg_t5():
    sgd = md.NoisyProjSGD(md.QuadraticLoss(md.Ball(2, 1.0)), 0.3, 1.0, None, np.zeros(2), n=8)
    data, other = sgd_data(3)
    ds = synchronous_coupling(sgd, data, other, n_paths=30, rng=4)
    # x_s = (1 − eta) x_{s−1} + eta z_s − eta Z_s: the difference is eta (z_3 − z'_3) (1 − eta)^(s − 3), s >= 3
    jump = 0.3 * float(np.linalg.norm(data[2] - other[2]))
    want = np.array([0.0, 0.0, 0.0] + [jump * 0.7 ** (s - 3) for s in range(3, 9)])
    np.testing.assert_allclose(ds["distance"].values, np.broadcast_to(want, (30, 9)), rtol=1e-12, atol=1e-15)
    lip = math.sqrt(1.0 - 0.3)  # BBGG-T5's L for beta = rho = 1
    assert sgd_contraction(sgd) == pytest.approx(lip, rel=1e-15)
    bound = np.array([0.0, 0.0, 0.0] + [2 * 0.3 * 2.0 * lip ** (s - 3) for s in range(3, 9)])  # C = diam W = 2
    np.testing.assert_allclose(ds["reference"].values, bound, rtol=1e-12)
    assert np.all(want <= bound)


def test_projected_logistic_sgd_never_exceeds_the_contraction_bound():
    ball = md.Ball(2, 1.0)
    sgd = md.NoisyProjSGD(md.LogisticLoss(ball, 0.5, 1.0), 0.8, 0.5, ball, np.zeros(2), n=10)
    rng = np.random.default_rng(5)
    features = rng.uniform(-0.7, 0.7, (10, 2))
    data = np.column_stack([features, rng.choice([-1.0, 1.0], 10)])
    other = data.copy()
    other[1, 2] = -other[1, 2]
    other[6, :2] = [0.0, 0.9]
    ds = synchronous_coupling(sgd.differing_at(2), data, other, n_paths=400, rng=6)
    assert np.all(ds["max"].values <= ds["reference"].values * (1 + 1e-12))
    assert ds["max"].values[1] == 0.0 and ds["reference"].values[1] == 0.0
    assert ds["max"].values[-1] > 0.0


def test_one_copy_has_the_law_of_noisy_sgd():
    sgd = md.NoisyProjSGD(md.QuadraticLoss(md.Ball(2, 1.0)), 0.3, 1.0, None, np.zeros(2), n=8)
    data, other = sgd_data(5)
    n = 4000
    ds = synchronous_coupling(sgd, data, other, n_paths=n, rng=7)
    for states, dataset in ((ds["state"], data), (ds["state_prime"], other)):
        law = sgd.output(dataset)  # N(mean, s² I), closed form
        final = states.values[:, -1]
        mean, s = np.asarray(law.mean), float(law.sigma)
        assert np.all(np.abs(final.mean(axis=0) - mean) < 5 * s / math.sqrt(n))
        assert np.all(np.abs(final.var(axis=0, ddof=1) / s**2 - 1.0) < 5 * math.sqrt(2.0 / (n - 1)))


def test_pairs_are_addressed_by_the_seed_and_their_index():
    sgd = md.NoisyProjSGD(md.QuadraticLoss(md.Ball(2, 1.0)), 0.3, 1.0, md.Ball(2, 1.0), np.zeros(2), n=4)
    data, other = sgd_data(2, n=4)
    small = synchronous_coupling(sgd, data, other, n_paths=3, rng=8)
    large = synchronous_coupling(sgd, data, other, n_paths=70, rng=8)  # two noise blocks of 64 runs
    np.testing.assert_array_equal(small["state"].values, large["state"].values[:3])
    one = synchronous_coupling(TANH_BALL ** 2, [0.0, 0.0], [0.5, 0.0], n_paths=5, rng=np.random.SeedSequence(9))
    two = synchronous_coupling(TANH_BALL ** 2, [0.0, 0.0], [0.5, 0.0], n_paths=5, rng=np.random.SeedSequence(9))
    np.testing.assert_array_equal(one["distance"].values, two["distance"].values)


@pytest.mark.parametrize(("call", "error", "name"), [
    (lambda: synchronous_coupling(md.GaussianKernel(1.0), [0.0], [1.0], n_paths=2, rng=0), TypeError, "process"),
    (lambda: synchronous_coupling(TANH_BALL, [0.0, 0.0], [1.0, 0.0], n_paths=2, rng=0, times=[1.0]), ValueError,
     "times"),
    (lambda: synchronous_coupling(md.DiffusionSemigroup(OU_SDE), [0.0, 0.0], [1.0, 0.0], n_paths=2, rng=0),
     ValueError, "times"),
    (lambda: synchronous_coupling(md.DiffusionSemigroup(OU_SDE), [0.0, 0.0], [1.0, 0.0], n_paths=2, rng=0,
                                  times=[0.5, 0.2]), ValueError, "times"),
    (lambda: synchronous_coupling(TANH_BALL, [0.0], [1.0, 0.0], n_paths=2, rng=0), ValueError, "x"),
    (lambda: synchronous_coupling(TANH_BALL, [0.0, 0.0], [1.0, 0.0], n_paths=0, rng=0), ValueError, "n_paths")])
def test_bad_inputs_name_the_parameter(call, error, name):
    with pytest.raises(error, match=f"`{name}` must be"):
        call()
