"""simulations/mixing_amplification.py at --quick: the file, its provenance, the figures, the claim table, and the
reported numbers recomputed independently (closed forms for the RR family; an LP over all DP pairs for delta*)."""

from __future__ import annotations

import contextlib
import io
import itertools
import math

import numpy as np
import pytest
import xarray as xr
from scipy.optimize import linprog

from simulations import mixing_amplification as study
from simulations.study import load_claims

CLAIM_IDS = ("BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4", "BBGG-T1 remark", "BBGG-F1", "BBGG-Tab1",
             "STD-BlackBoxExact")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("mix") / "mixing_amplification.nc"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        study.main(["--quick", "--out", str(out)])
    return out, buf.getvalue(), xr.load_dataset(out, engine="h5netcdf")


def test_file_provenance_figures_and_claim_table(result):
    out, printed, ds = result
    assert {"command", "seed_entropy", "markovdp_version", "git_commit", "created", "claims"} <= set(ds.attrs)
    assert ds.attrs["command"].startswith("python -m simulations.mixing_amplification --quick")
    for suffix in study.PLOTS:
        assert (out.parent / f"mixing_amplification_{suffix}.png").stat().st_size > 0
    claims = load_claims(ds)
    assert len(claims) == 15
    for cid in CLAIM_IDS:
        assert any(c.claim.startswith(cid) for c in claims) and cid in printed
    for words in ("seed claim", "measured", "holds?"):
        assert words in printed
    # the soundness of every case of Theorem 1 against the exact worst case is a theorem: it must hold here
    assert all(c.holds for c in claims if "sound against" in c.claim)


def test_rr_family_coefficients_and_doeblin_point_by_closed_form(result):
    """K = (1 - s) I + s U on 4 states: Dobrushin = Doeblin = 1 - s, ultra-mixing = 1 - (s/4)/(1 - s + s/4)."""
    ds = result[2]
    rr = ds.where(ds.family == "rr", drop=True)
    s = rr.strength.values[:, None]
    np.testing.assert_allclose(rr.dobrushin, np.broadcast_to(1 - s, rr.dobrushin.shape), atol=1e-14)
    np.testing.assert_allclose(rr.doeblin, np.broadcast_to(1 - s, rr.doeblin.shape), atol=1e-14)
    np.testing.assert_allclose(rr.ultra_mixing, np.broadcast_to(1 - (s / 4) / (1 - s + s / 4), rr.doeblin.shape),
                               atol=1e-14)
    g, e0, d0 = 1 - s, rr.eps0.values[None, :], rr.delta0.values[None, :]
    eps3 = np.log(1 + g * (np.exp(e0) - 1))
    np.testing.assert_allclose(rr.theorem_eps.sel(theorem="BBGG-T1.3"), eps3, rtol=1e-13)
    np.testing.assert_allclose(rr.theorem_delta.sel(theorem="BBGG-T1.3"),
                               g * (1 - np.exp(eps3 - e0) * (1 - d0)), rtol=1e-12, atol=1e-15)


def lp_worst_case(K: np.ndarray, eps0: float, delta0: float, eps: float) -> float:
    """sup over all (eps0, delta0)-indistinguishable pairs (mu, nu) on X of E_{e^eps}(mu K || nu K), by scipy LP.

    For each output event S: maximise (mu K)(S) - e^eps (nu K)(S) over (mu, nu) in simplices, subject to
    mu(A) <= e^eps0 nu(A) + delta0 and nu(A) <= e^eps0 mu(A) + delta0 for every input event A.
    """
    k, m = K.shape
    events_x = [np.array(a, float) for a in itertools.product((0, 1), repeat=k)]
    a_ub = [np.r_[a, -math.exp(eps0) * a] for a in events_x] + [np.r_[-math.exp(eps0) * a, a] for a in events_x]
    a_eq = [np.r_[np.ones(k), np.zeros(k)], np.r_[np.zeros(k), np.ones(k)]]
    best = 0.0
    for s in itertools.product((0, 1), repeat=m):
        ks = K @ np.array(s, float)
        res = linprog(-np.r_[ks, -math.exp(eps) * ks], A_ub=a_ub, b_ub=np.full(len(a_ub), delta0), A_eq=a_eq,
                      b_eq=[1, 1], bounds=[(0, 1)] * (2 * k), method="highs")
        best = max(best, -res.fun)
    return best


def test_exact_worst_case_by_lp(result):
    """The study's exact delta*(eps_T) for some bsc and rr kernels against an LP over all DP pairs on X."""
    ds = result[2]
    checked = 0
    for fam in ("bsc", "rr"):
        sel = ds.where(ds.family == fam, drop=True)
        for i in (0, 2):
            _, K = study.family_kernel(fam, i, sel.sizes["kernel"], ds.attrs["seed_entropy"])
            for b in range(ds.sizes["blackbox"]):
                e0, d0 = float(ds.eps0[b]), float(ds.delta0[b])
                for t in ("BBGG-T1.1", "BBGG-T1.3"):
                    eps = float(sel.theorem_eps.sel(theorem=t)[i, b])
                    assert float(sel.exact.sel(theorem=t)[i, b]) == pytest.approx(
                        lp_worst_case(K, e0, d0, eps), abs=1e-9)
                    checked += 1
    assert checked == 24
