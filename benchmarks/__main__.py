"""Speed as ratios, measured in one process: ``python -m benchmarks``.

1. `dobrushin(K, eps)` (numba, BBGG-D1 / AAC-eta) against a blocked numpy implementation, k = 100, 300, 1000.
2. `FiniteKernel(K).sample(x, rng=gen)` against `gen.random(n)` (numpy's uniform rate: the physical limit of
   an inverse-CDF sampler) and against a plain-numpy inverse-CDF sampler.

Numba is warmed up first (compile time is not counted); each time is the best of several repeats
(`time.perf_counter`). The machine is small (2 cores): absolute numbers move with load, ratios less so.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from markovdp.guarantees.coefficients import dobrushin

SEED = 20240601


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Smallest wall time of `repeats` calls of `fn` and the last result."""
    best = math.inf
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def in_worker_thread(fn: Callable[[], Any]) -> Any:
    """Run `fn` in a non-main thread, where `dobrushin` uses its single-threaded kernel."""
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(fn()))
    worker.start()
    worker.join()
    return box[0]


def random_kernel(k: int, m: int, rng: np.random.Generator) -> NDArray[np.float64]:
    matrix = rng.random((k, m))
    return matrix / matrix.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------------------------- dobrushin


def dobrushin_numpy(matrix: NDArray[np.float64], eps: float) -> float:
    """Blocked numpy reference: for a block of rows i, [K[i] − e^eps K[j]]_+ summed over y for all j at once.

    The block keeps the (block, k, m) temporary near 512 KiB (cache-sized; larger blocks measured slower).
    """
    k, m = matrix.shape
    scaled = math.exp(eps) * matrix
    block = max(1, 2**16 // (k * m))
    buf = np.empty((block, k, m))
    best = 0.0
    for start in range(0, k, block):
        stop = min(start + block, k)
        tmp = buf[: stop - start]
        np.subtract(matrix[start:stop, None, :], scaled[None, :, :], out=tmp)
        np.maximum(tmp, 0.0, out=tmp)
        best = max(best, float(tmp.sum(axis=-1).max()))
    return min(best, 1.0)


def bench_dobrushin() -> None:
    from markovdp.operators.finite import FiniteKernel

    rng = np.random.default_rng(SEED)
    print("dobrushin(K, eps): numba vs blocked numpy (random dense k x k kernel)")
    header = (f"{'k':>5} {'eps':>4} {'numpy s':>9} {'numba 1 thr s':>14} {'numba s':>10} "
              f"{'x (1 thr)':>10} {'x':>8} {'|diff|':>9}")
    print(header)
    print("-" * len(header))
    for k in (100, 300, 1000):
        kernel = FiniteKernel(random_kernel(k, k, rng))
        dobrushin(kernel, 0.0)  # warm-up: compile (or load from cache) both kernels
        in_worker_thread(lambda: dobrushin(kernel, 0.0))  # noqa: B023
        for eps in (0.0, 1.0):
            reps = 2 if k >= 1000 else 5
            t_np, v_np = best_of(lambda: dobrushin_numpy(kernel.matrix, eps), reps)  # noqa: B023
            t_nb, v_nb = best_of(lambda: dobrushin(kernel, eps), 5 * reps)  # noqa: B023
            t_1, v_1 = in_worker_thread(lambda: best_of(lambda: dobrushin(kernel, eps), 5 * reps))  # noqa: B023
            diff = max(abs(v_nb - v_np), abs(v_1 - v_np))
            flag = "" if diff <= 1e-12 else "  MISMATCH > 1e-12"
            print(f"{k:>5} {eps:>4g} {t_np:>9.4f} {t_1:>14.5f} {t_nb:>10.5f} "
                  f"{t_np / t_1:>10.1f} {t_np / t_nb:>8.1f} {diff:>9.1e}{flag}")
    print("  (numba: the public call; threads only for k(k-1)/2 * m >= 2**25 and from the main thread.\n"
          "   numba 1 thr: the same call from a worker thread: the serial kernel, as in dask workers)")


# ------------------------------------------------------------------------------------------- sampling


def sample_numpy(cdf: NDArray[np.float64], x: NDArray[np.int64], u: NDArray[np.float64]) -> NDArray[np.int64]:
    """Plain-numpy inverse CDF: the first y with cdf[x, y] > u (as FiniteKernel.sample, same uniforms).

    Few outcomes: count cdf[x] <= u in chunks. Many outcomes: group the inputs by row, searchsorted per row.
    """
    n, m = x.size, cdf.shape[1]
    out = np.empty(n, dtype=np.int64)
    if m <= 32:
        chunk = max(1, 2**22 // m)
        for start in range(0, n, chunk):
            stop = min(start + chunk, n)
            out[start:stop] = (cdf[x[start:stop]] <= u[start:stop, None]).sum(axis=1)
        return out
    order = np.argsort(x, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(x, minlength=cdf.shape[0]))))
    for row in range(cdf.shape[0]):
        idx = order[bounds[row]: bounds[row + 1]]
        out[idx] = np.searchsorted(cdf[row], u[idx], side="right")
    return out


def bench_sampling() -> None:
    try:
        from markovdp.operators.finite import FiniteKernel
    except ImportError as exc:  # not written yet
        print(f"FiniteKernel sampling: skipped ({exc})")
        return

    rng = np.random.default_rng(SEED)
    print("FiniteKernel(K).sample(x, rng=gen) vs gen.random(n) (the uniform-rate limit) and plain numpy")
    header = (f"{'k':>5} {'n':>9} {'sample /s':>11} {'random /s':>11} {'of limit':>9} "
              f"{'numpy /s':>11} {'x numpy':>8} {'same':>5}")
    print(header)
    print("-" * len(header))
    for k in (10, 1000):
        kernel = FiniteKernel(random_kernel(k, k, rng))
        kernel.sample(np.zeros(10, dtype=np.int64), rng=0)  # warm-up: compile, build the CDF
        cdf = np.cumsum(kernel.matrix, axis=1)  # sequential sums, as the kernel's own CDF
        cdf[:, -1] = 1.0  # pinned, as FiniteKernel does, so u < 1 always lands inside the row
        for n in (10**6, 10**7):
            x = rng.integers(0, k, size=n)
            reps = 3
            t_fk, y_fk = best_of(lambda: kernel.sample(x, rng=np.random.default_rng(SEED)), reps)  # noqa: B023
            t_u, u = best_of(lambda: np.random.default_rng(SEED).random(n), reps)  # noqa: B023
            t_np, y_np = best_of(lambda: sample_numpy(cdf, x, u), 2)  # noqa: B023
            same = bool(np.array_equal(y_fk, y_np))  # numba's Generator draws the same uniform stream
            print(f"{k:>5} {n:>9.0e} {n / t_fk:>11.3e} {n / t_u:>11.3e} {t_u / t_fk:>9.3f} "
                  f"{n / t_np:>11.3e} {t_np / t_fk:>8.1f} {same!s:>5}")
    print("  (of limit = time of gen.random(n) / time of sample; same = identical samples for the same seed)")


def main() -> None:
    start = time.perf_counter()
    print(f"markovdp benchmarks: {os.cpu_count()} cpus, numba {numba.__version__} "
          f"({numba.get_num_threads()} threads), numpy {np.__version__}")
    print()
    bench_dobrushin()
    print(f"  numba threading layer: {numba.threading_layer()}")
    print()
    bench_sampling()
    print()
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
