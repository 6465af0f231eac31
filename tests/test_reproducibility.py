"""Scheduler and chunking invariance of sweeps, checkpoint/resume, result files (DESIGN §7–8).

The toy scenario (`markovdp.sweeps._toy.ToyScenario`) lives in the package so process-pool and
distributed workers can unpickle it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import math
import os
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from markovdp.sweeps import (
    CHECKPOINT_DIR,
    NOT_APPLICABLE,
    OK,
    VIOLATION,
    CheckpointsExist,
    DaskExecutor,
    SchedulerUnreachable,
    open_executor,
    plan_sweep,
    run_sweep,
    saved_batches,
    verdict,
    worker_count,
)
from markovdp.sweeps._toy import ToyScenario

SCENARIO = ToyScenario()
SAMPLES = 2300  # batches of 500: 4 full and a partial one of 300
SEED = 20260901


class Killed(Exception):
    """Stands in for a kill part-way through a sweep."""


def kill_after(batches: int):
    """A progress callback that 'kills' the sweep once at least `batches` (point, batch) tasks are done.

    Progress counts one task per ``evaluate(point)`` (18 points) plus one per (point, batch).
    """
    def progress(done: int, total: int) -> None:
        if done >= 18 + batches:
            raise Killed

    return progress


@pytest.fixture(scope="module")
def cluster_address():
    """One 2-worker LocalCluster on loopback, shared by the module; its address as a scheduler string."""
    from distributed import LocalCluster

    with LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR,
                      scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def reference() -> xr.Dataset:
    """The uninterrupted sweep: synchronous, one (point, batch) task per chunk."""
    return run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", chunk_size=1)


# -- scheduler and chunking invariance -----------------------------------------------------------------
@pytest.mark.parametrize("scheduler", ["synchronous", "threads", "processes", "cluster"])
def test_bit_identical_for_any_scheduler_and_chunk_size(scheduler, reference, request):
    if scheduler == "cluster":
        scheduler = request.getfixturevalue("cluster_address")
    with open_executor(scheduler) as executor:
        for chunk_size in (2, 7):
            ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor=executor, chunk_size=chunk_size)
            xr.testing.assert_identical(ds, reference)


def test_default_local_cluster_gives_the_same_result(reference):
    with open_executor(None) as executor:
        assert worker_count(executor) == (os.cpu_count() or 1)
        ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor=executor)
    xr.testing.assert_identical(ds, reference)


@pytest.mark.parametrize("name", ["BBGG-T1", "STD-GaussHS"])
def test_catalogue_scenarios_are_bit_identical_on_the_cluster(name, cluster_address):
    """A real scenario (finite and continuous, split by batch parity) on the shared 2-worker cluster,
    with two chunkings, equals the synchronous run."""
    from markovdp.validation import get_scenario

    scenario = get_scenario(name)
    samples = 3 * scenario.batch_size + 17
    expected = run_sweep(scenario, samples=samples, seed=SEED, quick=True, executor="synchronous")
    with open_executor(cluster_address) as executor:
        for chunk_size in (1, 5):
            ds = run_sweep(scenario, samples=samples, seed=SEED, quick=True, executor=executor,
                           chunk_size=chunk_size)
            xr.testing.assert_identical(ds, expected)


def test_seed_is_an_address_of_the_point_not_its_position(reference):
    quick = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, quick=True, executor="synchronous")
    shared = reference.sel(a=quick.a, b=quick.b, rule=quick.rule)
    assert quick.sizes["a"] < reference.sizes["a"]
    np.testing.assert_array_equal(quick.estimate.values, shared.estimate.values)
    other = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED + 1, executor="synchronous")
    assert not np.array_equal(other.estimate.values, reference.estimate.values)


def test_schema(reference):
    ds = reference
    assert tuple(ds.bound.dims) == ("a", "b", "rule")
    for name in ("bound", "exact", "estimate", "ci_low", "ci_high", "ci_low_verdict"):
        assert ds[name].dtype == np.float64
    assert ds.verdict.dtype == np.int8
    np.testing.assert_array_equal(ds.verdict.attrs["flag_values"], np.array([0, 1, 2], dtype=np.int8))
    assert ds.verdict.attrs["flag_values"].dtype == np.int8
    assert ds.verdict.attrs["flag_meanings"] == "ok violation not_applicable"
    assert list(ds.theorem.values) == ["TOY-TIGHT", "TOY-LOOSE"]
    assert ds.candidate_bound.dims == ("a", "b", "rule", "theorem")
    none = ds.sel(rule="none")
    assert np.isnan(none.bound).all() and (none.bound_theorem == "").all()
    assert (none.verdict == NOT_APPLICABLE).all() and (ds.sel(rule="tight").verdict == OK).all()
    assert np.isfinite(ds.estimate).all()
    assert (ds.ci_low_verdict < ds.ci_low).all() and (ds.ci_low <= ds.estimate).all()
    assert ds.attrs == {
        "markovdp_version": ds.attrs["markovdp_version"], "git_commit": ds.attrs["git_commit"],
        "scenario": "TOY", "theory_id": "TOY-TV",
        "description": ds.attrs["description"], "target": "upper", "seed_entropy": str(SEED),
        "batch_size": 500, "samples": SAMPLES,
        "confidence": 0.95, "verdict_confidence": 1 - 1e-6 / 18, "command": "", "quick": 0,
    }


def test_verdict_level_follows_points_in_the_whole_run(reference):
    wide = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", n_points_total=10_000)
    assert (wide.ci_low_verdict < reference.ci_low_verdict).all()
    xr.testing.assert_identical(wide.estimate, reference.estimate)


def test_without_monte_carlo_and_with_a_broken_bound():
    ds = run_sweep(ToyScenario(monte_carlo=False), samples=10, seed=1, executor="synchronous")
    assert np.isnan(ds.estimate).all() and np.isnan(ds.ci_low_verdict).all()
    assert set(np.unique(ds.verdict.values)) == {OK, NOT_APPLICABLE}
    broken = run_sweep(ToyScenario(slack=0.5), samples=1000, seed=1, executor="synchronous")
    assert (broken.verdict.sel(rule="tight") == VIOLATION).all()


# -- checkpoints and resume ------------------------------------------------------------------------------
def test_resume_after_kill_equals_uninterrupted_run(tmp_path, reference, cluster_address):
    with pytest.raises(Killed):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="threads", out=tmp_path, chunk_size=4,
                  progress=kill_after(20))
    store = tmp_path / CHECKPOINT_DIR / "TOY"
    files = sorted(p.name for p in store.iterdir())
    assert "manifest.json" in files and any(f.endswith(".npz") for f in files)
    assert all(f == "manifest.json" or f.endswith(".npz") for f in files), files
    assert not list((tmp_path / CHECKPOINT_DIR).rglob("*.nc"))
    assert not (tmp_path / "TOY.nc").exists()

    seen = []
    ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor=cluster_address, out=tmp_path,
                   resume=True, chunk_size=3, progress=lambda done, total: seen.append((done, total)))
    assert 0 < seen[0][0] < seen[0][1]  # some batches came from the checkpoint
    xr.testing.assert_identical(ds, reference)
    assert not (tmp_path / CHECKPOINT_DIR).exists()
    back = xr.open_dataset(tmp_path / "TOY.nc", engine="h5netcdf").load()
    created = back.attrs.pop("created")  # the file's creation time: the one attribute a rerun changes
    assert datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ")
    xr.testing.assert_identical(back, reference)
    for name in back.variables:
        assert back[name].attrs.keys() == reference[name].attrs.keys()


def test_kill_on_a_cluster_then_resume(tmp_path, reference, cluster_address):
    with pytest.raises(Killed):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor=cluster_address, out=tmp_path,
                  chunk_size=2, progress=kill_after(10))
    ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)
    xr.testing.assert_identical(ds, reference)


def _interrupted_run(tmp_path) -> Path:
    """A run killed part-way, leaving checkpoints; the directory that holds them."""
    with pytest.raises(Killed):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, chunk_size=5,
                  progress=kill_after(15))
    return tmp_path / CHECKPOINT_DIR / "TOY"


def test_manifest_records_a_sha256_per_chunk(tmp_path):
    store = _interrupted_run(tmp_path)
    files = json.loads((store / "manifest.json").read_text())["files"]
    chunks = sorted(p.name for p in store.glob("chunk-*.npz"))
    assert sorted(files) == chunks and len(chunks) >= 3
    for name in chunks:  # an independent digest of the bytes on disk
        assert files[name]["sha256"] == hashlib.sha256((store / name).read_bytes()).hexdigest()
    assert sum(entry["tasks"] for entry in files.values()) == saved_batches(tmp_path, "TOY") >= 15


@pytest.mark.parametrize("damage", ["truncate", "inflate", "foreign"])
def test_resume_refuses_a_tampered_or_foreign_checkpoint_naming_the_file(tmp_path, damage):
    store = _interrupted_run(tmp_path)
    chunk = sorted(store.glob("chunk-*.npz"))[0]
    if damage == "truncate":
        chunk.write_bytes(chunk.read_bytes()[:100])
        match = "does not match its sha256"
    elif damage == "inflate":  # well-formed counts that cannot come from the batch size
        with np.load(chunk) as data:
            arrays = dict(data)
        arrays["counts"] = arrays["counts"] * 1000
        np.savez(chunk, **arrays)
        match = "does not match its sha256"
    else:  # a chunk of another run (another seed) dropped in beside this run's
        other = tmp_path / "other"
        _interrupted_run(other)
        source = sorted((other / CHECKPOINT_DIR / "TOY").glob("chunk-*.npz"))[-1]
        chunk = store / "chunk-from-elsewhere.npz"
        chunk.write_bytes(source.read_bytes())
        match = "is not listed in"
    with pytest.raises(ValueError, match=match) as info:
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)
    assert str(chunk) in str(info.value) and "--fresh" in str(info.value)
    assert chunk.exists()  # refused, not deleted


def test_resume_refuses_counts_that_do_not_add_up_even_with_a_matching_checksum(tmp_path):
    store = _interrupted_run(tmp_path)
    chunk = sorted(store.glob("chunk-*.npz"))[0]
    with np.load(chunk) as data:
        arrays = dict(data)
    arrays["counts"] = arrays["counts"] * 1000
    np.savez(chunk, **arrays)
    manifest = json.loads((store / "manifest.json").read_text())
    manifest["files"][chunk.name]["sha256"] = hashlib.sha256(chunk.read_bytes()).hexdigest()
    (store / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="do not add up"):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)


def test_a_run_without_resume_or_fresh_never_deletes_checkpoints(tmp_path):
    store = _interrupted_run(tmp_path)
    before = sorted(p.name for p in store.iterdir())
    with pytest.raises(CheckpointsExist, match="--resume.*--fresh"):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path)
    assert sorted(p.name for p in store.iterdir()) == before


def test_keep_checkpoints_lets_a_finished_scenario_be_reused(tmp_path, reference):
    run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, keep_checkpoints=True)
    assert saved_batches(tmp_path, "TOY") == 18 * 5
    seen = []
    ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True,
                   progress=lambda done, total: seen.append(done))
    assert seen[0] == 18 * 5 and seen[-1] == 18 * 5 + 18  # every batch reused; only the 18 evaluations ran
    xr.testing.assert_identical(ds, reference)


def test_checkpoints_hold_points_whose_outputs_differ_in_number(tmp_path):
    """A chunk of SRP-Tab1 mixes oracles with 4 to 16 output cells: saved, resumed, and equal to a run without
    checkpoints (the counts are stored side by side with each task's cell count)."""
    from markovdp.validation.builtin import SCENARIOS

    scenario = SCENARIOS["SRP-Tab1"]
    points = math.prod(len(values) for values in scenario.grid(quick=True).values())
    kwargs = {"samples": 1000, "seed": SEED, "quick": True, "executor": "synchronous", "chunk_size": points}
    run_sweep(scenario, out=tmp_path, keep_checkpoints=True, **kwargs)
    assert saved_batches(tmp_path, "SRP-Tab1") == points  # one batch per point, all in one chunk
    resumed = run_sweep(scenario, out=tmp_path, resume=True, **kwargs)
    xr.testing.assert_equal(resumed, run_sweep(scenario, **kwargs))


@pytest.mark.parametrize(("changed", "match"), [({"seed": SEED + 1}, "seed"),
                                                ({"samples": SAMPLES + 1}, "samples"),
                                                ({"quick": True}, "quick")])
def test_resume_refuses_a_checkpoint_made_otherwise(tmp_path, changed, match):
    settings = {"samples": SAMPLES, "seed": SEED}
    with pytest.raises(Killed):
        run_sweep(SCENARIO, **settings, executor="synchronous", out=tmp_path, chunk_size=5,
                  progress=kill_after(15))
    with pytest.raises(ValueError, match=match):
        run_sweep(SCENARIO, **{**settings, **changed}, executor="synchronous", out=tmp_path, resume=True)
    assert (tmp_path / CHECKPOINT_DIR / "TOY" / "manifest.json").exists()  # refused, not deleted
    # With fresh, the stale checkpoint is discarded and the run starts afresh.
    run_sweep(SCENARIO, **{**settings, **changed}, executor="synchronous", out=tmp_path, fresh=True)
    assert not (tmp_path / CHECKPOINT_DIR).exists() and (tmp_path / "TOY.nc").exists()


def test_stale_checkpoint_is_removed_with_fresh(tmp_path, reference):
    stale = tmp_path / CHECKPOINT_DIR / "TOY"
    stale.mkdir(parents=True)
    (stale / "chunk-junk.npz").write_bytes(b"not a checkpoint")
    ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, fresh=True)
    xr.testing.assert_identical(ds, reference)
    assert not (tmp_path / CHECKPOINT_DIR).exists()
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["TOY.nc"]


