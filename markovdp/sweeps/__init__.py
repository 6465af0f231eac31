"""Sweeps: a scenario over grid × logical Monte Carlo batches on dask, into an xarray Dataset (DESIGN §7–8).

- `engine`: `run_sweep` and the `SweepScenario` protocol it runs.
- `executors`: `open_executor` (local cluster, dask's local schedulers, an existing cluster).
- `checkpoint`: finished batches on disk, so an interrupted sweep resumes.
- `dataset`: the result schema; `verdict`: the soundness verdict of one grid point.
"""

from __future__ import annotations

from .checkpoint import CHECKPOINT_DIR, CheckpointStore, markovdp_version
from .dataset import build_dataset, write_dataset
from .engine import EstimateLike, SweepScenario, run_sweep, verdict_confidence
from .executors import (
    LOCAL_SCHEDULERS,
    DistributedExecutor,
    Executor,
    LocalSchedulerExecutor,
    SchedulerUnreachable,
    open_executor,
)
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
    "DistributedExecutor",
    "EstimateLike",
    "Executor",
    "LocalSchedulerExecutor",
    "SchedulerUnreachable",
    "SweepScenario",
    "build_dataset",
    "markovdp_version",
    "open_executor",
    "run_sweep",
    "verdict",
    "verdict_confidence",
    "write_dataset",
]
