"""The OU mechanism against the Gaussian mechanism with the same RDP, over (theta, rho, t, d, R) (BBGG-MSE, BBGG-T8).

At every grid point the query value is f = R e_1 (||f|| = R, the worst case of the ratio: E_OU grows with ||f||,
E_GM does not depend on f). The script records

- ``ou_mse``, ``gm_mse``, ``pgm_bound``: E_OU, E_GM = d s~² and the post-processed Gaussian bound (BBGG-MSE);
- ``ratio``: E_OU/E_GM (the closed form e^(−2 theta t)(1 + c tanh(theta t/2)), c = theta R²/(d rho²));
- ``ratio_mc``, ``ratio_mc_se``: a Monte Carlo estimate of E_OU (numpy draws of N(e^(−theta t) f, s_t² I)) over
  E_GM, with its standard error;
- ``hypothesis``: BBGG-T8's theta R² <= 4 d rho²; ``violation``: hypothesis and ratio > 1 (never, by BBGG-T8);
- ``limit``: e^(−2 theta t)(1 + c), the t → ∞ behaviour of the ratio (→ 0).

One task per (theta, rho) on dask (``--scheduler``; a local cluster by default), with a child seed per grid point
addressed by value, so the Dataset does not depend on the scheduler. The study ``simulations/ou_vs_gaussian.py``
runs this sweep as its BBGG-T8 (i) part; alone it writes ``data/ou_mse.nc``.
Run: ``python simulations/ou_mse.py [--quick] [--out FILE] [--samples N]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

import markovdp as md
from markovdp.diffusions import (
    matched_gaussian_mse,
    ou_mse,
    ou_mse_ratio,
    ou_theorem8_condition,
    post_processed_gaussian_mse,
)
from markovdp.sweeps import atomic_write, open_executor, point_key, task_seed

GRID = {"theta": [0.1, 0.5, 1.0, 2.0, 5.0], "rho": [0.25, 0.5, 1.0, 2.0],
        "t": list(np.logspace(-3.0, 1.5, 28)), "dim": [1, 4, 16], "radius": [0.5, 1.0, 2.0, 4.0]}
QUICK_GRID = {"theta": [0.5, 2.0], "rho": [0.5, 1.0], "t": list(np.logspace(-2.0, 1.0, 10)), "dim": [1, 4],
              "radius": [1.0, 4.0]}
INNER = ("t", "dim", "radius")
FIELDS = ("ou_mse", "gm_mse", "pgm_bound", "ratio", "ratio_mc", "ratio_mc_se", "hypothesis", "limit")
DEFAULT_SEED = 20261203


def point_values(theta: float, rho: float, grid: dict[str, list[Any]], samples: int,
                 root_entropy: int) -> np.ndarray:
    """FIELDS at every (t, dim, radius) for one (theta, rho): shape (len t, len dim, len radius, len FIELDS)."""
    root = np.random.SeedSequence(root_entropy)
    out = np.empty((*(len(grid[k]) for k in INNER), len(FIELDS)))
    for (i, t), (j, d), (k, radius) in itertools.product(*(enumerate(grid[k]) for k in INNER)):
        f = np.zeros(d)
        f[0] = radius
        gm = matched_gaussian_mse(theta, rho, t, d)
        key = point_key({"theta": theta, "rho": rho, "t": t, "dim": d, "radius": radius})
        rng = np.random.default_rng(task_seed(root, key, 0))
        s_t = rho * math.sqrt(-math.expm1(-2.0 * theta * t) / theta)
        draws = math.exp(-theta * t) * f + s_t * rng.standard_normal((samples, d))
        errors = ((draws - f) ** 2).sum(axis=1)
        c = theta * radius**2 / (d * rho**2)
        out[i, j, k] = (ou_mse(theta, rho, t, f), gm, post_processed_gaussian_mse(theta, rho, t, d, radius),
                        ou_mse_ratio(theta, rho, t, d, radius), errors.mean() / gm,
                        errors.std(ddof=1) / math.sqrt(samples) / gm, ou_theorem8_condition(theta, rho, d, radius),
                        math.exp(-2.0 * theta * t) * (1.0 + c))
    return out


def ou_mse_sweep(grid: dict[str, list[Any]] = GRID, samples: int = 4000, seed: int = DEFAULT_SEED,
                 scheduler: str | None = None) -> xr.Dataset:
    """The sweep as a Dataset over (theta, rho, t, dim, radius)."""
    outer = list(itertools.product(grid["theta"], grid["rho"]))
    with open_executor(scheduler) as executor:
        futures = [executor.submit(point_values, theta, rho, grid, samples, seed) for theta, rho in outer]
        results = [f.result() for f in futures]
    values = np.stack(results).reshape(len(grid["theta"]), len(grid["rho"]), *results[0].shape)
    dims = ("theta", "rho", *INNER)
    data = {name: (dims, values[..., n]) for n, name in enumerate(FIELDS)}
    data["hypothesis"] = (dims, values[..., FIELDS.index("hypothesis")].astype(bool))
    data["violation"] = (dims, data["hypothesis"][1] & (values[..., FIELDS.index("ratio")] > 1.0))
    ds = xr.Dataset(data, coords={name: grid[name] for name in dims},
                    attrs={"theory_id": "BBGG-MSE, BBGG-T8", "query_value": "f = radius e_1 (the worst case)",
                           "samples": samples, "seed": seed, "markovdp_version": md.__version__})
    attrs = {"ou_mse": ("E_OU = E||f - M_t(f)||^2", "units of f squared"),
             "gm_mse": ("E_GM = d s~^2, Gaussian mechanism with the same RDP", "units of f squared"),
             "pgm_bound": ("E_GM (1 + d s~^2/R^2)^-1, post-processed Gaussian", "units of f squared"),
             "ratio": ("E_OU / E_GM", "1"), "ratio_mc": ("Monte Carlo E_OU / E_GM", "1"),
             "ratio_mc_se": ("standard error of ratio_mc", "1"),
             "hypothesis": ("theta R^2 <= 4 d rho^2 (BBGG-T8)", "1"),
             "violation": ("hypothesis and ratio > 1", "1"),
             "limit": ("exp(-2 theta t)(1 + theta R^2/(d rho^2)), the t -> inf behaviour", "1")}
    for name, (long_name, units) in attrs.items():
        ds[name].attrs.update(long_name=long_name, units=units)
    ds["t"].attrs.update(long_name="diffusion time t", units="time")
    ds["theta"].attrs.update(long_name="OU drift theta", units="1/time")
    ds["rho"].attrs.update(long_name="OU noise rho", units="units of f / sqrt(time)")
    ds["radius"].attrs.update(long_name="R = ||f||", units="units of f")
    ds["dim"].attrs.update(long_name="dimension d", units="1")
    return ds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("data") / "ou_mse.nc")
    parser.add_argument("--quick", action="store_true", help="a small grid (seconds)")
    parser.add_argument("--samples", type=int, default=4000, help="Monte Carlo draws per grid point")
    parser.add_argument("--scheduler", default=None, help="a dask scheduler address, or synchronous/threads/processes")
    args = parser.parse_args()
    ds = ou_mse_sweep(QUICK_GRID if args.quick else GRID, samples=args.samples, scheduler=args.scheduler)
    with atomic_write(args.out) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    held = ds["ratio"].where(ds["hypothesis"])
    z = np.abs(ds["ratio_mc"] - ds["ratio"]) / ds["ratio_mc_se"]
    print(f"wrote {args.out}: {int(ds['hypothesis'].sum())} of {ds['hypothesis'].size} points meet theta R² <= "
          f"4 d rho²; there E_OU/E_GM <= 1: {not bool(ds['violation'].any())} (max {float(held.max()):.6f}); "
          f"at t = {float(ds['t'].max()):.3g} the largest ratio is {float(ds['ratio'].isel(t=-1).max()):.3g}; "
          f"Monte Carlo within 5 standard errors: {float((z <= 5).mean()):.4f} of the points")


if __name__ == "__main__":
    main()
