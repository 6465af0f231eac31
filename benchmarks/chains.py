"""Lipschitz Gaussian chains (BBGG-T4) against numpy's normal rate, in one process: ``python -m benchmarks.chains``.

For a chain of r steps y = Π_W(ψ(x) + N(0, sigma² I)) on N points of R^d, the compiled sampler's rate is
steps·points·d per second. It is compared with numpy's ``standard_normal`` rate measured in the same process:
``gen.standard_normal(n)`` (a fresh array, how numpy users draw; n = the chain's draws) and
``gen.standard_normal(out=buf)`` into a warm buffer of 2^20 (the generator alone), and with the chain's own
generator filling that buffer (`markovdp._fast_normal.fill_normals`: the ceiling for a chain that uses every draw),
and with the sum of the chain's two costs measured apart: r applications of ψ alone (the same compiled loop without
noise or projection) plus the chain's normals drawn by `fill_normals` (x ψ+draw: near 1 when the chain adds nothing
to the map and the generator; a map dearer than a normal, such as tanh (an exponential and a division, 12-25 ns a
step in a dependent chain), caps the chain below numpy's rate whatever the loop does). Target (issue 6 §5): chain
rate >= 2.0x numpy's rate. ψ = 0.9 x (scaled: the Gaussian chain with a contraction), 0.9 Q x (linear: a dense
rotation, d² multiply-adds a step; the identity in d = 1) and 0.9 tanh(x), W a ball. The machine is small and shared
(2 cores), so the measurements are interleaved: each round times every case once (best of two calls), ratios are
formed within the round, and the median and range over rounds are reported. The first call of each (map, d) is the
compile time.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

from benchmarks.__main__ import SEED, best_of
from markovdp import _fast_normal as fast
from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel, _sample_segments
from markovdp.operators.maps import diagonal_map, linear_map, tanh_map
from markovdp.operators.projections import Ball

ROUNDS = 7
WARM = 2**20
POINTS = {10: 10**5, 100: 10**4}  # r -> N: 1e6·d draws per call


def rotation(d: int, rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return q


def summary(values: list[float]) -> str:
    v = np.asarray(values)
    return f"{np.median(v):>5.2f} [{v.min():.2f}, {v.max():.2f}]"


def bench_chains() -> None:
    rng = np.random.default_rng(SEED)
    gen = np.random.default_rng(SEED)
    state = fast.make_state(SEED)
    warm = np.empty(WARM)
    fast.fill_normals(state, warm)
    cases = []
    for d in (1, 2, 10):
        maps = {"scaled": diagonal_map([0.9] * d), "linear": linear_map(0.9, isometry=rotation(d, rng)),
                "tanh": tanh_map(0.9)}
        for name, (psi, L) in maps.items():
            kernel = LipschitzGaussianKernel(psi, L, 0.5, projection=Ball(d, 2.0))
            start = time.perf_counter()
            kernel.sample_steps(np.zeros((2, d)), 2, rng=0)  # compile
            compile_s = time.perf_counter() - start
            for r, n in POINTS.items():
                cases.append((name, d, r, n, kernel, rng.standard_normal((n, d)), compile_s))
    ratios: dict[tuple, dict[str, list[float]]] = {case[:4]: {} for case in cases}
    for _ in range(ROUNDS):
        for name, d, r, n, kernel, x, _ in cases:
            draws = n * r * d
            t_chain, _ = best_of(lambda: kernel.sample_steps(x, r, gen), 2)  # noqa: B023
            t_np, _ = best_of(lambda: gen.standard_normal(draws), 2)  # noqa: B023
            t_out, _ = best_of(lambda: gen.standard_normal(out=warm), 3)
            t_fast, _ = best_of(lambda: fast.fill_normals(state, warm), 3)
            t_map, _ = best_of(lambda: _sample_segments([(kernel, r)], x, None, noise=False), 2)  # noqa: B023
            chain = draws / t_chain
            row = ratios[(name, d, r, n)]
            for key, value in (("chain /s", chain), ("x numpy", chain * t_np / draws),
                               ("x out=", chain * t_out / WARM), ("x fill", chain * t_fast / WARM),
                               ("x psi+draw", (t_map + t_fast * draws / WARM) / t_chain)):
                row.setdefault(key, []).append(value)
    print("Lipschitz Gaussian chain of r steps on N points: steps*points*d per second vs numpy's normal rate")
    print(f"(median [min, max] over {ROUNDS} interleaved rounds)")
    header = (f"{'map':>6} {'d':>3} {'r':>4} {'N':>6} {'chain /s':>10} {'x numpy':>18} {'x out=':>18} "
              f"{'x fill':>18} {'x psi+draw':>18} {'compile s':>10}")
    print(header)
    print("-" * len(header))
    for name, d, r, n, _, _, compile_s in cases:
        row = ratios[(name, d, r, n)]
        print(f"{name:>6} {d:>3} {r:>4} {n:>6.0e} {np.median(row['chain /s']):>10.3e} {summary(row['x numpy']):>18} "
              f"{summary(row['x out=']):>18} {summary(row['x fill']):>18} {summary(row['x psi+draw']):>18} "
              f"{compile_s:>10.2f}")
    print("  (x numpy = chain rate / rate of gen.standard_normal(n); x out= = against standard_normal(out=buf);\n"
          "   x fill = against the chain's generator filling a buffer (fast.fill_normals): the fraction of the\n"
          "   ceiling reached; x psi+draw = against r applications of psi alone plus fill_normals of the chain's\n"
          "   draws; compile s = first call for a new map and d, compiled once per process)")


def main() -> None:
    print(f"markovdp chain benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print()
    start = time.perf_counter()
    bench_chains()
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
