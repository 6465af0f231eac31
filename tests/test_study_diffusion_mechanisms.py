"""The diffusion_mechanisms study at --quick: its claim table, its file's provenance, its figures, and its numbers
recomputed independently (closed forms at raised precision with mpmath)."""

from __future__ import annotations

import contextlib
import io
import json

import mpmath
import numpy as np
import pytest
import xarray as xr

CLAIMS = ("BBGG-S: P_s ∘ M_t = M_(t+s) (closed forms)", "BBGG-S: P_s ∘ M_t = M_(t+s) (double-well SDE, in law)",
          "BBGG-BM: Λ(t) = Δ²/(4t)", "BBGG-C7: Λ(t) = θΔ²/(2ρ²(e^(2θt) − 1)), tight",
          "BBGG-T6 reproduces BBGG-C7 (OU as a user SDE)",
          "BBGG-T6 / BBGG-T6-1D: non-Gaussian diffusions are (α, αΛ(t))-RDP", "BBGG-T6 vs simulated hockey-stick",
          "BBGG-C7 remark: OU rate O(e^(−2θt)) vs Brownian O(1/t)")


def gauss_hs(mu: mpmath.mpf, eps: float) -> float:
    """STD-GaussHS: delta(eps) of N(mu, 1) against N(0, 1), at raised precision."""
    e = mpmath.mpf(float(eps))
    return float(mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from simulations import diffusion_mechanisms

    out = tmp_path_factory.mktemp("study") / "diffusion_mechanisms.nc"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        diffusion_mechanisms.main(["--quick", "--out", str(out)])
    return out, printed.getvalue()


@pytest.fixture(scope="module")
def quick(run):
    return run[0]


def test_the_printed_table_has_every_claim(run):
    printed = run[1]
    assert "diffusion_mechanisms: the seed's claims" in printed and "holds?" in printed
    for claim in CLAIMS:
        assert printed.count(claim[:25]) >= sum(c[:25] == claim[:25] for c in CLAIMS)


def test_claim_table_file_and_figures(quick):
    with xr.open_dataset(quick, engine="h5netcdf") as ds:
        attrs = dict(ds.attrs)
    for key in ("command", "seed_entropy", "markovdp_version", "git_commit", "created", "claims"):
        assert key in attrs
    claims = json.loads(attrs["claims"])
    assert [c["claim"] for c in claims] == list(CLAIMS)
    assert all(c["holds"] in (True, False, None) and c["measured"] for c in claims)
    assert "--quick" in attrs["command"]
    from simulations import diffusion_mechanisms

    for suffix in diffusion_mechanisms.PLOTS:
        assert quick.with_name(f"diffusion_mechanisms_{suffix}.png").stat().st_size > 0


def test_numbers_against_closed_forms(quick):
    mpmath.mp.dps = 40
    with xr.open_dataset(quick, engine="h5netcdf") as ds:
        ds = ds.load()
    # BBGG-C7: alpha theta Delta² / (2 rho² (e^(2 theta t) − 1)), rho = Delta = 1.
    for theta in ds["theta"].values:
        for t in ds["t"].values:
            lam = mpmath.mpf(theta) / (2 * mpmath.expm1(2 * mpmath.mpf(theta) * mpmath.mpf(t)))
            want = np.array([float(a * lam) for a in ds["alpha"].values])
            got = ds["c7_rule"].sel(theta=theta, t=t).values
            np.testing.assert_allclose(got, want, rtol=1e-12)
    # The Brownian mechanism's exact profile: STD-GaussHS at mu = Delta / sqrt(2t), t = 0.5.
    eps = ds["eps"].values
    np.testing.assert_allclose(ds["bm_exact"], [gauss_hs(1 / mpmath.sqrt(1), e) for e in eps], rtol=1e-10)
    # BBGG-S: M_0.5 >> P_0.25 is the Gaussian mechanism with sigma² = 2 (0.5 + 0.25) = 1.5 (Brownian), and for OU
    # (theta = rho = 1) the distance e^(−0.75) / sqrt(1 − e^(−1.5)).
    closure = ds["closure_profile"]
    np.testing.assert_allclose(closure.sel(semigroup="bm"), [gauss_hs(1 / mpmath.sqrt(1.5), e) for e in eps],
                               rtol=1e-10)
    mu_ou = mpmath.exp(-0.75) / mpmath.sqrt(-mpmath.expm1(-1.5))
    np.testing.assert_allclose(closure.sel(semigroup="ou"), [gauss_hs(mu_ou, e) for e in eps], rtol=1e-10)
    # The rates: Lambda_BM t = 1/4 exactly; Lambda_OU = 1/(2 expm1(2t)).
    np.testing.assert_allclose(ds["lambda_bm"] * ds["t_rate"], 0.25, rtol=1e-14)
    np.testing.assert_allclose(ds["lambda_ou"], [float(1 / (2 * mpmath.expm1(2 * mpmath.mpf(float(t)))))
                                                 for t in ds["t_rate"].values], rtol=1e-12)
    # BBGG-T6 for the double well: the certificate is above the finite-difference reference, which the Monte Carlo
    # lower limits do not exceed.
    point = ds.sel(sde="double_well").isel(t6_time=0)
    assert np.all(point["renyi_cert"] >= point["renyi_fd_sup"]) and np.all(point["renyi_fd_sup"] >= point["renyi_fd"])
    assert np.all(point["mc_ci_low"] <= point["delta_fd"] + point["fd_error_pair"])
    assert float(point["lambda_t6"]) * 2.0 == pytest.approx(float(point["renyi_cert"].sel(alpha=2.0)), rel=1e-12)
