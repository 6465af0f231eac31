"""Scenario discovery through the entry-point group ``markovdp.scenarios`` (DESIGN §7), with a fake
distribution on sys.path — nothing is installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import xarray as xr
from plugin_fixture import MODULE, install_fake_plugin

from markovdp.cli import main
from markovdp.validation import SCENARIOS, all_scenarios, discovery, get_scenario, installed_scenarios


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    root = install_fake_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    yield root
    sys.modules.pop(MODULE, None)


def test_entry_points_add_scenarios_after_the_built_in_ones(plugin):
    found = installed_scenarios()
    assert list(found) == ["PLUGIN-RR", "SLOW-TOY", "FAST-TOY"]  # a Scenario, then a list of two
    names = list(all_scenarios())
    assert names[:len(SCENARIOS)] == list(SCENARIOS) and names[len(SCENARIOS):] == list(found)
    assert get_scenario("PLUGIN-RR").description == "a plugin's own scenario"


def test_without_the_package_there_is_nothing_extra():
    assert "PLUGIN-RR" not in all_scenarios()
    with pytest.raises(ValueError, match="PLUGIN-RR"):
        get_scenario("PLUGIN-RR")


def test_an_entry_point_that_is_not_a_scenario_is_named(tmp_path, monkeypatch):
    root = install_fake_plugin(tmp_path / "bad", entries="broken = {m}:NOT_A_SCENARIO")
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(TypeError, match=f"entry point 'broken' \\({MODULE}:NOT_A_SCENARIO\\)"):
        installed_scenarios()
    sys.modules.pop(MODULE, None)


def test_a_name_taken_by_a_built_in_scenario_is_refused(tmp_path, monkeypatch):
    root = install_fake_plugin(tmp_path / "dup", entries="rr = {m}:SCENARIO")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setitem(discovery.SCENARIOS, "PLUGIN-RR", SCENARIOS["BBGG-T1"])
    with pytest.raises(ValueError, match="'PLUGIN-RR', a name already taken by the built-in catalogue"):
        installed_scenarios()
    sys.modules.pop(MODULE, None)


def test_validate_without_names_runs_the_installed_scenarios(plugin, tmp_path, monkeypatch, capsys):
    # Only the plugin's scenarios (the built-in ones are checked elsewhere): the default list is all of them.
    monkeypatch.setattr(discovery, "SCENARIOS", {})
    out = tmp_path / "out"
    assert main(["validate", "--quick", "--samples", "2000", "--scheduler", "synchronous", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.nc")) == ["FAST-TOY.nc", "PLUGIN-RR.nc", "SLOW-TOY.nc"]
    with xr.open_dataset(out / "PLUGIN-RR.nc", engine="h5netcdf") as ds:
        assert (ds["verdict"] == 0).all() and ds.attrs["scenario"] == "PLUGIN-RR"


def test_the_command_lists_an_installed_scenario(plugin):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-m", "markovdp.cli", "list"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "PLUGIN-RR" in result.stdout and "a plugin's own scenario" in result.stdout
