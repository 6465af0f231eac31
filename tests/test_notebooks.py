"""The notebooks (jupytext percent format), one per study, run end to end and show the study's claims and figures."""

from __future__ import annotations

import shutil
from importlib import import_module
from pathlib import Path

import pytest
import xarray as xr

from notebooks._build import execute, sources
from simulations.claims_page import STUDIES
from simulations.study import load_claims

ROOT = Path(__file__).resolve().parents[1]


def test_one_notebook_per_study():
    assert {p.stem for p in sources()} == set(STUDIES)


def images(notebook) -> int:
    return sum(
        "image/png" in o.get("data", {}) for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs
    )


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_study_notebook_executes_headless(name, tmp_path, monkeypatch):
    """nbclient runs the notebook in a fresh kernel against a copy of the committed quick data."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(ROOT / "data" / f"{name}.nc", data)
    before = (data / f"{name}.nc").read_bytes()
    monkeypatch.setenv("MARKOVDP_DATA", str(data))
    notebook = execute(ROOT / "notebooks" / f"{name}.py", timeout=300)  # raises CellExecutionError on any error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert (data / f"{name}.nc").read_bytes() == before  # it read the copy, and did not rerun the study
    claims = load_claims(xr.load_dataset(data / f"{name}.nc", engine="h5netcdf"))
    tables = [
        o.data["text/html"] for o in outputs if "text/html" in o.get("data", {}) and "seed claim" in o.data["text/html"]
    ]
    assert len(tables) == 1 and tables[0].count("</tr>") == len(claims) + 1  # header + one row per claim
    assert images(notebook) == len(import_module(f"simulations.{name}").PLOTS)  # each of the study's figures, once
