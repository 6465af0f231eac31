"""simulations/noisy_sgd.py at --quick: the claim table, the result file's provenance, the figures, and its numbers
recomputed independently (closed forms of the Gaussian final iterate, scipy's normal CDF, the public-steps count)."""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
import xarray as xr
from scipy.stats import norm

from simulations import noisy_sgd as study
from simulations.study import DEFAULT_SEED, load_claims


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("noisy_sgd") / "noisy_sgd.nc"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        study.main(["--quick", "--out", str(out)])
    return out, xr.load_dataset(out, engine="h5netcdf"), " ".join(printed.getvalue().split())


def test_claim_table_provenance_and_figures(result):
    out, ds, printed = result
    claims = load_claims(ds)
    assert len(claims) == 9
    assert all(c.claim.startswith(("BBGG-T5", "BBGG-A1", "BBGG-PublicSteps")) for c in claims)
    for words in ("seed claim", "seed's value or statement", "measured", "holds?"):
        assert words in printed
    for c in claims:  # every claim's row is printed (the table folds long cells: check its first words)
        assert " ".join(c.claim.split()[:2]) in printed
    assert ds.attrs["command"] == f"python -m simulations.noisy_sgd --quick --out {out}"
    assert ds.attrs["seed_entropy"] == DEFAULT_SEED
    assert {"markovdp_version", "git_commit", "created", "claims"} <= set(ds.attrs)
    for suffix in study.PLOTS:
        assert out.with_name(f"noisy_sgd_{suffix}.png").stat().st_size > 0


def gaussian_final_iterate(r: int) -> tuple[float, float]:
    """Mean shift and standard deviation of x_n without projection, records ±1 at index n − r (docs: BBGG-A1)."""
    shift = study.ETA * (1 - study.ETA) ** r * 2 * study.RADIUS
    var = study.ETA**2 * study.SIGMA**2 * sum((1 - study.ETA) ** (2 * j) for j in range(study.N))
    return shift, math.sqrt(var)


def test_exact_rdp_slope_is_the_gaussian_shift_formula(result):
    ds = result[1]
    for r in ds["r"].values:
        shift, s = gaussian_final_iterate(int(r))
        assert ds["eps_exact"].sel(r=r).item() == pytest.approx(shift**2 / (2 * s**2), rel=1e-10)


def test_exact_hockey_stick_is_the_gaussian_closed_form(result):
    ds = result[1]
    for r in ds["r_mc"].values:
        shift, s = gaussian_final_iterate(int(r))
        mu, eps = shift / s, ds["eps"].values
        delta = norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)
        np.testing.assert_allclose(ds["delta_exact"].sel(r_mc=r).values, delta, rtol=1e-8, atol=1e-15)


def test_public_steps_match_the_t5opt_closed_form_and_the_convex_rate(result):
    ds = result[1]
    a, q = 2 * study.C**2 / study.SIGMA**2, study.Q
    for t in ds["target"].values:
        r_star = math.log(1 + a * (1 - q) / t) / math.log(1 / q)
        assert abs(ds["m_t5opt"].sel(target=t).item() - r_star) < 1  # m = ceil(r*) for the last record
        assert ds["m_convex"].sel(target=t).item() == pytest.approx(a / t, abs=1)


def test_monte_carlo_lower_bound_is_below_the_bounds(result):
    ds = result[1]
    assert np.all(ds["delta_mc_low"].values <= ds["delta_t5opt"].values)
    assert np.all(ds["delta_mc_low"].sel(projected=False).values <= ds["delta_exact"].values)
