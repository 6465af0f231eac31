"""The exact privacy profile of noise chains on R (Gaussian and several Laplaces, any order) against an mpmath
reference at 40 digits (`mp_noise_chain_ref`: exact partial fractions of the Laplace sum, equal scales grouped;
F = E[Φ((x − L)/s)] by mpmath.quad; the event {x <= c} with L(c) = eps by mpmath.findroot), and the rule
BBGG-E2r against the exact values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from mp_noise_chain_ref import NoiseLaw
from mpmath import mp

import markovdp as md

RTOL = 1e-10

GM, LM, GK, LK = md.GaussianMechanism, md.LaplaceMechanism, md.GaussianKernel, md.LaplaceKernel

#: (pipeline, sigma of the summed Gaussian noise (0: none), Laplace scales, Delta)
CHAINS = {
    "G1>L.7>L1.3": (GM(1.0) >> LK(0.7) >> LK(1.3), 1.0, [0.7, 1.3], 1.0),
    "G1>L.7>L1.3,D3": (GM(1.0, sensitivity=3.0) >> LK(0.7) >> LK(1.3), 1.0, [0.7, 1.3], 3.0),
    "L1>G.5>L1^3,D4": (LM(1.0, sensitivity=4.0) >> GK(0.5) >> LK(1.0) ** 3, 0.5, [1.0] * 4, 4.0),
    "G.02>L2>L.5>G.01": (GM(0.02, sensitivity=2.0) >> LK(2.0) >> LK(0.5) >> GK(0.01), math.sqrt(0.02**2 + 0.01**2),
                         [2.0, 0.5], 2.0),
    "L2>G20,D5": (LM(2.0, sensitivity=5.0) >> GK(20.0) >> LK(0.2), 20.0, [2.0, 0.2], 5.0),
    "L.5>(L.5>G.3)^2>L50,D60": (LM(0.5, sensitivity=60.0) >> (LK(0.5) >> GK(0.3)) ** 2 >> LK(50.0),
                                math.sqrt(2) * 0.3, [0.5, 0.5, 0.5, 50.0], 60.0),
    "L1>L.3>L3,D2": (LM(1.0, sensitivity=2.0) >> LK(0.3) >> LK(3.0), 0.0, [1.0, 0.3, 3.0], 2.0),
    "L1>L1^3,D2": (LM(1.0, sensitivity=2.0) >> LK(1.0) ** 3, 0.0, [1.0] * 4, 2.0),
    "L.01>L1>L1,D2": (LM(0.01, sensitivity=2.0) >> LK(1.0) >> LK(1.0), 0.0, [0.01, 1.0, 1.0], 2.0),
}


def _eps_grid(z, gaussian, tied):
    """0, 0.1, 0.5, 1, 2 below the pure-DP limit z = Delta/b_max (0, 0.5, 2 with a Gaussian: its reference takes
    ~0.5 s a point), then 0.9 z, 0.98 z, z − 1e-3 (not if b_max is repeated: the event then ends at
    ~ −(m − 1) Delta/(z − eps), too far out for the reference's quadrature), z and 1.5 z."""
    low = (0.0, 0.5, 2.0) if gaussian else (0.0, 0.1, 0.5, 1.0, 2.0)
    near = [] if tied else [z - 1e-3]
    return [e for e in low if e < 0.9 * z] + [0.9 * z, 0.98 * z, *near, z, 1.5 * z]


@pytest.mark.parametrize("name", list(CHAINS))
def test_privacy_profile_of_noise_chains_matches_mpmath(name):
    pipe, sigma, scales, dist = CHAINS[name]
    law = NoiseLaw(sigma, scales)
    z = dist / max(scales)
    eps = _eps_grid(z, sigma > 0, scales.count(max(scales)) > 1)
    got = md.privacy_profile(pipe, np.array(eps))
    worst = 0.0
    for e, value in zip(eps, got, strict=True):
        ref = float(law.hockey_stick(dist, e)[0])
        if e == z:  # the rounded limit fl(Delta/b_max) may lie an ulp below Delta/b_max: delta there is < 1e-16
            assert value == 0.0 and ref < 1e-16, (name, value, ref)
            continue
        if ref == 0.0:  # e >= the limit, or delta underflows
            assert value == 0.0, (name, e, value)
            continue
        err = abs(value - ref) / ref
        worst = max(worst, err)
        assert err <= RTOL, f"{name} eps={e!r}: library {value!r}, mpmath {ref!r}, relative error {err:.2e}"
    print(f"{name}: max relative error {worst:.2e}")


def test_the_reference_density_and_cdf_agree_with_their_definitions():
    """Closed-form density = quadrature E[φ_s(x − L)]; the partial fractions have mass 1 and, for equal scales,
    give the variance-gamma (Bessel) density; F at 40 and 50 digits agree."""
    for sigma, scales in ((1.0, [0.7, 1.3]), (0.5, [1.0] * 4), (0.3, [0.5, 0.5, 2.0, 50.0])):
        law, fine = NoiseLaw(sigma, scales), NoiseLaw(sigma, scales, dps=50)
        assert abs(law.mass() - 1) < mp.mpf(10) ** -35
        for x in (-40.0, -3.0, 0.4):
            with mp.workdps(50):
                assert abs(law.density(x) / law.density_by_quad(x) - 1) < mp.mpf(10) ** -35
                assert abs(law.cdf(x) / fine.cdf(x) - 1) < mp.mpf(10) ** -35
    with mp.workdps(50):  # n iid Lap(b): |u|^(n−1/2) K_(n−1/2)(|u|/b) / (b √π 2^(n−1/2) Γ(n) b^(n−1/2))
        n, b, u = 4, mp.mpf(1.5), mp.mpf(2.5)
        nu = n - mp.mpf(1) / 2
        bessel = (u / b) ** nu * mp.besselk(nu, u / b) / (b * mp.sqrt(mp.pi) * 2**nu * mp.gamma(n))
        assert abs(NoiseLaw(0, [1.5] * 4, dps=50).laplace_density(u) / bessel - 1) < mp.mpf(10) ** -38


# ------------------------------------------------------------------------------------------ BBGG-E2r vs exact
def _random_pipeline(rng):
    kinds = {"laplace": (LM, LK), "gaussian": (GM, GK)}
    r = int(rng.integers(1, 5))
    steps = [str(rng.choice(["laplace", "gaussian"], p=[0.6, 0.4])) for _ in range(r + 1)]
    if "laplace" not in steps:
        steps[int(rng.integers(0, r + 1))] = "laplace"
    scales = np.exp(rng.uniform(math.log(0.1), math.log(10.0), size=r + 1))
    if rng.random() < 0.3:  # equal scales
        scales[:] = scales[0]
    pipe = kinds[steps[0]][0](float(scales[0]), sensitivity=float(np.exp(rng.uniform(math.log(0.05), math.log(8.0)))))
    for kind, scale in zip(steps[1:], scales[1:], strict=True):
        pipe = pipe >> kinds[kind][1](float(scale))
    return pipe


def test_bbgg_e2r_never_below_the_exact_profile_and_exact_wins():
    """BBGG-E2r's delta(eps) and RDP curve never below the exact ones (STD-LaplaceSumN / STD-NormalLaplace), and the
    certificate's best is the exact value (STD-Exact), on random Laplace and mixed chains (few: the Rényi profile of a
    Gaussian plus several Laplaces is a quadrature of a convolution, ~1 s an order; the 2 000-chain soundness test of
    tests/test_shift_reduction.py uses its own fast oracle)."""
    rng = np.random.default_rng(14)
    alphas = np.array([2.0, 64.0])
    for n in range(12):
        pipe = _random_pipeline(rng)
        eps = float(rng.uniform(0.0, 3.0))
        cert = md.certify(pipe, rules=["BBGG-E2r", "EXACT"])
        e2r, exact = cert.candidates["BBGG-E2r"], cert.exact
        assert exact is not None, pipe
        delta = float(md.privacy_profile(pipe, eps))
        renyi = md.renyi_profile(pipe, alphas)
        what = f"chain {n}: {pipe}, eps={eps!r}"
        assert float(e2r.delta(eps)) >= delta, what
        assert np.all(np.asarray(e2r.renyi(alphas)) >= renyi), what
        assert float(cert.delta(eps)) == delta == float(exact.delta(eps)), what
