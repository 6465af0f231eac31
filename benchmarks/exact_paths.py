"""The exact paths against their plain numpy/scipy/dp_accounting counterparts, in one process (issue 13 §6):
``python -m benchmarks.exact_paths``.

1. `privacy_profile` of a two-row `FiniteMechanism` (a pair of laws p, q on m outcomes, both directions) over 100
   eps, against plain numpy sort-and-cumsum of the same quantity: the log-ratios sorted once, cumulative sums,
   searchsorted per eps, both directions from the one sort (``max(A − e^eps B)``; not exact: it cancels near the
   threshold). "build": the mechanism built in every call from the two arrays (what a sweep does); "prebuilt": one
   mechanism reused. Also against the one-direction reference (half the quantity), for scale.
2. `privacy_profile(GaussianMechanism(sigma), eps)` over 1000 eps, against scipy's closed form
   ``ndtr(a) − e^eps ndtr(b)`` (`scipy.special.ndtr`, the fastest plain reference; it cancels to 0 or −0.0 where the
   profile is tiny). markovdp's pass inlines its own erfcx (the values of scipy's, `_gaussian_kernels`).
3. `privacy_epsilon(GaussianMechanism(sigma), delta)` against `dp_accounting.get_epsilon_gaussian(sigma, delta)`
   (Balle–Wang's analytic Gaussian, brentq to 1e-12).
4. `renyi_profile` over all ordered pairs of a random dense k x k `FiniteMechanism` at 4 orders, against plain numpy:
   per alpha one matrix product ``exp(alpha log K) @ exp((1 − alpha) log K)^T``, then the log of the largest
   off-diagonal entry over (alpha − 1). "prebuilt" reuses the mechanism, whose pair set keeps its logs between
   calls (`RenyiRows`); "build" makes a new mechanism (and validates it) every call.

The machine is small and shared (2 cores, loaded), so the measurements are interleaved: each round times every
variant once (best of a few calls) in the same order, a ratio (reference time / markovdp time: > 1 means markovdp
is faster) is formed within the round, and the median and range over rounds are reported. Numba is warmed up
first (compile time is not counted). The load average is printed before and after. The values are those of the
exact paths before this benchmark's changes, bit for bit (tests/test_exact_paths.py).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import special

import markovdp as md
from benchmarks.__main__ import SEED, best_of, random_kernel, sort_cumsum_profile

ROUNDS = 9
Array = NDArray[np.float64]


def summary(values: list[float]) -> str:
    v = np.asarray(values)
    return f"{np.median(v):>5.2f} [{v.min():.2f}, {v.max():.2f}]"


def interleaved(variants: dict[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Best-of-`repeats` time of every variant in each of ROUNDS rounds, in the same order every round."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, run in variants.items():
            times[name].append(best_of(run, repeats)[0])
    return times


def ratios(times: dict[str, list[float]], reference: str, ours: str) -> list[float]:
    return [r / o for r, o in zip(times[reference], times[ours], strict=True)]


# ------------------------------------------------------------------------------------------- finite profile


def sort_cumsum_both(p: Array, q: Array, eps: Array) -> Array:
    """max(E_{e^eps}(p || q), E_{e^eps}(q || p)) by plain numpy: one sort of L = log p − log q serves both
    directions (q || p reads the same order backwards)."""
    L = np.log(p) - np.log(q)
    order = np.argsort(L)
    desc = order[::-1]
    a, b = np.cumsum(p[desc]), np.cumsum(q[desc])  # p || q: the terms with L > eps
    n = np.searchsorted(-L[desc], -eps, side="left")
    forward = np.where(n > 0, a[n - 1] - np.exp(eps) * b[n - 1], 0.0)
    a, b = np.cumsum(q[order]), np.cumsum(p[order])  # q || p: the terms with −L > eps
    n = np.searchsorted(L[order], -eps, side="left")
    backward = np.where(n > 0, a[n - 1] - np.exp(eps) * b[n - 1], 0.0)
    return np.maximum(forward, backward)


def bench_finite_profile() -> None:
    rng = np.random.default_rng(SEED)
    eps = np.linspace(0.0, 5.0, 100)
    print("1. privacy_profile of a two-row FiniteMechanism over 100 eps vs plain numpy sort-and-cumsum (both "
          "directions, one sort)")
    header = (f"{'m':>7} {'numpy us':>10} {'build us':>10} {'x build':>18} {'prebuilt us':>12} {'x prebuilt':>18} "
              f"{'x build (1 dir)':>18} {'|diff|':>8}")
    print(header)
    print("-" * len(header))
    for m in (10, 1000, 100_000):
        p, q = random_kernel(2, m, rng)
        mech = md.FiniteMechanism(np.stack([p, q]))
        md.privacy_profile(mech, eps)  # compile or load the kernels
        variants = {
            "numpy": lambda p=p, q=q: sort_cumsum_both(p, q, eps),
            "one": lambda p=p, q=q: sort_cumsum_profile(p, q, eps),
            "build": lambda p=p, q=q: md.privacy_profile(md.FiniteMechanism(np.stack([p, q])), eps),
            "prebuilt": lambda mech=mech: md.privacy_profile(mech, eps),
        }
        times = interleaved(variants, 3 if m >= 100_000 else 20)
        diff = float(np.max(np.abs(md.privacy_profile(mech, eps) - sort_cumsum_both(p, q, eps))))
        print(f"{m:>7} {np.median(times['numpy']) * 1e6:>10.0f} {np.median(times['build']) * 1e6:>10.0f} "
              f"{summary(ratios(times, 'numpy', 'build')):>18} {np.median(times['prebuilt']) * 1e6:>12.0f} "
              f"{summary(ratios(times, 'numpy', 'prebuilt')):>18} {summary(ratios(times, 'one', 'build')):>18} "
              f"{diff:>8.1e}")
    print("  (x = numpy time / markovdp time; x build (1 dir) = the one-direction reference against the public call,\n"
          "   which computes both directions; |diff| = largest difference from the numpy values, which cancel)")


# ----------------------------------------------------------------------------------------- Gaussian profile


def bench_gaussian_profile() -> None:
    print("2. privacy_profile(GaussianMechanism(sigma), eps) over 1000 eps vs scipy's closed form with ndtr "
          "(STD-GaussHS)")
    header = f"{'sigma':>6} {'eps grid':>15} {'ndtr us':>9} {'prebuilt us':>12} {'x prebuilt':>18} {'x build':>18}"
    print(header)
    print("-" * len(header))
    md.privacy_profile(md.GaussianMechanism(1.0), np.linspace(0.0, 1.0, 10))  # compile or load the kernels
    for sigma in (0.1, 1.0, 10.0):
        mech, ratio = md.GaussianMechanism(sigma), 1.0 / sigma
        for label, eps in (("linspace 0..10", np.linspace(0.0, 10.0, 1000)),
                           ("logspace -3..2", np.logspace(-3.0, 2.0, 1000))):
            def plain(eps: Array = eps, ratio: float = ratio) -> Array:
                return special.ndtr(ratio / 2 - eps / ratio) - np.exp(eps) * special.ndtr(-ratio / 2 - eps / ratio)

            variants = {
                "ndtr": plain,
                "prebuilt": lambda mech=mech, eps=eps: md.privacy_profile(mech, eps),
                "build": lambda sigma=sigma, eps=eps: md.privacy_profile(md.GaussianMechanism(sigma), eps),
            }
            times = interleaved(variants, 20)
            print(f"{sigma:>6g} {label:>15} {np.median(times['ndtr']) * 1e6:>9.1f} "
                  f"{np.median(times['prebuilt']) * 1e6:>12.1f} {summary(ratios(times, 'ndtr', 'prebuilt')):>18} "
                  f"{summary(ratios(times, 'ndtr', 'build')):>18}")
    print("  (x = scipy time / markovdp time; build = GaussianMechanism(sigma) constructed in every call)")


# ----------------------------------------------------------------------------------------- Gaussian epsilon


def bench_gaussian_epsilon() -> None:
    try:
        import dp_accounting
    except ImportError as exc:
        print(f"3. privacy_epsilon of a Gaussian: skipped ({exc})")
        return
    print("3. privacy_epsilon(GaussianMechanism(sigma), delta) vs dp_accounting.get_epsilon_gaussian(sigma, delta)")
    header = (f"{'sigma':>6} {'delta':>6} {'dp_acc us':>10} {'build us':>9} {'x build':>18} {'x prebuilt':>18} "
              f"{'eps (markovdp)':>19} {'rel diff':>9}")
    print(header)
    print("-" * len(header))
    md.privacy_epsilon(md.GaussianMechanism(1.0), 1e-5)  # compile or load the kernels
    for sigma in (0.5, 1.0, 5.0):
        mech = md.GaussianMechanism(sigma)
        for delta in (1e-5, 1e-10):
            variants = {
                "dp_accounting": lambda sigma=sigma, delta=delta: dp_accounting.get_epsilon_gaussian(sigma, delta),
                "build": lambda sigma=sigma, delta=delta: md.privacy_epsilon(md.GaussianMechanism(sigma), delta),
                "prebuilt": lambda mech=mech, delta=delta: md.privacy_epsilon(mech, delta),
            }
            times = interleaved(variants, 5)
            ours, theirs = md.privacy_epsilon(mech, delta), dp_accounting.get_epsilon_gaussian(sigma, delta)
            print(f"{sigma:>6g} {delta:>6.0e} {np.median(times['dp_accounting']) * 1e6:>10.0f} "
                  f"{np.median(times['build']) * 1e6:>9.0f} {summary(ratios(times, 'dp_accounting', 'build')):>18} "
                  f"{summary(ratios(times, 'dp_accounting', 'prebuilt')):>18} {ours:>19.15g} "
                  f"{(ours - theirs) / theirs:>9.1e}")
    print("  (x = dp_accounting time / markovdp time; rel diff = (markovdp − dp_accounting) / dp_accounting:\n"
          "   markovdp's eps is the conservative end of its search, dp_accounting's brentq's estimate)")


# ----------------------------------------------------------------------------------------- Rényi, all pairs


def gemm_renyi(matrix: Array, alpha: Array) -> Array:
    """max over ordered pairs i != j of R_alpha(K[i] || K[j]) by plain numpy: one matrix product per order."""
    log_k = np.log(matrix)
    out = np.empty(alpha.size)
    for n, a in enumerate(alpha):
        s = np.exp(a * log_k) @ np.exp((1.0 - a) * log_k).T
        np.fill_diagonal(s, 0.0)
        out[n] = np.log(s.max()) / (a - 1.0)
    return out


def bench_renyi_all_pairs() -> None:
    rng = np.random.default_rng(SEED)
    alpha = np.array([1.5, 2.0, 8.0, 32.0])
    print(f"4. renyi_profile of a k x k FiniteMechanism (all k(k-1) ordered pairs) at alpha = {alpha.tolist()}")
    print("   vs plain numpy (one matrix product per alpha)")
    header = (f"{'k':>5} {'numpy ms':>9} {'prebuilt ms':>12} {'x prebuilt':>18} {'x build':>18} {'max rel diff':>13}")
    print(header)
    print("-" * len(header))
    for k in (50, 200):
        matrix = random_kernel(k, k, rng)
        mech = md.FiniteMechanism(matrix)
        variants = {
            "numpy": lambda matrix=matrix: gemm_renyi(matrix, alpha),
            "prebuilt": lambda mech=mech: md.renyi_profile(mech, alpha),
            "build": lambda matrix=matrix: md.renyi_profile(md.FiniteMechanism(matrix), alpha),
        }
        times = interleaved(variants, 3)
        ours, plain = md.renyi_profile(mech, alpha), gemm_renyi(matrix, alpha)
        print(f"{k:>5} {np.median(times['numpy']) * 1e3:>9.2f} {np.median(times['prebuilt']) * 1e3:>12.2f} "
              f"{summary(ratios(times, 'numpy', 'prebuilt')):>18} {summary(ratios(times, 'numpy', 'build')):>18} "
              f"{np.max(np.abs(ours - plain) / plain):>13.1e}")
    print("  (x = numpy time / markovdp time; both run their products on OpenBLAS's threads: on a loaded machine\n"
          "   thread hand-offs dominate and the ratio scatters; OPENBLAS_NUM_THREADS=1 gives the single-core ratio)")


#: The sections by name: ``python -m benchmarks.exact_paths gaussian renyi`` runs those two only.
SECTIONS = {"finite": bench_finite_profile, "gaussian": bench_gaussian_profile, "epsilon": bench_gaussian_epsilon,
            "renyi": bench_renyi_all_pairs}


def main(names: list[str] | None = None) -> None:
    start = time.perf_counter()
    print(f"markovdp exact paths vs plain references: {os.cpu_count()} cpus, numba {numba.__version__}, "
          f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"(ratios: median [min, max] over {ROUNDS} interleaved rounds; > 1 means markovdp is faster)")
    for name in names or list(SECTIONS):
        print()
        SECTIONS[name]()
    print()
    print(f"total {time.perf_counter() - start:.1f} s; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
