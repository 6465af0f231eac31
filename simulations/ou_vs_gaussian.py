"""The OU mechanism against the Gaussian mechanism at equal RDP: BBGG Eq. (4), E_GM, E_PGM, Theorem 8 and its remark.

Two sweeps, Monte Carlo against the closed forms (BBGG-MSE, BBGG-T8, BBGG-C7, BBGG-OU):

- **free (theta, rho)** (BBGG-T8 (i)): ``simulations/ou_mse.py``'s sweep over (theta, rho, t, d, R) at f = R e_1
  (the worst case), variables prefixed ``free_`` on the dimensions ``free_theta, free_rho, free_t, free_d, free_R``;
- **Theorem 8 (ii)** over (d, R, eps, t), Delta = 1: theta = log(1 + d Delta²/(2 eps R²)),
  rho² = theta Delta²/(2 eps (e^(2 theta) − 1)) (`ou_theorem8_parameters`), and at every t the Gaussian mechanism
  with the same RDP (s~² = rho² (e^(2 theta t) − 1)/theta). At f = R e_1: E_OU by Eq. (4) and by simulating the OU
  transition (`OrnsteinUhlenbeckSemigroup.sample_at`); E_GM = d s~² and by simulating f + N(0, s~² I); the
  post-processed Gaussian beta* (f + N(0, s~² I)), beta* = R²/(R² + d s~²), simulated at ||f|| = R and R/2 against the
  bound E_GM (1 + d s~²/R²)^(−1); the RDP slopes: Lambda(t) (BBGG-C7), Delta²/(2 s~²) and the exact
  R_2(M_t(0) || M_t(Delta e_1))/2 of the OU outputs (`md.renyi`). Squared errors are in units of f squared, RDP in
  nats.

Monte Carlo z-scores are judged against the Bonferroni threshold z* = Phi^(−1)(1 − 0.001/(2 N)) over the N points of a
family (a family-wise false alarm of 0.1%). One dask task per (d, R, eps); every point's draws come from a child
of ``--seed`` addressed by its coordinates, so the result does not depend on the scheduler.
Run: ``python -m simulations.ou_vs_gaussian [--quick] [--scheduler ...]``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.cm import ScalarMappable
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from scipy.stats import norm

import markovdp as md
from markovdp.diffusions import (
    matched_gaussian_mse,
    matched_gaussian_variance,
    ou_intrinsic_sensitivity,
    ou_mse,
    ou_mse_ratio,
    ou_theorem8_condition,
    ou_theorem8_parameters,
    ou_theorem8_ratio_bound,
    post_processed_gaussian_mse,
)
from markovdp.sweeps import open_executor, point_key, task_seed
from simulations import ou_mse as free_sweep
from simulations.study import Claim, run_study

NAME = "ou_vs_gaussian"
DELTA = 1.0  # the L2 sensitivity of f
GRID = {"d": [1, 4, 16, 64], "R": [0.25, 1.0, 4.0], "eps": [0.05, 0.25, 1.0, 4.0],
        "t": sorted({*np.logspace(-2.0, 1.0, 16).tolist(), 1.0})}  # t = 1: BBGG-T8 (ii)
QUICK_GRID = {"d": [1, 16], "R": [1.0, 4.0], "eps": [0.25, 2.0], "t": [0.01, 0.1, 0.5, 1.0, 2.0, 10.0]}
SAMPLES, QUICK_SAMPLES = 20000, 1000
OUTER = ("d", "R", "eps")
FIELDS = ("theta", "rho", "ou_mse", "ou_mse_mc", "ou_mse_se", "gm_mse", "gm_mse_mc", "gm_mse_se", "pgm_bound",
          "pgm_mc", "pgm_se", "pgm_half_mc", "pgm_half_se", "ratio", "ratio_bound", "hypothesis", "lambda_ou",
          "lambda_gm", "renyi2_half")
ALPHA = 2.0  # the Rényi order of the exact check of the RDP slope


def _mean_se(errors: np.ndarray) -> tuple[float, float]:
    return float(errors.mean()), float(errors.std(ddof=1) / math.sqrt(errors.size))


def t8_point(d: int, radius: float, eps: float, t: float, samples: int, root: np.random.SeedSequence) -> list[float]:
    """FIELDS at one (d, R, eps, t) with BBGG-T8 (ii)'s (theta, rho) and Delta = DELTA."""
    theta, rho = ou_theorem8_parameters(eps, DELTA, radius, d)
    key = point_key({"d": d, "R": radius, "eps": eps, "t": t})
    f = np.zeros(d)
    f[0] = radius
    ou = md.OrnsteinUhlenbeckSemigroup(theta, rho, d)
    draws = ou.sample_at(t, np.broadcast_to(f, (samples, d)).copy(), np.random.default_rng(task_seed(root, key, 0)))
    ou_mc = _mean_se(((draws - f) ** 2).sum(axis=1))
    s2 = matched_gaussian_variance(theta, rho, t)
    gm_out = f + math.sqrt(s2) * np.random.default_rng(task_seed(root, key, 1)).standard_normal((samples, d))
    gm_mc = _mean_se(((gm_out - f) ** 2).sum(axis=1))
    beta = radius**2 / (radius**2 + d * s2)  # beta*, tuned to ||f|| <= R
    pgm_mc = _mean_se(((beta * gm_out - f) ** 2).sum(axis=1))
    half = 0.5 * f
    half_out = half + math.sqrt(s2) * np.random.default_rng(task_seed(root, key, 2)).standard_normal((samples, d))
    half_mc = _mean_se(((beta * half_out - half) ** 2).sum(axis=1))
    s_t = math.sqrt(rho**2 / theta * -math.expm1(-2.0 * theta * t))
    shift = np.zeros(d)
    shift[0] = DELTA
    a = math.exp(-theta * t)
    renyi = md.renyi(md.MultivariateNormal(np.zeros(d), s_t**2 * np.eye(d)),
                     md.MultivariateNormal(a * shift, s_t**2 * np.eye(d)), alpha=ALPHA)
    return [theta, rho, ou_mse(theta, rho, t, f), *ou_mc, matched_gaussian_mse(theta, rho, t, d), *gm_mc,
            post_processed_gaussian_mse(theta, rho, t, d, radius), *pgm_mc, *half_mc,
            ou_mse_ratio(theta, rho, t, d, radius), ou_theorem8_ratio_bound(eps, DELTA, radius, d),
            float(ou_theorem8_condition(theta, rho, d, radius)), ou_intrinsic_sensitivity(theta, rho, DELTA, t),
            DELTA**2 / (2.0 * s2), float(renyi) / ALPHA]


