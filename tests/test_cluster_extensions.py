"""Extensions on a cluster run there, or the sweep refuses naming what is missing (docs/extending.md).

- A dask cluster started apart from this process (`dask scheduler`, `dask worker` on 127.0.0.1, one worker with
  one thread, a module-scoped fixture): docs/tour.md's extending example without its module on the workers is an error
  naming the rule (as a module: before any task runs; as a script: from what the task ran); with the module
  uploaded (`Client.upload_file`) the rule runs there and the verdicts use it; a package installed here and on the
  workers (entry points `markovdp.theorems`, `markovdp.scenarios`) runs its rule there through `markovdp validate`;
  a registration made only in this process is an error naming it; a package missing on the workers: exit 2.
- `LocalCluster(processes=True)`: a kernel class defined in a script, with its push rule registered in the
  script, arrives by value (cloudpickle) and brings its rule along (`markovdp._dispatch.CARRIED`).
- Without a cluster: the carried rules are registered where a lookup misses; what a task used is compared.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from plugin_fixture import MODULE, install_fake_plugin

import markovdp as md
from markovdp import _dispatch
from markovdp.cli import main
from markovdp.guarantees.registry import registered_theorems, unregister
from markovdp.pairs import PUSHES
from markovdp.sweeps import open_executor, run_sweep
from markovdp.sweeps.extensions import ExtensionCheck, MissingExtension
from markovdp.validation import discovery

ROOT = Path(__file__).resolve().parents[1]
RULE = "BBGG-F1+T1.1"


def readme_extending_example() -> str:
    """The definitions of the tour's "Extending" example (docs/tour.md): its first python block, up to the sweep."""
    text = (ROOT / "docs" / "tour.md").read_text()
    block = text.split("## Extending", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    definitions = block.split("\nwith open_executor(", 1)[0]
    assert "@md.theorem(" in definitions and "Scenario(" in definitions, "docs/tour.md's example changed shape"
    return definitions


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process group (the worker's nanny and its child), SIGKILL if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


@contextlib.contextmanager
def dask_cluster(root: Path, *paths: Path):
    """The address of a dask scheduler with one single-threaded worker, both separate processes on loopback (a free
    port chosen by the scheduler), importing markovdp and `paths` and nothing of the tests; stopped on exit."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (ROOT, *paths)))}
    address_file = root / "scheduler.json"
    started: list[subprocess.Popen] = []

    def start(*argv: str) -> None:
        with open(root / f"{argv[0]}.log", "w") as log:
            started.append(subprocess.Popen([sys.executable, "-m", "dask", *argv], cwd=root, env=env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(address_file))
        start("worker", "--scheduler-file", str(address_file), "--host", "127.0.0.1", "--nworkers", "1",
              "--nthreads", "1", "--no-dashboard", "--local-directory", str(root / "work"))
        from distributed import Client

        deadline = time.monotonic() + 60
        while not address_file.exists():
            assert time.monotonic() < deadline, (root / "scheduler.log").read_text()
            time.sleep(0.1)
        with Client(scheduler_file=str(address_file), timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
            address = client.scheduler.address
        yield address
    finally:
        for process in reversed(started):
            _stop(process)


PACKAGE = "fake_markovdp_rules"
PACKAGE_BODY = '''
import markovdp as md
from markovdp.validation import Scenario


@md.theorem("PLUGIN-DPI")
def data_processing(subject):
    """STD-DPI: M >> K is no less private than M."""
    if not isinstance(subject, md.PostProcessed):
        return md.NotApplicable("PLUGIN-DPI", "needs M >> K")
    source = md.certify(subject.mechanism)
    return md.Bound("PLUGIN-DPI", {}, lambda eps: source.delta(eps))


def flipped(strength, eps):
    return md.RandomizedResponse(2, 1.0) >> md.FiniteKernel([[1 - strength, strength], [strength, 1 - strength]])


SCENARIO = Scenario(name="PLUGIN-DPI-RR", theory_id="PLUGIN-DPI", description="a package's rule, checked",
                    grid_full={"strength": (0.2,), "eps": (0.5,)}, grid_quick={"strength": (0.2,), "eps": (0.5,)},
                    pipeline=flipped, batch_size=1000)
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A package installed here and on the cluster's workers (a module and its dist-info on both paths): a theorem
    rule in the entry-point group ``markovdp.theorems``, a scenario in ``markovdp.scenarios``."""
    from markovdp.guarantees import registry

    site = tmp_path_factory.mktemp("site")
    dist = site / "fake_markovdp_rules-0.1.dist-info"
    dist.mkdir()
    (site / f"{PACKAGE}.py").write_text(PACKAGE_BODY)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-markovdp-rules\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[markovdp.theorems]\nrules = {PACKAGE}\n\n"
                                           f"[markovdp.scenarios]\nrr = {PACKAGE}:SCENARIO\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        patch.setattr(registry, "_loaded_plugins", False)  # this process loads the package's rules too
        registry.load_plugins()
        try:
            yield site
        finally:
            unregister("PLUGIN-DPI")
            sys.modules.pop(PACKAGE, None)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, site):
    with dask_cluster(tmp_path_factory.mktemp("cluster"), site) as address:
        yield address


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write a module into a folder on this process's sys.path (not the workers'), import it, and forget it after
    (its rule unregistered)."""
    names = []

    def write(name: str, source: str):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        monkeypatch.syspath_prepend(str(tmp_path))
        names.append(name)
        return __import__(name), path

    yield write
    for name in names:
        sys.modules.pop(name, None)
    if RULE in registered_theorems():
        md.unregister(RULE)


def test_readme_example_without_its_module_on_the_workers_fails_naming_the_rule(cluster, user_module):
    example, _ = user_module("readme_extending_a", readme_extending_example())
    with open_executor(cluster) as executor, pytest.raises(MissingExtension) as raised:
        run_sweep(example.mine, samples=2000, seed=7, quick=True, executor=executor)
    message = str(raised.value)
    print(message)
    assert "scenario 'RR-lazy' needs modules that the cluster does not have:" in message
    assert "module 'readme_extending_a' (" in message
    assert "cannot be imported on the scheduler, worker tcp://" in message
    assert f"it registers theorem rule(s) '{RULE}'" in message and "client.upload_file(path)" in message


def test_readme_example_with_its_module_uploaded_runs_the_rule_on_the_workers(cluster, user_module):
    from distributed import Client

    example, path = user_module("readme_extending_b", readme_extending_example())
    with Client(cluster, timeout=30) as client:
        client.upload_file(str(path))
        try:
            with open_executor(cluster) as executor:
                result = run_sweep(example.mine, samples=2000, seed=7, quick=True, executor=executor)
        finally:  # the cluster outlives this test: its workers forget the rule (the next tests expect them bare)
            client.run(unregister, RULE)
    assert (result["verdict"] == 0).all()
    ran = result["candidate_bound"].sel(theorem=RULE)
    for point in [dict(zip(result["bound"].dims, idx, strict=True)) for idx in np.ndindex(result["bound"].shape)]:
        coords = {k: float(result[k][i]) for k, i in point.items()}
        here = md.certify(example.lazy_rr(**coords)).candidates[RULE].delta(coords["eps"])
        assert float(ran.isel(point)) == pytest.approx(here, rel=1e-12)
        assert np.isfinite(here) and here > 0


KERNEL = '''
from dataclasses import dataclass

import numpy as np
import markovdp as md
from markovdp.spaces import RealSpace


@dataclass(frozen=True)
class Scale(md.MarkovOperator):
    """y = c x with c != 0: injective, so every divergence between pushed laws is unchanged."""

    c: float

    @property
    def domain(self):
        return RealSpace(1)

    @property
    def codomain(self):
        return RealSpace(1)

    def sample(self, x, *, rng=None):
        return self.c * np.asarray(x, dtype=float)

    def push(self, mu):
        if isinstance(mu, md.Normal):
            return md.Normal(self.c * mu.mean, abs(self.c) * mu.sigma)
        return super().push(mu)
'''

SCENARIO = '''
from markovdp.validation import Scenario


def scaled(c, eps):
    return md.GaussianMechanism(0.7) >> Scale(c)


def pair(c, eps):
    return 0.0, 1.0


def edges(c, eps):
    return np.sort(c * np.linspace(-3.0, 4.0, 15))


SCALED = Scenario(name="SCALED", theory_id="POST", description="a Gaussian mechanism, then y = c x",
                  grid_full={"c": (-3.0,), "eps": (0.5, 1.0)}, grid_quick={"c": (-3.0,), "eps": (0.5, 1.0)},
                  pipeline=scaled, pair=pair, bins=edges, estimator="continuous", batch_size=1000)
'''


def _push_scale(kernel, pairs):
    return md.ShiftPair(kernel.push(pairs.noise), kernel.push(pairs.shifted))


def test_a_registration_made_only_here_is_an_error_naming_it(cluster, user_module):
    from distributed import Client

    kernels, path = user_module("scale_kernel_c", KERNEL + SCENARIO)  # the class ships, its push rule does not
    PUSHES.register((kernels.Scale, md.ShiftPair))(_push_scale)
    with Client(cluster, timeout=30) as client:
        client.upload_file(str(path))
    with open_executor(cluster) as executor, pytest.raises(MissingExtension) as raised:
        run_sweep(kernels.SCALED, samples=1000, seed=1, quick=True, executor=executor)
    message = str(raised.value)
    print(message)
    assert ("no push rule for (scale_kernel_c.Scale, markovdp.pairs.ShiftPair) is registered on the workers; this "
            "process uses test_cluster_extensions._push_scale") in message
    assert isinstance(raised.value.__cause__, NotImplementedError)  # what the worker said, kept as the cause


def test_validate_exits_2_when_the_workers_lack_an_installed_scenario(cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(install_fake_plugin(tmp_path / "site", entries="rr = {m}:SCENARIO")))
    monkeypatch.setattr(discovery, "SCENARIOS", {})
    try:
        code = main(["validate", "PLUGIN-RR", "--quick", "--samples", "1000", "--scheduler", cluster,
                     "--out", str(tmp_path / "out")])
    finally:
        sys.modules.pop(MODULE, None)
    out = capsys.readouterr().out
    print(out)
    assert code == 2
    assert "error: scenario 'PLUGIN-RR' needs modules that the cluster does not have:" in out
    assert f"module {MODULE!r} (" in out and "cannot be imported on the scheduler, worker tcp://" in out
    assert not list((tmp_path / "out").glob("*.nc"))


def test_a_script_kernel_works_on_a_local_cluster_of_processes(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(KERNEL + SCENARIO + textwrap.dedent('''
        from markovdp.pairs import PUSHES


        @PUSHES.register((Scale, md.ShiftPair))
        def _push_scale(kernel, pairs):
            return md.ShiftPair(kernel.push(pairs.noise), kernel.push(pairs.shifted))


        if __name__ == "__main__":
            from distributed import Client, LocalCluster
            from markovdp.sweeps import run_sweep
            from markovdp.sweeps.executors import DaskExecutor

            with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None) as cluster, Client(cluster) as client:
                executor = DaskExecutor(client)
                result = run_sweep(SCALED, samples=2000, seed=1, quick=True, executor=executor)
                executor.shutdown()
            print("EXACT", *result["exact"].values.ravel())
            print("VERDICT", *result["verdict"].values.ravel())
    '''))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.startswith(("EXACT", "VERDICT")))
    exact = np.array(lines["EXACT"].split(), dtype=float)
    # y = -3 x is injective: the pipeline's profile is the Gaussian mechanism's, here by mpmath-free closed form
    truth = [md.hockey_stick(md.Normal(0.0, 0.7), md.Normal(1.0, 0.7), eps=eps) for eps in (0.5, 1.0)]
    np.testing.assert_allclose(exact, truth, rtol=1e-12)
    assert lines["VERDICT"].split() == ["0", "0"]


# ------------------------------------------------------------------------------------------ without a cluster

def test_a_rule_carried_by_a_class_is_registered_where_a_lookup_misses():
    class Carrier(md.MarkovOperator):  # defined here, outside markovdp: its rules travel with it
        pass

    def rule(kernel, pairs):
        return pairs

    PUSHES.register((Carrier, md.ShiftPair))(rule)
    assert vars(Carrier)[_dispatch.CARRIED] == {("push", (Carrier, md.ShiftPair)): rule}
    del PUSHES._rules[(Carrier, md.ShiftPair)]  # as in a process where the class arrived by value
    try:
        assert PUSHES.lookup(Carrier, md.ShiftPair) is rule
        assert PUSHES._rules[(Carrier, md.ShiftPair)] is rule
    finally:
        PUSHES._rules.pop((Carrier, md.ShiftPair), None)
    assert _dispatch.CARRIED not in vars(md.GaussianKernel)  # markovdp's own classes carry nothing


def test_what_a_task_used_is_compared_with_this_process():
    scenario = type("S", (), {"name": "S"})()
    with _dispatch.recording() as used:
        md.certify(md.RandomizedResponse(2, 1.0))
        PUSHES.lookup(md.GaussianKernel, md.ShiftPair)
    ExtensionCheck(scenario)((used.lookups, used.theorems))  # the same process: nothing missing
    theorems = dict(used.theorems)
    del theorems["MECH"]
    theorems["X-1"] = "elsewhere.rule"
    lookups = {key: "" for key in used.lookups}
    with pytest.raises(MissingExtension) as raised:
        ExtensionCheck(scenario)((lookups, theorems))
    message = str(raised.value)
    assert "theorem rule 'MECH' (markovdp.guarantees.mechanism_rules." in message
    assert "is not registered on the workers" in message
    assert "the workers run theorem rule 'X-1' (elsewhere.rule), which this process does not have" in message
    assert ("no push rule for (markovdp.operators.gaussian.GaussianKernel, markovdp.pairs.ShiftPair) is "
            "registered on the workers") in message


def test_readme_example_run_as_a_script_on_the_cluster_fails_naming_the_rule(cluster, site, tmp_path):
    script = tmp_path / "extending.py"
    block = (ROOT / "docs/tour.md").read_text().split("## Extending", 1)[1].split("```python\n", 1)[1].split("```")[0]
    assert 'open_executor("synchronous")' in block
    script.write_text(block.replace('open_executor("synchronous")', f"open_executor({cluster!r})"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(site)))}  # the package is installed here too
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    print(done.stderr[-1500:])
    assert done.returncode == 1
    assert (f"MissingExtension: scenario 'RR-lazy': the workers lack what this process uses (their results would "
            f"not be the ones asked for):\n  - theorem rule '{RULE}' (__main__.doeblin_then_dobrushin, defined in "
            f"the script) is not registered on the workers") in done.stderr



def test_an_installed_package_runs_its_rule_on_the_workers(cluster, tmp_path, capsys):
    code = main(["validate", "PLUGIN-DPI-RR", "--quick", "--samples", "1000", "--scheduler", cluster,
                 "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().out
    import xarray as xr

    with xr.open_dataset(tmp_path / "out" / "PLUGIN-DPI-RR.nc", engine="h5netcdf") as ds:
        ran = float(ds["candidate_bound"].sel(theorem="PLUGIN-DPI").squeeze())
        assert (ds["verdict"] == 0).all()
    e = np.e  # the rule's value: delta(0.5) of RR(2, 1) itself, (e - e^0.5) / (e + 1)
    assert ran == pytest.approx((e - np.exp(0.5)) / (e + 1), rel=1e-12)


def test_a_module_run_again_replaces_its_rule_and_another_function_is_still_refused():
    source = "import markovdp as md\n\n\ndef rule(subject):\n    return md.NotApplicable('USER-again', {!r})\n"
    first, again = ({"__name__": "reloaded"}, {"__name__": "reloaded"})
    exec(source.format("first"), first)  # the module, then the module reloaded (dask's upload_file does that)
    exec(source.format("again"), again)
    md.theorem("USER-again")(first["rule"])
    try:
        md.theorem("USER-again")(again["rule"])
        assert md.certify(md.RandomizedResponse(2, 1.0)).reasons()["USER-again"] == "again"
        with pytest.raises(ValueError, match="already registered"):
            md.theorem("USER-again")(_push_scale)
    finally:
        unregister("USER-again")
