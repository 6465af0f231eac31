"""The FrequencyOracle protocol, the oracle registry (SRP-Tab1 and the SRP-Est sweep iterate it) and the iterative
Bayesian update (STD-IBU)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import markovdp as md
from markovdp.mechanisms.local import oracles
from markovdp.mechanisms.local.ibu import ibu, ibu_estimate, oracle_count_statistics
from markovdp.mechanisms.local.oracles import FrequencyOracle, make_oracle, oracle_names, register_oracle
from markovdp.sweeps import run_sweep
from markovdp.validation import catalogue_local

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "simulations"))
import frequency_estimation  # noqa: E402

BUILT_IN = ("GRR", "OUE", "RAPPOR", "HR", "BH", "SS", "OLH")


def test_every_built_in_oracle_is_registered_and_a_mechanism() -> None:
    assert oracle_names()[: len(BUILT_IN)] == BUILT_IN
    for name in BUILT_IN:
        oracle = make_oracle(name, 5, 1.0)
        assert isinstance(oracle, FrequencyOracle) and isinstance(oracle, md.Mechanism)


@pytest.mark.parametrize("name", BUILT_IN)
@pytest.mark.parametrize("k", [2, 3, 5, 8, 16])
def test_pure_epsilon_is_the_declared_eps(name: str, k: int) -> None:
    """The issue's done-when: privacy_epsilon(oracle, 0) equals the declared eps (float rounding of the channel
    entries, 1e-12) and ldp_epsilon of its channel agrees."""
    for eps in (0.5, 1.0, 2.0, 4.0):
        oracle = make_oracle(name, k, eps)
        assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(eps, rel=1e-12)
        assert md.ldp_epsilon(oracle.channel) == pytest.approx(eps, rel=1e-12)


def _support_rates(p: float, q: float, k: int) -> np.ndarray:
    return q + (p - q) * np.eye(k)


def _rates(name: str, k: int, eps: float) -> np.ndarray:
    """E[statistic / n | x] written from each oracle's definition (the channel rows for GRR, HR, BH)."""
    e = math.exp(eps)
    if name in ("GRR", "HR", "BH"):
        return make_oracle(name, k, eps).channel.matrix
    if name == "OUE":
        return _support_rates(0.5, 1 / (e + 1), k)
    if name == "RAPPOR":
        return _support_rates(math.sqrt(e) / (math.sqrt(e) + 1), 1 / (math.sqrt(e) + 1), k)
    if name == "SS":
        d = math.ceil(k / (e + 1))
        p = d * e / (d * e + k - d)
        return _support_rates(p, (p * (d - 1) + (1 - p) * d) / (k - 1), k)
    g = max(2, round(e + 1))
    return _support_rates(e / (e + g - 1), 1 / g, k)


@pytest.mark.parametrize("name", BUILT_IN)
def test_ibu_converges_to_the_truth_on_expected_counts(name: str) -> None:
    k, eps, n = 6, 1.0, 10_000
    truth = np.array([0.3, 0.25, 0.2, 0.12, 0.08, 0.05])
    rates = _rates(name, k, eps)
    oracle = make_oracle(name, k, eps)
    _, used = oracle_count_statistics(oracle, oracle.sample(np.arange(k), rng=0))
    np.testing.assert_allclose(used, rates, rtol=1e-12)  # the statistic IBU reads is the one written above
    f = ibu(n * truth @ rates, rates, tol=1e-15, max_iter=200_000)
    np.testing.assert_allclose(f, truth, atol=1e-8)


@pytest.mark.parametrize("name", BUILT_IN)
def test_ibu_stays_in_the_simplex(name: str) -> None:
    rng = np.random.default_rng(7)
    x = rng.choice(8, size=500, p=np.array([0.6, 0.2, 0.1, 0.05, 0.05, 0, 0, 0]))
    for eps in (0.5, 3.0):
        oracle = make_oracle(name, 8, eps)
        f = ibu_estimate(oracle, oracle.sample(x, rng=rng))
        assert np.all(f >= 0.0) and f.sum() == pytest.approx(1.0, abs=1e-12)


