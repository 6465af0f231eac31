"""Distribution estimation and heavy hitters with local frequency oracles, over (mechanism, k, n, eps) (SRP-Est).

Each of n users holds X_i ~ p (a Zipf law on k symbols, exponent 1.1) and sends one eps-LDP report. For every
grid point and repetition the script draws the reports, forms each oracle's unbiased estimate and reports:

- ``l1``, ``l2sq``: distribution estimation, ||p̂ − p||_1 and ||p̂ − p||²_2 of the unbiased estimate;
- ``l1_projected``, ``l2sq_projected``: the same after `project_simplex` (biased, never worse in l2);
- ``l1_ibu``, ``l2sq_ibu``: the same for the iterative Bayesian update (`ibu_estimate`, EM; in the simplex);
- ``linf_frequencies``: heavy hitters, max_x |f̂(x) − f(x)| against the users' own frequencies f (no law assumed);
- ``order``: k / (n eps²), the known order of the l2² risk with unlimited randomness (SRP-Est);
- ``randomness_bits``, ``output_entropy_bits``: private random bits per user and SRP's R = max_x H(Y | X = x).

The mechanisms are the registered frequency oracles (`markovdp.mechanisms.local.oracles`): an oracle registered with
`register_oracle` before the run is swept too (its factory travels to the workers with each task). The points
run on a dask cluster (``--scheduler``; a local one by default) with one child seed per (point,
repetition), so the Dataset is bit-identical for any scheduler. Writes ``data/frequency_estimation.nc``; the study
``simulations/randomness.py`` uses its losses.
Run: ``python simulations/frequency_estimation.py [--quick] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

import markovdp as md
from markovdp.mechanisms import local
from markovdp.mechanisms.local.ibu import ibu_estimate
from markovdp.mechanisms.local.oracles import ORACLES, RegisteredOracles
from markovdp.sweeps import atomic_write, open_executor, point_key, task_seed

#: name → factory (k, eps): the oracle registry itself. UE is simulated through its exact server counts
#: (`sample_counts`).
MECHANISMS = ORACLES
GRID = {"mechanism": RegisteredOracles(), "k": [16, 128], "n": [10_000, 100_000], "eps": [0.5, 1.0, 2.0, 4.0]}
QUICK_GRID = {"mechanism": RegisteredOracles(), "k": [8], "n": [2_000], "eps": [1.0, 4.0]}
LOSSES = ("l1", "l2sq", "l1_projected", "l2sq_projected", "linf_frequencies", "l1_ibu", "l2sq_ibu")
DEFAULT_SEED = 20261202


def zipf_law(k: int, exponent: float = 1.1) -> np.ndarray:
    """p_x ∝ (x + 1)^(−exponent) on {0..k−1}."""
    w = np.arange(1, k + 1, dtype=np.float64) ** -exponent
    return w / w.sum()


def point_losses(mechanism: str, k: int, n: int, eps: float, reps: int, root_entropy: int,
                 factory: Any = None) -> np.ndarray:
    """Losses (reps, len(LOSSES)) at one grid point; repetition r draws from its own child seed. `factory`: the
    oracle's factory(k, eps) (default: the registered one of that name)."""
    oracle = (factory or MECHANISMS[mechanism])(k, eps)
    p = zipf_law(k)
    key = point_key({"mechanism": mechanism, "k": k, "n": n, "eps": eps})
    root = np.random.SeedSequence(root_entropy)
    out = np.empty((reps, len(LOSSES)))
    for r in range(reps):
        rng = np.random.default_rng(task_seed(root, key, r))
        x = rng.choice(k, size=n, p=p)
        if isinstance(oracle, md.UnaryEncoding):
            counts = oracle.sample_counts(x, rng=rng)
            estimate = oracle.estimate_counts(counts, n)
            bayes = local.ibu(counts, oracle.count_rates)
        else:
            reports = oracle.sample(x, rng=rng)
            estimate = oracle.estimate(reports)
            bayes = ibu_estimate(oracle, reports)
        projected = local.project_simplex(estimate)
        out[r] = (local.l1_error(estimate, p), local.l2_squared_error(estimate, p), local.l1_error(projected, p),
                  local.l2_squared_error(projected, p), local.linf_error(estimate, local.empirical_frequencies(x, k)),
                  local.l1_error(bayes, p), local.l2_squared_error(bayes, p))
    return out


