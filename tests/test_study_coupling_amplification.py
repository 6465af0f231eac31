"""simulations/coupling_amplification.py at --quick: its file, figures, claim table, and its numbers recomputed."""

from __future__ import annotations

import json

import mpmath as mp
import numpy as np
import pytest
import xarray as xr

from simulations import coupling_amplification as study
from simulations.study import load_claims


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "coupling_amplification.nc"
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        study.main(["--quick", "--out", str(out)])
    return out, buffer.getvalue(), xr.load_dataset(out, engine="h5netcdf")


def test_file_figures_and_claim_table(quick):
    out, printed, ds = quick
    assert {"command", "seed_entropy", "markovdp_version", "git_commit", "created", "claims"} <= set(ds.attrs)
    assert ds.attrs["command"].startswith("python -m simulations.coupling_amplification --quick")
    claims = load_claims(ds)
    assert len(claims) == len(json.loads(ds.attrs["claims"])) >= 14
    for theory_id in ("BBGG-E1", "BBGG-E2", "BBGG-L3", "BBGG-E3", "BBGG-T4", "BBGG-T4opt", "BBGG-T2"):
        assert any(c.claim.startswith(theory_id) for c in claims), theory_id
    flat = " ".join(printed.split())
    for c in claims:
        assert c.claim.split(":")[0] in flat
    for suffix in study.PLOTS:
        assert out.with_name(f"coupling_amplification_{suffix}.png").stat().st_size > 0


def test_laplace_numbers_against_mpmath_and_a_grid_minimum(quick):
    """The mechanism's RDP (Mironov's g_alpha) in mpmath, and the BBGG-E2 bound as a brute-force minimum over w."""
    ds = quick[2]
    mp.mp.dps = 40

    def log_g(alpha, z):
        a, z = mp.mpf(alpha), mp.mpf(z)
        return mp.log(a / (2 * a - 1) * mp.exp(z * (a - 1)) + (a - 1) / (2 * a - 1) * mp.exp(-z * a))

    for alpha in (1.5, 2.0, 5.0, 10.0):
        own = float(log_g(alpha, 1) / (alpha - 1))
        assert ds.e2_mechanism.sel(e2_alpha=alpha).item() == pytest.approx(own, rel=1e-12)
        for l2 in ds.l2.values:
            w = np.linspace(0.0, 1.0, 20001)
            grid = [float((log_g(alpha, x) + log_g(alpha, (1 - x) / l2)) / (alpha - 1)) for x in w[::200]]
            bound = ds.e2_bound.sel(l2=l2, e2_alpha=alpha).item()
            assert bound <= min(grid) * (1 + 1e-9)
            assert bound >= min(grid) * (1 - 2e-3)  # the grid's step 0.01 in w: a flat minimum
    exact_inf = 1.0 / np.maximum(1.0, ds.l2)  # the bound at alpha = inf, raised by a few ulps (reported upward)
    assert np.all(ds.e2_bound.sel(e2_alpha=np.inf) >= exact_inf)
    assert np.all(ds.e2_bound.sel(e2_alpha=np.inf) <= exact_inf * (1 + 2.0**-48))
    np.testing.assert_array_equal(ds.l3_claim, 1.0 / np.maximum.outer(ds.l3_l1.values, ds.l3_l2.values))


def test_linear_chain_numbers_against_the_gaussian_closed_forms(quick):
    """The exact RDP of y = L^r u + N(0, s1² L^(2r) + s² Σ L^(2j)) and the closed forms (3) and T4opt."""
    ds = quick[2]
    alpha, s1, s = ds.attrs["t4_alpha"], ds.attrs["t4_s1"], ds.attrs["t4_s"]
    for L in ds.t4_L.values:
        for r in ds.r.values:
            geometric = sum(L ** (2 * j) for j in range(r))
            exact = alpha * L ** (2 * r) / (2 * (s1**2 * L ** (2 * r) + s**2 * geometric))
            assert ds.t4_exact_closed.sel(t4_L=L, r=r).item() == pytest.approx(exact, rel=1e-12)
            library = ds.t4_exact.sel(t4_L=L, r=r).item()  # a certified upper bound, within 2^-10 of the truth
            assert exact * (1 - 1e-12) <= library <= exact * (1 + 2.0**-10)
            assert ds.t4_bound.sel(t4_L=L, r=r).item() == pytest.approx(alpha * L ** (r + 1) / (2 * r * s**2), 1e-12)
            opt = alpha * L**2 / (2 * s**2 * sum(L ** (-2 * j) for j in range(r)))
            assert ds.t4opt_bound.sel(t4_L=L, r=r).item() == pytest.approx(opt, rel=1e-12)
    L = ds.L.values[:, None]
    np.testing.assert_allclose(ds.e3_bound, ds.alpha.values / (2 * (1 + 1 / L**2)), rtol=1e-12)
