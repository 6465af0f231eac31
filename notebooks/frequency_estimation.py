# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Frequency estimation under local DP: error against k / (n eps²), and the randomness it costs
#
# n users each hold a symbol of a Zipf law on k symbols and send one eps-LDP report through a frequency oracle
# (GRR, OUE, RAPPOR's basic unary encoding, Hadamard response HR, binary Hadamard BH, subset selection SS).
# The squared l2 error of each oracle's unbiased estimate, divided by the known order k / (n eps²) of the
# risk with unlimited randomness (SRP-Est): a flat curve is the order; its height is the constant. Beside it,
# the private random bits each oracle spends per user (SRP-Tab1). Data: `simulations/frequency_estimation.py`.

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import xarray as xr

DATA = Path("data") / "frequency_estimation.nc"
if DATA.exists():
    ds = xr.load_dataset(DATA, engine="h5netcdf")
else:  # compute a small grid here (seconds)
    import sys

    sys.path.insert(0, str(Path("simulations").resolve()))
    from frequency_estimation import QUICK_GRID, frequency_estimation

    ds = frequency_estimation(QUICK_GRID, reps=10, scheduler="synchronous")

# %% [markdown]
# ## Squared l2 error / (k / (n eps²)), mean over repetitions, at the largest n

# %%
n = int(ds["n"].max())
ratio = (ds["l2sq"].mean("rep") / ds["order"]).sel(n=n)
fig, axes = plt.subplots(1, ds.sizes["k"] + 1, figsize=(4.2 * (ds.sizes["k"] + 1), 3.6))
for ax, k in zip(axes[:-1], ds["k"].values, strict=True):
    for mechanism in ds["mechanism"].values:
        ax.plot(ds["eps"], ratio.sel(k=k, mechanism=mechanism), marker="o", label=str(mechanism))
    ax.set_title(f"k = {int(k)}, n = {n}")
    ax.set_xlabel("eps (nats)")
    ax.set_yscale("log")
axes[0].set_ylabel("mean l2² × n eps² / k")
bits = ds["randomness_bits"].sel(k=int(ds["k"].max()))
for mechanism in ds["mechanism"].values:
    axes[-1].plot(ds["eps"], bits.sel(mechanism=mechanism), marker="o", label=str(mechanism))
axes[-1].set_title(f"private randomness, k = {int(ds['k'].max())}")
axes[-1].set_xlabel("eps (nats)")
axes[-1].set_ylabel("bits per user")
axes[-1].set_yscale("log")
fig.legend(*axes[0].get_legend_handles_labels(), loc="center right", fontsize=8)
fig.tight_layout(rect=(0, 0, 0.92, 1))

# %% [markdown]
# ## Heavy hitters: max |estimate − users' frequencies|, and the gain of projecting on the simplex

# %%
fig2, (ax_hh, ax_proj) = plt.subplots(1, 2, figsize=(9, 3.6))
at = ds.sel(k=int(ds["k"].max()), n=n).mean("rep")
for mechanism in ds["mechanism"].values:
    ax_hh.plot(ds["eps"], at["linf_frequencies"].sel(mechanism=mechanism), marker="o", label=str(mechanism))
    ax_proj.plot(
        ds["eps"], (at["l2sq_projected"] / at["l2sq"]).sel(mechanism=mechanism), marker="o", label=str(mechanism)
    )
ax_hh.set_xlabel("eps (nats)")
ax_hh.set_ylabel("mean l∞ error on frequencies")
ax_hh.set_yscale("log")
ax_proj.set_xlabel("eps (nats)")
ax_proj.set_ylabel("l2² after projection / before")
fig2.legend(*ax_hh.get_legend_handles_labels(), loc="center right", fontsize=8)
fig2.tight_layout(rect=(0, 0, 0.88, 1))
# The projection onto the simplex is a Euclidean projection on a convex set holding p: never worse in l2.
assert bool((ds["l2sq_projected"] <= ds["l2sq"] * (1 + 1e-12) + 1e-15).all())
