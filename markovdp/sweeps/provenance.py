"""Where a result came from: markovdp version, git commit of the source checkout, creation time (DESIGN §8)."""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import subprocess
from pathlib import Path

__all__ = ["created_now", "git_commit", "markovdp_version"]


def markovdp_version() -> str:
    """The installed markovdp version, "0+unknown" when the package metadata is missing."""
    try:
        return importlib.metadata.version("markovdp")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@functools.cache
def git_commit() -> str:
    """The commit of the git checkout markovdp is imported from ("+dirty" if it has local changes outside ``data/``:
    results written there, such as the studies' committed quick runs, are not the code that made them), "unknown"
    when it is not imported from a git checkout (an installed wheel) or git is missing."""
    return _checkout_commit(Path(__file__).resolve().parent.parent.parent)


def _checkout_commit(source: Path) -> str:
    """`git_commit` of the checkout at `source`."""
    if not (source / "pyproject.toml").exists():  # installed as a package, not a source checkout
        return "unknown"
    try:
        head = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":(exclude)data"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


def created_now() -> str:
    """The current time in UTC, ISO 8601 to the second, e.g. "2026-12-01T21:33:58Z"."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
