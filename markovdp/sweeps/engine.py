"""`run_sweep`: a scenario over its grid × logical Monte Carlo batches, into an xarray Dataset.

Three steps, one module each: `plan_sweep` (grid, points addressed by value, batches), `execute`
(chunks on a `concurrent.futures.Executor`, consumed with ``as_completed``, checkpointed as they finish)
and `reduce_sweep` (estimates and verdicts in grid order). A task's rng is
``default_rng(task_seed(root, point_key({"scenario": name, **point}), b))`` — an address, not a counter
(DESIGN §7) — so the Dataset is bit-identical for any executor, number of workers and chunk size, and a
resumed sweep equals an uninterrupted one.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .._validation import check_int
from .checkpoint import CheckpointStore
from .dataset import write_dataset
from .execute import execute
from .executors import check_scheduler, open_executor
from .lock import out_lock
from .plan import SweepPlan, plan_sweep
from .provenance import git_commit, markovdp_version
from .reduce import reduce_sweep, verdict_confidence

__all__ = ["EstimateLike", "SweepScenario", "run_sweep", "verdict_confidence"]


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

    Optional attributes (read with ``getattr``): ``description``; ``label`` and ``units`` (what the
    bound bounds, default "hockey-stick delta" in "1"); ``coordinates`` (name → (long_name, units));
    ``variables`` (name → an object with ``long_name`` and ``units``: the scenario's own variables).

    Methods
    -------
    grid(quick) -> dict[str, list]
        Coordinate name → values (floats, ints or strings); the points are the Cartesian product,
        in this order. Values in a coordinate are distinct.
    evaluate(point) -> dict
        Deterministic values at a grid point: "bound" (float), "bound_theorem" (str, the winning
        THEORY ID, "" if none), "exact" (float, NaN if unknown) and optionally "candidates"
        (THEORY ID → float bound of each rule, NaN where not applicable) and "variables" (name →
        float, for the names in ``variables``).
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


def run_sweep(
    scenario: SweepScenario,
    *,
    samples: int,
    seed: int | np.random.SeedSequence | None,
    quick: bool = False,
    executor: cf.Executor | str | None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    fresh: bool = False,
    keep_checkpoints: bool = False,
    break_lock: bool = False,
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
    executor : a `concurrent.futures.Executor` (e.g. from `open_executor`), or a scheduler (None,
        "synchronous", "threads", "processes", an address) to open one for this call.
    out : directory for ``<name>.nc`` and the checkpoints ``.checkpoints/<name>/``; None writes nothing.
    resume : continue from this scenario's checkpoints under `out` (only the missing batches run).
    fresh : delete this scenario's checkpoints under `out` and start over.
    keep_checkpoints : keep the checkpoints after the result is written (a multi-scenario run clears
        them once every scenario is done, so a resumed run reuses finished scenarios too).
    break_lock : remove a stale lock on `out` (its process is gone) instead of refusing to run. The run
        holds the lock ``<out>/.markovdp.lock`` throughout (`markovdp.sweeps.lock`).
    chunk_size : (point, batch) tasks per submitted chunk; default about four chunks per worker (<= 64).
        Never changes the result.
    n_points_total : grid points in the whole run (several scenarios), for the verdict level
        ``1 − 1e-6 / n_points_total``; default this scenario's.
    progress : ``progress(done, total)`` in tasks (one evaluate per point + one per (point, batch)),
        called first with the batches reused from checkpoints, then as chunks complete.
    command : the command line, recorded in the attributes.

    Returns
    -------
    xarray.Dataset
        See `markovdp.sweeps.dataset`; also written to ``<out>/<name>.nc`` when `out` is given.

    Raises
    ------
    CheckpointsExist
        If `out` holds checkpoints of this scenario and neither `resume` nor `fresh` is given.
    OutLocked
        If another run holds the lock on `out`, or a stale lock is there and `break_lock` is False.
    ValueError
        For ``samples < 1``, a bad chunk size, ``resume`` without ``out``, or checkpoints made with
        other settings (seed, samples, batch size, scenario, quick flag, markovdp version), or files
        that do not match the manifest's checksums.
    SchedulerUnreachable
        If `executor` is an address no scheduler answers at.
    SchedulerLost, WorkerLost
        If the scheduler, or workers the run cannot do without, are lost mid-run (the finished batches
        stay checkpointed under `out`; ``resume=True`` continues).
    """
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"`out` must be None or a directory path (str or os.PathLike); got {type(out).__name__}.")
    if progress is not None and not callable(progress):
        raise TypeError(f"`progress` must be None or a function progress(done, total); got {type(progress).__name__}.")
    if not isinstance(command, str):
        raise TypeError(f"`command` must be a string (the command line); got {type(command).__name__}.")
    if isinstance(executor, str):
        check_scheduler("executor", executor)
    if executor is None or isinstance(executor, str):
        with open_executor(executor) as opened:
            return run_sweep(scenario, samples=samples, seed=seed, quick=quick, executor=opened, out=out,
                             resume=resume, fresh=fresh, keep_checkpoints=keep_checkpoints,
                             break_lock=break_lock, chunk_size=chunk_size, n_points_total=n_points_total,
                             progress=progress, command=command)
    if not isinstance(executor, cf.Executor):
        raise TypeError(f"`executor` must be a concurrent.futures.Executor, a scheduler name or address, or None; "
                        f"got {type(executor).__name__}.")
    if chunk_size is not None:
        chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    if resume and out is None:
        raise ValueError("`resume=True` needs `out`, the directory that holds the checkpoints.")
    plan = plan_sweep(scenario, samples=samples, seed=seed, quick=quick, n_points_total=n_points_total)
    lock = contextlib.nullcontext() if out is None else out_lock(out, break_lock=break_lock, command=command)
    with lock:
        store = None if out is None else checkpoint_store(out, plan, quick)
        counts = {} if store is None else _reused(plan, store, resume=resume, fresh=fresh)
        evaluations = execute(scenario, plan, executor, counts, store=store, chunk_size=chunk_size,
                              progress=progress)
        ds = reduce_sweep(scenario, plan, evaluations, counts)
        ds.attrs.update(_attributes(scenario, plan, quick, command))
        if out is not None and store is not None:
            write_dataset(ds, Path(out) / f"{plan.name}.nc")
            if not keep_checkpoints:
                store.clear()
    return ds