# -- bad input ------------------------------------------------------------------------------------------
def test_unreachable_scheduler_is_an_error_naming_the_address():
    with pytest.raises(SchedulerUnreachable, match=r"tcp://127\.0\.0\.1:1"), open_executor("tcp://127.0.0.1:1",
                                                                                         timeout=0.5):
        pass


@pytest.mark.parametrize("scheduler", ["thread", "tcp://host-without-port"])
def test_malformed_scheduler_is_a_value_error(scheduler):
    with pytest.raises(ValueError, match="`scheduler`"), open_executor(scheduler):
        pass


@pytest.mark.parametrize("samples", [0, -3])
def test_samples_must_be_positive(samples):
    with pytest.raises(ValueError, match="`samples`"):
        run_sweep(SCENARIO, samples=samples, seed=1, executor="synchronous")


def test_resume_needs_out():
    with pytest.raises(ValueError, match="`out`"):
        run_sweep(SCENARIO, samples=10, seed=1, executor="synchronous", resume=True)


# -- the verdict rule -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bound", "exact", "ci_low", "target", "expected"),
    [
        (0.5, 0.4, 0.3, "upper", OK),
        (0.5, 0.5 * (1 + 1e-12), math.nan, "upper", OK),  # float noise is not a violation
        (0.5, math.nan, math.nan, "upper", OK),  # nothing to check against
        (math.inf, 0.9, 0.8, "upper", OK),  # a vacuous bound is sound
        (0.5, 0.51, math.nan, "upper", VIOLATION),  # by the exact value
        (0.5, math.nan, 0.51, "upper", VIOLATION),  # by the Monte Carlo lower bound
        (0.5, 0.4, 0.51, "upper", VIOLATION),
        (0.0, 1e-11, math.nan, "upper", VIOLATION),
        (math.nan, 0.9, 0.8, "upper", NOT_APPLICABLE),
        (math.nan, 0.9, 0.8, "equality", NOT_APPLICABLE),
        (0.5, 0.5, 0.3, "equality", OK),  # the Monte Carlo check stays one-sided
        (0.5, 0.49, 0.3, "equality", VIOLATION),  # a closed form below the truth... or above it
        (0.5, 0.51, 0.3, "equality", VIOLATION),
        (0.5, math.nan, 0.51, "equality", VIOLATION),
    ],
)
def test_verdict_rule(bound, exact, ci_low, target, expected):
    assert verdict(bound, exact, ci_low, target=target) == expected


