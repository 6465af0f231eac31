"""Fitted convergence orders of `EulerMaruyama` and `Milstein` (STD-EulerMaruyama, STD-Milstein), issue 7 §2.

Weak order, on OU (BBGG-OU, dX = −θX dt + √2ρ dW, θ = 1, ρ = 0.5, T = 1): the errors of E[X_T] (paths from x0 = 1)
and of E[X_T²] (paths from 0, where it is the variance ρ²/θ (1 − e^{−2θT})) against the exact transition, and on
geometric Brownian motion (below), E[X_T] = x0 e^{μT}, at dt = 2^-2 … 2^-6 (on OU the noise is additive and Milstein
is Euler–Maruyama, so GBM is the weak test that tells them apart). Strong order, on geometric Brownian motion (dX =
μX dt + σX dW, μ = 0.5, σ = 0.8, x0 = 1): E|X_T − exp((μ − σ²/2)T + σW_T)| with W_T summed from the very increments
the integrator drew (the documented stream: block b's xoshiro256++ state, its normals in (path, step) order), at dt
= 2^-4 … 2^-9. Each order is the least-squares slope of log error on log dt, with its standard error by the delta
method (sd(log e) = se/e).
Writes ``data/sde_orders.csv``. Run: ``python simulations/sde_orders.py [--paths N]``.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from numba import njit

from markovdp._fast_normal import fill_normals
from markovdp.diffusions.sde import SDE
from markovdp.diffusions.simulate import BLOCK_PATHS, block_state, simulate
from markovdp.diffusions.solvers import EulerMaruyama, Milstein

THETA, RHO = 1.0, 0.5  # coordinate 0: OU
MU, SIGMA = 0.5, 0.8  # coordinate 1: GBM
T1 = 1.0
WEAK_DT = 2.0 ** -np.arange(2, 7)
STRONG_DT = 2.0 ** -np.arange(4, 10)
FIELDS = ("solver", "order", "quantity", "dt", "error", "standard_error")


@njit
def drift(x, out):
    out[0] = -THETA * x[0]
    out[1] = MU * x[1]


@njit
def diffusion(x, out):
    out[0] = math.sqrt(2.0) * RHO
    out[1] = SIGMA * x[1]


SDE_PAIR = SDE(drift, diffusion, 2)


def fitted_order(h: np.ndarray, err: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of log err on log h and its standard error (delta method)."""
    lh = np.log(h)
    w = (lh - lh.mean()) / ((lh - lh.mean()) ** 2).sum()
    return float(w @ np.log(err)), float(np.sqrt((w**2 * (se / err) ** 2).sum()))


def weak_rows(solver, n: int, seed: int) -> list[dict]:
    mean = math.exp(-THETA * T1)
    second = RHO**2 / THETA * (1.0 - math.exp(-2.0 * THETA * T1))
    x0 = np.column_stack([np.repeat([1.0, 0.0], n), np.ones(2 * n)])
    rows = []
    for i, dt in enumerate(WEAK_DT):
        x = simulate(SDE_PAIR, solver, x0, t1=T1, dt=float(dt), rng=seed + i)
        for quantity, values, exact in (("OU E[X_T], x0 = 1", x[:n, 0], mean),
                                        ("OU E[X_T^2], x0 = 0", x[n:, 0] ** 2, second),
                                        ("GBM E[X_T], x0 = 1", x[:, 1], math.exp(MU * T1))):
            rows.append({"solver": type(solver).__name__, "order": "weak", "quantity": quantity, "dt": float(dt),
                         "error": abs(values.mean() - exact), "standard_error": values.std() / math.sqrt(n)})
    return rows


def brownian_endpoint(seed: int, n: int, steps: int, dt: float) -> np.ndarray:
    """W_T of coordinate 1 from the integrator's own normals (block by block, the documented layout)."""
    ends = []
    for b, start in enumerate(range(0, n, BLOCK_PATHS)):
        z = np.empty((min(BLOCK_PATHS, n - start), steps, 2))
        fill_normals(block_state((seed, ()), b), z)
        ends.append(math.sqrt(dt) * z[:, :, 1].sum(axis=1))
    return np.concatenate(ends)


def strong_rows(solver, n: int, seed: int) -> list[dict]:
    rows = []
    for dt in STRONG_DT:
        steps = round(T1 / dt)
        x = simulate(SDE_PAIR, solver, [0.0, 1.0], n_paths=n, t1=T1, dt=float(dt), rng=seed)[:, 1]
        w = brownian_endpoint(seed, n, steps, float(dt))
        e = np.abs(x - np.exp((MU - SIGMA**2 / 2.0) * T1 + SIGMA * w))
        rows.append({"solver": type(solver).__name__, "order": "strong", "quantity": "E|X_T - exact(W_T)|, GBM",
                     "dt": float(dt), "error": e.mean(), "standard_error": e.std() / math.sqrt(n)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=2_000_000, help="paths per weak-order point (strong: /100)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "data" / "sde_orders.csv")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = []
    for solver in (EulerMaruyama(), Milstein()):
        rows += weak_rows(solver, args.paths, seed=100)
        rows += strong_rows(solver, max(args.paths // 100, BLOCK_PATHS), seed=7)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{'solver':>14} {'order':>6} {'quantity':>28} {'fitted':>7} {'± s.e.':>7} {'theory':>6}  "
          f"errors / s.e. at each dt")
    for solver in (EulerMaruyama(), Milstein()):
        for kind, quantity in sorted({(r["order"], r["quantity"]) for r in rows}, reverse=True):
            sub = [r for r in rows if r["solver"] == type(solver).__name__ and r["quantity"] == quantity]
            if not sub:
                continue
            h, err, se = (np.array([r[k] for r in sub]) for k in ("dt", "error", "standard_error"))
            slope, sd = fitted_order(h, err, se)
            theory = solver.weak_order if kind == "weak" else solver.strong_order
            print(f"{type(solver).__name__:>14} {kind:>6} {quantity:>28} {slope:>7.3f} {sd:>7.3f} {theory:>6.1f}  "
                  + " ".join(f"{e / s:.0f}" for e, s in zip(err, se, strict=True)))
    print(f"(wrote {args.out}; {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