def t8_task(d: int, radius: float, eps: float, ts: list[float], samples: int, seed: int) -> np.ndarray:
    """FIELDS over t for one (d, R, eps): shape (len ts, len FIELDS)."""
    root = np.random.SeedSequence(seed)
    return np.array([t8_point(d, radius, eps, t, samples, root) for t in ts])


def t8_sweep(grid: dict[str, list[Any]], samples: int, seed: int, scheduler_name: str | None) -> xr.Dataset:
    """BBGG-T8 (ii)'s parameters over (d, R, eps, t), one task per (d, R, eps)."""
    outer = list(itertools.product(*(grid[k] for k in OUTER)))
    with open_executor(scheduler_name) as executor:
        futures = [executor.submit(t8_task, d, r, e, grid["t"], samples, seed) for d, r, e in outer]
        values = np.stack([f.result() for f in futures]).reshape(*(len(grid[k]) for k in OUTER), len(grid["t"]), -1)
    dims = (*OUTER, "t")
    ds = xr.Dataset({name: (dims, values[..., n]) for n, name in enumerate(FIELDS)}, coords=grid)
    ds["hypothesis"] = ds["hypothesis"].astype(bool)
    units = {"theta": "1/time", "rho": "units of f / sqrt(time)", "lambda_ou": "nats", "lambda_gm": "nats",
             "renyi2_half": "nats", "ratio": "1", "ratio_bound": "1", "hypothesis": "1"}
    for name in FIELDS:
        ds[name].attrs["units"] = units.get(name, "units of f squared")
    ds.attrs.update(t8_sensitivity=DELTA, t8_samples=samples, t8_query_value="f = R e_1 (the worst case)")
    return ds