def test_verdict_rejects_unknown_target():
    with pytest.raises(ValueError, match="`target`"):
        verdict(0.5, 0.4, 0.3, target="lower")



def _tick(i: int) -> int:
    return i


def test_cancelling_futures_on_a_cluster(cluster_address):
    """On a real cluster, cancelled futures end cancelled or with their own result, the others with theirs."""
    import concurrent.futures as cf

    from distributed import Client

    with Client(cluster_address) as client:
        executor = DaskExecutor(client)
        futures = [executor.submit(_tick, i) for i in range(40)]
        for future in futures[::2]:
            future.cancel()
        done, _ = cf.wait(futures[1::2], timeout=30)
        executor.shutdown(wait=True)
    assert sorted(f.result() for f in done) == list(range(1, 40, 2))
    assert all(f.cancelled() or f.result() == i for i, f in zip(range(0, 40, 2), futures[::2], strict=True))


class _FakeTask:
    """A dask future that has finished, whose done-callback the test fires by hand."""

    status = "finished"

    def __init__(self) -> None:
        self.callbacks: list = []

    def add_done_callback(self, fn) -> None:
        self.callbacks.append(fn)

    def cancel(self) -> None:
        pass  # too late: the task has finished

    def result(self) -> int:
        return 7


def test_a_result_arriving_after_cancel_is_dropped_quietly():
    """The race behind a traceback on SIGTERM: the future is cancelled, then its task's result arrives.
    distributed's ``Client.get_executor()`` calls ``set_result`` on the cancelled future there
    (InvalidStateError); `DaskExecutor` drops the result, and an uncancelled future still gets its own."""
    task, other = _FakeTask(), _FakeTask()
    client = type("FakeClient", (), {"submit": lambda self, fn, *a, **k: next(tasks)})()
    tasks = iter([task, other])
    executor = DaskExecutor(client)
    cancelled, kept = executor.submit(_tick, 1), executor.submit(_tick, 2)
    assert cancelled.cancel()
    for fn in task.callbacks + other.callbacks:
        fn(task if fn in task.callbacks else other)  # raises InvalidStateError without the guard
    assert cancelled.cancelled() and kept.result() == 7


