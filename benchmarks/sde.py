"""SDE integrators against numpy's normal rate, in one process: ``python -m benchmarks.sde``.

`simulate` with EulerMaruyama and Milstein on Ornstein–Uhlenbeck (dX = −θX dt + √2 ρ dW, BBGG-OU) and Brownian
(dX = √2 dW, BBGG-BM) ensembles of N paths in R^d, 1000 steps: the rate is steps·paths·d per second. It is compared
with numpy's ``standard_normal`` rate measured in the same process (``gen.standard_normal(n)``, a fresh array of
the run's draws capped at 2^24, how numpy users draw), with the same stream drawn by numba into a warm buffer
(`fill_normals`: the ceiling of an integrator that uses every draw), and with two peers: a numpy vectorised EM
(all paths advanced per step, one ``standard_normal((N, d))`` per step) and sdeint (``itoEuler`` / ``itoSRI2``, one
path per call). Targets (issue 7 §5): >= 2.0x numpy's rate; a single path of 1000 steps <= 60 µs; cold compile
<= 2 s. Numba is warmed up first; each time is the best of several repeats. The machine is small (2 cores,
shared): absolute numbers move with load, ratios less so.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numba
import numpy as np
from numba import njit

from benchmarks.__main__ import SEED, best_of
from markovdp.diffusions._kernels import fill_normals
from markovdp.diffusions.sde import SDE
from markovdp.diffusions.simulate import simulate
from markovdp.diffusions.solvers import EulerMaruyama, Milstein

NUMPY_CAP = 2**24
WARM = 2**20
STEPS = 1000
T1 = 1.0
THETA, RHO = 1.0, 0.5


@njit(cache=True)
def ou_drift(x: np.ndarray, out: np.ndarray) -> None:
    for k in range(x.size):
        out[k] = -THETA * x[k]


@njit(cache=True)
def ou_diffusion(x: np.ndarray, out: np.ndarray) -> None:
    for k in range(x.size):
        out[k] = math.sqrt(2.0) * RHO


@njit(cache=True)
def zero_drift(x: np.ndarray, out: np.ndarray) -> None:
    for k in range(x.size):
        out[k] = 0.0


@njit(cache=True)
def brownian_diffusion(x: np.ndarray, out: np.ndarray) -> None:
    for k in range(x.size):
        out[k] = math.sqrt(2.0)


PROBLEMS = {"OU": (ou_drift, ou_diffusion, lambda x: -THETA * x, math.sqrt(2.0) * RHO),
            "BM": (zero_drift, brownian_diffusion, lambda x: 0.0 * x, math.sqrt(2.0))}


def numpy_em(drift, sigma: float, x0: np.ndarray, gen: np.random.Generator) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The numpy peer: every path advanced per step, x += u(x) h + sigma sqrt(h) Z with Z ~ N(0, I) fresh."""
    h = T1 / STEPS
    x = x0.copy()
    for _ in range(STEPS):
        x += drift(x) * h + sigma * math.sqrt(h) * gen.standard_normal(x.shape)
    return x


def sdeint_rate(sde: SDE, solver: EulerMaruyama | Milstein, d: int, gen: np.random.Generator) -> float:
    paths = 10
    t, _ = best_of(lambda: simulate(sde, solver, np.zeros(d), n_paths=paths, t1=T1, dt=T1 / STEPS, rng=gen,
                                    backend="sdeint"), 1)
    return STEPS * paths * d / t


