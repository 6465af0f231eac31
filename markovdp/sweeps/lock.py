"""`out_lock`: one run at a time on an output folder, so no run reuses or deletes another's live checkpoints.

The lock is the file ``<out>/.markovdp.lock``: JSON with the owner's PID, host, process start time, start
date and a random token. It is created whole (written under a temporary name, then hard-linked to the
final name, which fails if the lock exists) and removed when the run ends. A lock whose process is alive
refuses a second run. A lock of this host whose process is gone (killed with SIGKILL, a crash, a reboot)
is *stale*: it is reported and refused too, and broken only when asked (``break_lock=True``, the CLI's
``--break-lock``; a broken lock is logged as a warning on the ``markovdp.sweeps`` logger). A lock of
another host cannot be checked from here: it counts as live unless broken. Within one process the lock
is re-entrant (the CLI holds it around several `run_sweep` calls).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .interrupts import signals_deferred

__all__ = ["LOCK_NAME", "OutLocked", "out_lock"]

#: The lock file's name inside the output folder.
LOCK_NAME = ".markovdp.lock"

_log = logging.getLogger("markovdp.sweeps")
_held: dict[Path, int] = {}  # lock files this process holds → nesting depth
_held_lock = threading.Lock()


class OutLocked(RuntimeError):
    """The output folder is locked by another run (live or stale); the message says which and what to do."""


def _start_time(pid: int) -> float | None:
    """The start time of process `pid` (seconds since the epoch), None if it does not exist."""
    import psutil

    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:  # it exists, owned by another user
        return -1.0


def _owner_alive(owner: dict[str, Any]) -> bool | None:
    """True/False for a lock of this host (the same PID *and* start time: PIDs are reused); None for another host."""
    if owner.get("host") != socket.gethostname():
        return None
    try:
        pid, started = int(owner["pid"]), float(owner["process_start"])
    except (KeyError, TypeError, ValueError):
        return False  # a lock we cannot read names no process that could still be running it
    now = _start_time(pid)
    return now is not None and (now < 0 or abs(now - started) < 1.0)


def _describe(owner: dict[str, Any]) -> str:
    if not owner:
        return "an unreadable lock"
    command = f", command {owner['command']!r}" if owner.get("command") else ""
    return (f"process {owner.get('pid', '?')} on host {owner.get('host', '?')} (started "
            f"{owner.get('started', '?')}{command})")


def _read(path: Path) -> dict[str, Any]:
    try:
        owner = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}


def _create(path: Path, record: dict[str, Any]) -> bool:
    """Create `path` holding `record`, whole or not at all; False if it exists already."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{record['token']}.tmp")
    tmp.write_text(json.dumps(record, indent=1))
    try:
        os.link(tmp, path)  # atomic, and fails if `path` exists: a reader never sees a half-written lock
        return True
    except FileExistsError:
        return False
    except OSError as exc:  # a file system without hard links: exclusive create, then write
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(record, indent=1))
        return True
    finally:
        tmp.unlink(missing_ok=True)


def _acquire(path: Path, *, break_lock: bool, command: str) -> str:
    record = {"pid": os.getpid(), "host": socket.gethostname(), "process_start": _start_time(os.getpid()),
              "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": command, "token": secrets.token_hex(8)}
    for attempt in range(50):
        if _create(path, record):
            return str(record["token"])
        owner = _read(path)
        if not owner and attempt < 3:  # being written by a file system without hard links: look again
            time.sleep(0.05)
            continue
        alive = _owner_alive(owner) if owner else False
        where = path.parent
        if alive:
            raise OutLocked(f"`--out` {str(where)!r} is in use by {_describe(owner)}: wait for that run to end, "
                            f"or choose another --out. Nothing was changed.")
        if not break_lock:
            state = ("whose process is no longer running (a stale lock)" if alive is False else
                     "from another host, whose process cannot be checked from here")
            raise OutLocked(f"`--out` {str(where)!r} holds the lock {path.name} of {_describe(owner)} {state}. If no "
                            f"run uses this folder any more, rerun with --break-lock (break_lock=True) to remove "
                            f"the lock; its checkpoints are kept. Nothing was changed.")
        # Break it by renaming (atomic: of two runs breaking the same lock, one rename fails), then retry.
        broken = path.with_name(f"{path.name}.broken-{record['token']}")
        try:
            os.rename(path, broken)
        except FileNotFoundError:
            continue
        broken.unlink(missing_ok=True)
        _log.warning("broke the lock of %s on %r (--break-lock)", _describe(owner), str(where))
    raise OutLocked(f"could not take the lock {path} (another run keeps taking it).")


@contextlib.contextmanager
def out_lock(out: str | os.PathLike[str], *, break_lock: bool = False, command: str = "") -> Iterator[Path]:
    """Hold the lock of output folder `out` (created if missing) for the body; yield the lock file's path.

    Parameters
    ----------
    out : the output folder.
    break_lock : remove a lock whose process is gone (or of another host) instead of refusing.
    command : recorded in the lock, to tell a user who holds it.

    Raises
    ------
    OutLocked
        If another live run holds the lock, or a stale one is in the way and `break_lock` is False.
    """
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"`out` must be a directory path (str or os.PathLike); got {type(out).__name__}.")
    if not isinstance(command, str):
        raise TypeError(f"`command` must be a string (the command line); got {type(command).__name__}.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = (out / LOCK_NAME).resolve()
    with _held_lock:
        depth = _held.get(path, 0)
        if depth:
            _held[path] = depth + 1
    if depth:
        try:
            yield path
        finally:
            with _held_lock:
                _held[path] -= 1
        return
    with signals_deferred():  # taken and recorded as one step: an interrupt never leaves a lock nobody holds
        token = _acquire(path, break_lock=break_lock, command=command)
        with _held_lock:
            _held[path] = 1
    try:
        yield path
    finally:
        with signals_deferred():
            with _held_lock:
                _held.pop(path, None)
            if _read(path).get("token") == token:  # still ours (not broken by someone who was told it is stale)
                path.unlink(missing_ok=True)
