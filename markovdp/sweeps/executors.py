"""Where sweep chunks run: a local dask cluster, dask's local schedulers, or an existing cluster.

`open_executor(scheduler)` is a context manager yielding an `Executor`: ``imap(fn, items)`` runs
``fn(item)`` for every item and yields ``(index, result)`` pairs *as they complete*, so progress and
checkpoints advance while the sweep runs. The executor only decides *where* a task runs; what it
computes depends on the task alone (DESIGN §7), so every executor gives bit-identical sweeps.

``fn`` must be a picklable top-level function (or a ``functools.partial`` of one): the process
scheduler and distributed workers unpickle it in another interpreter.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor as _PoolExecutor
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = [
    "LOCAL_SCHEDULERS",
    "DistributedExecutor",
    "Executor",
    "LocalSchedulerExecutor",
    "SchedulerUnreachable",
    "open_executor",
]

T = TypeVar("T")
R = TypeVar("R")

#: Names of dask's single-machine schedulers accepted by `open_executor`.
LOCAL_SCHEDULERS = ("synchronous", "threads", "processes")

#: Seconds to wait for an existing scheduler to answer before giving up.
CONNECT_TIMEOUT = 10.0

# "tcp://host:port", "tls://host:port", "host:port", "[::1]:port" — a scheme is optional, a port is not.
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):\d+/?$")


class SchedulerUnreachable(ConnectionError):
    """No dask scheduler answers at the given address (the CLI exits with code 2, no traceback)."""


@runtime_checkable
class Executor(Protocol):
    """Runs picklable functions over items and streams the results back as they complete."""

    #: How many tasks can run at once (used to pick a default chunk size; never affects results).
    n_workers: int

    def imap(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """Yield ``(i, fn(items[i]))`` for every ``i``, in completion order.

        Closing the iterator early (an exception in the consumer) cancels what has not run yet.
        A task's exception is re-raised here.
        """
        ...


class LocalSchedulerExecutor:
    """dask's local schedulers ("synchronous", "threads", "processes"), run in waves of a few items.

    Each wave is one ``dask.compute`` call, so results stream back wave by wave; the thread or
    process pool is created once and reused by every wave.
    """

    def __init__(self, scheduler: str, n_workers: int | None = None) -> None:
        if scheduler not in LOCAL_SCHEDULERS:
            raise ValueError(f"`scheduler` must be one of {LOCAL_SCHEDULERS}; got {scheduler!r}.")
        self.scheduler = scheduler
        self.n_workers = 1 if scheduler == "synchronous" else max(1, n_workers or os.cpu_count() or 1)
        self._pool: _PoolExecutor | None = None
        if scheduler == "threads":
            self._pool = ThreadPoolExecutor(self.n_workers, thread_name_prefix="markovdp-sweep")
        elif scheduler == "processes":
            import dask

            context = multiprocessing.get_context(dask.config.get("multiprocessing.context", "spawn"))
            self._pool = ProcessPoolExecutor(self.n_workers, mp_context=context, initializer=_ignore_sigint)
        # Two items per worker per wave keeps workers busy while results still stream.
        self._wave = 1 if scheduler == "synchronous" else 2 * self.n_workers

    def imap(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        import dask

        kwargs: dict[str, Any] = {"scheduler": self.scheduler}
        if self._pool is not None:
            kwargs["pool"] = self._pool
        for start in range(0, len(items), self._wave):
            wave = items[start:start + self._wave]
            results = dask.compute(*[dask.delayed(fn, pure=False)(item) for item in wave], **kwargs)
            for offset, result in enumerate(results):
                yield start + offset, result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __repr__(self) -> str:
        return f"LocalSchedulerExecutor({self.scheduler!r}, n_workers={self.n_workers})"


class DistributedExecutor:
    """A ``dask.distributed`` Client: every item is one future; results stream via ``as_completed``."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.n_workers = max(1, sum(client.nthreads().values()))

    def imap(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        from distributed import as_completed

        futures = [self.client.submit(fn, item, pure=False) for item in items]
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future, result in as_completed(futures, with_results=True):
                yield index[future.key], result
        finally:
            # Stop what has not run (an interrupted sweep keeps its checkpoints, not its workers busy).
            self.client.cancel(futures)

    def __repr__(self) -> str:
        return f"DistributedExecutor({self.client.scheduler.address!r}, n_workers={self.n_workers})"


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
def _local_cluster() -> Iterator[DistributedExecutor]:
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
    with cluster, Client(cluster) as client:
        yield DistributedExecutor(client)


@contextlib.contextmanager
def open_executor(scheduler: str | None = None, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[Executor]:
    """An `Executor` for `scheduler`, closed (cluster shut down, pools joined) on exit.

    Parameters
    ----------
    scheduler : None (default) for a local ``dask.distributed`` cluster on 127.0.0.1 (one
        single-threaded worker process per core, no dashboard); "synchronous", "threads" or
        "processes" for dask's local schedulers ("synchronous" runs in this thread: for debugging);
        anything else is the address of an existing scheduler, "tcp://host:port" or "host:port".
    timeout : seconds to wait for an existing scheduler.

    Raises
    ------
    SchedulerUnreachable
        If no scheduler answers at the address within `timeout`.
    ValueError
        If `scheduler` is neither a local scheduler name nor an address with a port.
    """
    if scheduler is None:
        with _local_cluster() as executor:
            yield executor
        return
    if not isinstance(scheduler, str):
        raise TypeError(f"`scheduler` must be None or a string; got {scheduler!r}.")
    if scheduler in LOCAL_SCHEDULERS:
        local = LocalSchedulerExecutor(scheduler)
        try:
            yield local
        finally:
            local.close()
        return
    if not _ADDRESS.match(scheduler):
        raise ValueError(
            f"`scheduler` must be one of {LOCAL_SCHEDULERS}, None (a local cluster) or a scheduler address "
            f"'tcp://host:port' / 'host:port'; got {scheduler!r}."
        )
    client = _connect(scheduler, timeout)
    try:
        yield DistributedExecutor(client)
    finally:
        client.close()
