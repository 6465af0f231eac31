# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Diffusion mechanisms: BBGG §5 (semigroups, Brownian motion, OU, Theorem 6)
#
# BBGG §5: the closure P_s ∘ M_t = M_{s+t}, the Brownian intrinsic sensitivity Λ = Δ²/(4t) (BBGG-BM), Corollary 7
# for the Ornstein–Uhlenbeck process (BBGG-C7, tight, rate e^(−2θt) vs 1/t), and Theorem 6 numerically for a
# non-Gaussian diffusion, certified against a finite-difference reference and a simulated hockey-stick.
#
# Data: `data/diffusion_mechanisms.nc`, written by `python -m simulations.diffusion_mechanisms --quick`
# (the committed quick run; without `--quick` the full grid). The notebook only selects and plots: every number
# comes from the study. Set `MARKOVDP_DATA` to read another data directory; when the file is missing the quick
# study runs first.

# %%
import matplotlib.pyplot as plt
import numpy as np

from simulations.study import claims_frame, load_result

ds = load_result("diffusion_mechanisms")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## Intrinsic sensitivity Λ(t): OU's e^(−2θt) against Brownian motion's 1/t

# %%
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(ds.t_rate, ds.lambda_ou, label="OU θ = ρ = 1 (BBGG-C7)")
ax.semilogy(ds.t_rate, ds.lambda_bm, label="Brownian (BBGG-BM)")
ax.set(xlabel="t", ylabel="Λ(t) [nats]", title="Intrinsic sensitivity")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Theorem 6: certified δ(ε) vs the finite-difference reference vs Monte Carlo

# %%
fig, axes = plt.subplots(1, ds.sizes["sde"], figsize=(5.5 * ds.sizes["sde"], 4), squeeze=False)
for ax, sde in zip(axes[0], ds.sde.values, strict=True):
    for k, t in enumerate(ds.t6_time.values):
        point = ds.sel(sde=sde).isel(t6_time=k)
        (line,) = ax.plot(ds.eps, point.delta_cert, label=f"t = {t}: BBGG-T6 certified")
        ax.plot(ds.eps, point.delta_fd, "--", color=line.get_color(), label="reference (FD)")
        below = (point.mc_value - point.mc_ci_low).values
        ax.errorbar(
            ds.eps,
            point.mc_value,
            yerr=[below, np.zeros_like(below)],
            fmt="o",
            color=line.get_color(),
            label="Monte Carlo (to its 95% lower limit)",
        )
    ax.set(xlabel="ε [nats]", ylabel="δ(ε)", title=str(sde))
    ax.legend(fontsize=7)
fig.tight_layout()

# %% [markdown]
# ## Brownian motion and OU: the rule's RDP against the exact laws (nats)

# %%
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
for t in ds.t.values:
    (line,) = ax.plot(ds.alpha, ds.bm_rule.sel(t=t), "o-", label=f"rule, t={t:g}")
    ax.plot(ds.alpha, ds.bm_laws.sel(t=t), "x:", color=line.get_color())
ax.set(xlabel="alpha", ylabel="RDP (nats)", yscale="log", title="BBGG-BM (o rule, x exact laws)")
ax.legend(fontsize=7)
theta = ds.theta.values[0]
for t in ds.t.values:
    (line,) = ax2.plot(ds.alpha, ds.c7_rule.sel(theta=theta, t=t), "o-", label=f"rule, t={t:g}")
    ax2.plot(ds.alpha, ds.c7_laws.sel(theta=theta, t=t), "x:", color=line.get_color())
ax2.set(xlabel="alpha", ylabel="RDP (nats)", yscale="log", title=f"BBGG-C7, θ = {theta:g} (o rule, x exact laws)")
fig.tight_layout()
