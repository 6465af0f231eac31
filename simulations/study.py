"""What every study in `simulations/` shares: its command line, its result file and its claim table.

A study is a module ``simulations/NAME.py`` run as ``python -m simulations.NAME [--quick] [--scheduler ...]``. It
computes an xarray Dataset on the public API of markovdp, checks the seed's claims it covers against what it
measured, and calls `finish`, which

- writes ``data/NAME.nc`` (``--out``) with the attributes ``command``, ``seed_entropy``, ``markovdp_version``,
  ``git_commit``, ``created`` and ``claims`` (the claim table as JSON);
- prints the table **seed claim | seed's value or statement | measured | holds?** at the end.

`run_study` then draws the study's figures (its ``PLOTS``: ``plot_*(ds) -> Figure``, which its notebook shows too)
beside the result file, as ``NAME_*.png``.

A claim that does not hold as written is reported as such, with the evidence in ``measured``: studies are never
tuned until a claim passes. ``holds`` is ``True``, ``False``, or ``None`` where the seed gives nothing that can be
checked, or where the grid is too small to decide (say which in ``measured``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: The root seed of every study unless ``--seed`` says otherwise (children per grid point and batch).
DEFAULT_SEED = 20261205


@dataclass(frozen=True)
class Claim:
    """One row of a study's claim table."""

    claim: str  # the seed's claim, with its THEORY ID, e.g. "BBGG-T1.2: Dobrushin amplifies delta"
    seed_value: str  # the seed's value or statement, in its own terms
    measured: str  # what the study measured (numbers, with units where they have one)
    holds: bool | None  # True, False, or None: nothing checkable in the seed, or a grid too small to decide

    @property
    def verdict(self) -> str:
        return {True: "yes", False: "NO", None: "n/a"}[self.holds]


def parser(name: str, doc: str | None) -> argparse.ArgumentParser:
    """The command line every study takes: --quick, --scheduler, --seed, --out (default data/NAME.nc)."""
    p = argparse.ArgumentParser(prog=f"python -m simulations.{name}", description=(doc or name).splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the small grid (seconds; what the test suite runs)")
    p.add_argument("--scheduler", default="synchronous",
                   help="synchronous (default) | threads | processes | a dask scheduler ADDRESS | local (a local "
                        "dask.distributed cluster)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    p.add_argument("--out", type=Path, default=Path("data") / f"{name}.nc", help=f"result file (data/{name}.nc)")
    return p


def scheduler(args: argparse.Namespace) -> str | None:
    """The ``open_executor`` argument for ``--scheduler`` ("local" is a local dask.distributed cluster: None)."""
    return None if args.scheduler == "local" else args.scheduler


def in_process(name: str, scheduler_name: str | None) -> None:
    """Say so when a study that computes everything in this process (exact values, seconds) is given a
    ``--scheduler``: the option is accepted by every study, and ignoring it silently would mislead."""
    if scheduler_name != "synchronous":
        where = "a local dask cluster" if scheduler_name is None else repr(scheduler_name)
        print(f"{name}: every computation is exact and takes under a minute, so it runs in this process; "
              f"--scheduler ({where}) is not used.")


def figure_path(args: argparse.Namespace, suffix: str) -> Path:
    """Where a study's figure goes: beside the result file, ``NAME_suffix.png``."""
    return args.out.with_name(f"{args.out.stem}_{suffix}.png")


def finish(ds: Any, claims: Sequence[Claim], args: argparse.Namespace, argv: Sequence[str] | None = None) -> Path:
    """Write `ds` with its provenance and claims to ``args.out`` and print the claim table; returns the path."""
    from markovdp.sweeps import atomic_write
    from markovdp.sweeps.provenance import created_now, git_commit, markovdp_version

    name = args.out.stem
    words = sys.argv[1:] if argv is None else list(argv)
    ds.attrs.update(command=shlex.join(["python", "-m", f"simulations.{name}", *words]),
                    seed_entropy=int(args.seed), markovdp_version=markovdp_version(), git_commit=git_commit(),
                    created=created_now(), claims=json.dumps([asdict(c) for c in claims]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    print_claims(name, claims)
    print(f"wrote {args.out}")
    return args.out


def run_study(name: str, doc: str | None, run: Callable[[bool, int, str | None], tuple[Any, list[Claim]]],
              plots: Mapping[str, Callable[[Any], Any]], argv: Sequence[str] | None = None) -> Path:
    """A study's `main`: parse the command line, ``run(quick, seed, scheduler)``, `finish` (write the result file
    and print the claim table), then save each ``plots[suffix](ds)`` (a matplotlib Figure; the notebooks draw the
    same ones) as ``NAME_suffix.png`` beside the result file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    args = parser(name, doc).parse_args(argv)
    ds, claims = run(args.quick, args.seed, scheduler(args))
    path = finish(ds, claims, args, argv)  # first: a figure that fails does not lose a long run
    for suffix, plot in plots.items():
        fig = plot(ds)
        fig.savefig(figure_path(args, suffix), dpi=100)
        plt.close(fig)
    return path


def print_claims(name: str, claims: Sequence[Claim]) -> None:
    """The claim table, as rich renders it (plain text when the output is not a terminal)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{name}: the seed's claims", show_lines=True)
    for column in ("seed claim", "seed's value or statement", "measured", "holds?"):
        table.add_column(column, overflow="fold")
    for c in claims:
        table.add_row(escape(c.claim), escape(c.seed_value), escape(c.measured), c.verdict)  # "[0, 1]" is not markup
    Console(width=160).print(table)


def load_result(name: str) -> Any:
    """The Dataset of study `name` for a notebook: ``$MARKOVDP_DATA/NAME.nc`` (default ``data/``), made first by the
    quick study when it is missing (its `main` writes the file and its figures); prints where it came from."""
    import os
    import subprocess

    import xarray as xr

    path = Path(os.environ.get("MARKOVDP_DATA", "data")) / f"{name}.nc"
    if not path.exists():
        subprocess.run([sys.executable, "-m", f"simulations.{name}", "--quick", "--out", str(path)], check=True)
    ds = xr.load_dataset(path, engine="h5netcdf")
    print(ds.attrs["command"], "| markovdp", ds.attrs["markovdp_version"], "| commit", ds.attrs["git_commit"][:12],
          "|", ds.attrs["created"])
    return ds


def claims_frame(ds: Any) -> Any:
    """The claim table of a study's Dataset as a pandas DataFrame (full cell widths), for a notebook."""
    import pandas as pd

    pd.set_option("display.max_colwidth", None)
    return pd.DataFrame([(c.claim, c.seed_value, c.measured, c.verdict) for c in load_claims(ds)],
                        columns=["seed claim", "seed's value or statement", "measured", "holds?"])


def load_claims(ds: Any) -> list[Claim]:
    """The claims a study stored in its Dataset's attributes."""
    return [Claim(**row) for row in json.loads(ds.attrs["claims"])]
