"""The `markovdp` command: validate, list, report, certify, theorems."""

from __future__ import annotations

import argparse
import contextlib
import errno
import shlex
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

#: The documented default root seed of `markovdp validate` (NeurIPS 2019, where BBGG appeared).
DEFAULT_SEED = 20191208
#: Samples per grid point per neighbour side: `--quick` and full runs.
QUICK_SAMPLES = 20_000
FULL_SAMPLES = 200_000
DEFAULT_OUT = Path("data") / "validation"
#: Seconds `validate` waits for the dask scheduler at ``--scheduler ADDRESS`` (as `open_executor`).
CONNECT_TIMEOUT = 10.0


#: Exit codes of a run stopped by Ctrl-C (SIGINT) and by SIGTERM: 128 + the signal number.
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
#: Exit code of a run stopped from outside (scheduler or worker lost, disk full): its batches are saved,
#: `--resume` continues it (sysexits' EX_TEMPFAIL, "try again later").
EXIT_STOPPED = 75


class UsageError(Exception):
    """A bad command line: printed without a traceback, exit code 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that the run shuts its workers down."""


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[Callable[[], None]]:
    """SIGINT and SIGTERM raise in the main thread; after the first, both are ignored while cleaning up
    (closing the cluster or pool), so a second Ctrl-C cannot leave workers behind or print a traceback.

    Yields ``check()``, which raises the interrupt again if it was received but its exception got lost (a
    handler that fires inside a ``__del__`` or a weakref callback only prints "Exception ignored"): the
    progress callbacks call it, so such an interrupt still stops the run after the chunk in hand."""
    received: list[type[KeyboardInterrupt]] = []

    def check() -> None:
        if received:
            raise received[0]

    if threading.current_thread() is not threading.main_thread():
        yield check
        return

    def stop(signum: int, frame: object) -> None:
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        received.append(Terminated if signum == signal.SIGTERM else KeyboardInterrupt)
        raise received[0]

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield check
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="markovdp", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    val = sub.add_parser("validate", help="check every registered theorem over its grid (the main job)",
                         epilog=f"exit codes: 0 all sound, 1 a violation, 2 a bad command line or a refused run, "
                                f"{EXIT_STOPPED} stopped from outside (scheduler or worker lost, disk full: the "
                                f"saved batches are kept, --resume continues), {EXIT_INTERRUPTED} Ctrl-C, "
                                f"{EXIT_TERMINATED} SIGTERM.")
    val.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="scenario names (default: all)")
    val.add_argument("--quick", action="store_true", help="small grids and samples (< 2 minutes)")
    val.add_argument("--samples", type=int, default=None,
                     help=f"samples per grid point per side (default {QUICK_SAMPLES} quick, {FULL_SAMPLES} full)")
    val.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    val.add_argument("--scheduler", default=None,
                     help="synchronous | threads | processes | a dask scheduler ADDRESS "
                          "(default: a local dask.distributed cluster, one worker per core)")
    val.add_argument("--connect-timeout", type=float, default=CONNECT_TIMEOUT, metavar="SECONDS",
                     help=f"seconds to wait for the scheduler at a given ADDRESS (default {CONNECT_TIMEOUT:g})")
    val.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT}/)")
    val.add_argument("--resume", action="store_true", help="continue an interrupted run from its checkpoints")
    val.add_argument("--fresh", action="store_true", help="delete the checkpoints of an earlier run and start over")
    val.add_argument("--break-lock", action="store_true",
                     help="remove a stale lock on --out (left by a run that was killed or crashed: its process is "
                          "gone) instead of refusing to start. A run holds the lock OUT/.markovdp.lock (its PID and "
                          "host) so that no second run reuses or deletes its live checkpoints; a lock whose process "
                          "still runs on this host is never broken. Checkpoints are kept")

    sub.add_parser("list", help="list the registered scenarios (built-in and of installed packages)")

    thm = sub.add_parser("theorems", help="list the registered theorem rules, or describe one")
    thm.add_argument("theorem_id", nargs="?", metavar="ID", help="a THEORY ID, e.g. BBGG-T1.2")

    rep = sub.add_parser("report", help="print the table of a result file")
    rep.add_argument("file", type=Path, metavar="FILE.nc")

    cert = sub.add_parser("certify", help="coefficients, LDP profile and amplification of a stochastic matrix")
    cert.add_argument("matrix", type=Path, metavar="MATRIX.npy|.csv")
    cert.add_argument("--eps", type=float, default=None, help="eps of an (eps, delta)-DP mechanism to amplify")
    cert.add_argument("--delta", type=float, default=None, help="its delta (default 0)")
    cert.add_argument("--normalize", action="store_true", help="divide each row by its sum first (opt-in)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from rich.console import Console

    console = Console(width=None if sys.stdout.isatty() else 140)
    try:
        if args.command == "validate":
            return _validate(args, console, argv)
        if args.command == "list":
            return _list(console)
        if args.command == "report":
            return _report(args, console)
        if args.command == "theorems":
            return _theorems(args)
        return _certify(args, console)
    except (UsageError, ValueError, TypeError, FileNotFoundError) as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        return 2
    except OSError as exc:  # SchedulerUnreachable (a ConnectionError), unwritable output, unreadable files
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        return 2
    except KeyboardInterrupt:  # outside a sweep (validate reports its saved batches itself): one line
        console.print("interrupted", highlight=False)
        return EXIT_INTERRUPTED


def _list(console) -> int:
    from rich.table import Table

    from .validation import all_scenarios

    table = Table("scenario", "THEORY", "grid (quick / full points)", "description")
    for s in all_scenarios().values():
        sizes = [int(np.prod([len(v) for v in s.grid(q).values()])) for q in (True, False)]
        table.add_row(s.name, s.theory_id, f"{' × '.join(s.grid(False))}: {sizes[0]} / {sizes[1]}",
                      str(getattr(s, "description", "")))
    console.print(table)
    return 0


def _theorems(args) -> int:
    from .guarantees import describe, theorems

    text = theorems() if args.theorem_id is None else describe(args.theorem_id)
    sys.stdout.write(text + "\n")
    return 0


def _validate(args, console, argv) -> int:
    from .sweeps import checkpoint_store, plan_sweep
    from .sweeps.lock import OutLocked, out_lock
    from .validation import all_scenarios, get_scenario

    names = list(dict.fromkeys(args.scenarios)) or list(all_scenarios())  # each once, in the order given
    scenarios = [get_scenario(n) for n in names]
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"`--out` must be a folder; got the file {str(args.out)!r}.")
    if args.resume and args.fresh:
        raise UsageError("`--resume` and `--fresh` exclude each other: continue the earlier run or start over.")
    samples = args.samples if args.samples is not None else (QUICK_SAMPLES if args.quick else FULL_SAMPLES)
    if samples < 1:
        raise UsageError(f"`--samples` must be an integer >= 1; got {samples}.")
    if args.seed < 0:
        raise UsageError(f"`--seed` must be a non-negative integer; got {args.seed}.")
    if not args.connect_timeout > 0:
        raise UsageError(f"`--connect-timeout` must be a number of seconds > 0; got {args.connect_timeout}.")
    plans = [plan_sweep(s, samples=samples, seed=args.seed, quick=args.quick) for s in scenarios]
    stores = [checkpoint_store(args.out, p, args.quick) for p in plans]
    words = list(sys.argv[1:] if argv is None else argv)
    command = "markovdp " + " ".join(shlex.quote(a) for a in words)
    status = _Status(args.out, plans, _resume_command(words))
    with _notices(console, status, dask=args.scheduler not in ("synchronous", "threads", "processes")):
        try:
            with out_lock(args.out, break_lock=args.break_lock, command=command):
                return _validate_locked(args, console, argv, scenarios, plans, stores, samples, status)
        except OutLocked as exc:  # raised only when taking the lock: nothing ran
            raise UsageError(str(exc)) from exc