# -- a chunk saved without its manifest entry; manifests and chunks are data, never paths (issue 13 §4) ----------
def _drop_last_entry(store: Path) -> str:
    """Undo the manifest write of the last saved chunk: what a hard kill between the two writes leaves."""
    manifest = json.loads((store / "manifest.json").read_text())
    last = max(manifest["files"], key=lambda name: (store / name).stat().st_mtime_ns)
    del manifest["files"][last]
    (store / "manifest.json").write_text(json.dumps(manifest))
    return last


def test_a_chunk_without_its_manifest_entry_is_verified_and_adopted_on_resume(tmp_path, reference, caplog):
    store = _interrupted_run(tmp_path)
    saved = saved_batches(tmp_path, "TOY")
    orphan = _drop_last_entry(store)
    assert saved_batches(tmp_path, "TOY") < saved
    seen = []
    with caplog.at_level(logging.WARNING, logger="markovdp.sweeps"):
        ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True,
                       progress=lambda done, total: seen.append(done))
    assert seen[0] == saved  # its batches were reused, not run again
    assert any(f"recovered {store / orphan}" in r.getMessage() for r in caplog.records)
    xr.testing.assert_identical(ds, reference)


@pytest.mark.parametrize("case", ["other seed", "misnamed", "listed twice"])
def test_an_unlisted_chunk_that_is_not_this_runs_is_refused_saying_what_fresh_deletes(tmp_path, case):
    store = _interrupted_run(tmp_path)
    if case == "listed twice":  # named by a task not saved yet, but also holding a task a listed chunk holds
        source = sorted(store.glob("chunk-*.npz"))[0]
        with np.load(source) as data:
            arrays = dict(data)
        saved_tasks = set()
        for path in store.glob("chunk-*.npz"):
            with np.load(path) as data:
                saved_tasks |= set(zip(data["point_key"].tolist(), data["batch"].tolist(), strict=True))
        key, batch = int(arrays["point_key"][0]), int(arrays["batch"][0])
        assert batch < 4  # a full batch of 500: its counts fit any other full batch
        keys = plan_sweep(SCENARIO, samples=SAMPLES, seed=SEED).keys.tolist()
        first = next((k, 0) for k in keys if (k, 0) not in saved_tasks)
        m = int(arrays["cells"][0])
        counts = arrays["counts"][:, :m]
        chunk = store / f"chunk-{first[0]:016x}-{first[1]:08d}.npz"
        np.savez(chunk, point_key=np.array([first[0], key], dtype=np.uint64), batch=np.array([first[1], batch]),
                 present=np.array([True, True]), counts=np.concatenate([counts, counts], axis=1),
                 cells=np.array([m, m]), run=arrays["run"])
        match = "that another checkpoint holds too"
    else:
        other = tmp_path / "other"
        with pytest.raises(Killed):
            run_sweep(SCENARIO, samples=SAMPLES, seed=SEED + (case == "other seed"), executor="synchronous",
                      out=other, chunk_size=7, progress=kill_after(15))
        source = next(p for p in sorted((other / CHECKPOINT_DIR / "TOY").glob("chunk-*.npz"))
                      if not (store / p.name).exists())  # a name this run has not used
        chunk = store / (source.name if case == "other seed" else "chunk-0000000000000000-00000000.npz")
        chunk.write_bytes(source.read_bytes())
        match = "made by a run with other settings" if case == "other seed" else "does not match its first task"
    saved = saved_batches(tmp_path, "TOY")
    with pytest.raises(ValueError, match=match) as info:
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)
    message = str(info.value)
    named = f"{chunk} holds a task" if case == "listed twice" else f"the checkpoint {chunk} is not listed in"
    assert named in message
    assert f"move {chunk} out of {store} to run only its batches again" in message
    assert f"--fresh (fresh=True) to delete all {saved} saved batches of this scenario" in message
    assert chunk.exists() and saved_batches(tmp_path, "TOY") == saved  # refused, nothing deleted
    chunk.unlink()  # as the message says: then the resume goes on
    run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)


