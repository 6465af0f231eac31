# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Amplification by coupling: BBGG §4 (Examples 1–3, Theorems 2 and 4)
#
# BBGG §4 bounds the Rényi divergence after a Markov kernel through couplings of the inputs. Example 1 (Gaussian
# after Gaussian, tight), Example 2 (Laplace after Laplace: log-convexity, the gain vanishing as alpha → ∞),
# Theorem 4 (2)/(3) and the optimised T4opt against the exact RDP on the linear chain y = L x + N, and Theorem 2
# with a general (optimised) coupling on finite spaces.
#
# Data: `data/coupling_amplification.nc`, written by `python -m simulations.coupling_amplification --quick` (the
# committed quick run; without `--quick` the full grid). The notebook only loads and shows: every number and every
# figure comes from the study (its `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read
# another data directory; when the file is missing the quick study runs first.

# %%
from simulations import coupling_amplification
from simulations.study import claims_frame, load_result

ds = load_result("coupling_amplification")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## BBGG-E1: N(., s1²) then N(., s2²), the bound against the exact RDP (nats) over alpha, one panel per s2

# %%
coupling_amplification.plot_e1(ds);

# %% [markdown]
# ## BBGG-E2: the RDP curve of Laplace >> Laplace (bound and exact pipeline) against the mechanism's, over alpha

# %%
coupling_amplification.plot_e2(ds);

# %% [markdown]
# ## BBGG-T4 (3) and T4opt against the exact RDP (alpha = 2) of the linear chain y = L x + N, over r steps

# %%
coupling_amplification.plot_t4(ds);

# %% [markdown]
# ## BBGG-T2 on finite spaces: the optimised coupling bound's excess over exact against data processing's

# %%
coupling_amplification.plot_t2(ds);

# %% [markdown]
# ## The same instances as numbers

# %%
ds[["t2_exact", "t2_dpi_library", "t2_optimised", "t2_alpha"]].to_pandas()
