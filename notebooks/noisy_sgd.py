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
# Data: `data/noisy_sgd.nc`, written by `python -m simulations.noisy_sgd --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt

from simulations.study import claims_frame, load_result

ds = load_result("noisy_sgd")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Per-index RDP eps_i (R_alpha <= alpha eps_i) against n − i

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for k, label in (
    ("eps_convex", "rho = 0 reference 2C²/((n−i)σ²)"),
    ("eps_t5", "BBGG-T5"),
    ("eps_t5opt", "BBGG-T5opt"),
    ("eps_exact", "exact, no projection"),
):
    ax.semilogy(ds.r, ds[k], marker=".", label=label)
ax.set(xlabel="n − i (steps after the differing record)", ylabel="eps_i", title="per-index RDP of noisy SGD")
ax.legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## Monte Carlo hockey-stick delta(eps) of the final iterate (error bars down to the 95% lower limit)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, projected in zip(axes, (False, True), strict=True):
    sub = ds.sel(projected=projected)
    for j, r in enumerate(ds.r_mc.values):
        one = sub.sel(r_mc=r)
        ax.errorbar(
            ds.eps,
            one.delta_mc,
            yerr=[one.delta_mc - one.delta_mc_low, 0 * one.delta_mc],
            fmt="o",
            color=f"C{j}",
            label=f"MC, n−i = {r}",
        )
        ax.plot(ds.eps, one.delta_t5opt, "--", color=f"C{j}")
        if not projected:
            ax.plot(ds.eps, ds.delta_exact.sel(r_mc=r), "-", color=f"C{j}")
    ax.set(
        xlabel="eps (nats)",
        ylim=(0, 1),
        title="with projection (-- T5opt)" if projected else "without projection (-- T5opt, — exact)",
    )
axes[0].set_ylabel("delta(eps)")
axes[0].legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## Public steps needed against the target and against the dimension

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for k in ("m_t5", "m_t5opt", "m_convex"):
    axes[0].loglog(1 / ds.target, ds[k], marker="o", label=k)
axes[0].set(xlabel="1/target", ylabel="public steps m", title="public steps vs target")
axes[0].legend(fontsize=8)
for k in ("d_m_t5", "d_m_t5opt"):
    axes[1].semilogx(ds.d, ds[k], marker="o", label=k[2:])
axes[1].set(xlabel="d (sigma = 1/sqrt(d))", ylabel="public steps m", title="public steps vs dimension")
axes[1].legend(fontsize=8)
fig.tight_layout()