def _numpy_em(c: np.ndarray, a: np.ndarray, steps: int) -> np.ndarray:
    """`steps` EM steps f ← normalise(f ⊙ A (c / (fA))) from the uniform f, in plain numpy."""
    f = np.full(a.shape[0], 1.0 / a.shape[0])
    for _ in range(steps):
        f = f * (a @ (c / (f @ a)))
        f /= f.sum()
    return f


def test_ibu_takes_the_same_steps_as_a_numpy_em_loop() -> None:
    """STD-IBU: with tol = 0 the compiled loop runs exactly max_iter steps of the map, as plain numpy does."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        k, m = rng.integers(2, 9), rng.integers(2, 12)
        a = rng.dirichlet(np.ones(m), size=k)
        c = rng.integers(0, 50, size=m).astype(float) + 1.0
        steps = int(rng.integers(1, 300))
        np.testing.assert_allclose(ibu(c, a, tol=1e-300, max_iter=steps), _numpy_em(c, a, steps), rtol=1e-10,
                                   atol=1e-14)


def test_ibu_rejects_bad_input() -> None:
    rates = np.eye(3) * 0.5 + 0.5 / 3
    with pytest.raises(ValueError, match="`tol`"):
        ibu(np.ones(3), rates, tol=0.0)
    with pytest.raises(ValueError, match="`max_iter`"):
        ibu(np.ones(3), rates, max_iter=0)
    with pytest.raises(ValueError, match="`counts`"):
        ibu(np.ones(4), rates)
    with pytest.raises(TypeError, match="`oracle`"):
        ibu_estimate(object(), [0, 1])


class HalfRR:
    """A user's oracle: k-ary RR at eps/2 (a plain class that is no Mechanism, only the protocol)."""

    def __init__(self, k: int, eps: float) -> None:
        self.inner = md.RandomizedResponse(k, eps / 2)

    channel = property(lambda self: self.inner.channel)
    randomness_bits = property(lambda self: self.inner.randomness_bits)
    output_entropy_bits = property(lambda self: self.inner.output_entropy_bits)

    def sample(self, x, *, rng=None):
        return self.inner.sample(x, rng=rng)

    def estimate(self, reports):
        return self.inner.estimate(reports)


@pytest.fixture
def user_oracle():
    register_oracle("HALF-RR", HalfRR)
    yield "HALF-RR"
    del oracles.ORACLES["HALF-RR"]


def test_a_user_oracle_registered_once_appears_in_both(user_oracle: str) -> None:
    """SRP-Tab1's grid and the SRP-Est sweep both pick it up; SRP-Tab1 certifies its true eps (eps0/2)."""
    assert user_oracle in list(catalogue_local.SRP_TAB1.grid(quick=True)["oracle"])
    assert user_oracle in list(frequency_estimation.QUICK_GRID["mechanism"])
    ds = run_sweep(catalogue_local.SRP_TAB1, samples=2000, seed=1, quick=True, executor="synchronous")
    certified = ds["certified_eps"].sel(oracle=user_oracle)
    assert float(abs(certified / (certified["eps0"] / 2) - 1).max()) <= 1e-12
    grid = {"mechanism": [user_oracle, "GRR"], "k": [4], "n": [500], "eps": [2.0]}
    sweep = frequency_estimation.frequency_estimation(grid, reps=2, scheduler="synchronous")
    assert list(sweep["mechanism"].values) == [user_oracle, "GRR"]
    assert np.all(np.isfinite(sweep["l1_ibu"].values))


def test_registry_rejects_bad_registrations() -> None:
    with pytest.raises(ValueError, match="`name`"):
        register_oracle("GRR", md.RandomizedResponse)
    with pytest.raises(TypeError, match="`factory`"):
        register_oracle("X", 3)
    with pytest.raises(ValueError, match="`name`"):
        make_oracle("NOPE", 4, 1.0)
    register_oracle("NOT-AN-ORACLE", lambda k, eps: object())
    try:
        with pytest.raises(TypeError, match="FrequencyOracle"):
            make_oracle("NOT-AN-ORACLE", 4, 1.0)
    finally:
        del oracles.ORACLES["NOT-AN-ORACLE"]
