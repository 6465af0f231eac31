# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Contraction under local DP: AAC (Theorems 1 and 3, φ, Le Cam, Fano, Bayes, testing, MI)
#
# AAC: an (eps, delta)-LDP channel contracts every f-divergence by at most φ(eps, delta) (Theorem 1: LDP ⇔ η ≤ δ;
# Theorem 3's two-point formula), φ_n for n-fold products against the power reading, Le Cam's effective sample
# size φ n against 4ε² n, Fano, the Bernoulli Bayes-risk example (δ = 1e-4, n = 20), Chernoff–Stein testing, and
# mutual information against 3ε.
#
# Data: `data/ldp_contraction.nc`, written by `python -m simulations.ldp_contraction --quick` (the committed quick
# run; without `--quick` the full grid). The notebook only loads and shows: every number and every figure comes from
# the study (its `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read another data
# directory; when the file is missing the quick study runs first.

# %%
from simulations import ldp_contraction
from simulations.study import claims_frame, load_result

ds = load_result("ldp_contraction")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Le Cam's effective sample size per record: phi(eps, 0) = 1 − e^(−eps) against 4 eps², and where they cross

# %%
ldp_contraction.plot_ess(ds);

# %% [markdown]
# ## Contraction ratio / phi(eps, delta) for each f-divergence over random LDP channels (AAC-T1: at most 1)

# %%
ldp_contraction.plot_phi(ds);

# %% [markdown]
# ## TV contraction over n records: phi_n against the power reading phi^n and the RR^n witness

# %%
ldp_contraction.plot_phi_n(ds);

# %% [markdown]
# ## Bernoulli (delta = 1e-4, n = 20): least Bayes risk over LDP channels vs the Le Cam and E_gamma bounds

# %%
ldp_contraction.plot_bayes(ds);

# %% [markdown]
# ## AAC-MI: the largest mutual information (nats) over (eps, delta)-LDP channels against 3 eps, per k and delta

# %%
ldp_contraction.plot_mutual_information(ds);