def test_a_manifest_entry_that_is_a_path_is_refused_and_never_read(tmp_path):
    store = _interrupted_run(tmp_path)
    outside = tmp_path / "outside.npz"
    outside.write_bytes(b"never read")
    manifest = json.loads((store / "manifest.json").read_text())
    name = sorted(manifest["files"])[0]
    entry = manifest["files"].pop(name)
    manifest["files"]["../../outside.npz"] = {**entry, "sha256": hashlib.sha256(b"never read").hexdigest()}
    (store / name).unlink()
    (store / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"lists '\.\./\.\./outside\.npz', which is not a checkpoint of this folder"):
        run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)
    assert outside.read_bytes() == b"never read"


def test_a_listed_chunk_that_is_missing_runs_again(tmp_path, reference, caplog):
    store = _interrupted_run(tmp_path)
    missing = sorted(store.glob("chunk-*.npz"))[0]
    missing.unlink()  # e.g. moved away, as a refusal suggests for a damaged chunk
    with caplog.at_level(logging.WARNING, logger="markovdp.sweeps"):
        ds = run_sweep(SCENARIO, samples=SAMPLES, seed=SEED, executor="synchronous", out=tmp_path, resume=True)
    assert any(f"the checkpoint {missing} listed in" in r.getMessage() and "run again" in r.getMessage()
               for r in caplog.records)
    xr.testing.assert_identical(ds, reference)
