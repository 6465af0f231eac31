"""`signals_deferred`: hold SIGINT/SIGTERM while a few files are written together, then act on them.

A signal may reach any thread of the process (dask's, OpenBLAS's, a pool's), but Python runs its handlers
only in the main thread, between bytecodes. Blocking the signal in the calling thread
(``pthread_sigmask``) is therefore not enough: the kernel hands it to another thread, and the main
thread's handler still raises in the middle of the writes. What works whichever thread receives it is to
replace the *Python-level* handlers for the duration: the replacement only records the signal, and on exit
the original handlers are restored and the first recorded signal is handed to its original handler (which
raises ``KeyboardInterrupt``, terminates the process, or does nothing, as before).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["HELD_SIGNALS", "signals_deferred"]

#: The signals `signals_deferred` holds.
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _deliver(signum: int, handler: Any) -> None:
    """Act on `signum` as `handler` (a Python handler, ``SIG_DFL`` or ``SIG_IGN``) would have."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # the default action: SIGTERM ends the process, SIGINT raises KeyboardInterrupt


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Run the body with SIGINT/SIGTERM held; on exit, deliver the first one that arrived meanwhile.

    Outside the main thread this does nothing: there no signal handler can interrupt the body (Python runs
    handlers in the main thread only). Nested uses hold the signal until the outermost one exits.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum: int, frame: object) -> None:
        pending.append(signum)

    # Read the handlers before replacing any, so the restore below never depends on how far the loop got.
    previous = {s: signal.getsignal(s) for s in HELD_SIGNALS}
    held = [s for s, handler in previous.items() if handler is not None]  # None: installed outside Python
    try:
        for s in held:
            signal.signal(s, hold)
        yield
    finally:
        for s in held:
            signal.signal(s, previous[s])
        if pending:
            _deliver(pending[0], previous[pending[0]])
