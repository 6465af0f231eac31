"""The scenarios of BBGG §4 (amplification by couplings and by iteration) that `markovdp validate` runs.

Each checks a Rényi bound (quantity "renyi", grid coordinate ``alpha``) or, for noisy SGD, the hockey-stick delta
its Rényi bound converts to (STD-RDP2DP), against the exact value where one exists and a Monte Carlo lower
confidence limit. Neighbouring query values are 0 and 1 (sensitivity 1). Factories are module-level functions so
scenarios pickle to dask workers; every subject is a public markovdp object.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..guarantees.exact import privacy_epsilon, renyi_profile
from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import PostProcessed
from ..mechanisms.losses import LogisticLoss
from ..mechanisms.sgd import NoisyProjSGD, SGDDifferingAt
from ..operators.affine_gaussian import AffineGaussianKernel
from ..operators.gaussian import GaussianKernel
from ..operators.laplace import LaplaceKernel
from ..operators.lipschitz_gaussian import LipschitzGaussianKernel
from ..operators.maps import linear_map, tanh_map
from ..operators.projections import Ball
from .catalogue import N_EDGES, continuous_pair, tightness
from .scenario import Scenario, ScenarioVariable

#: The first step's noise of the Lipschitz scenarios (the Gaussian mechanism's sigma).
MECHANISM_SIGMA = 1.0
#: W = [-R, R] for the projected Lipschitz chains (BBGG-T4).
CHAIN_RADIUS = 2.0

COORDINATES = {
    "alpha": ("Rényi order alpha", "1"),
    "eps": ("privacy level eps", "nats"),
    "s1": ("Gaussian mechanism noise sigma1 (sensitivity 1)", "1"),
    "s2": ("Gaussian kernel noise sigma2", "1"),
    "l1": ("Laplace mechanism scale l1 (sensitivity 1)", "1"),
    "l2": ("Laplace kernel scale l2", "1"),
    "L": ("Lipschitz constant L of the kernel's map", "1"),
    "r": ("number of kernel steps r", "1"),
    "index": ("index i of the record that differs (1..n)", "1"),
    "map": ("the kernel's map (tanh: L tanh x; projected: L x then projection onto [-1, 1])", "1"),
}

TIGHTNESS = {"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness)}


def unknown_exact(point: dict) -> float:
    """No closed form: the Monte Carlo lower limit alone checks the bound."""
    return math.nan


#: Inner bin edges of the Rényi scenarios: few cells, none nearly empty, so the plug-in stays finite and the
#: simultaneous (Bonferroni) box over the cells stays narrow.
RENYI_EDGES = 15


def _edges(spread: float) -> NDArray[np.float64]:
    """RENYI_EDGES edges over [-3 spread, 1 + 3 spread] (the two neighbouring outputs centred at 0 and 1)."""
    return np.linspace(-3.0 * spread, 1.0 + 3.0 * spread, RENYI_EDGES)


# ---------------------------------------------------------------------------------------- BBGG-E1


def e1_pipeline(s1: float, s2: float, alpha: float) -> PostProcessed:
    return GaussianMechanism(s1) >> GaussianKernel(s2)


def e1_bins(s1: float, s2: float, alpha: float) -> NDArray[np.float64]:
    return _edges(math.hypot(s1, s2))


BBGG_E1 = Scenario(
    name="BBGG-E1",
    theory_id="BBGG-E1",
    description="Gaussian mechanism then a Gaussian kernel: the coupling bound is the exact RDP (tight).",
    grid_full={"s1": (0.5, 1.0, 2.0), "s2": (0.5, 1.0, 2.0), "alpha": (2.0, 8.0, 32.0)},
    grid_quick={"s1": (0.5, 1.0), "s2": (1.0,), "alpha": (2.0, 8.0)},
    pipeline=e1_pipeline,
    pair=continuous_pair,
    target="equality",
    estimator="continuous",
    bins=e1_bins,
    coordinates=COORDINATES,
    variables=TIGHTNESS,
)


# ------------------------------------------------------------------------------------ BBGG-E2 / L3


def e2_pipeline(l1: float, l2: float, **_: float) -> PostProcessed:
    return LaplaceMechanism(l1) >> LaplaceKernel(l2)


def e2_bins(l1: float, l2: float, **_: float) -> NDArray[np.float64]:
    return _edges(1.5 * max(l1, l2))


BBGG_E2 = Scenario(
    name="BBGG-E2",
    theory_id="BBGG-E2",
    description="Laplace mechanism then a Laplace kernel: the coupling bound (min over w) vs the exact RDP.",
    grid_full={"l1": (0.5, 1.0, 2.0), "l2": (0.5, 1.0, 2.0), "alpha": (1.5, 2.0, 8.0, 32.0)},
    grid_quick={"l1": (0.5, 1.0), "l2": (1.0,), "alpha": (2.0, 8.0)},
    pipeline=e2_pipeline,
    pair=continuous_pair,
    estimator="continuous",
    bins=e2_bins,
    coordinates=COORDINATES,
    variables=TIGHTNESS,
)


def pure_eps_ratio(point: dict, values: dict) -> float:
    """BBGG-L3: exact pure eps of the pipeline ÷ Delta / max(l1, l2) (1: post-processing gained no pure DP)."""
    return privacy_epsilon(e2_pipeline(**point), 0.0) / (1.0 / max(point["l1"], point["l2"]))


def rdp_gain(point: dict, values: dict) -> float:
    """exact RDP of the pipeline ÷ exact RDP of the mechanism alone at the point's alpha (< 1: RDP amplifies)."""
    pipeline = e2_pipeline(**point)
    return float(renyi_profile(pipeline, point["alpha"]) / renyi_profile(pipeline.mechanism, point["alpha"]))


