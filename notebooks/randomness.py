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
# Data: `data/randomness.nc`, written by `python -m simulations.randomness --quick` (the committed quick run; without
# `--quick` the full grid). The notebook only loads and shows: every number and every figure comes from the study (its
# `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read another data directory; when the
# file is missing the quick study runs first.

# %%
from simulations import randomness
from simulations.study import claims_frame, load_result

ds = load_result("randomness")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## SRP-Tab1: private bits per user over k (left); l2² risk / (k/(n eps²)) over k (right)

# %%
randomness.plot_table1_order(ds);

# %% [markdown]
# ## Table 1 as numbers: private bits per user (eps = the first of the grid)

# %%
ds.tab_randomness_bits.isel(tab_eps=0).to_pandas()

# %% [markdown]
# ## The multi-level scheme against the trivial one: bits per user

# %%
ds[["ml_bits", "ml_trivial_bits"]].to_pandas()

# %% [markdown]
# ## SRP-Rec: s* and the minimum recoverable randomness over eps; SRP-R: risk over the budget R

# %%
randomness.plot_recoverable_budget(ds);
