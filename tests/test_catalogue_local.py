"""The local-DP scenarios (markovdp.validation.catalogue_local) check what they claim: a false eps claim is a
violation, and their side variables hold the exact facts of SRP-Rec, SRP-Seq and SRP-ML."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from markovdp.operators.finite import FiniteKernel
from markovdp.sweeps import VIOLATION, run_sweep
from markovdp.validation import catalogue_local
from markovdp.validation.catalogue_local import SRP_ML, SRP_REC, SRP_SEQ, SRP_TAB1


def never_reset_unary(k: int, eps: float) -> FiniteKernel:
    """OUE whose true bit is the other-bit draw OR a fair coin (never reset): true eps log(e^eps + 2)."""
    q = 1.0 / (math.exp(eps) + 1.0)
    p_true = 1.0 - 0.5 * (1.0 - q)
    out = np.empty((k, 2**k))
    for x in range(k):
        for bits in itertools.product((0, 1), repeat=k):
            prob = 1.0
            for j, b in enumerate(bits):
                r = p_true if j == x else q
                prob *= r if b else 1.0 - r
            out[x, sum(b << j for j, b in enumerate(bits))] = prob
    return FiniteKernel(out)


@dataclasses.dataclass(frozen=True)
class BrokenOracle:
    k: int
    eps: float
    randomness_bits: float = 1.0

    output_entropy_bits: float = 1.0

    @property
    def channel(self) -> FiniteKernel:
        return never_reset_unary(self.k, self.eps)

    def sample(self, x, *, rng=None):
        raise NotImplementedError

    def estimate(self, reports):
        raise NotImplementedError


@pytest.mark.parametrize("eps0", [1.0, 5.0])
def test_srp_tab1_flags_an_oracle_less_private_than_it_declares(monkeypatch, eps0):
    """SRP-Tab1 on the defect the issue cites: declared eps0, true log(e^eps0 + 2); the verdict is a violation
    at eps = eps0 (where the declared claim's delta is 0), for a large eps0 as well as a small one."""
    monkeypatch.setitem(catalogue_local.ORACLES, "BROKEN", BrokenOracle)
    scenario = dataclasses.replace(SRP_TAB1, grid_quick={"oracle": ("BROKEN",), "k": (4,), "eps0": (eps0,),
                                                         "eps": (0.0, eps0)})
    ds = run_sweep(scenario, samples=2000, seed=1, quick=True, executor="synchronous")
    assert bool((ds["verdict"].sel(eps=eps0) == VIOLATION).all())
    assert float(ds["eps_excess"].max()) == pytest.approx(math.log1p(2 * math.exp(-eps0)), rel=1e-9)


@pytest.mark.parametrize("scenario", [SRP_TAB1, SRP_REC, SRP_SEQ], ids=lambda s: s.name)
def test_claims_are_checked_where_they_say_delta_is_zero(scenario):
    """Every declared level eps0 is also a hockey-stick coordinate eps of the grids (the point that catches an
    under-declared eps, as above)."""
    for grid in (scenario.grid_quick, scenario.grid_full):
        assert set(grid["eps0"]) <= set(grid["eps"])


def test_local_scenarios_carry_the_exact_facts():
    """SRP-Rec: the key holder never fails; SRP-Seq: a reused key has infinite per-sample eps, fresh keys eps0
    per sample with T times the bits; SRP-ML: each level's exact eps is its target and BBGG-T1's is not below."""
    kwargs = {"samples": 2000, "seed": 1, "quick": True, "executor": "synchronous"}
    rec = run_sweep(SRP_REC, **kwargs)
    assert float(np.abs(rec["recovery_failure"]).max()) == 0.0
    seq = run_sweep(SRP_SEQ, **kwargs)
    assert bool(np.isinf(seq["reused_sample_eps"]).all())
    assert float(np.abs(seq["fresh_sample_eps"] / seq["eps0"] - 1).max()) <= 1e-12
    assert float(np.abs(seq["fresh_bits"] / (seq["T"] * seq["reused_bits"]) - 1).max()) <= 1e-12
    ml = run_sweep(SRP_ML, **kwargs)
    assert float(np.abs(ml["exact_eps"] - ml["target_eps"]).max()) <= 1e-12
    assert bool((ml["predicted_eps"] >= ml["exact_eps"]).all())
    assert bool((ml["randomness_bits"] < ml["trivial_randomness_bits"]).all())
