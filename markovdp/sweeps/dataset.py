"""The result schema of a sweep: an `xarray.Dataset` with one dimension per grid coordinate (DESIGN §8).

Variables: ``bound``, ``bound_theorem`` (str), ``exact``, ``estimate``, ``ci_low``, ``ci_high``,
``ci_low_verdict`` (float64, NaN where not applicable), ``verdict`` (int8 CF flags), ``candidate_bound``
with an extra ``theorem`` dimension when the scenario reports every rule's bound, and the scenario's own
variables (e.g. ``tightness``). Every coordinate has ``long_name`` and ``units`` ("nats" for eps, "1" for
dimensionless); every variable a ``long_name`` naming the scenario's quantity (hockey-stick delta, KL
divergence, Rényi divergence); the ``theorem`` coordinate's ``statements`` maps each ID to its one-line
statement. Attributes are netCDF-serialisable (str / int / float; dicts as JSON strings).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .atomic import atomic_write
from .provenance import created_now
from .verdict import FLAG_MEANINGS, FLAG_VALUES

__all__ = ["FLOAT_VARIABLES", "build_dataset", "coordinate_attrs", "theorem_statements", "variable_attrs",
           "write_dataset"]

#: The float64 data variables, one value per grid point.
FLOAT_VARIABLES = ("bound", "exact", "estimate", "ci_low", "ci_high", "ci_low_verdict")
#: The quantity of a scenario that does not name one (the privacy profile at the grid's eps).
DEFAULT_QUANTITY = ("hockey-stick delta", "1")
#: long_name and units of coordinates a scenario does not describe itself.
DEFAULT_COORDINATES = {
    "eps": ("privacy level eps", "nats"),
    "alpha": ("Rényi order alpha", "1"),
    "theorem": ("THEORY ID of a candidate theorem rule", "1"),
}

_DESCRIPTIONS = {
    "bound": "best certified bound at the grid point (NaN: no theorem applies)",
    "bound_theorem": "THEORY ID of the theorem giving `bound` ('' if none)",
    "exact": "exact value (NaN: unknown)",
    "estimate": "Monte Carlo estimate (NaN: no Monte Carlo; +inf: the plug-in value is infinite, an output cell "
                "seen under one input only, so the value is known only to be >= ci_low)",
    "ci_low": "lower confidence limit of the estimate at the scenario's confidence",
    "ci_high": "upper confidence limit of the estimate at the scenario's confidence (NaN: no valid upper limit, "
               "the interval is [ci_low, inf): split-sample events and binned continuous samples bound the "
               "divergence from below only; or no Monte Carlo where estimate is NaN too)",
    "ci_low_verdict": "lower confidence limit at the verdict level 1 - 1e-6/(grid points in the run)",
    "verdict": "soundness verdict of the bound against exact and ci_low_verdict",
    "candidate_bound": "bound of every theorem rule (NaN: not applicable)",
}


def _quantity(scenario: Any) -> tuple[str, str]:
    label = getattr(scenario, "label", None)
    return (str(label), str(getattr(scenario, "units", None) or "1")) if label else DEFAULT_QUANTITY


def variable_attrs(scenario: Any) -> dict[str, dict[str, str]]:
    """``long_name``, ``units`` and ``description`` of every standard variable, in the scenario's quantity."""
    q, units = _quantity(scenario)
    claim = f"closed form of the {q}" if getattr(scenario, "target", "upper") == "equality" else \
        f"certified upper bound on the {q}"
    names = {
        "bound": claim, "bound_theorem": "THEORY ID of the theorem giving the bound",
        "exact": f"exact {q}", "estimate": f"Monte Carlo estimate of the {q}",
        "ci_low": f"lower confidence limit of the {q}", "ci_high": f"upper confidence limit of the {q}",
        "ci_low_verdict": f"lower confidence limit of the {q} at the verdict level",
        "verdict": "soundness verdict", "candidate_bound": f"{claim} given by each theorem rule",
    }
    unitless = ("bound_theorem", "verdict")
    return {name: {"long_name": long, **({} if name in unitless else {"units": units}),
                   "description": _DESCRIPTIONS[name]} for name, long in names.items()}


def coordinate_attrs(scenario: Any, name: str) -> dict[str, str]:
    """``long_name`` and ``units`` of coordinate `name`: the scenario's ``coordinates``, else the defaults."""
    declared = dict(getattr(scenario, "coordinates", None) or {})
    long_name, units = declared.get(name) or DEFAULT_COORDINATES.get(name) or (name, "1")
    return {"long_name": str(long_name), "units": str(units)}


