"""BrownianSemigroup (BBGG-BM) and OrnsteinUhlenbeckSemigroup (BBGG-OU): exact transitions, densities,
invariant laws, generator and carré du champ (BBGG-S, BBGG-A).

Independent checks: the transition variance by quadrature of the Itô isometry ∫_0^t 2 rho² e^(−2 theta (t−u)) du,
the affine-kernel merge (`AffineGaussianKernel >> AffineGaussianKernel`) against the closed form at t + s,
scipy.stats.multivariate_normal.logpdf, quadrature of the density, Monte Carlo moments with tolerances from
their standard errors, hand-derived gradients and Laplacians, and the generator as the time derivative of the
semigroup (Gauss–Hermite expectations, Richardson-extrapolated).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import markovdp as md
from markovdp.diffusions import BrownianSemigroup, OrnsteinUhlenbeckSemigroup, TimeSlice
from markovdp.distributions.multivariate_normal import MultivariateNormal
from markovdp.operators import Chain
from markovdp.operators.affine_gaussian import AffineGaussianKernel
from markovdp.operators.identity import Identity
from markovdp.spaces import IncompatibleSpaces

Z = 5.0  # Monte Carlo tolerance in standard errors (fixed seeds)
CASES = [BrownianSemigroup(1), BrownianSemigroup(3), OrnsteinUhlenbeckSemigroup(0.7, 1.3),
         OrnsteinUhlenbeckSemigroup(2.0, 0.5, dim=3)]


def transition_moments(P, t):
    """(mean factor, variance) of P_t(x) from the SDE alone: Itô isometry by quadrature (not the closed form)."""
    theta = getattr(P, "theta", 0.0)
    rho = getattr(P, "rho", 1.0)
    var = integrate.quad(lambda u: 2.0 * rho**2 * math.exp(-2.0 * theta * (t - u)), 0.0, t, epsabs=0, epsrel=1e-13)[0]
    return math.exp(-theta * t), var


def start(P):
    return 0.8 if P.dim == 1 else np.linspace(-1.0, 1.5, P.dim)


# --------------------------------------------------------------------------------------------- exact transitions


@pytest.mark.parametrize("P", CASES, ids=repr)
@pytest.mark.parametrize("t", [1e-6, 0.3, 2.5])
def test_kernel_matches_the_sde(P, t):
    """BBGG-BM / BBGG-OU: P_t(x) = N(a x, s² I) with a, s² from the SDE by quadrature."""
    a, var = transition_moments(P, t)
    k = P.at(t).kernel
    assert isinstance(k, AffineGaussianKernel)
    np.testing.assert_allclose(k.A, a * np.eye(P.dim), rtol=1e-13)
    np.testing.assert_array_equal(k.b, np.zeros(P.dim))
    np.testing.assert_allclose(k.noise_cov, var * np.eye(P.dim), rtol=1e-11)


@pytest.mark.parametrize("P", CASES, ids=repr)
@pytest.mark.parametrize(("t", "s"), [(0.3, 0.4), (1e-3, 2.0), (1.7, 0.05)])
def test_semigroup_law_exact(P, t, s):
    """BBGG-S: the merged affine kernels of P_t then P_s equal the closed form at t + s (A, b, Σ to 1e-12);
    and ``P.at(t) >> P.at(s)`` is ``P.at(t + s)``."""
    merged = P.at(t).kernel >> P.at(s).kernel  # AffineGaussianKernel's own merge rule
    direct = P.at(t + s).kernel
    np.testing.assert_allclose(merged.A, direct.A, rtol=1e-12, atol=0)
    np.testing.assert_allclose(merged.b, direct.b, atol=1e-12)
    np.testing.assert_allclose(merged.noise_cov, direct.noise_cov, rtol=1e-12, atol=0)
    composed = P.at(t) >> P.at(s)
    assert isinstance(composed, TimeSlice) and composed == P.at(t + s)


def test_slices_of_different_semigroups_stay_a_chain():
    P, Q = OrnsteinUhlenbeckSemigroup(1.0, 1.0), OrnsteinUhlenbeckSemigroup(2.0, 1.0)
    chain = P.at(0.5) >> Q.at(0.5)
    assert isinstance(chain, Chain) and chain.operators == (P.at(0.5), Q.at(0.5))
    assert repr(chain) == "OrnsteinUhlenbeckSemigroup(theta=1.0, rho=1.0, dim=1).at(0.5) >> " \
                          "OrnsteinUhlenbeckSemigroup(theta=2.0, rho=1.0, dim=1).at(0.5)"


@pytest.mark.parametrize("P", CASES, ids=repr)
def test_at_zero_is_the_identity(P):
    assert P.at(0) == Identity(P.space) and P.at(0.0) >> P.at(0.4) == P.at(0.4)
    x = np.ones((5, P.dim)) if P.dim > 1 else np.ones(5)
    np.testing.assert_array_equal(P.at(0).sample(x, rng=0), x)


@pytest.mark.parametrize("P", CASES, ids=repr)
def test_sampling_moments(P):
    """Samples of P_t(x0): mean a x0 and variance s² per coordinate (quadrature), within Z standard errors;
    coordinates uncorrelated."""
    t, n = 0.6, 100_000
    a, var = transition_moments(P, t)
    x0 = start(P)
    y = P.at(t).sample(np.broadcast_to(x0, (n, P.dim)) if P.dim > 1 else np.full(n, x0), rng=7)
    y = y.reshape(n, P.dim)
    np.testing.assert_array_less(np.abs(y.mean(axis=0) - a * np.atleast_1d(x0)), Z * math.sqrt(var / n))
    # the sample variance of a Gaussian has standard error var sqrt(2 / (n − 1))
    np.testing.assert_array_less(np.abs(y.var(axis=0, ddof=1) - var), Z * var * math.sqrt(2.0 / (n - 1)))
    if P.dim > 1:
        corr = np.corrcoef(y.T)[np.triu_indices(P.dim, 1)]
        np.testing.assert_array_less(np.abs(corr), Z / math.sqrt(n))


@pytest.mark.parametrize("P", CASES, ids=repr)
def test_push_is_the_exact_law(P):
    """Pushes of a point mass, a Normal and a MultivariateNormal are the closed-form Gaussians."""
    t = 0.9
    a, var = transition_moments(P, t)
    x0 = start(P)
    law = P.at(t).push(md.PointMass(x0))
    np.testing.assert_allclose(law.mean, a * np.asarray(x0), rtol=1e-13)
    np.testing.assert_allclose(law.cov, var * np.eye(P.dim), rtol=1e-11)
    law = P.at(t).push(md.Normal(x0, 0.5))
    np.testing.assert_allclose(law.cov, (a**2 * 0.25 + var) * np.eye(P.dim), rtol=1e-11)
    c = np.diag(np.linspace(0.5, 2.0, P.dim)) if P.dim > 1 else 0.7
    law = P.at(t).push(MultivariateNormal(x0, c))
    np.testing.assert_allclose(law.cov, a**2 * np.atleast_2d(c) + var * np.eye(P.dim), rtol=1e-11)


# --------------------------------------------------------------------------------------------- invariant laws


@pytest.mark.parametrize("P", [c for c in CASES if isinstance(c, OrnsteinUhlenbeckSemigroup)], ids=repr)
def test_ou_invariant_is_preserved(P):
    """BBGG-OU, BBGG-A(1): N(0, rho²/theta I) P_t = N(0, rho²/theta I), exactly and by Monte Carlo."""
    lam = P.invariant()
    v = P.rho**2 / P.theta
    assert isinstance(lam, md.Normal) and lam.sigma**2 == pytest.approx(v, rel=1e-14)
    for t in (0.01, 0.7, 5.0):
        law = P.at(t).push(lam)
        np.testing.assert_allclose(law.mean, 0.0, atol=1e-15)
        np.testing.assert_allclose(law.cov, v * np.eye(P.dim), rtol=1e-12)
    n = 100_000
    y = P.at(0.7).sample(lam.sample(n, rng=1), rng=2).reshape(n, P.dim)
    np.testing.assert_array_less(np.abs(y.var(axis=0, ddof=1) - v), Z * v * math.sqrt(2.0 / (n - 1)))


def test_brownian_invariant_is_lebesgue():
    """BBGG-BM: Lebesgue is invariant; it is no probability law, so `invariant()` is None and the density
    w.r.t. it is the Lebesgue density."""
    P = BrownianSemigroup(2)
    assert P.invariant() is None
    x, y = np.array([0.3, -1.0]), np.array([[1.0, 2.0], [0.0, 0.1]])
    np.testing.assert_array_equal(P.log_density(0.5, x, y, measure="invariant"), P.log_density(0.5, x, y))


# --------------------------------------------------------------------------------------------- densities


@pytest.mark.parametrize("P", CASES, ids=repr)
def test_log_density_matches_scipy(P):
    t = 0.45
    a, var = transition_moments(P, t)
    x0 = start(P)
    y = np.random.default_rng(3).normal(size=(6, P.dim)) * 2.0
    y = y[:, 0] if P.dim == 1 else y
    want = stats.multivariate_normal(mean=a * np.atleast_1d(x0), cov=var * np.eye(P.dim)).logpdf(y)
    np.testing.assert_allclose(P.log_density(t, x0, y), want, rtol=1e-11)
    np.testing.assert_allclose(P.at(t).log_density(x0, y), want, rtol=1e-11)


@pytest.mark.parametrize("P", [BrownianSemigroup(1), OrnsteinUhlenbeckSemigroup(0.7, 1.3)], ids=repr)
@pytest.mark.parametrize("t", [0.05, 1.0, 4.0])
def test_density_integrates_to_one(P, t):
    """∫ p_t(x, y) dy = 1 (Lebesgue), and ∫ p̃_t(x, y) λ(dy) = 1 for the density p̃ w.r.t. λ (d = 1, quadrature)."""
    x = 0.9
    total = integrate.quad(lambda y: math.exp(P.log_density(t, x, y)), -np.inf, np.inf, epsabs=0, epsrel=1e-11)[0]
    assert total == pytest.approx(1.0, abs=1e-10)
    if isinstance(P, OrnsteinUhlenbeckSemigroup):
        lam = stats.norm(0.0, P.rho / math.sqrt(P.theta))
        total = integrate.quad(lambda y: math.exp(P.log_density(t, x, y, measure="invariant")) * lam.pdf(y),
                               -np.inf, np.inf, epsabs=0, epsrel=1e-11)[0]
        assert total == pytest.approx(1.0, abs=1e-10)


@settings(max_examples=100)
@given(theta=st.floats(0.05, 5.0), rho=st.floats(0.1, 3.0), t=st.floats(1e-3, 5.0),
       x=st.lists(st.floats(-4, 4), min_size=2, max_size=2), y=st.lists(st.floats(-4, 4), min_size=2, max_size=2))
def test_kernel_symmetric_wrt_invariant(theta, rho, t, x, y):
    """BBGG-A(2): p_t(x, y) = p_t(y, x) for the density w.r.t. the invariant measure (reversibility)."""
    P = OrnsteinUhlenbeckSemigroup(theta, rho, dim=2)
    xy = P.log_density(t, x, y, measure="invariant")
    yx = P.log_density(t, y, x, measure="invariant")
    assert xy == pytest.approx(yx, rel=1e-9, abs=1e-9)


def test_lebesgue_density_of_ou_is_not_symmetric():
    """The symmetry is w.r.t. λ only: w.r.t. Lebesgue p_t(x, y) != p_t(y, x) for OU (a sanity check of the test)."""
    P = OrnsteinUhlenbeckSemigroup(1.0, 1.0)
    assert abs(float(P.log_density(0.5, 0.0, 2.0) - P.log_density(0.5, 2.0, 0.0))) > 0.1
    B = BrownianSemigroup(1)
    assert float(B.log_density(0.5, 0.0, 2.0)) == float(B.log_density(0.5, 2.0, 0.0))


def test_sampling_after_the_decay_underflows():
    """theta t so large that e^(−theta t) = 0: the samples are the invariant law, finite, input untouched."""
    P = OrnsteinUhlenbeckSemigroup(1.0, 2.0)
    x = np.full(50_000, 3.0)
    y = P.at(1e4).sample(x, rng=0)
    assert P.decay(1e4) == 0.0 and np.all(np.isfinite(y)) and np.all(x == 3.0)
    assert abs(y.var() - 4.0) < 5 * 4.0 * math.sqrt(2 / 50_000) and abs(y.mean()) < 5 * 2 / math.sqrt(50_000)


@pytest.mark.parametrize("P", CASES, ids=repr)
def test_exact_samples_use_the_documented_normal_stream(P):
    """at(t).sample(x) is a(t) x + s(t) Z with Z the `fill_normals` stream of ``make_state(rng)`` (the
    Generator's next four words seed a xoshiro256++ state), in the shape of x, computed here from the
    Itô-isometry moments rather than the class's closed form."""
    from markovdp._fast_normal import fill_normals, make_state

    t = 0.6
    x = np.linspace(-2.0, 2.0, 21 * P.dim).reshape(21, P.dim) if P.dim > 1 else np.linspace(-2.0, 2.0, 21)
    y = P.at(t).sample(x, rng=np.random.default_rng(17))
    z = np.empty(x.shape)
    fill_normals(make_state(np.random.default_rng(17)), z)
    factor, var = transition_moments(P, t)
    np.testing.assert_allclose(y, factor * x + math.sqrt(var) * z, rtol=1e-12, atol=1e-12)


def test_density_broadcasting_and_shapes():
    P = OrnsteinUhlenbeckSemigroup(1.0, 1.0, dim=2)
    assert P.log_density(1.0, [0.0, 0.0], np.zeros((4, 2))).shape == (4,)
    assert P.log_density(1.0, np.zeros((4, 2)), [0.0, 0.0]).shape == (4,)
    assert np.ndim(P.log_density(1.0, [0.0, 0.0], [1.0, 1.0])) == 0
    assert OrnsteinUhlenbeckSemigroup(1.0, 1.0).log_density(1.0, 0.0, np.zeros(3)).shape == (3,)


# --------------------------------------------------------------------------------------------- generator and Γ


def f(x):
    """sin(x1) x2 + x1² on R^2."""
    return np.sin(x[:, 0]) * x[:, 1] + x[:, 0] ** 2


def grad_f(x):
    return np.stack([np.cos(x[:, 0]) * x[:, 1] + 2 * x[:, 0], np.sin(x[:, 0])], axis=1)


def lap_f(x):
    return -np.sin(x[:, 0]) * x[:, 1] + 2.0


def g(x):
    """exp(x1/2) cos(x2) on R^2."""
    return np.exp(x[:, 0] / 2) * np.cos(x[:, 1])


def grad_g(x):
    return np.stack([0.5 * g(x), -np.exp(x[:, 0] / 2) * np.sin(x[:, 1])], axis=1)


POINTS = np.array([[0.3, 0.5], [-1.2, 2.0], [2.5, -0.7], [0.0, 0.0]])
SEMIGROUPS_2D = [BrownianSemigroup(2), OrnsteinUhlenbeckSemigroup(0.7, 1.3, dim=2)]


@pytest.mark.parametrize("P", SEMIGROUPS_2D, ids=repr)
def test_generator_closed_form(P):
    """BBGG-BM: L = Δ; BBGG-OU: L f = rho² Δf − theta <x, ∇f> (hand-derived derivatives)."""
    theta, rho = getattr(P, "theta", 0.0), getattr(P, "rho", 1.0)
    want = rho**2 * lap_f(POINTS) - theta * (POINTS * grad_f(POINTS)).sum(axis=1)
    np.testing.assert_allclose(P.generator(f)(POINTS), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("P", SEMIGROUPS_2D, ids=repr)
def test_carre_du_champ(P):
    """Γ(f, g) = ½ (L(fg) − f Lg − g Lf) (BBGG-S, by the generator's second differences) = rho² <∇f, ∇g>."""
    rho = getattr(P, "rho", 1.0)
    gamma = P.carre_du_champ(f, g)(POINTS)
    L = P.generator
    via_generator = 0.5 * (L(lambda x: f(x) * g(x))(POINTS) - f(POINTS) * L(g)(POINTS) - g(POINTS) * L(f)(POINTS))
    closed = rho**2 * (grad_f(POINTS) * grad_g(POINTS)).sum(axis=1)
    np.testing.assert_allclose(gamma, closed, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(via_generator, closed, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(P.carre_du_champ(f)(POINTS), rho**2 * (grad_f(POINTS) ** 2).sum(axis=1), rtol=1e-7)
    assert np.all(P.carre_du_champ(g)(POINTS) >= 0)


def semigroup_expectation(P, t, h, x):
    """(P_t h)(x) = E h(a x + s Z) by tensor Gauss–Hermite quadrature (40 nodes per axis)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    k = P.at(t).kernel
    a, s = k.A[0, 0], math.sqrt(k.noise_cov[0, 0])
    z1, z2 = np.meshgrid(nodes, nodes, indexing="ij")
    w = np.outer(weights, weights).ravel()
    pts = a * x + s * np.stack([z1.ravel(), z2.ravel()], axis=1)
    return float(w @ h(pts))


@pytest.mark.parametrize("P", SEMIGROUPS_2D, ids=repr)
def test_generator_is_the_derivative_of_the_semigroup(P):
    """L f(x) = d/dt P_t f(x) at t = 0: Richardson-extrapolated (P_t f − f)/t from exact Gaussian expectations."""
    t = 1e-3
    for x in POINTS:
        d1 = (semigroup_expectation(P, t, f, x) - f(x[None])[0]) / t
        d2 = (semigroup_expectation(P, t / 2, f, x) - f(x[None])[0]) / (t / 2)
        assert 2 * d2 - d1 == pytest.approx(P.generator(f)(x), rel=1e-5, abs=1e-5)


def test_generator_in_one_dimension_and_shapes():
    P = OrnsteinUhlenbeckSemigroup(2.0, 0.5)
    x = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(P.generator(np.cos)(x), -0.25 * np.cos(x) + 2.0 * x * np.sin(x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(P.carre_du_champ(np.sin, np.cos)(x), -0.25 * np.cos(x) * np.sin(x), atol=1e-8)
    assert np.ndim(P.generator(np.cos)(0.5)) == 0
    assert BrownianSemigroup(2).generator(f)(POINTS[0]).shape == ()


def test_generator_rejects_a_function_of_the_wrong_shape():
    with pytest.raises(ValueError, match="`f` must be a vectorised function"):
        BrownianSemigroup(2).generator(lambda x: x)(POINTS)


# --------------------------------------------------------------------------------------------- intrinsic sensitivity


@pytest.mark.parametrize("P", [BrownianSemigroup(1), OrnsteinUhlenbeckSemigroup(0.7, 1.3),
                               OrnsteinUhlenbeckSemigroup(3.0, 0.2, dim=2)], ids=repr)
@pytest.mark.parametrize("t", [0.05, 0.5, 2.0])
def test_intrinsic_sensitivity_by_quadrature(P, t):
    """BBGG-T6: Λ(t) = ∫_t^∞ κ(s) ds with κ(s) = Γ(log p_s(x, ·)/p_s(x', ·)) at ||x − x'|| = Δ; Γ computed by
    `carre_du_champ` on `log_density` at one y (for these semigroups κ does not depend on y), then quadrature;
    against the closed forms Δ²/(4t) (BBGG-BM) and theta Δ²/(2 rho² (e^(2 theta t) − 1)) (BBGG-C7)."""
    delta = 1.3
    x = np.zeros(P.dim) if P.dim > 1 else 0.0
    x2 = (np.eye(P.dim)[0] * delta) if P.dim > 1 else delta
    y = np.full(P.dim, 0.4) if P.dim > 1 else 0.4

    def kappa(s):
        ratio = lambda z: P.log_density(s, x, z) - P.log_density(s, x2, z)  # noqa: E731
        return float(P.carre_du_champ(ratio)(y))

    # κ(s) ~ Δ²/(4 s²) for Brownian: integrate ∫_t^∞ on u = 1/s, κ(1/u)/u² du over (0, 1/t]
    value = integrate.quad(lambda u: kappa(1.0 / u) / u**2, 0.0, 1.0 / t, epsrel=1e-9, limit=200)[0]
    assert value == pytest.approx(P.intrinsic_sensitivity(delta, t), rel=1e-6)
    theta, rho = getattr(P, "theta", None), getattr(P, "rho", None)
    want = delta**2 / (4 * t) if theta is None else theta * delta**2 / (2 * rho**2 * (math.exp(2 * theta * t) - 1))
    assert P.intrinsic_sensitivity(delta, t) == pytest.approx(want, rel=1e-13)


def test_intrinsic_sensitivity_extremes_are_finite():
    P = OrnsteinUhlenbeckSemigroup(1.0, 1.0)
    assert P.intrinsic_sensitivity(1.0, 1e-12) == pytest.approx(1.0 / (4e-12), rel=1e-6)
    assert P.intrinsic_sensitivity(1.0, 1e4) == 5e-324  # e^(−2e4) rounded up to the smallest double, not to 0


# --------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("build", "name"), [
    (lambda: BrownianSemigroup(0), "dim"), (lambda: BrownianSemigroup(1.5), "dim"),
    (lambda: OrnsteinUhlenbeckSemigroup(0.0, 1.0), "theta"), (lambda: OrnsteinUhlenbeckSemigroup(-1.0, 1.0), "theta"),
    (lambda: OrnsteinUhlenbeckSemigroup(np.nan, 1.0), "theta"), (lambda: OrnsteinUhlenbeckSemigroup(1.0, 0.0), "rho"),
    (lambda: OrnsteinUhlenbeckSemigroup(1.0, np.inf), "rho"), (lambda: OrnsteinUhlenbeckSemigroup(1.0, 1.0, 0), "dim"),
    (lambda: BrownianSemigroup(1).at(-0.1), "t"), (lambda: BrownianSemigroup(1).at(np.nan), "t"),
    (lambda: BrownianSemigroup(1).at(np.inf), "t"), (lambda: BrownianSemigroup(1).at([1.0, 2.0]), "t"),
    (lambda: TimeSlice(BrownianSemigroup(1), 0.0), "t"), (lambda: TimeSlice("P", 1.0), "semigroup"),
    (lambda: BrownianSemigroup(1).log_density(0.0, 0.0, 0.0), "t"),
    (lambda: BrownianSemigroup(1).log_density(1.0, 0.0, 0.0, measure="counting"), "measure"),
    (lambda: BrownianSemigroup(1).intrinsic_sensitivity(0.0, 1.0), "sensitivity"),
    (lambda: OrnsteinUhlenbeckSemigroup(1.0, 1.0).intrinsic_sensitivity(1.0, -1.0), "t"),
    (lambda: BrownianSemigroup(1).at(1.0).sample([np.nan]), "x"),
])
def test_bad_input_names_the_parameter(build, name):
    with pytest.raises((ValueError, TypeError), match=f"`{name}`"):
        build()


@pytest.mark.parametrize("call", [
    lambda P: P.at(1.0).sample(np.zeros((4, 3))), lambda P: P.at(1.0).sample(np.zeros(3)),
    lambda P: P.log_density(1.0, [0.0, 0.0, 0.0], [0.0, 0.0]), lambda P: P.generator(f)(np.zeros((2, 3))),
    lambda P: P.at(1.0).push(md.Normal(np.zeros(3), 1.0)),
])
def test_dimension_mismatch_is_incompatible_spaces(call):
    with pytest.raises(IncompatibleSpaces, match="R\\^3.*R\\^2|R\\^2.*R\\^3"):
        call(OrnsteinUhlenbeckSemigroup(1.0, 1.0, dim=2))
    with pytest.raises(IncompatibleSpaces):
        BrownianSemigroup(1).at(1.0).sample(np.zeros((4, 2)))


@pytest.mark.parametrize(("P", "t"), [(BrownianSemigroup(2), 0.7), (BrownianSemigroup(1), 1e12),
                                      (OrnsteinUhlenbeckSemigroup(0.7, 1.3, dim=2), 0.4),
                                      (OrnsteinUhlenbeckSemigroup(1.0, 1.0), 35.0)], ids=repr)
def test_log_ratio_gradient_is_the_closed_form(P, t):
    """∇_y (log p_t(x, y) − log p_t(x', y)) = e^(−theta t) (x − x') / s_t² at every y (BBGG-OU; Brownian: theta = 0,
    s_t² = 2t), written here from the transition laws; mpmath for the OU variance."""
    x, x_prime = np.linspace(0.3, -0.4, P.dim), np.linspace(-1.0, 2.0, P.dim)
    y = np.linspace(-2.0, 3.0, 5 * P.dim).reshape(5, P.dim)
    theta = getattr(P, "theta", None)
    if theta is None:
        gain = 1.0 / (2.0 * t)
    else:
        with mpmath.workdps(30):
            var = mpmath.mpf(P.rho) ** 2 / theta * -mpmath.expm1(-2 * mpmath.mpf(theta) * t)
            gain = float(mpmath.exp(-theta * mpmath.mpf(t)) / var)
    got = P.log_ratio_gradient(t, x if P.dim > 1 else x[0], x_prime if P.dim > 1 else x_prime[0],
                               y if P.dim > 1 else y[:, 0])
    np.testing.assert_allclose(got, np.broadcast_to(gain * (x - x_prime), (5, P.dim)), rtol=1e-13)


@pytest.mark.parametrize(("theta", "rho", "delta", "t"), [(1.0, 1.0, 1e160, 1.0), (1e-300, 1.0, 1.0, 1e-300),
                                                          (1.0, 1e-160, 1.0, 1.0), (1.0, 1e160, 1e-10, 1.0)])
def test_intrinsic_sensitivity_methods_never_overflow(theta, rho, delta, t):
    """BBGG-C7 / BBGG-BM through the semigroup methods at extreme inputs: inf or the mpmath value, no exception
    (they used to raise OverflowError / ZeroDivisionError)."""
    with mpmath.workdps(60):
        th, r, dl, tt = (mpmath.mpf(v) for v in (theta, rho, delta, t))
        exact_ou, exact_bm = th * dl**2 / (2 * r**2 * mpmath.expm1(2 * th * tt)), dl**2 / (4 * tt)
    for got, want in [(OrnsteinUhlenbeckSemigroup(theta, rho).intrinsic_sensitivity(delta, t), exact_ou),
                      (BrownianSemigroup(1).intrinsic_sensitivity(delta, t), exact_bm)]:
        assert got == (math.inf if want > 1.7976931348623157e308 else pytest.approx(float(want), rel=1e-12, abs=1e-323))


@pytest.mark.parametrize(("theta", "t"), [(1e-300, 1e-300), (1.0, 1.0), (1e-8, 3.0), (1.0, 1e-12), (1e300, 1.0),
                                          (1.0, 1e308), (1e200, 1e200), (1e8, 1e300), (0.3, 1.5)])
def test_ou_spread_where_theta_t_underflows(theta, t):
    """BBGG-OU: s_t = sqrt((rho²/theta)(1 − e^(−2 theta t))) against mpmath, also where 2 theta t underflows
    (it used to be 0 there, so P_t(x) was a point mass), and where 2 theta t or 2t overflow (NaN or 0 there
    once)."""
    rho = 2.0
    with mpmath.workdps(40):
        exact = mpmath.sqrt(mpmath.mpf(rho) ** 2 / theta * -mpmath.expm1(-2 * mpmath.mpf(theta) * t))
    assert OrnsteinUhlenbeckSemigroup(theta, rho).spread(t) == pytest.approx(float(exact), rel=1e-14, abs=0.0)
