"""Reduce a sweep: estimates and verdicts per grid point, in grid order, into the result Dataset.

Counts are stacked by batch index and points visited in grid order — a fixed order — so the Dataset is
bit-identical for any executor, number of workers and chunk size, and a resumed sweep equals an
uninterrupted one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .._validation import check_int
from .dataset import build_dataset
from .plan import SweepPlan
from .tasks import where
from .verdict import verdict

__all__ = ["VERDICT_ALPHA", "reduce_sweep", "verdict_confidence"]

#: Family-wise false-violation rate of the Monte Carlo check over all grid points of a run.
VERDICT_ALPHA = 1e-6


def verdict_confidence(n_points_total: int) -> float:
    """The level ``1 − 1e-6 / m`` of the Monte Carlo check, m = grid points in the whole run (Bonferroni)."""
    return 1.0 - VERDICT_ALPHA / check_int("n_points_total", n_points_total, minimum=1)


def stacked_counts(scenario: Any, point: Mapping[str, Any],
                   batches: Sequence[NDArray[np.int64] | None]) -> NDArray[np.int64] | None:
    """The counts of one point stacked in batch order, (n_batches, 2, m), read-only; None without Monte Carlo."""
    if all(c is None for c in batches):
        return None
    shapes = {None if c is None else c.shape for c in batches}
    if len(shapes) != 1:
        raise ValueError(f"{where(scenario, point)}: simulate() must return counts of one fixed shape "
                         f"(2, m) for every batch (never None for some); got {sorted(map(str, shapes))}.")
    stacked = np.stack(batches)  # type: ignore[arg-type]
    stacked.setflags(write=False)  # estimators must not modify the shared counts
    return stacked


def reduce_sweep(scenario: Any, plan: SweepPlan, evaluations: Sequence[Mapping[str, Any]],
                 counts: Mapping[tuple[int, int], NDArray[np.int64] | None]) -> xr.Dataset:
    """The result Dataset (without attributes) from every point's evaluation and batch counts."""
    n = len(plan.points)
    floats = {k: np.full(n, np.nan) for k in ("bound", "exact", "estimate", "ci_low", "ci_high", "ci_low_verdict")}
    theorems: list[str] = []
    verdicts = np.empty(n, dtype=np.int8)
    candidate_ids: dict[str, None] = {}  # first-seen order over the grid: deterministic
    level = verdict_confidence(plan.n_points_total)
    for i, point in enumerate(plan.points):
        values = evaluations[i]
        floats["bound"][i], floats["exact"][i] = values["bound"], values["exact"]
        theorems.append(values["bound_theorem"])
        candidate_ids.update(dict.fromkeys(values["candidates"]))
        stacked = stacked_counts(scenario, point, [counts[(i, b)] for b in range(plan.n_batches)])
        if stacked is not None:
            est = scenario.estimate(point, stacked, float(scenario.confidence))
            if est is not None:
                floats["estimate"][i], floats["ci_low"][i], floats["ci_high"][i] = (
                    float(est.value), float(est.ci_low), float(est.ci_high))
            strict = scenario.estimate(point, stacked, level)
            if strict is not None:
                floats["ci_low_verdict"][i] = float(strict.ci_low)
        verdicts[i] = verdict(floats["bound"][i], floats["exact"][i], floats["ci_low_verdict"][i],
                              target=scenario.target)
    candidates = {tid: np.array([ev["candidates"].get(tid, math.nan) for ev in evaluations], dtype=np.float64)
                  for tid in candidate_ids}
    extra = {name: np.array([ev["variables"][name] for ev in evaluations], dtype=np.float64)
             for name in (getattr(scenario, "variables", None) or {})}
    return build_dataset(plan.grid, floats, theorems, verdicts, candidates, {}, scenario=scenario, extra=extra)
