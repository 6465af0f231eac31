"""The `markovdp` command line: list, certify, report, validate, and its errors (exit code 2, no traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from markovdp.cli import main


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markovdp.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_list_names_every_scenario(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("BBGG-T1", "AAC-T1", "AAC-phi", "STD-GaussHS", "STD-LapHS"):
        assert name in out


def test_certify_a_csv_matrix(tmp_path, capsys):
    path = tmp_path / "k.csv"
    np.savetxt(path, 0.7 * np.eye(3) + 0.1, delimiter=",")
    assert main(["certify", str(path), "--eps", "1.0", "--delta", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "Dobrushin" in out and "BBGG-T1.3" in out and "0.7 " in out  # TV-Dobrushin of 0.7 I + 0.1


def test_certify_refuses_unnormalised_rows_unless_asked(tmp_path, capsys):
    path = tmp_path / "k.npy"
    np.save(path, np.array([[2.0, 2.0], [1.0, 3.0]]))
    assert main(["certify", str(path)]) == 2
    assert "`matrix` must be row-stochastic" in capsys.readouterr().out
    assert main(["certify", str(path), "--normalize"]) == 0


def test_validate_writes_datasets_report_and_plots(tmp_path):
    out = tmp_path / "out"
    result = run_cli("validate", "AAC-phi", "STD-LapHS", "--quick", "--samples", "4000",
                     "--scheduler", "synchronous", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("AAC-phi", "STD-LapHS"):
        with xr.open_dataset(out / f"{name}.nc", engine="h5netcdf") as ds:
            assert {"bound", "bound_theorem", "exact", "estimate", "ci_low", "ci_high", "verdict"} <= set(ds)
            assert ds.attrs["theory_id"] == name and ds.attrs["scenario"] == name
            assert ds["verdict"].attrs["flag_meanings"] == "ok violation not_applicable"
        assert (out / f"{name}.png").stat().st_size > 0
    report = (out / "report.md").read_text()
    assert "STD-LapHS" in report and "violation" in report
    # AAC-phi draws no samples: its section says so instead of "Samples per side"; STD-LapHS samples
    kl_section, laplace_section = report.split("## AAC-phi")[1].split("## STD-LapHS")
    assert "Samples per side" not in kl_section and "No Monte Carlo" in kl_section
    assert "Samples per side: 4000" in laplace_section
    # without a terminal: the scheduler, then one line per finished scenario; every value column its unit
    lines = result.stdout.splitlines()
    assert lines[0] == "Scheduler: synchronous: every task in this process, one at a time"
    assert [line.split(":")[0] for line in lines[1:3]] == ["AAC-phi", "STD-LapHS"]
    assert all(" done in " in line and " grid points: " in line for line in lines[1:3])
    titles = {name: next(i for i, line in enumerate(lines) if line.strip().startswith(f"{name}: ")
                         and line.strip().endswith("violations and the tightest points"))
              for name in ("AAC-phi", "STD-LapHS")}
    header = {name: next(line for line in lines[i:] if "┃ parameters" in line) for name, i in titles.items()}
    assert "bound (nats)" in header["AAC-phi"] and "exact (nats)" in header["AAC-phi"]
    assert "estimate" not in header["AAC-phi"]  # no Monte Carlo: no empty column
    assert "bound (δ)" in header["STD-LapHS"] and "estimate (δ) [95% CI]" in header["STD-LapHS"]
    assert "grid points" in next(line for line in lines if "┃ scenario" in line)
    assert sorted(p.name for p in out.rglob("*.nc")) == ["AAC-phi.nc", "STD-LapHS.nc"]  # none in checkpoints
    listed = run_cli("report", str(out / "STD-LapHS.nc"))
    assert listed.returncode == 0 and "STD-LapHS" in listed.stdout


def test_certify_checks_options_before_printing(tmp_path, capsys):
    path = tmp_path / "k.npy"
    np.save(path, 0.7 * np.eye(3) + 0.1)
    for args, name in ((["--eps", "inf"], "`--eps`"), (["--eps", "1", "--delta", "2"], "`--delta`"),
                       (["--delta", "0.1"], "`--delta`")):
        assert main(["certify", str(path), *args]) == 2
        out = capsys.readouterr().out
        assert name in out and "Dobrushin" not in out


@pytest.mark.parametrize("content", ["not a number,1\n", ""])
def test_certify_reports_unreadable_matrices(tmp_path, capsys, content):
    path = tmp_path / "k.csv"
    path.write_text(content)
    assert main(["certify", str(path)]) == 2
    assert "`matrix" in capsys.readouterr().out.lower()


def test_report_refuses_files_that_are_not_results(tmp_path, capsys):
    np.save(tmp_path / "k.npy", np.eye(2))
    xr.Dataset({"x": ("i", [1.0])}).to_netcdf(tmp_path / "other.nc", engine="h5netcdf")
    for name in ("k.npy", "other.nc"):
        assert main(["report", str(tmp_path / name)]) == 2
        assert "`FILE` must be" in capsys.readouterr().out


def test_certify_amplifies_the_delta_it_is_given(tmp_path, capsys):
    path = tmp_path / "k.npy"
    np.save(path, np.array([[0.9, 0.1], [0.2, 0.8]]))
    assert main(["certify", str(path), "--eps", "1", "--delta", "0"]) == 0
    out = capsys.readouterr().out
    assert "eps = 1 nats, delta = 0" in out and "Best at eps=1: delta = 0 " in out


def test_certify_lists_the_rules_that_apply_and_names_the_others_on_one_line(tmp_path, capsys):
    import markovdp as md

    path = tmp_path / "k.npy"
    matrix = np.array([[0.9, 0.1], [0.2, 0.8]])
    np.save(path, matrix)
    assert main(["certify", str(path), "--eps", "1", "--delta", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "Amplification by K of an (eps, delta)-DP mechanism (BBGG-T1)" in out
    cert = md.certify(md.DeclaredDP(1.0, 0.01) >> md.FiniteKernel(matrix))
    rows = {line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")}
    assert {b.theorem for b in cert.bounds} <= rows and not set(cert.reasons()) & rows
    (line,) = [line for line in out.splitlines() if line.startswith("not applicable: ")]
    assert line.startswith(f"not applicable: {', '.join(cert.reasons())} — see `certify(")
    for reason in cert.reasons().values():
        assert reason not in out


def test_certify_prints_each_theorems_tightness_against_the_exact_worst_case(tmp_path, capsys):
    """STD-Exact through STD-BlackBoxExact: the exact delta of DeclaredDP(0.5, 0.01) >> K at eps = 0.5 is the max over
    every map of the four canonical points (STD-DominatingPair) to K's rows, by brute force over events here."""
    import itertools
    import math

    import markovdp as md
    from tests.oracles import hockey_stick_bruteforce

    matrix = np.array([[0.99, 0.01], [0.02, 0.98]])
    np.save(tmp_path / "k.npy", matrix)
    assert main(["certify", str(tmp_path / "k.npy"), "--eps", "0.5", "--delta", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "tightness = exact (EXACT) / bound" in out
    a, g = 0.99 / (1 + math.exp(0.5)), math.exp(0.5)
    p, q = np.array([0.01, a * g, a, 0.0]), np.array([0.0, a, a * g, 0.01])
    exact = max(hockey_stick_bruteforce(p @ matrix[list(m)], q @ matrix[list(m)], 0.5)
                for m in itertools.product(range(2), repeat=4))
    assert exact > 0.003  # a weakly mixing kernel: the tightness values are informative
    cert = md.certify(md.DeclaredDP(0.5, 0.01) >> md.FiniteKernel(matrix))
    rows = {cells[0]: cells for cells in ([c.strip() for c in line.split("│")[1:-1]]
                                          for line in out.splitlines() if line.startswith("│"))}
    for bound in cert.bounds:
        value = float(bound.delta(0.5))
        assert float(rows[bound.theorem][3]) == pytest.approx(exact / value if value else 1.0, rel=1e-5)


def test_validate_refuses_an_output_file_instead_of_a_folder(tmp_path):
    target = tmp_path / "afile"
    target.write_text("hi")
    result = run_cli("validate", "AAC-phi", "--scheduler", "synchronous", "--out", str(target))
    assert result.returncode == 2 and "`--out` must be a folder" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_validate_runs_each_named_scenario_once(tmp_path):
    result = run_cli("validate", "AAC-phi", "AAC-phi", "--quick", "--scheduler", "synchronous", "--out",
                     str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("AAC-phi: done in") == 1
    assert result.stdout.count("violations and the tightest points") == 1


@pytest.mark.parametrize(("args", "message"), [
    (["validate", "NOPE"], "BBGG-T1"),
    (["validate", "--samples", "0", "AAC-phi"], "`--samples`"),
    (["validate", "--seed", "-1", "AAC-phi"], "`--seed`"),
    (["validate", "AAC-phi", "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "0.5"], "127.0.0.1:1"),
    (["validate", "AAC-phi", "--connect-timeout", "0"], "`--connect-timeout`"),
    (["certify", "missing.csv"], "`MATRIX`"),
])
def test_bad_command_lines_exit_2_with_a_message_and_no_traceback(tmp_path, args, message):
    result = run_cli(*args, "--out", str(tmp_path)) if args[0] == "validate" else run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_theorems_lists_every_rule_and_describes_one(capsys):
    import markovdp as md

    assert main(["theorems"]) == 0
    out = capsys.readouterr().out
    assert out == md.theorems() + "\n" and "BBGG-T1.2" in out and "POST" in out
    assert main(["theorems", "BBGG-T1.3"]) == 0
    assert capsys.readouterr().out == md.describe("BBGG-T1.3") + "\n"


def test_theorems_of_an_unknown_id_exits_2_with_the_message():
    result = run_cli("theorems", "BBGG-T9")
    assert result.returncode == 2 and "`theorem_id` must be a registered ID" in result.stdout
    assert "'BBGG-T9'" in result.stdout and "Traceback" not in result.stdout + result.stderr


def test_netcdf_outputs_label_every_coordinate_and_variable(tmp_path, capsys):
    import datetime
    import json

    import markovdp as md
    from markovdp.sweeps import git_commit

    out = tmp_path / "out"
    assert main(["validate", "AAC-phi", "BBGG-T1", "--quick", "--samples", "2000", "--scheduler", "synchronous",
                 "--out", str(out)]) == 0
    with xr.open_dataset(out / "AAC-phi.nc", engine="h5netcdf") as kl_ds, \
            xr.open_dataset(out / "BBGG-T1.nc", engine="h5netcdf") as hs_ds:
        for ds in (kl_ds, hs_ds):
            for name in ds.coords:
                assert ds[name].attrs["long_name"] and ds[name].attrs["units"], name
            for name in ds.data_vars:
                assert ds[name].attrs["long_name"], name
            created = datetime.datetime.strptime(ds.attrs["created"], "%Y-%m-%dT%H:%M:%SZ")
            assert abs(datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - created).total_seconds() < 600
            assert ds.attrs["markovdp_version"] == md.__version__ and ds.attrs["git_commit"] == git_commit()
        assert hs_ds["eps"].attrs["units"] == "nats" and hs_ds["strength"].attrs["units"] == "1"
        assert kl_ds["exact"].attrs["long_name"] == "exact KL divergence" and kl_ds["exact"].attrs["units"] == "nats"
        assert "hockey-stick delta" in hs_ds["bound"].attrs["long_name"]
        assert "hockey-stick delta" in hs_ds["estimate"].attrs["long_name"]
        statements = json.loads(hs_ds["theorem"].attrs["statements"])
        assert list(statements) == list(hs_ds["theorem"].values)
        for tid in ("POST", "BBGG-T1.2"):  # each statement is the first line of the rule's description
            assert statements[tid] in md.describe(tid).splitlines()[1]
        assert "tightness" in hs_ds.data_vars
        for ds in (kl_ds, hs_ds):  # what NaN in ci_high means is written in the file itself
            assert "NaN: no valid upper limit, the interval is [ci_low, inf)" in ds["ci_high"].attrs["description"]
    if len(git_commit()) >= 40:  # run from a git checkout: the commit is the checkout's HEAD
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(md.__file__).parent).stdout.strip()
        assert git_commit().removesuffix("+dirty") == head


def test_validate_never_deletes_checkpoints_without_resume_or_fresh(tmp_path):
    out = tmp_path / "out"
    stale = out / ".checkpoints" / "AAC-phi"
    stale.mkdir(parents=True)
    (stale / "chunk-0-0.npz").write_bytes(b"from an earlier run")
    result = run_cli("validate", "AAC-phi", "--quick", "--scheduler", "synchronous", "--out", str(out))
    assert result.returncode == 2 and "--resume" in result.stdout and "--fresh" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr and (stale / "chunk-0-0.npz").exists()
    both = run_cli("validate", "AAC-phi", "--resume", "--fresh", "--scheduler", "synchronous", "--out", str(out))
    assert both.returncode == 2 and "exclude each other" in both.stdout


def test_progress_bars_say_what_they_count():
    import io

    from rich.console import Console
    from rich.progress import Progress

    from markovdp.cli import _advance
    from markovdp.sweeps import plan_sweep
    from markovdp.validation import get_scenario

    progress = Progress(console=Console(file=io.StringIO()))
    for name, draws in (("BBGG-BM", "≤ 10000 samples per side each"), ("BBGG-T8", "empty: no Monte Carlo")):
        scenario = get_scenario(name)
        plan = plan_sweep(scenario, samples=20_000, seed=1, quick=True)
        _advance(progress, scenario, plan, resume=False)(0, len(plan.points) + plan.n_batches_total)
        description = progress.tasks[-1].description
        assert description.startswith(f"{name}: {len(plan.points)} grid points + {plan.n_batches_total} batches (")
        assert draws in description and progress.tasks[-1].total == len(plan.points) + plan.n_batches_total
