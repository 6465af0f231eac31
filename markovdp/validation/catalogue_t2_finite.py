"""The BBGG-T2-finite scenario: the optimised coupling bound vs the exact R_alpha(mu K || nu K) vs Monte Carlo.

Each grid point is a seeded random instance on 4 input and 4 output states (mu, nu ~ Dirichlet(1), each row of K
~ Dirichlet(1), all entries positive): the witness is the two-input mechanism with rows mu, nu followed by K, the
pair is its inputs (0, 1). The bound is `optimise_coupling_bound` (a value of BBGG-T2's right-hand side, so it must
lie above the exact value and above the Monte Carlo lower confidence limit); the exact value is the finite sum.
Factories are module-level functions so the scenario pickles to dask workers.
"""

from __future__ import annotations

import numpy as np

from ..guarantees.coupling_finite import exact_pushed_renyi
from ..guarantees.coupling_finite_search import optimise_coupling_bound
from ..mechanisms.base import PostProcessed
from ..mechanisms.finite import FiniteMechanism
from ..operators.finite import FiniteKernel
from .catalogue import tightness
from .scenario import Scenario, ScenarioVariable

#: Input and output states of the instances.
STATES = 4
#: The seed of instance i is (INSTANCE_SEED, i).
INSTANCE_SEED = 20150


def t2_instance(instance: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mu, nu, K) of one seeded instance."""
    rng = np.random.default_rng((INSTANCE_SEED, int(instance)))
    mu, nu = rng.dirichlet(np.ones(STATES), size=2)
    return mu, nu, rng.dirichlet(np.ones(STATES), size=STATES)


def t2_witness(instance: int, alpha: float) -> PostProcessed:
    mu, nu, matrix = t2_instance(instance)
    return FiniteMechanism(np.stack([mu, nu]), neighbours=[(0, 1)]) >> FiniteKernel(matrix)


def t2_pair(instance: int, alpha: float) -> tuple[int, int]:
    return 0, 1


def t2_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """The optimised BBGG-T2-finite bound, with the identity-coupling (data-processing) bound as the other candidate."""
    found = optimise_coupling_bound(*t2_instance(point["instance"]), point["alpha"], restarts=1, rng=point["instance"])
    return found.bound, "BBGG-T2-finite", {"BBGG-T2-finite": found.bound, "STD-DPI": found.identity_bound}


def t2_exact(point: dict) -> float:
    mu, nu, matrix = t2_instance(point["instance"])
    return float(exact_pushed_renyi(mu, nu, matrix, np.array([float(point["alpha"])]))[0])


BBGG_T2_FINITE = Scenario(
    name="BBGG-T2-finite",
    theory_id="BBGG-T2-finite",
    description="Random finite instances: the optimised BBGG-T2 coupling bound vs exact R_alpha(mu K || nu K).",
    grid_full={"instance": tuple(range(8)), "alpha": (1.5, 2.0, 4.0)},
    grid_quick={"instance": (0, 1), "alpha": (2.0,)},
    witness=t2_witness,
    pipeline=t2_witness,
    pair=t2_pair,
    bound=t2_bound,
    exact=t2_exact,
    quantity="renyi",
    coordinates={"instance": ("seeded random instance", "1"), "alpha": ("Rényi order alpha", "1")},
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness)},
)

T2_FINITE_SCENARIOS = (BBGG_T2_FINITE,)

__all__ = ["T2_FINITE_SCENARIOS"]
