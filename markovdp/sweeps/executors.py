"""Where sweep tasks run: a standard `concurrent.futures.Executor` (DESIGN §7).

`open_executor(scheduler)` yields one and shuts it down on exit:

- None: a local ``dask.distributed`` cluster (one single-threaded worker process per core), through
  `DaskExecutor`; an address: an existing cluster, the same way.
- "threads" / "processes": ``concurrent.futures.ThreadPoolExecutor`` / ``ProcessPoolExecutor`` (spawned
  workers that ignore Ctrl-C). Plain pools rather than dask's local schedulers behind an Executor: those
  schedulers are built on the same pools and add a task graph that independent tasks do not need, and a
  pool streams each result to ``as_completed`` the moment it is done.
- "synchronous": `SynchronousExecutor`, every task run in the calling thread at ``submit`` (debugging).

The executor only decides *where* a task runs; what it computes depends on the task alone, so every
executor gives bit-identical sweeps. Tasks must be picklable top-level functions (or partials of them).

Failures of the machinery, not of a task, are named: a lost connection to the scheduler is `SchedulerLost`
(not a bare ``CancelledError``), a task that killed its workers (dask's ``KilledWorker``) or a dead pool
process (``BrokenProcessPool``, raised by `markovdp.sweeps.execute.completed`) is `WorkerLost`. A dask worker
lost while the others carry on is logged once as a warning on the ``markovdp.sweeps`` logger.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import importlib.util
import logging
import multiprocessing
import os
import re
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._validation import check_positive

__all__ = [
    "LOCAL_SCHEDULERS",
    "DaskExecutor",
    "SchedulerLost",
    "SchedulerUnreachable",
    "SynchronousExecutor",
    "WorkerLost",
    "open_executor",
    "worker_count",
]

#: The local schedulers accepted by `open_executor` besides None (a local cluster) and an address.
LOCAL_SCHEDULERS = ("synchronous", "threads", "processes")

#: Seconds to wait for an existing scheduler to answer before giving up.
CONNECT_TIMEOUT = 10.0

# "tcp://host:port", "tls://host:port", "host:port", "[::1]:port" — a scheme is optional, a port is not.
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):\d+/?$")


_log = logging.getLogger("markovdp.sweeps")


class SchedulerUnreachable(ConnectionError):
    """No dask scheduler answers at the given address (the CLI exits with code 2, no traceback)."""


class SchedulerLost(ConnectionError):
    """The connection to the dask scheduler was lost in the middle of a sweep (its tasks are gone)."""


class WorkerLost(RuntimeError):
    """Worker processes died in the middle of a sweep (killed, or out of memory) and it cannot go on."""


class SynchronousExecutor(cf.Executor):
    """A `concurrent.futures.Executor` that runs each task in the calling thread when it is submitted.

    The future it returns is already done (with the result or the task's exception), so
    ``as_completed`` yields it at once: a sweep on it runs one chunk at a time, in order.
    """

    def __init__(self) -> None:
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        if self._shutdown:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: cf.Future[Any] = cf.Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # the task's failure belongs to its future, as in a pool
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._shutdown = True

    def __repr__(self) -> str:
        return "SynchronousExecutor()"


class DaskExecutor(cf.Executor):
    """A `concurrent.futures.Executor` over a ``distributed.Client``: each task a ``Client.submit``.

    Cancelling a returned future cancels its task. Unlike ``Client.get_executor()`` (distributed
    2026.8), a task that finishes just after its future was cancelled is dropped quietly: there the
    late result hits the cancelled future and the event loop logs an ``InvalidStateError`` traceback
    (seen on Ctrl-C / SIGTERM in the middle of a sweep).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.address = str(getattr(getattr(client, "scheduler", None), "address", None) or "?")
        self._tasks: set[Any] = set()
        self._lock = threading.Lock()
        self._shutdown = False
        self._events = hasattr(client, "subscribe_topic")
        if self._events:  # the scheduler's "remove-worker" events: say when a worker is lost
            client.subscribe_topic("all", self._on_event)

    def _on_event(self, event: Any) -> None:
        """A scheduler event (runs in dask's event loop: never a blocking call here)."""
        msg = event[1] if isinstance(event, tuple) and len(event) == 2 else {}
        if not isinstance(msg, dict) or msg.get("action") != "remove-worker" or msg.get("expected"):
            return
        with self._lock:
            if self._shutdown:  # the cluster is being closed at the end of the run
                return
        running = len(msg.get("processing-tasks", ()) or ())
        _log.warning("dask worker %s was lost (killed, or out of memory) while running %d tasks; the scheduler "
                     "runs them again on the other workers or a restarted one (with no worker left the run waits "
                     "for one)", msg.get("worker", "?"), running, extra={"batches_saved": True})

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            # pure=False: two tasks with equal arguments are still two tasks (never merged by key).
            task = self.client.submit(fn, *args, pure=False, **kwargs)
            self._tasks.add(task)
        future: cf.Future[Any] = cf.Future()
        future.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)
        task.add_done_callback(functools.partial(self._forward, future))  # runs in dask's callback thread
        return future

    def _forward(self, future: cf.Future[Any], task: Any) -> None:
        with self._lock:
            self._tasks.discard(task)
        if task.status == "cancelled":
            reason = getattr(getattr(getattr(task, "_state", None), "exception", None), "reason", None)
            if reason == "scheduler-connection-lost" and future.set_running_or_notify_cancel():
                future.set_exception(SchedulerLost(f"lost the connection to the dask scheduler at {self.address}"))
                return
            future.cancel()
        if not future.set_running_or_notify_cancel():  # cancelled here or by the consumer: nothing to hand over
            return
        try:
            future.set_result(task.result())
        except BaseException as exc:  # the task's own exception, re-raised by ``future.result()``
            if type(exc).__name__ == "KilledWorker":  # distributed.scheduler.KilledWorker
                exc = WorkerLost(f"dask workers kept dying while running one task (killed, or out of memory): the "
                                 f"scheduler gave it up after {getattr(exc, 'allowed_failures', '?')} retries")
            future.set_exception(exc)

    def missing_modules(self, modules: Iterable[str]) -> dict[str, list[str]]:
        """Module → the places ("the scheduler", worker addresses) that cannot import it (unpickling a task
        needs the module on the scheduler and on the worker that runs it)."""
        names = sorted(set(modules))
        places = {"the scheduler": self.client.run_on_scheduler(unimportable_here, names),
                  **{f"worker {w}": found for w, found in self.client.run(unimportable_here, names).items()}}
        missing: dict[str, list[str]] = {}
        for place, found in places.items():
            for name in found:
                missing.setdefault(name, []).append(place)
        return missing

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop accepting tasks; cancel the unfinished ones unless `wait` (then wait for them)."""
        with self._lock:
            already, self._shutdown = self._shutdown, True
            tasks = list(self._tasks)
        if self._events and not already:
            with contextlib.suppress(Exception):  # the scheduler may be gone: nothing to unsubscribe from
                self.client.unsubscribe_topic("all")
        if wait and not cancel_futures:
            from distributed import wait as wait_for

            wait_for(tasks)
        elif tasks:
            self.client.cancel(tasks)


def unimportable_here(modules: list[str]) -> list[str]:
    """The modules in `modules` that this process cannot import (run on the scheduler and the workers)."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def check_scheduler(name: str, scheduler: str) -> None:
    """A scheduler string: a local scheduler name or an address with a port (ValueError naming `name`)."""
    if scheduler not in LOCAL_SCHEDULERS and not _ADDRESS.match(scheduler):
        raise ValueError(
            f"`{name}` must be one of {LOCAL_SCHEDULERS}, None (a local cluster) or a scheduler address "
            f"'tcp://host:port' / 'host:port'; got {scheduler!r}."
        )


