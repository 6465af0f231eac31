# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Amplification by mixing: BBGG Theorem 1 against the exact worst case
#
# BBGG §3: a (eps0, delta0)-DP black box followed by a Markov kernel K. Theorem 1's four cases (BBGG-T1.1–T1.4:
# Dobrushin, Doeblin, ultra-mixing, and the local-DP reading) each certify a point (eps_T, delta_T); the exact
# worst case delta*(eps_T) of the pipeline (STD-BlackBoxExact) shows how tight each is, for families of kernels
# (randomized response, binary symmetric channels, lazy walks on a cycle, random kernels) as mixing strength grows.
#
# Data: `data/mixing_amplification.nc`, written by `python -m simulations.mixing_amplification --quick` (the committed
# quick run; without `--quick` the full grid). The notebook only loads and shows: every number and every figure comes
# from the study (its `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read another data
# directory; when the file is missing the quick study runs first.

# %%
from simulations import mixing_amplification
from simulations.study import claims_frame, load_result

ds = load_result("mixing_amplification")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## BBGG-T1's four cases against the exact delta* at each theorem's eps, per kernel family, over mixing

# %%
mixing_amplification.plot_tightness(ds);

# %% [markdown]
# ## BBGG-F1: Doeblin gamma >= Dobrushin gamma, ultra-mixing gamma >= Doeblin gamma, on random kernels

# %%
mixing_amplification.plot_implications(ds);
