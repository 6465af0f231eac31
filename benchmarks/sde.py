"""SDE integrators and exact transitions against numpy's normal rate, in one process: ``python -m benchmarks.sde``.

`simulate` with EulerMaruyama and Milstein on Ornstein–Uhlenbeck (dX = −θX dt + √2 ρ dW, BBGG-OU) and Brownian
(dX = √2 dW, BBGG-BM) ensembles of N paths in R^d, 1000 steps: the rate is steps·paths·d per second. It is compared
with numpy's ``standard_normal`` rate measured in the same round (``gen.standard_normal(n)``, a fresh array of the
run's draws capped at 2^24, how numpy users draw) and with `markovdp._fast_normal.fill_normals` filling a warm
buffer (the generator the integrators draw from: the ceiling of a loop that uses every draw); the peers, measured
once, are a numpy vectorised EM (all paths advanced per step, one ``standard_normal((N, d))`` per step) and sdeint
(``itoEuler`` / ``itoSRI2``, one path per call). Exact transitions: ``BrownianSemigroup(d).at(t).sample`` and
``OrnsteinUhlenbeckSemigroup`` on n·d = 1e6 coordinates (samples per second) against the same numpy rate and
against the same formula computed with numpy's normals. Targets (issue 7 §5): ensembles >= 2.0x numpy's rate; a
single path of 1000 steps <= 60 µs; cold compile <= 2 s; exact transitions >= 0.9x numpy's rate.

The machine is small and shared (2 cores, loaded), so the measurements are interleaved: each round times every
variant once (best of a few calls) in the same order, ratios are formed within the round, and the median (and
range) over the rounds is reported. Numba is warmed up first. Cold compile runs in fresh processes: "cold" with an
empty numba cache directory, "warm" with the cache the cold run left.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

import numba
import numpy as np
from numba import njit

from benchmarks.__main__ import SEED, best_of
from markovdp._fast_normal import fill_normals, make_state
from markovdp.diffusions.brownian import BrownianSemigroup
from markovdp.diffusions.ornstein_uhlenbeck import OrnsteinUhlenbeckSemigroup
from markovdp.diffusions.sde import SDE
from markovdp.diffusions.simulate import simulate
from markovdp.diffusions.solvers import EulerMaruyama, Milstein

ROUNDS = 7
NUMPY_CAP = 2**24
WARM = 2**20
STEPS = 1000
T1 = 1.0
THETA, RHO = 1.0, 0.5
EXACT_DRAWS = 10**6


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


def summary(values: list[float]) -> str:
    return f"{np.median(values):6.2f} [{min(values):.2f}, {max(values):.2f}]"


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
    state = make_state(SEED)
    fill_normals(state, warm)
    cases = [(name, d, solver, n) for name in PROBLEMS for d in (1, 10) for solver in (EulerMaruyama(), Milstein())
             for n in (1000, 10000)]
    sdes = {(name, d): SDE(PROBLEMS[name][0], PROBLEMS[name][1], d) for name in PROBLEMS for d in (1, 10)}
    for name, d, solver, _ in cases:  # compile
        simulate(sdes[name, d], solver, np.zeros(d), n_paths=2, t1=T1, dt=T1 / STEPS, rng=0)
    x_numpy: dict[tuple, list[float]] = defaultdict(list)
    x_fast: dict[tuple, list[float]] = defaultdict(list)
    rates: dict[tuple, list[float]] = defaultdict(list)
    for _ in range(ROUNDS):
        for case in cases:
            name, d, solver, n = case
            draws = STEPS * n * d
            size = min(draws, NUMPY_CAP)
            x0 = np.zeros((n, d))
            t_sim, _ = best_of(lambda: simulate(sdes[name, d], solver, x0, t1=T1, dt=T1 / STEPS, rng=gen), 2)  # noqa: B023
            t_np, _ = best_of(lambda: gen.standard_normal(size), 3)  # noqa: B023
            t_fast, _ = best_of(lambda: fill_normals(state, warm), 3)
            rates[case].append(draws / t_sim)
            x_numpy[case].append(draws / t_sim / (size / t_np))
            x_fast[case].append(draws / t_sim / (WARM / t_fast))
    print(f"simulate: N paths in R^d, {STEPS} steps: steps*paths*d per second; ratios median [min, max] over "
          f"{ROUNDS} rounds")
    header = (f"{'SDE':>3} {'solver':>14} {'d':>3} {'N':>6} {'simulate /s':>12} {'x numpy':>20} {'x fill_normals':>20} "
              f"{'np EM /s':>10} {'x np EM':>8} {'sdeint /s':>10} {'x sdeint':>9}")
    print(header)
    print("-" * len(header))
    for case in cases:
        name, d, solver, n = case
        np_drift, sigma = PROBLEMS[name][2], PROBLEMS[name][3]
        rate = float(np.median(rates[case]))
        x0 = np.zeros((n, d))
        t_em, _ = best_of(lambda: numpy_em(np_drift, sigma, x0, gen), 1)  # noqa: B023
        rate_sdeint = sdeint_rate(sdes[name, d], solver, d, gen) if n == 1000 else math.nan
        print(f"{name:>3} {type(solver).__name__:>14} {d:>3} {n:>6} {rate:>12.3e} {summary(x_numpy[case]):>20} "
              f"{summary(x_fast[case]):>20} {STEPS * n * d / t_em:>10.3e} {rate * t_em / (STEPS * n * d):>8.1f} "
              f"{rate_sdeint:>10.3e} {rate / rate_sdeint:>9.0f}")
    print("  (x numpy = simulate rate / rate of gen.standard_normal(n) in the same round; x fill_normals = against\n"
          "   xoshiro256++/ziggurat filling a warm buffer, the ceiling; np EM = numpy vectorised Euler-Maruyama\n"
          "   (x: speed-up of simulate over it, once); sdeint: itoEuler (EM) / itoSRI2 (Milstein), 10 paths, once)")


def bench_single_path() -> None:
    sde = SDE(ou_drift, ou_diffusion, 1)
    solvers = (EulerMaruyama(), Milstein())
    times: dict[str, list[float]] = defaultdict(list)
    for solver in solvers:
        simulate(sde, solver, 0.0, n_paths=1, t1=T1, dt=T1 / STEPS, rng=0)
    for r in range(ROUNDS):
        for solver in solvers:
            seeds = range(100 * r, 100 * (r + 1))
            t, _ = best_of(lambda: [simulate(sde, solver, 0.0, n_paths=1, t1=T1, dt=T1 / STEPS, rng=i)  # noqa: B023
                                    for i in seeds], 3)  # noqa: B023
            times[type(solver).__name__].append(t / 100 * 1e6)
    print(f"a single path of {STEPS} steps (OU, d = 1): the public call, microseconds, median [min, max] over "
          f"{ROUNDS} rounds of 100 seeds")
    for name, values in times.items():
        print(f"  {name:>14}: {summary(values)} us")


_COLD = """
import time
start = time.perf_counter()
import numpy as np
from numba import njit
from markovdp.diffusions.sde import SDE
from markovdp.diffusions.simulate import simulate
from markovdp.diffusions.solvers import {solver}
@njit
def drift(x, out):
    for k in range(x.size):
        out[k] = -x[k] + 0.1 * x[k] ** 3
