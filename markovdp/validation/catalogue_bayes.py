"""Built-in scenario for AAC-Bayes: lower bound / exact Bayes risk / Monte Carlo risk of the Bayes estimator.

AAC's Bernoulli setting (delta = 1e-4; theta uniform on an m-point midpoint grid of [0, 1]) through the canonical
(eps, delta) channel, the least Bayes risk over every (eps, delta)-LDP channel. The quantity is the ratio
lower bound / risk, which the claim puts at <= 1 ("bound" 1): "exact" is the best lower bound of
`ldp_bayes_lower_bound` over the exact Bayes risk of `bayes_risk`; the Monte Carlo simulates the whole experiment
(theta from the prior, n raw Bernoulli samples, each privatised by the channel, the Bayes estimator's action on
the count vector, its loss) and reports lower bound / simulated risk, whose lower confidence limit uses the
Hoeffding upper limit of the risk (losses in [0, max loss], valid at every sample size). A violation: the bound
above the exact risk, or above the Monte Carlo's upper limit of the Bayes estimator's risk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..divergences.estimate import Estimate
from ..guarantees.bayes import BayesRisk, bayes_lower_bound, bayes_risk, ldp_bayes_lower_bound
from ..guarantees.bayes_bernoulli import bernoulli_grid, canonical_ldp_channel
from .scenario import Scenario, ScenarioVariable

#: delta of the channels and the size of the parameter grid.
BAYES_DELTA, BAYES_GRID = 1e-4, 11


@lru_cache(maxsize=32)
def _risk(eps: float, n: int, loss: str) -> BayesRisk:
    """The exact Bayes risk with the estimator table, once per process (simulate reads it every batch)."""
    thetas, laws = bernoulli_grid(BAYES_GRID)
    return bayes_risk(canonical_ldp_channel(eps, BAYES_DELTA), thetas, laws, n, loss=loss, estimator=True)


@lru_cache(maxsize=32)
def _bounds(eps: float, n: int, loss: str) -> tuple[float, float, float, float]:
    """(LDP Le Cam, LDP E_gamma, channel Le Cam, channel E_gamma): the channel-free and the channel's bounds."""
    thetas, laws = bernoulli_grid(BAYES_GRID)
    free = ldp_bayes_lower_bound(eps, BAYES_DELTA, thetas, laws, n, loss=loss)
    own = bayes_lower_bound(canonical_ldp_channel(eps, BAYES_DELTA), thetas, laws, n, loss=loss)
    return free.le_cam, free.e_gamma, own.le_cam, own.e_gamma


def _point(point: dict) -> tuple[float, int, str]:
    return float(point["eps"]), int(point["n"]), str(point["loss"])


def _lower(point: dict) -> float:
    """The best lower bound valid for every (eps, delta)-LDP channel."""
    return max(_bounds(*_point(point))[:2])


def bayes_ratio_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """The claim: lower bound / exact Bayes risk <= 1 (each bound's ratio among the candidates)."""
    risk = _risk(*_point(point)).risk
    le_cam, e_gamma = _bounds(*_point(point))[:2]
    return 1.0, "AAC-Bayes", {"AAC-Bayes-LeCam": le_cam / risk, "AAC-Bayes-Egamma": e_gamma / risk}


def bayes_ratio_exact(point: dict) -> float:
    return _lower(point) / _risk(*_point(point)).risk


def bayes_exact_risk(point: dict, values: dict) -> float:
    return _risk(*_point(point)).risk


def bayes_ldp_le_cam(point: dict, values: dict) -> float:
    return _bounds(*_point(point))[0]


def bayes_ldp_e_gamma(point: dict, values: dict) -> float:
    return _bounds(*_point(point))[1]


def bayes_channel_le_cam(point: dict, values: dict) -> float:
    return _bounds(*_point(point))[2]


def bayes_channel_e_gamma(point: dict, values: dict) -> float:
    return _bounds(*_point(point))[3]


def _loss_table(point: dict) -> NDArray[np.float64]:
    """loss(action at count vector c, theta_j), (m, C)."""
    found = _risk(*_point(point))
    diff = found.actions[None, :] - found.thetas[:, None]
    return {"zero_one": (diff != 0.0).astype(np.float64), "absolute": np.abs(diff), "squared": diff * diff}[found.loss]


