"""The numba-native normal generator against numpy's normal rate, in one process: ``python -m benchmarks.fast_normal``.

`markovdp._fast_normal` (xoshiro256++ words, 256-layer ziggurat) is timed
- filling a warm buffer (`fill_normals(state, buf)`) of 1e6 and 1e7 draws, against numpy's
  ``Generator(PCG64).standard_normal(out=buf)`` on the same buffer and against numba drawing from that numpy
  Generator (``rng.standard_normal()`` in an @njit loop: what the kernels of issues 6 and 7 do today);
- inside an Euler–Maruyama-like loop, x ← x + a·x·dt + s·z over 1e3 paths × 1e3 steps (path-major, as the SDE
  integrators run), with z from `next_normal(state)` inlined, from `normal_step` on the state words held in
  local variables, from ``rng.standard_normal()`` on a numpy Generator, and from a warm buffer (no generator:
  the loop's own ceiling); and the factored form x ← c·x + s·z (c = 1 + a·dt). Rates are steps·paths per
  second, against numpy's ``standard_normal(out=buf)`` rate on 1e6 draws.
Target (issues 6, 7 §5): >= 2.0x numpy's rate; this study asks for >= 2.5x from the generator itself.
Numba is warmed up first. The machine is small and shared (2 cores, loaded), so the measurements are
interleaved: each round times every variant once (best of a few calls) in the same order, a ratio is formed
within the round, and the median and range over rounds are reported.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np
from numba import njit

from benchmarks.__main__ import SEED, best_of
from markovdp import _fast_normal as fast

ROUNDS = 15
PATHS = 1000
STEPS = 1000
A, DT, S = -1.0, 1e-3, 0.03


@njit(cache=True)
def numpy_stream_fill(rng: np.random.Generator, out: np.ndarray) -> None:
    """out[j] = the j-th normal of the numpy Generator's stream, drawn inside numba."""
    for j in range(out.size):
        out[j] = rng.standard_normal()


@njit(cache=True)
def em_next_normal(state: np.ndarray, x0: np.ndarray, steps: int, a: float, dt: float, s: float) -> np.ndarray:
    out = np.empty(x0.size)
    for i in range(x0.size):
        x = x0[i]
        for _ in range(steps):
            x = x + a * x * dt + s * fast.next_normal(state)
        out[i] = x
    return out


@njit(cache=True)
def em_normal_step(state: np.ndarray, x0: np.ndarray, steps: int, a: float, dt: float, s: float) -> np.ndarray:
    out = np.empty(x0.size)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(x0.size):
        x = x0[i]
        for _ in range(steps):
            z, s0, s1, s2, s3 = fast.normal_step(s0, s1, s2, s3)
            x = x + a * x * dt + s * z
        out[i] = x
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@njit(cache=True)
def em_numpy_generator(rng: np.random.Generator, x0: np.ndarray, steps: int, a: float, dt: float,
                       s: float) -> np.ndarray:
    out = np.empty(x0.size)
    for i in range(x0.size):
        x = x0[i]
        for _ in range(steps):
            x = x + a * x * dt + s * rng.standard_normal()
        out[i] = x
    return out


@njit(cache=True)
def em_buffer(z: np.ndarray, x0: np.ndarray, steps: int, a: float, dt: float, s: float) -> np.ndarray:
    """The same arithmetic with z read from a warm buffer of `steps` normals reused by every path: the loop's
    rate with a free generator (its dependency chain through x is the limit)."""
    out = np.empty(x0.size)
    for i in range(x0.size):
        x = x0[i]
        for k in range(steps):
            x = x + a * x * dt + s * z[k]
        out[i] = x
    return out


@njit(cache=True)
def em_factored(state: np.ndarray, x0: np.ndarray, steps: int, a: float, dt: float, s: float) -> np.ndarray:
    """x ← c·x + s·z with c = 1 + a·dt hoisted: a shorter chain through x, z from `next_normal` inline."""
    out = np.empty(x0.size)
    c = 1.0 + a * dt
    for i in range(x0.size):
        x = x0[i]
        for _ in range(steps):
            x = c * x + s * fast.next_normal(state)
        out[i] = x
    return out


def summary(values: list[float]) -> str:
    v = np.asarray(values)
    return f"{np.median(v):>6.2f}  [{v.min():.2f}, {v.max():.2f}]"


def bench_fast_normal() -> None:
    gen = np.random.Generator(np.random.PCG64(SEED))
    state = fast.make_state(SEED)
    x0 = np.zeros(PATHS)
    buffers = {n: np.empty(n) for n in (10**6, 10**7)}
    for buf in buffers.values():  # warm up: compile, fault the pages in
        fast.fill_normals(state, buf)
        numpy_stream_fill(gen, buf)
        gen.standard_normal(out=buf)
    z = fast.normals(STEPS, SEED)
    for em in (em_next_normal, em_normal_step, em_factored):
        em(state, x0, 2, A, DT, S)
    em_buffer(z, x0, 2, A, DT, S)
    em_numpy_generator(gen, x0, 2, A, DT, S)

    ratios: dict[str, list[float]] = {}
    rates: dict[str, list[float]] = {}

    def record(key: str, value: float) -> None:
        ratios.setdefault(key, []).append(value)

    for _ in range(ROUNDS):
        for n, buf in buffers.items():
            repeats = 3 if n == 10**6 else 1
            t_np, _ = best_of(lambda: gen.standard_normal(out=buf), repeats)  # noqa: B023
            t_fast, _ = best_of(lambda: fast.fill_normals(state, buf), repeats)  # noqa: B023
            t_nb, _ = best_of(lambda: numpy_stream_fill(gen, buf), repeats)  # noqa: B023
            record(f"fill {n:.0e}: fast / numpy out=", t_np / t_fast)
            record(f"fill {n:.0e}: fast / numba on numpy Generator", t_nb / t_fast)
            record(f"fill {n:.0e}: numba on numpy Generator / numpy out=", t_np / t_nb)
            if n == 10**6:
                rates.setdefault("numpy out= /s", []).append(n / t_np)
                rates.setdefault("fill_normals /s", []).append(n / t_fast)
        t_np, _ = best_of(lambda: gen.standard_normal(out=buffers[10**6]), 3)
        draws = PATHS * STEPS
        for name, fn, rng in (("next_normal(state) inline", em_next_normal, state),
                              ("normal_step on local words", em_normal_step, state),
                              ("rng.standard_normal() (numpy Generator)", em_numpy_generator, gen),
                              ("z from a warm buffer (no generator)", em_buffer, z),
                              ("x = c*x + s*z, next_normal inline", em_factored, state)):
            t_em, _ = best_of(lambda: fn(rng, x0, STEPS, A, DT, S), 3)  # noqa: B023
            record(f"EM 1e3x1e3, {name} / numpy out=", (draws / t_em) / (buffers[10**6].size / t_np))

    print(f"{'ratio (median [min, max] over ' + str(ROUNDS) + ' interleaved rounds)':<72} {'value':>22}")
    print("-" * 96)
    for key, values in ratios.items():
        print(f"{key:<72} {summary(values):>22}")
    print()
    for key, values in rates.items():
        print(f"{key:<72} {np.median(values):>10.3e}  (median)")


def main() -> None:
    print(f"markovdp fast-normal benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print()
    start = time.perf_counter()
    bench_fast_normal()
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
