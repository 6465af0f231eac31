"""Tables, Markdown and matplotlib figures from a validation Dataset (DESIGN §8), and a certificate's plot.

A scenario's figure puts its quantity (hockey-stick delta, or e.g. KL for AAC-phi) against its swept
parameter — ``eps`` when it is swept, otherwise the first numeric coordinate with several values — with
one facet (small multiple) per value of the next two coordinates (rows, columns) and colours for any
further ones. Values that span more than two decades go on a log axis; zeros and values more than
``LOG_DECADES`` decades below the largest one, or below an empty stretch of more than ``LOG_GAP`` decades,
are drawn on a dotted floor line, and the legend says so; a positive bound never is (the axis reaches down to
it). Bounds are joined by lines along x unless a coordinate indexes random inputs (`random_input_dims`).
Tables name the unit of their value columns (`value_columns`); an infinite estimate reads ``≥ ci_low``.

Text in a Dataset — attributes, names, string values — is data, never markup or a path: `markdown` escapes
it (`_md_text`, `_md_code`), `write_report` names each PNG by a file-name-safe form of the scenario (or of
the result file's name) that stays inside the output folder, and plots a file read from the folder with
its ``$`` escaped (no matplotlib mathtext).
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .guarantees.certificate_plot import plot_certificate
from .sweeps.atomic import atomic_write

VERDICTS = ("ok", "violation", "not_applicable")
#: The verdict of a point whose stored verdict is missing (NaN) or not one of the flag values.
UNKNOWN = "unknown"
GRID_DIMS_EXCLUDED = ("theorem",)
#: A log axis shows at most this many decades below its largest value; smaller values sit on the floor ...
LOG_DECADES = 8
#: ... and values below an empty stretch of more than this many decades sit on the floor too.
LOG_GAP = 3.0
#: Values spanning more than this ratio get a log y axis.
LOG_SPAN = 100.0
#: Characters of a title or axis label per inch of figure (about 11 pt text): longer ones wrap onto more lines.
CHARS_PER_INCH = 10
REQUIRED = ("bound", "bound_theorem", "exact", "estimate", "ci_low", "ci_high", "verdict")


def _fmt(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == 0 or (1e-3 <= abs(value) < 1e4):
        return f"{value + 0.0:.4f}"
    return f"{value:.3e}"


# -- text from files is data: Markdown escaping and safe file names ------------------------------------------
#: What makes Markdown (GFM) markup anywhere in a line: escaped with a backslash by `_md_text`. ``<`` only
#: where it can open a tag or an autolink (``<=`` stays as it is); ``_`` is left alone: inside a word it is no
#: emphasis in GFM, and names such as ``pure_eps_ratio`` stay legible.
_MD_ACTIVE = re.compile(r"([\\`*\[\]|$]|<(?=[A-Za-z/!?]))")
#: What makes markup at the start of a line: a heading, quote, list item, rule, setext underline or code fence.
_MD_LINE_START = re.compile(r"^(?:#{1,6}(?:\s|$)|>|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|([-*_=])\s*(?:\1\s*){2,}$|~~~)")


def _one_line(text: str) -> str:
    """`text` with control characters and line breaks as spaces: a value can never start a new block."""
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)


def _md_text(value: Any) -> str:
    """`value` as Markdown text that renders as itself: no HTML, link, image, code, math, table cell or block.

    Backslash-escapes the characters that are markup inside a line (``\\ ` * [ ] | $``, and ``<`` before a
    letter, ``/``, ``!`` or ``?``) and the marker of a heading, quote, list item, rule or fence that the text
    starts with; control characters and line breaks become spaces.
    """
    text = _one_line(value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)).strip()
    text = _MD_ACTIVE.sub(r"\\\1", text)
    if _MD_LINE_START.match(text):  # escape the character that makes the marker (a digit's '.' or ')')
        marker = re.match(r"\d+", text)
        at = marker.end() if marker else 0
        text = text[:at] + "\\" + text[at:]
    return text


def _md_code(value: Any) -> str:
    """`value` as a Markdown code span (rendered literally, whatever it holds): fenced by more backticks
    than any run inside it, padded where it starts or ends with a backtick; line breaks become spaces."""
    text = _one_line(value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _text(value: Any, escape: Any) -> Any:
    """An attribute or value with its text passed through `escape` (numbers and numeric arrays unchanged)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, (bool, int, float, np.number, np.bool_)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "biuf"):
        return value
    return escape(str(value))


def _with_text(ds: xr.Dataset, escape: Any) -> xr.Dataset:
    """A copy of `ds` whose text — attributes, variable and coordinate names, string values — went through
    `escape` (numbers are untouched)."""
    def name(n: Any) -> str:
        return escape(str(n))

    def variable(var: xr.Variable) -> tuple[tuple[str, ...], Any, dict[str, Any]]:
        data = var.values
        if data.dtype.kind in "OSU":
            data = np.array([_text(v, escape) for v in data.ravel().tolist()], dtype=object).reshape(data.shape)
        return tuple(name(d) for d in var.dims), data, {str(k): _text(v, escape) for k, v in var.attrs.items()}

    coords = {name(n): variable(ds.variables[n]) for n in ds.coords}
    data_vars = {name(n): variable(ds.variables[n]) for n in ds.data_vars}
    return xr.Dataset(data_vars, coords=coords, attrs={str(k): _text(v, escape) for k, v in ds.attrs.items()})


def _mathtext_escaped(text: str) -> str:
    return text.replace("$", r"\$")


#: The longest file-name stem of a figure (well below the 255 bytes most file systems allow).
_STEM_MAX = 100


def _figure_name(text: Any, taken: set[str]) -> str:
    """A PNG file name for `text` (a scenario or result file name) that stays in the output folder and is
    not in `taken` (which it joins): letters, digits and ``. _ + -`` only, no leading dot."""
    stem = re.sub(r"[^A-Za-z0-9._+-]", "_", str(text)).lstrip(".")[:_STEM_MAX] or "result"
    candidate, k = f"{stem}.png", 2
    while candidate in taken:
        candidate, k = f"{stem}-{k}.png", k + 1
    taken.add(candidate)
    return candidate


def grid_dims(ds: xr.Dataset) -> list[str]:
    """The swept coordinates of a result Dataset."""
    return [d for d in ds["bound"].dims if d not in GRID_DIMS_EXCLUDED]


def verdict_name(code: float) -> str:
    """"ok", "violation", "not_applicable" for the flag values 0, 1, 2; "unknown" for NaN or anything else."""
    if code is None or not math.isfinite(float(code)) or float(code) not in range(len(VERDICTS)):
        return UNKNOWN
    return VERDICTS[int(code)]


def _point_value(value: Any) -> Any:
    value = value.item() if hasattr(value, "item") else value
    return value.decode() if isinstance(value, bytes) else value


#: Variables every result has besides REQUIRED; anything else on the grid is a scenario's own variable.
STANDARD = (*REQUIRED, "tightness", "ci_low_verdict", "candidate_bound")


def scenario_variables(ds: xr.Dataset) -> list[str]:
    """The scenario's own variables on the grid (e.g. BBGG-L3's ``pure_eps_ratio``), besides ``tightness``."""
    dims = set(grid_dims(ds))
    return [str(name) for name, var in ds.data_vars.items()
            if name not in STANDARD and set(var.dims) == dims and np.issubdtype(var.dtype, np.number)]


def rows(ds: xr.Dataset) -> list[dict[str, Any]]:
    """One row per grid point: parameters, theorem, bound, exact, estimate and CI, verdict (and tightness),
    and ``variables``: the scenario's own variables (name → value).

    ``point`` holds the coordinate values; ``tightness`` is NaN where the Dataset has no such variable.
    """
    dims = grid_dims(ds)
    own = scenario_variables(ds)
    names = [*REQUIRED, *(["tightness"] if "tightness" in ds else []), *own]
    flat = ds[names].stack(point=dims) if dims else ds[names].expand_dims(point=[0])
    out = []
    for i in range(flat.sizes["point"]):
        p = flat.isel(point=i)
        point = {d: _point_value(p[d]) for d in dims}
        out.append({
            "point": point,
            "parameters": ", ".join(f"{d}={v}" for d, v in point.items()),
            "theorem": str(_point_value(p["bound_theorem"])) or ds.attrs.get("theory_id", ""),
            "bound": float(p["bound"]), "exact": float(p["exact"]), "estimate": float(p["estimate"]),
            "ci_low": float(p["ci_low"]), "ci_high": float(p["ci_high"]),
            "verdict": verdict_name(float(p["verdict"])),
            "tightness": float(p["tightness"]) if "tightness" in p else math.nan,
            "variables": {name: float(p[name]) for name in own},
        })
    return out


def summary(ds: xr.Dataset) -> dict[str, int]:
    """Counts of each verdict (``unknown``: a NaN or unrecognised stored verdict)."""
    counts = dict.fromkeys((*VERDICTS, UNKNOWN), 0)
    for code in np.asarray(ds["verdict"].values, dtype=np.float64).ravel():
        counts[verdict_name(code)] += 1
    return counts


def estimate_text(row: dict[str, Any]) -> str:
    """``estimate [ci_low, ci_high]``; an open upper end (``ci_high`` NaN: no valid upper bound) is ``∞)``.

    An estimate of +inf (a plug-in divergence with an output cell seen under one input only) says nothing
    beyond its lower confidence limit: it reads ``≥ ci_low``.
    """
    if math.isnan(row["estimate"]):
        return "—"
    if row["estimate"] == math.inf:
        return f"≥ {_fmt(row['ci_low'])}" if math.isfinite(row["ci_low"]) else "unbounded (no lower limit)"
    high = "∞)" if math.isnan(row["ci_high"]) else f"{_fmt(row['ci_high'])}]"
    return f"{_fmt(row['estimate'])} [{_fmt(row['ci_low'])}, {high}"


def has_estimates(ds: xr.Dataset) -> bool:
    """Whether any grid point has a Monte Carlo estimate (False for a scenario without Monte Carlo)."""
    return bool((~np.isnan(np.asarray(ds["estimate"].values, dtype=np.float64))).any())


def column_unit(ds: xr.Dataset) -> str:
    """What a value column holds, in a word: its units ("nats"), else "δ" for a hockey-stick delta, "ratio"
    for a ratio, "TV" for a total variation, else the quantity shortened."""
    units = str(ds["exact"].attrs.get("units", ""))
    if units and units != "1":
        return units
    name = quantity(ds)
    if "hockey-stick delta" in name:
        return "δ"
    if "ratio" in name or " / " in name:
        return "ratio"
    if "total variation" in name:
        return "TV"
    return textwrap.shorten(name.split(" = ")[0].split(", ")[0], 20, placeholder="…")  # "squared error E_OU"


def value_columns(ds: xr.Dataset) -> list[str]:
    """Table headers of a result's rows: parameters, theorem, then bound, exact and (if any point has one)
    the estimate with its confidence interval, each naming its unit (`column_unit`)."""
    unit = column_unit(ds)
    level = ds.attrs.get("confidence")
    ci = f"{100 * float(level):.4g}% CI" if isinstance(level, numbers.Real) else "CI"
    return ["parameters", "theorem", f"bound ({unit})", f"exact ({unit})",
            *([f"estimate ({unit}) [{ci}]"] if has_estimates(ds) else [])]


def value_cells(ds: xr.Dataset, row: dict[str, Any]) -> list[str]:
    """The cells of `row` under `value_columns`."""
    return [row["parameters"], row["theorem"], _fmt(row["bound"]), _fmt(row["exact"]),
            *([estimate_text(row)] if has_estimates(ds) else [])]


def quantity(ds: xr.Dataset) -> str:
    """What the values are: a ``quantity`` attribute, else the ``long_name`` of ``exact`` without its
    "exact " (e.g. "KL divergence (nats)"), else "hockey-stick delta" (swept over ``eps``) or "value"."""
    if ds.attrs.get("quantity"):
        return str(ds.attrs["quantity"])
    name = str(ds["exact"].attrs.get("long_name", "")).removeprefix("exact ").strip()
    if not name:
        return "hockey-stick delta" if "eps" in grid_dims(ds) else "value"
    units = ds["exact"].attrs.get("units", "")
    return f"{name} ({units})" if units and units != "1" else name


#: Names of coordinates that index random inputs (a random pair, a seed, a repetition) rather than a parameter.
RANDOM_INPUT_NAMES = ("pair", "seed", "instance", "trial", "replicate", "repetition", "draw")


def random_input_dims(ds: xr.Dataset) -> list[str]:
    """The swept coordinates that index random inputs: integer values named like `RANDOM_INPUT_NAMES`, or
    described as random in their ``long_name`` (e.g. AAC-phi's ``pair``, "index of the random input pair").

    A point of such a coordinate is one random draw: the same index at another grid point is another
    input, so the figure never joins points by lines when a grid has one.
    """
    return [d for d in grid_dims(ds) if ds.sizes[d] > 1 and np.asarray(ds[d].values).dtype.kind in "iu"
            and (d in RANDOM_INPUT_NAMES or "random" in str(ds[d].attrs.get("long_name", "")).lower())]


def x_dim(ds: xr.Dataset) -> str | None:
    """The plotted parameter: ``eps`` if swept, else the first numeric coordinate with several values
    that does not index random inputs (`random_input_dims`), else the first coordinate with several values
    (None for a single point)."""
    swept = [d for d in grid_dims(ds) if ds.sizes[d] > 1]
    random = set(random_input_dims(ds))
    numeric = [d for d in swept if np.asarray(ds[d].values).dtype.kind in "iuf" and d not in random]
    if "eps" in numeric:
        return "eps"
    return (numeric or swept or [None])[0]


def _label(ds: xr.Dataset, dim: str) -> str:
    """An axis label from the coordinate's ``long_name`` and ``units`` (dimensionless "1" omitted)."""
    attrs = ds[dim].attrs
    name = str(attrs.get("long_name", dim))
    units = attrs.get("units", "nats" if dim == "eps" else "")
    text = f"{name} ({units})" if units and units != "1" else name
    return text


def _values_text(dims: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{d}={v:g}" if isinstance(v, float) else f"{d}={v}" for d, v in zip(dims, values, strict=True))


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _cluster_floor(positive: NDArray[np.float64], top: float, keep: float = math.inf) -> float:
    """The smallest value reached from `top` downwards without a gap of more than `LOG_GAP` decades (and
    at most `LOG_DECADES` below `top`): what the log axis shows; anything smaller sits on its floor.

    Values >= `keep` (the smallest positive bound) are always shown, whatever the gap above them, and so
    are the values within `LOG_GAP` decades below it that no gap separates from it.
    """
    lowest = min(top * 10.0**-LOG_DECADES, keep * 10.0**-LOG_GAP)
    shown = np.sort(positive[positive >= lowest])[::-1]
    gaps = np.nonzero((-np.diff(np.log10(shown)) > LOG_GAP) & (shown[1:] < keep))[0]
    return float(shown[gaps[0]] if gaps.size else shown[-1])  # a value itself: 10**log10(x) may exceed x


class _Scale:
    """The shared y scale of a figure: linear, or log with a floor for zeros and negligible values.

    A positive bound never sits on the floor (that would draw it above its value, looser than it is): the
    axis reaches down to the smallest positive bound, and only zeros and other values far below it (exact,
    estimates, confidence limits) sit on the floor, under every bound.
    """

    def __init__(self, values: NDArray[np.float64], bounds: NDArray[np.float64]) -> None:
        finite = values[np.isfinite(values)]
        positive = finite[finite > 0]
        keep = float(bounds[np.isfinite(bounds) & (bounds > 0)].min(initial=math.inf))
        self.top = float(finite.max()) if finite.size else 1.0
        self.log = positive.size > 0 and self.top / positive.min() > LOG_SPAN
        self.threshold = _cluster_floor(positive, self.top, keep) if self.log else 0.0
        self.floor = self.threshold / 3.0
        self.clipped = bool(self.log and (finite < self.threshold).any())
        self.only_zeros = bool(self.log and self.threshold == positive.min())

    def floor_label(self) -> str:
        if self.only_zeros:
            return "0 (not on a log axis) drawn on this floor"
        return f"values < {self.threshold:.1e} (incl. 0) drawn on this floor"

    def place(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """y on the axis: values below the threshold (zeros included) on the floor."""
        return np.where(np.isfinite(y) & (y < self.threshold), self.floor, y) if self.log else y

    @property
    def upper(self) -> float:
        """The top of the y axis (where an open confidence interval's arrow ends)."""
        if self.log:
            return self.top * 2.5
        return self.top * 1.12 if self.top > 0 else 1.0

    def apply(self, ax: Any) -> None:
        if self.log:
            from matplotlib.ticker import LogLocator, NullLocator

            ax.set_yscale("log")
            ax.set_ylim((self.floor if self.clipped else self.threshold) / 2.0, self.upper)
            ax.yaxis.set_major_locator(LogLocator(numticks=6))
            ax.yaxis.set_minor_locator(NullLocator())  # minor log ticks: clutter in small multiples, and slow
            if self.clipped:
                ax.axhline(self.floor, color="0.6", lw=0.8, ls=":", zorder=0)
                # The floor is a place, not a value: its tick says what sits there, and no tick below the
                # threshold suggests that something drawn on the floor has the value beside it.
                ticks = [t for t in LogLocator(numticks=6).tick_values(self.threshold, self.upper)
                         if self.threshold <= t <= self.upper]
                ax.set_yticks([self.floor, *ticks], ["0" if self.only_zeros else f"< {self.threshold:.1e}",
                                                     *(f"$10^{{{round(math.log10(t))}}}$" for t in ticks)])
        else:
            ax.set_ylim(min(0.0, ax.get_ylim()[0]), self.upper)


def _facets(ds: xr.Dataset, x: str | None) -> tuple[list[str], list[str], list[str], list[str]]:
    """(row dims, column dims, colour dims, fixed single-valued dims) of the figure."""
    dims = [d for d in grid_dims(ds) if d != x]
    fixed = [d for d in dims if ds.sizes[d] == 1]
    others = [d for d in dims if ds.sizes[d] > 1]
    if len(others) <= 1:
        return [], others, [], fixed
    return others[:1], others[1:2], others[2:], fixed


def _padded(positions: NDArray[np.float64], log: bool) -> tuple[float, float]:
    """x limits with room for the dodged markers at both ends."""
    lo, hi = (np.log(positions.min()), np.log(positions.max())) if log else (positions.min(), positions.max())
    pad = 0.13 * (hi - lo) if hi > lo else 0.5
    limits = (lo - pad, hi + pad)
    return (float(np.exp(limits[0])), float(np.exp(limits[1]))) if log else (float(limits[0]), float(limits[1]))


def _winners(values: NDArray[Any]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in np.asarray(values).ravel() if str(v)))


def figure(ds: xr.Dataset) -> Any:
    """The matplotlib Figure of a result Dataset: bound, exact and Monte Carlo estimate (CI bars) against
    the swept parameter (`x_dim`), one facet per value of the other coordinates (`markovdp.report`).

    An open upper confidence end (``ci_high`` NaN) is an arrow from ``ci_low`` to the top of the axis; an
    estimate of +inf is a hollow triangle at ``ci_low`` with that arrow (the value is only known to be
    >= ``ci_low``); a violation is a magenta cross; the winning theorem is in the legend (one for the whole
    grid) or in each facet's title. Bounds are joined by lines along x unless the grid has a coordinate
    that indexes random inputs (`random_input_dims`): points of different random inputs are never joined.
    """
    plt = _pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.transforms import offset_copy

    x = x_dim(ds)
    random = random_input_dims(ds)
    row_dims, col_dims, hue_dims, fixed = _facets(ds, x)
    row_vals = list(itertools.product(*(ds[d].values.tolist() for d in row_dims)))
    col_vals = list(itertools.product(*(ds[d].values.tolist() for d in col_dims)))
    hue_vals = list(itertools.product(*(ds[d].values.tolist() for d in hue_dims)))
    wrap = not row_dims and len(col_vals) > 4  # a single faceting coordinate wraps into rows of four
    n_rows = len(row_vals) if not wrap else math.ceil(len(col_vals) / 4)
    n_cols = len(col_vals) if not wrap else 4
    equality = ds.attrs.get("target") == "equality"
    claim = "closed form (the claim)" if equality else "certified bound"
    all_winners = _winners(ds["bound_theorem"].values)
    scale = _Scale(np.concatenate([np.asarray(ds[v].values, dtype=np.float64).ravel()
                                   for v in ("bound", "exact", "estimate", "ci_low", "ci_high")]),
                   np.asarray(ds["bound"].values, dtype=np.float64).ravel())
    x_values = ds[x].values.tolist() if x else [0]
    numeric_x = x is not None and np.asarray(ds[x].values).dtype.kind in "iuf"
    positions = np.asarray(x_values, dtype=np.float64) if numeric_x else np.arange(len(x_values), dtype=float)
    log_x = numeric_x and positions.min() > 0 and positions.max() / positions.min() >= 10

    width, height = 3.4 + 3.1 * n_cols, 1.2 + 2.5 * n_rows  # inches
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(width, height), sharex=True,
                             sharey=True, squeeze=False, layout="constrained")
    colours = plt.get_cmap("tab10" if len(hue_vals) <= 10 else "viridis")
    hue_colour = {h: (colours(i) if len(hue_vals) <= 10 else colours(i / max(1, len(hue_vals) - 1)))
                  for i, h in enumerate(hue_vals)}
    flags = {"open": False, "violation": False, "estimate": False, "unbounded": False}
    facets = ([(r, c) for r in row_vals for c in col_vals] if not wrap else [((), c) for c in col_vals])
    for index, (r, c) in enumerate(facets):
        ax = axes.flat[index]
        sel = dict(zip(row_dims + col_dims, (*r, *c), strict=True))
        facet = ds.sel(sel) if sel else ds
        for g, h in enumerate(hue_vals):
            part = facet.sel(dict(zip(hue_dims, h, strict=True))) if hue_dims else facet
            part = part.squeeze([d for d in fixed if d in part.dims], drop=True)
            shift = (g - (len(hue_vals) - 1) / 2) * min(7.0, 28.0 / len(hue_vals))
            drawn = _draw_points(ax, part, positions, scale, shift, hue_colour[h] if hue_dims else None,
                                 offset_copy, fig, joined=not random)
            flags = {k: flags[k] or drawn[k] for k in flags}
        title = _values_text(row_dims + col_dims, (*r, *c))
        if len(all_winners) > 1:
            title = (title + "\n" if title else "") + "best: " + ", ".join(_winners(facet["bound_theorem"].values))
        ax.set_title(title, fontsize=9)
        scale.apply(ax)
        if log_x:
            ax.set_xscale("log")
        if len(positions) <= 8 or not numeric_x:  # a category is always labelled by its value, never its index
            ax.set_xticks(positions, [f"{v:g}" if isinstance(v, float) else str(v) for v in x_values])
            if log_x:
                ax.minorticks_off()
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlim(*_padded(positions, log_x))
    for ax in axes.flat[len(facets):]:
        ax.set_visible(False)
    fig.supxlabel(_label(ds, x) if x else "", fontsize=10)  # once for the shared axis: no overlapping labels
    fig.supylabel(textwrap.fill(quantity(ds), int(CHARS_PER_INCH * height)), fontsize=10)

    single = f" ({all_winners[0]})" if len(all_winners) == 1 else ""
    apart = f"; not joined: each {', '.join(random)} is another random input" if random else ""
    handles = [Line2D([], [], color="tab:red" if not hue_dims else "0.3", marker="v", lw=1.2,
                      ls="-" if not random else "none", label=claim + single + apart)]
    if np.isfinite(np.asarray(ds["exact"].values, dtype=np.float64)).any():
        handles.append(Line2D([], [], color="black", marker="o", ls="none", mfc="0.6" if hue_dims else "black",
                              label="exact" + (" (filled with its colour)" if hue_dims else "")))
    if flags["estimate"]:
        handles.append(Line2D([], [], color="tab:blue" if not hue_dims else "0.3", marker="s", ms=4, ls="-",
                              lw=1, label=f"Monte Carlo estimate, {ds.attrs.get('confidence', '')} CI"))
    if flags["open"]:
        handles.append(Line2D([], [], color="tab:blue", marker="^", ls=":", label="CI with open upper end"))
    if flags["unbounded"]:
        handles.append(Line2D([], [], color="tab:blue", marker="^", ms=7, mfc="white", ls="none",
                              label="estimate ∞: only ≥ its lower limit is known"))
    if flags["violation"]:
        handles.append(Line2D([], [], color="magenta", marker="x", ms=9, ls="none", label="violation"))
    if scale.clipped:
        handles.append(Line2D([], [], color="0.6", ls=":", label=scale.floor_label()))
    handles += [Line2D([], [], color=hue_colour[h], lw=3, label=_values_text(hue_dims, h))
                for h in hue_vals if hue_dims]
    fig.legend(handles=handles, loc="outside right center", fontsize=8, frameon=False)
    fixed_text = _values_text(fixed, [ds[d].values[0] for d in fixed])
    name, theory = ds.attrs.get("scenario", ""), ds.attrs.get("theory_id", "")
    title = f"{name}{f' ({theory})' if theory != name else ''}: {quantity(ds)}" + (f" at {fixed_text}" if fixed_text
                                                                                 else "")
    fig.suptitle(textwrap.fill(title, int(CHARS_PER_INCH * width)), fontsize=11)  # long titles wrap, not clip
    return fig


def plot(ds: xr.Dataset, path: Path) -> Path:
    """Write `figure(ds)` as a PNG at `path` (via a temporary file and a rename); return the path."""
    plt = _pyplot()
    fig = figure(ds)
    path = Path(path)
    try:
        with atomic_write(path) as tmp:
            fig.savefig(tmp, dpi=110, format="png")
    finally:
        plt.close(fig)
    return path


def _draw_points(ax: Any, part: xr.Dataset, positions: NDArray[np.float64], scale: _Scale,
                 shift: float, colour: Any, offset_copy: Any, fig: Any, *, joined: bool) -> dict[str, bool]:
    """Bound, exact, estimate (+ CI) and violations of one colour group in one facet (1-D along x); the
    bounds joined by a line along x when `joined`."""

    def values(name: str) -> NDArray[np.float64]:
        return np.atleast_1d(np.asarray(part[name].values, dtype=np.float64))

    def moved(points: float) -> Any:
        return offset_copy(ax.transData, fig=fig, x=shift + points, y=0.0, units="points")

    bound, exact, est, low, high = (values(v) for v in ("bound", "exact", "estimate", "ci_low", "ci_high"))
    verdict = np.asarray([verdict_name(v) for v in values("verdict")])
    ax.plot(positions, scale.place(bound), marker="v", ms=5, lw=1.2, ls="-" if joined else "none",
            color=colour or "tab:red", transform=moved(-3.0), zorder=3)
    ax.plot(positions, scale.place(exact), "o", ms=4, color="black" if colour is None else colour,
            mec="black", mfc="black" if colour is None else colour, transform=moved(0.0), zorder=4)
    has_est = np.isfinite(est)
    est_colour = colour or "tab:blue"
    closed = has_est & np.isfinite(high)
    if closed.any():  # bars between the limits themselves (errorbar's differences lose a floor of 1e-29 at 0.05)
        ends = [scale.place(low[closed]), scale.place(high[closed])]
        ax.vlines(positions[closed], *ends, colors=est_colour, lw=1.2, transform=moved(3.0), zorder=2)
        for end in ends:
            ax.plot(positions[closed], end, "_", ms=6, mew=1.2, color=est_colour, transform=moved(3.0), zorder=2)
        ax.plot(positions[closed], scale.place(est[closed]), "s", ms=3.5, color=est_colour, transform=moved(3.0),
                zorder=2)
    open_end = has_est & ~np.isfinite(high)
    unbounded = np.isposinf(est) & np.isfinite(low)  # only ci_low says anything: a marker there, arrow up
    for pos, y in zip(positions[open_end], est[open_end], strict=True):
        ax.plot([pos], scale.place(np.array([y])), "s", ms=3.5, color=est_colour, transform=moved(3.0))
    if unbounded.any():
        ax.plot(positions[unbounded], scale.place(low[unbounded]), "^", ms=7, ls="none", color=est_colour,
                mfc="white", transform=moved(3.0), zorder=4)
    for pos, lo in zip(positions[open_end | unbounded], low[open_end | unbounded], strict=True):
        ax.annotate("", xy=(pos, scale.upper), xytext=(pos, float(scale.place(np.array([lo]))[0])),
                    xycoords=moved(3.0), textcoords=moved(3.0),
                    arrowprops={"arrowstyle": "-|>", "color": est_colour, "ls": ":", "lw": 1.2})
    bad = verdict == "violation"
    if bad.any():
        ax.plot(positions[bad], scale.place(np.fmax(exact[bad], low[bad])), "x", ms=10, mew=2, color="magenta",
                transform=moved(0.0), zorder=5)
    return {"open": bool(open_end.any()), "violation": bool(bad.any()), "estimate": bool(has_est.any()),
            "unbounded": bool(unbounded.any())}


def _compact_table(ds: xr.Dataset, table: list[dict[str, Any]]) -> list[str]:
    """One line per facet (the coordinates other than the plotted one): verdicts, winners, and the
    recorded tightness range (or, without a ``tightness`` variable, the largest exact / bound)."""
    x = x_dim(ds)
    keys = [d for d in grid_dims(ds) if d != x and ds.sizes[d] > 1]
    has_tight = "tightness" in ds
    head = [*keys, "points", "ok", "violations", "other", "winning theorem"]
    head += ["tightness exact / bound (min – max)"] if has_tight else ["max exact / bound"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in table:
        groups.setdefault(tuple(r["point"][k] for k in keys), []).append(r)
    for key, members in groups.items():
        verdicts = [m["verdict"] for m in members]
        ratios = [m["exact"] / m["bound"] for m in members
                  if math.isfinite(m["exact"]) and math.isfinite(m["bound"]) and m["bound"] > 0]
        cells = [str(v) for v in key] + [str(len(members)), str(verdicts.count("ok")),
                                         str(verdicts.count("violation")),
                                         str(len(verdicts) - verdicts.count("ok") - verdicts.count("violation")),
                                         ", ".join(_winners([m["theorem"] for m in members])) or "—"]
        if has_tight:
            tight = [m["tightness"] for m in members if math.isfinite(m["tightness"])]
            cells.append(f"{_fmt(min(tight))} – {_fmt(max(tight))}" if tight else "—")
        else:
            cells.append(_fmt(max(ratios)) if ratios else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(ds: xr.Dataset, figure: str | None = None, *, source: str | None = None) -> str:
    """A Markdown section for one scenario: what is checked (THEORY ID), verdict counts, the figure, a
    compact table per facet, the tightness ratio where recorded, and every grid point in a folded table.

    Every text of `ds` is escaped (`_md_text`); `figure` (a file name) and `source` (Markdown) are the caller's."""
    ds = _with_text(ds, _md_text)  # attributes, names and values are data: they never become markup
    counts = summary(ds)
    table = rows(ds)
    x = x_dim(ds)
    lines = [f"## {ds.attrs.get('scenario', '?')} ({ds.attrs.get('theory_id', '?')})", "",
             f"{ds.attrs.get('description', '')}", ""]
    if source:
        lines += [source, ""]
    extra = f", {counts[UNKNOWN]} without a verdict (NaN)" if counts[UNKNOWN] else ""
    monte_carlo = (f"Samples per side: {ds.attrs.get('samples')}, confidence {ds.attrs.get('confidence')}, "
                   f"seed entropy {ds.attrs.get('seed_entropy')}." if has_estimates(ds) else
                   "No Monte Carlo: bound against exact values only, no grid point has an estimate.")
    lines += [f"THEORY: `{ds.attrs.get('theory_id', '?')}`. Quantity: {quantity(ds)}"
              f"{f', against {x}' if x else ''}. {len(table)} grid points: {counts['ok']} ok, "
              f"{counts['violation']} violations, {counts['not_applicable']} not applicable{extra}. "
              f"{monte_carlo}", ""]
    if "tightness" in ds:
        tight = np.asarray(ds["tightness"].values, dtype=np.float64)
        tight = tight[np.isfinite(tight)]
        if tight.size:
            lines += [f"Tightness exact / bound: min {_fmt(float(tight.min()))}, median "
                      f"{_fmt(float(np.median(tight)))}, max {_fmt(float(tight.max()))} over {tight.size} points "
                      "(1 = the bound is attained).", ""]
    own = scenario_variables(ds)
    for name in own:
        values = np.asarray(ds[name].values, dtype=np.float64)
        values = values[np.isfinite(values)]
        if values.size:
            lines += [f"`{name}` ({ds[name].attrs.get('long_name', name)}): min {_fmt(float(values.min()))}, "
                      f"max {_fmt(float(values.max()))} over {values.size} points.", ""]
    if figure:
        lines += [f"![{ds.attrs.get('scenario', '')}]({figure})", ""]
    lines += _compact_table(ds, table) + [""]
    head = [*value_columns(ds), "verdict"]
    head += ["tightness"] if "tightness" in ds else []
    head += own
    lines += ["<details><summary>every grid point</summary>", "", "| " + " | ".join(head) + " |",
              "|" + "---|" * len(head)]
    for r in table:
        cells = [*value_cells(ds, r), r["verdict"]]
        cells += [_fmt(r["tightness"])] if "tightness" in ds else []
        cells += [_fmt(r["variables"][name]) for name in own]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def _is_result(ds: xr.Dataset) -> bool:
    return {"scenario", "theory_id"} <= set(ds.attrs) and set(REQUIRED) <= set(ds)


def _earlier_results(out: Path, current: set[str]) -> tuple[list[tuple[Path, xr.Dataset]], list[str]]:
    """Result files in `out` not written by this run (loaded), and notes on .nc files that are not results."""
    found, skipped = [], []
    for path in sorted(out.glob("*.nc")):
        if path.stem in current:
            continue
        try:
            with xr.open_dataset(path, engine="h5netcdf") as ds:
                ds = ds.load()
        except (OSError, ValueError) as exc:
            skipped.append(f"{_md_code(path.name)}: not readable as netCDF ({type(exc).__name__}).")
            continue
        if _is_result(ds):
            found.append((path, ds))
        else:
            skipped.append(f"{_md_code(path.name)}: not a markovdp result (lacks scenario attributes or variables).")
    return found, skipped


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat()


def write_report(datasets: Iterable[xr.Dataset], out: Path, command: str) -> Path:
    """Write ``report.md`` and one PNG per scenario into `out`; return the report path.

    The report covers every result file in `out`: the datasets of this run first, then any other
    ``*.nc`` result left in the folder by an earlier run (read from disk and marked as such, with its own
    command and creation time); ``.nc`` files that are not results are listed as skipped.

    Files are written only inside `out`: each figure is named by `_figure_name` (of the scenario for this
    run's datasets, of the file name for earlier results), never by a path taken from a file. Text read
    from files is escaped in the Markdown and in the plots.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    datasets = list(datasets)
    earlier, skipped = _earlier_results(out, {str(ds.attrs.get("scenario")) for ds in datasets})
    sections = []
    total = dict.fromkeys((*VERDICTS, UNKNOWN), 0)
    taken: set[str] = set()
    entries = [(ds, ds, _figure_name(ds.attrs.get("scenario", ""), taken), None) for ds in datasets] + [
        (ds, _with_text(ds, _mathtext_escaped), _figure_name(path.stem, taken),
         f"*From an earlier run: {_md_code(path.name)}, command {_md_code(ds.attrs.get('command') or '?')}, "
         f"created {_md_text(ds.attrs.get('created', _mtime(path)))}.*") for path, ds in earlier]
    for ds, drawn, figure, source in entries:
        plot(drawn, out / figure)
        sections.append(markdown(ds, figure, source=source))
        for k, v in summary(ds).items():
            total[k] += v
    versions = sorted({_md_text(ds.attrs.get("markovdp_version", "?")) for ds, *_ in entries})
    commits = sorted({_md_text(ds.attrs.get("git_commit", ds.attrs.get("commit"))) for ds, *_ in entries
                      if "git_commit" in ds.attrs or "commit" in ds.attrs})
    head = ["# markovdp validation report", "",
            f"Command: {_md_code(command)}. Written {datetime.now(timezone.utc).isoformat(timespec='seconds')}; "
            f"markovdp {', '.join(versions) or '?'}" + (f", commit {', '.join(commits)}" if commits else "") + ".",
            "",
            f"Covers every result file in this folder: {len(datasets)} from this run"
            + (f", {len(earlier)} from earlier runs" if earlier else "") + ".", "",
            f"Overall: {total['ok']} ok, {total['violation']} violations, {total['not_applicable']} not applicable"
            + (f", {total[UNKNOWN]} without a verdict" if total[UNKNOWN] else "") + ".", "",
            "A violation is `exact > bound (1 + 1e-9) + 1e-12`, or a Monte Carlo lower confidence bound "
            "(level 1 − 1e-6/m, m = grid points in the run) above the bound; equality scenarios also flag "
            "`exact < bound (1 − 1e-9) − 1e-12`. In the plots an arrow is a confidence interval whose upper "
            "end is open (no valid upper bound). An estimate shown as `≥ x` (a hollow triangle with an arrow in "
            "the plots) is infinite: an output cell was seen under one input only, so only its lower confidence "
            "limit x says something.", ""]
    if skipped:
        head += ["Skipped files:", "", *(f"- {s}" for s in skipped), ""]
    path = out / "report.md"
    with atomic_write(path) as tmp:
        tmp.write_text("\n".join(head + sections))
    return path


__all__ = [
    "column_unit", "estimate_text", "figure", "grid_dims", "has_estimates", "markdown", "plot", "plot_certificate",
    "quantity", "random_input_dims", "rows", "scenario_variables", "summary", "value_cells", "value_columns",
    "verdict_name", "write_report", "x_dim"
]
