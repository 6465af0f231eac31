"""Plan a sweep: the validated grid, the points addressed by value, the batches, the chunks to run.

Batch b of a point always holds ``min(batch_size, samples − b·batch_size)`` samples; how tasks are grouped
into chunks only amortises overhead and never changes a result.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._random import canonical_repr, point_key
from .._validation import check_int, check_work, fail
from .tasks import EvaluateChunk, SimulateChunk
from .verdict import TARGETS

__all__ = ["SweepPlan", "plan_sweep"]

# Coordinate names the engine uses itself (the seed address and the candidate dimension).
_RESERVED = ("scenario", "theorem")
#: Upper limits of the default chunk sizes (small chunks keep checkpoints frequent).
EVALUATE_CAP, SIMULATE_CAP = 16, 64


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep runs: grid points (C order of `grid`) × `n_batches` logical batches, under seed `root`."""

    name: str
    batch_size: int
    samples: int
    root: np.random.SeedSequence
    grid: dict[str, list[Any]]
    points: tuple[dict[str, Any], ...]
    keys: np.ndarray  # uint64 point keys (`point_key` of {"scenario": name, **point})
    n_batches: int
    n_points_total: int  # grid points in the whole run (the Bonferroni divisor of the verdict level)

    @property
    def n_batches_total(self) -> int:
        """(point, batch) tasks of this sweep."""
        return len(self.points) * self.n_batches

    @property
    def seed_record(self) -> dict[str, Any]:
        return {"entropy": str(self.root.entropy), "spawn_key": [int(k) for k in self.root.spawn_key]}

    def batch_samples(self, batch: int) -> int:
        return min(self.batch_size, self.samples - batch * self.batch_size)

    def point_index(self) -> dict[int, int]:
        return {int(k): i for i, k in enumerate(self.keys)}

    def chunks(self, missing: Sequence[tuple[int, int]], workers: int,
               chunk_size: int | None) -> list[EvaluateChunk | SimulateChunk]:
        """Every evaluate chunk, then the simulate chunks of the `missing` (point, batch) tasks."""
        n = len(self.points)
        eval_size = _default_chunk_size(n, workers, cap=EVALUATE_CAP)
        size = chunk_size or _default_chunk_size(len(missing), workers, cap=SIMULATE_CAP)
        items: list[EvaluateChunk | SimulateChunk] = [
            EvaluateChunk(tuple((i, self.points[i]) for i in range(s, min(s + eval_size, n))))
            for s in range(0, n, eval_size)]
        items += [SimulateChunk(self.root, tuple((i, self.points[i], int(self.keys[i]), b, self.batch_samples(b))
                                                 for i, b in missing[s:s + size]))
                  for s in range(0, len(missing), size)]
        return items


def _default_chunk_size(n_tasks: int, n_workers: int, *, cap: int) -> int:
    # About four chunks per worker balances load; the cap keeps checkpoints frequent.
    return max(1, min(cap, math.ceil(n_tasks / (4 * max(1, n_workers)))))


#: What `plan_sweep` reads of a scenario (the `SweepScenario` protocol).
_SCENARIO_MEMBERS = ("name", "theory_id", "batch_size", "target", "confidence", "grid", "evaluate", "simulate",
                     "estimate")


def _check_scenario(scenario: Any) -> tuple[str, int]:
    if not all(hasattr(scenario, member) for member in _SCENARIO_MEMBERS):
        raise fail("scenario", "a SweepScenario (e.g. a markovdp.validation.Scenario)", type(scenario).__name__,
                   TypeError)
    name = scenario.name
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\0"):
        raise fail("scenario.name", "a non-empty file-name-safe string (no '/', no leading '.')", repr(name))
    batch_size = check_int("scenario.batch_size", scenario.batch_size, minimum=1)
    if scenario.target not in TARGETS:
        raise fail("scenario.target", f"one of {TARGETS}", repr(scenario.target))
    if not 0.0 < float(scenario.confidence) < 1.0:
        raise fail("scenario.confidence", "in (0, 1)", scenario.confidence)
    return name, batch_size


def _check_grid(scenario: Any, grid: Any) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping) or not grid:
        raise fail(f"{scenario.name}.grid()", "a non-empty dict of coordinate name → values", repr(grid),
                   TypeError)
    out: dict[str, list[Any]] = {}
    for dim, values in grid.items():
        values = list(values)
        if dim in _RESERVED:
            raise fail(f"{scenario.name}.grid()", f"free of the reserved coordinate names {_RESERVED}",
                       repr(dim))
        if not values:
            raise fail(f"{scenario.name}.grid()[{dim!r}]", "a non-empty list", "[]")
        texts = [canonical_repr({dim: v}) for v in values]
        if len(set(texts)) != len(texts):
            raise fail(f"{scenario.name}.grid()[{dim!r}]", "distinct values (a point's seed is its value)",
                       repr(values))
        out[str(dim)] = values
    return out


def _root_seed(seed: Any) -> np.random.SeedSequence:
    """The root of every task's seed address: a SeedSequence as given, else SeedSequence(seed)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is not None:
        check_int("seed", seed, minimum=0)
    return np.random.SeedSequence(seed)


def plan_sweep(scenario: Any, *, samples: int, seed: int | np.random.SeedSequence | None, quick: bool = False,
               n_points_total: int | None = None) -> SweepPlan:
    """The plan of `scenario` over its (quick) grid with `samples` per point and side (see `run_sweep`)."""
    samples = check_int("samples", samples, minimum=1)
    name, batch_size = _check_scenario(scenario)
    root = _root_seed(seed)
    grid = _check_grid(scenario, scenario.grid(bool(quick)))
    points = tuple(dict(zip(grid, combo, strict=True)) for combo in itertools.product(*grid.values()))
    check_work("samples", samples, 2.0 * samples * len(points), what=f"{len(points)} grid points x 2 sides x samples")
    total = len(points) if n_points_total is None else check_int("n_points_total", n_points_total, minimum=1)
    keys = np.array([point_key({"scenario": name, **p}) for p in points], dtype=np.uint64)
    return SweepPlan(name=name, batch_size=batch_size, samples=samples, root=root, grid=grid, points=points,
                     keys=keys, n_batches=math.ceil(samples / batch_size), n_points_total=total)
