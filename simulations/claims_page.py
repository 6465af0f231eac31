"""Write docs/studies.md: every study's claim table, read from the result files in data/ (issue 16 §1, §3).

Run after the studies: ``python -m simulations.claims_page [--data data] [--out docs/studies.md]``. The page says,
for each study, the command that made its result file, then the table **seed claim | seed's value or statement |
measured | holds?** as the study printed it: first at full size, then at quick size. `tests/test_studies.py` checks
that the committed page is what this script writes from the committed results.

Full-size result files are too large to commit; their claim tables are. After running the studies without
``--quick`` into a folder, ``python -m simulations.claims_page --record-full FOLDER`` copies each one's claims and
provenance into ``data/full_size_claims.json`` (then rewrites the page).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from simulations.study import Claim, load_claims

#: The studies, in the order of the seeds (issue 16 §1), with the part of the seeds each covers.
STUDIES = {
    "mixing_amplification": "BBGG §3: amplification by uniform mixing",
    "coupling_amplification": "BBGG §4: amplification by couplings",
    "noisy_sgd": "BBGG §4.1: noisy projected SGD",
    "diffusion_mechanisms": "BBGG §5: diffusion mechanisms",
    "ou_vs_gaussian": "BBGG §5: the Ornstein–Uhlenbeck mechanism against the Gaussian mechanism",
    "ldp_contraction": "AAC: local DP as contraction",
    "randomness": "SRP: randomness-constrained local DP",
}

#: Where the claim tables of the full-size runs are kept (their result files are too large to commit).
FULL_SIZE = "full_size_claims.json"
PROVENANCE = ("command", "seed_entropy", "markovdp_version", "git_commit", "created")

HEAD = """# The studies: each seed claim, what markovdp measures, and whether it holds

Each study in `simulations/` reproduces one part of the source papers on markovdp's public API. It is run as
`python -m simulations.NAME [--quick] [--scheduler ADDRESS]`, writes `data/NAME.nc` (with the command, seed, version
and commit in its attributes) and figures beside it, and prints the table below. Each study has two tables here:
**at full size** (the run without `--quick`, by hand: its claim table is kept in `data/full_size_claims.json`) and
**at quick size** (the small grid the test suite runs, whose result file is committed in `data/`).
`python -m simulations.claims_page` rewrites this page from them. **holds?** is *yes*, *NO* (the seed's statement does
not hold as written: the evidence is in *measured*), or *n/a* (the seed gives nothing that can be checked, or the
grid is too small to decide: *measured* says which).
"""


TABLE_HEAD = "| seed claim | seed's value or statement | measured | holds? |\n|---|---|---|---|\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(claims: list[Claim]) -> str:
    rows = (f"| {_cell(c.claim)} | {_cell(c.seed_value)} | {_cell(c.measured)} | {c.verdict} |\n" for c in claims)
    return TABLE_HEAD + "".join(rows)


def _provenance(record: dict) -> str:
    return (f"`{record['command']}` (markovdp {record['markovdp_version']}, commit {record['git_commit'][:12]}, "
            f"{record['created']})")


def record(ds: Any) -> dict:
    """A result file's provenance attributes and its claim table (as stored), for `FULL_SIZE`."""
    attrs = {key: ds.attrs[key] for key in PROVENANCE}
    attrs = {key: value.item() if hasattr(value, "item") else value for key, value in attrs.items()}  # numpy -> JSON
    return {**attrs, "claims": [asdict(c) for c in load_claims(ds)]}


def full_size(data: Path) -> dict[str, dict]:
    """The recorded full-size claim tables, by study (empty when none was recorded)."""
    path = data / FULL_SIZE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def page(data: Path) -> str:
    """The Markdown of docs/studies.md from the result files in `data` (studies without one are listed as such)."""
    import xarray as xr

    parts, full = [HEAD], full_size(data)
    for name, part in STUDIES.items():
        parts.append(f"\n## {name} — {part}\n")
        if name in full:
            parts.append(f"\n### At full size\n\n{_provenance(full[name])}\n\n")
            parts.append(_table([Claim(**row) for row in full[name]["claims"]]))
        else:
            parts.append(f"\n### At full size\n\nNot recorded yet: `python -m simulations.{name}`, then "
                         "`python -m simulations.claims_page --record-full FOLDER`.\n")
        path = data / f"{name}.nc"
        if not path.exists():
            parts.append(f"\n### At quick size\n\nNot run yet: `python -m simulations.{name} --quick` writes "
                         f"`data/{name}.nc`.\n")
            continue
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            quick = record(ds)
        parts.append(f"\n### At quick size\n\n{_provenance(quick)}\n\n")
        parts.append(_table([Claim(**row) for row in quick["claims"]]))
    return "".join(parts)


def record_full(folder: Path, data: Path) -> list[str]:
    """Copy the claim tables of the full-size result files ``folder/NAME.nc`` into ``data/full_size_claims.json``
    (other studies keep their recorded tables); returns the studies recorded."""
    import xarray as xr

    from markovdp.sweeps.provenance import git_commit

    full, done = full_size(data), []
    for name in STUDIES:
        path = folder / f"{name}.nc"
        if not path.exists():
            continue
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            if "--quick" in ds.attrs["command"].split():
                raise ValueError(f"`folder`: {path} is a quick run ({ds.attrs['command']}); record full-size runs")
            full[name] = record(ds)
        done.append(name)
        made_at, here = full[name]["git_commit"], git_commit().removesuffix("+dirty")  # dirty here: this edit
        if made_at != here:  # another commit, or uncommitted code ("+dirty") when it ran
            print(f"warning: {path} was made at {made_at}, this checkout is at {here}: its claims may follow other "
                  "rules than the code here")
    (data / FULL_SIZE).write_text(json.dumps(full, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return done


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m simulations.claims_page", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument("--out", type=Path, default=Path("docs") / "studies.md")
    p.add_argument("--record-full", type=Path, metavar="FOLDER",
                   help=f"first copy the claim tables of the full-size runs FOLDER/NAME.nc into data/{FULL_SIZE}")
    args = p.parse_args(argv)
    if args.record_full is not None:
        print("recorded the full-size claims of", ", ".join(record_full(args.record_full, args.data)) or "no study")
    args.out.write_text(page(args.data), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
