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
# Data: `data/ldp_contraction.nc`, written by `python -m simulations.ldp_contraction --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt

from simulations.study import claims_frame, load_result

ds = load_result("ldp_contraction")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Contraction ratio / φ(eps, delta) for every f-divergence (at most 1)

# %%
fig, ax = plt.subplots(figsize=(6, 3.8))
rel = ds.phi_ratio / ds.phi_phi
ax.boxplot([rel.sel(divergence=d).values for d in ds.divergence.values], tick_labels=list(ds.divergence.values))
ax.axhline(1.0, color="red", ls="--")
ax.set_ylabel("contraction ratio / phi(eps, delta)")
ax.tick_params(axis="x", labelrotation=30)
fig.tight_layout()

# %% [markdown]
# ## φ_n against φ^n, and Le Cam's effective sample size φ n against 4ε² n

# %%
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
for n in ds.pn_n.values:
    (line,) = ax.semilogy(ds.pn_eps, ds.pn_tv_power.sel(pn_n=n), "--", label=f"phi^n, n = {n}")
    ax.semilogy(ds.pn_eps, ds.pn_tv_phi_n.sel(pn_n=n), ":", color=line.get_color(), label=f"phi_n, n = {n}")
    ax.semilogy(ds.pn_eps, ds.pn_tv_witness.sel(pn_n=n), "o", color=line.get_color(), label=f"TV through RR^n, n={n}")
ax.set(xlabel="eps (nats)", ylabel="TV contraction")
ax.legend(fontsize=6)
ax2.loglog(ds.lc_eps, ds.lc_ess_phi, "o-", label="phi(eps, 0) (per sample)")
ax2.loglog(ds.lc_eps, ds.lc_ess_4eps2, "s--", label="4 eps² (per sample)")
ax2.axvline(
    ds.attrs["lc_crossing_eps"], color="grey", ls=":", label=f"crossing eps = {ds.attrs['lc_crossing_eps']:.3f}"
)
ax2.set(xlabel="eps (nats)", ylabel="effective sample size / n")
ax2.legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## Bayes risk of the Bernoulli example and the two lower bounds

# %%
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.semilogx(ds.bayes_eps, ds.bayes_best_risk, "o-", label="least Bayes risk, all LDP channels")
ax.semilogx(ds.bayes_eps, ds.bayes_le_cam, "s--", label="Le Cam bound")
ax.semilogx(ds.bayes_eps, ds.bayes_e_gamma, "^--", label="E_gamma bound")
ax.axhline(ds.attrs["bayes_nonprivate"], color="grey", ls=":", label="non-private risk")
ax.set(xlabel="eps (nats)", ylabel="absolute-loss Bayes risk", title="Bernoulli, delta = 1e-4, n = 20")
ax.legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## Mutual information (nats): the largest over LDP channels against 3ε

# %%
fig, ax = plt.subplots(figsize=(6, 3.8))
for delta in ds.mi_delta.values:
    for k in ds.mi_k.values:
        ax.plot(ds.mi_eps, ds.mi_max.sel(mi_delta=delta, mi_k=k), "o-", label=f"max MI, k={k}, delta={delta:g}")
ax.plot(ds.mi_eps, ds.mi_3eps, "k--", label="3 eps")
ax.set(xlabel="eps (nats)", ylabel="mutual information (nats)")
ax.legend(fontsize=7)
fig.tight_layout()