def worker_count(executor: cf.Executor) -> int:
    """How many tasks `executor` runs at once (picks default chunk sizes; never affects results)."""
    if not isinstance(executor, cf.Executor):
        raise TypeError(f"`executor` must be a concurrent.futures.Executor; got {type(executor).__name__}.")
    if isinstance(executor, SynchronousExecutor):
        return 1
    if isinstance(executor, DaskExecutor):
        client = executor.client
        return max(1, sum(client.nthreads().values()))
    workers = getattr(executor, "_max_workers", None)  # ThreadPoolExecutor, ProcessPoolExecutor
    return max(1, int(workers)) if workers else max(1, os.cpu_count() or 1)


def _ignore_sigint() -> None:
    """Ctrl-C is for the driver, which then shuts its workers down (no traceback from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _children_ignore_sigint() -> Iterator[None]:
    """Processes started inside inherit an ignored SIGINT (it survives ``exec``); this one keeps its own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _connect(address: str, timeout: float) -> Any:
    from distributed import Client

    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"no dask scheduler answered at {address!r} within {timeout:g} s ({exc}). Start one with "
            f"`dask scheduler` (and workers with `dask worker {address}`), or use a local scheduler: "
            f"omit the address for a local cluster, or pass one of {LOCAL_SCHEDULERS}."
        ) from exc


