"""Exact privacy profiles, inverses and RDP curves vs independent oracles (brute force, mpmath)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from oracles import (
    hockey_stick_bruteforce,
    mp_hockey_stick_laplace,
    mp_hockey_stick_normal,
    mp_laplace_logpdf,
    mp_normal_logpdf,
    mp_renyi_1d,
    renyi_categorical_mp,
    scale_points,
)
from registry import random_stochastic

import markovdp as md
from markovdp.guarantees import registry
from markovdp.guarantees.types import Bound


def oracle_profile(matrix, pairs, eps):
    return max(hockey_stick_bruteforce(matrix[i], matrix[j], eps) for i, j in pairs)


@pytest.mark.parametrize("neighbours", [None, [(0, 2)], [(1, 0), (2, 3)]])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finite_profile_matches_bruteforce_over_events(neighbours, seed):
    matrix = random_stochastic(4, 5, seed, zeros=seed == 2)
    mech = md.FiniteMechanism(matrix, neighbours=neighbours)
    pairs = ([(i, j) for i in range(4) for j in range(4) if i != j] if neighbours is None
             else [p for a, b in neighbours for p in ((a, b), (b, a))])
    eps = np.array([0.0, 0.2, 1.0, 3.0])
    expected = [oracle_profile(matrix, pairs, e) for e in eps]
    np.testing.assert_allclose(md.privacy_profile(mech, eps), expected, atol=1e-14)
    kernel = md.FiniteKernel(random_stochastic(5, 3, seed + 10))
    post = matrix @ kernel.matrix
    np.testing.assert_allclose(md.privacy_profile(mech >> kernel, eps),
                               [oracle_profile(post, pairs, e) for e in eps], atol=1e-14)


@pytest.mark.parametrize("delta", [0.0, 1e-6, 0.01, 0.2])
def test_privacy_epsilon_inverts_the_profile(delta):
    mech = md.FiniteMechanism(random_stochastic(3, 4, 5), neighbours=[(0, 1)])
    eps = md.privacy_epsilon(mech, delta)
    assert md.privacy_profile(mech, eps) <= delta + 1e-12
    if eps > 0:
        assert md.privacy_profile(mech, max(eps - 1e-9, 0.0)) > delta


def test_privacy_epsilon_is_infinite_when_supports_differ_at_delta_zero():
    mech = md.FiniteMechanism([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], neighbours=[(0, 1)])
    assert md.privacy_epsilon(mech, 0.0) == math.inf
    assert md.privacy_epsilon(mech, 0.5) < math.inf


def test_randomized_response_is_exactly_eps_ldp():
    for k, eps in [(2, 0.5), (5, 1.0), (10, 50.0)]:
        rr = md.RandomizedResponse(k, eps)
        assert md.privacy_epsilon(rr, 0.0) == pytest.approx(eps, rel=1e-12)
        assert md.renyi_profile(rr, math.inf) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize(("s1", "s2", "eps"), [(1.0, None, 0.0), (1.0, None, 10.0), (0.5, 0.5, 1.0),
                                               (1e-3, None, 0.5), (2.0, 1.0, 50.0)])
def test_std_gausshs_profile_of_gaussian_pipelines_matches_mpmath(s1, s2, eps):
    mech = md.GaussianMechanism(s1)
    subject = mech if s2 is None else mech >> md.GaussianKernel(s2)
    s = s1 if s2 is None else math.hypot(s1, s2)
    expected = mp_hockey_stick_normal(1.0, s, eps)
    assert md.privacy_profile(subject, eps) == pytest.approx(expected, rel=1e-8, abs=1e-300)


def test_std_gausshs_extreme_value_is_not_zero():
    value = md.privacy_profile(md.GaussianMechanism(1.0), 10.0)
    assert value == pytest.approx(9.81e-23, rel=2e-3)


@pytest.mark.parametrize(("scale", "eps"), [(1.0, 0.0), (1.0, 0.5), (0.5, 1.9), (2.0, 0.49)])
def test_std_laphs_profile_matches_mpmath(scale, eps):
    expected = mp_hockey_stick_laplace(1.0, scale, eps)
    assert md.privacy_profile(md.LaplaceMechanism(scale), eps) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("alpha", [1.5, 2.0, 10.0, 1e3, math.inf])
def test_finite_renyi_profile_matches_mpmath(alpha):
    matrix = random_stochastic(3, 4, 8)
    mech = md.FiniteMechanism(matrix)
    expected = max(renyi_categorical_mp(matrix[i], matrix[j], alpha) for i in range(3) for j in range(3) if i != j)
    assert md.renyi_profile(mech, alpha) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("alpha", [2.0, 10.0])
def test_bbgg_e1_gaussian_pipeline_renyi_matches_mpmath(alpha):
    subject = md.GaussianMechanism(1.0, sensitivity=1.5) >> md.GaussianKernel(0.8)
    s = math.hypot(1.0, 0.8)
    expected = mp_renyi_1d(mp_normal_logpdf(0, s), mp_normal_logpdf(1.5, s), alpha, scale_points([0, 1.5], s))
    assert md.renyi_profile(subject, alpha) == pytest.approx(expected, rel=1e-9)


def test_std_laprenyi_profile_matches_mpmath():
    expected = mp_renyi_1d(mp_laplace_logpdf(0, 0.7), mp_laplace_logpdf(1.0, 0.7), 3.0, scale_points([0, 1.0], 0.7))
    assert md.renyi_profile(md.LaplaceMechanism(0.7), 3.0) == pytest.approx(expected, rel=1e-9)


# (Laplace and mixed Gaussian/Laplace chains on R are exact since STD-LaplaceSumN/STD-NormalLaplace: test_noise_chains)
@pytest.mark.parametrize("subject", [md.DeclaredDP(1.0, 0.0) >> md.LaplaceKernel(1.0),
                                     md.DeclaredDP(1.0, 0.0) >> md.GaussianKernel(1.0)], ids=repr)
def test_no_exact_method_names_the_pipeline(subject):
    for call in (md.privacy_profile, md.renyi_profile):
        with pytest.raises(NotImplementedError, match=type(subject).__name__ if not isinstance(
                subject, md.PostProcessed) else "Kernel"):
            call(subject, 2.0)


def test_profiles_broadcast_over_arrays():
    mech = md.RandomizedResponse(3, 1.0)
    eps = np.array([[0.0, 0.5], [1.0, 2.0]])
    assert md.privacy_profile(mech, eps).shape == (2, 2)
    assert isinstance(md.privacy_profile(mech, 0.5), float)
    assert md.renyi_profile(mech, np.array([2.0, np.inf])).shape == (2,)


def test_aac_phi_is_phi_n_not_phi_to_the_n():
    assert md.guarantees.ldp_contraction_bound(1.0, 0.1) == pytest.approx(1 - 0.9 * math.exp(-1.0), rel=1e-15)
    assert md.guarantees.ldp_contraction_bound(1.0, 0.1, 3) == pytest.approx(1 - math.exp(-3.0) * 0.9**3, rel=1e-15)
    assert md.guarantees.ldp_contraction_bound(1.0, 0.1, 3) > (1 - 0.9 * math.exp(-1.0)) ** 3


def test_std_rdp2dp_is_sound_for_the_gaussian_mechanism():
    """Converting the exact RDP curve can only over-estimate the exact eps at delta."""
    mech = md.GaussianMechanism(2.0)
    alphas = np.linspace(1.1, 200, 400)
    for delta in (1e-3, 1e-6, 1e-9):
        converted = md.guarantees.rdp_to_dp(md.renyi_profile(mech, alphas), alphas, delta)
        exact = md.privacy_epsilon(mech, delta)
        assert exact <= converted <= exact + 1.5
        # Mironov's form alone is never better (STD-RDP2DP):
        mironov = min(a / 8 + math.log(1 / delta) / (a - 1) for a in alphas)
        assert converted <= mironov + 1e-12


def test_rdp_to_dp_pure_and_edge_cases():
    assert md.guarantees.rdp_to_dp(0.7, math.inf, 0.0) == 0.7
    assert md.guarantees.rdp_to_dp([0.1, 0.2], [2.0, 3.0], 0.0) == math.inf
    assert md.guarantees.rdp_to_dp(0.0, 2.0, 0.5) == 0.0  # clipped at 0


def test_certificate_takes_the_best_candidate_pointwise():
    mech = md.RandomizedResponse(4, 1.0)
    kernel = md.FiniteKernel(0.6 * np.eye(4) + 0.1)
    cert = md.certify(mech >> kernel)
    assert set(cert.candidates) >= {"MECH", "POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4"}
    assert isinstance(cert.candidates["MECH"], md.NotApplicable)
    eps = np.linspace(0, 2, 9)
    # the pointwise min, floored by the exact profile where the rule EXACT applies (STD-Exact: no valid bound lies
    # below it; BBGG-T1.2 attains it here, up to ulps of its own arithmetic)
    best = np.maximum(np.min([b.delta(eps) for b in cert.bounds], axis=0), cert.exact.delta(eps))
    np.testing.assert_array_equal(cert.delta(eps), best)
    for e in eps:
        assert cert.best(eps=e).delta(e) == pytest.approx(cert.delta(e), rel=1e-12, abs=1e-15)
    assert cert.epsilon(0.01) == max(min(b.epsilon(0.01) for b in cert.bounds), cert.exact.epsilon(0.01))


def test_certificate_without_an_exact_value_is_the_pointwise_min():
    cert = md.certify(md.DeclaredDP(1.0, 0.0) >> md.GaussianKernel(1.0))
    assert cert.exact is None and cert.bounds
    eps = np.linspace(0, 2, 9)
    np.testing.assert_array_equal(cert.delta(eps), np.min([b.delta(eps) for b in cert.bounds], axis=0))
    assert cert.epsilon(0.01) == min(b.epsilon(0.01) for b in cert.bounds)
    assert cert.best(eps=0.5).theorem in cert.candidates


def test_certify_gives_the_closed_form_mech_curve():
    cert = md.certify(md.GaussianMechanism(1.0))
    assert cert.best(eps=1.0).theorem == "MECH"
    assert cert.renyi(2.0) == pytest.approx(1.0)  # alpha Delta² / (2 sigma²), STD-GaussRenyi
    # every 1-DP pair is a post-processing of randomized response's (p, 1 − p), p = e/(1 + e)
    # (STD-DominatingPair): its R_5 is the class's worst case, below the pure-DP level R_inf = 1
    p = mpmath.e / (1 + mpmath.e)
    expected = float(mpmath.log(p**5 * (1 - p) ** -4 + (1 - p) ** 5 * p**-4) / 4)
    assert md.certify(md.DeclaredDP(1.0, 0.0)).renyi(5.0) == pytest.approx(expected, rel=1e-13)
    assert md.certify(md.DeclaredDP(1.0, 0.0)).renyi(np.inf) == 1.0
    assert md.certify(md.DeclaredDP(1.0, 0.1)).renyi(5.0) == math.inf


def test_bbgg_t1_is_not_applicable_to_continuous_kernels_and_t14_to_sparse_ones():
    cert = md.certify(md.GaussianMechanism(1.0) >> md.LaplaceKernel(1.0))
    for rule in ("BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4"):
        assert isinstance(cert.candidates[rule], md.NotApplicable)
        assert "finite kernel" in cert.candidates[rule].reason
    sparse = md.certify(md.RandomizedResponse(2, 1.0) >> md.FiniteKernel(np.eye(2)))
    assert isinstance(sparse.candidates["BBGG-T1.4"], md.NotApplicable)


class Opaque(md.Mechanism):
    """A mechanism nothing can certify (neighbours: unspecified)."""

    neighbours = None
    output_space = None

    def output(self, value):
        raise NotImplementedError

    def sample(self, value, *, rng=None):
        raise NotImplementedError


def test_require_raises_listing_every_reason():
    cert = md.certify(Opaque())
    assert cert.delta(1.0) == 1.0 and cert.epsilon(0.1) == math.inf and cert.renyi(2.0) == math.inf
    assert cert.best(eps=1.0) is None
    with pytest.raises(md.NoApplicableTheorem, match="BBGG-T1.1") as info:
        md.certify(Opaque(), require=True)
    assert "MECH" in str(info.value) and "POST" in str(info.value)


def test_theorem_decorator_registers_a_new_rule():
    @md.theorem("TEST-HALF")
    def half(subject):
        return Bound("TEST-HALF", {}, lambda eps: np.full(eps.shape, 0.5))

    try:
        cert = md.certify(md.RandomizedResponse(2, 1.0))
        assert cert.candidates["TEST-HALF"].delta(0.0) == 0.5
        with pytest.raises(ValueError, match="already registered"):
            md.theorem("TEST-HALF")(lambda s: None)
    finally:
        registry._RULES.pop("TEST-HALF")


def test_profile_and_inverse_stay_exact_past_float_overflow_of_e_eps():
    """A zero cell keeps delta = 0.5 for every eps: no NaN past eps ~ 709.78, and no finite eps at 0.1."""
    mech = md.FiniteMechanism([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], neighbours=[(0, 1)])
    np.testing.assert_array_equal(md.privacy_profile(mech, np.array([700.0, 710.0, 800.0, np.inf])), 0.5)
    assert md.privacy_epsilon(mech, 0.1) == math.inf
    assert md.certify(mech).epsilon(0.1) == math.inf
    assert md.certify(mech).delta(800.0) == 0.5


def test_privacy_epsilon_of_a_tiny_sigma_gaussian_is_finite():
    """sigma = 1e-3: eps(delta = 1e-5) is about 5e5 (STD-GaussHS inverted), not inf."""
    mech = md.GaussianMechanism(1e-3)
    eps = md.privacy_epsilon(mech, 1e-5)
    assert 4e5 < eps < 6e5
    assert md.privacy_profile(mech, eps) <= 1e-5 < md.privacy_profile(mech, eps * (1 - 1e-9))


def test_finite_identity_kernel_is_a_finite_kernel_for_every_rule():
    cert = md.certify(md.RandomizedResponse(2, 1.0) >> md.Identity(md.FiniteSpace(2)))
    for rule in ("POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3"):
        assert isinstance(cert.candidates[rule], Bound)
    assert md.dobrushin(md.Identity(md.FiniteSpace(3))) == 1.0


@pytest.mark.parametrize("eps0", [0.0, 1.0, 50.0, 700.0])
def test_declared_witness_matches_the_dominating_curve_at_extremes(eps0):
    declared = md.DeclaredDP(eps0, 0.01)
    eps = np.array([0.0, eps0 / 2, eps0])
    np.testing.assert_allclose(md.privacy_profile(declared.witness(), eps), md.certify(declared).delta(eps),
                               rtol=1e-9, atol=1e-15)


def test_rdp_to_dp_accepts_a_curve():
    cert = md.certify(md.GaussianMechanism(1.0))
    alphas = np.linspace(1.5, 64, 200)
    rdp_to_dp = md.guarantees.rdp_to_dp
    assert rdp_to_dp(cert.renyi, alphas, 1e-5) == rdp_to_dp(cert.renyi(alphas), alphas, 1e-5)


@pytest.mark.parametrize("subject", [md.GaussianMechanism(1.0), md.GaussianMechanism(100.0),
                                     md.GaussianMechanism(10.0) >> md.GaussianKernel(10.0)], ids=repr)
def test_a_gaussian_is_never_pure_dp_even_where_its_profile_underflows(subject):
    assert md.privacy_epsilon(subject, 0.0) == math.inf
    assert md.certify(subject).epsilon(0.0) == math.inf


def test_laplace_pure_dp_level_is_sensitivity_over_scale():
    assert md.privacy_epsilon(md.LaplaceMechanism(0.5), 0.0) == pytest.approx(2.0, rel=1e-15)
    assert md.certify(md.LaplaceMechanism(0.5)).epsilon(0.0) == pytest.approx(2.0, rel=1e-15)


def test_best_needs_a_scalar_and_is_none_without_any_rdp_guarantee():
    cert = md.certify(md.DeclaredDP(1.0, 0.1))
    assert cert.best(alpha=2.0) is None
    with pytest.raises(TypeError, match="`eps`"):
        cert.best(eps=np.array([0.5, 1.0]))


def test_gaussian_profile_at_extreme_scales_matches_mpmath():
    """STD-GaussHS where eps s/D overflows (sigma 1e300: the value is 0, not NaN nor an OverflowError from the
    quadrature fallback) and where D² overflows (sensitivity 1e154: D/s = 1e4, not inf), against 60 digits."""
    mpmath.mp.dps = 60

    def exact(ratio: float, eps: float) -> float:
        r, e = mpmath.mpf(ratio), mpmath.mpf(eps)
        if r / 2 - e / r < -100:  # 0 <= E_gamma <= Phi(a) < 1e-2000: 0 in double
            return 0.0
        return float(mpmath.ncdf(r / 2 - e / r) - mpmath.exp(e) * mpmath.ncdf(-r / 2 - e / r))

    cases = [(md.GaussianMechanism(1e300), [1e10, 1.0, 0.0], 1e-300),
             (md.GaussianMechanism(1e150, sensitivity=1e154), [0.0, 4.9e7, 5e7, 5.1e7], 1e4)]
    for mechanism, eps, ratio in cases:
        got = md.privacy_profile(mechanism, eps)
        want = [exact(ratio, e) for e in eps]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)


def test_neighbour_pairs_and_a_users_matrix_mechanism_are_checked():
    """IndexPairs holds pairs of distinct indices >= 0, a FiniteMechanism checks them against its inputs (an index
    past the matrix read memory beyond it), and a user's MatrixMechanism subclass has its rows checked."""
    from dataclasses import dataclass

    rows = np.array([[0.9, 0.1], [0.1, 0.9], [0.5, 0.5]])
    for pairs, kind in ((((0, -1),), ValueError), (((0, 1.7),), TypeError), ((), ValueError), (((1, 1),), ValueError)):
        with pytest.raises(kind, match="`pairs`"):
            md.IndexPairs(pairs)
    with pytest.raises(ValueError, match=r"`neighbours` must be pairs of distinct indices in \[0, 2\]"):
        md.FiniteMechanism(rows, neighbours=md.IndexPairs(((0, 5),)))

    @dataclass(frozen=True)
    class Mine(md.MatrixMechanism):
        matrix: np.ndarray

        @property
        def neighbours(self):
            return md.IndexPairs(((0, 1),))

    with pytest.raises(ValueError, match="`matrix` must be row-stochastic"):
        md.privacy_profile(Mine(np.array([[0.9, 0.3], [0.1, 0.9]])), 0.5)
    good = Mine(np.array([[0.9, 0.1], [0.1, 0.9]]))
    assert md.privacy_profile(good, 0.5) == pytest.approx(0.9 - math.exp(0.5) * 0.1, rel=1e-14)


