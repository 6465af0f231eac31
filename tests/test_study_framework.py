"""simulations/study.py: a study's result file carries its provenance and claims; the claim table is printed."""

from __future__ import annotations

import numpy as np
import xarray as xr

from simulations.study import Claim, claims_frame, finish, in_process, load_claims, load_result, parser, run_study


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


def test_run_study_saves_each_plot_beside_the_result(tmp_path, capsys):
    """`run_study` draws every ``PLOTS[suffix](ds)`` as NAME_suffix.png beside the result file, then finishes."""
    import matplotlib.pyplot as plt

    def run(quick, seed, scheduler):
        return xr.Dataset({"a": ("i", np.arange(4.0) * (1 if quick else 2))}), [Claim("X-1", "a", f"seed {seed}", True)]

    def plot_line(ds):
        fig, ax = plt.subplots()
        ax.plot(ds.a)
        return fig

    open_before = len(plt.get_fignums())
    path = run_study("toy", "A toy study.", run, {"line": plot_line, "twice": plot_line},
                     ["--quick", "--seed", "3", "--out", str(tmp_path / "toy.nc")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.nc", "toy_line.png", "toy_twice.png"]
    assert (tmp_path / "toy_line.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert load_claims(xr.load_dataset(path, engine="h5netcdf"))[0].measured == "seed 3"
    assert len(plt.get_fignums()) == open_before  # each figure closed once saved


def test_in_process_says_when_a_scheduler_is_not_used(capsys):
    in_process("toy", "synchronous")
    assert capsys.readouterr().out == ""
    in_process("toy", "tcp://10.0.0.1:8786")
    assert "'tcp://10.0.0.1:8786') is not used" in capsys.readouterr().out
    in_process("toy", None)
    assert "a local dask cluster" in capsys.readouterr().out


def test_results_under_data_do_not_make_the_commit_dirty(tmp_path):
    """A study writes its quick result into the tracked data/ folder: the commit it records stays clean; a change to
    code does make it "+dirty" (markovdp.sweeps.provenance)."""
    import subprocess

    from markovdp.sweeps.provenance import _checkout_commit

    def git(*words):
        return subprocess.run(["git", "-C", str(tmp_path), *words], capture_output=True, text=True, check=True).stdout

    (tmp_path / "data").mkdir()
    for name in ("pyproject.toml", "code.py", "data/result.nc"):
        (tmp_path / name).write_text("0\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    head = git("rev-parse", "HEAD").strip()
    (tmp_path / "data" / "result.nc").write_text("1\n")
    assert _checkout_commit(tmp_path) == head
    (tmp_path / "code.py").write_text("1\n")
    assert _checkout_commit(tmp_path) == f"{head}+dirty"
