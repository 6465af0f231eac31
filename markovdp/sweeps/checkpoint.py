"""Checkpoints of finished Monte Carlo batches, so an interrupted sweep resumes where it stopped.

Layout: ``<out>/.checkpoints/<scenario name>/`` holds ``manifest.json`` (what the batches were
computed with) and one ``chunk-*.npz`` per finished chunk — the counts of each (grid point, batch)
task, the point addressed by value (`point_key`) so a checkpoint never depends on grid order.
Every file is written to a temporary name and renamed (``os.replace``), so a kill leaves either
the whole file or none. Checkpoint files never end in ``.nc`` (only final results do).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["CHECKPOINT_DIR", "CheckpointStore", "markovdp_version"]

#: The directory under ``out`` that holds every scenario's checkpoints.
CHECKPOINT_DIR = ".checkpoints"

_MANIFEST = "manifest.json"
_FORMAT = 1
# The fields that must match for a checkpoint to be resumed, in the order they are reported.
_MUST_MATCH = ("scenario", "seed", "samples", "batch_size", "quick", "markovdp_version")

#: A task's Monte Carlo result: (point index, batch index, counts (2, m) or None when no Monte Carlo).
TaskCounts = tuple[int, int, "NDArray[np.int64] | None"]


def markovdp_version() -> str:
    """The installed markovdp version, "0+unknown" when the package metadata is missing."""
    try:
        return importlib.metadata.version("markovdp")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def _write_atomic(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


class CheckpointStore:
    """The checkpoints of one scenario's sweep under ``<out>/.checkpoints/<name>/``.

    Parameters
    ----------
    out : the sweep's output directory.
    manifest : what the batches are computed with — ``scenario``, ``seed``, ``samples``,
        ``batch_size``, ``quick``, ``markovdp_version`` (JSON-serialisable values).
    """

    def __init__(self, out: str | os.PathLike[str], manifest: Mapping[str, Any]) -> None:
        name = str(manifest["scenario"])
        self.directory = Path(out) / CHECKPOINT_DIR / name
        self.manifest = {"format": _FORMAT, **{k: manifest[k] for k in _MUST_MATCH}}

    # -- starting ---------------------------------------------------------------------------------
    def start(self, *, resume: bool, point_index: Mapping[int, int], n_batches: int) -> list[TaskCounts]:
        """Prepare the directory; with `resume`, return the finished tasks found there.

        Without `resume`, stale checkpoints of this scenario are removed first.

        Raises
        ------
        ValueError
            If `resume` and the checkpoint was made with a different seed, sample count, batch
            size, scenario, quick flag or markovdp version, or holds tasks outside this sweep.
        """
        found: list[TaskCounts] = []
        if resume and (self.directory / _MANIFEST).exists():
            self._check_manifest()
            found = self._load(point_index, n_batches)
        else:
            self.clear()
        self.directory.mkdir(parents=True, exist_ok=True)
        manifest = json.dumps(self.manifest, indent=2, sort_keys=True).encode()
        _write_atomic(self.directory / _MANIFEST, lambda fh: fh.write(manifest))
        return found

    def _check_manifest(self) -> None:
        path = self.directory / _MANIFEST
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot resume from {path}: unreadable manifest ({exc}).") from exc
        diffs = [f"{key}={old.get(key)!r} (this run: {self.manifest[key]!r})"
                 for key in ("format", *_MUST_MATCH) if old.get(key) != self.manifest[key]]
        if diffs:
            raise ValueError(
                f"cannot resume scenario {self.manifest['scenario']!r}: its checkpoints in {self.directory} "
                f"were made with {', '.join(diffs)}. Resume with the same settings, or run without resume "
                f"to discard them."
            )

    def _load(self, point_index: Mapping[int, int], n_batches: int) -> list[TaskCounts]:
        found: list[TaskCounts] = []
        for path in sorted(self.directory.glob("chunk-*.npz")):
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys, batches, present, counts = (data["point_key"], data["batch"], data["present"],
                                                      data["counts"])
            except Exception as exc:  # truncated, empty or foreign files: zipfile, EOF, key and value errors
                raise ValueError(
                    f"cannot resume scenario {self.manifest['scenario']!r}: the checkpoint {path} is unreadable "
                    f"({type(exc).__name__}: {exc}); run without resume to discard the checkpoints."
                ) from exc
            rows = iter(counts)
            for key, batch, has in zip(keys.tolist(), batches.tolist(), present.tolist(), strict=True):
                if key not in point_index or not 0 <= batch < n_batches:
                    raise ValueError(
                        f"cannot resume scenario {self.manifest['scenario']!r}: {path} holds a task "
                        f"(point key {key:#018x}, batch {batch}) outside this sweep's grid of "
                        f"{len(point_index)} points x {n_batches} batches; run without resume to discard it."
                    )
                found.append((point_index[key], batch, next(rows) if has else None))
        return found

    # -- saving and clearing ----------------------------------------------------------------------
    def save(self, tasks: Iterable[TaskCounts], point_keys: NDArray[np.uint64]) -> None:
        """Save one finished chunk (atomically); its file name is fixed by its first task."""
        tasks = list(tasks)
        if not tasks:
            return
        present = np.array([c is not None for _, _, c in tasks], dtype=bool)
        arrays = [c for _, _, c in tasks if c is not None]
        counts = np.stack(arrays).astype(np.int64) if arrays else np.zeros((0, 2, 0), dtype=np.int64)
        keys = np.array([point_keys[p] for p, _, _ in tasks], dtype=np.uint64)
        batches = np.array([b for _, b, _ in tasks], dtype=np.int64)
        # A resumed run only recomputes missing tasks, so a chunk's first task names it uniquely.
        path = self.directory / f"chunk-{int(keys[0]):016x}-{int(batches[0]):08d}.npz"
        _write_atomic(path, lambda fh: np.savez(fh, point_key=keys, batch=batches, present=present,
                                                 counts=counts))

    def clear(self) -> None:
        """Remove this scenario's checkpoints (and ``.checkpoints`` itself once empty)."""
        shutil.rmtree(self.directory, ignore_errors=True)
        try:
            self.directory.parent.rmdir()
        except OSError:
            pass  # other scenarios' checkpoints are still there, or it never existed