def theorem_statements(ids: Sequence[str]) -> str:
    """JSON object THEORY ID → the one-line statement of its registered rule (`markovdp.theorems`)."""
    from ..guarantees import registry

    registry.load_plugins()
    return json.dumps({tid: (registry._summary(tid, registry._RULES[tid]) if tid in registry._RULES
                             else "not a registered rule: the scenario's own computation") for tid in ids})


def _coordinate(values: Sequence[Any]) -> NDArray[Any]:
    arr = np.asarray(list(values))
    if arr.dtype.kind == "U":
        # Variable-length strings: what netCDF stores and reads back, so a reopened file is identical.
        arr = arr.astype(object)
    return arr


def build_dataset(
    grid: Mapping[str, Sequence[Any]],
    floats: Mapping[str, NDArray[np.float64]],
    bound_theorem: Sequence[str],
    verdicts: NDArray[np.int8],
    candidates: Mapping[str, NDArray[np.float64]],
    attrs: Mapping[str, str | int | float],
    *,
    scenario: Any = None,
    extra: Mapping[str, NDArray[np.float64]] | None = None,
) -> xr.Dataset:
    """Assemble the result Dataset from flat per-point arrays (grid points in C order of `grid`).

    Parameters
    ----------
    grid : coordinate name → values; the dimensions, in order.
    floats : each name of ``FLOAT_VARIABLES`` → a float64 array of one value per point.
    bound_theorem : the winning THEORY ID per point.
    verdicts : int8 verdict per point (`markovdp.sweeps.verdict.verdict`).
    candidates : THEORY ID → float64 bound per point; empty for no ``candidate_bound`` variable.
    attrs : the Dataset attributes (str / int / float only).
    scenario : where the labels come from (``label``, ``units``, ``target``, ``coordinates``,
        ``variables``); None for the defaults.
    extra : the scenario's own variables, name → float64 per point (labels from ``scenario.variables``).
    """
    dims = tuple(grid)
    shape = tuple(len(v) for v in grid.values())
    labels = variable_attrs(scenario)
    coords: dict[str, Any] = {name: xr.Variable(name, _coordinate(values), attrs=coordinate_attrs(scenario, name))
                              for name, values in grid.items()}

    def var(values: Any, dtype: Any, name: str) -> xr.Variable:
        return xr.Variable(dims, np.asarray(values, dtype=dtype).reshape(shape), attrs=dict(labels[name]))

    data: dict[str, xr.Variable] = {"bound": var(floats["bound"], np.float64, "bound"),
                                    "bound_theorem": var(list(bound_theorem), object, "bound_theorem")}
    for name in FLOAT_VARIABLES[1:]:
        data[name] = var(floats[name], np.float64, name)
    data["verdict"] = var(verdicts, np.int8, "verdict")
    data["verdict"].attrs.update(flag_values=FLAG_VALUES.copy(), flag_meanings=FLAG_MEANINGS)
    if candidates:
        ids = list(candidates)
        coords["theorem"] = xr.Variable("theorem", np.array(ids, dtype=object),
                                        attrs={**coordinate_attrs(scenario, "theorem"),
                                               "statements": theorem_statements(ids)})
        stacked = np.stack([np.asarray(v, dtype=np.float64).reshape(shape) for v in candidates.values()],
                           axis=-1)
        data["candidate_bound"] = xr.Variable((*dims, "theorem"), stacked, attrs=dict(labels["candidate_bound"]))
    declared = getattr(scenario, "variables", None) or {}
    for name, values in (extra or {}).items():
        spec = declared[name]
        data[name] = xr.Variable(dims, np.asarray(values, dtype=np.float64).reshape(shape),
                                 attrs={"long_name": str(spec.long_name), "units": str(spec.units)})
    return xr.Dataset(data, coords=coords, attrs=dict(attrs))


def write_dataset(ds: xr.Dataset, path: str | os.PathLike[str]) -> Path:
    """Write `ds` to netCDF (h5netcdf) at `path` atomically, stamped with ``created`` (UTC, ISO 8601)."""
    path = Path(path)
    stamped = ds.assign_attrs(created=created_now())
    with atomic_write(path) as tmp:
        stamped.to_netcdf(tmp, engine="h5netcdf")
    return path
