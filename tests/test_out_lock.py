"""The lock on an output folder (issue 13 §4): a second run never reuses or deletes a live run's checkpoints; a stale
lock (its process gone) is reported and broken only with --break-lock (break_lock=True)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest
import xarray as xr
from plugin_fixture import install_fake_plugin

from markovdp.cli import main
from markovdp.sweeps import CHECKPOINT_DIR, run_sweep
from markovdp.sweeps._toy import ToyScenario
from markovdp.sweeps.lock import LOCK_NAME, OutLocked, out_lock

HOLD = textwrap.dedent("""
    import sys
    from markovdp.sweeps.lock import out_lock
    with out_lock(sys.argv[1], command="markovdp validate (the first run)"):
        print("locked", flush=True)
        sys.stdin.read()
""")


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    root = install_fake_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    return root


@pytest.fixture
def holder(tmp_path):
    """Another process holding the lock on ``tmp_path / "out"``, whose checkpoints are in the folder."""
    out = tmp_path / "out"
    checkpoints = out / CHECKPOINT_DIR / "FAST-TOY"
    checkpoints.mkdir(parents=True)
    (checkpoints / "manifest.json").write_text("{}")  # stands for the first run's live checkpoints
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline() == "locked\n"
    yield proc, out
    proc.kill()
    proc.wait()


def _said(capsys) -> str:
    """What the command printed, with the console's line breaks undone."""
    return " ".join(capsys.readouterr().out.split())


def _validate(out, *extra: str) -> list[str]:
    return ["validate", "FAST-TOY", "--quick", "--samples", "1000", "--scheduler", "synchronous", "--out", str(out),
            *extra]


def test_a_live_lock_refuses_a_second_run_then_once_stale_is_broken_only_with_break_lock(plugin, holder, capsys):
    proc, out = holder
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    for extra in ((), ("--fresh",), ("--resume",), ("--break-lock",), ("--fresh", "--break-lock")):
        assert main(_validate(out, *extra)) == 2
        text = _said(capsys)
        assert f"is in use by process {proc.pid} on host {socket.gethostname()}" in text, text
        assert "markovdp validate (the first run)" in text and "Nothing was changed" in text
        assert "Traceback" not in text
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # the live checkpoints are untouched
    with pytest.raises(OutLocked, match=f"process {proc.pid}"):
        run_sweep(ToyScenario(name="FAST-TOY"), samples=1000, seed=1, executor="synchronous", out=out, fresh=True)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before

    proc.kill()  # SIGKILL: the lock stays, its process is gone
    proc.wait()
    assert main(_validate(out, "--fresh")) == 2
    text = _said(capsys)
    assert f"process {proc.pid} on host {socket.gethostname()}" in text and "no longer running (a stale lock)" in text
    assert "--break-lock" in text and sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert main(_validate(out, "--fresh", "--break-lock")) == 0
    text = _said(capsys)
    assert f"warning: broke the lock of process {proc.pid} on host {socket.gethostname()}" in text
    assert not (out / LOCK_NAME).exists() and (out / "FAST-TOY.nc").exists()


@pytest.mark.parametrize("content", [
    {"pid": 1, "host": "another-host.example", "process_start": 0.0, "started": "2026-01-01T00:00:00"},
    "not json at all",
])
def test_a_lock_of_another_host_or_unreadable_is_refused_unless_broken(tmp_path, content):
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).write_text(content if isinstance(content, str) else json.dumps(content))
    scenario = ToyScenario()
    kwargs = {"samples": 1000, "seed": 1, "quick": True, "executor": "synchronous", "out": out}
    expected = "another-host.example" if isinstance(content, dict) else "an unreadable lock"
    with pytest.raises(OutLocked, match=expected):
        run_sweep(scenario, **kwargs)
    ds = run_sweep(scenario, **kwargs, break_lock=True)
    xr.testing.assert_identical(ds, run_sweep(scenario, **{**kwargs, "out": None}))
    assert not (out / LOCK_NAME).exists()


def test_the_lock_is_reentrant_in_one_process_and_only_its_owner_removes_it(tmp_path):
    out = tmp_path / "out"
    with out_lock(out, command="outer") as path:
        record = json.loads(path.read_text())
        assert record["pid"] == os.getpid() and record["host"] == socket.gethostname()
        assert record["command"] == "outer"
        with out_lock(out):  # the CLI holds it around each run_sweep, which takes it again
            run_sweep(ToyScenario(), samples=500, seed=1, quick=True, executor="synchronous", out=out)
        assert path.exists()
        path.write_text(json.dumps({**record, "token": "someone else's"}))  # broken and taken by another run
    assert path.exists()  # not ours any more: left alone
    path.unlink()


def test_validate_help_documents_break_lock(capsys):
    with pytest.raises(SystemExit) as exit_code:
        main(["validate", "--help"])
    assert exit_code.value.code == 0
    text = _said(capsys)
    assert "--break-lock remove a stale lock on --out" in text and ".markovdp.lock" in text