def bench_ensembles() -> None:
    gen = np.random.default_rng(SEED)
    warm = np.empty(WARM)
    fill_normals(gen, warm)
    print(f"simulate: N paths in R^d, {STEPS} steps: steps*paths*d per second vs numpy's normal rate")
    header = (f"{'SDE':>3} {'solver':>14} {'d':>3} {'N':>6} {'simulate /s':>12} {'numpy /s':>10} {'x numpy':>8} "
              f"{'x numba':>8} {'np EM /s':>10} {'x np EM':>8} {'sdeint /s':>10} {'x sdeint':>9}")
    print(header)
    print("-" * len(header))
    for name, (drift, diffusion, np_drift, sigma) in PROBLEMS.items():
        for d in (1, 10):
            sde = SDE(drift, diffusion, d)
            for solver in (EulerMaruyama(), Milstein()):
                simulate(sde, solver, np.zeros(d), n_paths=2, t1=T1, dt=T1 / STEPS, rng=0)  # compile
                rate_sdeint = sdeint_rate(sde, solver, d, gen)
                for n in (1000, 10000):
                    draws = STEPS * n * d
                    size = min(draws, NUMPY_CAP)
                    x0 = np.zeros((n, d))
                    t_sim, _ = best_of(lambda: simulate(sde, solver, x0, t1=T1, dt=T1 / STEPS, rng=gen), 3)  # noqa: B023
                    t_np, _ = best_of(lambda: gen.standard_normal(size), 3)  # noqa: B023
                    t_nb, _ = best_of(lambda: fill_normals(gen, warm), 5)
                    t_em, _ = best_of(lambda: numpy_em(np_drift, sigma, x0, gen), 2)  # noqa: B023
                    rate, numpy_rate, numba_rate = draws / t_sim, size / t_np, WARM / t_nb
                    print(f"{name:>3} {type(solver).__name__:>14} {d:>3} {n:>6} {rate:>12.3e} {numpy_rate:>10.3e} "
                          f"{rate / numpy_rate:>8.2f} {rate / numba_rate:>8.2f} {draws / t_em:>10.3e} "
                          f"{t_em / t_sim:>8.1f} {rate_sdeint:>10.3e} {rate / rate_sdeint:>9.0f}")
    print("  (x numpy = simulate rate / rate of gen.standard_normal(n); x numba = against numba drawing the same\n"
          "   stream into a warm buffer, the ceiling; np EM = numpy vectorised Euler-Maruyama (x: speed-up of\n"
          "   simulate over it); sdeint: itoEuler (EM) / itoSRI2 (Milstein), one path per call, 10 paths)")


def bench_single_path() -> None:
    sde = SDE(ou_drift, ou_diffusion, 1)
    print(f"a single path of {STEPS} steps (OU, d = 1): the public call, in microseconds")
    for solver in (EulerMaruyama(), Milstein()):
        simulate(sde, solver, 0.0, n_paths=1, t1=T1, dt=T1 / STEPS, rng=0)
        t, _ = best_of(lambda: [simulate(sde, solver, 0.0, n_paths=1, t1=T1, dt=T1 / STEPS, rng=i)  # noqa: B023
                                for i in range(100)], 5)
        print(f"  {type(solver).__name__:>14}: {t / 100 * 1e6:7.1f} us")


_COLD = """
import time
start = time.perf_counter()
import numpy as np
from numba import njit
from markovdp.diffusions import sde as _s, simulate as _m, solvers as _v
@njit
def drift(x, out):
    for k in range(x.size):
        out[k] = -x[k] + 0.1 * x[k] ** 3
@njit
def diffusion(x, out):
    for k in range(x.size):
        out[k] = 1.0 + 0.5 * np.tanh(x[k])
imported = time.perf_counter()
sde = _s.SDE(drift, diffusion, 1)
built = time.perf_counter()
_m.simulate(sde, _v.{solver}(), 0.0, n_paths=10, t1=1.0, dt=1e-3, rng=0)
first = time.perf_counter()
_m.simulate(sde, _v.{solver}(), 0.0, n_paths=10, t1=1.0, dt=1e-3, rng=0)
second = time.perf_counter()
print(imported - start, built - imported, first - built, second - first)
"""


def bench_compile() -> None:
    print("cold compile in a fresh process (a new SDE, never compiled before; the cached fill_normals on disk)")
    print(f"  {'solver':>14} {'import s':>9} {'SDE() s':>8} {'1st call s':>11} {'2nd call ms':>12}")
    for solver in ("EulerMaruyama", "Milstein"):
        out = subprocess.run([sys.executable, "-c", _COLD.format(solver=solver)], capture_output=True, text=True,
                             check=True).stdout.split()
        imported, built, first, second = map(float, out)
        print(f"  {solver:>14} {imported:>9.2f} {built:>8.2f} {first:>11.2f} {second * 1e3:>12.2f}")
    print("  (SDE(): compiles the user's drift and diffusion at the test point; 1st call: the integrator,\n"
          "   specialised on those maps, compiled once per process; 2nd call: warm)")


def main() -> None:
    print(f"markovdp SDE benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print()
    bench_compile()
    print()
    bench_single_path()
    print()
    bench_ensembles()


if __name__ == "__main__":
    main()