BBGG_L3 = Scenario(
    name="BBGG-L3",
    theory_id="BBGG-L3",
    description="Iterated Laplace: RDP amplifies, but the exact pure eps stays Delta / max(l1, l2).",
    grid_full={"l1": (0.5, 1.0, 2.0), "l2": (0.5, 1.0, 2.0), "alpha": (2.0, 8.0)},
    grid_quick={"l1": (1.0,), "l2": (0.5, 1.0), "alpha": (2.0,)},
    pipeline=e2_pipeline,
    pair=continuous_pair,
    estimator="none",
    coordinates=COORDINATES,
    variables={
        "pure_eps_ratio": ScenarioVariable("exact pure eps / (Delta / max(l1, l2)) (BBGG-L3: 1)", "1",
                                           pure_eps_ratio),
        "rdp_gain": ScenarioVariable("exact RDP of M >> K / exact RDP of M (below 1: amplification)", "1",
                                     rdp_gain),
    },
)


# ---------------------------------------------------------------------------------------- BBGG-E3


def e3_linear_pipeline(L: float, s2: float, alpha: float) -> PostProcessed:
    psi, lipschitz = linear_map(L)
    return GaussianMechanism(MECHANISM_SIGMA) >> LipschitzGaussianKernel(psi, lipschitz, s2)


def e3_linear_witness(L: float, s2: float, alpha: float) -> PostProcessed:
    """The same law as an affine Gaussian kernel y = L x + N(0, s2²): its exact RDP is a closed form."""
    return GaussianMechanism(MECHANISM_SIGMA) >> AffineGaussianKernel(L, 0.0, s2)


#: W = [-1, 1] for the projected map of the nonlinear BBGG-E3 scenario.
E3_RADIUS = 1.0


def e3_nonlinear_pipeline(map: str, L: float, s2: float, alpha: float) -> PostProcessed:
    """``map`` "tanh": y = L tanh(x) + N(0, s2²); "projected": y = Π_[-1,1](L x + N(0, s2²)) (a post-processing
    of the tight linear case, so the bound holds and is no longer attained)."""
    if map == "tanh":
        return GaussianMechanism(MECHANISM_SIGMA) >> LipschitzGaussianKernel(*tanh_map(L), s2)
    kernel = LipschitzGaussianKernel(*linear_map(L), s2, projection=Ball(1, E3_RADIUS))
    return GaussianMechanism(MECHANISM_SIGMA) >> kernel


def e3_bins(L: float, s2: float, alpha: float) -> NDArray[np.float64]:
    return _edges(math.hypot(L * MECHANISM_SIGMA, s2))


