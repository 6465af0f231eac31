"""The result schema of a sweep: an `xarray.Dataset` with one dimension per grid coordinate (DESIGN §8).

Variables: ``bound``, ``bound_theorem`` (str), ``exact``, ``estimate``, ``ci_low``, ``ci_high``,
``ci_low_verdict`` (float64, NaN where not applicable), ``verdict`` (int8 CF flags) and, when the
scenario reports every rule's bound, ``candidate_bound`` with an extra ``theorem`` dimension.
Attributes are netCDF-serialisable (str / int / float; dicts as JSON strings).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from .verdict import FLAG_MEANINGS, FLAG_VALUES

__all__ = ["FLOAT_VARIABLES", "build_dataset", "write_dataset"]

#: The float64 data variables, one value per grid point.
FLOAT_VARIABLES = ("bound", "exact", "estimate", "ci_low", "ci_high", "ci_low_verdict")

_DESCRIPTIONS = {
    "bound": "best certified bound at the grid point (NaN: no theorem applies)",
    "bound_theorem": "THEORY ID of the theorem giving `bound` ('' if none)",
    "exact": "exact value (NaN: unknown)",
    "estimate": "Monte Carlo estimate (NaN: no Monte Carlo)",
    "ci_low": "lower confidence limit of the estimate at the scenario's confidence",
    "ci_high": "upper confidence limit of the estimate at the scenario's confidence",
    "ci_low_verdict": "lower confidence limit at the verdict level 1 - 1e-6/(grid points in the run)",
    "verdict": "soundness verdict of the bound against exact and ci_low_verdict",
    "candidate_bound": "bound of every theorem rule (NaN: not applicable)",
}


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
    """
    dims = tuple(grid)
    shape = tuple(len(v) for v in grid.values())
    coords: dict[str, Any] = {name: _coordinate(values) for name, values in grid.items()}

    def var(values: Any, dtype: Any, name: str) -> xr.Variable:
        return xr.Variable(dims, np.asarray(values, dtype=dtype).reshape(shape),
                           attrs={"description": _DESCRIPTIONS[name]})

    data: dict[str, xr.Variable] = {"bound": var(floats["bound"], np.float64, "bound"),
                                    "bound_theorem": var(list(bound_theorem), object, "bound_theorem")}
    for name in FLOAT_VARIABLES[1:]:
        data[name] = var(floats[name], np.float64, name)
    data["verdict"] = var(verdicts, np.int8, "verdict")
    data["verdict"].attrs.update(flag_values=FLAG_VALUES.copy(), flag_meanings=FLAG_MEANINGS)
    if candidates:
        coords["theorem"] = np.array(list(candidates), dtype=object)
        stacked = np.stack([np.asarray(v, dtype=np.float64).reshape(shape) for v in candidates.values()],
                           axis=-1)
        data["candidate_bound"] = xr.Variable((*dims, "theorem"), stacked,
                                              attrs={"description": _DESCRIPTIONS["candidate_bound"]})
    return xr.Dataset(data, coords=coords, attrs=dict(attrs))


def write_dataset(ds: xr.Dataset, path: str | os.PathLike[str]) -> Path:
    """Write `ds` to netCDF (h5netcdf) at `path` via a temporary file in the same directory + rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        ds.to_netcdf(tmp, engine="h5netcdf")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
