"""simulations/ou_vs_gaussian.py at --quick: claim table, provenance, figures; its numbers recomputed (mpmath)."""

from __future__ import annotations

import contextlib
import io
import json

import mpmath as mp
import numpy as np
import pytest
import xarray as xr

from simulations import ou_vs_gaussian as study
from simulations.study import load_claims

CLAIMS = ("BBGG-MSE Eq. (4): E_OU", "BBGG-MSE: E_GM (with BBGG-C7)", "BBGG-MSE: E_PGM", "BBGG-T8 (i): E_OU/E_GM <= 1",
          "BBGG-T8 (i): E_OU/E_GM → 0 as t → ∞", "BBGG-T8 (ii): (α, α eps)-RDP at t = 1",
          "BBGG-T8 (ii): ratio bound at t = 1", "BBGG-T8 remark: E_GM(θ, ρ, 1) and E_OU(θ, ρ, 1)",
          "BBGG-T8 remark: error bounded, O(R²)",
          "BBGG-T8 remark: OU uniformly better than GM for any level of privacy",
          "BBGG-T8 'In particular': (ii) is a case of (i)")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ou_vs_gaussian") / "ou_vs_gaussian.nc"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        study.main(["--quick", "--out", str(out)])
    return out, printed.getvalue(), xr.load_dataset(out, engine="h5netcdf")


def test_claim_table_provenance_and_figures(quick_run):
    out, text, ds = quick_run
    flat = " ".join(text.split())
    for claim in CLAIMS:
        assert " ".join(claim.split()[:3]) in flat, claim
    assert [c.claim for c in load_claims(ds)] == list(CLAIMS)
    assert {"command", "seed_entropy", "markovdp_version", "git_commit", "created", "claims"} <= set(ds.attrs)
    assert ds.attrs["command"].startswith("python -m simulations.ou_vs_gaussian --quick")
    assert len(json.loads(ds.attrs["claims"])) == len(CLAIMS)
    for suffix in study.PLOTS:
        assert (out.with_name(f"ou_vs_gaussian_{suffix}.png")).stat().st_size > 1000


def test_numbers_recomputed_with_mpmath(quick_run):
    """Eq. (4), E_GM, the T8 (ii) parameters and Lambda(1) = eps, from the paper's formulas at 40 digits."""
    _, _, ds = quick_run
    mp.mp.dps = 40
    for d, radius, eps in ((16, 1.0, 0.25), (1, 4.0, 2.0)):
        point = ds.sel(d=d, R=radius, eps=eps)
        theta = mp.log(1 + mp.mpf(d) / (2 * mp.mpf(eps) * mp.mpf(radius) ** 2))
        rho2 = theta / (2 * mp.mpf(eps) * (mp.exp(2 * theta) - 1))
        assert float(point["theta"][0]) == pytest.approx(float(theta), rel=1e-13)
        assert float(point["rho"][0]) ** 2 == pytest.approx(float(rho2), rel=1e-13)
        for t in point["t"].values:
            t_mp = mp.mpf(float(t))
            e_ou = (1 - mp.exp(-theta * t_mp)) ** 2 * radius**2 + d * rho2 / theta * (1 - mp.exp(-2 * theta * t_mp))
            e_gm = d * rho2 * (mp.exp(2 * theta * t_mp) - 1) / theta
            lam = theta / (2 * rho2 * (mp.exp(2 * theta * t_mp) - 1))
            row = point.sel(t=t)
            assert float(row["ou_mse"]) == pytest.approx(float(e_ou), rel=1e-12)
            assert float(row["gm_mse"]) == pytest.approx(float(e_gm), rel=1e-12)
            assert float(row["renyi2_half"]) == pytest.approx(float(lam), rel=1e-9)
        assert float(point.sel(t=1.0)["lambda_ou"]) == pytest.approx(eps, rel=1e-12)


def test_in_particular_row_matches_an_independent_small_t_expansion(quick_run):
    """(ii)'s parameters break theta R² <= 4 d rho² at (d, R, eps) = (16, 1, 0.25): c = e^theta + 1 = 34 > 4, and the
    ratio e^(−2u)(1 + c tanh(u/2)) = 1 + (c/2 − 2)u + O(u²) exceeds 1 at small t; the study reports NO there."""
    _, _, ds = quick_run
    theta = float(ds["theta"].sel(d=16, R=1.0, eps=0.25)[0])
    u = theta * 0.01
    c = np.exp(theta) + 1
    assert c == pytest.approx(34.0)
    assert float(ds["ratio"].sel(d=16, R=1.0, eps=0.25, t=0.01)) == pytest.approx(
        np.exp(-2 * u) * (1 + c * np.tanh(u / 2)), rel=1e-12)
    assert float(ds["ratio"].sel(d=16, R=1.0, eps=0.25, t=0.01)) > 1
    assert load_claims(ds)[-1].holds is False


def test_monte_carlo_matches_a_fresh_simulation(quick_run):
    """E_OU by the library's OU sampler (the study) vs fresh numpy draws of N(e^(−θt) f, s_t² I), another seed."""
    _, _, ds = quick_run
    row = ds.sel(d=16, R=4.0, eps=2.0, t=0.5)
    theta, rho, t, d = float(row["theta"]), float(row["rho"]), 0.5, 16
    f = np.zeros(d)
    f[0] = 4.0
    rng = np.random.default_rng(12345)
    s_t = np.sqrt(rho**2 / theta * -np.expm1(-2 * theta * t))
    draws = np.exp(-theta * t) * f + s_t * rng.standard_normal((20000, d))
    errors = ((draws - f) ** 2).sum(axis=1)
    se = np.hypot(errors.std(ddof=1) / np.sqrt(errors.size), float(row["ou_mse_se"]))
    assert abs(errors.mean() - float(row["ou_mse_mc"])) <= 4.5 * se
