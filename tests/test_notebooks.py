"""The simulations and the (jupytext percent-format) notebooks run end to end on the public API."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_simulation_writes_a_sound_dataset(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["amplification_curves.py", "--out", "data/amplification_curves.nc"])
    runpy.run_path(str(ROOT / "simulations" / "amplification_curves.py"), run_name="__main__")
    assert "every bound sound: True" in capsys.readouterr().out
    assert (tmp_path / "data" / "amplification_curves.nc").exists()


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.py")), ids=lambda p: p.stem)
def test_notebook_runs(notebook, monkeypatch):
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(notebook), run_name="__main__")
