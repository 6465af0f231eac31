"""Sweeps: a scenario over grid × logical Monte Carlo batches, into an xarray Dataset (DESIGN §7–8).

- `engine`: `run_sweep` = `plan` → `execute` → `reduce`, and the `SweepScenario` protocol it runs.
- `executors`: `open_executor` (a local dask cluster, a local pool, an existing cluster), all standard
  `concurrent.futures.Executor` instances.
- `checkpoint`: finished batches on disk with a sha256 per file, so an interrupted sweep resumes.
- `dataset`: the result schema; `verdict`: the soundness verdict of one grid point.
- seeds as addresses: `task_seed(root, point, batch)`, `point_key` (DESIGN §7).
- `extensions`: what a task used from the registries where it ran, compared with this process
  (`MissingExtension`: docs/extending.md).
- `atomic`: `atomic_write`, the one way a file is written; `provenance`: version, commit, creation time.
"""

from __future__ import annotations

from .._random import point_key, task_seed
from .atomic import atomic_write
from .checkpoint import CHECKPOINT_DIR, CheckpointsExist, CheckpointStore, saved_batches
from .dataset import build_dataset, write_dataset
from .engine import EstimateLike, SweepScenario, checkpoint_store, run_sweep, verdict_confidence
from .executors import (
    LOCAL_SCHEDULERS,
    DaskExecutor,
    SchedulerLost,
    SchedulerUnreachable,
    SynchronousExecutor,
    WorkerLost,
    open_executor,
    worker_count,
)
from .extensions import MissingExtension
from .lock import OutLocked, out_lock
from .plan import SweepPlan, plan_sweep
from .provenance import git_commit, markovdp_version
from .verdict import FLAG_MEANINGS, FLAG_VALUES, NOT_APPLICABLE, OK, VIOLATION, verdict

__all__ = [
    "CHECKPOINT_DIR",
    "FLAG_MEANINGS",
    "FLAG_VALUES",
    "LOCAL_SCHEDULERS",
    "NOT_APPLICABLE",
    "OK",
    "VIOLATION",
    "CheckpointStore",
    "CheckpointsExist",
    "EstimateLike",
    "MissingExtension",
    "OutLocked",
    "SchedulerLost",
    "SchedulerUnreachable",
    "WorkerLost",
    "SweepPlan",
    "SweepScenario",
    "SynchronousExecutor",
    "atomic_write",
    "build_dataset",
    "checkpoint_store",
    "git_commit",
    "markovdp_version",
    "DaskExecutor",
    "open_executor",
    "out_lock",
    "point_key",
    "plan_sweep",
    "run_sweep",
    "task_seed",
    "saved_batches",
    "verdict",
    "verdict_confidence",
    "worker_count",
    "write_dataset",
]
