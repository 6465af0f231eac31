"""The simulations and the (jupytext percent-format) notebooks run end to end on the public API."""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path

import pytest
import xarray as xr

from notebooks._build import execute, sources
from simulations.claims_page import STUDIES
from simulations.study import load_claims

ROOT = Path(__file__).resolve().parents[1]
OTHERS = [p for p in sources() if p.stem not in STUDIES]  # notebooks that compute their own (small) data


def test_simulation_writes_a_sound_dataset(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["amplification_curves.py", "--out", "data/amplification_curves.nc"])
    runpy.run_path(str(ROOT / "simulations" / "amplification_curves.py"), run_name="__main__")
    assert "every bound sound: True" in capsys.readouterr().out
    assert (tmp_path / "data" / "amplification_curves.nc").exists()


def test_every_study_has_a_notebook():
    assert set(STUDIES) <= {p.stem for p in sources()}


def images(notebook) -> int:
    return sum(
        "image/png" in o.get("data", {}) for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs
    )


@pytest.mark.parametrize("notebook", OTHERS, ids=lambda p: p.stem)
def test_notebook_executes_headless(notebook):
    """nbclient runs the notebook in a fresh kernel (it computes its small grid when its data file is absent)."""
    assert images(execute(notebook, timeout=300)) >= 1  # raises CellExecutionError on any error


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
    assert images(notebook) >= 2  # its figures are in the notebook