@dataclass(frozen=True)
class BayesRiskScenario(Scenario):
    """A `Scenario` whose Monte Carlo is the loss of the Bayes estimator on simulated experiments (AAC-Bayes).

    `simulate` runs 2n experiments (both count rows are experiments of the same kind: there is no neighbour pair)
    and counts them by cell (theta index, count vector of the privatised outputs); `estimate` turns the cells'
    losses into lower bound / mean loss with the Hoeffding interval of the mean loss (ci_low from its upper end).
    """

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        eps, samples, _ = _point(point)
        found = _risk(*_point(point))
        channel = np.cumsum(canonical_ldp_channel(eps, BAYES_DELTA), axis=1)
        m, r = found.thetas.size, channel.shape[1]
        radix = (samples + 1) ** np.arange(r)
        lookup = np.full((samples + 1) ** r, -1, dtype=np.int64)
        lookup[found.counts.astype(np.int64) @ radix] = np.arange(found.counts.shape[0])
        rows = []
        for _ in range(2):
            theta = rng.integers(0, m, size=n)  # the uniform prior
            x = (rng.random((n, samples)) < found.thetas[theta][:, None]).astype(np.int64)
            z = (rng.random((n, samples))[..., None] >= channel[x]).sum(axis=-1)  # inverse CDF of K(x, .)
            counts = np.stack([(z == s).sum(axis=1) for s in range(r)], axis=1)
            cell = theta * found.counts.shape[0] + lookup[counts @ radix]
            rows.append(np.bincount(cell, minlength=m * found.counts.shape[0]))
        return np.stack(rows).astype(np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        if counts is None:
            return None
        table = _loss_table(point).reshape(-1)
        total = counts.sum(axis=(0, 1))
        trials = int(total.sum())
        mean = float(total @ table) / trials
        half = float(table.max()) * math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * trials))
        lower = _lower(point)
        high = lower / (mean - half) if mean - half > 0.0 else math.inf
        return Estimate(value=lower / mean if mean > 0 else math.inf, ci_low=lower / (mean + half), ci_high=high,
                        n=trials, method="Bayes estimator's simulated loss, Hoeffding", confidence=confidence)


AAC_BAYES = BayesRiskScenario(
    name="AAC-Bayes",
    theory_id="AAC-Bayes",
    description="Bernoulli mean on an 11-point grid, uniform prior, delta = 1e-4, through the canonical (eps, delta) "
                "channel (the least Bayes risk over LDP channels): the Le Cam / E_gamma lower bounds valid for every "
                "(eps, delta)-LDP channel over the exact Bayes risk (<= 1), and over the simulated risk of the exact "
                "Bayes estimator.",
    grid_full={"eps": (0.1, 0.5, 1.0, 2.0, 5.0), "n": (5, 20), "loss": ("zero_one", "absolute", "squared")},
    grid_quick={"eps": (0.5, 2.0), "n": (20,), "loss": ("absolute", "squared")},
    bound=bayes_ratio_bound,
    exact=bayes_ratio_exact,
    estimator="discrete",
    quantity="ratio",
    label="lower bound / Bayes risk",
    coordinates={"eps": ("privacy level eps of the channels", "nats"), "n": ("number of samples", "1"),
                 "loss": ("loss", "")},
    variables={
        "bayes_risk": ScenarioVariable("exact Bayes risk through the canonical channel", "1", bayes_exact_risk),
        "le_cam_ldp": ScenarioVariable("Le Cam bound valid for every (eps, delta)-LDP channel", "1",
                                       bayes_ldp_le_cam),
        "e_gamma_ldp": ScenarioVariable("E_gamma-information bound valid for every (eps, delta)-LDP channel", "1",
                                        bayes_ldp_e_gamma),
        "le_cam_channel": ScenarioVariable("Le Cam bound for the canonical channel (exact overlaps)", "1",
                                           bayes_channel_le_cam),
        "e_gamma_channel": ScenarioVariable("E_gamma-information bound for the canonical channel", "1",
                                            bayes_channel_e_gamma),
    },
)

BAYES_SCENARIOS = (AAC_BAYES,)
