"""Build executed Jupyter notebooks from the jupytext percent-format sources in ``notebooks/``.

``python -m notebooks build [NAME ...] [--out DIR] [--data DIR]`` converts each ``notebooks/NAME.py`` with jupytext,
executes it headless with nbclient (the ``python3`` kernel of the installed ipykernel, working directory the
repository root) and writes ``NAME.ipynb`` to ``notebooks/build/`` (not committed: the sources are what is reviewed).
``--data`` points the study notebooks at another data directory (through ``MARKOVDP_DATA``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "notebooks"
BUILD = SOURCES / "build"


def sources() -> list[Path]:
    """Every notebook source: ``notebooks/*.py`` except the modules whose name starts with an underscore."""
    return sorted(p for p in SOURCES.glob("*.py") if not p.name.startswith("_"))


def execute(source: Path, timeout: int = 600):
    """The notebook of `source` (jupytext percent format), executed in a fresh kernel run from the repository root."""
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(source)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return notebook


def build(names: Sequence[str] = (), out: Path = BUILD) -> list[Path]:
    """Execute the named notebooks (all when `names` is empty) and write them as ``out/NAME.ipynb``."""
    import nbformat

    chosen = sources() if not names else [SOURCES / f"{name}.py" for name in names]
    missing = [str(p.stem) for p in chosen if not p.exists()]
    if missing:
        raise ValueError(f"`names` must be notebooks in {SOURCES}; got {missing!r}.")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for source in chosen:
        start = time.perf_counter()
        notebook = execute(source)
        target = out / f"{source.stem}.ipynb"
        nbformat.write(notebook, target)
        print(f"{target}  ({time.perf_counter() - start:.1f} s)")
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m notebooks", description="Build executed notebooks from notebooks/*.py.")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="execute the sources and write NAME.ipynb")
    b.add_argument(
        "names", nargs="*", help="notebook names (default: all of " + ", ".join(s.stem for s in sources()) + ")"
    )
    b.add_argument("--out", type=Path, default=BUILD, help="output directory (default notebooks/build)")
    b.add_argument("--data", type=Path, help="data directory the study notebooks read (default data/)")
    args = p.parse_args(argv)
    if args.data is not None:
        os.environ["MARKOVDP_DATA"] = str(args.data.resolve())  # the kernels inherit it
    build(args.names, args.out)
