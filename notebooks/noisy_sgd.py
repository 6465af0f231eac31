# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Noisy projected SGD: BBGG Theorem 5, its remark, and public steps
#
# BBGG Theorem 5 (BBGG-T5, and the optimised BBGG-T5opt): the per-index RDP of the final iterate of noisy projected
# SGD on a strongly convex loss decays exponentially in the number n − i of steps after the differing record,
# against the O(C²/((n−i)σ²)) rate of the convex case; a Monte Carlo hockey-stick of the simulated final iterate;
# and the number of public steps needed to reach a target.
#
# Data: `data/noisy_sgd.nc`, written by `python -m simulations.noisy_sgd --quick` (the committed quick run; without
# `--quick` the full grid). The notebook only loads and shows: every number and every figure comes from the study (its
# `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read another data directory; when the
# file is missing the quick study runs first.

# %%
from simulations import noisy_sgd
from simulations.study import claims_frame, load_result

ds = load_result("noisy_sgd")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Per-index RDP eps_i (R_alpha <= alpha eps_i) against n − i: BBGG-T5, T5opt, the convex rate, the exact value

# %%
noisy_sgd.plot_per_index(ds);

# %% [markdown]
# ## Monte Carlo delta(eps) of the final iterate (error bars down to the 95% lower limit) vs T5opt and exact

# %%
noisy_sgd.plot_hockey_stick(ds);

# %% [markdown]
# ## Public steps m needed against the target (left) and against the dimension d with sigma = 1/sqrt(d) (right)

# %%
noisy_sgd.plot_public_steps(ds);
