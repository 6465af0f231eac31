"""Checkpoints of finished Monte Carlo batches, so an interrupted sweep resumes where it stopped.

Layout: ``<out>/.checkpoints/<scenario name>/`` holds ``manifest.json`` — what the batches were computed
with, and the sha256 and task count of every chunk file — and one ``chunk-<point key>-<batch>.npz`` per
finished chunk: the counts of each (grid point, batch) task, the point addressed by value (`point_key`) so
a checkpoint never depends on grid order, and the run it belongs to (the manifest's settings). Every file
is written with `atomic_write`; checkpoint files never end in ``.nc`` (only final results do).

A chunk and its manifest entry are written with SIGINT/SIGTERM held (`signals_deferred`, whichever thread
the signal reaches), so an interrupt lands before both or after both. A hard kill (SIGKILL, power loss)
between the two leaves a complete chunk without its entry: a resumed run verifies such a chunk — its name,
its run, its tasks inside the grid and not saved twice, counts that add up to the batch sizes — and
adopts it. A resumed run refuses, naming the file, a listed chunk whose checksum differs from the
manifest's and any unlisted chunk that fails that check (tampered, foreign, or copied from another run).
Manifest entries are names of chunk files, never paths: anything else is refused. Deleting a scenario's
checkpoints renames the folder away first, so it is never left half deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .atomic import atomic_write
from .interrupts import signals_deferred

__all__ = ["CHECKPOINT_DIR", "CheckpointStore", "CheckpointsExist", "saved_batches"]

#: The directory under ``out`` that holds every scenario's checkpoints.
CHECKPOINT_DIR = ".checkpoints"

_MANIFEST = "manifest.json"
#: The only file names a manifest may list (what `CheckpointStore.save` writes); never a path.
_CHUNK = re.compile(r"chunk-[0-9a-f]{16}-[0-9]{8}\.npz")
#: Folders being deleted (renamed away first, so a checkpoint is never half deleted).
_DELETING = ".deleting-"
_log = logging.getLogger("markovdp.sweeps")
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

    @property
    def run(self) -> str:
        """The settings every chunk records (JSON): what an unlisted chunk must share to be adopted."""
        return json.dumps({k: self.manifest[k] for k in ("format", *_MUST_MATCH)}, sort_keys=True)

    def exists(self) -> bool:
        """Whether an earlier run left checkpoints of this scenario."""
        return self.directory.exists() and any(self.directory.iterdir())

    def saved(self) -> int:
        """(point, batch) tasks the manifest on disk records as saved."""
        return saved_batches(self.directory.parent.parent, self.directory.name)

    # -- starting ---------------------------------------------------------------------------------
    def start(self, *, resume: bool, fresh: bool, point_index: Mapping[int, int], n_batches: int,
              batch_samples: Callable[[int], int] | None = None) -> list[TaskCounts]:
        """Prepare the directory; with `resume`, return the finished tasks found there.

        ``batch_samples(b)`` is the number of samples per side of batch b: the counts of every resumed
        task must add up to it (None: not checked).

        Raises
        ------
        CheckpointsExist
            If checkpoints exist and neither `resume` nor `fresh` is set (they are never deleted silently).
        ValueError
            If `resume` and the checkpoint was made with a different seed, sample count, batch size,
            scenario, quick flag or markovdp version, a chunk file is not the one the manifest
            records (checksum), an unlisted chunk is not one of this run's, or a chunk holds tasks
            outside this sweep, twice, or with counts that do not add up.
        """
        found: list[TaskCounts] = []
        if self.exists() and not (resume or fresh):
            raise CheckpointsExist(
                f"scenario {self.manifest['scenario']!r} has checkpoints of an earlier run in {self.directory}; "
                f"pass --resume (resume=True) to continue it, or --fresh (fresh=True) to delete them (its "
                f"{self.saved()} saved batches) and start over.")
        if resume and not fresh and self.exists():
            files, orphans = self._check_manifest()
            seen: set[tuple[int, int]] = set()
            for name in sorted(files):
                found += self._tasks(self.directory / name, point_index, n_batches, batch_samples, seen)
            for chunk in orphans:
                found += self._adopt(chunk, files, point_index, n_batches, batch_samples, seen)
            self.manifest["files"] = files
        else:
            self.clear()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write_manifest()
        return found

    def _refuse(self, what: str, culprit: Path | None = None) -> ValueError:
        one = (f"move {culprit} out of {self.directory} to run only its batches again, or " if culprit else "")
        return ValueError(f"cannot resume scenario {self.manifest['scenario']!r}: {what}; {one}rerun with --fresh "
                          f"(fresh=True) to delete all {self.saved()} saved batches of this scenario and start over.")

    def _check_manifest(self) -> tuple[dict[str, Any], list[Path]]:
        """The manifest's entries (checked: settings, names, checksums) and the chunks it does not list."""
        path = self.directory / _MANIFEST
        chunks = sorted(self.directory.glob("chunk-*"))
        if not path.exists():  # removed by hand: every chunk is checked on its own
            return {}, chunks
        try:
            old = json.loads(path.read_text())
            files = dict(old["files"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self._refuse(f"unreadable manifest {path} ({type(exc).__name__}: {exc})") from exc
        diffs = [f"{key}={old.get(key)!r} (this run: {self.manifest[key]!r})"
                 for key in ("format", *_MUST_MATCH) if old.get(key) != self.manifest[key]]
        if diffs:
            raise self._refuse(f"its checkpoints in {self.directory} were made with {', '.join(diffs)}")
        for name, entry in files.items():  # names of files in this folder, never paths
            if not (isinstance(name, str) and _CHUNK.fullmatch(name) and isinstance(entry, dict)):
                raise self._refuse(f"{path} lists {name!r}, which is not a checkpoint of this folder (a damaged or "
                                   f"tampered manifest)")
        orphans = []
        for chunk in chunks:
            entry = files.get(chunk.name)
            if entry is None:
                orphans.append(chunk)
            elif chunk.is_symlink() or not chunk.is_file() or _sha256(chunk) != entry.get("sha256"):
                raise self._refuse(f"the checkpoint {chunk} does not match its sha256 in {path} (tampered or "
                                   f"damaged)", chunk)
        for name in [n for n in files if not (self.directory / n).is_file()]:
            _log.warning("the checkpoint %s listed in %s is missing: its %s batches run again",
                         self.directory / name, path, files[name].get("tasks", "?"))
            del files[name]
        return files, orphans

    def _read(self, path: Path) -> dict[str, NDArray[Any]]:
        try:
            with np.load(path, allow_pickle=False) as data:
                return {k: data[k] for k in data.files}
        except Exception as exc:  # a foreign file: zipfile, EOF, key and value errors
            raise self._refuse(f"the checkpoint {path} is unreadable ({type(exc).__name__}: {exc})", path) from exc

    def _tasks(self, path: Path, point_index: Mapping[int, int], n_batches: int,
               batch_samples: Callable[[int], int] | None, seen: set[tuple[int, int]],
               data: dict[str, NDArray[Any]] | None = None) -> list[TaskCounts]:
        """The tasks of chunk `path`, each checked: inside the grid, not saved twice, counts that add up."""
        data = self._read(path) if data is None else data
        try:
            keys, batches, present, counts, cells = (data["point_key"], data["batch"], data["present"],
                                                     data["counts"], data["cells"])
            rows = iter(np.split(counts, np.cumsum(cells)[:-1], axis=1) if cells.size else [])
            listed = list(zip(keys.tolist(), batches.tolist(), present.tolist(), strict=True))
        except Exception as exc:  # a foreign file with a forged checksum: missing arrays, wrong shapes
            raise self._refuse(f"the checkpoint {path} is unreadable ({type(exc).__name__}: {exc})", path) from exc
        found: list[TaskCounts] = []
        for key, batch, has in listed:
            if key not in point_index or not 0 <= batch < n_batches:
                raise self._refuse(f"{path} holds a task (point key {key:#018x}, batch {batch}) outside this "
                                   f"sweep's grid of {len(point_index)} points x {n_batches} batches", path)
            task = (point_index[key], batch)
            if task in seen:
                raise self._refuse(f"{path} holds a task (point key {key:#018x}, batch {batch}) that another "
                                   f"checkpoint holds too", path)
            seen.add(task)
            c = next(rows, None) if has else None
            if has and (c is None or (batch_samples is not None
                                      and not np.all(np.asarray(c).sum(axis=-1) == batch_samples(batch)))):
                raise self._refuse(f"the counts of batch {batch} of point key {key:#018x} in {path} do not add "
                                   f"up to its samples per side (a damaged or foreign checkpoint)", path)
            found.append((*task, c))
        return found

    def _adopt(self, chunk: Path, files: dict[str, Any], point_index: Mapping[int, int], n_batches: int,
               batch_samples: Callable[[int], int] | None, seen: set[tuple[int, int]]) -> list[TaskCounts]:
        """Verify a chunk the manifest does not list (saved just before a hard kill) and list it, or refuse."""
        manifest = self.directory / _MANIFEST
        data = self._read(chunk) if _CHUNK.fullmatch(chunk.name) and chunk.is_file() and not chunk.is_symlink() \
            else None
        if data is None:
            why = "not a checkpoint file"
        elif "run" not in data or str(data["run"]) != self.run:
            why = "made by a run with other settings, or by an older markovdp"
        elif data["point_key"].size == 0 or chunk.name != _chunk_name(data["point_key"][0], data["batch"][0]):
            why = "its name does not match its first task"
        else:
            tasks = self._tasks(chunk, point_index, n_batches, batch_samples, seen, data)
            files[chunk.name] = {"sha256": _sha256(chunk), "tasks": len(tasks)}
            _log.warning("recovered %s: %d finished batches saved without their manifest entry (the run was "
                         "killed between the two writes)", chunk, len(tasks))
            return tasks
        raise self._refuse(f"the checkpoint {chunk} is not listed in {manifest} and is not one of this run's "
                           f"({why})", chunk)

    # -- saving and clearing ----------------------------------------------------------------------
    def _write_manifest(self) -> None:
        with atomic_write(self.directory / _MANIFEST) as tmp:
            tmp.write_bytes(json.dumps(self.manifest, indent=1, sort_keys=True).encode())

    def save(self, tasks: Iterable[TaskCounts], point_keys: NDArray[np.uint64]) -> None:
        """Save one finished chunk and record its sha256 in the manifest (each file atomically; an interrupt
        that arrives meanwhile, in any thread, takes effect after both)."""
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
        path = self.directory / _chunk_name(keys[0], batches[0])
        with signals_deferred():
            with atomic_write(path) as tmp, open(tmp, "wb") as fh:
                np.savez(fh, point_key=keys, batch=batches, present=present, counts=counts, cells=cells,
                         run=np.array(self.run))
            self.manifest["files"][path.name] = {"sha256": _sha256(path), "tasks": len(tasks)}
            self._write_manifest()

    def clear(self) -> None:
        """Remove this scenario's checkpoints (and ``.checkpoints`` itself once empty).

        The folder is first renamed away (atomic), so an interrupt leaves it whole or gone, never half deleted.
        """
        parent = self.directory.parent
        with signals_deferred(), contextlib.suppress(FileNotFoundError):
            os.rename(self.directory, parent / f"{_DELETING}{self.directory.name}-{secrets.token_hex(4)}")
        for trash in parent.glob(f"{_DELETING}*") if parent.is_dir() else ():
            shutil.rmtree(trash, ignore_errors=True)
        with contextlib.suppress(OSError):  # other scenarios' checkpoints are still there, or it never existed
            parent.rmdir()


def _chunk_name(key: Any, batch: Any) -> str:
    return f"chunk-{int(key):016x}-{int(batch):08d}.npz"