def e3_nonlinear_bins(map: str, L: float, s2: float, alpha: float) -> NDArray[np.float64]:
    reach = L + 2.0 * s2 if map == "tanh" else E3_RADIUS  # |L tanh x| <= L; the projection stays in [-1, 1]
    return np.linspace(-reach, reach, RENYI_EDGES)


E3_GRID_FULL = {"L": (0.5, 1.0, 2.0), "s2": (0.5, 1.0), "alpha": (2.0, 8.0)}
E3_GRID_QUICK = {"L": (0.5, 2.0), "s2": (1.0,), "alpha": (2.0,)}

BBGG_E3 = Scenario(
    name="BBGG-E3",
    theory_id="BBGG-E3",
    description="Gaussian mechanism then y = L x + N(0, s2²): the Lipschitz-kernel bound is tight.",
    grid_full=E3_GRID_FULL,
    grid_quick=E3_GRID_QUICK,
    pipeline=e3_linear_pipeline,
    witness=e3_linear_witness,
    pair=continuous_pair,
    target="equality",
    estimator="continuous",
    bins=e3_bins,
    coordinates=COORDINATES,
    variables=TIGHTNESS,
)

BBGG_E3_NONLINEAR = Scenario(
    name="BBGG-E3-nonlinear",
    theory_id="BBGG-E3",
    description="Gaussian mechanism then y = L tanh(x) + N(0, s2²), or a projected linear map: the bound (not "
                "attained) against Monte Carlo (no exact).",
    grid_full={"map": ("tanh", "projected"), **E3_GRID_FULL},
    grid_quick={"map": ("tanh", "projected"), **E3_GRID_QUICK},
    pipeline=e3_nonlinear_pipeline,
    exact=unknown_exact,
    pair=continuous_pair,
    estimator="continuous",
    bins=e3_nonlinear_bins,
    coordinates=COORDINATES,
)


# ------------------------------------------------------------------------------------ BBGG-T4 / T4opt


def t4_linear_pipeline(L: float, r: int, alpha: float) -> PostProcessed:
    psi, lipschitz = linear_map(L)
    return GaussianMechanism(MECHANISM_SIGMA) >> LipschitzGaussianKernel(psi, lipschitz, MECHANISM_SIGMA) ** r


def t4_linear_witness(L: float, r: int, alpha: float) -> PostProcessed:
    """The same chain as r affine Gaussian kernels y = L x + N(0, s²), merged exactly: exact RDP."""
    return GaussianMechanism(MECHANISM_SIGMA) >> AffineGaussianKernel(L, 0.0, MECHANISM_SIGMA) ** r


def t4_projected_pipeline(L: float, r: int, alpha: float) -> PostProcessed:
    psi, lipschitz = tanh_map(L)
    kernel = LipschitzGaussianKernel(psi, lipschitz, MECHANISM_SIGMA, projection=Ball(1, CHAIN_RADIUS))
    return GaussianMechanism(MECHANISM_SIGMA) >> kernel ** r


def t4_linear_bins(L: float, r: int, alpha: float) -> NDArray[np.float64]:
    spread = MECHANISM_SIGMA * math.sqrt(sum(L ** (2 * j) for j in range(r + 1)))
    return _edges(spread)


def t4_projected_bins(L: float, r: int, alpha: float) -> NDArray[np.float64]:
    return np.linspace(-CHAIN_RADIUS, CHAIN_RADIUS, RENYI_EDGES)


T4_GRID_FULL = {"L": (0.5, 0.8, 1.0), "r": (1, 2, 5, 10, 20), "alpha": (2.0, 8.0)}
T4_GRID_QUICK = {"L": (0.5, 1.0), "r": (1, 5, 20), "alpha": (2.0,)}

BBGG_T4 = Scenario(
    name="BBGG-T4",
    theory_id="BBGG-T4",
    description="r linear Gaussian steps y = L x + N(0, s²) after a Gaussian mechanism: T4 and T4opt vs the exact "
                "RDP (which also gains from the mechanism's own noise, that T4 does not use).",
    grid_full=T4_GRID_FULL,
    grid_quick=T4_GRID_QUICK,
    pipeline=t4_linear_pipeline,
    witness=t4_linear_witness,
    pair=continuous_pair,
    estimator="continuous",
    bins=t4_linear_bins,
    coordinates=COORDINATES,
    variables=TIGHTNESS,
)

