"""Frequency estimation from reports against a plain numpy aggregation of the same reports, in one process:
``python -m benchmarks.frequency`` (issue 13 §6: goal >= 1.0x).

The oracle's whole ``estimate(reports)`` (checks, counts, the unbiased map) is timed against the aggregation
alone — the fastest of several plain numpy reductions of the reports, chosen per round: for report values
``np.bincount(y, minlength=k)`` (and ``np.count_nonzero`` for k = 2), for bitmaps ``reports.sum(axis=0)``,
``np.add.reduce(reports, axis=0, dtype=np.int64)`` and ``np.count_nonzero(reports, axis=0)``. Rounds are
interleaved (every implementation once per round, in turn), the ratio numpy time / markovdp time is taken per
round, and its median and range over the rounds are shown with the load average (the machine is shared).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import markovdp as md
from benchmarks.__main__ import SEED
from markovdp.mechanisms.local.subset import SubsetSelection
from markovdp.mechanisms.local.unary import UnaryEncoding

ROUNDS = 15


def interleaved(ours: Callable[[], Any], plain: dict[str, Callable[[], Any]], rounds: int = ROUNDS,
                ) -> tuple[np.ndarray, float, str]:
    """Per-round ratios (fastest plain time / our time), our median time and the plain variant fastest most often."""
    ours()
    for run in plain.values():
        run()
    ratios, times, winners = [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        ours()
        mine = time.perf_counter() - start
        best, name = np.inf, ""
        for label, run in plain.items():
            start = time.perf_counter()
            run()
            took = time.perf_counter() - start
            if took < best:
                best, name = took, label
        ratios.append(best / mine)
        times.append(mine)
        winners.append(name)
    return np.array(ratios), float(np.median(times)), max(set(winners), key=winners.count)


def row(label: str, n: int, ratios: np.ndarray, mine: float, winner: str) -> str:
    return (f"{label:>58} {n:>8.0e} {mine * 1e3:>9.2f} {np.median(ratios):>7.2f} "
            f"{ratios.min():>6.2f}-{ratios.max():<6.2f} {winner}")


def bench_values(rng: np.random.Generator) -> None:
    print("report values (k-RR = GRR, Hadamard response): estimate(y) vs np.bincount(y, minlength=k)")
    header = f"{'oracle':>58} {'n':>8} {'ours ms':>9} {'x numpy':>7} {'range':>13} fastest plain"
    print(header)
    print("-" * len(header))
    for oracle in (md.RandomizedResponse(2, 1.0), md.RandomizedResponse(16, 1.0), md.RandomizedResponse(1024, 1.0),
                   md.HadamardResponse(16, 1.0)):
        k = oracle.k
        width = getattr(oracle, "hadamard_order", k)
        n = 10**6
        y = oracle.sample(rng.integers(0, k, n), rng=rng)
        plain: dict[str, Callable[[], Any]] = {"bincount": lambda y=y, width=width: np.bincount(y, minlength=width)}
        if width == 2:
            plain["count_nonzero"] = lambda y=y: (lambda c: np.array([y.size - c, c]))(np.count_nonzero(y))
        ratios, mine, winner = interleaved(lambda oracle=oracle, y=y: oracle.estimate(y), plain)
        print(row(repr(oracle), n, ratios, mine, winner))


def bench_bitmaps(rng: np.random.Generator) -> None:
    print("bitmap reports (subset selection, unary encoding): estimate(R) vs the column sums of R (uint8)")
    header = f"{'oracle':>58} {'n':>8} {'ours ms':>9} {'x numpy':>7} {'range':>13} fastest plain"
    print(header)
    print("-" * len(header))
    for oracle, n in ((SubsetSelection(16, 1.0), 10**6), (SubsetSelection(1024, 1.0), 10**5),
                      (UnaryEncoding(16, 1.0), 10**6), (UnaryEncoding(1024, 1.0), 10**5)):
        reports = oracle.sample(rng.integers(0, oracle.k, n), rng=rng)
        plain = {"sum(axis=0)": lambda r=reports: r.sum(axis=0),
                 "add.reduce int64": lambda r=reports: np.add.reduce(r, axis=0, dtype=np.int64),
                 "count_nonzero": lambda r=reports: np.count_nonzero(r, axis=0)}
        ratios, mine, winner = interleaved(lambda oracle=oracle, r=reports: oracle.estimate(r), plain)
        print(row(repr(oracle), n, ratios, mine, winner))


def main() -> None:
    print(f"markovdp frequency estimation benchmark: {os.cpu_count()} cpus, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f} (start)")
    rng = np.random.default_rng(SEED)
    print()
    bench_values(rng)
    print()
    bench_bitmaps(rng)
    print(f"  (x numpy = fastest plain numpy time / markovdp time, median over {ROUNDS} interleaved rounds, range\n"
          f"   = min-max over the rounds; load average {os.getloadavg()[0]:.1f} (end))")


if __name__ == "__main__":
    main()
