"""Write docs/studies.md: every study's claim table, read from the result files in data/ (issue 16 §1, §3).

Run after the studies: ``python -m simulations.claims_page [--data data] [--out docs/studies.md]``. The page says,
for each study, the command that made its result file, then the table **seed claim | seed's value or statement |
measured | holds?** as the study printed it. `tests/test_studies.py` checks that the committed page is what this
script writes from the committed results.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulations.study import load_claims

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

HEAD = """# The studies: each seed claim, what markovdp measures, and whether it holds

Each study in `simulations/` reproduces one part of the source papers on markovdp's public API. It is run as
`python -m simulations.NAME [--quick] [--scheduler ADDRESS]`, writes `data/NAME.nc` (with the command, seed, version
and commit in its attributes) and figures beside it, and prints the table below. The tables here come from the
quick runs committed in `data/` (`python -m simulations.claims_page` rewrites this page from them); a full run
(without `--quick`) measures the same claims on larger grids. **holds?** is *yes*, *NO* (the seed's statement does not
hold as written: the evidence is in *measured*), or *n/a* (the seed gives nothing that can be checked).
"""


TABLE_HEAD = "| seed claim | seed's value or statement | measured | holds? |\n|---|---|---|---|\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def page(data: Path) -> str:
    """The Markdown of docs/studies.md from the result files in `data` (studies without one are listed as such)."""
    import xarray as xr

    parts = [HEAD]
    for name, part in STUDIES.items():
        parts.append(f"\n## {name} — {part}\n")
        path = data / f"{name}.nc"
        if not path.exists():
            parts.append(f"\nNot run yet: `python -m simulations.{name} --quick` writes `data/{name}.nc`.\n")
            continue
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            command, claims = ds.attrs["command"], load_claims(ds)
        parts.append(f"\n`{command}`\n\n{TABLE_HEAD}")
        parts.extend(f"| {_cell(c.claim)} | {_cell(c.seed_value)} | {_cell(c.measured)} | {c.verdict} |\n"
                     for c in claims)
    return "".join(parts)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m simulations.claims_page", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument("--out", type=Path, default=Path("docs") / "studies.md")
    args = p.parse_args(argv)
    args.out.write_text(page(args.data), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
