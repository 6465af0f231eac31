"""The AAC-Fano validation scenario: exact MAP success against brute force, bound above exact, Monte Carlo coverage."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from markovdp.guarantees.coefficients import dobrushin
from markovdp.validation import get_scenario
from markovdp.validation.catalogue_fano import (
    AAC_FANO,
    AAC_LE_CAM_MEAN,
    _mean_laws,
    _outputs,
    map_success,
    mean_channel,
)


def test_aac_fano_map_success_equals_enumeration_of_sequences():
    out = _outputs(4, 1.0)
    n = 3
    zs = np.array(list(itertools.product(range(out.shape[1]), repeat=n)))
    seq = np.stack([np.prod(q[zs], axis=1) for q in out])  # P_v(z^n), every sequence
    assert map_success(out, n) == pytest.approx(seq.max(axis=0).sum() / 4, rel=1e-12)


@pytest.mark.parametrize("point", [{"M": 4, "eps": 0.5, "n": 2}, {"M": 3, "eps": 4.0, "n": 16}])
def test_aac_fano_scenario_bound_exact_and_monte_carlo(point):
    assert get_scenario("AAC-Fano") is AAC_FANO
    values = AAC_FANO.evaluate(point)
    assert values["exact"] <= values["bound"] <= 1.0
    assert values["variables"]["mi_exact"] <= values["variables"]["mi_bound"]
    assert values["bound"] <= values["variables"]["closed_form_success"] + 1e-15
    rng = np.random.default_rng(20191208)
    counts = np.stack([AAC_FANO.simulate(point, 5000, rng) for _ in range(2)])
    found = AAC_FANO.estimate(point, counts, confidence=1 - 1e-6)  # fails with probability <= 1e-6
    assert found.n == 20000
    assert found.ci_low <= values["exact"] <= found.ci_high


@pytest.mark.parametrize("point", [{"channel": 0, "delta": 0.05, "n": 6, "model": "bounded"},
                                   {"channel": 2, "delta": 0.0, "n": 5, "model": "second_moment"}])
def test_aac_lecam_mean_scenario_channel_tv_below_the_dominating_channels(point):
    assert get_scenario("AAC-LeCam-mean") is AAC_LE_CAM_MEAN
    eps, p0, p1 = _mean_laws(point)
    K = mean_channel(point["channel"])
    assert dobrushin(K, eps) <= point["delta"] + 1e-12  # K is (eps, delta)-LDP
    n = point["n"]
    zs = np.array(list(itertools.product(range(2), repeat=n)))
    seq = [np.prod((law @ K)[zs], axis=1) for law in (p0, p1)]  # every output sequence
    values = AAC_LE_CAM_MEAN.evaluate(point)
    assert values["exact"] == pytest.approx(0.5 * np.abs(seq[0] - seq[1]).sum(), rel=1e-10)
    assert values["exact"] <= values["bound"] * (1 + 1e-12)
    assert values["variables"]["closed_form"] <= values["variables"]["le_cam_bound"]
    rng = np.random.default_rng(20191208)
    counts = np.stack([AAC_LE_CAM_MEAN.simulate(point, 10000, rng) for _ in range(2)])
    found = AAC_LE_CAM_MEAN.estimate(point, counts, confidence=1 - 1e-6)
    assert found.ci_low <= values["exact"] <= found.ci_high