def frequency_estimation(grid: dict[str, list[Any]] = GRID, reps: int = 20, seed: int = DEFAULT_SEED,
                         scheduler: str | None = None) -> xr.Dataset:
    """The sweep as a Dataset: per-repetition losses (dims mechanism, k, n, eps, rep) and the reference order."""
    grid = {name: list(values) for name, values in grid.items()}  # the registry's names as of now
    names = list(grid)
    points = list(itertools.product(*(grid[name] for name in names)))
    with open_executor(scheduler) as executor:
        futures = [executor.submit(point_losses, *point, reps, seed, MECHANISMS[point[0]]) for point in points]
        results = [f.result() for f in futures]
    shape = tuple(len(grid[name]) for name in names)
    losses = np.stack(results).reshape(*shape, reps, len(LOSSES))
    dims = (*names, "rep")
    data = {name: (dims, losses[..., i]) for i, name in enumerate(LOSSES)}
    k = np.asarray(grid["k"], dtype=float)[:, None, None]
    n = np.asarray(grid["n"], dtype=float)[None, :, None]
    eps = np.asarray(grid["eps"], dtype=float)[None, None, :]
    data["order"] = (("k", "n", "eps"), k / (n * eps**2), {"long_name": "k / (n eps^2)", "units": "1"})
    bits = np.array([[[MECHANISMS[m](kk, e).randomness_bits for e in grid["eps"]] for kk in grid["k"]]
                     for m in grid["mechanism"]])
    entropy = np.array([[[MECHANISMS[m](kk, e).output_entropy_bits for e in grid["eps"]] for kk in grid["k"]]
                        for m in grid["mechanism"]])
    data["randomness_bits"] = (("mechanism", "k", "eps"), bits, {"long_name": "private random bits per user",
                                                                 "units": "bit"})
    data["output_entropy_bits"] = (("mechanism", "k", "eps"), entropy,
                                   {"long_name": "max_x H(Y | X = x)", "units": "bit"})
    ds = xr.Dataset(data, coords={**{name: grid[name] for name in names}, "rep": np.arange(reps)},
                    attrs={"theory_id": "SRP-Est", "input_law": "Zipf, exponent 1.1", "seed": seed,
                           "markovdp_version": md.__version__})
    long_names = {"l1": "l1 loss of the unbiased estimate", "l2sq": "squared l2 loss of the unbiased estimate",
                  "l1_projected": "l1 loss after projection on the simplex",
                  "l2sq_projected": "squared l2 loss after projection on the simplex",
                  "linf_frequencies": "heavy hitters: max |estimate − users' frequencies|",
                  "l1_ibu": "l1 loss of the iterative Bayesian update (EM)",
                  "l2sq_ibu": "squared l2 loss of the iterative Bayesian update (EM)"}
    for name, long_name in long_names.items():
        ds[name].attrs.update(long_name=long_name, units="1")
    ds["eps"].attrs.update(long_name="privacy level eps", units="nats")
    ds["n"].attrs.update(long_name="number of users", units="1")
    ds["k"].attrs.update(long_name="alphabet size", units="1")
    return ds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("data") / "frequency_estimation.nc")
    parser.add_argument("--quick", action="store_true", help="a small grid (seconds)")
    parser.add_argument("--reps", type=int, default=20, help="repetitions per grid point")
    parser.add_argument("--scheduler", default=None, help="a dask scheduler address, or synchronous/threads/processes")
    args = parser.parse_args()
    ds = frequency_estimation(QUICK_GRID if args.quick else GRID, reps=args.reps, scheduler=args.scheduler)
    with atomic_write(args.out) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    ratio = (ds["l2sq"].mean("rep") / ds["order"]).sel(mechanism="OUE")
    print(f"wrote {args.out}: OUE's mean l2² / (k / (n eps²)) between {float(ratio.min()):.3g} "
          f"and {float(ratio.max()):.3g}")


if __name__ == "__main__":
    main()
