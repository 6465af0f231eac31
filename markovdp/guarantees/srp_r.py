"""The risk–randomness curve of SRP-R: exact and Monte Carlo l2² risk of `BudgetedHadamard` as R varies."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._random import point_key, task_seed
from .._validation import check_choice, check_int, check_probability_vector, check_range, check_work, fail
from ..mechanisms.local.binary_hadamard import BinaryHadamard
from ..mechanisms.local.budgeted_hadamard import BUDGETS, BudgetedHadamard, check_k_size
from ..mechanisms.local.implicit_channel import check_oracle_eps
from .coefficients import ldp_epsilon
from .keyed_search import linear_unbiased_risk

__all__ = ["randomness_risk_curve"]


def randomness_risk_curve(k: int, eps: float, n: int, R_grid: ArrayLike, *, budget: str = "output",
                          p: ArrayLike | None = None, reps: int = 0, seed: int = 0,
                          confidence: float = 0.95) -> Any:
    """The l2² risk E||f̂ − p||² of `BudgetedHadamard(k, eps, R, budget)` with n users, for each R in `R_grid`.

    THEORY: SRP-R, SRP-Est. An `xarray.Dataset` over ``R`` (bits) with: ``risk`` (exact, (k/chi − ||p||²)/n;
    inputs i.i.d. from p, default uniform, public columns uniform), ``worst_risk`` (its supremum over the
    simplex: (k/chi − 1/k)/n, or 1 − 1/k at chi = 0 where the estimate is the uniform law), ``risk_blue`` (the
    best linear unbiased estimator of the same channel at p, `linear_unbiased_risk`; <= ``risk``), ``ratio`` =
    risk / (k/(n eps²)), ``chi``, ``family``, ``parameter`` (lam or rho), ``key_bits`` = H(U),
    ``user_output_bits`` = max H(Y | X = x, j), ``certified_eps`` (`ldp_epsilon` of the channel, nats). With
    ``reps > 0``: ``risk_mc`` (mean of `reps` squared errors of simulated runs: X_i ~ p, `sample`, `estimate`)
    and its normal ``confidence`` interval ``risk_mc_low``, ``risk_mc_high``; run r at budget R draws from the
    address ``task_seed(SeedSequence(seed), point_key({"R": R}), r)``. Attributes: ``reference`` = k/(n eps²),
    ``bh_risk`` (binary Hadamard's risk) and ``bh_bits`` = H2(e^eps/(e^eps + 1)).
    """
    import xarray as xr

    k = check_k_size(check_int("k", k, minimum=2))
    e = check_oracle_eps(eps)
    users = check_int("n", n, minimum=1)
    grid = np.atleast_1d(check_range("R_grid", R_grid, low=0.0, allowed=">= 0 bits and finite"))
    if grid.ndim != 1 or grid.size == 0:
        raise fail("R_grid", "a non-empty 1-D list of budgets in bits", f"shape {grid.shape}")
    check_choice("budget", budget, BUDGETS)
    law = np.full(k, 1.0 / k) if p is None else check_probability_vector("p", p)
    if law.size != k:
        raise fail("p", f"a probability vector of length k = {k}", f"length {law.size}")
    reps = check_int("reps", reps, minimum=0)
    check_work("reps", reps, 50.0 * reps * users * grid.size, what="the Monte Carlo runs (reps × n users per R)")
    seed = check_int("seed", seed, minimum=0)
    level = float(check_range("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                              allowed="in (0, 1)"))
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2.0))
    rows: dict[str, list[Any]] = {name: [] for name in ("risk", "worst_risk", "risk_blue", "chi", "family", "parameter",
                                                        "key_bits", "user_output_bits", "certified_eps",
                                                        "risk_mc", "risk_mc_low", "risk_mc_high")}
    root = np.random.SeedSequence(seed)
    for R in grid.tolist():
        scheme = BudgetedHadamard(k, e, R, budget)
        rows["risk"].append(scheme.exact_risk(law, users))
        rows["worst_risk"].append(scheme.exact_risk(None, users) if scheme.chi > 0 else 1.0 - 1.0 / k)
        blue = linear_unbiased_risk(scheme.matrix, law, users) if np.all(law > 0) else math.nan
        rows["risk_blue"].append(blue)
        rows["chi"].append(scheme.chi)
        rows["family"].append(scheme.family)
        rows["parameter"].append(scheme.feature.parameter)
        rows["key_bits"].append(scheme.randomness_bits)
        rows["user_output_bits"].append(scheme.user_output_entropy_bits)
        rows["certified_eps"].append(ldp_epsilon(scheme.channel))
        errors = np.empty(reps)
        for r in range(reps):
            gen = np.random.default_rng(task_seed(root, point_key({"R": R}), r))
            x = gen.choice(k, size=users, p=law)
            errors[r] = float(np.sum((scheme.estimate(scheme.sample(x, rng=gen)) - law) ** 2))
        mean = float(errors.mean()) if reps else math.nan
        half = z * float(errors.std(ddof=1)) / math.sqrt(reps) if reps > 1 else math.nan
        rows["risk_mc"].append(mean)
        rows["risk_mc_low"].append(mean - half)
        rows["risk_mc_high"].append(mean + half)
    bh = BinaryHadamard(k, e)
    bh_risk = (k / math.tanh(e / 2.0) ** 2 - float(law @ law)) / users if e > 0 else math.inf
    reference = k / (users * e**2) if e > 0 else math.inf
    units = {"risk": "1", "worst_risk": "1", "risk_blue": "1", "chi": "1", "family": "", "parameter": "1",
             "key_bits": "bit", "user_output_bits": "bit", "certified_eps": "nats", "risk_mc": "1", "risk_mc_low": "1",
             "risk_mc_high": "1"}
    data = {name: ("R", np.asarray(values), {"units": units[name]}) for name, values in rows.items()}
    data["ratio"] = ("R", np.asarray(rows["risk"]) / reference, {"units": "1"})
    return xr.Dataset(data, coords={"R": ("R", grid, {"long_name": "randomness budget per user", "units": "bit"})},
                      attrs={"k": k, "eps": e, "n": users, "budget": budget, "reps": reps, "seed": seed,
                             "confidence": level, "reference": reference, "bh_risk": bh_risk,
                             "bh_bits": bh.randomness_bits, "theory": "SRP-R"})
