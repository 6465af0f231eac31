"""Tables, Markdown and matplotlib figures from a validation Dataset (DESIGN §8)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

VERDICTS = ("ok", "violation", "not_applicable")
GRID_DIMS_EXCLUDED = ("theorem",)


def _fmt(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == 0 or (1e-3 <= abs(value) < 1e4):
        return f"{value:.4f}"
    return f"{value:.3e}"


def grid_dims(ds: xr.Dataset) -> list[str]:
    """The swept coordinates of a result Dataset."""
    return [d for d in ds["bound"].dims if d not in GRID_DIMS_EXCLUDED]


def rows(ds: xr.Dataset) -> list[dict[str, Any]]:
    """One row per grid point: parameters, theorem, bound, exact, estimate and CI, verdict."""
    dims = grid_dims(ds)
    flat = ds[["bound", "bound_theorem", "exact", "estimate", "ci_low", "ci_high", "verdict"]].stack(
        point=dims) if dims else ds.expand_dims(point=[0])
    out = []
    for i in range(flat.sizes["point"]):
        p = flat.isel(point=i)
        params = ", ".join(f"{d}={p[d].item()}" for d in dims)
        out.append({
            "parameters": params,
            "theorem": str(p["bound_theorem"].item()) or ds.attrs.get("theory_id", ""),
            "bound": float(p["bound"]), "exact": float(p["exact"]), "estimate": float(p["estimate"]),
            "ci_low": float(p["ci_low"]), "ci_high": float(p["ci_high"]),
            "verdict": VERDICTS[int(p["verdict"])],
        })
    return out


def summary(ds: xr.Dataset) -> dict[str, int]:
    """Counts of each verdict."""
    verdict = ds["verdict"].values.ravel()
    return {name: int((verdict == code).sum()) for code, name in enumerate(VERDICTS)}


def estimate_text(row: dict[str, Any]) -> str:
    if math.isnan(row["estimate"]):
        return "—"
    return f"{_fmt(row['estimate'])} [{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"


def markdown(ds: xr.Dataset, figure: str | None = None) -> str:
    """A Markdown section for one scenario: summary line, figure, and the per-point table."""
    counts = summary(ds)
    lines = [f"## {ds.attrs['scenario']} ({ds.attrs['theory_id']})", "",
             f"{ds.attrs.get('description', '')}", "",
             f"{sum(counts.values())} grid points: {counts['ok']} ok, {counts['violation']} violations, "
             f"{counts['not_applicable']} not applicable. Samples per side: {ds.attrs.get('samples')}, "
             f"confidence {ds.attrs.get('confidence')}, seed entropy {ds.attrs.get('seed_entropy')}.", ""]
    if figure:
        lines += [f"![{ds.attrs['scenario']}]({figure})", ""]
    lines += ["| parameters | theorem | bound | exact | estimate [CI] | verdict |", "|---|---|---|---|---|---|"]
    for r in rows(ds):
        lines.append(f"| {r['parameters']} | {r['theorem']} | {_fmt(r['bound'])} | {_fmt(r['exact'])} | "
                     f"{estimate_text(r)} | {r['verdict']} |")
    return "\n".join(lines) + "\n"


def plot(ds: xr.Dataset, path: Path) -> Path:
    """Bound vs exact vs Monte Carlo estimate over the grid (left) and exact against bound (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = rows(ds)
    x = np.arange(len(table))
    bound = np.array([r["bound"] for r in table])
    exact = np.array([r["exact"] for r in table])
    est = np.array([r["estimate"] for r in table])
    low = np.array([r["ci_low"] for r in table])
    high = np.array([r["ci_high"] for r in table])
    bad = np.array([r["verdict"] == "violation" for r in table])

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
    claim = "closed form (the claim)" if ds.attrs.get("target") == "equality" else "certified bound"
    ax.plot(x, bound, "v", color="tab:red", label=claim, ms=5)
    ax.plot(x, exact, "o", color="black", label="exact", ms=3.5)
    has_mc = np.isfinite(est)
    if has_mc.any():
        ax.errorbar(x[has_mc], est[has_mc], yerr=[est[has_mc] - low[has_mc], high[has_mc] - est[has_mc]],
                    fmt="none", ecolor="tab:blue", alpha=0.7, label=f"Monte Carlo {ds.attrs['confidence']} CI")
    if bad.any():
        ax.plot(x[bad], exact[bad], "x", color="magenta", ms=10, label="violation")
    ax.set_xlabel("grid point (" + " × ".join(grid_dims(ds)) + ")")
    ax.set_ylabel("delta / divergence")
    ax.set_title(f"{ds.attrs['scenario']}: bound vs exact vs estimate")
    ax.legend(fontsize=8)
    finite = np.isfinite(bound) & np.isfinite(exact)
    ax2.plot(bound[finite], exact[finite], "o", ms=3.5, color="black")
    top = max(float(np.nanmax(bound[finite], initial=0)), float(np.nanmax(exact[finite], initial=0)), 1e-12)
    ax2.plot([0, top], [0, top], "--", color="gray", lw=1, label="exact = bound")
    ax2.set_xlabel(claim)
    ax2.set_ylabel("exact")
    ax2.set_title("soundness: points on or below the line")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    tmp.replace(path)
    return path


def write_report(datasets: Iterable[xr.Dataset], out: Path, command: str) -> Path:
    """Write ``report.md`` and one PNG per scenario into `out`; return the report path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    total = {name: 0 for name in VERDICTS}
    for ds in datasets:
        figure = plot(ds, out / f"{ds.attrs['scenario']}.png").name
        sections.append(markdown(ds, figure))
        for k, v in summary(ds).items():
            total[k] += v
    head = ["# markovdp validation report", "", f"Command: `{command}`", "",
            f"Overall: {total['ok']} ok, {total['violation']} violations, "
            f"{total['not_applicable']} not applicable.", "",
            "A violation is `exact > bound (1 + 1e-9) + 1e-12`, or a Monte Carlo lower confidence bound "
            "(level 1 − 1e-6/m, m = grid points in the run) above the bound; equality scenarios also flag "
            "`exact < bound (1 − 1e-9) − 1e-12`.", ""]
    path = out / "report.md"
    tmp = out / ".report.md.tmp"
    tmp.write_text("\n".join(head + sections))
    tmp.replace(path)
    return path