def free_dataset(quick: bool, samples: int, seed: int, scheduler_name: str | None) -> xr.Dataset:
    """`simulations/ou_mse.py`'s sweep, its variables and dimensions prefixed ``free_``."""
    grid = free_sweep.QUICK_GRID if quick else free_sweep.GRID
    ds = free_sweep.ou_mse_sweep(grid, samples=samples, seed=seed, scheduler=scheduler_name)
    names = {"theta": "free_theta", "rho": "free_rho", "t": "free_t", "dim": "free_d", "radius": "free_R"}
    ds = ds.rename({**names, **{v: f"free_{v}" for v in ds.data_vars}})
    ds.attrs = {}
    return ds


def z_threshold(n: int) -> float:
    """Bonferroni: |z| above this at any of n points has probability <= 0.001 under the formula."""
    return float(norm.isf(0.001 / (2.0 * n)))


def _z(mc: xr.DataArray, se: xr.DataArray, formula: xr.DataArray) -> np.ndarray:
    """(mc − formula)/se; 0 where both the difference and se are 0 (every draw rounds to the same error: at large
    s~² the post-processed output beta* (f + Z) is ~R²/(sqrt(d) s~), so ||output − f||² = ||f||² in doubles)."""
    diff, err = (mc - formula).values.ravel(), se.values.ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((diff == 0.0) & (err == 0.0), 0.0, diff / err)