def test_gaussian_renyi_is_never_below_the_truth():
    """The equal-variance STD-GaussRenyi closed form is lifted above its float rounding: >= the 50-digit value and
    within 4e-15 of it (the lift is 2^-49), for mechanisms and pipelines whose pair is a shift pair or a Gaussian
    ball pair; a distance whose square overflows gives inf, not an OverflowError. (The ball pair's ratio carries its own
    certified error bound, a few parts in 1e14 here: the pipeline's tolerance.)"""
    mpmath.mp.dps = 50
    rng = np.random.default_rng(5)
    for _ in range(200):
        sigma, sensitivity = 10.0 ** rng.uniform(-3, 3), 10.0 ** rng.uniform(-3, 3)
        alpha = float(rng.choice([1.0 + 10.0 ** rng.uniform(-6, 0), 10.0 ** rng.uniform(0, 3)]))
        mechanism = md.GaussianMechanism(sigma, sensitivity=sensitivity)
        truth = mpmath.mpf(alpha) * (mpmath.mpf(sensitivity) / mpmath.mpf(sigma)) ** 2 / 2
        pipeline = mechanism >> md.AffineGaussianKernel(np.eye(1), 0.0, 1e-300)
        for subject, rtol in ((mechanism, 4e-15), (pipeline, 1e-13)):
            got = float(md.renyi_profile(subject, alpha))
            assert mpmath.mpf(got) >= truth and got <= float(truth) * (1 + rtol)
    assert md.renyi_profile(md.GaussianMechanism(1e-100, sensitivity=1e200), 2.0) == math.inf
