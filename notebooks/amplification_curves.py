# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Amplification by mixing: exact privacy profiles vs BBGG-T1
#
# Randomized response RR(4, eps0 = 2) post-processed by kernels that mix more as their strength grows.
# The exact profile delta(eps) of the pipeline (a finite sum, AAC-eta) against the certified curves of
# BBGG-T1.1–T1.4 and plain post-processing (POST). Data: `simulations/amplification_curves.py`.

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import xarray as xr

DATA = Path("data") / "amplification_curves.nc"
if DATA.exists():
    ds = xr.load_dataset(DATA, engine="h5netcdf")
else:  # compute it here (a few seconds)
    import sys

    sys.path.insert(0, str(Path("simulations").resolve()))
    from amplification_curves import amplification_curves

    ds = amplification_curves()

# %% [markdown]
# ## delta(eps) at one kernel strength

# %%
fig, axes = plt.subplots(1, ds.sizes["kernel"], figsize=(4 * ds.sizes["kernel"], 3.4), sharey=True)
strength = float(ds["strength"].sel(strength=0.5, method="nearest"))
for ax, kernel in zip(axes, ds["kernel"].values, strict=True):
    sub = ds.sel(kernel=kernel, strength=strength)
    for theorem in sub["theorem"].values:
        ax.plot(sub["eps"], sub["bound"].sel(theorem=theorem), label=str(theorem), lw=1.2)
    ax.plot(sub["eps"], sub["exact"], "k--", label="exact", lw=2)
    ax.set_title(f"{kernel} kernel, strength {strength:.2f}")
    ax.set_xlabel("eps")
axes[0].set_ylabel("delta(eps)")
axes[-1].legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## How much of the exact amplification each theorem captures (eps = 0.5)

# %%
fig2, ax2 = plt.subplots(figsize=(5, 3.4))
at = ds.sel(eps=0.5, method="nearest")
best = at["bound"].min("theorem")
for kernel in at["kernel"].values:
    ax2.plot(at["strength"], (at["exact"] / best).sel(kernel=kernel), label=str(kernel))
ax2.set_xlabel("kernel strength")
ax2.set_ylabel("exact / best certified delta")
ax2.set_ylim(0, 1.05)
ax2.legend()
fig2.tight_layout()
assert bool((ds["exact"] <= ds["bound"].min("theorem") * (1 + 1e-9) + 1e-12).all())  # soundness