def claims_of(ds: xr.Dataset) -> list[Claim]:
    claims = []
    z_free = _z(ds["free_ratio_mc"], ds["free_ratio_mc_se"], ds["free_ratio"])
    z_ou = _z(ds["ou_mse_mc"], ds["ou_mse_se"], ds["ou_mse"])
    z_all = np.concatenate([z_free, z_ou])
    zs = z_threshold(z_all.size)
    claims.append(Claim(
        "BBGG-MSE Eq. (4): E_OU", "E||f − M_t(f)||² = (1 − e^(−θt))² ||f||² + d (ρ²/θ)(1 − e^(−2θt))",
        f"Monte Carlo vs Eq. (4) at {z_all.size} points (f = R e_1): max |z| = {np.abs(z_all).max():.2f} "
        f"(Bonferroni z* = {zs:.2f}), mean z² = {np.mean(z_all**2):.3f} (1 expected)", bool(np.abs(z_all).max() <= zs)))
    z_gm = _z(ds["gm_mse_mc"], ds["gm_mse_se"], ds["gm_mse"])
    rel_lam = float(np.max(np.abs(ds["lambda_gm"] / ds["lambda_ou"] - 1)))
    rel_renyi = float(np.max(np.abs(ds["renyi2_half"] / ds["lambda_ou"] - 1)))
    zs = z_threshold(z_gm.size)
    claims.append(Claim(
        "BBGG-MSE: E_GM (with BBGG-C7)", "E_GM = d s~², s~² = ρ²(e^(2θt) − 1)/θ: the Gaussian mechanism with the "
        "OU mechanism's RDP",
        f"Delta²/(2 s~²) vs Lambda(t): max rel. diff {rel_lam:.1e}; exact R_2/2 of the OU outputs vs Lambda(t): "
        f"{rel_renyi:.1e}; Monte Carlo E_GM vs d s~²: max |z| = {np.abs(z_gm).max():.2f} (z* = {zs:.2f}) "
        f"at {z_gm.size} points", bool(rel_lam < 1e-9 and rel_renyi < 1e-6 and np.abs(z_gm).max() <= zs)))
    z_pgm = np.concatenate([_z(ds["pgm_mc"], ds["pgm_se"], ds["pgm_bound"]),
                            _z(ds["pgm_half_mc"], ds["pgm_half_se"], ds["pgm_bound"])])
    zs = z_threshold(z_pgm.size)
    claims.append(Claim(
        "BBGG-MSE: E_PGM", "β(f + N(0, s~² I)), β optimised for ||f|| <= R: E_PGM <= E_GM (1 + d s~²/R²)^(−1)",
        f"β* = R²/(R² + d s~²) simulated at ||f|| = R and R/2 ({z_pgm.size} points): largest z above the bound "
        f"{z_pgm.max():.2f} (z* = {zs:.2f}); at ||f|| = R it is the bound (max |z| = "
        f"{np.abs(z_pgm[: z_pgm.size // 2]).max():.2f}); at R/2 the mean is "
        f"{float((ds['pgm_half_mc'] / ds['pgm_bound']).mean()):.3f} of the bound; {int((ds['pgm_se'] == 0).sum())} "
        f"points have zero spread (every draw's error rounds to R²: z = 0)", bool(z_pgm.max() <= zs)))
    hyp = ds["free_hypothesis"]
    held = ds["free_ratio"].where(hyp)
    z_held = ((ds["free_ratio_mc"] - 1.0) / ds["free_ratio_mc_se"]).where(hyp)
    n_hyp = int(hyp.sum())
    worst_out = ds["free_ratio"].where(~hyp).max("free_t")
    claims.append(Claim(
        "BBGG-T8 (i): E_OU/E_GM <= 1", "if sup||f|| <= R and θR² <= 4dρ², E_OU/E_GM <= 1 for all t >= 0",
        f"{n_hyp} of {hyp.size} (θ, ρ, t, d, R) points meet θR² <= 4dρ²: max ratio {float(held.max()):.4f}, "
        f"Monte Carlo max z above 1 = {float(z_held.max()):.2f}; where θR² > 4dρ² the ratio exceeds 1 at some t "
        f"for {int((worst_out > 1).sum())} of {int(worst_out.notnull().sum())} (θ, ρ, d, R) "
        f"(the hypothesis is sharp: ratio = 1 + (c/2 − 2)θt + O(t²), c = θR²/(dρ²))",
        bool(held.max() <= 1.0 and z_held.max() <= z_threshold(n_hyp))))
    c = ds["free_theta"] * ds["free_R"] ** 2 / (ds["free_d"] * ds["free_rho"] ** 2)
    envelope = np.exp(-2.0 * ds["free_theta"] * ds["free_t"]) * (1.0 + c)
    late = ds["free_ratio"].isel(free_t=-1)
    claims.append(Claim(
        "BBGG-T8 (i): E_OU/E_GM → 0 as t → ∞", "lim_{t→∞} E_OU/E_GM = 0 (when θR² <= 4dρ²)",
        f"ratio <= e^(−2θt)(1 + c) (→ 0) at every point: {bool((ds['free_ratio'] <= envelope * (1 + 1e-12)).all())}; "
        f"at t = {float(ds['free_t'][-1]):.3g} the largest ratio is {float(late.where(hyp.isel(free_t=-1)).max()):.2e} "
        f"(hypothesis) and {float(late.max()):.2e} (all points)",
        bool((ds["free_ratio"] <= envelope * (1 + 1e-12)).all())))
    at1 = ds.sel(t=1.0)
    rel_eps = float(np.max(np.abs(at1["lambda_ou"] / at1["eps"] - 1)))
    rel_eps_exact = float(np.max(np.abs(at1["renyi2_half"] / at1["eps"] - 1)))
    claims.append(Claim(
        "BBGG-T8 (ii): (α, α eps)-RDP at t = 1", "θ = log(1 + dΔ²/(2 eps R²)), ρ² = θΔ²/(2 eps (e^(2θ) − 1)): "
        "M_1 is (α, α eps)-RDP",
        f"Lambda(1)/eps − 1: max {rel_eps:.1e}; exact R_2(M_1(0) || M_1(Δe_1))/(2 eps) − 1: max {rel_eps_exact:.1e} "
        f"over {at1['eps'].size * at1['d'].size * at1['R'].size} (d, R, eps)",
        bool(rel_eps < 1e-9 and rel_eps_exact < 1e-6)))
    z1 = _z(at1["ou_mse_mc"] / at1["gm_mse"], at1["ou_mse_se"] / at1["gm_mse"], at1["ratio_bound"])
    zs = z_threshold(z1.size)
    excess = float((at1["ratio"] / at1["ratio_bound"] - 1).max())
    claims.append(Claim(
        "BBGG-T8 (ii): ratio bound at t = 1", "E_OU(θ, ρ, 1)/E_GM(θ, ρ, 1) <= (1 + dΔ²/(2 eps R²))^(−1)",
        f"closed form / bound − 1: max {excess:.1e} (equality at ||f|| = R); Monte Carlo: largest z above the bound "
        f"{z1.max():.2f} (z* = {zs:.2f}) over {z1.size} (d, R, eps); bounds from "
        f"{float(at1['ratio_bound'].min()):.3g} to {float(at1['ratio_bound'].max()):.3g}",
        bool(excess <= 1e-12 and z1.max() <= zs)))
    egm = at1["d"] * DELTA**2 / (2 * at1["eps"])
    eou_bound = at1["d"] * DELTA**2 * at1["R"] ** 2 / (2 * at1["eps"] * at1["R"] ** 2 + at1["d"] * DELTA**2)
    rel_gm = float(np.abs(at1["gm_mse"] / egm - 1).max())
    over = float((at1["ou_mse"] / eou_bound - 1).max())
    rel_pgm = float(np.abs(at1["ou_mse"] / at1["pgm_bound"] - 1).max())
    claims.append(Claim(
        "BBGG-T8 remark: E_GM(θ, ρ, 1) and E_OU(θ, ρ, 1)", "E_GM(θ, ρ, 1) = dΔ²/(2 eps); E_OU(θ, ρ, 1) <= "
        "dΔ²R²/(2 eps R² + dΔ²): the error of the optimally post-processed Gaussian mechanism",
        f"E_GM/(dΔ²/(2 eps)) − 1: max |.| {rel_gm:.1e}; E_OU/bound − 1: max {over:.1e}; E_OU vs the E_PGM bound: "
        f"max rel. diff {rel_pgm:.1e}", bool(rel_gm < 1e-9 and over <= 1e-12 and rel_pgm < 1e-9)))
    per_r2 = at1["ou_mse"] / at1["R"] ** 2
    small_eps, big_d = per_r2.isel(eps=0), per_r2.isel(d=-1)
    claims.append(Claim(
        "BBGG-T8 remark: error bounded, O(R²)", "E_OU(θ, ρ, 1) behaves like O(R²) with Δ fixed and eps → 0 or d → ∞ "
        "(while E_GM = dΔ²/(2 eps) grows)",
        f"E_OU/R² <= 1 everywhere: {bool((per_r2 <= 1 + 1e-12).all())}; at eps = {float(small_eps['eps']):g}: "
        f"E_OU/R² in [{float(small_eps.min()):.3f}, {float(small_eps.max()):.3f}]; at d = {int(big_d['d'])}: "
        f"[{float(big_d.min()):.3f}, {float(big_d.max()):.3f}] (max E_GM there {float(at1['gm_mse'].max()):.3g})",
        bool((per_r2 <= 1 + 1e-12).all())))
    ii_ratio_max = ds["ratio"].max("t")
    bad = ~ds["hypothesis"].isel(t=0)
    x = ds["d"] * DELTA**2 / (2 * ds["eps"] * ds["R"] ** 2)
    claims.append(Claim(
        "BBGG-T8 remark: OU uniformly better than GM for any level of privacy",
        "at every RDP level eps the OU mechanism ((ii)'s θ, ρ at t = 1) has E_OU <= E_GM",
        f"E_OU/E_GM at t = 1 (RDP eps) <= 1 at all {at1['ratio'].size} (d, R, eps): "
        f"{bool((at1['ratio'] <= 1).all())} (max {float(at1['ratio'].max()):.3f}; Monte Carlo max "
        f"{float((at1['ou_mse_mc'] / at1['gm_mse']).max()):.3f})", bool((at1["ratio"] <= 1).all())))
    outside = ii_ratio_max.where(bad)  # max over t of E_OU/E_GM where (i)'s hypothesis fails
    claims.append(Claim(
        "BBGG-T8 'In particular': (ii) is a case of (i)",
        "'In particular, taking θ = …': read as (ii)'s θ, ρ being an instance of (i), i.e. E_OU/E_GM <= 1 for all t "
        "with them too (the seed does not check (i)'s hypothesis for them)",
        f"(ii)'s (θ, ρ) meet θR² <= 4dρ² only where dΔ²/(2 eps R²) <= 2 (docs/theory.md's note): the hypothesis "
        f"fails at {int(bad.sum())} of {bad.size} (d, R, eps) (dΔ²/(2 eps R²) > 2 at {int((x > 2).sum())}); there max "
        f"over t of E_OU/E_GM is {float(outside.min()):.3f} to {float(outside.max()):.3f} "
        f"(above 1 at {int((outside > 1).sum())}, at small t): the t = 1 bound holds, "
        f"'for all t' does not", bool((ii_ratio_max <= 1.0).all())))
    return claims


