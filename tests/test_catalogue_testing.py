"""The AAC-Test and AAC-MI scenarios' Monte Carlo: the simulated NP test has level alpha and type-II error beta_n
(exact values inside Clopper–Pearson intervals at 1 − 1e-6), and the Donsker–Varadhan lower limit of I(X; Z)
stays below the exact mutual information."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from markovdp.validation.catalogue_testing import AAC_MI, AAC_TEST, _max_mi_at, _tradeoff_at, donsker_varadhan_lower

LEVEL = 1 - 1e-6


def test_aac_test_simulated_np_test_has_level_alpha_and_type_ii_error_beta():
    for i, point in enumerate([{"channel": "rr", "eps": 1.0, "delta": 0.0, "n": 10, "alpha": 0.1},
                               {"channel": "built", "eps": 2.0, "delta": 0.05, "n": 5, "alpha": 0.05}]):
        rng = np.random.default_rng(i)
        counts = np.stack([AAC_TEST.simulate(point, 20_000, rng) for _ in range(2)])
        result = _tradeoff_at(point)
        rejected0, trials = int(counts[:, 0, 0].sum()), int(counts[:, 0, :].sum())
        low, high = stats.binomtest(rejected0, trials).proportion_ci(LEVEL, method="exact")
        assert low <= point["alpha"] <= high  # the test's type-I error is alpha
        estimate = AAC_TEST.estimate(point, counts, LEVEL)
        exact = -math.log(result.beta)
        assert estimate.ci_low <= exact <= estimate.ci_high
        values = AAC_TEST.evaluate(point)
        assert values["exact"] == pytest.approx(exact, rel=1e-12) and exact <= values["bound"]
        assert values["variables"]["bound_stein"] <= values["variables"]["bound_eta_tv"] <= values["bound"] + 1e-12


def test_aac_mi_donsker_varadhan_limit_is_below_the_exact_value():
    """90% lower limits from 40 independent runs: none may exceed the truth more often than a 1e-6 binomial tail
    of 10% allows (the Hoeffding limit is conservative, so in practice none does); the plug-in is close."""
    point = {"k": 3, "eps": 1.0, "delta": 0.1}
    exact = _max_mi_at(point).mi_nats
    law = np.asarray(_max_mi_at(point).input_law)
    rng = np.random.default_rng(5)
    above = 0
    for _ in range(40):
        counts = AAC_MI.simulate(point, 4000, rng)
        k, m = _max_mi_at(point).channel.shape
        tables = counts.reshape(2, k, m).astype(float)
        above += donsker_varadhan_lower(tables[0], tables[1], law, 0.9) > exact
    assert above <= int(stats.binom.isf(1e-6, 40, 0.1))
    counts = np.stack([AAC_MI.simulate(point, 20_000, rng) for _ in range(2)])
    estimate = AAC_MI.estimate(point, counts, LEVEL)
    assert 0.0 <= estimate.ci_low <= exact and math.isnan(estimate.ci_high)
    assert abs(estimate.value - exact) <= 0.02  # plug-in on 80000 draws of 3 x m cells: bias ~1e-4, sd ~4e-3
    assert AAC_MI.evaluate(point)["bound"] >= exact