def _validate_locked(args, console, argv, scenarios, plans, stores, samples, status) -> int:
    """`validate` once the lock on --out is held: refuse or clear earlier checkpoints, run, report a stop."""
    from .sweeps.executors import SchedulerLost, SchedulerUnreachable, WorkerLost
    from .sweeps.extensions import MissingExtension

    earlier = [(p.name, store.saved()) for p, store in zip(plans, stores, strict=True) if store.exists()]
    if earlier and not (args.resume or args.fresh):
        listed = ", ".join(f"{name}: {n} saved batches" for name, n in earlier)
        raise UsageError(f"{args.out / '.checkpoints'} holds checkpoints of an earlier run ({listed}); rerun with "
                         f"--resume to continue it, or with --fresh to delete them and start over.")
    if args.fresh:
        for store in stores:
            store.clear()
    try:
        with _signals_interrupt() as interrupted:
            code = _run_scenarios(args, console, argv, scenarios, plans, samples, interrupted)
            for store in stores:  # only now: a resumed run reuses the scenarios that had finished
                store.clear()
            return code
    except KeyboardInterrupt as exc:
        saved, total = status.counts()
        word, code = ("terminated", EXIT_TERMINATED) if isinstance(exc, Terminated) else \
            ("interrupted", EXIT_INTERRUPTED)
        console.print(f"{word}; {saved} of {total} batches saved; rerun with --resume", highlight=False,
                      soft_wrap=True)
        return code
    except SchedulerUnreachable:
        raise  # before any batch ran: a usage error (exit 2)
    except MissingExtension as exc:  # the workers lack a rule, a registration or a module this process has: refused
        console.print(f"error: {exc}", highlight=False, soft_wrap=True, markup=False)
        return 2
    except SchedulerLost as exc:
        return status.stopped(console, str(exc), "when the scheduler is back (or with another --scheduler), ")
    except WorkerLost as exc:
        return status.stopped(console, str(exc), "")
    except OSError as exc:  # a full disk, an unwritable file: what, which file, and how to go on
        where = f" writing {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return status.stopped(console, f"disk full: no space left on device{where}", "free some space, then ")
        return status.stopped(console, f"{exc.strerror or exc}{where}" if where else f"{type(exc).__name__}: {exc}",
                              "fix that, then ")


