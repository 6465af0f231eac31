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
          "   numba 1 thr: the same call from a worker thread: the serial kernel, as in dask workers.\n"
          "   Rows i in L2-sized tiles (TILE_BYTES), each row j streamed once per tile: at k = m = 3000\n"
          "   one pass 6.9-7.6 s -> 2.6-3.2 s (2 threads), values bit-identical to the row-by-row kernel)")


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


# ------------------------------------------------------------------------------------ gaussian profile


def bench_gaussian_profile() -> None:
    """`privacy_profile(GaussianMechanism(sigma), eps)` over 1000 eps against scipy's plain closed form
    ``norm.cdf(a) − e^eps norm.cdf(b)`` (vectorised; it cancels to 0 or −0.0 where the profile is tiny)."""
    from scipy.stats import norm

    import markovdp as md
    from markovdp.divergences.exact.gaussian import gauss_hockey_stick

    print("Gaussian privacy profile over 1000 eps (STD-GaussHS): markovdp vs plain scipy closed form")
    header = f"{'sigma':>6} {'eps grid':>14} {'scipy us':>9} {'profile us':>11} {'x':>6} {'kernel us':>10} {'x':>6}"
    print(header)
    print("-" * len(header))
    for sigma in (0.1, 1.0, 10.0):
        mech, ratio = md.GaussianMechanism(sigma), 1.0 / sigma
        grids = (("linspace 0-10", np.linspace(0.0, 10.0, 1000)), ("logspace -3..2", np.logspace(-3, 2, 1000)))
        for label, eps in grids:
            def plain(eps: NDArray[np.float64] = eps, ratio: float = ratio) -> NDArray[np.float64]:
                return norm.cdf(ratio / 2 - eps / ratio) - np.exp(eps) * norm.cdf(-ratio / 2 - eps / ratio)

            t_plain, _ = best_of(plain, 50)
            t_prof, _ = best_of(lambda: md.privacy_profile(mech, eps), 50)  # noqa: B023
            t_kern, _ = best_of(lambda: gauss_hockey_stick(ratio, eps), 50)  # noqa: B023
            print(f"{sigma:>6g} {label:>14} {t_plain * 1e6:>9.0f} {t_prof * 1e6:>11.0f} {t_plain / t_prof:>6.2f} "
                  f"{t_kern * 1e6:>10.0f} {t_plain / t_kern:>6.2f}")
    print("  (x = scipy time / markovdp time; profile = the public call, kernel = the closed form alone)")


# ------------------------------------------------------------------------------------ black box worst case


