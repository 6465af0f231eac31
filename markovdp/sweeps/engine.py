"""`run_sweep`: a scenario over its grid × logical Monte Carlo batches, on dask, into an xarray Dataset.

The work is a set of tasks: one ``evaluate(point)`` per grid point (deterministic values) and one
``simulate(point, n_b, rng)`` per (grid point, batch b). A task's rng is
``default_rng(task_seed(root, point_key({"scenario": name, **point}), b))`` — an address, not a
counter (DESIGN §7) — and batch b always holds ``min(batch_size, samples − b·batch_size)`` samples.
Tasks are grouped into chunks (one dask task each) only to amortise overhead; results are
reduced in a fixed order (stacked by batch index), so the Dataset is bit-identical for any
executor, number of workers and chunk size, and a resumed sweep equals an uninterrupted one.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .._random import canonical_repr, point_key, task_seed
from .._validation import check_int, fail
from .checkpoint import CheckpointStore, markovdp_version
from .dataset import build_dataset, write_dataset
from .executors import Executor, open_executor
from .verdict import TARGETS, verdict

__all__ = ["EstimateLike", "SweepScenario", "run_sweep", "verdict_confidence"]

#: Family-wise false-violation rate of the Monte Carlo check over all grid points of a run.
VERDICT_ALPHA = 1e-6
# Coordinate names the engine uses itself (the seed address and the candidate dimension).
_RESERVED = ("scenario", "theorem")


@runtime_checkable
class EstimateLike(Protocol):
    """What `SweepScenario.estimate` returns (e.g. `markovdp.divergences.estimate.Estimate`)."""

    value: float
    ci_low: float
    ci_high: float


@runtime_checkable
class SweepScenario(Protocol):
    """What `run_sweep` needs from a scenario (implemented by `markovdp.validation.Scenario`).

    Attributes
    ----------
    name : unique name, e.g. "BBGG-T1"; names the output file ``<name>.nc`` and the checkpoints.
    theory_id : the THEORY ID the scenario checks.
    batch_size : samples per neighbour side in one logical batch (fixed by the scenario: it is part
        of the seed address, so changing it changes the random numbers).
    target : "upper" (the bound must be >= the truth) or "equality" (a closed form equal to it).
    confidence : level of the reported ``ci_low``/``ci_high``, e.g. 0.95.

    Methods
    -------
    grid(quick) -> dict[str, list]
        Coordinate name → values (floats, ints or strings); the points are the Cartesian product,
        in this order. Values in a coordinate are distinct.
    evaluate(point) -> dict
        Deterministic values at a grid point: "bound" (float), "bound_theorem" (str, the winning
        THEORY ID, "" if none), "exact" (float, NaN if unknown) and optionally "candidates"
        (THEORY ID → float bound of each rule, NaN where not applicable).
    simulate(point, n, rng) -> numpy.ndarray | None
        Monte Carlo statistics of ONE batch of n samples per side: int64 counts of shape (2, m)
        (row 0 side p, row 1 side q; m fixed per point); None if the scenario has no Monte Carlo.
        All randomness must come from `rng`.
    estimate(point, counts, confidence) -> EstimateLike | None
        The estimate from counts of shape (n_batches, 2, m), batches stacked in batch order (the
        estimator decides how to split them, e.g. even batches select an event, odd ones evaluate it).
    """

    name: str
    theory_id: str
    batch_size: int
    target: str
    confidence: float

    def grid(self, quick: bool) -> dict[str, list[Any]]: ...

    def evaluate(self, point: dict[str, Any]) -> dict[str, Any]: ...

    def simulate(self, point: dict[str, Any], n: int,
                 rng: np.random.Generator) -> NDArray[np.int64] | None: ...

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64],
                 confidence: float) -> EstimateLike | None: ...


def verdict_confidence(n_points_total: int) -> float:
    """The level ``1 − 1e-6 / m`` of the Monte Carlo check, m = grid points in the whole run (Bonferroni)."""
    return 1.0 - VERDICT_ALPHA / n_points_total


# -- tasks (top-level and picklable: they run in worker processes) --------------------------------------
@dataclass(frozen=True)
class _EvaluateChunk:
    """``evaluate`` at some grid points: (point index, point) pairs."""

    points: tuple[tuple[int, dict[str, Any]], ...]

    def run(self, scenario: SweepScenario) -> list[tuple[int, dict[str, Any]]]:
        return [(i, _checked_evaluation(scenario, point, scenario.evaluate(point)))
                for i, point in self.points]


@dataclass(frozen=True)
class _SimulateChunk:
    """``simulate`` for some (point, batch) tasks: (point index, point, point key, batch, n) tuples."""

    root: np.random.SeedSequence
    tasks: tuple[tuple[int, dict[str, Any], int, int, int], ...]

    def run(self, scenario: SweepScenario) -> list[tuple[int, int, NDArray[np.int64] | None]]:
        out = []
        for i, point, key, batch, n in self.tasks:
            rng = np.random.default_rng(task_seed(self.root, key, batch))
            out.append((i, batch, _checked_counts(scenario, point, scenario.simulate(point, n, rng))))
        return out


def _run_chunk(scenario: SweepScenario, chunk: _EvaluateChunk | _SimulateChunk) -> list[Any]:
    return chunk.run(scenario)


def _where(scenario: SweepScenario, point: Mapping[str, Any]) -> str:
    return f"scenario {scenario.name!r} at {canonical_repr(point)}"


def _as_float(scenario: SweepScenario, point: Mapping[str, Any], what: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{_where(scenario, point)}: {what} must be a float; got {value!r}.") from exc


def _checked_evaluation(scenario: SweepScenario, point: Mapping[str, Any], values: Any) -> dict[str, Any]:
    if not isinstance(values, Mapping) or "bound" not in values:
        raise TypeError(f"{_where(scenario, point)}: evaluate() must return a dict with 'bound', "
                        f"'bound_theorem' and 'exact'; got {values!r}.")
    theorem = values.get("bound_theorem") or ""
    if not isinstance(theorem, str):
        raise TypeError(f"{_where(scenario, point)}: 'bound_theorem' must be a str; got {theorem!r}.")
    candidates = values.get("candidates") or {}
    return {
        "bound": _as_float(scenario, point, "'bound'", values["bound"]),
        "bound_theorem": theorem,
        "exact": _as_float(scenario, point, "'exact'", values.get("exact", math.nan)),
        "candidates": {str(k): _as_float(scenario, point, f"candidate {k!r}", v)
                       for k, v in candidates.items()},
    }


def _checked_counts(scenario: SweepScenario, point: Mapping[str, Any],
                    counts: Any) -> NDArray[np.int64] | None:
    if counts is None:
        return None
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[0] != 2 or not (arr.dtype.kind in "iu" or arr.size == 0):
        raise TypeError(f"{_where(scenario, point)}: simulate() must return integer counts of shape (2, m) "
                        f"or None; got dtype {arr.dtype} and shape {arr.shape}.")
    return arr.astype(np.int64, copy=False)


# -- the driver ------------------------------------------------------------------------------------------
def _check_scenario(scenario: SweepScenario) -> tuple[str, int]:
    name = scenario.name
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\0"):
        raise fail("scenario.name", "a non-empty file-name-safe string (no '/', no leading '.')", repr(name))
    batch_size = check_int("scenario.batch_size", scenario.batch_size, minimum=1)
    if scenario.target not in TARGETS:
        raise fail("scenario.target", f"one of {TARGETS}", repr(scenario.target))
    if not 0.0 < float(scenario.confidence) < 1.0:
        raise fail("scenario.confidence", "in (0, 1)", scenario.confidence)
    return name, batch_size


def _check_grid(scenario: SweepScenario, grid: Any) -> dict[str, list[Any]]:
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


def _default_chunk_size(n_tasks: int, n_workers: int, *, cap: int) -> int:
    # About four chunks per worker balances load; the cap keeps checkpoints frequent.
    return max(1, min(cap, math.ceil(n_tasks / (4 * max(1, n_workers)))))


def run_sweep(
    scenario: SweepScenario,
    *,
    samples: int,
    seed: int | np.random.SeedSequence | None,
    quick: bool = False,
    executor: Executor | str | None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    chunk_size: int | None = None,
    n_points_total: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
    command: str = "",
) -> xr.Dataset:
    """Run `scenario` over its grid × ceil(samples / batch_size) Monte Carlo batches.

    Parameters
    ----------
    scenario : a `SweepScenario`.
    samples : samples per grid point per neighbour side (>= 1).
    seed : root seed; ``SeedSequence(seed)`` is the root of every task's seed address.
    quick : use the scenario's quick grid.
    executor : an `Executor` from `open_executor`, or a scheduler (None, "synchronous", "threads",
        "processes", an address) to open one for this call.
    out : directory for ``<name>.nc`` and the checkpoints ``.checkpoints/<name>/``; None writes nothing.
    resume : continue from this scenario's checkpoints under `out` (only the missing batches run).
    chunk_size : (point, batch) tasks per dask task; default about four chunks per worker (<= 64).
        Never changes the result.
    n_points_total : grid points in the whole run (several scenarios), for the verdict level
        ``1 − 1e-6 / n_points_total``; default this scenario's.
    progress : ``progress(done, total)`` in tasks (one evaluate per point + one per (point, batch)),
        called once at the start and as chunks complete.
    command : the command line, recorded in the attributes.

    Returns
    -------
    xarray.Dataset
        See `markovdp.sweeps.dataset`; also written to ``<out>/<name>.nc`` when `out` is given.

    Raises
    ------
    ValueError
        For ``samples < 1``, a bad chunk size, ``resume`` without ``out``, or checkpoints made with
        other settings (seed, samples, batch size, scenario, quick flag, markovdp version).
    SchedulerUnreachable
        If `executor` is an address no scheduler answers at.
    """
    if executor is None or isinstance(executor, str):
        with open_executor(executor) as opened:
            return run_sweep(scenario, samples=samples, seed=seed, quick=quick, executor=opened, out=out,
                             resume=resume, chunk_size=chunk_size, n_points_total=n_points_total,
                             progress=progress, command=command)
    samples = check_int("samples", samples, minimum=1)
    if chunk_size is not None:
        chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    if resume and out is None:
        raise ValueError("`resume=True` needs `out`, the directory that holds the checkpoints.")
    name, batch_size = _check_scenario(scenario)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)

    grid = _check_grid(scenario, scenario.grid(bool(quick)))
    points = [dict(zip(grid, combo, strict=True)) for combo in itertools.product(*grid.values())]
    n_points = len(points)
    m_total = n_points if n_points_total is None else check_int("n_points_total", n_points_total, minimum=1)
    keys = np.array([point_key({"scenario": name, **p}) for p in points], dtype=np.uint64)
    point_index = {int(k): i for i, k in enumerate(keys)}
    n_batches = math.ceil(samples / batch_size)

    # -- checkpoints ---------------------------------------------------------------------------------
    store = None
    counts: dict[tuple[int, int], NDArray[np.int64] | None] = {}
    seed_record = {"entropy": str(root.entropy), "spawn_key": [int(k) for k in root.spawn_key]}
    if out is not None:
        store = CheckpointStore(out, {"scenario": name, "seed": seed_record, "samples": samples,
                                      "batch_size": batch_size, "quick": bool(quick),
                                      "markovdp_version": markovdp_version()})
        for i, b, c in store.start(resume=resume, point_index=point_index, n_batches=n_batches):
            n_b = min(batch_size, samples - b * batch_size)
            if c is not None and not np.all(np.asarray(c).sum(axis=-1) == n_b):
                raise ValueError(f"cannot resume {_where(scenario, points[i])}: the checkpointed counts of batch "
                                 f"{b} do not add up to its {n_b} samples per side; run without resume.")
            counts[(i, b)] = c

    # -- chunks --------------------------------------------------------------------------------------
    missing = [(i, b) for i in range(n_points) for b in range(n_batches) if (i, b) not in counts]
    n_workers = getattr(executor, "n_workers", 1)
    size = chunk_size or _default_chunk_size(len(missing), n_workers, cap=64)
    eval_size = _default_chunk_size(n_points, n_workers, cap=16)
    items: list[_EvaluateChunk | _SimulateChunk] = [
        _EvaluateChunk(tuple((i, points[i]) for i in range(s, min(s + eval_size, n_points))))
        for s in range(0, n_points, eval_size)
    ]
    items += [
        _SimulateChunk(root, tuple((i, points[i], int(keys[i]), b, min(batch_size, samples - b * batch_size))
                                   for i, b in missing[s:s + size]))
        for s in range(0, len(missing), size)
    ]

    total = n_points + n_points * n_batches
    done = len(counts)
    if progress is not None:
        progress(done, total)
    evaluations: list[dict[str, Any] | None] = [None] * n_points
    results = executor.imap(functools.partial(_run_chunk, scenario), items)
    try:
        for index, result in results:
            if isinstance(items[index], _EvaluateChunk):
                for i, values in result:
                    evaluations[i] = values
            else:
                for i, b, c in result:
                    counts[(i, b)] = c
                if store is not None:
                    store.save(result, keys)
            done += len(result)
            if progress is not None:
                progress(done, total)
    finally:
        # An exception here (an interrupt, a failing progress callback) cancels the rest at once,
        # not whenever the traceback that holds this frame is freed.
        close = getattr(results, "close", None)
        if close is not None:
            close()

    ds = _reduce(scenario, grid, points, evaluations, counts, n_batches, m_total)
    ds.attrs.update(_attributes(scenario, root, seed_record, batch_size, samples, quick, command, m_total))
    if out is not None and store is not None:
        write_dataset(ds, Path(out) / f"{name}.nc")
        store.clear()
    return ds


def _stacked(scenario: SweepScenario, point: Mapping[str, Any],
             batches: Sequence[NDArray[np.int64] | None]) -> NDArray[np.int64] | None:
    """The counts of one point stacked in batch order, (n_batches, 2, m); None without Monte Carlo."""
    if all(c is None for c in batches):
        return None
    shapes = {None if c is None else c.shape for c in batches}
    if len(shapes) != 1:
        raise ValueError(f"{_where(scenario, point)}: simulate() must return counts of one fixed shape "
                         f"(2, m) for every batch (never None for some); got {sorted(map(str, shapes))}.")
    stacked = np.stack(batches)  # type: ignore[arg-type]
    stacked.setflags(write=False)  # estimators must not modify the shared counts
    return stacked


def _reduce(scenario: SweepScenario, grid: dict[str, list[Any]], points: list[dict[str, Any]],
            evaluations: list[dict[str, Any] | None], counts: Mapping[tuple[int, int], Any],
            n_batches: int, m_total: int) -> xr.Dataset:
    """Estimates and verdicts per point, in grid order (a fixed order: bit-identical results)."""
    n = len(points)
    floats = {k: np.full(n, np.nan) for k in ("bound", "exact", "estimate", "ci_low", "ci_high",
                                              "ci_low_verdict")}
    theorems: list[str] = []
    verdicts = np.empty(n, dtype=np.int8)
    candidate_ids: dict[str, None] = {}  # first-seen order over the grid: deterministic
    level = verdict_confidence(m_total)
    for i, point in enumerate(points):
        values = evaluations[i]
        assert values is not None  # every evaluate chunk has run
        floats["bound"][i], floats["exact"][i] = values["bound"], values["exact"]
        theorems.append(values["bound_theorem"])
        candidate_ids.update(dict.fromkeys(values["candidates"]))
        stacked = _stacked(scenario, point, [counts[(i, b)] for b in range(n_batches)])
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
    candidates = {tid: np.array([ev["candidates"].get(tid, math.nan) for ev in evaluations  # type: ignore[index]
                                 ], dtype=np.float64) for tid in candidate_ids}
    return build_dataset(grid, floats, theorems, verdicts, candidates, {})


def _attributes(scenario: SweepScenario, root: np.random.SeedSequence, seed_record: dict[str, Any],
                batch_size: int, samples: int, quick: bool, command: str, m_total: int) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "markovdp_version": markovdp_version(),
        "scenario": scenario.name,
        "theory_id": str(scenario.theory_id),
        "description": str(getattr(scenario, "description", "")),
        "target": scenario.target,
        "seed_entropy": str(root.entropy),
        "batch_size": batch_size,
        "samples": samples,
        "confidence": float(scenario.confidence),
        "verdict_confidence": verdict_confidence(m_total),
        "command": str(command),
        "quick": int(bool(quick)),
    }
    if seed_record["spawn_key"]:
        attrs["seed_spawn_key"] = json.dumps(seed_record["spawn_key"])
    return attrs
