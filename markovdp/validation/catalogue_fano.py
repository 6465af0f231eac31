"""The scenarios of Fano's method under local DP (AAC-Fano) and of private mean estimation (AAC-LeCam-mean) that
`markovdp validate` runs.

AAC-LeCam-mean: the two-point Le Cam bound for one-dimensional mean estimation holds for every (eps, delta)-LDP
channel because the TV of n outputs is largest through the dominating channel Q (`canonical_ldp_channel`). The
scenario puts a seeded random binary channel K at its exact eps (`ldp_epsilon(K, delta)`) beside Q at the same
(eps, delta), for the pair `mean_le_cam` chose: ``bound`` = TV of n outputs through Q, ``exact`` = through K (count
laws, exact), and a Monte Carlo of K's n-sample output counts with the box interval at eps = 0 (TV).

A fixed family of M input laws on k = 5 points (seeded Dirichlet(1/2) rows, V uniform) is observed through n samples
of k-ary randomized response at eps. Fano's inequality with the bound on I(V; Z^n) of `private_fano_bound` caps the
probability that any test decodes V; the scenario checks that cap (``bound``) against the exact success probability
of the MAP test (``exact``: Σ_c max_v P_v(c) / M over the count vectors c, sufficient for i.i.d. outputs) and against
a Monte Carlo of the MAP test (V drawn, n inputs and outputs drawn, V decoded from the counts) with an exact
Clopper–Pearson interval. Success = 1 − error, so the error lower bound becomes an upper bound, as the verdict wants.

Factories are module-level functions so the scenario pickles to dask workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..divergences.estimate import Estimate, estimate_hockey_stick_from_counts
from ..guarantees.bayes_bernoulli import canonical_ldp_channel
from ..guarantees.coefficients import ldp_epsilon
from ..guarantees.fano import FanoBound, PriorFamily, private_fano_bound
from ..guarantees.le_cam import _count_log_pmfs, product_tv
from ..guarantees.mean_estimation import MeanLeCam, mean_le_cam
from ..mechanisms.finite import RandomizedResponse
from .scenario import Scenario, ScenarioVariable

#: Input points of the family's laws, and the seed of the laws.
FANO_STATES = 5
FANO_SEED = 1997

COORDINATES = {
    "M": ("number of hypotheses (laws of the family, V uniform)", "1"),
    "eps": ("randomized response privacy level eps", "nats"),
    "n": ("number of privatised samples", "1"),
}


@lru_cache(maxsize=16)
def fano_family(M: int) -> PriorFamily:
    """M seeded Dirichlet(1/2) laws on FANO_STATES points, parameters 0..M−1 (absolute loss; tau = 1/2)."""
    rng = np.random.default_rng([FANO_SEED, int(M)])
    return PriorFamily(rng.dirichlet(np.full(FANO_STATES, 0.5), size=int(M)), np.arange(float(M)), metric="l1",
                       power=1.0)


def fano_channel(eps: float) -> NDArray[np.float64]:
    return RandomizedResponse(FANO_STATES, float(eps)).matrix


@lru_cache(maxsize=256)
def _fano(M: int, eps: float, n: int) -> FanoBound:
    return private_fano_bound(fano_channel(eps), fano_family(M), int(n))


def _outputs(M: int, eps: float) -> NDArray[np.float64]:
    """The one-sample output laws P_v K, renormalised against the last ulps."""
    out = np.clip(fano_family(M).laws @ fano_channel(eps), 0.0, None)
    return out / out.sum(axis=1, keepdims=True)


def map_success(out_laws: NDArray[np.float64], n: int) -> float:
    """The MAP test's success probability Σ_c max_v P_v(c) / M, V uniform, over the count vectors c of n i.i.d.
    outputs (`le_cam`'s count-vector laws; the MAP test on counts is the MAP test on sequences)."""
    from scipy import special

    log_p = np.stack([_count_log_pmfs(q, q, int(n))[0] for q in out_laws])
    return min(float(np.exp(special.logsumexp(log_p.max(axis=0)))) / out_laws.shape[0], 1.0)


def fano_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """1 − Fano's error bound (inverse form): no test decodes V with a larger probability."""
    value = 1.0 - _fano(int(point["M"]), float(point["eps"]), int(point["n"])).error_bound_sharp
    return value, "AAC-Fano", {"AAC-Fano": value}


def fano_exact(point: dict) -> float:
    return map_success(_outputs(int(point["M"]), float(point["eps"])), int(point["n"]))


def fano_information_bound(point: dict, values: dict) -> float:
    return _fano(int(point["M"]), float(point["eps"]), int(point["n"])).mutual_information


def fano_information_exact(point: dict, values: dict) -> float:
    """I(V; Z^n) exactly, over the count vectors."""
    from scipy import special

    out = _outputs(int(point["M"]), float(point["eps"]))
    log_p = np.stack([_count_log_pmfs(q, q, int(point["n"]))[0] for q in out])
    log_mean = special.logsumexp(log_p, axis=0) - math.log(log_p.shape[0])
    p = np.exp(log_p)
    return float(np.sum(np.where(p > 0, p * (log_p - log_mean[None, :]), 0.0))) / log_p.shape[0]


def fano_closed_success(point: dict, values: dict) -> float:
    return 1.0 - _fano(int(point["M"]), float(point["eps"]), int(point["n"])).error_bound


def _draw(cdf: NDArray[np.float64], rows: NDArray[np.int64], rng: np.random.Generator) -> NDArray[np.int64]:
    """One draw from the law cdf[r] for each entry r of `rows` (inverse CDF)."""
    u = rng.random(rows.shape)
    return np.minimum((u[..., None] >= cdf[rows][..., :-1]).sum(axis=-1), cdf.shape[1] - 1)


@dataclass(frozen=True)
class MapTestScenario(Scenario):
    """A `Scenario` whose Monte Carlo is the MAP test of V from n privatised samples: `simulate` returns
    [[wrong, right], [wrong, right]] for two halves of the batch; `estimate` is the success rate with the exact
    Clopper–Pearson interval (valid at any n)."""

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        M, eps, samples = int(point["M"]), float(point["eps"]), int(point["n"])
        family = fano_family(M)
        channel = fano_channel(eps)
        out = _outputs(M, eps)
        rows = []
        for _ in range(2):
            v = rng.integers(0, M, size=n)
            x = _draw(np.cumsum(family.laws, axis=1), np.repeat(v[:, None], samples, axis=1), rng)
            z = _draw(np.cumsum(channel, axis=1), x, rng)
            counts = np.stack([(z == y).sum(axis=1) for y in range(channel.shape[1])], axis=1)
            from scipy import special

            guess = special.xlogy(counts[:, None, :], out[None, :, :]).sum(axis=2).argmax(axis=1)
            right = int((guess == v).sum())
            rows.append([n - right, right])
        return np.asarray(rows, dtype=np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        from scipy import stats

        total = counts.sum(axis=(0, 1))
        trials, right = int(total.sum()), int(total[1])
        interval = stats.binomtest(right, trials).proportion_ci(confidence_level=confidence, method="exact")
        return Estimate(value=right / trials, ci_low=float(interval.low), ci_high=float(interval.high), n=trials,
                        method="MAP test success rate, Clopper-Pearson", confidence=confidence)


AAC_FANO = MapTestScenario(
    name="AAC-Fano",
    theory_id="AAC-Fano",
    description="Fano under local DP: the probability that the MAP test decodes V (uniform on M laws) from n samples "
                "of randomized response, exact and by Monte Carlo, against 1 − Fano's bound with I(V; Z^n) <= "
                "n I(V; Z).",
    grid_full={"M": (3, 4, 6), "eps": (0.25, 0.5, 1.0, 2.0, 4.0), "n": (1, 2, 4, 8, 16)},
    grid_quick={"M": (4,), "eps": (0.5, 2.0), "n": (2, 8)},
    bound=fano_bound,
    exact=fano_exact,
    estimator="discrete",
    quantity="ratio",
    label="probability that the MAP test decodes V",
    units="1",
    coordinates=COORDINATES,
    variables={
        "mi_bound": ScenarioVariable("the bound on I(V; Z^n) used (nats)", "nats", fano_information_bound),
        "mi_exact": ScenarioVariable("I(V; Z^n) exactly (nats)", "nats", fano_information_exact),
        "closed_form_success": ScenarioVariable("1 − the closed form 1 − (I + log 2)/log M (>= bound)", "1",
                                                fano_closed_success),
    },
)


# ------------------------------------------------------------------------------------ AAC-LeCam-mean
#: The seed of the random binary channels.
MEAN_SEED = 2015

MEAN_COORDINATES = {
    "channel": ("seed index of the random binary-input, binary-output channel K", "1"),
    "delta": ("the channel's delta (its eps is exact at this delta)", "1"),
    "n": ("number of privatised samples", "1"),
    "model": ("data class: bounded (X in [-1, 1]) or second_moment (E X^2 <= 1)", "1"),
}


@lru_cache(maxsize=64)
def mean_channel(channel: int) -> NDArray[np.float64]:
    """A seeded 2 × 2 channel with every entry positive (finite eps at every delta)."""
    rng = np.random.default_rng([MEAN_SEED, int(channel)])
    matrix = rng.dirichlet(np.ones(2), size=2)
    matrix.setflags(write=False)
    return matrix


@lru_cache(maxsize=256)
def _mean(channel: int, delta: float, n: int, model: str) -> tuple[float, MeanLeCam]:
    eps = ldp_epsilon(mean_channel(channel), float(delta))
    return eps, mean_le_cam(int(n), eps, float(delta), model=str(model))


def _mean_laws(point: dict) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    eps, found = _mean(int(point["channel"]), float(point["delta"]), int(point["n"]), str(point["model"]))
    return eps, np.array(found.p0), np.array(found.p1)


def mean_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """TV of n outputs through the dominating channel Q at the channel's (eps, delta): the largest over channels."""
    eps, p0, p1 = _mean_laws(point)
    Q = canonical_ldp_channel(eps, float(point["delta"]))
    value = product_tv(p0 @ Q, p1 @ Q, int(point["n"]))
    return value, "AAC-LeCam-mean", {"AAC-LeCam-mean": value}


def mean_exact(point: dict) -> float:
    _, p0, p1 = _mean_laws(point)
    K = mean_channel(int(point["channel"]))
    return product_tv(p0 @ K, p1 @ K, int(point["n"]))


def mean_channel_eps(point: dict, values: dict) -> float:
    return _mean_laws(point)[0]


def mean_le_cam_bound(point: dict, values: dict) -> float:
    return _mean(int(point["channel"]), float(point["delta"]), int(point["n"]), str(point["model"]))[1].bound


def mean_closed_form(point: dict, values: dict) -> float:
    return _mean(int(point["channel"]), float(point["delta"]), int(point["n"]), str(point["model"]))[1].closed_form


@dataclass(frozen=True)
class CountTVScenario(Scenario):
    """A `Scenario` whose Monte Carlo is the number of 1-outputs among n samples of K from each law of the pair
    (a sufficient statistic), binned on 0..n; `estimate` is the box interval of the TV (E_1) of the two count laws."""

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        _, p0, p1 = _mean_laws(point)
        K = mean_channel(int(point["channel"]))
        samples = int(point["n"])
        rows = []
        for law in (p0, p1):
            x = (rng.random((n, samples)) < law[1]).astype(np.int64)  # input 1 with probability law[1]
            ones = (rng.random((n, samples)) < K[x, 1]).sum(axis=1)
            rows.append(np.bincount(ones, minlength=samples + 1))
        return np.asarray(rows, dtype=np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        total = counts.sum(axis=0)
        return estimate_hockey_stick_from_counts(total[0], total[1], eps=0.0, confidence=confidence, method="box")


AAC_LE_CAM_MEAN = CountTVScenario(
    name="AAC-LeCam-mean",
    theory_id="AAC-LeCam-mean",
    description="One-dimensional private mean estimation: the TV of n outputs of a random (eps, delta)-LDP binary "
                "channel, exact and by Monte Carlo, never above that through the Kairouz-Oh-Viswanath dominating "
                "channel, on which the two-point Le Cam bound for every channel rests.",
    grid_full={"channel": (0, 1, 2, 3), "delta": (0.0, 0.01, 0.1), "n": (4, 16, 32),
               "model": ("bounded", "second_moment")},
    grid_quick={"channel": (0, 1), "delta": (0.0, 0.05), "n": (8,), "model": ("bounded",)},
    bound=mean_bound,
    exact=mean_exact,
    estimator="discrete",
    quantity="tv",
    label="total variation of the n privatised samples",
    coordinates=MEAN_COORDINATES,
    variables={
        "channel_eps": ScenarioVariable("the channel's exact eps at delta (ldp_epsilon)", "nats", mean_channel_eps),
        "le_cam_bound": ScenarioVariable("the two-point Le Cam lower bound on the minimax squared-error risk", "1",
                                         mean_le_cam_bound),
        "closed_form": ScenarioVariable("the phi closed form (<= le_cam_bound)", "1", mean_closed_form),
    },
)

FANO_SCENARIOS = (AAC_FANO, AAC_LE_CAM_MEAN)
