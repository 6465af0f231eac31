"""Lipschitz Gaussian chains (BBGG-T4) against numpy's normal rate, in one process: ``python -m benchmarks.chains``.

For a chain of r steps y = Π_W(ψ(x) + N(0, sigma² I)) on N points of R^d, the compiled sampler's rate is
steps·points·d per second. It is compared with numpy's ``standard_normal`` rate measured in the same process:
``gen.standard_normal(n)`` (a fresh array, how numpy users draw; n = the chain's draws, capped at 2^24 so
the array stays in memory) and ``gen.standard_normal(out=buf)`` into a warm buffer of 2^20 (the generator
alone), and with the same stream drawn by numba (`fill_normals`, the ceiling for a chain that uses every draw).
Target (issue 6 §5): chain rate >= 2.0x numpy's rate. ψ = 0.9 Q x (a rotation, or the identity in d = 1) and
0.9 tanh(x), W a ball. Numba is warmed up first; each time is the best of several repeats. The machine is
small (2 cores, shared): absolute numbers move with load, ratios less so.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

from benchmarks.__main__ import SEED, best_of
from markovdp.operators._lipschitz_kernels import fill_normals
from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel
from markovdp.operators.maps import linear_map, tanh_map
from markovdp.operators.projections import Ball

NUMPY_CAP = 2**24
WARM = 2**20


def rotation(d: int, rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return q


def bench_chains() -> None:
    rng = np.random.default_rng(SEED)
    gen = np.random.default_rng(SEED)
    warm = np.empty(WARM)
    print("Lipschitz Gaussian chain of r steps on N points: steps*points*d per second vs numpy's normal rate")
    header = (f"{'map':>6} {'d':>3} {'r':>4} {'N':>7} {'chain /s':>10} {'numpy /s':>10} {'x numpy':>8} "
              f"{'out= /s':>10} {'x out=':>7} {'numba /s':>10} {'x numba':>8} {'compile s':>10}")
    print(header)
    print("-" * len(header))
    for d in (1, 2, 10):
        maps = {"linear": linear_map(0.9, isometry=rotation(d, rng)), "tanh": tanh_map(0.9)}
        for name, (psi, L) in maps.items():
            kernel = LipschitzGaussianKernel(psi, L, 0.5, projection=Ball(d, 2.0))
            start = time.perf_counter()
            kernel.sample_steps(np.zeros((2, d)), 2, rng=0)  # compile
            compile_s = time.perf_counter() - start
            for r in (10, 100):
                n = 10**5
                x = rng.standard_normal((n, d))
                draws = n * r * d
                size = min(draws, NUMPY_CAP)
                t_chain, _ = best_of(lambda: kernel.sample_steps(x, r, gen), 3)  # noqa: B023
                t_np, _ = best_of(lambda: gen.standard_normal(size), 3)  # noqa: B023
                t_out, _ = best_of(lambda: gen.standard_normal(out=warm), 5)
                t_nb, _ = best_of(lambda: fill_normals(gen, warm), 5)
                chain, numpy_rate = draws / t_chain, size / t_np
                out_rate, numba_rate = WARM / t_out, WARM / t_nb
                print(f"{name:>6} {d:>3} {r:>4} {n:>7.0e} {chain:>10.3e} {numpy_rate:>10.3e} "
                      f"{chain / numpy_rate:>8.2f} {out_rate:>10.3e} {chain / out_rate:>7.2f} {numba_rate:>10.3e} "
                      f"{chain / numba_rate:>8.2f} {compile_s:>10.2f}")
    print("  (x numpy = chain rate / rate of gen.standard_normal(n); x out= = against standard_normal(out=buf);\n"
          "   x numba = against numba drawing the same stream into a buffer: the fraction of the ceiling reached;\n"
          "   compile s = first call for a new map and d, compiled once per process)")


def main() -> None:
    print(f"markovdp chain benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print()
    bench_chains()


if __name__ == "__main__":
    main()