@njit
def diffusion(x, out):
    for k in range(x.size):
        out[k] = 1.0 + 0.5 * np.tanh(x[k])
imported = time.perf_counter()
sde = SDE(drift, diffusion, 1)
built = time.perf_counter()
simulate(sde, {solver}(), 0.0, n_paths=10, t1=1.0, dt=1e-3, rng=0)
first = time.perf_counter()
simulate(sde, {solver}(), 0.0, n_paths=10, t1=1.0, dt=1e-3, rng=0)
second = time.perf_counter()
print(imported - start, built - imported, first - built, second - first)
"""


def bench_compile() -> None:
    print("compile in a fresh process (a new SDE, never compiled before): 'cold' with an empty numba cache\n"
          "directory, 'warm' with the cache the cold run left (the cached generic pieces on disk)")
    print(f"  {'solver':>14} {'cache':>5} {'import s':>9} {'SDE() s':>8} {'1st call s':>11} {'2nd call ms':>12}")
    with tempfile.TemporaryDirectory() as cache:
        env = os.environ | {"NUMBA_CACHE_DIR": cache}
        for solver in ("EulerMaruyama", "Milstein"):
            for label in ("cold", "warm"):
                out = subprocess.run([sys.executable, "-c", _COLD.format(solver=solver)], capture_output=True,
                                     text=True, check=True, env=env).stdout.split()
                imported, built, first, second = map(float, out)
                print(f"  {solver:>14} {label:>5} {imported:>9.2f} {built:>8.2f} {first:>11.2f} {second * 1e3:>12.2f}")
    print("  (SDE(): compiles the user's drift and diffusion at the test point; 1st call: the integrator,\n"
          "   specialised on those maps, compiled once per process; 2nd call: warm)")


def numpy_exact(a: float, s: float, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """The exact transition's formula a (x + (s/a) Z) in place, with numpy's normals (the former sampler)."""
    out = gen.standard_normal(x.shape)
    out *= s / a
    out += x
    out *= a
    return out


def bench_exact() -> None:
    gen = np.random.default_rng(SEED)
    cases = {(name, d): semigroup for d in (1, 10)
             for name, semigroup in (("BM", BrownianSemigroup(d)), ("OU", OrnsteinUhlenbeckSemigroup(THETA, RHO, d)))}
    x_numpy: dict[tuple, list[float]] = defaultdict(list)
    x_former: dict[tuple, list[float]] = defaultdict(list)
    rates: dict[tuple, list[float]] = defaultdict(list)
    for (_, d), P in cases.items():
        P.at(0.5).sample(np.zeros((10, d)) if d > 1 else np.zeros(10), rng=gen)
    for _ in range(ROUNDS):
        for case, P in cases.items():
            d = case[1]
            x = np.zeros((EXACT_DRAWS // d, d)) if d > 1 else np.zeros(EXACT_DRAWS)
            op = P.at(0.5)
            a, s = P.decay(0.5), P.spread(0.5)
            t_op, _ = best_of(lambda: op.sample(x, rng=gen), 3)  # noqa: B023
            t_np, _ = best_of(lambda: gen.standard_normal(EXACT_DRAWS), 3)
            t_former, _ = best_of(lambda: numpy_exact(a, s, x, gen), 3)  # noqa: B023
            rates[case].append(EXACT_DRAWS / t_op)
            x_numpy[case].append(t_np / t_op)
            x_former[case].append(t_former / t_op)
    print(f"exact transitions at(0.5).sample on {EXACT_DRAWS:.0e} coordinates: samples*d per second; ratios median "
          f"[min, max] over {ROUNDS} rounds")
    print(f"  {'P':>2} {'d':>3} {'sample /s':>10} {'x numpy normal':>20} {'x numpy formula':>20}")
    for case in cases:
        print(f"  {case[0]:>2} {case[1]:>3} {np.median(rates[case]):>10.3e} {summary(x_numpy[case]):>20} "
              f"{summary(x_former[case]):>20}")
    print("  (x numpy normal = against gen.standard_normal(1e6); x numpy formula = against a (x + (s/a) Z) in place\n"
          "   with numpy's normals, the former sampler)")


def main() -> None:
    print(f"markovdp SDE benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print()
    bench_compile()
    print()
    bench_single_path()
    print()
    bench_exact()
    print()
    bench_ensembles()
    print(f"\n(load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
