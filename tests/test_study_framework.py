"""simulations/study.py: a study's result file carries its provenance and claims; the claim table is printed."""

from __future__ import annotations

import numpy as np
import xarray as xr

from simulations.study import Claim, claims_frame, finish, load_claims, load_result, parser


def test_finish_writes_provenance_and_claims_and_prints_the_table(tmp_path, capsys):
    args = parser("toy", "A toy study.").parse_args(["--quick", "--out", str(tmp_path / "toy.nc"), "--seed", "7"])
    claims = [Claim("X-1: a holds", "a in [0, 1]", "a = 1.0000", True), Claim("X-2: b", "b < 1", "b = 1.3", False),
              Claim("X-3: c", "no formula", "c = 0.2 (nothing to compare)", None)]
    path = finish(xr.Dataset({"a": ("i", np.arange(3.0))}), claims, args, argv=["--quick", "--seed", "7"])
    out = capsys.readouterr().out
    for words in ("seed claim", "seed's value or statement", "measured", "holds?", "X-2: b", "NO", "n/a", "[0, 1]"):
        assert words in out
    ds = xr.load_dataset(path, engine="h5netcdf")
    assert ds.attrs["command"] == "python -m simulations.toy --quick --seed 7"
    assert ds.attrs["seed_entropy"] == 7
    assert {"markovdp_version", "git_commit", "created"} <= set(ds.attrs)
    assert load_claims(ds) == claims


def test_a_notebook_loads_a_result_and_its_claim_table(tmp_path, monkeypatch, capsys):
    """`load_result` reads $MARKOVDP_DATA/NAME.nc (printing its provenance); `claims_frame` is the stored table."""
    args = parser("toy", "A toy study.").parse_args(["--out", str(tmp_path / "toy.nc")])
    claims = [Claim("X-1", "a = 1", "a = 1.0", True), Claim("X-2", "b < 1", "b = 1.3", False)]
    finish(xr.Dataset({"a": ("i", np.arange(3.0))}), claims, args, argv=[])
    monkeypatch.setenv("MARKOVDP_DATA", str(tmp_path))
    ds = load_result("toy")
    assert "python -m simulations.toy" in capsys.readouterr().out
    frame = claims_frame(ds)
    assert list(frame.columns) == ["seed claim", "seed's value or statement", "measured", "holds?"]
    assert frame.values.tolist() == [["X-1", "a = 1", "a = 1.0", "yes"], ["X-2", "b < 1", "b = 1.3", "NO"]]