class _Status:
    """What a stopped run reports: batches saved of the total, and the command that resumes it."""

    def __init__(self, out: Path, plans, resume: str) -> None:
        self.out, self.plans, self.resume = out, plans, resume

    def counts(self) -> tuple[int, int]:
        from .sweeps import saved_batches

        return (sum(saved_batches(self.out, p.name) for p in self.plans),
                sum(p.n_batches_total for p in self.plans))

    def stopped(self, console, what: str, advice: str) -> int:
        saved, total = self.counts()
        console.print(f"{what}; {saved} of {total} batches saved; {advice}resume with: {self.resume}",
                      highlight=False, soft_wrap=True, markup=False)
        return EXIT_STOPPED


def _resume_command(words: list[str]) -> str:
    """The command line `words` without --fresh / --break-lock (or their abbreviations) and with --resume."""
    def dropped(word: str) -> bool:
        return len(word) > 2 and word.startswith("--") and any(o.startswith(word) for o in ("--fresh", "--break-lock"))

    kept = [w for w in words if not dropped(w)]
    if not any(len(w) > 3 and "--resume".startswith(w) for w in kept):
        kept.append("--resume")
    return "markovdp " + " ".join(shlex.quote(w) for w in kept)


@contextlib.contextmanager
def _notices(console, status: _Status, *, dask: bool) -> Iterator[None]:
    """During `validate`, a warning of the sweep machinery (a worker lost, a checkpoint recovered, a lock
    broken) is one line on the console; with `dask`, its own log lines are silenced (what they report, we say)."""
    import logging

    if dask:
        import distributed  # noqa: F401  (it configures its loggers on import: silence them after that)

    class Line(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage()
            if getattr(record, "batches_saved", False):
                saved, total = status.counts()
                text += f"; {saved} of {total} batches saved so far; if the run stops, resume with: {status.resume}"
            console.print(f"warning: {text}", highlight=False, soft_wrap=True, markup=False)

    ours = logging.getLogger("markovdp.sweeps")
    quiet = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
             if dask and name.split(".")[0] == "distributed"]  # some set their own level and handler
    handler = Line(logging.WARNING)
    before = ours.propagate, [log.level for log in quiet]
    ours.addHandler(handler)
    ours.propagate = False
    for log in quiet:
        log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        ours.removeHandler(handler)
        ours.propagate = before[0]
        for log, level in zip(quiet, before[1], strict=True):
            log.setLevel(level)


