"""The scenarios of private hypothesis testing and information under local DP (AAC-Test, AAC-MI).

- AAC-Test: the exact type-II exponent −log beta_n(alpha) of testing p0 vs p1 from n samples through an
  (eps, delta)-LDP channel, against the bound (n phi(eps, delta) D(p0 || p1) + h(alpha)) / (1 − alpha) (data
  processing of KL onto the test's decision, then AAC-phi); the Monte Carlo runs the exact Neyman–Pearson test on
  simulated samples under p1, with a Clopper–Pearson interval on beta.
- AAC-MI: the exact max of I(X; Z) over (eps, delta)-LDP channels (uniform X) against phi(eps, delta) H(X); the
  Monte Carlo draws (X, Z) from the optimal channel: the plug-in MI, and a valid lower confidence limit from the
  Donsker–Varadhan bound (a test function chosen on one half of the draws, Hoeffding on the other half).

Factories are module-level functions so scenarios pickle to dask workers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..divergences.estimate import Estimate
from ..guarantees.aac import ldp_contraction_bound
from ..guarantees.coefficients import ldp_epsilon
from ..guarantees.mutual_information import MaxMutualInformation, max_mutual_information
from ..guarantees.testing import LLR_TIE_RTOL, PrivateTestTradeoff, private_test_tradeoff
from ..operators.finite import FiniteKernel
from .catalogue import tightness
from .catalogue_local import COORDINATES as LOCAL_COORDINATES
from .catalogue_local import aac_channel
from .scenario import Scenario, ScenarioVariable

COORDINATES = {
    **LOCAL_COORDINATES,
    "eps": ("the channel's target privacy level eps", "nats"),
    "n": ("number of privatised samples the test sees", "1"),
    "alpha": ("type-I error level of the test", "1"),
    "k": ("input alphabet size", "1"),
}

# ------------------------------------------------------------------------------------ AAC-Test
#: The two input laws tested (on the AAC_STATES = 3 inputs of `catalogue_local.aac_channel`).
TEST_P0, TEST_P1 = (0.5, 0.3, 0.2), (0.2, 0.3, 0.5)


@functools.lru_cache(maxsize=256)
def _tradeoff(channel: str, eps: float, delta: float, n: int, alpha: float) -> PrivateTestTradeoff:
    return private_test_tradeoff(aac_channel(channel, eps, delta), TEST_P0, TEST_P1, int(n), float(alpha),
                                 delta=float(delta))


def _tradeoff_at(point: dict) -> PrivateTestTradeoff:
    return _tradeoff(point["channel"], float(point["eps"]), float(point["delta"]), int(point["n"]),
                     float(point["alpha"]))


def _binary_entropy(alpha: float) -> float:
    return sum(-p * math.log(p) for p in (alpha, 1.0 - alpha) if p > 0)


def _exponent_bound(point: dict, per_sample: float) -> float:
    """(n · per_sample + h(alpha)) / (1 − alpha): any level-alpha test of n samples has
    d(1 − alpha || beta) <= n D(p0 K || p1 K) (data processing of KL onto accept/reject) and
    d(1 − alpha || beta) >= (1 − alpha) log(1/beta) − h(alpha)."""
    alpha = float(point["alpha"])
    return (int(point["n"]) * per_sample + _binary_entropy(alpha)) / (1.0 - alpha)


def aac_test_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-Test with AAC-phi: D(p0 K || p1 K) <= phi(eps*, delta) D(p0 || p1), eps* = the channel's exact eps."""
    value = _exponent_bound(point, _tradeoff_at(point).phi_bound)
    return value, "AAC-Test", {"AAC-Test": value}


def aac_test_exact(point: dict) -> float:
    return -float(_tradeoff_at(point).log_beta)


def aac_test_eta_tv(point: dict, values: dict) -> float:
    return _exponent_bound(point, _tradeoff_at(point).eta_tv_bound)


def aac_test_stein(point: dict, values: dict) -> float:
    return _exponent_bound(point, _tradeoff_at(point).stein_exponent)


def aac_test_beta(point: dict, values: dict) -> float:
    return float(_tradeoff_at(point).beta)


def aac_test_stein_exponent(point: dict, values: dict) -> float:
    return _tradeoff_at(point).stein_exponent


def aac_test_phi_kl(point: dict, values: dict) -> float:
    return _tradeoff_at(point).phi_bound


