"""The scenarios of the finite/closed-form spine that `markovdp validate` runs: one per THEORY result.

Factories are module-level functions so scenarios pickle to dask workers.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from numpy.typing import NDArray

from ..distributions import Categorical, Laplace, Normal
from ..divergences.exact import hockey_stick, kl
from ..guarantees.aac import ldp_contraction_bound
from ..guarantees.coefficients import dobrushin, ldp_epsilon
from ..guarantees.exact import privacy_profile
from ..guarantees.worst_case import worst_case_mechanism
from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import PostProcessed
from ..mechanisms.declared import DeclaredDP
from ..mechanisms.finite import FiniteMechanism, RandomizedResponse
from ..operators.algebra import tensor, tensor_power
from ..operators.finite import FiniteKernel
from .scenario import Scenario, ScenarioVariable

#: Outputs of every finite mechanism in the BBGG-T1 scenario (and inputs of its kernels).
K_STATES = 4
#: A two-input mechanism with a zero cell (infinite D_inf): exercises BBGG-T1.2 at eps~ = inf.
TWO_POINT_ROWS = ((0.55, 0.3, 0.15, 0.0), (0.1, 0.25, 0.3, 0.35))
DECLARED = (2.0, 0.05)
RR_EPS = 2.0
KERNEL_SEED = 2019


def _rows_dirichlet(concentration: float, k: int, seed: int) -> NDArray[np.float64]:
    return np.random.default_rng(seed).dirichlet(np.full(k, concentration), size=k)


def kernel_family(kernel: str, strength: float, k: int = K_STATES) -> FiniteKernel:
    """A k-state kernel that mixes more as `strength` in (0, 1) grows.

    rr: (1 − t) I + t U (U uniform); bsc: two independent binary symmetric channels with flip
    probability t/2 (a tensor product, 4 states); lazy: (1 − t) I + t C with C the cycle walk (sparse,
    not ultra-mixing); random: Dirichlet(t/(1 − t)) rows from a fixed seed (near-deterministic for small t).
    """
    t = float(strength)
    eye = np.eye(k)
    if kernel == "rr":
        return FiniteKernel((1 - t) * eye + t * np.full((k, k), 1.0 / k))
    if kernel == "bsc":
        flip = t / 2
        bsc = FiniteKernel([[1 - flip, flip], [flip, 1 - flip]])
        return tensor(bsc, bsc)
    if kernel == "lazy":
        cycle = 0.5 * (np.roll(eye, 1, axis=1) + np.roll(eye, -1, axis=1))
        return FiniteKernel((1 - t) * eye + t * cycle)
    if kernel == "random":
        return FiniteKernel(_rows_dirichlet(t / (1 - t), k, KERNEL_SEED))
    raise ValueError(f"`kernel` must be one of rr, bsc, lazy, random; got {kernel!r}.")


def mechanism_family(mechanism: str):
    """rr: RandomizedResponse(4, 2); two_point: a 2-input mechanism with a zero cell; declared: DeclaredDP(2, 0.05)."""
    if mechanism == "rr":
        return RandomizedResponse(K_STATES, RR_EPS)
    if mechanism == "two_point":
        return FiniteMechanism(np.array(TWO_POINT_ROWS), neighbours=[(0, 1)])
    if mechanism == "declared":
        return DeclaredDP(*DECLARED)
    raise ValueError(f"`mechanism` must be one of rr, two_point, declared; got {mechanism!r}.")


def bbgg_pipeline(mechanism: str, kernel: str, strength: float, eps: float) -> PostProcessed:
    return mechanism_family(mechanism) >> kernel_family(kernel, strength)


def bbgg_witness(mechanism: str, kernel: str, strength: float, eps: float) -> PostProcessed:
    """The concrete pipeline sampled: a DeclaredDP is replaced by the worst member of its class at `eps`
    (STD-BlackBoxExact: ``worst_case_mechanism(DeclaredDP >> K, eps) >> K`` attains the class's exact delta)."""
    pipeline = bbgg_pipeline(mechanism, kernel, strength, eps)
    if isinstance(pipeline.mechanism, DeclaredDP):
        return worst_case_mechanism(pipeline, eps) >> pipeline.kernel
    return pipeline


def bbgg_exact(point: dict) -> float:
    """The exact delta of the certified subject itself: for ``DeclaredDP(e0, d0) >> K`` the worst case over
    every (e0, d0)-DP mechanism (STD-BlackBoxExact), for a finite mechanism its exact profile."""
    return float(privacy_profile(bbgg_pipeline(**point), point["eps"]))


def tightness(point: dict, values: dict) -> float:
    """exact / bound (1 = the bound is attained); NaN where the bound is 0 or unknown."""
    bound = values["bound"]
    return math.nan if bound == 0 or math.isnan(bound) else values["exact"] / bound


#: Coordinates of the catalogue's grids: (long_name, units).
COORDINATES = {
    "eps": ("privacy level eps", "nats"),
    "mechanism": ("mechanism family (rr, two_point, declared)", "1"),
    "kernel": ("post-processing kernel family (rr, bsc, lazy, random)", "1"),
    "strength": ("mixing strength of the kernel family", "1"),
    "channel": ("LDP channel family (rr, random)", "1"),
    "param": ("channel parameter (rr: its eps in nats; random: Dirichlet concentration)", "1"),
    "n": ("number of channel copies in the tensor product", "1"),
    "pair": ("index of the random input pair", "1"),
    "sigma": ("Gaussian noise standard deviation sigma (sensitivity 1)", "1"),
    "scale": ("Laplace noise scale b (sensitivity 1)", "1"),
}


BBGG_T1 = Scenario(
    name="BBGG-T1",
    theory_id="BBGG-T1",
    description="Amplification by mixing (all four cases): exact post-processed delta <= certified delta.",
    grid_full={"mechanism": ("rr", "two_point", "declared"), "kernel": ("rr", "bsc", "lazy", "random"),
               "strength": (0.1, 0.3, 0.6, 0.9), "eps": (0.1, 0.5, 1.0, 2.0)},
    grid_quick={"mechanism": ("rr", "two_point", "declared"), "kernel": ("rr", "bsc", "lazy", "random"),
                "strength": (0.3, 0.8), "eps": (0.25, 1.0)},
    pipeline=bbgg_pipeline,
    witness=bbgg_witness,
    exact=bbgg_exact,
    coordinates=COORDINATES,
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound of the hockey-stick delta",
                                             "1", tightness)},
)


