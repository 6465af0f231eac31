# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # The OU mechanism against the Gaussian mechanism at equal RDP (BBGG Eq. (4), Theorem 8)
#
# BBGG Eq. (4), E_GM, E_PGM and Theorem 8 (i) and (ii): at the same Rényi guarantee, the squared error of the
# Ornstein–Uhlenbeck mechanism against the Gaussian (and projected Gaussian) mechanism, over (d, R, eps, t), by
# formula and by Monte Carlo.
#
# Data: `data/ou_vs_gaussian.nc`, written by `python -m simulations.ou_vs_gaussian --quick` (the committed quick run;
# without `--quick` the full grid). The notebook only loads and shows: every number and every figure comes from the
# study (its `plot_*` functions also draw the PNGs beside the data). Set `MARKOVDP_DATA` to read another data
# directory; when the file is missing the quick study runs first.

# %%
from simulations import ou_vs_gaussian
from simulations.study import claims_frame, load_result

ds = load_result("ou_vs_gaussian")

# %% [markdown]
# ## The seed's claims: seed claim | seed's value or statement | measured | holds?

# %%
claims = claims_frame(ds)
print(claims["holds?"].value_counts().to_dict())
claims

# %% [markdown]
# ## E_OU / E_GM at equal RDP over t (left) and the Monte Carlo z-scores of E_OU, E_GM, E_PGM (right)

# %%
ou_vs_gaussian.plot_ratio(ds);

# %% [markdown]
# ## BBGG-T8 (ii): Monte Carlo E_OU / E_GM at t = 1 against (1 + dΔ²/(2 eps R²))^(−1)

# %%
ou_vs_gaussian.plot_t8ii(ds);

# %% [markdown]
# ## E_OU / E_GM at ||f|| = R over t (lines: formula; x: Monte Carlo), one panel per eps

# %%
ou_vs_gaussian.plot_per_eps(ds);

# %% [markdown]
# ## Monte Carlo against formula for E_OU, E_GM and the E_PGM bound (error bars: 2 standard errors)

# %%
ou_vs_gaussian.plot_mc_vs_formula(ds);

# %% [markdown]
# ## BBGG-T8 (i): E_OU / E_GM over θt for every free (θ, ρ, d, R), coloured by c = θR²/(dρ²)
#
# Dashed where the hypothesis c <= 4 fails. The ratio e^(−2θt)(1 + c tanh(θt/2)) depends on θt and c alone, so the
# curves collapse onto one per c: those with c <= 4 stay below 1.

# %%
ou_vs_gaussian.plot_free_parameters(ds);