def _run_scenarios(args, console, argv, scenarios, plans, samples, interrupted) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .report import summary, write_report
    from .sweeps import open_executor, run_sweep

    command = "markovdp " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    m_total = sum(len(p.points) for p in plans)
    datasets = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("tasks"),
               TimeElapsedColumn())
    # transient: the bars vanish when the run ends or is interrupted, leaving the summary (or one line).
    with open_executor(args.scheduler, timeout=args.connect_timeout) as executor, Progress(*columns, console=console,
                                                               transient=True) as progress:
        console.print(f"Scheduler: {_scheduler_text(args.scheduler, executor)}", highlight=False, soft_wrap=True)
        for scenario, plan in zip(scenarios, plans, strict=True):
            advance = _advance(progress, scenario, plan, resume=args.resume, interrupted=interrupted)
            start = time.perf_counter()
            datasets.append(run_sweep(scenario, samples=samples, seed=args.seed, quick=args.quick,
                                      executor=executor, out=args.out, resume=args.resume, fresh=args.fresh,
                                      keep_checkpoints=True, n_points_total=m_total, progress=advance,
                                      command=command))
            if not console.is_terminal:  # no progress bars: one line per finished scenario instead
                counts = summary(datasets[-1])
                console.print(f"{plan.name}: done in {time.perf_counter() - start:.1f} s; {len(plan.points)} grid "
                              f"points: {counts['ok']} ok, {counts['violation']} violations, "
                              f"{counts['not_applicable']} not applicable", highlight=False, soft_wrap=True)
    report = write_report(datasets, args.out, command)
    violations = _print_summary(datasets, console)
    console.print(f"Wrote {len(datasets)} datasets, plots and {report}.")
    return 1 if violations else 0


def _scheduler_text(scheduler: str | None, executor) -> str:
    """Where the tasks run, for the line `validate` prints first."""
    from .sweeps import worker_count

    n = worker_count(executor)
    if scheduler is None:
        return f"a local dask.distributed cluster, {n} single-threaded workers (one per core)"
    if scheduler == "synchronous":
        return "synchronous: every task in this process, one at a time"
    if scheduler in ("threads", "processes"):
        return f"a local pool of {n} {scheduler}"
    return f"the dask scheduler at {scheduler}, {n} worker threads"


def _advance(progress, scenario, plan, *, resume: bool, interrupted: Callable[[], None] | None = None):
    """The progress callback of one scenario, whose bar counts tasks: one evaluation per grid point and one
    per (point, batch of samples); on `resume`, its first call says how many batches were reused.
    `interrupted()` raises an interrupt that was received but lost (see `_signals_interrupt`)."""
    draws = "empty: no Monte Carlo, no samples" if getattr(scenario, "estimator", None) == "none" else \
        f"≤ {plan.batch_size} samples per side each"
    task = progress.add_task(f"{plan.name}: {len(plan.points)} grid points + {plan.n_batches_total} batches "
                             f"({draws})", total=None)
    first = True

    def advance(done: int, total: int) -> None:
        nonlocal first
        if first and resume:  # run_sweep's first call reports the batches found in the checkpoints
            progress.console.print(f"{plan.name}: resumed, {done} of {plan.n_batches_total} batches reused from "
                                   f"checkpoints", highlight=False)
        first = False
        progress.update(task, completed=done, total=total)
        if interrupted is not None:
            interrupted()  # an interrupt whose exception was lost stops the run here

    return advance