def checkpoint_store(out: str | os.PathLike[str], plan: SweepPlan, quick: bool) -> CheckpointStore:
    """The checkpoint store of `plan` under `out` (its manifest: what the batches depend on)."""
    return CheckpointStore(out, {"scenario": plan.name, "seed": plan.seed_record, "samples": plan.samples,
                                 "batch_size": plan.batch_size, "quick": bool(quick),
                                 "markovdp_version": markovdp_version()})


def _reused(plan: SweepPlan, store: CheckpointStore, *, resume: bool,
            fresh: bool) -> dict[tuple[int, int], NDArray[np.int64] | None]:
    found = store.start(resume=resume, fresh=fresh, point_index=plan.point_index(), n_batches=plan.n_batches,
                        batch_samples=plan.batch_samples)
    return {(i, b): c for i, b, c in found}


def _attributes(scenario: Any, plan: SweepPlan, quick: bool, command: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "markovdp_version": markovdp_version(),
        "git_commit": git_commit(),
        "scenario": scenario.name,
        "theory_id": str(scenario.theory_id),
        "description": str(getattr(scenario, "description", "")),
        "target": scenario.target,
        "seed_entropy": str(plan.root.entropy),
        "batch_size": plan.batch_size,
        "samples": plan.samples,
        "confidence": float(scenario.confidence),
        "verdict_confidence": verdict_confidence(plan.n_points_total),
        "command": str(command),
        "quick": int(bool(quick)),
    }
    if plan.seed_record["spawn_key"]:
        attrs["seed_spawn_key"] = json.dumps(plan.seed_record["spawn_key"])
    return attrs
