"""AffineGaussianKernel, its merges and pushes, and exact privacy through GaussianBallPair (BBGG-E1).

Independent checks: scipy.stats densities, Monte Carlo moments of the sampled pipeline, the unmerged `Chain`
(push law by law) against the merged kernel, a brute-force max over directions of the L2 sphere of the
closed-form divergence between the pipeline's output laws, a Monte Carlo estimate of the hockey-stick of the
sampled pipeline, and the BBGG-E1 formula alpha Δ² / (2 (s1² + s2²/a²)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import markovdp as md
from markovdp.distributions.multivariate_normal import MultivariateNormal
from markovdp.guarantees.pair_maxima import _max_over, pairs_hockey_stick, pairs_renyi
from markovdp.operators import Chain
from markovdp.operators.affine_gaussian import AffineGaussianKernel
from markovdp.pairs import push_pairs
from markovdp.pairs_gaussian import GaussianBallPair

MVN = MultivariateNormal


def rotation(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])


def random_orthogonal(d: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, d)))
    return q * np.sign(np.diag(r))


R = rotation(0.7)
#: non-isotropic maps: e_1 is not the worst direction for any of them
MAPS = {"diag(0.2, 3)": np.diag([0.2, 3.0]), "rotated diag(3, 0.2)": R @ np.diag([3.0, 0.2]) @ R.T,
        "3x2": np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 0.3]])}


def circle(n: int) -> np.ndarray:
    """n unit vectors of R^2 at equally spaced angles in [0, π) (v and −v give the same divergence)."""
    t = np.linspace(0.0, math.pi, n, endpoint=False)
    return np.stack([np.cos(t), np.sin(t)], axis=1)


# --------------------------------------------------------------------------------------------- the kernel


def test_signature_and_shapes():
    k = AffineGaussianKernel(np.ones((3, 2)), 0, 0.5)
    assert k.domain == md.RealSpace(2) and k.codomain == md.RealSpace(3)
    np.testing.assert_array_equal(k.b, np.zeros(3))
    np.testing.assert_array_equal(k.noise_cov, 0.25 * np.eye(3))
    assert k.sample(np.zeros((4, 2)), rng=0).shape == (4, 3)
    assert k.sample(np.zeros(2), rng=0).shape == (3,)
    scalar = AffineGaussianKernel(2.0, 1.0, 0.5)  # the 1-D case: y = 2 x + 1 + N(0, 0.25)
    assert scalar.domain == scalar.codomain == md.RealSpace(1)
    assert scalar.sample(np.zeros(5), rng=0).shape == (5,)
    assert AffineGaussianKernel(2.0, [1.0, 0.0], 0.5).A.tolist() == [[2.0, 0.0], [0.0, 2.0]]
    general = AffineGaussianKernel(np.eye(2), 0.0, noise_cov=[[1.0, 0.2], [0.2, 0.5]])
    assert general.sigma is None
    assert "noise_cov=" in repr(general) and repr(k).startswith("AffineGaussianKernel(A=[[1.0, 1.0]")
    assert k == AffineGaussianKernel(np.ones((3, 2)), [0, 0, 0], 0.5) and len({k, AffineGaussianKernel(
        np.ones((3, 2)), 0.0, 0.5)}) == 1


def test_bad_input_names_the_parameter():
    for sigma in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="`sigma`"):
            AffineGaussianKernel(np.eye(2), 0, sigma)
    with pytest.raises(ValueError, match="`A`.*NaN"):
        AffineGaussianKernel([[1.0, math.nan], [0.0, 1.0]], 0, 1.0)
    with pytest.raises(ValueError, match="`b`.*NaN"):
        AffineGaussianKernel(np.eye(2), [0.0, math.nan], 1.0)
    with pytest.raises(ValueError, match="`A` must be a scalar or a non-empty 2-D"):
        AffineGaussianKernel([1.0, 2.0], 0, 1.0)
    with pytest.raises(ValueError, match=r"`b` must be a scalar or a vector of length 2.*shape \(3,\)"):
        AffineGaussianKernel(np.eye(2), np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="`noise_cov` must be positive definite"):
        AffineGaussianKernel(np.eye(2), 0, noise_cov=[[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="`noise_cov` must be symmetric"):
        AffineGaussianKernel(np.eye(2), 0, noise_cov=[[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"`noise_cov` must be a \(2, 2\) matrix"):
        AffineGaussianKernel(np.eye(2), 0, noise_cov=np.eye(3))
    with pytest.raises(TypeError, match="`sigma` or `noise_cov`"):
        AffineGaussianKernel(np.eye(2), 0)
    with pytest.raises(TypeError, match="`sigma` or `noise_cov`"):
        AffineGaussianKernel(np.eye(2), 0, 1.0, noise_cov=np.eye(2))
    k = AffineGaussianKernel(np.ones((2, 3)), 0, 1.0)
    with pytest.raises(ValueError, match="`x`"):
        k.sample(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="`x`.*NaN"):
        k.sample(np.full((1, 3), math.nan))


def test_dimension_mismatches_raise_incompatible_spaces_with_both_sizes():
    with pytest.raises(md.IncompatibleSpaces, match=r"R\^3.*R\^2"):
        md.GaussianMechanism(1.0, dim=3) >> AffineGaussianKernel(np.ones((2, 2)), 0, 1.0)
    with pytest.raises(md.IncompatibleSpaces, match=r"R\^2.*R\^3"):
        AffineGaussianKernel(np.ones((2, 2)), 0, 1.0) >> AffineGaussianKernel(np.ones((2, 3)), 0, 1.0)
    with pytest.raises(md.IncompatibleSpaces, match=r"R\^3.*R\^2"):
        md.Normal(np.zeros(3), 1.0) >> AffineGaussianKernel(np.ones((2, 2)), 0, 1.0)


def test_log_density_matches_scipy():
    cov = np.array([[1.0, 0.3, 0.0], [0.3, 0.8, -0.1], [0.0, -0.1, 0.5]])
    a, b = np.arange(6.0).reshape(3, 2) / 4, np.array([0.5, -1.0, 2.0])
    k = AffineGaussianKernel(a, b, noise_cov=cov)
    x, y = np.array([0.3, -0.7]), np.random.default_rng(1).normal(size=(6, 3))
    np.testing.assert_allclose(k.log_density(x, y), stats.multivariate_normal(a @ x + b, cov).logpdf(y), rtol=1e-12)
    one = AffineGaussianKernel(2.0, 1.0, 0.5)
    np.testing.assert_allclose(one.log_density(np.array([0.2, 0.4]), np.array([1.1, 2.5])),
                               stats.norm([1.4, 1.8], 0.5).logpdf([1.1, 2.5]), rtol=1e-12)


def moments_agree(y: np.ndarray, law: MultivariateNormal) -> None:
    """Sample mean within 5 standard errors; sample covariance entries within 5 standard errors."""
    n, cov = y.shape[0], np.atleast_2d(law.cov)
    y = y.reshape(n, -1)
    assert np.all(np.abs(y.mean(axis=0) - np.atleast_1d(law.mean)) <= 5 * np.sqrt(np.diag(cov) / n))
    var = (cov**2 + np.outer(np.diag(cov), np.diag(cov))) / n
    assert np.all(np.abs(np.atleast_2d(np.cov(y.T)) - cov) <= 5 * np.sqrt(var))


@pytest.mark.parametrize("law", [md.Normal([1.0, -1.0], 0.7), MVN([1.0, -1.0], [[1.0, 0.4], [0.4, 0.6]]),
                                 md.PointMass([1.0, -1.0])], ids=repr)
def test_push_is_the_law_of_the_samples(law):
    k = AffineGaussianKernel([[2.0, -1.0], [0.5, 0.3], [0.0, 1.0]], [0.1, 0.2, 0.3], 0.4)
    pushed = law >> k
    assert isinstance(pushed, MultivariateNormal)
    y = k.sample(law.sample(40_000, rng=2), rng=3)
    moments_agree(y, pushed)


def test_push_agrees_with_gaussian_kernel_and_one_dimensional_case():
    g = md.GaussianKernel(0.5, dim=2)
    k = AffineGaussianKernel(np.eye(2), 0.0, 0.5)
    law = md.Normal([0.3, 0.1], 0.7)
    expected = law >> g
    got = law >> k
    np.testing.assert_allclose(got.cov, expected.sigma**2 * np.eye(2), rtol=1e-15)
    np.testing.assert_array_equal(got.mean, expected.mean)
    one = md.Normal(1.0, 2.0) >> AffineGaussianKernel(-3.0, 0.5, 1.0)
    assert float(one.mean) == -2.5 and float(one.cov[0, 0]) == pytest.approx(37.0, rel=1e-15)


# --------------------------------------------------------------------------------------------- merges


def as_affine(k):
    """A GaussianKernel written as y = I x + 0 + N(0, s² I), by hand."""
    if isinstance(k, md.GaussianKernel):
        return np.eye(k.dim), np.zeros(k.dim), k.sigma**2 * np.eye(k.dim)
    return k.A, k.b, k.noise_cov


@pytest.mark.parametrize("pair", ["affine-affine", "gaussian-affine", "affine-gaussian"])
def test_chains_merge_exactly(pair):
    """The merged kernel against the law of x through the unmerged chain: pushed step by step (affine-affine),
    written out by hand (x1 = A1 x + b1 + Z1, y = A2 x1 + b2 + Z2), and sampled through the `Chain` node."""
    a1 = AffineGaussianKernel([[1.0, 0.5], [-0.3, 2.0]], [0.1, -0.2], 0.6)
    a2 = AffineGaussianKernel([[0.0, 1.5], [1.0, 1.0], [2.0, 0.0]], [1.0, 0.0, -1.0], 0.3)
    g = md.GaussianKernel(0.8, dim=2)
    k1, k2 = {"affine-affine": (a1, a2), "gaussian-affine": (g, a2), "affine-gaussian": (a1, g)}[pair]
    merged = k1 >> k2
    assert isinstance(merged, AffineGaussianKernel)
    x = np.array([0.4, -1.2])
    got = md.PointMass(x) >> merged
    (m1, c1, v1), (m2, c2, v2) = as_affine(k1), as_affine(k2)
    np.testing.assert_allclose(got.mean, m2 @ (m1 @ x + c1) + c2, rtol=1e-14)
    np.testing.assert_allclose(got.cov, m2 @ v1 @ m2.T + v2, rtol=1e-14)
    if pair == "affine-affine":
        stepwise = Chain((k1, k2)).push(md.PointMass(x))
        np.testing.assert_allclose(got.cov, stepwise.cov, rtol=1e-14)
    moments_agree(Chain((k1, k2)).sample(np.tile(x, (40_000, 1)), rng=4), got)
    if pair == "affine-gaussian":
        assert merged.sigma == pytest.approx(1.0, rel=1e-15)  # hypot(0.6, 0.8): stays isotropic
    if pair == "gaussian-affine":  # σ1² A2 A2ᵀ + σ2² I, not isotropic
        assert merged.sigma is None


def test_powers_fold_into_one_affine_kernel():
    k = AffineGaussianKernel([[0.9, 0.2], [-0.1, 0.5]], [1.0, 0.0], 0.3)
    cube = k**3
    assert isinstance(cube, AffineGaussianKernel)
    want = Chain((k, k, k)).push(md.PointMass([0.5, 0.5]))
    got = md.PointMass([0.5, 0.5]) >> cube
    np.testing.assert_allclose(got.mean, want.mean, rtol=1e-14)
    np.testing.assert_allclose(got.cov, want.cov, rtol=1e-14)


# --------------------------------------------------------------------------------------------- exact privacy


def textbook_hockey_stick(dist, eps) -> np.ndarray:
    """STD-GaussHS as printed, Phi(D/2 − eps/D) − e^eps Phi(−D/2 − eps/D) in Mahalanobis units (scipy.stats)."""
    return stats.norm.cdf(dist / 2 - eps / dist) - np.exp(eps) * stats.norm.cdf(-dist / 2 - eps / dist)


def brute_force(pipeline, a: np.ndarray, sensitivity: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(max over v on the circle of E_{e^eps}, of R_alpha) between the pipeline's output laws at 0 and Δ v.

    The output laws are N(A f + c, C): Mahalanobis distances ||Δ A v||_{C⁻¹} by np.linalg.solve for every v at
    once, then the printed closed forms; 40 of the directions also through the divergence registry."""
    origin = pipeline.output(np.zeros(2))
    directions = circle(n)
    diffs = sensitivity * directions @ a.T
    dist = np.sqrt(np.einsum("ij,ij->i", diffs, np.linalg.solve(origin.cov, diffs.T).T))
    eps, alpha = np.array([0.0, 0.5, 2.0]), np.array([2.0, 10.0])
    hs = np.array([textbook_hockey_stick(dist, e).max() for e in eps])
    ren = alpha * dist.max() ** 2 / 2
    for v, dv in zip(directions[:: n // 40], dist[:: n // 40], strict=True):
        far = pipeline.output(sensitivity * v)
        np.testing.assert_allclose(md.hockey_stick(origin, far, eps=eps), textbook_hockey_stick(dv, eps), rtol=1e-9)
        np.testing.assert_allclose(md.renyi(origin, far, alpha=alpha), alpha * dv**2 / 2, rtol=1e-12)
    return hs, ren


@pytest.mark.parametrize("name", list(MAPS))
def test_exact_privacy_is_the_worst_direction_of_the_ball(name):
    """privacy_profile / renyi_profile equal the max over the unit circle (20000 angles: within 1e-8 relative,
    since the angle is off by at most π/40000 and the error is quadratic in it)."""
    a = MAPS[name]
    d = a.shape[1]
    pipeline = md.GaussianMechanism(0.8, sensitivity=1.5, dim=d) >> AffineGaussianKernel(a, [0.3] * a.shape[0], 0.5)
    pairs = pipeline.dominating_pairs()
    assert isinstance(pairs, GaussianBallPair)
    exact_hs = md.privacy_profile(pipeline, np.array([0.0, 0.5, 2.0]))
    exact_r = md.renyi_profile(pipeline, np.array([2.0, 10.0]))
    hs, ren = brute_force(pipeline, a, 1.5, 20_000)
    assert np.all(hs <= exact_hs * (1 + 1e-12)) and np.all(ren <= exact_r * (1 + 1e-12))
    np.testing.assert_allclose(hs, exact_hs, rtol=2e-8)
    np.testing.assert_allclose(ren, exact_r, rtol=2e-8)
    # the worst direction is the top eigenvector of Aᵀ(s1² A Aᵀ + s2² I)⁻¹ A, and it is not e_1
    m = a.T @ np.linalg.solve(0.64 * a @ a.T + 0.25 * np.eye(a.shape[0]), a)
    w, v = np.linalg.eigh(m)
    assert abs(abs(pairs.direction @ v[:, -1]) - 1.0) < 1e-12
    assert md.renyi_profile(pipeline, 2.0) == pytest.approx(2.0 * 1.5**2 * w[-1] / 2, rel=1e-12)
    e1 = md.renyi(pipeline.output(np.zeros(d)), pipeline.output(1.5 * np.eye(d)[0]), alpha=2.0)
    assert e1 < 0.9 * md.renyi_profile(pipeline, 2.0)  # pushing e_1 blindly would be wrong


def test_fast_paths_agree_with_the_generic_max_over_the_pair():
    pipeline = md.GaussianMechanism(0.8, dim=2) >> AffineGaussianKernel(MAPS["rotated diag(3, 0.2)"], 0, 0.5)
    pairs = pipeline.dominating_pairs()
    eps, alpha = np.array([0.0, 0.3, 1.0, 5.0, 50.0, np.inf]), np.array([1.5, 2.0, 1e3, np.inf])
    np.testing.assert_allclose(pairs_hockey_stick(pairs, eps), _max_over(pairs, md.hockey_stick, eps=eps),
                               rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(pairs_renyi(pairs, alpha), _max_over(pairs, md.renyi, alpha=alpha), rtol=1e-12)
    delta = 1e-6
    eps_star = md.privacy_epsilon(pipeline, delta)
    assert md.privacy_profile(pipeline, eps_star) <= delta
    assert md.privacy_profile(pipeline, eps_star * (1 - 1e-6)) > delta
    assert md.privacy_epsilon(pipeline, 0.0) == math.inf


def test_monte_carlo_of_the_sampled_pipeline_matches_the_exact_profile():
    """E_{e^eps} = P_0(S) − e^eps P_1(S), S = {log p_0/p_1 > eps}, estimated from pipeline samples at f(D) = 0
    and f(D') = Δ v*; each probability within 5 binomial standard errors."""
    pipeline = md.GaussianMechanism(0.8, sensitivity=1.5, dim=2) >> AffineGaussianKernel(MAPS["diag(0.2, 3)"], 0,
                                                                                         0.5)
    v = pipeline.dominating_pairs().direction
    p0, p1 = pipeline.output(np.zeros(2)), pipeline.output(1.5 * v)
    n, eps = 200_000, 0.5
    x0 = pipeline.sample(np.zeros((n, 2)), rng=5)
    x1 = pipeline.sample(np.tile(1.5 * v, (n, 1)), rng=6)
    in0 = p0.log_density(x0) - p1.log_density(x0) > eps
    in1 = p0.log_density(x1) - p1.log_density(x1) > eps
    f0, f1 = in0.mean(), in1.mean()
    se = math.sqrt(f0 * (1 - f0) / n) + math.exp(eps) * math.sqrt(f1 * (1 - f1) / n)
    assert abs((f0 - math.exp(eps) * f1) - md.privacy_profile(pipeline, eps)) <= 5 * se


def test_unmerged_chains_push_the_ball_through_each_kernel():
    """Chain((A1, G, A2)) pushed step by step (the GaussianKernel and affine ball rules) equals the merged kernel."""
    a1 = AffineGaussianKernel(MAPS["diag(0.2, 3)"], 0, 0.3)
    g = md.GaussianKernel(0.4, dim=2)
    a2 = AffineGaussianKernel(MAPS["3x2"], 1.0, 0.7)
    mech = md.GaussianMechanism(0.9, sensitivity=2.0, dim=2)
    stepwise = push_pairs(Chain((a1, g, a2)), mech.dominating_pairs())
    merged = (mech >> (a1 >> g >> a2)).dominating_pairs()
    assert isinstance(stepwise, GaussianBallPair)
    assert stepwise.ratio == pytest.approx(merged.ratio, rel=1e-12)
    np.testing.assert_allclose(stepwise.noise_cov, merged.noise_cov, rtol=1e-13)
    with pytest.raises(NotImplementedError, match="GaussianBallPair"):  # no rule: never a silent wrong value
        md.privacy_profile(md.GaussianMechanism(1.0) >> AffineGaussianKernel(2.0, 0, 1.0) >> md.LaplaceKernel(1.0),
                           0.5)


def test_one_dimensional_pipeline_is_a_gaussian_mechanism():
    """y = a x + b + N(0, s2²) after N(0, s1²): the Gaussian mechanism of sigma sqrt(s1² + s2²/a²)."""
    s1, s2, a = 1.0, 0.5, -2.0
    pipeline = md.GaussianMechanism(s1, sensitivity=0.7) >> AffineGaussianKernel(a, 3.0, s2)
    same = md.GaussianMechanism(math.sqrt(s1**2 + s2**2 / a**2), sensitivity=0.7)
    eps = np.array([0.0, 0.5, 3.0])
    np.testing.assert_allclose(md.privacy_profile(pipeline, eps), md.privacy_profile(same, eps), rtol=1e-12)


@pytest.mark.parametrize(("a", "d"), [(1.0, 1), (2.5, 1), (0.3, 3), (4.0, 3)])
def test_bbgg_e1_exact_rdp_equals_the_closed_form(a, d):
    """BBGG-E1: R_alpha of GaussianMechanism(s1) >> GaussianKernel(s2) and >> AffineGaussianKernel(a Q, b, s2)
    (Q orthogonal) is alpha Δ² / (2 (s1² + s2²/a²)), to 1e-10."""
    s1, s2, sens = 0.7, 1.3, 1.7
    alpha = np.array([1.001, 1.5, 2.0, 32.0, 1e3])
    mech = md.GaussianMechanism(s1, sensitivity=sens, dim=d)
    q = random_orthogonal(d, 7) if d > 1 else np.array([[-1.0]])
    affine = mech >> AffineGaussianKernel(a * q, 0.5, s2)
    np.testing.assert_allclose(md.renyi_profile(affine, alpha), alpha * sens**2 / (2 * (s1**2 + s2**2 / a**2)),
                               rtol=1e-10)
    eps = np.array([0.0, 1.0, 10.0, 50.0])
    same = md.GaussianMechanism(math.sqrt(s1**2 + s2**2 / a**2), sensitivity=sens)
    np.testing.assert_allclose(md.privacy_profile(affine, eps), md.privacy_profile(same, eps), rtol=1e-9, atol=1e-300)
    if a == 1.0:
        gauss = mech >> md.GaussianKernel(s2, dim=d)
        np.testing.assert_allclose(md.renyi_profile(gauss, alpha), alpha * sens**2 / (2 * (s1**2 + s2**2)),
                                   rtol=1e-10)


def test_extreme_parameters_stay_finite_and_exact():
    """sigma = 1e-3, eps up to 50, alpha up to 1e3: the ball pair against the equivalent 1-D Gaussian mechanism."""
    s1, s2, a = 1e-3, 2e-3, 0.5
    q = random_orthogonal(2, 3)
    pipeline = md.GaussianMechanism(s1, sensitivity=1e-2, dim=2) >> AffineGaussianKernel(a * q, 0, s2)
    same = md.GaussianMechanism(math.sqrt(s1**2 + s2**2 / a**2), sensitivity=1e-2)
    eps, alpha = np.array([0.0, 5.0, 50.0]), np.array([2.0, 1e3])
    got = md.privacy_profile(pipeline, eps)
    assert np.all(np.isfinite(got)) and got[0] > 0
    np.testing.assert_allclose(got, md.privacy_profile(same, eps), rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(md.renyi_profile(pipeline, alpha), md.renyi_profile(same, alpha), rtol=1e-10)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d_in=st.integers(1, 4), d_out=st.integers(1, 4),
       s1=st.floats(1e-2, 10.0), s2=st.floats(1e-2, 10.0), eps=st.floats(0.0, 5.0))
def test_no_direction_exceeds_the_exact_value(seed, d_in, d_out, s1, s2, eps):
    """Soundness of the ball pair: for random A and random unit directions v, the divergence between the output
    laws at 0 and Δ v never exceeds the exact profile (it is the sup over the ball)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(d_out, d_in)) * np.exp(rng.uniform(-2, 2, size=(d_out, 1)))
    pipeline = md.GaussianMechanism(s1, dim=d_in) >> AffineGaussianKernel(a, 0, s2)
    exact_hs, exact_r = md.privacy_profile(pipeline, eps), md.renyi_profile(pipeline, 2.0)
    origin = pipeline.output(np.zeros(d_in) if d_in > 1 else 0.0)
    for v in rng.normal(size=(3, d_in)):
        v = v / np.linalg.norm(v)
        far = pipeline.output(v if d_in > 1 else float(v[0]))
        assert md.hockey_stick(origin, far, eps=eps) <= exact_hs * (1 + 1e-9) + 1e-15
        assert md.renyi(origin, far, alpha=2.0) <= exact_r * (1 + 1e-9) + 1e-15