def channel_family(channel: str, param: float) -> FiniteKernel:
    """rr: 4-ary randomized response with eps = param; random: Dirichlet(param) rows from a fixed seed."""
    if channel == "rr":
        return FiniteKernel(RandomizedResponse(K_STATES, param).matrix)
    if channel == "random":
        return FiniteKernel(_rows_dirichlet(param, K_STATES, KERNEL_SEED + 1))
    raise ValueError(f"`channel` must be one of rr, random; got {channel!r}.")


def _random_pairs(k: int, count: int, seed: int):
    rng = np.random.default_rng(seed)
    return [(rng.dirichlet(np.full(k, 0.5)), rng.dirichlet(np.full(k, 0.5))) for _ in range(count)]


def aac_t1_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-T1 / AAC-eta: the smallest delta with K (eps, delta)-LDP is eta_{e^eps}(K) = dobrushin(K, eps)."""
    value = dobrushin(channel_family(point["channel"], point["param"]), point["eps"])
    return value, "AAC-T1", {"AAC-T1": value}


def aac_t1_exact(point: dict) -> float:
    """sup of E_gamma(mu K || nu K) / E_gamma(mu || nu) over point-mass pairs and random input pairs,
    computed with the exact divergences (an independent code path from the numba coefficient)."""
    kernel = channel_family(point["channel"], point["param"])
    eps = point["eps"]
    rows = [Categorical(r) for r in kernel.matrix]
    best = max(hockey_stick(p, q, eps=eps) for i, p in enumerate(rows) for j, q in enumerate(rows) if i != j)
    for mu, nu in _random_pairs(K_STATES, 64, KERNEL_SEED + 2):
        before = hockey_stick(Categorical(mu), Categorical(nu), eps=eps)
        if before > 1e-9:
            after = hockey_stick(Categorical(mu) >> kernel, Categorical(nu) >> kernel, eps=eps)
            best = max(best, after / before)
    return best


def aac_t1_witness(channel: str, param: float, eps: float) -> FiniteMechanism:
    return FiniteMechanism(channel_family(channel, param).matrix)


AAC_T1 = Scenario(
    name="AAC-T1",
    theory_id="AAC-T1",
    description="LDP certification: the E_gamma contraction coefficient equals the two-point sup (AAC-eta).",
    grid_full={"channel": ("rr", "random"), "param": (0.5, 1.0, 2.0), "eps": (0.0, 0.25, 0.5, 1.0, 2.0)},
    grid_quick={"channel": ("rr", "random"), "param": (0.5, 2.0), "eps": (0.0, 1.0)},
    witness=aac_t1_witness,
    bound=aac_t1_bound,
    exact=aac_t1_exact,
    target="equality",
    label="E_gamma contraction coefficient eta_{e^eps} (a hockey-stick delta)",
    coordinates=COORDINATES,
)


def _phi_inputs(point: dict):
    kernel = tensor_power(channel_family(point["channel"], point["param"]), int(point["n"]))
    size = kernel.domain.size
    mu, nu = _random_pairs(size, 1, KERNEL_SEED + 100 + int(point["pair"]))[0]
    return kernel, Categorical(mu), Categorical(nu)


def aac_phi_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-phi: KL(mu K^n || nu K^n) <= phi_n(eps, 0) KL(mu || nu), eps = the channel's LDP level."""
    kernel, mu, nu = _phi_inputs(point)
    eps = ldp_epsilon(channel_family(point["channel"], point["param"]))
    value = ldp_contraction_bound(eps, 0.0, int(point["n"])) * kl(mu, nu)
    return value, "AAC-phi", {"AAC-phi": value}