def _print_summary(datasets, console) -> int:
    from rich.table import Table

    from .report import quantity, rows, summary, value_cells, value_columns

    total_bad = 0
    overview = Table("scenario", "THEORY", "grid points", "ok", "violations", "not applicable",
                     title="Summary (grid points by verdict)")
    for ds in datasets:
        table_rows = rows(ds)
        bad = [r for r in table_rows if r["verdict"] == "violation"]
        tight = sorted((r for r in table_rows if r["verdict"] == "ok" and r["bound"] > 0),
                       key=lambda r: -(r["exact"] / r["bound"]))[:4]
        table = Table(*value_columns(ds), "verdict",
                      title=f"{ds.attrs['scenario']}: {quantity(ds)}; violations and the tightest points")
        for r in bad + tight:
            style = "bold red" if r["verdict"] == "violation" else None
            table.add_row(*value_cells(ds, r), r["verdict"], style=style)
        console.print(table)
        counts = summary(ds)
        total_bad += counts["violation"]
        overview.add_row(ds.attrs["scenario"], ds.attrs["theory_id"], str(len(table_rows)), str(counts["ok"]),
                         str(counts["violation"]), str(counts["not_applicable"]),
                         style="bold red" if counts["violation"] else None)
    console.print(overview)
    return total_bad


def _report(args, console) -> int:
    import xarray as xr

    if not args.file.exists():
        raise FileNotFoundError(f"`FILE` must be an existing result file; got {str(args.file)!r}.")
    try:
        with xr.open_dataset(args.file, engine="h5netcdf") as ds:
            ds = ds.load()
    except (OSError, ValueError) as exc:
        raise UsageError(f"`FILE` must be a netCDF file written by `markovdp validate`; got {str(args.file)!r} "
                         f"({exc}).") from exc
    missing = {"scenario", "theory_id", "confidence"} - set(ds.attrs)
    missing |= {"bound", "bound_theorem", "exact", "estimate", "ci_low", "ci_high", "verdict"} - set(ds)
    if missing:
        raise UsageError(f"`FILE` must be a result of `markovdp validate`; {str(args.file)!r} lacks "
                         f"{', '.join(sorted(missing))}.")
    from rich.markup import escape
    from rich.table import Table

    from .report import quantity, rows, value_cells, value_columns

    # The file's text is data: rich markup in it ("[link=…]", "[red]") is shown, not applied.
    table = Table(*map(escape, value_columns(ds)), "verdict",
                  title=escape(f"{ds.attrs['scenario']} ({ds.attrs['theory_id']}): {quantity(ds)}"))
    bad = 0
    for r in rows(ds):
        bad += r["verdict"] == "violation"
        table.add_row(*map(escape, value_cells(ds, r)), r["verdict"],
                      style="bold red" if r["verdict"] == "violation" else None)
    console.print(table)
    return 1 if bad else 0


def load_matrix(path: Path, normalize: bool) -> np.ndarray:
    """A stochastic matrix from .npy or .csv; rows divided by their sums only when `normalize`."""
    if not path.exists():
        raise FileNotFoundError(f"`MATRIX` must be an existing .npy or .csv file; got {str(path)!r}.")
    if path.suffix not in (".npy", ".csv"):
        raise UsageError(f"`MATRIX` must be a .npy or .csv file; got {str(path)!r}.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty .csv is reported below as an empty matrix
            if path.suffix == ".npy":
                matrix = np.load(path, allow_pickle=False)
            else:
                matrix = np.loadtxt(path, delimiter=",", ndmin=2)
    except (OSError, ValueError) as exc:
        raise UsageError(f"`MATRIX` must be a numeric matrix in {path.suffix} format; got {str(path)!r} "
                         f"({exc}).") from exc
    try:
        matrix = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"`MATRIX` must hold numbers; got {str(path)!r} ({exc}).") from exc
    if normalize:
        from ._validation import check_range

        check_range("matrix", matrix, low=0.0, allowed="non-negative and finite")
        sums = matrix.sum(axis=1, keepdims=True) if matrix.ndim == 2 else None
        if sums is None or (sums <= 0).any():
            raise UsageError("`matrix` must be 2-D with positive row sums to be normalised.")
        matrix = matrix / sums
    return matrix


