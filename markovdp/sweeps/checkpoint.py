"""Checkpoints of finished Monte Carlo batches, so an interrupted sweep resumes where it stopped.

Layout: ``<out>/.checkpoints/<scenario name>/`` holds ``manifest.json`` — what the batches were computed
with, and the sha256 and task count of every chunk file — and one ``chunk-*.npz`` per finished chunk: the
counts of each (grid point, batch) task, the point addressed by value (`point_key`) so a checkpoint never
depends on grid order. A resumed run refuses, naming the file, any chunk whose checksum differs from the
manifest's or that the manifest does not list (tampered, foreign, or copied from another run). Every file
is written with `atomic_write`; checkpoint files never end in ``.nc`` (only final results do).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .atomic import atomic_write

__all__ = ["CHECKPOINT_DIR", "CheckpointStore", "CheckpointsExist", "saved_batches"]

#: The directory under ``out`` that holds every scenario's checkpoints.
CHECKPOINT_DIR = ".checkpoints"

_MANIFEST = "manifest.json"
_FORMAT = 3  # 3: the counts of a chunk side by side with their cell counts (points may differ in m)
# The fields that must match for a checkpoint to be resumed, in the order they are reported.
_MUST_MATCH = ("scenario", "seed", "samples", "batch_size", "quick", "markovdp_version")

#: A task's Monte Carlo result: (point index, batch index, counts (2, m) or None when no Monte Carlo).
TaskCounts = tuple[int, int, "NDArray[np.int64] | None"]


class CheckpointsExist(ValueError):
    """Checkpoints of an earlier run are in the way of a run that neither resumes nor starts fresh."""


def _directory(out: str | os.PathLike[str], name: str) -> Path:
    return Path(out) / CHECKPOINT_DIR / name


def saved_batches(out: str | os.PathLike[str], name: str) -> int:
    """How many (grid point, batch) tasks of scenario `name` the manifest under `out` records as saved."""
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"`out` must be a path (str or os.PathLike); got {type(out).__name__}.")
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a scenario name (str); got {type(name).__name__}.")
    try:
        files = json.loads((_directory(out, name) / _MANIFEST).read_text()).get("files", {})
        return sum(int(entry["tasks"]) for entry in files.values())
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return 0


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while a chunk and its manifest entry are written, so neither lands alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class CheckpointStore:
    """The checkpoints of one scenario's sweep under ``<out>/.checkpoints/<name>/``.

    Parameters
    ----------
    out : the sweep's output directory.
    manifest : what the batches are computed with — ``scenario``, ``seed``, ``samples``,
        ``batch_size``, ``quick``, ``markovdp_version`` (JSON-serialisable values).
    """

    def __init__(self, out: str | os.PathLike[str], manifest: Mapping[str, Any]) -> None:
        self.directory = _directory(out, str(manifest["scenario"]))
        self.manifest: dict[str, Any] = {"format": _FORMAT, **{k: manifest[k] for k in _MUST_MATCH},
                                         "files": {}}

    def exists(self) -> bool:
        """Whether an earlier run left checkpoints of this scenario."""
        return self.directory.exists() and any(self.directory.iterdir())

    # -- starting ---------------------------------------------------------------------------------
    def start(self, *, resume: bool, fresh: bool, point_index: Mapping[int, int],
              n_batches: int) -> list[TaskCounts]:
        """Prepare the directory; with `resume`, return the finished tasks found there.

        Raises
        ------
        CheckpointsExist
            If checkpoints exist and neither `resume` nor `fresh` is set (they are never deleted silently).
        ValueError
            If `resume` and the checkpoint was made with a different seed, sample count, batch size,
            scenario, quick flag or markovdp version, a chunk file is not the one the manifest
            records (checksum), or a chunk holds tasks outside this sweep.
        """
        found: list[TaskCounts] = []
        if self.exists() and not (resume or fresh):
            raise CheckpointsExist(
                f"scenario {self.manifest['scenario']!r} has checkpoints of an earlier run in {self.directory}; "
                f"pass --resume (resume=True) to continue it or --fresh (fresh=True) to delete them and "
                f"start over.")
        if resume and not fresh and (self.directory / _MANIFEST).exists():
            files = self._check_manifest()
            found = self._load(files, point_index, n_batches)
            self.manifest["files"] = files
        else:
            self.clear()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write_manifest()
        return found

    def _refuse(self, what: str) -> ValueError:
        return ValueError(f"cannot resume scenario {self.manifest['scenario']!r}: {what}; rerun with --fresh "
                          f"(fresh=True) to delete the checkpoints and start over.")

    def _check_manifest(self) -> dict[str, Any]:
        path = self.directory / _MANIFEST
        try:
            old = json.loads(path.read_text())
            files = dict(old["files"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self._refuse(f"unreadable manifest {path} ({type(exc).__name__}: {exc})") from exc
        diffs = [f"{key}={old.get(key)!r} (this run: {self.manifest[key]!r})"
                 for key in ("format", *_MUST_MATCH) if old.get(key) != self.manifest[key]]
        if diffs:
            raise self._refuse(f"its checkpoints in {self.directory} were made with {', '.join(diffs)}")
        for chunk in sorted(self.directory.glob("chunk-*")):
            entry = files.get(chunk.name)
            if not isinstance(entry, dict):
                raise self._refuse(f"the checkpoint {chunk} is not listed in {path} (foreign, or left by a kill "
                                   f"mid-write)")
            if _sha256(chunk) != entry.get("sha256"):
                raise self._refuse(f"the checkpoint {chunk} does not match its sha256 in {path} (tampered or "
                                   f"damaged)")
        for name in files:
            if not (self.directory / name).is_file():
                raise self._refuse(f"the checkpoint {self.directory / name} listed in {path} is missing")
        return files

    def _load(self, files: Mapping[str, Any], point_index: Mapping[int, int], n_batches: int) -> list[TaskCounts]:
        found: list[TaskCounts] = []
        for name in sorted(files):
            path = self.directory / name
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys, batches, present, counts, cells = (data["point_key"], data["batch"], data["present"],
                                                             data["counts"], data["cells"])
                rows = iter(np.split(counts, np.cumsum(cells)[:-1], axis=1) if cells.size else [])
            except Exception as exc:  # a foreign file with a forged checksum: zipfile, EOF, key and value errors
                raise self._refuse(f"the checkpoint {path} is unreadable ({type(exc).__name__}: {exc})") from exc
            for key, batch, has in zip(keys.tolist(), batches.tolist(), present.tolist(), strict=True):
                if key not in point_index or not 0 <= batch < n_batches:
                    raise self._refuse(f"{path} holds a task (point key {key:#018x}, batch {batch}) outside this "
                                       f"sweep's grid of {len(point_index)} points x {n_batches} batches")
                found.append((point_index[key], batch, next(rows) if has else None))
        return found

    # -- saving and clearing ----------------------------------------------------------------------
    def _write_manifest(self) -> None:
        with atomic_write(self.directory / _MANIFEST) as tmp:
            tmp.write_bytes(json.dumps(self.manifest, indent=1, sort_keys=True).encode())

    def save(self, tasks: Iterable[TaskCounts], point_keys: NDArray[np.uint64]) -> None:
        """Save one finished chunk and record its sha256 in the manifest (each file atomically)."""
        tasks = list(tasks)
        if not tasks:
            return
        present = np.array([c is not None for _, _, c in tasks], dtype=bool)
        arrays = [np.asarray(c, dtype=np.int64) for _, _, c in tasks if c is not None]
        # Points of one chunk may have different output cells (e.g. oracles of different alphabets): the (2, m)
        # counts are stored side by side, with each task's m in `cells`.
        cells = np.array([a.shape[1] for a in arrays], dtype=np.int64)
        counts = np.concatenate(arrays, axis=1) if arrays else np.zeros((2, 0), dtype=np.int64)
        keys = np.array([point_keys[p] for p, _, _ in tasks], dtype=np.uint64)
        batches = np.array([b for _, b, _ in tasks], dtype=np.int64)
        # A resumed run only recomputes missing tasks, so a chunk's first task names it uniquely.
        path = self.directory / f"chunk-{int(keys[0]):016x}-{int(batches[0]):08d}.npz"
        with _signals_deferred():
            with atomic_write(path) as tmp, open(tmp, "wb") as fh:
                np.savez(fh, point_key=keys, batch=batches, present=present, counts=counts, cells=cells)
            self.manifest["files"][path.name] = {"sha256": _sha256(path), "tasks": len(tasks)}
            self._write_manifest()

    def clear(self) -> None:
        """Remove this scenario's checkpoints (and ``.checkpoints`` itself once empty)."""
        shutil.rmtree(self.directory, ignore_errors=True)
        with contextlib.suppress(OSError):  # other scenarios' checkpoints are still there, or it never existed
            self.directory.parent.rmdir()