def run(quick: bool, seed: int, scheduler_name: str | None) -> tuple[xr.Dataset, list[Claim]]:
    samples = QUICK_SAMPLES if quick else SAMPLES
    ds = xr.merge([free_dataset(quick, samples, seed, scheduler_name),
                   t8_sweep(QUICK_GRID if quick else GRID, samples, seed, scheduler_name)], combine_attrs="override")
    ds.attrs.update(theory_id="BBGG-MSE, BBGG-T8, BBGG-C7, BBGG-OU", samples=samples)
    return ds, claims_of(ds)


def plot_ratio(ds: xr.Dataset) -> Figure:
    """E_OU / E_GM at equal RDP over t (left) and the Monte Carlo z-scores of E_OU, E_GM, E_PGM (right)."""
    fig, (ax, ax_z) = plt.subplots(1, 2, figsize=(10, 3.8))
    stacked = ds["ratio"].stack(point=OUTER)
    bad = ~ds["hypothesis"].isel(t=0).stack(point=OUTER)
    for n in range(stacked.sizes["point"]):
        ax.plot(ds["t"], stacked.isel(point=n), color="C3" if bool(bad.isel(point=n)) else "C0", lw=0.8)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axvline(1.0, color="0.5", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", ylim=(1e-8, 1e3), xlabel="t", ylabel="E_OU / E_GM at ||f|| = R (equal RDP)",
           title="BBGG-T8 (ii) parameters; red: θR² > 4dρ²")
    z = np.concatenate([_z(ds["free_ratio_mc"], ds["free_ratio_mc_se"], ds["free_ratio"]),
                        _z(ds["ou_mse_mc"], ds["ou_mse_se"], ds["ou_mse"]),
                        _z(ds["gm_mse_mc"], ds["gm_mse_se"], ds["gm_mse"]),
                        _z(ds["pgm_mc"], ds["pgm_se"], ds["pgm_bound"])])
    ax_z.hist(z, bins=40, density=True, color="0.6")
    grid = np.linspace(-4.0, 4.0, 200)
    ax_z.plot(grid, norm.pdf(grid), "k")
    ax_z.set(xlabel="(Monte Carlo − formula) / standard error", title="E_OU, E_GM, E_PGM at ||f|| = R")
    fig.tight_layout()
    return fig