BBGG_T4_PROJECTED = Scenario(
    name="BBGG-T4-projected",
    theory_id="BBGG-T4",
    description="r projected steps y = Π_[-2,2](L tanh(x) + N(0, s²)) (tanh is L-Lipschitz on all of R): T4 and "
                "T4opt vs Monte Carlo.",
    grid_full=T4_GRID_FULL,
    grid_quick=T4_GRID_QUICK,
    pipeline=t4_projected_pipeline,
    exact=unknown_exact,
    pair=continuous_pair,
    estimator="continuous",
    bins=t4_projected_bins,
    coordinates=COORDINATES,
)


# ------------------------------------------------------------------------------------ BBGG-T5 / T5opt

#: Logistic regression on the unit ball of R^2, records (a, y) with ||a|| <= 1, n of them.
SGD_RECORDS = 20
SGD_ETA, SGD_SIGMA, SGD_REGULARIZATION = 0.5, 1.0, 0.5
SGD_SEED = 2019


def sgd_mechanism() -> NoisyProjSGD:
    ball = Ball(2, 1.0)
    loss = LogisticLoss(ball, regularization=SGD_REGULARIZATION, data_bound=1.0)
    return NoisyProjSGD(loss, SGD_ETA, SGD_SIGMA, ball, np.zeros(2), n=SGD_RECORDS)


def sgd_dataset() -> NDArray[np.float64]:
    """A fixed dataset: features uniform in the unit disc, labels ±1."""
    rng = np.random.default_rng(SGD_SEED)
    angle = rng.uniform(0.0, 2.0 * np.pi, SGD_RECORDS)
    radius = np.sqrt(rng.uniform(0.0, 1.0, SGD_RECORDS))
    labels = rng.choice([-1.0, 1.0], SGD_RECORDS)
    return np.column_stack([radius * np.cos(angle), radius * np.sin(angle), labels])


def t5_subject(index: int, eps: float) -> SGDDifferingAt:
    return sgd_mechanism().differing_at(index)


def t5_pair(index: int, eps: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The dataset with record `index` moved to the unit circle, and its neighbour with that record's label flipped:
    the record's gradient changes by y a (s(−y aᵀx) + s(y aᵀx)) = y a, of norm 1 (flipping both a and y would
    change nothing: the logistic loss depends on y a only)."""
    data = sgd_dataset()
    feature = data[index - 1, :2]
    data[index - 1, :2] = feature / np.linalg.norm(feature)
    other = data.copy()
    other[index - 1, 2] = -data[index - 1, 2]
    return data, other


def t5_direction(index: int, eps: float) -> NDArray[np.float64]:
    """Project the final iterates on the differing record's feature direction (a post-processing)."""
    feature = sgd_dataset()[index - 1, :2]
    return feature / np.linalg.norm(feature)


def t5_bins(index: int, eps: float) -> NDArray[np.float64]:
    return np.linspace(-1.0, 1.0, N_EDGES)


def sgd_runs(witness: SGDDifferingAt, dataset: NDArray[np.float64], n: int,
             rng: np.random.Generator) -> NDArray[np.float64]:
    return witness.run(dataset, n, rng=rng)


BBGG_T5 = Scenario(
    name="BBGG-T5",
    theory_id="BBGG-T5",
    description="Noisy projected SGD on logistic regression: per-index delta from the T5/T5opt RDP bounds vs "
                "Monte Carlo of the final iterate.",
    grid_full={"index": (1, 5, 10, 15, 19, 20), "eps": (0.0, 0.25, 0.5, 1.0)},
    grid_quick={"index": (1, 10, 20), "eps": (0.25,)},
    pipeline=t5_subject,
    exact=unknown_exact,
    pair=t5_pair,
    estimator="continuous",
    bins=t5_bins,
    direction=t5_direction,
    sampler=sgd_runs,
    coordinates=COORDINATES,
)

BBGG4_SCENARIOS = (BBGG_E1, BBGG_E2, BBGG_L3, BBGG_E3, BBGG_E3_NONLINEAR, BBGG_T4, BBGG_T4_PROJECTED, BBGG_T5)
