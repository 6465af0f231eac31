"""Estimator cost ÷ cost of drawing its samples at n = 1e6, d = 1 and 2 (issue 6 §5), in one process.

"own": the estimator with L = log p − log q precomputed (a `log_ratio` callable returning the stored array), i.e.
everything the estimator itself does; the user's log-density callables are timed separately. Each time is the
minimum over interleaved repetitions (the machine is shared). Run: ``python -m benchmarks.estimators``.

The defaults (issue 13 §6, goal <= 0.3x): `estimate_hockey_stick` / `estimate_renyi` with no method and no bins
(64 equal-probability bins of the pooled selection halves) on 1e6 float samples per side, against drawing those
samples; per round the draw and both estimators in turn, the ratio taken per round, its median and range shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

import markovdp as md

N, REPS = 10**6, 15
#: Estimators that sample one side only (P), against the cost of drawing P alone.
ONE_SIDED = {"importance-bernstein", "renyi density-ratio"}
DENSITIES = "log p, log q at n points (user callables)"


def _timings(P: Any, Q: Any) -> dict[str, float]:
    rng = np.random.default_rng(0)
    xp, xq = P.sample(N, rng=rng), Q.sample(N, rng=rng)
    ratios = {id(xp): P.log_density(xp) - Q.log_density(xp), id(xq): P.log_density(xq) - Q.log_density(xq)}
    pre = {"log_ratio": lambda x: ratios[id(x)]}
    timed: dict[str, Callable[[], Any]] = {
        "draw P": lambda: P.sample(N, rng=rng),
        "draw Q": lambda: Q.sample(N, rng=rng),
        DENSITIES: lambda: (P.log_density(xp), Q.log_density(xp)),
        "event lr-fixed": lambda: md.estimate_hockey_stick_event(xp, xq, eps=0.3, **pre),
        "event lr-split (5 thresholds)": lambda: md.estimate_hockey_stick_event(
            xp, xq, eps=0.3, thresholds=[0, .15, .3, .45, .6], **pre),
        "event histogram-split (32 cells)": lambda: md.estimate_hockey_stick_event(xp, xq, eps=0.3),
        "importance-bernstein": lambda: md.estimate_hockey_stick_importance(xp, eps=0.3, **pre),
        "renyi density-ratio": lambda: md.estimate_renyi_density_ratio(xp, alpha=2.0, **pre),
        "renyi histogram (32 cells)": lambda: md.estimate_renyi_histogram(xp, xq, alpha=2.0),
    }
    best = dict.fromkeys(timed, np.inf)
    for _ in range(REPS):
        for name, run in timed.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def bench_defaults(rounds: int = 15) -> None:
    """The default binned estimators ÷ the draw of their samples (both sides), interleaved rounds."""
    import os

    P, Q = md.Normal(0.0, 1.0), md.Normal(1.0, 1.3)
    rng = np.random.default_rng(0)
    xp, xq = P.sample(N, rng=rng), Q.sample(N, rng=rng)
    md.estimate_hockey_stick(xp, xq, eps=0.3), md.estimate_renyi(xp, xq, alpha=2.0)  # warm-up: load the kernels
    ratios: dict[str, list[float]] = {"estimate_hockey_stick (split, 64 bins)": [],
                                      "estimate_renyi (histogram, 64 bins)": []}
    draws = []
    for _ in range(rounds):
        start = time.perf_counter()
        xp, xq = P.sample(N, rng=rng), Q.sample(N, rng=rng)
        draws.append(time.perf_counter() - start)
        for name, run in zip(ratios, (lambda: md.estimate_hockey_stick(xp, xq, eps=0.3),  # noqa: B023
                                      lambda: md.estimate_renyi(xp, xq, alpha=2.0)), strict=True):  # noqa: B023
            start = time.perf_counter()
            run()
            ratios[name].append((time.perf_counter() - start) / draws[-1])
    print(f"defaults, d = 1, n = {N:.0e} per side: draw P and Q {np.median(draws) * 1e3:.1f} ms (median), "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, values in ratios.items():
        r = np.array(values)
        print(f"  {name:40s} own/draw median {np.median(r):5.3f}  range {r.min():5.3f}-{r.max():5.3f}  "
              f"({np.median(r) * np.median(draws) * 1e3:.1f} ms)")


def main() -> None:
    bench_defaults()
    laws = {1: (md.Normal(0.0, 1.0), md.Normal(1.0, 1.3)), 2: (md.Normal([0.0, 0.0], 1.0), md.Normal([0.6, 0.3], 1.0))}
    for d, (P, Q) in laws.items():
        best = _timings(P, Q)
        both = best["draw P"] + best["draw Q"]
        print(f"d = {d}: draw P {best['draw P'] * 1e3:.1f} ms, draw Q {best['draw Q'] * 1e3:.1f} ms, "
              f"log p + log q on n points {best[DENSITIES] * 1e3:.1f} ms")
        for name in list(best)[3:]:
            draw = best["draw P"] if name in ONE_SIDED else both
            sides = 1 if name in ONE_SIDED else (2 if name.startswith("event lr") else 0)
            total = (best[name] + sides * best[DENSITIES]) / draw
            with_densities = f"   with Normal.log_density callables {total:5.2f}" if sides else ""
            print(f"  {name:34s} own {best[name] * 1e3:6.1f} ms  own/draw {best[name] / draw:5.2f}{with_densities}")


if __name__ == "__main__":
    main()