def plot_t8ii(ds: xr.Dataset) -> Figure:
    """BBGG-T8 (ii): Monte Carlo E_OU / E_GM at t = 1 against (1 + dΔ²/(2 eps R²))^(−1)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    at1 = ds.sel(t=1.0)
    y = at1["ou_mse_mc"] / at1["gm_mse"]
    x = (at1["d"] * DELTA**2 / (2 * at1["eps"] * at1["R"] ** 2)).transpose(*y.dims).values.ravel()
    ax.plot(x, y.values.ravel(), "o", ms=4, label="Monte Carlo E_OU / E_GM")
    xs = np.logspace(np.log10(x.min()), np.log10(x.max()), 200)
    ax.plot(xs, 1.0 / (1.0 + xs), "k", label="(1 + dΔ²/(2 eps R²))^(−1)")
    ax.set(xscale="log", yscale="log", xlabel="dΔ²/(2 eps R²)", ylabel="ratio at t = 1", title="BBGG-T8 (ii)")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_per_eps(ds: xr.Dataset) -> Figure:
    """E_OU / E_GM at ||f|| = R over t (lines: formula; x: Monte Carlo), one panel per eps."""
    fig, axes = plt.subplots(1, ds.sizes["eps"], figsize=(5.5 * ds.sizes["eps"], 3.8), squeeze=False, sharey=True)
    for ax, eps in zip(axes[0], ds.eps.values, strict=True):
        lines = ds.sizes["d"] * ds.sizes["R"]
        ax.set_prop_cycle(color=plt.get_cmap("viridis")(np.linspace(0.0, 0.9, lines)))  # one colour per (d, R)
        for d in ds.d.values:
            for R in ds.R.values:
                one = ds.sel(eps=eps, d=d, R=R)
                (line,) = ax.plot(ds.t, one.ratio, "-", label=f"d={d}, R={R:g}")
                ax.plot(ds.t, one.ou_mse_mc / one.gm_mse_mc, "x", color=line.get_color())
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set(xscale="log", yscale="log", xlabel="t", title=f"eps = {eps:g}")
    axes[0, 0].set_ylabel("E_OU / E_GM")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_mc_vs_formula(ds: xr.Dataset) -> Figure:
    """Monte Carlo against formula for E_OU, E_GM and the E_PGM bound (error bars: 2 standard errors)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    pairs = (
        ("ou_mse_mc", "ou_mse_se", "ou_mse"),
        ("gm_mse_mc", "gm_mse_se", "gm_mse"),
        ("pgm_mc", "pgm_se", "pgm_bound"),
    )
    for ax, (mc, se, formula) in zip(axes, pairs, strict=True):
        x, y, e = (ds[v].values.ravel() for v in (formula, mc, se))
        ax.errorbar(x, y, yerr=2 * e, fmt="o", ms=3)
        ax.plot([x.min(), x.max()], [x.min(), x.max()], "k--", lw=1)
        ax.set(xscale="log", yscale="log", xlabel=formula, ylabel=mc)
    fig.tight_layout()
    return fig


