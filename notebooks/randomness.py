# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # How much randomness local DP needs: SRP
#
# SRP: the private randomness each frequency oracle spends (Table 1: RAPPOR, RR, HR, BH and the others), their
# order-optimality as k grows, the multi-level scheme against the trivial one, the minimum recoverable randomness
# and q_min's structure against eps and k, key reuse, and the limited-randomness trade-off of BudgetedHadamard.
#
# Data: `data/randomness.nc`, written by `python -m simulations.randomness --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt

from simulations.study import claims_frame, load_result

ds = load_result("randomness")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Table 1: private bits per user, and the l2² risk relative to k/(n eps²)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
eps0 = float(ds.tab_eps[0])
for o in ds.oracle.values:
    axes[0].plot(ds.tab_k, ds.tab_randomness_bits.sel(oracle=o, tab_eps=eps0), marker="o", label=str(o))
    ratio = ds.ord_l2sq.mean("rep").sel(oracle=o).isel(ord_eps=0) / ds.ord_reference.isel(ord_eps=0)
    axes[1].plot(ds.ord_k, ratio, marker="o", label=str(o))
axes[0].set(xscale="log", yscale="log", xlabel="k", ylabel="private bits per user", title=f"SRP-Tab1, eps = {eps0}")
axes[1].set(
    xscale="log",
    yscale="log",
    xlabel="k",
    ylabel="l2² risk / (k/(n eps²))",
    title=f"SRP-Est: order, eps = {float(ds.ord_eps[0])}",
)
axes[0].legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## Table 1 as numbers (eps = the first of the grid)

# %%
ds.tab_randomness_bits.sel(tab_eps=eps0).to_pandas()

# %% [markdown]
# ## Minimum recoverable randomness, q_min's s*, and BudgetedHadamard's risk against its budget R

# %%
fig, axes = plt.subplots(1, 3, figsize=(14, 4))
for k in ds.rec_k.values:
    axes[0].step(ds.rec_eps, ds.rec_s.sel(rec_k=k), where="post", label=f"k={k}")
    axes[1].plot(ds.rec_eps, ds.rec_bits.sel(rec_k=k), label=f"k={k}")
axes[0].set(xlabel="eps (nats)", ylabel="optimal s", title="SRP-Rec: s* of q_min^s")
axes[1].set(xlabel="eps (nats)", ylabel="bits", title="SRP-Rec: minimum recoverable randomness")
axes[0].legend(fontsize=7)
axes[2].plot(ds.r_R, ds.r_worst_risk, marker="o", label="worst-case risk (exact)")
axes[2].errorbar(
    ds.r_R,
    ds.r_risk_mc,
    yerr=[ds.r_risk_mc - ds.r_risk_mc_low, ds.r_risk_mc_high - ds.r_risk_mc],
    fmt="x",
    label="uniform p: Monte Carlo",
)
axes[2].axvline(ds.attrs["r_bh_bits"], color="grey", ls=":", label="H2(e^eps/(e^eps+1))")
axes[2].set(yscale="log", xlabel="R (bits)", ylabel="l2² risk", title="SRP-R: BudgetedHadamard")
axes[2].legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## The multi-level scheme against the trivial one: bits per user

# %%
ds[["ml_bits", "ml_trivial_bits"]].to_pandas()
