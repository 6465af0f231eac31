"""Unary encoding and subset selection against numpy's uniform rate, in one process:
``python -m benchmarks.oracles_unary_subset``.

Rates are reports (users) per second at eps = 1; the yardstick is ``gen.random(10**6)`` measured in the same
process (numpy's uniform rate, u/s). Targets (issue 8 §6):

- `UnaryEncoding.sample` (per-user reports, k bits each): reports/s >= 0.5 x (u/s / k), k = 16 and 1024;
- `UnaryEncoding.sample_counts` (counts-only: the server's k column counts as binomials): reports/s >= 1 x u/s;
- `SubsetSelection.sample` (d-subset bitmaps) at k = 1024: >= 10 x multi-freq-ldpy's `SS_Client` (one Python
  call per user, returning the subset's labels),
  timed here when the package imports (``pip install multi-freq-ldpy``; not a markovdp dependency), else its
  quoted 1e4-4e5 reports/s;
- exact certification (`ldp_epsilon`) of a 1024-output channel under 1 s.

Numba is warmed up first; each time is the best of several repeats. The machine is small (2 cores, shared):
absolute numbers move with load, ratios less so.
"""

from __future__ import annotations

import os

import numba
import numpy as np

from benchmarks.__main__ import SEED, best_of
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.mechanisms.local.subset import SubsetSelection
from markovdp.mechanisms.local.unary import UnaryEncoding

UNIFORM_N = 10**6
EPS = 1.0


def uniform_rate(gen: np.random.Generator) -> float:
    """numpy's uniform rate (draws/s): ``gen.random(10**6)``, best of 7."""
    t, _ = best_of(lambda: gen.random(UNIFORM_N), 7)
    return UNIFORM_N / t


def bench_unary(gen: np.random.Generator) -> None:
    print(f"UnaryEncoding(k, eps={EPS:g}): per-user reports and counts-only mode vs numpy's uniform rate u/s")
    header = (f"{'k':>5} {'mode':>8} {'n':>8} {'reports/s':>11} {'u/s':>11} {'x (u/s / k)':>12} {'x u/s':>7} "
              f"{'target':>12}")
    print(header)
    print("-" * len(header))
    for k in (16, 1024):
        for optimized in (True, False):
            oracle = UnaryEncoding(k, EPS, optimized=optimized)
            oracle.sample(np.zeros(4, dtype=np.int64), rng=gen)  # compile (or load from cache)
            n = 10**6 if k <= 16 else 2 * 10**4
            x = gen.integers(0, k, size=n)
            t, _ = best_of(lambda: oracle.sample(x, rng=gen), 5)  # noqa: B023
            u = uniform_rate(gen)
            rate = n / t
            mode = "OUE" if optimized else "RAPPOR"
            print(f"{k:>5} {mode:>8} {n:>8.0e} {rate:>11.3e} {u:>11.3e} {rate / (u / k):>12.2f} {rate / u:>7.3f} "
                  f"{'>= 0.5 (u/s/k)':>12}")
        oracle = UnaryEncoding(k, EPS)
        n = 10**6
        x = gen.integers(0, k, size=n)
        t, _ = best_of(lambda: oracle.sample_counts(x, rng=gen), 7)  # noqa: B023
        u = uniform_rate(gen)
        rate = n / t
        print(f"{k:>5} {'counts':>8} {n:>8.0e} {rate:>11.3e} {u:>11.3e} {rate / (u / k):>12.1f} {rate / u:>7.2f} "
              f"{'>= 1 u/s':>12}")
    print("  (x (u/s / k) = reports/s over numpy's uniform rate per k draws; x u/s = reports/s over u/s;\n"
          "   counts = sample_counts: one counting pass over the inputs, then 2k binomials)")


def _peer_subset_rate(k: int, x: np.ndarray) -> float | None:
    """multi-freq-ldpy's SS_Client (numba, one Python call per user) in reports/s, or None if not installed."""
    try:
        from multi_freq_ldpy.pure_frequency_oracles.SS import SS_Client
    except ImportError:
        return None
    SS_Client(0, k, EPS)  # compile
    values = [int(v) for v in x]
    t, _ = best_of(lambda: [SS_Client(v, k, EPS) for v in values], 2)
    return len(values) / t


def bench_subset(gen: np.random.Generator) -> None:
    print(f"SubsetSelection(k, eps={EPS:g}): per-user d-subsets (bitmaps) vs multi-freq-ldpy's SS_Client")
    header = f"{'k':>5} {'d':>4} {'n':>8} {'reports/s':>11} {'peer /s':>10} {'x peer':>7} {'u/s':>11} {'x (u/s/d)':>10}"
    print(header)
    print("-" * len(header))
    for k in (16, 1024):
        oracle = SubsetSelection(k, EPS)
        oracle.sample(np.zeros(4, dtype=np.int64), rng=gen)  # compile (or load from cache)
        n = 10**6 if k <= 16 else 10**5
        x = gen.integers(0, k, size=n)
        t, _ = best_of(lambda: oracle.sample(x, rng=gen), 5)  # noqa: B023
        rate = n / t
        peer = _peer_subset_rate(k, x[:20_000])
        u = uniform_rate(gen)
        peer_text = ("-", "-") if peer is None else (f"{peer:.3e}", f"{rate / peer:.1f}")
        print(f"{k:>5} {oracle.d:>4} {n:>8.0e} {rate:>11.3e} {peer_text[0]:>10} {peer_text[1]:>7} {u:>11.3e} "
              f"{rate / (u / oracle.d):>10.2f}")
    print("  (peer: multi-freq-ldpy 0.2.5 SS_Client, d = rint(k/(e^eps+1)) there, ceil here; '-' = not installed,\n"
          "   quoted rate 1e4-4e5 reports/s; target x peer >= 10 at k = 1024; x (u/s/d) = reports/s over u/s per d)")


def bench_certification() -> None:
    print("exact certification ldp_epsilon(oracle.channel) (AAC-T1), delta = 0 and 1e-3")
    header = f"{'oracle':>44} {'outputs':>10} {'delta=0 ms':>11} {'delta=1e-3 ms':>14} {'eps':>8}"
    print(header)
    print("-" * len(header))
    for oracle in (UnaryEncoding(10, EPS), SubsetSelection(1024, 10.0), UnaryEncoding(1024, EPS),
                   SubsetSelection(1024, EPS)):
        channel = oracle.channel
        ldp_epsilon(channel, 1e-3)  # compile
        t0, eps = best_of(lambda: ldp_epsilon(channel), 5)  # noqa: B023
        t1, _ = best_of(lambda: ldp_epsilon(channel, 1e-3), 5)  # noqa: B023
        outputs = channel.matrix.shape[1] if hasattr(channel, "matrix") else channel.num_outputs
        shown = f"{outputs}" if outputs < 10**9 else f"~10^{len(str(outputs)) - 1}"
        print(f"{oracle!r:>44} {shown:>10} {t0 * 1e3:>11.2f} {t1 * 1e3:>14.2f} {eps:>8.4f}")
    print("  (full matrix up to 1024 outputs for UE and 10^4 for SS, else the implicit channel's lumped 2 x 4 kernel)")


def main() -> None:
    print(f"markovdp frequency-oracle benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, "
          f"numpy {np.__version__}, load average {os.getloadavg()[0]:.1f}")
    gen = np.random.default_rng(SEED)
    print()
    bench_unary(gen)
    print()
    bench_subset(gen)
    print()
    bench_certification()


if __name__ == "__main__":
    main()
