"""The randomness study (issue 16 §1.7) at --quick: claim table, provenance, figures, and independent rechecks."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr
from scipy.stats import entropy

from simulations import randomness

CLAIM_PREFIXES = (
    "SRP-D",
    "SRP-Tab1: BH",
    "SRP-Tab1: every",
    "SRP-Tab1/SRP-Est",
    "SRP-Est: GRR",
    "SRP-Est: heavy",
    "SRP-ML:",
    "SRP-ML-HR",
    "BBGG-T1 under pure DP",
    "SRP-Rec (i)",
    "SRP-Rec (ii)",
    "SRP-Rec (iii)",
    "SRP-Rec: minimum",
    "SRP-Rec: Y",
    "SRP-Rec-ID",
    "SRP-Seq",
    "SRP-R ",
)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("randomness") / "randomness.nc"
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        randomness.main(["--quick", "--out", str(out)])
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        ds.load()
    return out, ds, printed.getvalue()


def test_claim_table_and_provenance(study):
    out, ds, printed = study
    for key in ("command", "seed_entropy", "markovdp_version", "git_commit", "created", "claims"):
        assert key in ds.attrs
    claims = json.loads(ds.attrs["claims"])
    assert len(claims) == len(CLAIM_PREFIXES)
    for prefix, row in zip(CLAIM_PREFIXES, claims, strict=True):
        assert row["claim"].startswith(prefix)
        assert row["holds"] in (True, False, None)
    flat = " ".join(printed.split())
    for prefix in ("SRP-D", "SRP-Tab1", "SRP-ML-HR", "SRP-Rec-ID", "SRP-Seq", "pure DP"):
        assert prefix in flat
    for suffix in randomness.PLOTS:
        assert out.with_name(f"randomness_{suffix}.png").stat().st_size > 0


def test_xor_example_against_hand_computation(study):
    """The XOR channel is RR on two symbols: eps = log(q0/q1) and H(U) = −Σ q log2 q (scipy's entropy)."""
    _, ds, _ = study
    for eps in ds.xor_eps.values:
        q = np.array([math.exp(eps), 1.0]) / (math.exp(eps) + 1.0)
        assert float(ds.xor_bits.sel(xor_eps=eps)) == pytest.approx(entropy(q, base=2), rel=1e-12)
        assert float(ds.xor_eps_exact.sel(xor_eps=eps)) == pytest.approx(math.log(q[0] / q[1]), rel=1e-12)


def test_min_recoverable_randomness_by_brute_force(study):
    """min_s H(q_min^s) from the seed's two-level law written out here, entropies by scipy."""
    _, ds, _ = study
    for k in ds.rec_k.values:
        for eps in ds.rec_eps.values[::4]:
            e = math.exp(eps)
            h = [entropy(np.r_[np.full(s, e), np.ones(k - s)] / (s * e + k - s), base=2) for s in range(1, k)]
            assert float(ds.rec_bits.sel(rec_k=k, rec_eps=eps)) == pytest.approx(min(h), rel=1e-10, abs=1e-12)


def test_grr_simulation_against_its_closed_form(study):
    """GRR's exact risk by enumerating its count covariance (multinomial), against the study's closed form."""
    _, ds, _ = study
    n = ds.attrs["ord_n"]
    for k in ds.ord_k.values:
        for eps in ds.ord_eps.values:
            channel = np.full((k, k), 1.0) + np.eye(k) * (math.exp(eps) - 1.0)
            channel /= channel.sum(axis=1, keepdims=True)
            p = randomness.zipf_law(int(k))
            pi = p @ channel
            inverse = np.linalg.inv(channel)  # the unbiased estimate is (counts / n) Q^{-1}
            cov = (np.diag(pi) - np.outer(pi, pi)) / n
            exact = float(np.trace(inverse.T @ cov @ inverse))
            assert float(ds.ord_grr_exact.sel(ord_k=k, ord_eps=eps)) == pytest.approx(exact, rel=1e-9)


def order_dataset(ks: tuple[int, ...]) -> xr.Dataset:
    """A synthetic order part: every oracle's mean risk is 3 k/(n eps²) except GRR's, which is k times that."""
    names = ["RAPPOR", "GRR", "HR", "BH"]
    k = np.array(ks, dtype=float)
    reference = (k / (1000 * 1.0**2))[:, None]
    growth = np.array([1.0 if o != "GRR" else 0.0 for o in names])[:, None, None]
    risk = 3 * reference[None] * np.where(growth == 1.0, 1.0, k[None, :, None])
    l2sq = np.repeat(risk[..., None], 4, axis=-1)
    return xr.Dataset(
        {
            "ord_l2sq": (("oracle", "ord_k", "ord_eps", "rep"), l2sq),
            "ord_linf": (("oracle", "ord_k", "ord_eps", "rep"), np.ones_like(l2sq)),
            "ord_reference": (("ord_k", "ord_eps"), reference),
            "ord_hh_reference": (("ord_k", "ord_eps"), np.ones_like(reference)),
            "ord_grr_exact": (("ord_k", "ord_eps"), risk[1]),
        },
        coords={"oracle": names, "ord_k": list(ks), "ord_eps": [1.0], "rep": np.arange(4)},
        attrs={"ord_n": 1000},
    )


def test_a_rate_in_k_needs_three_values_of_k():
    """Two values of k give no verdict on the order claims (n/a, saying why); three give one (here: it holds)."""
    two = randomness.order_claims(order_dataset((8, 32)))
    three = randomness.order_claims(order_dataset((8, 32, 128)))
    for rows in (two, three):
        assert [r.claim.split(":")[0] for r in rows] == ["SRP-Tab1/SRP-Est", "SRP-Est", "SRP-Est"]
    assert two[0].holds is None and two[2].holds is None and "no verdict" in two[0].measured
    assert three[0].holds is True and three[2].holds is True and "no verdict" not in three[0].measured
    bad = order_dataset((8, 32, 128))
    bad["ord_l2sq"].loc[{"oracle": "HR"}] *= bad.ord_k.values[:, None, None]  # HR now grows like GRR
    assert randomness.order_claims(bad)[0].holds is False