def aac_phi_exact(point: dict) -> float:
    kernel, mu, nu = _phi_inputs(point)
    return kl(mu >> kernel, nu >> kernel)


AAC_PHI = Scenario(
    name="AAC-phi",
    theory_id="AAC-phi",
    description="KL contraction of random input pairs through n-fold products of LDP channels vs phi_n.",
    grid_full={"channel": ("rr", "random"), "param": (0.5, 1.0, 2.0), "n": (1, 2), "pair": tuple(range(6))},
    grid_quick={"channel": ("rr", "random"), "param": (1.0,), "n": (1, 2), "pair": (0, 1, 2)},
    bound=aac_phi_bound,
    exact=aac_phi_exact,
    estimator="none",
    quantity="kl",
    coordinates=COORDINATES,
)

#: Neighbouring query values of the continuous closed-form scenarios (sensitivity 1).
CONTINUOUS_PAIR = (0.0, 1.0)


def _closed_form(law, point: dict) -> tuple[float, str, dict[str, float]]:
    name, mu, nu = law(point)
    value = hockey_stick(mu, nu, eps=point["eps"])
    return value, name, {name: value}


def _quadrature(law, point: dict) -> float:
    _, mu, nu = law(point)
    return hockey_stick(mu, nu, eps=point["eps"], method="quadrature")


def gauss_laws(point: dict):
    s = point["sigma"]
    return "STD-GaussHS", Normal(CONTINUOUS_PAIR[0], s), Normal(CONTINUOUS_PAIR[1], s)


def laplace_laws(point: dict):
    b = point["scale"]
    return "STD-LapHS", Laplace(CONTINUOUS_PAIR[0], b), Laplace(CONTINUOUS_PAIR[1], b)


def gauss_mechanism(sigma: float, eps: float) -> GaussianMechanism:
    return GaussianMechanism(sigma, sensitivity=1.0)


def laplace_mechanism(scale: float, eps: float) -> LaplaceMechanism:
    return LaplaceMechanism(scale, sensitivity=1.0)


def continuous_pair(**point) -> tuple[float, float]:
    return CONTINUOUS_PAIR


#: Inner bin edges of the continuous scenarios: few enough bins that the selection half of a quick run
#: (10^4 samples per side) picks the event reliably, fine enough to resolve the optimal half-line.
N_EDGES = 47


def gauss_bins(sigma: float, eps: float) -> NDArray[np.float64]:
    return np.linspace(-4 * sigma, 1 + 4 * sigma, N_EDGES)


def laplace_bins(scale: float, eps: float) -> NDArray[np.float64]:
    return np.linspace(-6 * scale, 1 + 6 * scale, N_EDGES)


STD_GAUSS_HS = Scenario(
    name="STD-GaussHS",
    theory_id="STD-GaussHS",
    description="Gaussian hockey-stick: closed form (log space) vs quadrature vs Monte Carlo.",
    grid_full={"sigma": (0.25, 0.5, 1.0, 2.0), "eps": (0.0, 0.5, 1.0, 2.0, 4.0)},
    grid_quick={"sigma": (0.5, 1.0), "eps": (0.0, 1.0, 3.0)},
    witness=gauss_mechanism,
    pair=continuous_pair,
    bound=partial(_closed_form, gauss_laws),
    exact=partial(_quadrature, gauss_laws),
    target="equality",
    estimator="continuous",
    bins=gauss_bins,
    coordinates=COORDINATES,
)

STD_LAP_HS = Scenario(
    name="STD-LapHS",
    theory_id="STD-LapHS",
    description="Laplace hockey-stick: closed form vs quadrature vs Monte Carlo.",
    grid_full={"scale": (0.5, 1.0, 2.0), "eps": (0.0, 0.25, 0.5, 1.0, 1.5)},
    grid_quick={"scale": (0.5, 1.0), "eps": (0.0, 0.5, 1.5)},
    witness=laplace_mechanism,
    pair=continuous_pair,
    bound=partial(_closed_form, laplace_laws),
    exact=partial(_quadrature, laplace_laws),
    target="equality",
    estimator="continuous",
    bins=laplace_bins,
    coordinates=COORDINATES,
)

#: The scenarios of the finite/closed-form spine (BBGG §3, AAC, the closed forms).
SPINE_SCENARIOS = (BBGG_T1, AAC_T1, AAC_PHI, STD_GAUSS_HS, STD_LAP_HS)

__all__ = ["SPINE_SCENARIOS", "kernel_family", "mechanism_family"]