def _certify(args, console) -> int:
    from rich.table import Table

    from ._validation import check_eps, check_probability
    from .guarantees import certify, dobrushin, doeblin, ldp_epsilon, ultra_mixing
    from .guarantees.types import tightness
    from .mechanisms import DeclaredDP
    from .operators import FiniteKernel

    if args.delta is not None and args.eps is None:
        raise UsageError("`--delta` needs `--eps` (the mechanism's (eps, delta) guarantee).")
    if args.eps is not None:
        check_eps("--eps", args.eps)
    delta = float(check_probability("--delta", 0.0 if args.delta is None else args.delta))
    kernel = FiniteKernel(load_matrix(args.matrix, args.normalize))
    k, m = kernel.matrix.shape
    coeffs = Table("coefficient (BBGG-D1, AAC-eta)", "value", title=f"{args.matrix.name}: {k}×{m} kernel")
    coeffs.add_row("Dobrushin (TV)", _num(dobrushin(kernel)))
    coeffs.add_row("Doeblin", _num(doeblin(kernel)))
    coeffs.add_row("ultra-mixing", _num(ultra_mixing(kernel)))
    coeffs.add_row("D_inf coefficient", _num(dobrushin(kernel, np.inf)))
    if args.eps is not None:
        coeffs.add_row(f"(gamma, eps={args.eps:g})-Dobrushin", _num(dobrushin(kernel, args.eps)))
    console.print(coeffs)

    ldp = Table("delta", "smallest eps with K (eps, delta)-LDP (AAC-T1)", title="LDP profile")
    for level in (0.0, 1e-6, 1e-3, 1e-2, 0.1):
        ldp.add_row(f"{level:g}", _num(ldp_epsilon(kernel, level)))
    console.print(ldp)

    if args.eps is not None:
        cert = certify(DeclaredDP(args.eps, delta) >> kernel)
        exact = cert.exact  # STD-Exact: the worst case of the black-box class through K (STD-BlackBoxExact)
        columns = ["theorem", f"delta at eps = {args.eps:g} nats", f"eps (nats) at delta = {delta:g}"]
        caption = f"the mechanism: eps = {args.eps:g} nats, delta = {delta:g}"
        if exact is not None:
            columns += ["tightness of delta", "tightness of eps"]
            caption += "; tightness = exact (EXACT) / bound, 1 = attained"
        amp = Table(*columns, title="Amplification by K of an (eps, delta)-DP mechanism (BBGG-T1)", caption=caption)
        for bound in cert.bounds:
            value, reach = float(bound.delta(args.eps)), bound.epsilon(delta)
            cells = [bound.theorem, _num(value), _num(reach)]
            if exact is not None:
                cells += [_num(tightness(float(exact.delta(args.eps)), value)),
                          _num(tightness(exact.epsilon(delta), reach))]
            amp.add_row(*cells)
        best = cert.best(eps=args.eps)
        console.print(amp)
        if cert.reasons():
            console.print(f"not applicable: {', '.join(cert.reasons())} — see `certify(DeclaredDP({args.eps:g}, "
                          f"{delta:g}) >> FiniteKernel(K)).reasons()`", highlight=False, soft_wrap=True)
        console.print(f"Best at eps={args.eps:g}: delta = {_num(cert.delta(args.eps))} "
                      f"({best.theorem if best else 'none'}).")
    return 0


def _num(value: float) -> str:
    value = float(value)
    return "inf" if np.isinf(value) else f"{value:.6g}"


if __name__ == "__main__":  # the processes scheduler re-imports this module in workers
    sys.exit(main())