def plot_free_parameters(ds: xr.Dataset) -> Figure:
    """BBGG-T8 (i): E_OU / E_GM at ||f|| = R over θt for every free (θ, ρ, d, R), coloured by c = θR²/(dρ²); dashed
    where its hypothesis c <= 4 fails. The ratio e^(−2θt)(1 + c tanh(θt/2)) depends on θt and c alone, so the curves
    collapse onto one per c: those with c <= 4 stay below 1."""
    outer = [dim for dim in ds.free_ratio.dims if dim != "free_t"]
    c = (ds.free_theta * ds.free_R**2 / (ds.free_d * ds.free_rho**2)).transpose(*outer).stack(point=outer)
    stacked = ds.free_ratio.stack(point=outer)
    hypothesis = ds.free_hypothesis.isel(free_t=0).stack(point=outer)
    colours = LogNorm(vmin=float(c.min()), vmax=float(c.max()))
    cmap = plt.get_cmap("viridis")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for n in range(stacked.sizes["point"]):
        theta = float(stacked.free_theta.isel(point=n))
        ax.plot(theta * ds.free_t, stacked.isel(point=n), color=cmap(colours(float(c.isel(point=n)))), lw=0.8,
                ls="-" if bool(hypothesis.isel(point=n)) else "--")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set(xscale="log", yscale="log", ylim=(1e-4, 1e2), xlabel="θ t", ylabel="E_OU / E_GM at ||f|| = R",
           title="BBGG-T8 (i): solid θR² <= 4dρ², dashed not")
    fig.colorbar(ScalarMappable(norm=colours, cmap=cmap), ax=ax, label="c = θR²/(dρ²)")
    fig.tight_layout()
    return fig


#: The figures, by file suffix: ``data/ou_vs_gaussian_SUFFIX.png``, and the notebook's plots.
PLOTS = {
    "ratio": plot_ratio,
    "t8ii": plot_t8ii,
    "per_eps": plot_per_eps,
    "mc_vs_formula": plot_mc_vs_formula,
    "free_parameters": plot_free_parameters,
}


def main(argv: list[str] | None = None) -> None:
    run_study(NAME, __doc__, run, PLOTS, argv)


if __name__ == "__main__":
    main()