@contextlib.contextmanager
def _client_executor(client: Any) -> Iterator[cf.Executor]:
    executor = DaskExecutor(client)
    try:
        yield executor
    finally:
        executor.shutdown(wait=False)  # cancels what is still pending


@contextlib.contextmanager
def _local_cluster() -> Iterator[cf.Executor]:
    from distributed import Client, LocalCluster

    # The worker processes start (and are waited for) while SIGINT is ignored, so they inherit that:
    # a Ctrl-C reaches only this process, which then shuts the cluster down quietly.
    with _children_ignore_sigint():
        cluster = LocalCluster(
            host="127.0.0.1",
            n_workers=os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # The scheduler serves /health and /metrics even without a dashboard: on loopback, on any free
            # port (not 8787, which another cluster may hold: that warns).
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        )
    with cluster, Client(cluster) as client, _client_executor(client) as executor:
        yield executor


def _pool(scheduler: str) -> cf.Executor:
    if scheduler == "synchronous":
        return SynchronousExecutor()
    workers = max(1, os.cpu_count() or 1)
    if scheduler == "threads":
        return cf.ThreadPoolExecutor(workers, thread_name_prefix="markovdp-sweep")
    # spawn: workers never inherit the driver's threads or numba state mid-flight.
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_ignore_sigint)


@contextlib.contextmanager
def open_executor(scheduler: str | None = None, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[cf.Executor]:
    """A `concurrent.futures.Executor` for `scheduler`, shut down (cluster closed, pool joined) on exit.

    Parameters
    ----------
    scheduler : None (default) for a local ``dask.distributed`` cluster on 127.0.0.1 (one
        single-threaded worker process per core, no dashboard); "synchronous" (in this thread: for
        debugging), "threads" or "processes" for a local pool; anything else is the address of an
        existing scheduler, "tcp://host:port" or "host:port".
    timeout : seconds to wait for an existing scheduler.

    Raises
    ------
    SchedulerUnreachable
        If no scheduler answers at the address within `timeout`.
    ValueError
        If `scheduler` is neither a local scheduler name nor an address with a port.
    """
    timeout = check_positive("timeout", timeout)
    if scheduler is None:
        with _local_cluster() as executor:
            yield executor
        return
    if not isinstance(scheduler, str):
        raise TypeError(f"`scheduler` must be None or a string; got {scheduler!r}.")
    if scheduler in LOCAL_SCHEDULERS:
        pool = _pool(scheduler)
        try:
            yield pool
        finally:
            # Queued tasks are dropped; running ones finish (a pool cannot stop a task mid-way).
            pool.shutdown(wait=True, cancel_futures=True)
        return
    check_scheduler("scheduler", scheduler)
    client = _connect(scheduler, timeout)
    try:
        with _client_executor(client) as executor:
            yield executor
    finally:
        client.close()