def worst_case_reference(P: NDArray[np.float64], Q: NDArray[np.float64], K: NDArray[np.float64],
                         eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """The itertools/numpy reference the numba kernel replaced: every map (x0..x3) in [k]^4, the pair
    (P @ K[t], Q @ K[t]) through the exact finite sum (STD-BlackBoxExact)."""
    import itertools

    from markovdp.divergences.exact import hockey_stick_finite

    values = np.zeros(eps.shape)
    for t in itertools.product(range(K.shape[0]), repeat=4):
        rows = K[list(t)]
        values = np.maximum(values, hockey_stick_finite(P @ rows, Q @ rows, eps))
    return values


def bench_black_box() -> None:
    """`privacy_profile(DeclaredDP(eps0, delta0) >> FiniteKernel(K), eps)` over 100 eps (the numba kernel,
    k^4 maps, k^2 at delta0 = 0) against the itertools reference, random dense k x k kernels."""
    import markovdp as md
    from markovdp.mechanisms.canonical import canonical_rows

    rng = np.random.default_rng(SEED)
    eps = np.linspace(0.0, 5.0, 100)
    print("black box worst case: privacy_profile(DeclaredDP(eps0, delta0) >> FiniteKernel(K)) over 100 eps,")
    print("numba branch-and-bound kernel vs the itertools reference (random dense k x k kernel, eps0 = 1)")
    header = f"{'k':>4} {'delta0':>6} {'reference s':>12} {'numba s':>10} {'x':>8} {'|diff|':>9}"
    print(header)
    print("-" * len(header))
    md.privacy_profile(md.DeclaredDP(1.0, 0.1) >> md.FiniteKernel(random_kernel(2, 2, rng)), eps)  # compile
    for k in (4, 8, 16, 32):
        matrix = random_kernel(k, k, rng)
        for delta0 in (0.1, 0.0):
            pipeline = md.DeclaredDP(1.0, delta0) >> md.FiniteKernel(matrix)
            t_nb, v_nb = best_of(lambda: md.privacy_profile(pipeline, eps), 3 if k >= 32 else 10)  # noqa: B023
            if k <= 16:
                P, Q = canonical_rows(1.0, delta0)
                t_ref, v_ref = best_of(lambda: worst_case_reference(P, Q, matrix, eps), 1 if k >= 16 else 3)  # noqa: B023
                diff = float(np.max(np.abs(v_nb - v_ref)))
                flag = "" if diff <= 1e-12 else "  MISMATCH > 1e-12"
                print(f"{k:>4} {delta0:>6g} {t_ref:>12.4f} {t_nb:>10.5f} {t_ref / t_nb:>8.0f} {diff:>9.1e}{flag}")
            else:
                print(f"{k:>4} {delta0:>6g} {'-':>12} {t_nb:>10.5f} {'-':>8} {'-':>9}")
    print("  (x = reference time / numba time; the reference enumerates all k^4 maps also at delta0 = 0;\n"
          "   k = 32: the reference would take minutes)")


# ------------------------------------------------------------------------------------ finite profile


def sort_cumsum_profile(p: NDArray[np.float64], q: NDArray[np.float64],
                        eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """Plain numpy reference: sort the log-ratios once, cumulative sums, searchsorted per eps (not exact:
    A − e^eps B cancels near the threshold, overflows past eps = 709, no D_inf)."""
    L = np.log(p) - np.log(q)
    order = np.argsort(L)[::-1]
    a, b = np.cumsum(p[order]), np.cumsum(q[order])
    n = np.searchsorted(-L[order], -eps, side="left")
    return np.where(n > 0, a[n - 1] - np.exp(eps) * b[n - 1], 0.0)


def bench_finite_profile() -> None:
    """The finite hockey-stick profile over 100 eps (one pass, exact) against plain numpy sort-and-cumsum
    and dp_accounting's PLD (from_two_probability_mass_functions + get_delta_for_epsilon, rounded)."""
    import markovdp as md
    from markovdp.divergences.exact import hockey_stick_finite

    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError:
        pld = None
    rng = np.random.default_rng(SEED)
    eps = np.linspace(0.0, 5.0, 100)
    print("finite privacy profile over 100 eps: hockey_stick_finite (and privacy_profile of the 2-row mechanism)")
    print("vs plain numpy sort-and-cumsum and dp_accounting's PLD (random pair of laws on m outcomes)")
    header = (f"{'m':>7} {'exact us':>9} {'profile us':>11} {'numpy us':>9} {'x numpy':>8} {'np both us':>11} "
              f"{'x prof':>7} {'PLD us':>9} {'x PLD':>6} {'x PLD prof':>10} {'|d numpy|':>10}")
    print(header)
    print("-" * len(header))
    for m in (10, 1000, 100_000):
        p, q = random_kernel(2, m, rng)
        mech = md.FiniteMechanism(np.stack([p, q]))
        hockey_stick_finite(p, q, eps)  # warm-up: compile or load the numba pass
        reps = 5 if m >= 100_000 else 50
        t_ex, v_ex = best_of(lambda: hockey_stick_finite(p, q, eps), reps)  # noqa: B023
        t_pr, _ = best_of(lambda: md.privacy_profile(mech, eps), reps)  # noqa: B023
        t_np, v_np = best_of(lambda: sort_cumsum_profile(p, q, eps), reps)  # noqa: B023
        both = lambda: np.maximum(sort_cumsum_profile(p, q, eps), sort_cumsum_profile(q, p, eps))  # noqa: B023, E731
        t_both, _ = best_of(both, reps)
        if pld is None:
            t_pld = math.nan
        else:
            def via_pld(p: NDArray[np.float64] = p, q: NDArray[np.float64] = q) -> Any:
                loss = pld.from_two_probability_mass_functions(dict(enumerate(np.log(p))), dict(enumerate(np.log(q))))
                return loss.get_delta_for_epsilon(eps)

            t_pld, _ = best_of(via_pld, 2 if m >= 100_000 else 5)
        print(f"{m:>7} {t_ex * 1e6:>9.0f} {t_pr * 1e6:>11.0f} {t_np * 1e6:>9.0f} {t_np / t_ex:>8.2f} "
              f"{t_both * 1e6:>11.0f} {t_both / t_pr:>7.2f} {t_pld * 1e6:>9.0f} {t_pld / t_ex:>6.1f} "
              f"{t_pld / t_pr:>10.1f} {np.max(np.abs(v_ex - v_np)):>10.1e}")
    print("  (x = other time / markovdp time; exact = hockey_stick_finite, one direction, against numpy's one;")
    print("   profile = the public privacy_profile of the 2-row mechanism, both directions, against numpy's both)")


# ------------------------------------------------------------------------------------ Rényi, all pairs


def bench_renyi_all_pairs() -> None:
    """Rényi divergence of all ordered pairs of a k x k kernel: one matrix product per order
    (`renyi_finite_pairs`) vs the row-by-row logsumexp (`renyi_finite_rows`), and the public renyi_profile."""
    import markovdp as md
    from markovdp.divergences.exact.finite import renyi_finite_pairs, renyi_finite_rows
    from markovdp.mechanisms.base import AllPairs, neighbour_pairs

    rng = np.random.default_rng(SEED)
    alpha = np.array([1.5, 2.0, 8.0, 32.0])
    print(f"Rényi divergence of all k(k-1) ordered pairs at alpha = {alpha.tolist()} (random dense k x k kernel)")
    header = f"{'k':>5} {'rows s':>9} {'product s':>10} {'x':>7} {'renyi_profile s':>16} {'max rel diff':>13}"
    print(header)
    print("-" * len(header))
    for k in (50, 200):
        matrix = random_kernel(k, k, rng)
        index = neighbour_pairs(AllPairs(), k)
        t_rows, v_rows = best_of(lambda: renyi_finite_rows(matrix[index[:, 0]], matrix[index[:, 1]], alpha), 1)  # noqa: B023
        t_prod, v_prod = best_of(lambda: renyi_finite_pairs(matrix, index, alpha), 3)  # noqa: B023
        t_prof, _ = best_of(lambda: md.renyi_profile(md.FiniteMechanism(matrix), alpha), 1)  # noqa: B023
        diff = float(np.max(np.abs(v_prod - v_rows) / v_rows))
        print(f"{k:>5} {t_rows:>9.3f} {t_prod:>10.4f} {t_rows / t_prod:>7.0f} {t_prof:>16.3f} {diff:>13.1e}")
    print("  (renyi_profile: the public call, through the same product)")


# ------------------------------------------------------------------------------------ ldp_epsilon, large k


def bench_ldp_epsilon() -> None:
    """privacy_epsilon of a k = 3000 local-DP mechanism (AAC-T1 via the numba ldp_epsilon): delta = 0 is the
    closed form; delta > 0 prunes pairs (seed pairs, one pass at their eps, then candidate rows only — no check
    pass), against one all-pairs coefficient pass (root finding on all pairs takes ~10-40 of them)."""
    import markovdp as md
    from markovdp.guarantees.coefficients import dobrushin

    rng = np.random.default_rng(SEED)
    matrix = random_kernel(3000, 3000, rng)
    mech = md.FiniteMechanism(matrix)
    print("privacy_epsilon at k = 3000 (random dense kernel)")
    dobrushin(random_kernel(2, 2, rng), 1.0)  # compile
    t_pure, eps0 = best_of(lambda: md.privacy_epsilon(mech, 0.0), 1)
    t_delta, eps3 = best_of(lambda: md.privacy_epsilon(mech, 1e-3), 1)
    t_pass, _ = best_of(lambda: dobrushin(mech, 1.0), 1)
    print(f"  delta = 0: {t_pure:.2f} s (eps = {eps0:.4f});  delta = 1e-3: {t_delta:.2f} s (eps = {eps3:.6f});  "
          f"one coefficient pass: {t_pass:.2f} s")


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
    bench_gaussian_profile()
    print()
    bench_black_box()
    print()
    bench_finite_profile()
    print()
    bench_renyi_all_pairs()
    print()
    bench_ldp_epsilon()
    print()
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
