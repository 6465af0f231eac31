"""The BBGG-PublicSteps scenario: noisy SGD with m public steps after n private ones, per-index delta vs exact.

NoisyProjSGD on the quadratic loss ℓ(x; z) = (x − z)²/2 on R (records in W = [−1, 1], no projection, so the final
iterate is Gaussian and its exact privacy is a closed form), n = `N_PRIVATE` private records then m public records
(the same in both datasets). Record `index` differs (+1 against −1: the largest change, |Δz| = diam W). The bound is
BBGG-T5 / BBGG-T5opt with n − index + m subsequent steps (certify restricted to those two rules; STD-RDP2DP to
delta at ``eps``), the exact delta that of the two Gaussian outputs, the Monte Carlo a split-sample lower limit from
the final iterates (`NoisyProjSGD.run`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..guarantees.exact import privacy_profile
from ..guarantees.registry import certify
from ..guarantees.types import Bound
from ..mechanisms.losses import QuadraticLoss
from ..mechanisms.sgd import NoisyProjSGD, SGDDifferingAt
from ..operators.projections import Ball
from .catalogue import N_EDGES, tightness
from .catalogue_bbgg4 import sgd_runs
from .scenario import Scenario, ScenarioVariable

N_PRIVATE, ETA, SIGMA, SEED = 10, 0.5, 1.0, 2019
RULES = ("BBGG-T5", "BBGG-T5opt")

COORDINATES = {
    "m": ("number m of public steps after the n private ones", "1"),
    "index": (f"index i of the private record that differs (1..{N_PRIVATE})", "1"),
    "eps": ("privacy level eps", "nats"),
}


def public_steps_subject(m: int, index: int, eps: float) -> SGDDifferingAt:
    loss = QuadraticLoss(Ball(1, 1.0))
    return NoisyProjSGD(loss, ETA, SIGMA, None, np.zeros(1), n=N_PRIVATE + m).differing_at(index)


def public_steps_pair(m: int, index: int, eps: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Fixed records in [−1, 1] (the last m public), record `index` = +1 in one dataset and −1 in the other."""
    data = np.random.default_rng(SEED).uniform(-1.0, 1.0, (N_PRIVATE + m, 1))
    data[index - 1] = 1.0
    other = data.copy()
    other[index - 1] = -1.0
    return data, other


def public_steps_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """delta at eps from BBGG-T5 and BBGG-T5opt only (the mechanism's own exact guarantee is left out)."""
    cert = certify(public_steps_subject(**point), rules=list(RULES))
    candidates = {tid: (float(c.delta(point["eps"])) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    best = cert.best(eps=point["eps"])
    return float(cert.delta(point["eps"])), (best.theorem if best is not None else ""), candidates


def public_steps_exact(point: dict) -> float:
    """The exact delta of the subject at eps (its dominating pair: the largest shift of the Gaussian final iterate,
    2 eta (1 − eta)^(n + m − i), which `public_steps_pair` attains)."""
    return float(privacy_profile(public_steps_subject(**point), point["eps"]))


def public_steps_bins(m: int, index: int, eps: float) -> NDArray[np.float64]:
    """Edges over both output laws' means ± 4 standard deviations."""
    subject = public_steps_subject(m, index, eps)
    laws = [subject.sgd.output(data) for data in public_steps_pair(m, index, eps)]
    means = [float(np.asarray(law.mean).reshape(-1)[0]) for law in laws]
    spread = float(laws[0].sigma)
    return np.linspace(min(means) - 4.0 * spread, max(means) + 4.0 * spread, N_EDGES)


def public_steps_direction(m: int, index: int, eps: float) -> NDArray[np.float64]:
    """The outputs are points of R^1: read their one coordinate."""
    return np.ones(1)


BBGG_PUBLIC_STEPS = Scenario(
    name="BBGG-PublicSteps",
    theory_id="BBGG-PublicSteps",
    description="Noisy SGD (quadratic loss on R, no projection) with m public steps after 10 private ones: the "
                "per-index delta from T5/T5opt with n - i + m subsequent steps vs the exact delta and Monte Carlo.",
    grid_full={"m": (0, 1, 3, 8, 15), "index": (1, 5, 10), "eps": (0.0, 0.5, 1.0)},
    grid_quick={"m": (0, 3, 8), "index": (10,), "eps": (0.5,)},
    pipeline=public_steps_subject,
    bound=public_steps_bound,
    exact=public_steps_exact,
    pair=public_steps_pair,
    estimator="continuous",
    bins=public_steps_bins,
    direction=public_steps_direction,
    sampler=sgd_runs,
    coordinates=COORDINATES,
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness)},
)

PUBLIC_STEPS_SCENARIOS = (BBGG_PUBLIC_STEPS,)
