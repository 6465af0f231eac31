"""MultivariateNormal and its divergences (STD-GaussHS with the Mahalanobis distance, STD-GaussRenyi matrix form).

Each closed form is held against an independent computation: scipy.stats densities, scipy.integrate quadrature
in d = 1 and d = 2, the textbook matrix formula with slogdet, the isotropic `Normal` formulas, and a numerical
sup of the log-likelihood ratio for alpha = inf.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, linalg, optimize, stats

import markovdp as md
from markovdp.distributions.multivariate_normal import MultivariateNormal, as_multivariate_normal

MVN = MultivariateNormal
COV_A = np.array([[1.0, 0.3], [0.3, 2.0]])
COV_B = np.array([[1.5, -0.2], [-0.2, 1.2]])


def random_spd(d: int, rng: np.random.Generator, spread: float = 1.0) -> np.ndarray:
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return (q * np.exp(spread * rng.uniform(-1, 1, size=d))) @ q.T


def renyi_matrix_form(m1, c1, m2, c2, alpha):
    """The textbook STD-GaussRenyi matrix form with slogdet (independent of the code's common frame)."""
    ca = alpha * c2 + (1 - alpha) * c1
    if np.linalg.eigvalsh(ca)[0] <= 0:
        return math.inf
    delta = np.atleast_1d(m1 - m2)
    _, lda = np.linalg.slogdet(ca)
    _, ld1 = np.linalg.slogdet(c1)
    _, ld2 = np.linalg.slogdet(c2)
    return alpha / 2 * delta @ np.linalg.solve(ca, delta) - (lda - (1 - alpha) * ld1 - alpha * ld2) / (2 * (alpha - 1))


def log_density2(mean, cov):
    """The bivariate normal log density written out by hand (fast scalar Python, for dblquad)."""
    (a, b), (_, c) = np.linalg.inv(cov)
    m0, m1 = (float(v) for v in mean)
    log_norm = -math.log(2 * math.pi * math.sqrt(np.linalg.det(cov)))
    return lambda x, y: log_norm - 0.5 * (a * (x - m0) ** 2 + 2 * b * (x - m0) * (y - m1) + c * (y - m1) ** 2)


def dblquad(f, low, high, box=40.0):
    """∫ dx ∫ f(x, y) dy over x in [-box, box], y from low(x) to high(x) (scipy.integrate.dblquad)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return integrate.dblquad(lambda y, x: f(x, y), -box, box, low, high, epsabs=1e-13, epsrel=1e-10)[0]


# --------------------------------------------------------------------------------------------- the law


def test_validation_names_cov_and_says_why():
    with pytest.raises(ValueError, match=r"`cov` must be symmetric.*not symmetric"):
        MVN([0, 0], [[1, 0.5], [0.2, 1]])
    with pytest.raises(ValueError, match=r"`cov` must be positive definite.*not positive definite"):
        MVN([0, 0], [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match=r"`cov` must be positive definite"):
        MVN([0, 0], np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"`cov` must be a \(2, 2\) matrix.*shape \(3, 3\)"):
        MVN([0, 0], np.eye(3))
    with pytest.raises(ValueError, match=r"`cov` must be a \(1, 1\) matrix"):
        MVN(0.0, [1.0])
    with pytest.raises(ValueError, match=r"`cov`.*NaN"):
        MVN([0, 0], [[1, np.nan], [np.nan, 1]])
    with pytest.raises(ValueError, match=r"`mean`.*NaN"):
        MVN([0, np.nan], np.eye(2))
    with pytest.raises(ValueError, match=r"`cov`.*inf"):
        MVN(0.0, np.inf)
    with pytest.raises(TypeError, match="`cov`"):
        MVN(0.0, "1")


def test_cholesky_is_cached_and_arrays_are_frozen():
    law = MVN([1.0, 2.0], COV_A)
    np.testing.assert_allclose(law.cholesky @ law.cholesky.T, COV_A, rtol=1e-15)
    assert law.log_det == pytest.approx(np.linalg.slogdet(COV_A)[1], rel=1e-14)
    with pytest.raises(ValueError):
        law.cov[0, 0] = 5.0
    assert law.space == md.RealSpace(2)


def test_log_density_matches_scipy():
    law = MVN([1.0, -0.5], COV_A)
    x = np.random.default_rng(0).normal(size=(7, 2)) * 3
    np.testing.assert_allclose(law.log_density(x), stats.multivariate_normal([1.0, -0.5], COV_A).logpdf(x),
                               rtol=1e-12)
    assert np.ndim(law.log_density([0.0, 0.0])) == 0
    one = MVN(0.5, 2.0)
    np.testing.assert_allclose(one.log_density([0.1, 3.0]), stats.norm(0.5, math.sqrt(2.0)).logpdf([0.1, 3.0]),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="`x`"):
        law.log_density(np.zeros((3, 3)))


def test_samples_have_the_stated_mean_and_covariance():
    """Sample mean within 5 standard errors (fixed seed) and sample covariance within 5 of its standard errors."""
    law, n = MVN([1.0, -2.0], COV_A), 40_000
    x = law.sample(n, rng=1)
    assert x.shape == (n, 2)
    se_mean = np.sqrt(np.diag(COV_A) / n)
    assert np.all(np.abs(x.mean(axis=0) - law.mean) <= 5 * se_mean)
    var_cov = (COV_A**2 + np.outer(np.diag(COV_A), np.diag(COV_A))) / n  # Var of a sample covariance entry
    assert np.all(np.abs(np.cov(x.T) - COV_A) <= 5 * np.sqrt(var_cov))
    one = MVN(0.5, 4.0).sample(10, rng=2)
    assert one.shape == (10,)
    np.testing.assert_array_equal(law.sample(5, rng=3), law.sample(5, rng=np.random.default_rng(3)))


def test_quadrature_hints_equality_repr_and_normal_view():
    assert MVN(0.5, 4.0).quadrature_hints() == ([0.5], [2.0])
    assert MVN([0, 0], COV_A).quadrature_hints() is None
    assert MVN([0, 1], COV_A) == MVN([0.0, 1.0], COV_A.copy())
    assert MVN([0, 1], COV_A) != MVN([0, 1], COV_B)
    assert len({MVN([0, 1], COV_A), MVN([0.0, 1.0], COV_A)}) == 1
    assert repr(MVN([0, 1], np.eye(2))) == "MultivariateNormal(mean=[0.0, 1.0], cov=[[1.0, 0.0], [0.0, 1.0]])"
    view = as_multivariate_normal(md.Normal([1.0, 2.0, 3.0], 0.5))
    assert view == MVN([1.0, 2.0, 3.0], 0.25 * np.eye(3))
    assert as_multivariate_normal(md.Normal(1.0, 2.0)) == MVN(1.0, 4.0)
    with pytest.raises(TypeError, match="`law`"):
        as_multivariate_normal(md.Laplace(0.0, 1.0))


# --------------------------------------------------------------------------------------------- divergences


@pytest.mark.parametrize(("m1", "v1", "m2", "v2"), [(0.2, 0.7, -0.9, 1.9), (0.0, 2.5, 0.4, 1.1)],
                         ids=["narrower", "wider"])
def test_one_dimensional_divergences_match_quadrature(m1, v1, m2, v2):
    """d = 1, different variances: every closed form against the quadrature fallback (method="quadrature").

    At alpha = 4 the "wider" pair has Σ_a = 4 v2 − 3 v1 < 0: both sides must say inf."""
    p, q = MVN(m1, v1), MVN(m2, v2)
    alpha = np.array([1.5, 4.0])
    closed, quad = md.renyi(p, q, alpha=alpha), md.renyi(p, q, alpha=alpha, method="quadrature")
    finite = np.isfinite(quad)
    np.testing.assert_array_equal(np.isfinite(closed), finite)
    np.testing.assert_allclose(closed[finite], quad[finite], rtol=1e-8)
    assert md.kl(p, q) == pytest.approx(md.kl(p, q, method="quadrature"), rel=1e-8)
    assert md.hockey_stick(p, q, eps=0.7) == pytest.approx(md.hockey_stick(p, q, eps=0.7, method="quadrature"),
                                                           rel=1e-8)


def test_two_dimensional_renyi_and_kl_match_dblquad():
    """d = 2, different covariances: ∫∫ p^alpha q^(1−alpha) and ∫∫ p log(p/q) by scipy dblquad."""
    (m1, c1), (m2, c2) = ([0.3, -0.2], COV_A), ([-0.4, 0.5], COV_B)
    p, q = MVN(m1, c1), MVN(m2, c2)
    lp, lq = log_density2(m1, c1), log_density2(m2, c2)
    for alpha in (1.5, 2.0):  # Σ_a = alpha Σ2 + (1 − alpha) Σ1 stays positive definite
        mass = dblquad(lambda x, y, a=alpha: math.exp(a * lp(x, y) + (1 - a) * lq(x, y)), -40.0, 40.0)
        assert md.renyi(p, q, alpha=alpha) == pytest.approx(math.log(mass) / (alpha - 1), rel=1e-8)
    kl_quad = dblquad(lambda x, y: math.exp(lp(x, y)) * (lp(x, y) - lq(x, y)), -40.0, 40.0)
    assert md.kl(p, q) == pytest.approx(kl_quad, rel=1e-8)


def test_two_dimensional_hockey_stick_matches_dblquad():
    """d = 2, equal covariances: STD-GaussHS with ||m1 − m2||_{Σ⁻¹} against ∫∫ [p − e^eps q]_+ by dblquad.

    The log-likelihood ratio is affine, w·x + c, so the integrand is p − e^eps q on the half-plane
    {w·x + c > eps}: the inner integral starts at the line (no kink inside the pieces)."""
    m1, m2 = np.array([0.0, 0.0]), np.array([1.0, -0.6])
    p, q = MVN(m1, COV_A), MVN(m2, COV_A)
    lp, lq = log_density2(m1, COV_A), log_density2(m2, COV_A)
    prec = np.linalg.inv(COV_A)
    w, c = prec @ (m1 - m2), -0.5 * (m1 @ prec @ m1 - m2 @ prec @ m2)
    assert w[1] > 0
    for eps in (0.0, 0.5, 3.0):
        gamma = math.exp(eps)
        line = lambda x, eps=eps: (eps - c - w[0] * x) / w[1]  # noqa: E731
        quad = dblquad(lambda x, y, g=gamma: math.exp(lp(x, y)) - g * math.exp(lq(x, y)), line, 40.0, box=15.0)
        assert md.hockey_stick(p, q, eps=eps) == pytest.approx(quad, rel=1e-8)


def test_renyi_matches_the_textbook_matrix_form_with_slogdet():
    rng = np.random.default_rng(11)
    for d in (1, 2, 3, 5):
        for _ in range(5):
            c1, c2 = random_spd(d, rng, 0.8), random_spd(d, rng, 0.8)
            m1, m2 = rng.normal(size=d), rng.normal(size=d)
            p, q = MVN(m1, c1), MVN(m2, c2)
            alpha = np.array([1.01, 1.5, 2.0, 4.0, 20.0])
            got = md.renyi(p, q, alpha=alpha)
            want = np.array([renyi_matrix_form(m1, c1, m2, c2, a) for a in alpha])
            finite = np.isfinite(want)
            np.testing.assert_array_equal(np.isfinite(got), finite)
            np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9)


def test_renyi_is_infinite_exactly_where_sigma_alpha_is_not_positive_definite():
    """The threshold alpha* = λ_max/(λ_max − 1) of the generalised eigenvalues of (Σ1, Σ2), by scipy.linalg.eigh."""
    c1, c2 = np.array([[2.0, 0.4], [0.4, 1.0]]), np.array([[1.0, 0.1], [0.1, 0.8]])
    lam = linalg.eigh(c1, c2, eigvals_only=True)
    threshold = lam.max() / (lam.max() - 1.0)  # Σ_a = Σ2 + (alpha − 1)(Σ2 − Σ1) singular: 1 + (alpha − 1)(1 − λ) = 0
    assert threshold > 1.0
    p, q = MVN([0, 0], c1), MVN([0.3, 0.1], c2)
    assert np.isfinite(md.renyi(p, q, alpha=threshold * (1 - 1e-6)))
    assert md.renyi(p, q, alpha=threshold * (1 + 1e-6)) == math.inf
    assert md.renyi(p, q, alpha=math.inf) == math.inf


def test_renyi_at_infinity_is_the_sup_of_the_log_ratio():
    """Σ1 < Σ2: R_inf = max_x log p(x)/q(x), found by scipy.optimize (a concave quadratic)."""
    c2 = np.array([[2.0, 0.3], [0.3, 1.5]])
    c1 = 0.5 * c2 + np.array([[0.2, -0.1], [-0.1, 0.1]])
    p, q = MVN([0.2, 0.1], c1), MVN([-0.3, 0.4], c2)
    res = optimize.minimize(lambda x: -(p.log_density(x) - q.log_density(x)), np.zeros(2), method="BFGS",
                            options={"gtol": 1e-12})
    assert md.renyi(p, q, alpha=math.inf) == pytest.approx(-res.fun, rel=1e-9)
    # the limit of the finite orders
    assert md.renyi(p, q, alpha=1e8) == pytest.approx(-res.fun, rel=1e-6)
    assert md.renyi(q, p, alpha=math.inf) == math.inf
    same = MVN([1.0, 1.0], c1)
    assert md.renyi(same, same, alpha=math.inf) == 0.0
    assert md.renyi(same, MVN([1.0, 1.5], c1), alpha=math.inf) == math.inf


@pytest.mark.parametrize("sigmas", [(0.7, 0.7), (0.6, 1.1), (1.4, 0.9), (1e-3, 1e-3)])
def test_isotropic_covariances_agree_with_the_normal_formulas(sigmas):
    """MultivariateNormal(m, s² I), and a Normal mixed with it, against the existing Normal rules (d = 3)."""
    s1, s2 = sigmas
    m1, m2 = np.array([0.1, -0.3, 0.5]), np.array([0.4, 0.2, -0.1]) * (s1 / 0.7)
    n1, n2 = md.Normal(m1, s1), md.Normal(m2, s2)
    v1, v2 = MVN(m1, s1**2 * np.eye(3)), MVN(m2, s2**2 * np.eye(3))
    alpha = np.array([1.5, 2.0, 10.0, 1e3, np.inf])
    want = md.renyi(n1, n2, alpha=alpha)
    for p, q in ((v1, v2), (n1, v2), (v1, n2)):
        got = md.renyi(p, q, alpha=alpha)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
        np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-10)
        assert md.kl(p, q) == pytest.approx(md.kl(n1, n2), rel=1e-10)
        if s1 == s2:
            eps = np.array([0.0, 0.5, 5.0, 50.0])
            np.testing.assert_allclose(md.hockey_stick(p, q, eps=eps), md.hockey_stick(n1, n2, eps=eps), rtol=1e-12)


def test_hockey_stick_with_unequal_covariances_in_2d_is_not_implemented():
    p, q = MVN([0, 0], COV_A), MVN([1, 0], COV_B)
    with pytest.raises(NotImplementedError, match="equal covariances"):
        md.hockey_stick(p, q, eps=0.5)
    assert md.hockey_stick(p, q, eps=math.inf) == 0.0


def test_spaces_must_match():
    with pytest.raises(md.IncompatibleSpaces):
        md.renyi(MVN([0, 0], COV_A), MVN([0, 0, 0], np.eye(3)), alpha=2.0)
    with pytest.raises(md.IncompatibleSpaces):
        md.kl(md.Normal(0.0, 1.0), MVN([0, 0], COV_A))
