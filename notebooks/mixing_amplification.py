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
# Data: `data/mixing_amplification.nc`, written by `python -m simulations.mixing_amplification --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt
import numpy as np

from simulations.study import claims_frame, load_result

ds = load_result("mixing_amplification")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Tightness of each case as the kernel mixes more (one black box)
#
# Top: exact delta*(eps_T) / delta_T (1 = tight; never above 1 for a sound bound). Bottom: both deltas.

# %%
b = int(np.argmin(np.abs(ds.eps0.values - 1.0) + np.abs(ds.delta0.values - 0.05) * 10))
families = [f for f in dict.fromkeys(ds.family.values.tolist()) if f in ("rr", "bsc", "lazy", "random")]
fig, axes = plt.subplots(2, len(families), figsize=(4 * len(families), 6.5), sharey="row", squeeze=False)
for j, fam in enumerate(families):
    sel = ds.isel(blackbox=b).where(ds.family == fam, drop=True)
    x = 1 - sel.dobrushin.values
    for c, t in enumerate(ds.theorem.values):
        bound, exact = sel.theorem_delta.sel(theorem=t), sel.exact.sel(theorem=t)
        axes[0, j].plot(x, exact / bound, "o-", color=f"C{c}", label=str(t))
        axes[1, j].plot(x, bound, "o-", color=f"C{c}", label=f"{t} delta_T")
        axes[1, j].plot(x, exact, "x:", color=f"C{c}", label=f"exact, {t}")
    axes[0, j].set_title(f"{fam}: eps0={float(ds.eps0[b]):g}, delta0={float(ds.delta0[b]):g}")
    axes[1, j].set_yscale("symlog", linthresh=1e-6)
    axes[1, j].set_xlabel("mixing strength 1 - dobrushin(K)")
axes[0, 0].set_ylabel("exact / bound")
axes[1, 0].set_ylabel("delta at the theorem's eps")
axes[0, 0].legend(fontsize=7)
axes[1, 0].legend(fontsize=6)
fig.tight_layout()

# %% [markdown]
# ## Fig. 1's implications on random kernels: Doeblin >= Dobrushin, ultra-mixing >= Doeblin

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
finite = np.isfinite(ds.f1_ultra_mixing.values)
axes[0].plot(ds.f1_dobrushin, ds.f1_doeblin, ".", ms=2)
axes[0].set(xlabel="Dobrushin gamma", ylabel="Doeblin gamma", title="BBGG-F1: Doeblin >= Dobrushin")
axes[1].plot(ds.f1_doeblin.values[finite], ds.f1_ultra_mixing.values[finite], ".", ms=2)
axes[1].set(xlabel="Doeblin gamma", ylabel="ultra-mixing gamma", title="ultra-mixing >= Doeblin (finite ones)")
for ax in axes:
    ax.plot([0, 1], [0, 1], "k--", lw=1)
fig.tight_layout()
