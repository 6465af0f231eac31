"""Execute a sweep's chunks on a `concurrent.futures.Executor`, consumed with ``as_completed``.

At most ``2 × workers`` chunks are in flight: enough to keep every worker busy, few enough that an
interrupt cancels the rest at once and that ``SynchronousExecutor`` runs one chunk, hands it back (to be
checkpointed) and only then runs the next. Results arrive in completion order; the reduce step orders them.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .checkpoint import CheckpointStore
from .executors import WorkerLost, worker_count
from .extensions import ExtensionCheck, MissingExtension, modules_needed, not_importable, unimportable
from .plan import SweepPlan
from .tasks import EvaluateChunk, run_chunk

__all__ = ["completed", "execute"]

#: Seconds the consumer waits for a result before it lets Python run pending signal handlers.
SLICE = 0.2


def completed(executor: cf.Executor, fn: Callable[[Any], Any], items: Sequence[Any],
              window: int) -> Iterator[tuple[int, Any]]:
    """Yield ``(i, fn(items[i]))`` in completion order, with at most `window` items submitted at once.

    Closing the iterator early (an exception in the consumer, an interrupt) cancels what has not
    started; a task's exception is re-raised here, a broken pool as `WorkerLost`.
    """
    queue = iter(enumerate(items))
    pending: dict[cf.Future[Any], int] = {}

    def top_up() -> None:
        for i, item in itertools.islice(queue, max(0, window - len(pending))):
            pending[executor.submit(fn, item)] = i

    try:
        top_up()
        while pending:
            done: set[cf.Future[Any]] = set()
            while not done:  # in slices: a signal that reached another thread is handled here within SLICE s
                done, _ = cf.wait(pending, timeout=SLICE, return_when=cf.FIRST_COMPLETED)
            future = min(done, key=pending.__getitem__)
            i = pending.pop(future)
            try:
                result = future.result()
            except cf.BrokenExecutor as exc:  # a pool process died (killed, out of memory): the pool is unusable
                raise WorkerLost("a worker process of the pool died (killed, or out of memory)") from exc
            yield i, result
            top_up()
    finally:
        for future in pending:
            future.cancel()


def _preflight(executor: Any, task: Any, scenario: Any) -> None:
    """Raise `MissingExtension` if the scheduler or a worker cannot import a module that unpickling `task` needs."""
    needed = modules_needed(task)
    try:
        missing = executor.missing_modules(needed)
    except Exception:  # noqa: BLE001  (the question itself failed, e.g. a worker closing: each task still reports)
        return
    if missing:
        raise not_importable(missing, scenario)


def execute(
    scenario: Any,
    plan: SweepPlan,
    executor: cf.Executor,
    counts: dict[tuple[int, int], NDArray[np.int64] | None],
    *,
    store: CheckpointStore | None,
    chunk_size: int | None,
    progress: Callable[[int, int], Any] | None,
) -> list[dict[str, Any]]:
    """Evaluate every point and simulate every (point, batch) task not yet in `counts` (filled in place).

    What each chunk used from the registries where it ran is checked first (`ExtensionCheck`: a rule or
    registration this process has and the workers lack is a `MissingExtension`, as is a module they cannot import).
    Each finished simulate chunk is checkpointed in `store` before the next result is taken. Returns the
    checked evaluations in point order. ``progress(done, total)`` counts one task per point evaluation
    and per (point, batch); its first call reports the batches already in `counts` (reused).
    """
    n_points = len(plan.points)
    missing = [(i, b) for i in range(n_points) for b in range(plan.n_batches) if (i, b) not in counts]
    workers = worker_count(executor)
    items = plan.chunks(missing, workers, chunk_size)
    total = n_points + plan.n_batches_total
    done = len(counts)
    if progress is not None:
        progress(done, total)
    evaluations: list[dict[str, Any] | None] = [None] * n_points
    task = functools.partial(run_chunk, scenario)
    if hasattr(executor, "missing_modules"):  # a cluster: can its scheduler and workers unpickle a task?
        _preflight(executor, task, scenario)
    results = completed(executor, task, items, window=2 * workers)
    check = ExtensionCheck(scenario)
    try:
        for index, (result, used) in results:
            check(used)
            if isinstance(items[index], EvaluateChunk):
                for i, values in result:
                    evaluations[i] = values
            else:
                for i, b, c in result:
                    counts[(i, b)] = c
                if store is not None:
                    store.save(result, plan.keys)
            done += len(result)
            if progress is not None:
                progress(done, total)
    except Exception as exc:  # a task's error: first, did it lack a rule or a module that this process has?
        used = getattr(exc, "markovdp_used", None)
        if used is not None:
            try:
                check(used)
            except MissingExtension as missing:
                raise missing from exc
        if isinstance(exc, ModuleNotFoundError):  # raised where the task ran: a module of the scenario is not there
            raise unimportable(exc, scenario) from exc
        raise
    finally:
        # An exception here (an interrupt, a failing progress callback) cancels the rest at once,
        # not whenever the traceback that holds this frame is freed.
        results.close()
    return evaluations  # type: ignore[return-value]  # every evaluate chunk has run
