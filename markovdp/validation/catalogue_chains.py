"""The noise-chain scenarios (issue 14 §3): Laplace chains (STD-LaplaceSumN) and mixed Gaussian/Laplace chains on R
(STD-NormalLaplace), exact value vs generic quadrature vs Monte Carlo.

The "bound" of each is the exact privacy profile of the pipeline (`privacy_profile`: the half-line event on the
cancellation-free density), the "exact" column is the generic quadrature of the same pair of laws (an independent
computation), and the Monte Carlo split-sample event estimate brackets both (target "equality"). Neighbouring query
values are 0 and 1 (sensitivity 1). Issue 14's numbers: δ(0.5) of LaplaceMechanism(1) >> LaplaceKernel(1) ** r is
0.0221 at r = 2 and 0.0103 at r = 3 (Monte Carlo there: ≈0.021, ≈0.009).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..divergences.exact import hockey_stick
from ..guarantees.exact import privacy_profile
from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import PostProcessed
from ..operators.gaussian import GaussianKernel
from ..operators.laplace import LaplaceKernel
from .catalogue import N_EDGES, continuous_pair
from .scenario import Scenario

COORDINATES = {
    "eps": ("privacy level eps", "nats"),
    "l1": ("Laplace mechanism scale l1 (sensitivity 1)", "1"),
    "l2": ("Laplace kernel scale l2", "1"),
    "r": ("number of Laplace kernels r", "1"),
    "chain": ("the noise chain (G: Gaussian, L: Laplace; mechanism first)", "1"),
}


# ------------------------------------------------------------------------------------------- Laplace chains
def laplace_chain(l1: float, l2: float, r: int, **_: float) -> PostProcessed:
    return LaplaceMechanism(l1) >> LaplaceKernel(l2) ** int(r)


def laplace_chain_bins(l1: float, l2: float, r: int, **_: float) -> NDArray[np.float64]:
    spread = float(np.sqrt(l1 * l1 + r * l2 * l2))
    return np.linspace(-4.0 * spread, 1.0 + 4.0 * spread, N_EDGES)


def laplace_chain_exact(point: dict) -> tuple[float, str, dict[str, float]]:
    value = float(privacy_profile(laplace_chain(**point), point["eps"]))
    return value, "STD-LaplaceSumN", {"STD-LaplaceSumN": value}


def laplace_chain_quadrature(point: dict) -> float:
    mu, nu = laplace_chain(**point).dominating_pairs()[0]
    return float(hockey_stick(mu, nu, eps=point["eps"], method="quadrature"))


STD_LAPLACE_SUM_N = Scenario(
    name="STD-LaplaceSumN",
    theory_id="STD-LaplaceSumN",
    description="Laplace mechanism through r Laplace kernels: exact profile vs quadrature vs Monte Carlo.",
    grid_full={"l1": (0.5, 1.0), "l2": (0.5, 1.0, 2.0), "r": (2, 3, 5, 10), "eps": (0.0, 0.25, 0.5, 1.0)},
    grid_quick={"l1": (1.0,), "l2": (1.0,), "r": (2, 3), "eps": (0.0, 0.5)},
    witness=laplace_chain,
    pair=continuous_pair,
    bound=laplace_chain_exact,
    exact=laplace_chain_quadrature,
    target="equality",
    estimator="continuous",
    bins=laplace_chain_bins,
    coordinates=COORDINATES,
)


# --------------------------------------------------------------------------------------------- mixed chains
#: the mixed chains by name: mechanism first, then kernels (unit scales except where named)
CHAINS = {
    "G>>L": lambda: GaussianMechanism(1.0) >> LaplaceKernel(1.0),
    "L>>G": lambda: LaplaceMechanism(1.0) >> GaussianKernel(1.0),
    "L>>G>>L": lambda: LaplaceMechanism(1.0) >> GaussianKernel(0.5) >> LaplaceKernel(0.5),
    "G>>L>>G>>L": lambda: GaussianMechanism(0.5) >> LaplaceKernel(1.0) >> GaussianKernel(0.5) >> LaplaceKernel(2.0),
}


def mixed_chain(chain: str, **_: float) -> PostProcessed:
    return CHAINS[chain]()


def mixed_bins(chain: str, **_: float) -> NDArray[np.float64]:
    return np.linspace(-8.0, 9.0, N_EDGES)


def mixed_exact(point: dict) -> tuple[float, str, dict[str, float]]:
    value = float(privacy_profile(mixed_chain(**point), point["eps"]))
    return value, "STD-NormalLaplace", {"STD-NormalLaplace": value}


def mixed_quadrature(point: dict) -> float:
    mu, nu = mixed_chain(**point).dominating_pairs()[0]
    return float(hockey_stick(mu, nu, eps=point["eps"], method="quadrature"))


STD_NORMAL_LAPLACE = Scenario(
    name="STD-NormalLaplace",
    theory_id="STD-NormalLaplace",
    description="Gaussian and Laplace noise in any order: exact profile vs quadrature vs Monte Carlo.",
    grid_full={"chain": tuple(CHAINS), "eps": (0.0, 0.25, 0.5, 1.0)},
    grid_quick={"chain": ("G>>L", "L>>G"), "eps": (0.0, 0.5)},
    witness=mixed_chain,
    pair=continuous_pair,
    bound=mixed_exact,
    exact=mixed_quadrature,
    target="equality",
    estimator="continuous",
    bins=mixed_bins,
    coordinates=COORDINATES,
)

#: The noise-chain scenarios.
CHAIN_SCENARIOS = (STD_LAPLACE_SUM_N, STD_NORMAL_LAPLACE)

__all__ = ["CHAIN_SCENARIOS"]
