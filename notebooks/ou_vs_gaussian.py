# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # The OU mechanism against the Gaussian mechanism at equal RDP (BBGG Eq. (4), Theorem 8)
#
# BBGG Eq. (4), E_GM, E_PGM and Theorem 8 (i) and (ii): at the same Rényi guarantee, the squared error of the
# Ornstein–Uhlenbeck mechanism against the Gaussian (and projected Gaussian) mechanism, over (d, R, eps, t), by
# formula and by Monte Carlo.
#
# Data: `data/ou_vs_gaussian.nc`, written by `python -m simulations.ou_vs_gaussian --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt

from simulations.study import claims_frame, load_result

ds = load_result("ou_vs_gaussian")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## E_OU / E_GM at ||f|| = R against t (formula; × Monte Carlo), one panel per eps

# %%
fig, axes = plt.subplots(1, ds.sizes["eps"], figsize=(5.5 * ds.sizes["eps"], 3.8), squeeze=False, sharey=True)
for ax, eps in zip(axes[0], ds.eps.values, strict=True):
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

# %% [markdown]
# ## Monte Carlo against formula: E_OU, E_GM and the E_PGM bound (error bars: 2 standard errors)

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
for ax, (mc, se, formula) in zip(
    axes,
    (("ou_mse_mc", "ou_mse_se", "ou_mse"), ("gm_mse_mc", "gm_mse_se", "gm_mse"), ("pgm_mc", "pgm_se", "pgm_bound")),
    strict=True,
):
    x, y, e = (ds[v].values.ravel() for v in (formula, mc, se))
    ax.errorbar(x, y, yerr=2 * e, fmt="o", ms=3)
    ax.plot([x.min(), x.max()], [x.min(), x.max()], "k--", lw=1)
    ax.set(xscale="log", yscale="log", xlabel=formula, ylabel=mc)
fig.tight_layout()

# %% [markdown]
# ## Theorem 8's free parameters: E_OU / E_GM over (θ, ρ, t, d, R); red where the hypothesis fails

# %%
fig, ax = plt.subplots(figsize=(6, 4))
outer = [dim for dim in ds.free_ratio.dims if dim != "free_t"]
stacked = ds.free_ratio.stack(point=outer)
hypothesis = ds.free_hypothesis.isel(free_t=0).stack(point=outer)
for n in range(stacked.sizes["point"]):
    ax.plot(ds.free_t, stacked.isel(point=n), color="C0" if bool(hypothesis.isel(point=n)) else "C3", lw=0.8)
ax.axhline(1.0, color="k", lw=0.8)
ax.set(xscale="log", yscale="log", xlabel="t", ylabel="E_OU / E_GM at ||f|| = R")
fig.tight_layout()
