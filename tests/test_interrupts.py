"""Interrupting `markovdp validate`: one line and exit 130 on Ctrl-C, 143 on SIGTERM, no traceback, no
surviving worker process or leaked semaphore; checkpoints kept, never deleted silently, and reused on
--resume to the same result (DESIGN §7). The scenario is a slowed toy of a fake installed package."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import xarray as xr
from plugin_fixture import MODULE, install_fake_plugin

from markovdp.cli import DEFAULT_SEED
from markovdp.sweeps import run_sweep, saved_batches

SAMPLES = 50_000  # 100 batches of 500 per point; 18 points on the full toy grid
TOTAL = 18 * 100


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    return install_fake_plugin(tmp_path_factory.mktemp("site"))


def _env(plugin: Path, pause: float) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(plugin), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "SLOW_TOY_PAUSE": str(pause)}


def _validate(plugin: Path, out: Path, *args: str, pause: float = 0.0, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "markovdp.cli", "validate", "SLOW-TOY", "--samples", str(SAMPLES),
                             "--out", str(out), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(plugin, pause), **kwargs)


def _signal_once_saving(proc: subprocess.Popen, out: Path, signum: int) -> list[psutil.Process]:
    """Wait until batches are being checkpointed, then send `signum`; the children alive at that moment."""
    deadline = time.monotonic() + 240
    while saved_batches(out, "SLOW-TOY") == 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no checkpoint within 240 s"
        time.sleep(0.2)
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signum)
    return children


def _assert_all_gone(children: list[psutil.Process]) -> None:
    _, alive = psutil.wait_procs(children, timeout=20)
    assert not alive, [(p.pid, p.name()) for p in alive]


def _lines(stdout: str, stderr: str) -> list[str]:
    """The output besides the "Scheduler: …" line that every validate run prints first."""
    return [line for line in (stdout + stderr).splitlines() if line.strip() and not line.startswith("Scheduler: ")]


def test_ctrl_c_then_refuse_then_resume(plugin, tmp_path):
    out = tmp_path / "out"
    proc = _validate(plugin, out, "--scheduler", "processes", pause=0.02)
    children = _signal_once_saving(proc, out, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=240)
    saved = saved_batches(out, "SLOW-TOY")
    assert proc.returncode == 130, stdout + stderr
    assert _lines(stdout, stderr) == [f"interrupted; {saved} of {TOTAL} batches saved; rerun with --resume"]
    assert 0 < saved < TOTAL
    assert len(children) >= 2  # the two pool workers (and the resource tracker) existed ...
    _assert_all_gone(children)  # ... and none survives

    again = _validate(plugin, out, "--scheduler", "synchronous")
    stdout, stderr = again.communicate(timeout=240)
    assert again.returncode == 2 and "--resume" in stdout and "--fresh" in stdout, stdout + stderr
    assert "Traceback" not in stdout + stderr
    assert saved_batches(out, "SLOW-TOY") == saved  # refused, nothing deleted

    resumed = _validate(plugin, out, "--scheduler", "synchronous", "--resume")
    stdout, stderr = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, stdout + stderr
    assert f"SLOW-TOY: resumed, {saved} of {TOTAL} batches reused from checkpoints" in stdout
    assert not (out / ".checkpoints").exists()  # cleared once the whole run is done

    sys.path.insert(0, str(plugin))
    try:
        from fake_markovdp_scenarios import SEVERAL

        expected = run_sweep(SEVERAL[0], samples=SAMPLES, seed=DEFAULT_SEED, executor="synchronous")
    finally:
        sys.path.remove(str(plugin))
        sys.modules.pop(MODULE, None)
    with xr.open_dataset(out / "SLOW-TOY.nc", engine="h5netcdf") as ds:
        xr.testing.assert_equal(ds.load(), expected)  # the data, bit for bit (attrs name the command)


def test_fresh_deletes_the_checkpoints_and_starts_over(plugin, tmp_path):
    out = tmp_path / "out"
    stale = out / ".checkpoints" / "SLOW-TOY"
    stale.mkdir(parents=True)
    (stale / "chunk-junk.npz").write_bytes(b"from an earlier run")
    result = _validate(plugin, out, "--scheduler", "synchronous", "--fresh", "--quick")
    stdout, stderr = result.communicate(timeout=600)
    assert result.returncode == 0, stdout + stderr
    assert "resumed" not in stdout and not (out / ".checkpoints").exists() and (out / "SLOW-TOY.nc").exists()


def test_sigterm_on_the_local_cluster_leaves_no_process_behind(plugin, tmp_path):
    out = tmp_path / "out"
    proc = _validate(plugin, out, pause=0.02)  # the default: a local dask.distributed cluster
    children = _signal_once_saving(proc, out, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=240)
    saved = saved_batches(out, "SLOW-TOY")
    assert proc.returncode == 143, stdout + stderr
    assert _lines(stdout, stderr) == [f"terminated; {saved} of {TOTAL} batches saved; rerun with --resume"]
    assert "leaked" not in stderr and "Traceback" not in stderr
    assert len(children) >= 2  # the cluster's worker processes
    _assert_all_gone(children)
