"""The BBGG-E2r scenario: Laplace noise then r Laplace kernels, the rule's delta(eps) against Monte Carlo.

``LaplaceMechanism(1) >> LaplaceKernel(1) ** r`` (sensitivity 1, query values 0 and 1) at r in {1, 2, 3, 5}: the
bound is the BBGG-E2r rule's own curve (STD-RDP2DP of its RDP curve), not the certificate's best, so the scenario
checks that rule; the exact value is the library's exact profile where it knows one (r = 1, BBGG-E2) and NaN
otherwise (the Monte Carlo lower confidence limit alone then checks the bound). Factories are module-level
functions so the scenario pickles to dask workers.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..guarantees.exact import privacy_profile
from ..guarantees.registry import certify
from ..guarantees.types import Bound
from ..mechanisms.additive import LaplaceMechanism
from ..mechanisms.base import PostProcessed
from ..operators.laplace import LaplaceKernel
from .catalogue import N_EDGES, continuous_pair, tightness
from .scenario import Scenario, ScenarioVariable

RULE = "BBGG-E2r"


def e2r_pipeline(r: int, eps: float) -> PostProcessed:
    kernel = LaplaceKernel(1.0)
    return LaplaceMechanism(1.0) >> (kernel ** int(r) if r > 1 else kernel)


def e2r_bins(r: int, eps: float) -> NDArray[np.float64]:
    """Edges over the bulk of the two outputs (centred at 0 and 1, spread ~ sqrt(2 (r + 1)))."""
    spread = 3.0 * math.sqrt(2.0 * (r + 1))
    return np.linspace(-spread, 1.0 + spread, N_EDGES)


def e2r_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """The BBGG-E2r rule's delta at the point's eps, and every candidate's delta (NaN where not applicable)."""
    cert = certify(e2r_pipeline(**point))
    candidates = {tid: (float(c.delta(point["eps"])) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    return candidates[RULE], RULE, candidates


def e2r_exact(point: dict) -> float:
    """The exact delta where the library computes it (r = 1: BBGG-E2's exact law), else NaN."""
    try:
        return float(privacy_profile(e2r_pipeline(**point), point["eps"]))
    except NotImplementedError:
        return math.nan


BBGG_E2R = Scenario(
    name="BBGG-E2r",
    theory_id="BBGG-E2r",
    description="Laplace mechanism then r Laplace kernels: the shift-reduction bound vs Monte Carlo.",
    grid_full={"r": (1, 2, 3, 5, 10), "eps": (0.0, 0.25, 0.5, 0.75)},
    grid_quick={"r": (1, 2, 3, 5), "eps": (0.5,)},
    pipeline=e2r_pipeline,
    pair=continuous_pair,
    estimator="continuous",
    bins=e2r_bins,
    bound=e2r_bound,
    exact=e2r_exact,
    quantity="hockey_stick",
    coordinates={"r": ("number of Laplace kernel steps r", "1"), "eps": ("privacy level eps", "nats")},
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness)},
)

E2R_SCENARIOS = (BBGG_E2R,)

__all__ = ["E2R_SCENARIOS"]