def _decisions(result: PrivateTestTradeoff, kernel: FiniteKernel, law: tuple[float, ...], n: int, trials: int,
               rng: np.random.Generator) -> NDArray[np.int64]:
    """[rejections, acceptances] of the exact NP test on `trials` simulated samples of n inputs from `law`."""
    m = kernel.matrix.shape[1]
    x = rng.choice(len(law), size=(trials, n), p=np.asarray(law))
    z = kernel.sample(x, rng=rng)
    counts = np.bincount((np.arange(trials)[:, None] * m + z).ravel(), minlength=trials * m).reshape(trials, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(result.law1) - np.log(result.law0)  # +inf where only p1 K charges the output
        llr = np.where(counts > 0, counts * np.where(np.isnan(ratio), 0.0, ratio)[None, :], 0.0).sum(axis=1)
    t = float(result.threshold)
    tol = LLR_TIE_RTOL * max(1.0, abs(t)) if math.isfinite(t) else 0.0
    reject = (llr > t + tol) | ((np.abs(llr - t) <= tol) & (rng.random(trials) < float(result.randomisation)))
    return np.array([int(reject.sum()), int(trials - reject.sum())], dtype=np.int64)


@dataclass(frozen=True)
class NeymanPearsonScenario(Scenario):
    """A `Scenario` whose Monte Carlo runs the exact Neyman–Pearson test of `private_test_tradeoff` (AAC-Test).

    `simulate` draws n-sample trials under p0 (row 0) and p1 (row 1) through the channel and counts the test's
    [rejections, acceptances]; `estimate` is −log of the acceptance rate under p1 (the type-II error beta) with a
    two-sided Clopper–Pearson interval mapped through −log (ci_low = −log of beta's upper limit: a valid lower
    confidence limit of the exponent).
    """

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        result = _tradeoff_at(point)
        kernel = aac_channel(point["channel"], float(point["eps"]), float(point["delta"]))
        return np.stack([_decisions(result, kernel, law, int(point["n"]), n, rng) for law in (TEST_P0, TEST_P1)])

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        if counts is None:
            return None
        from scipy.special import betainccinv, betaincinv  # here, not at import: import markovdp stays light

        accepted, trials = int(counts[:, 1, 1].sum()), int(counts[:, 1, :].sum())
        miss = (1.0 - confidence) / 2.0
        low = 0.0 if accepted == 0 else float(betaincinv(accepted, trials - accepted + 1, miss))
        high = 1.0 if accepted == trials else float(betainccinv(accepted + 1, trials - accepted, miss))
        value = math.inf if accepted == 0 else -math.log(accepted / trials)
        return Estimate(value=value, ci_low=-math.log(high), ci_high=math.inf if low == 0.0 else -math.log(low),
                        n=trials, method="NP test on simulated samples, Clopper–Pearson on beta",
                        confidence=confidence)


AAC_TEST = NeymanPearsonScenario(
    name="AAC-Test",
    theory_id="AAC-Test",
    description="Testing p0 vs p1 from n samples through an (eps, delta)-LDP channel: the exact type-II exponent "
                "−log beta_n(alpha) of the Neyman–Pearson test against (n phi D(p0||p1) + h(alpha))/(1 − alpha); "
                "the Monte Carlo runs that test on simulated samples.",
    grid_full={"channel": ("rr", "built"), "eps": (0.25, 0.5, 1.0, 2.0), "delta": (0.0, 0.05), "n": (1, 5, 20, 50),
               "alpha": (0.01, 0.05, 0.2)},
    grid_quick={"channel": ("rr",), "eps": (0.5, 2.0), "delta": (0.0, 0.1), "n": (5, 20), "alpha": (0.1,)},
    bound=aac_test_bound,
    exact=aac_test_exact,
    quantity="kl",
    label="type-II error exponent −log beta_n(alpha) of the n privatised samples",
    units="nats",
    coordinates=COORDINATES,
    variables={
        "beta": ScenarioVariable("exact type-II error beta_n(alpha)", "1", aac_test_beta),
        "stein_exponent": ScenarioVariable("Chernoff–Stein exponent D(p0 K || p1 K)", "nats", aac_test_stein_exponent),
        "phi_kl": ScenarioVariable("phi(eps, delta) D(p0 || p1) >= D(p0 K || p1 K)", "nats", aac_test_phi_kl),
        "bound_eta_tv": ScenarioVariable("(n eta_TV(K) D(p0||p1) + h(alpha))/(1 − alpha)", "nats",
                                         aac_test_eta_tv),
        "bound_stein": ScenarioVariable("(n D(p0 K||p1 K) + h(alpha))/(1 − alpha)", "nats", aac_test_stein),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ AAC-MI
#: Clip of the Donsker–Varadhan test function from below (nats): log-ratios below it (zero cells) count as it.
DV_FLOOR = -5.0


@functools.lru_cache(maxsize=64)
def _max_mi(k: int, eps: float, delta: float) -> MaxMutualInformation:
    return max_mutual_information(int(k), float(eps), float(delta))


def _max_mi_at(point: dict) -> MaxMutualInformation:
    return _max_mi(int(point["k"]), float(point["eps"]), float(point["delta"]))


def mi_phi_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-MI: I(X; Z) <= eta_KL H(X) <= phi(eps, delta) H(X) for every (eps, delta)-LDP channel."""
    result = _max_mi_at(point)
    value = ldp_contraction_bound(result.eps, result.delta) * result.entropy_nats
    return value, "AAC-MI", {"AAC-MI": value}


def mi_exact(point: dict) -> float:
    return _max_mi_at(point).mi_nats


def mi_bits(point: dict, values: dict) -> float:
    return _max_mi_at(point).mi_bits


def mi_eta_tv_bound(point: dict, values: dict) -> float:
    return _max_mi_at(point).eta_tv_bound_nats


def mi_mcgregor(point: dict, values: dict) -> float:
    return _max_mi_at(point).mcgregor_bound


def mi_outputs(point: dict, values: dict) -> float:
    return float(_max_mi_at(point).channel.shape[1])


def mi_channel_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(_max_mi_at(point).channel, float(point["delta"]))


def _plug_in(joint: NDArray[np.float64]) -> float:
    """The plug-in mutual information (nats) of a joint count table."""
    total = joint.sum()
    p = joint / total
    px, pz = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
    used = p > 0
    return float(np.sum(p[used] * np.log(p[used] / (px * pz)[used])))


def donsker_varadhan_lower(select: NDArray[np.float64], evaluate: NDArray[np.float64], law: NDArray[np.float64],
                           confidence: float) -> float:
    """A lower confidence limit of I(X; Z) (nats) when X's law is known: I >= E_{P_XZ} f − log E_{P_X ⊗ P_Z} e^f
    (Donsker–Varadhan) for f = the plug-in log-ratio of the `select` counts clipped to [DV_FLOOR, log(1/min P_X)];
    the first term's Hoeffding lower limit and the second's upper limit (h(z) = Σ_x P_X(x) e^f(x, z) averaged over
    the Z of the `evaluate` counts) at (1 − confidence)/2 each. Valid for any f, so the selection cannot bias it."""
    p = select / select.sum()
    pz = p.sum(axis=0)
    ceiling = -math.log(float(law[law > 0].min()))
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.log(p / (law[:, None] * pz[None, :]))
    f = np.clip(np.where(np.isfinite(f), f, DV_FLOOR), DV_FLOOR, ceiling)
    n = float(evaluate.sum())
    slack = math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * n))
    mean_f = float(np.sum(evaluate * f)) / n - (ceiling - DV_FLOOR) * slack
    h = law @ np.exp(f)
    mean_h = float(evaluate.sum(axis=0) @ h) / n + (math.exp(ceiling) - math.exp(DV_FLOOR)) * slack
    return max(mean_f - math.log(mean_h), 0.0)


@dataclass(frozen=True)
class MutualInformationScenario(Scenario):
    """A `Scenario` whose Monte Carlo draws (X, Z) from the optimal channel of `max_mutual_information` (AAC-MI).

    `simulate` returns two independent joint count tables (k·m cells each, X uniform); `estimate` is the plug-in MI
    of all draws with the Donsker–Varadhan lower limit (`donsker_varadhan_lower`: f chosen on row 0, evaluated on
    row 1); ci_high is NaN (no valid upper limit).
    """

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        channel = _max_mi_at(point).channel
        k, m = channel.shape
        kernel = FiniteKernel(channel)
        rows = []
        for _ in range(2):
            x = rng.integers(0, k, size=n)
            z = kernel.sample(x, rng=rng)
            rows.append(np.bincount(x * m + z, minlength=k * m))
        return np.stack(rows).astype(np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        if counts is None:
            return None
        result = _max_mi_at(point)
        k, m = result.channel.shape
        tables = counts.sum(axis=0).reshape(2, k, m).astype(np.float64)
        low = donsker_varadhan_lower(tables[0], tables[1], np.asarray(result.input_law), confidence)
        return Estimate(value=_plug_in(tables.sum(axis=0)), ci_low=low, ci_high=math.nan,
                        n=int(tables[1].sum()), method="plug-in; Donsker–Varadhan split lower limit (Hoeffding)",
                        confidence=confidence)


AAC_MI = MutualInformationScenario(
    name="AAC-MI",
    theory_id="AAC-MI",
    description="The exact max of I(X; Z) over (eps, delta)-LDP channels (uniform X on k points, an LP over the "
                "rays of the LDP cone) against phi(eps, delta) H(X); the Monte Carlo draws from the optimal channel "
                "(plug-in MI, Donsker–Varadhan lower limit), with eta_TV H(X) and McGregor et al.'s 3 eps beside.",
    grid_full={"k": (2, 3, 4, 5), "eps": (0.1, 0.5, 1.0, 2.0, 5.0), "delta": (0.0, 0.01, 0.1)},
    grid_quick={"k": (2, 3), "eps": (0.5, 2.0), "delta": (0.0, 0.1)},
    bound=mi_phi_bound,
    exact=mi_exact,
    quantity="kl",
    label="mutual information I(X; Z)",
    units="nats",
    coordinates=COORDINATES,
    variables={
        "mi_bits": ScenarioVariable("exact max I(X; Z) in bits", "bit", mi_bits),
        "eta_tv_bound": ScenarioVariable("eta_TV(optimal channel) H(X) (eta_TV stands in for eta_KL)", "nats",
                                         mi_eta_tv_bound),
        "mcgregor_bound": ScenarioVariable("3 eps as the seed cites it (pure LDP; NaN for delta > 0)", "1",
                                           mi_mcgregor),
        "outputs": ScenarioVariable("output alphabet size of the optimal channel", "1", mi_outputs),
        "channel_eps": ScenarioVariable("exact eps of the optimal channel at delta (ldp_epsilon)", "nats",
                                        mi_channel_eps),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)

TESTING_SCENARIOS = (AAC_TEST, AAC_MI)
