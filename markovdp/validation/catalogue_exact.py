"""The scenario of STD-Exact that `markovdp validate` runs: certify's best is the exact value, and the Monte Carlo
does not contradict it.

Factories are module-level functions so scenarios pickle to dask workers.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..guarantees.exact import worst_pair
from ..guarantees.registry import certify
from ..guarantees.types import EXACT_ID, Bound
from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import Mechanism
from ..mechanisms.finite import RandomizedResponse
from ..operators.affine_gaussian import AffineGaussianKernel
from ..operators.finite import FiniteKernel
from ..operators.gaussian import GaussianKernel
from ..operators.laplace import LaplaceKernel
from .scenario import Scenario, ScenarioVariable

#: The k-state kernel of the finite pipeline: (1 − t) I + t U with t = 0.3 (U uniform).
FINITE_KERNEL = 0.7 * np.eye(4) + 0.3 / 4


def exact_pipeline(pipeline: str, eps: float) -> Mechanism:
    """The pipelines of the grid: a Gaussian through a Gaussian kernel (the issue's example), a Laplace through a
    Laplace kernel, a Gaussian through an affine Gaussian kernel and through three Gaussian kernels, randomized
    response through a finite kernel, and a bare Gaussian mechanism."""
    if pipeline == "gauss_gauss":
        return GaussianMechanism(1.0) >> GaussianKernel(2.0)
    if pipeline == "lap_lap":
        return LaplaceMechanism(1.0) >> LaplaceKernel(1.0)
    if pipeline == "gauss_affine":
        return GaussianMechanism(1.0) >> AffineGaussianKernel(2.0, 0.3, 0.5)
    if pipeline == "gauss_power":
        return GaussianMechanism(0.5) >> GaussianKernel(0.7) ** 3
    if pipeline == "rr_finite":
        return RandomizedResponse(4, 1.0) >> FiniteKernel(FINITE_KERNEL)
    if pipeline == "gauss":
        return GaussianMechanism(1.5)
    raise ValueError(f"`pipeline` must be one of gauss_gauss, lap_lap, gauss_affine, gauss_power, rr_finite, gauss; "
                     f"got {pipeline!r}.")


def exact_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """certify with every rule, EXACT included: (best delta, winning ID, every rule's delta — NaN if none)."""
    cert = certify(exact_pipeline(**point))
    eps = point["eps"]
    candidates = {tid: (float(c.delta(eps)) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    best = cert.best(eps=eps)
    return float(cert.delta(eps)), (best.theorem if best is not None else ""), candidates


def exact_pair(pipeline: str, eps: float) -> tuple[float, float] | tuple[int, int]:
    """The two inputs sampled: the worst pair of the finite pipeline, else query values 0 and 1 (sensitivity 1)."""
    if pipeline == "rr_finite":
        return worst_pair(exact_pipeline(pipeline, eps), eps)
    return 0.0, 1.0


def exact_bins(pipeline: str, eps: float) -> NDArray[np.float64]:
    """Inner histogram edges: between the outputs of the finite pipeline, else 48 edges over ±4 noise scales."""
    if pipeline == "rr_finite":
        return np.arange(FINITE_KERNEL.shape[1] - 1) + 0.5
    spread = {"gauss_gauss": math.hypot(1.0, 2.0), "lap_lap": 2.0, "gauss_affine": math.hypot(2.0, 0.5),
              "gauss_power": math.hypot(0.5, 0.7 * math.sqrt(3.0)), "gauss": 1.5}[pipeline]
    centre = 1.3 if pipeline == "gauss_affine" else 0.5  # the mid-point of the two output laws' centres
    return np.linspace(centre - 4.0 * spread, centre + 4.0 * spread, 48)


def theorem_tightness(point: dict, values: dict) -> float:
    """exact / the best bound of the theorems (every rule but EXACT): 1 = a theorem attains the exact value;
    NaN where no theorem applies or the best is 0."""
    theorems = [v for tid, v in values["candidates"].items() if tid != EXACT_ID and not math.isnan(v)]
    best = min(theorems, default=math.nan)
    if math.isnan(best) or best == 0.0:
        return math.nan
    return values["exact"] / best


STD_EXACT = Scenario(
    name="STD-Exact",
    theory_id="STD-Exact",
    description="certify's best is the exact privacy profile (rule EXACT); the Monte Carlo does not contradict it.",
    grid_full={"pipeline": ("gauss_gauss", "lap_lap", "gauss_affine", "gauss_power", "rr_finite", "gauss"),
               "eps": (0.1, 0.5, 1.0, 2.0)},
    grid_quick={"pipeline": ("gauss_gauss", "lap_lap", "rr_finite"), "eps": (0.5,)},
    pipeline=exact_pipeline,
    bound=exact_bound,
    pair=exact_pair,
    target="equality",
    estimator="continuous",
    bins=exact_bins,
    coordinates={"eps": ("privacy level eps", "nats"),
                 "pipeline": ("pipeline (gauss_gauss, lap_lap, gauss_affine, gauss_power, rr_finite, gauss)", "1")},
    variables={"theorem_tightness": ScenarioVariable("exact / best bound of the theorems (EXACT aside)", "1",
                                                     theorem_tightness)},
)

EXACT_SCENARIOS = (STD_EXACT,)

__all__ = ["EXACT_SCENARIOS", "STD_EXACT", "exact_bins", "exact_bound", "exact_pair", "exact_pipeline",
           "theorem_tightness"]
