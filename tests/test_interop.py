"""markovdp.interop: dp_accounting PLDs from dominating pairs (issue 5 §6, issue 14 §6; THEORY: STD-PLD).

A composed PLD's delta is held against an exact profile of the product computed independently of dp_accounting:
for finite pipelines, n independent runs on the same input are the rows of `tensor_power(FiniteKernel(matrix), n)`
at the diagonal inputs (i, ..., i) (AAC-phi); for Gaussians of one covariance, n runs are one Gaussian at sqrt(n)
times the Mahalanobis distance (STD-GaussHS), computed here by hand from the kernels' matrices and scipy's normal
CDF; for other pairs, mpmath quadrature of the definition (tests/oracles.py) and, composed, an integral of the
one-run profile over the first run's privacy loss.

Both discretisations round pessimistically. Privacy buckets move each loss up by less than the grid step h;
connect-the-dots (dp_accounting's default, and `to_pld`'s for pairs without a dp_accounting constructor) joins
the exact values at the grid points linearly in e^eps, which lies above the convex exact curve and below the curve
moved by one step h. So exact(eps) <= pld(eps) <= exact(eps − n h) after n runs, up to the mass cut at the grid's
ends (<= e^-50 per run for dp_accounting's Gaussian, `TAIL_MASS` = 2^-60 for connect-the-dots) and float round-off
(`TAIL`): dp_accounting forms the masses as second differences of the deltas over e^h − 1 and sums ~1e4-1e5 of
them, and composes by FFT; measured below 1e-13 at h = 1e-4 (the bound N u over N = 1e5 points is 1e-11).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

pytest.importorskip("dp_accounting")

from oracles import MP_DPS, mp_hockey_stick_1d, mp_hockey_stick_normals, scale_points  # noqa: E402

import markovdp as md  # noqa: E402
from markovdp import _validation  # noqa: E402
from markovdp.distributions import LaplaceSum, MultivariateNormal, Normal  # noqa: E402
from markovdp.divergences.exact.finite import hockey_stick_finite_pairs  # noqa: E402
from markovdp.interop import (  # noqa: E402
    TAIL_MASS,
    _connect_the_dots,
    _dp_accounting,
    _gaussian_ratio,
    to_pld,
    to_plds,
)
from markovdp.operators.algebra import tensor_power  # noqa: E402
from markovdp.pairs import Pairs  # noqa: E402

H = 1e-4
TAIL = 1e-12
EPS = np.array([0.0, 0.05, 0.3, 0.8, 1.5, 2.5])
#: eps on and off the loss grid (k h and between), up to where the Gaussian profiles below are ~1e-10
EPS_FINE = np.array([0.0, 0.012345, 0.3, 0.77777, 1.5, 2.5, 4.0])


def diagonal_product(matrix, n):
    """Rows (i, ..., i) of the n-fold tensor power: the law of n independent runs on input i."""
    k = matrix.shape[0]
    product = tensor_power(md.FiniteKernel(matrix), n).matrix
    return product[[sum(i * k**t for t in range(n)) for i in range(k)]]


def exact_shifted(matrix, index, eps):
    """max over the ordered pairs of E_{e^eps}(row i || row j); eps may be < 0 (the rounding shift)."""
    return hockey_stick_finite_pairs(matrix, np.asarray(index), eps).max(axis=1)


def below_zero(profile, eps):
    """An upper bound on E_{e^eps} for eps that may be < 0: E_{g'} <= E_g + (g − g') for g' < g (the
    integrand [p − g' q]_+ exceeds [p − g q]_+ by at most (g − g') q), used with g = 1 below eps = 0."""
    eps = np.asarray(eps, dtype=float)
    return profile(np.maximum(eps, 0.0)) + np.where(eps < 0, -np.expm1(np.minimum(eps, 0.0)), 0.0)


def pipeline():
    mech = md.FiniteMechanism(np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]]))
    kernel = md.FiniteKernel(np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]))
    return mech >> kernel


@pytest.mark.parametrize("n", [1, 2, 3])
def test_composed_finite_pipeline_against_tensor_power(n):
    pipe = pipeline()
    composed = to_pld(pipe).self_compose(n) if n > 1 else to_pld(pipe)
    delta = np.asarray(composed.get_delta_for_epsilon(EPS))
    product = diagonal_product(pipe.matrix, n)
    exact = md.privacy_profile(md.FiniteMechanism(product), EPS)
    upper = exact_shifted(product, [(0, 1), (1, 0)], EPS - n * H)
    assert np.all(delta >= exact - TAIL), (delta, exact)
    assert np.all(delta <= upper + TAIL), (delta, upper)


def test_several_pairs_one_pld_each_and_the_max_after_composition():
    rng = np.random.default_rng(3)
    matrix = rng.random((3, 4)) + 0.05
    matrix /= matrix.sum(axis=1, keepdims=True)
    mech = md.FiniteMechanism(matrix)
    with pytest.raises(ValueError, match="`pair` must be one of the 3 pairs"):
        to_pld(mech)
    plds = to_plds(mech)
    assert sorted(plds) == [(0, 1), (0, 2), (1, 2)]
    n = 2
    delta = np.max([np.asarray(p.self_compose(n).get_delta_for_epsilon(EPS)) for p in plds.values()], axis=0)
    product = diagonal_product(matrix, n)
    exact = md.privacy_profile(md.FiniteMechanism(product), EPS)
    ordered = [(i, j) for i in range(3) for j in range(3) if i != j]
    assert np.all(delta >= exact - TAIL)
    assert np.all(delta <= exact_shifted(product, ordered, EPS - n * H) + TAIL)
    single = to_pld(mech, pair=(0, 2)).get_delta_for_epsilon(EPS)
    assert np.all(single >= exact_shifted(matrix, [(0, 2), (2, 0)], EPS) - TAIL)
    with pytest.raises(ValueError, match="`pair` must be one of the pairs"):
        to_pld(mech, pair=(0, 5))


def test_one_direction_is_a_symmetric_pld_of_that_direction():
    matrix = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]])
    mech = md.FiniteMechanism(matrix, neighbours=[(0, 2)])
    delta = to_pld(mech).get_delta_for_epsilon(EPS)
    exact = md.privacy_profile(mech, EPS)
    assert np.all(delta >= exact - TAIL)
    assert np.all(delta <= exact_shifted(matrix, [(0, 2), (2, 0)], EPS - H) + TAIL)


@pytest.mark.parametrize("n", [1, 3])
def test_gaussian_pld_composes_to_the_gaussian_of_sqrt_n_sensitivity(n):
    """n runs of N(f, sigma²) with sensitivity D = one run with sensitivity sqrt(n) D (STD-GaussHS, exact);
    the PLD's loss grid and its connect-the-dots rounding are pessimistic."""
    mech = md.GaussianMechanism(2.0, sensitivity=0.5) >> md.GaussianKernel(1.0)  # N(., 5): sigma sqrt(5)
    pld = to_pld(mech)
    composed = pld.self_compose(n) if n > 1 else pld
    delta = np.asarray(composed.get_delta_for_epsilon(EPS))
    exact = md.privacy_profile(md.GaussianMechanism(math.sqrt(5.0), sensitivity=0.5 * math.sqrt(n)), EPS)
    assert np.all(delta >= exact - TAIL)
    shifted = below_zero(lambda e: md.privacy_profile(
        md.GaussianMechanism(math.sqrt(5.0), sensitivity=0.5 * math.sqrt(n)), e), EPS - n * H)
    assert np.all(delta <= shifted + 1e-9)


def test_laplace_pld_matches_the_exact_profile():
    mech = md.LaplaceMechanism(1.5, sensitivity=1.0)
    delta = np.asarray(to_pld(mech).get_delta_for_epsilon(EPS))
    exact = md.privacy_profile(mech, EPS)
    assert np.all(delta >= exact - TAIL)
    assert np.all(delta <= below_zero(lambda e: md.privacy_profile(mech, e), EPS - H) + 1e-9)


def test_errors_name_what_is_wrong():
    with pytest.raises(TypeError, match="`mechanism` must be a Mechanism"):
        to_pld(np.eye(2))
    with pytest.raises(ValueError, match="`value_discretization_interval` must be"):
        to_pld(pipeline(), value_discretization_interval=0.0)
    with pytest.raises(TypeError, match="`pair` must be an input pair"):
        to_pld(pipeline(), pair="first")
    with pytest.raises(NotImplementedError, match="LaplaceKernel"):  # no exact pairs: markovdp's own message
        to_pld(md.DeclaredDP(1.0, 0.0) >> md.LaplaceKernel(1.0))  # (Gaussian >> Laplace is exact: STD-NormalLaplace)


# ------------------------------------------------------------------------- issue 14 §6: every exact pair exports
def gauss_profile(ratio, eps):
    """STD-GaussHS in its textbook form Phi(r/2 − eps/r) − e^eps Phi(−r/2 − eps/r), for every real eps (scipy;
    absolute error ~1e-16 where it is used here, eps in [−0.01, 4], ratio in [0.4, 2])."""
    eps = np.asarray(eps, dtype=float)
    return norm.cdf(ratio / 2 - eps / ratio) - np.exp(eps) * norm.cdf(-ratio / 2 - eps / ratio)


def check_gaussian(pld, n, ratio, h=H):
    """n runs of the PLD against the Gaussian of ratio sqrt(n) · ratio: never below it (up to `TAIL`), never above
    it moved by n h. Returns the largest excess pld − exact (the measured discretisation error)."""
    composed = pld.self_compose(n) if n > 1 else pld
    delta = np.asarray(composed.get_delta_for_epsilon(EPS_FINE))
    exact = gauss_profile(math.sqrt(n) * ratio, EPS_FINE)
    assert np.all(delta >= exact - TAIL), delta - exact
    assert np.all(delta <= gauss_profile(math.sqrt(n) * ratio, EPS_FINE - n * h) + TAIL), delta - exact
    return float(np.max(delta - exact))


class PairOf(md.Mechanism):
    """A mechanism declared by one dominating pair (mu, nu), for pairs no built-in mechanism yields."""

    neighbours = None
    output_space = None

    def __init__(self, mu, nu):
        self.pairs = Pairs(((mu, nu),))

    def output(self, value):
        raise NotImplementedError

    def sample(self, value, *, rng=None):
        raise NotImplementedError

    def dominating_pairs(self):
        return self.pairs


@pytest.mark.parametrize("n", [1, 4])
def test_ou_mechanism_exports_the_gaussian_pld_of_its_mahalanobis_distance(n):
    """BBGG-C7: the OU mechanism at time t outputs N(e^(−theta t) x, (rho²/theta)(1 − e^(−2 theta t)) I), so its
    pair is Gaussian at ratio e^(−theta t) Δ / s_t (here by hand, in R^3)."""
    theta, rho, t, sens = 0.7, 1.3, 0.4, 1.5
    ou = md.DiffusionMechanism(md.OrnsteinUhlenbeckSemigroup(theta, rho, dim=3), t, sensitivity=sens)
    ratio = math.exp(-theta * t) * sens / math.sqrt(rho**2 / theta * -math.expm1(-2 * theta * t))
    assert check_gaussian(to_pld(ou), n, ratio) < 1e-8


@pytest.mark.parametrize("n", [1, 3])
def test_gaussian_through_affine_kernels_in_three_dimensions(n):
    """A Gaussian mechanism on R^3 through two affine Gaussian kernels (the second to R^2, correlated noise): the
    pair is N(0, Σ) vs N(Δ B v*, Σ) at ratio Δ sqrt(λ_max(Bᵀ Σ⁻¹ B)) (STD-GaussHS, BBGG-E1), here from the plain
    covariance Σ = A2 (s0² A1 A1ᵀ + s1² I) A2ᵀ + C2 and an eigensolver (the library pushes a square-root factor)."""
    rng = np.random.default_rng(7)
    a1, a2 = rng.normal(size=(3, 3)), rng.normal(size=(2, 3))
    c2 = np.array([[0.5, 0.2], [0.2, 0.3]])
    pipe = (md.GaussianMechanism(0.8, sensitivity=1.2, dim=3) >> md.AffineGaussianKernel(a1, np.ones(3), 0.6)
            >> md.AffineGaussianKernel(a2, np.array([0.0, 1.0]), noise_cov=c2))
    cov = a2 @ (0.64 * a1 @ a1.T + 0.36 * np.eye(3)) @ a2.T + c2
    image = a2 @ a1
    ratio = 1.2 * math.sqrt(np.linalg.eigvalsh(image.T @ np.linalg.solve(cov, image)).max())
    assert check_gaussian(to_pld(pipe), n, ratio) < 1e-8


def test_ten_releases_of_a_gaussian_pipeline_are_one_gaussian_of_sqrt_ten_sensitivity():
    """n = 10 runs of GaussianMechanism(1) >> GaussianKernel(2), i.e. N(f, 5): the Gaussian of ratio sqrt(10/5)."""
    excess = check_gaussian(to_pld(md.GaussianMechanism(1.0) >> md.GaussianKernel(2.0)), 10, 1 / math.sqrt(5.0))
    assert excess < 1e-8  # measured 2.7e-9: connect-the-dots is far inside the n h bound (2.4e-4 here)


def test_gaussians_of_one_covariance_as_explicit_pairs():
    """A pair of MultivariateNormals of one covariance (and of Normals of one sigma) is read as its Mahalanobis
    distance, whichever mean is the origin; a pair of equal laws is the identity PLD."""
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    m1, m2 = np.array([0.4, -1.0]), np.array([1.1, -0.2])
    diff = m2 - m1
    ratio = math.sqrt(diff @ np.linalg.solve(cov, diff))
    check_gaussian(to_pld(PairOf(MultivariateNormal(m1, cov), MultivariateNormal(m2, cov))), 1, ratio)
    check_gaussian(to_pld(PairOf(Normal(np.array([3.0, 1.0]), 2.0), Normal(np.array([3.0, 2.5]), 2.0))), 2, 0.75)
    same = to_pld(PairOf(MultivariateNormal(m1, cov), MultivariateNormal(m1, cov)))
    assert np.all(np.asarray(same.get_delta_for_epsilon(EPS)) == 0.0)


@pytest.mark.parametrize(("sigma", "sens", "dim"), [(1e-300, 1e-300, 1), (1e300, 1e300, 3), (2.0, 6.0, 2)])
def test_the_gaussian_ratio_is_rounded_up_at_every_scale(sigma, sens, dim):
    """Δ/sigma is taken from the scaled norm, so neither 1e-300² nor 1e300² under- or overflows; it is raised by a
    few ulps, never below the ratio itself (exactly representable here: 1 and 3)."""
    ratio = _gaussian_ratio(*md.GaussianMechanism(sigma, sensitivity=sens, dim=dim).dominating_pairs()[0])
    assert sens / sigma <= ratio <= sens / sigma * (1 + 1e-15)
    check_gaussian(to_pld(md.GaussianMechanism(sigma, sensitivity=sens, dim=dim)), 1, sens / sigma)
    assert _gaussian_ratio(Normal(np.array([1.0, 2.0]), 0.5), Normal(np.array([4.0, 6.0]), 0.5)) >= 10.0


def mp_laplace_sum_logpdf(loc, l1, l2):
    """The textbook density of LaplaceSum(loc, l1, l2) in mpmath: (a e^(−u/a) − b e^(−u/b)) / (2 (a² − b²)), and
    (1 + u/a) e^(−u/a) / (4a) for a = b (u = |x − loc|, a >= b)."""
    with mp.workdps(MP_DPS + 10):
        m, a, b = mp.mpf(loc), mp.mpf(max(l1, l2)), mp.mpf(min(l1, l2))

    def log_f(x):
        u = abs(x - m)
        if a == b:
            return mp.log1p(u / a) - u / a - mp.log(4 * a)
        return mp.log(a * mp.exp(-u / a) - b * mp.exp(-u / b)) - mp.log(2 * (a * a - b * b))

    return log_f


@pytest.mark.parametrize(("scale1", "scale2"), [(1.0, 1.0), (1.0, 0.3)])
def test_laplace_through_a_laplace_kernel_exports_by_connect_the_dots(scale1, scale2):
    """LaplaceMechanism >> LaplaceKernel (a LaplaceSum pair, no dp_accounting constructor): the connect-the-dots
    PLD lies between the exact profile (mpmath quadrature of the textbook density) and the profile moved by h; the
    losses stop at Δ/a = 1, so delta is 0 past it but for the infinite-loss mass, <= TAIL_MASS."""
    h = 1e-3
    pipe = md.LaplaceMechanism(scale1) >> md.LaplaceKernel(scale2)
    eps = np.array([0.0, 0.12345, 0.8])
    delta = np.asarray(to_pld(pipe, value_discretization_interval=h).get_delta_for_epsilon([*eps, 1.0, 2.0]))
    points = scale_points([0.0, 1.0], scale1)
    exact = np.array([mp_hockey_stick_1d(mp_laplace_sum_logpdf(0, scale1, scale2),
                                         mp_laplace_sum_logpdf(1, scale1, scale2), e, points) for e in eps])
    moved = md.privacy_profile(pipe, np.maximum(eps - h, 0.0))  # the closed form (mpmath-tested), moved by h
    moved[eps < h] = 1.0  # eps − h < 0 (an upper bound; the value there is tested in the composition test)
    assert np.all(delta[:3] >= exact - TAIL), delta[:3] - exact
    assert np.all(delta[:3] <= moved + TAIL), delta[:3] - moved
    assert np.all(delta[3:] <= TAIL_MASS)


def test_connect_the_dots_composes_like_the_closed_forms():
    """The generic path on pairs dp_accounting knows: on N(0, 1) vs N(r, 1), ten runs stay between the Gaussian of
    ratio sqrt(10) r and that moved by 10 h; on Lap(0, b) vs Lap(1, b), five runs equal dp_accounting's own Laplace
    PLD (the same construction on its own profile) to round-off."""
    pld = _dp_accounting()
    options = {"value_discretization_interval": H, "pessimistic_estimate": True}
    check_gaussian(_connect_the_dots(pld, Normal(0.0, 1.0), Normal(0.5, 1.0), options), 10, 0.5)
    for b in (1.0, 0.4):
        ours = _connect_the_dots(pld, md.Laplace(0.0, b), md.Laplace(1.0, b), options).self_compose(5)
        theirs = pld.from_laplace_mechanism(b, sensitivity=1.0, **options).self_compose(5)
        gap = np.asarray(ours.get_delta_for_epsilon(EPS_FINE)) - np.asarray(theirs.get_delta_for_epsilon(EPS_FINE))
        assert np.max(np.abs(gap)) < 1e-12, gap


def normals_profile(m1, s1, m2, s2, t):
    """E_{e^t}(N(m1, s1²) || N(m2, s2²)) for every real t, s1 < s2, in floats: the loss is A x² + B x + C with
    A < 0, so {L > t} is the interval between the roots (tests/oracles.py for the same set in mpmath)."""
    a = 1 / (2 * s2**2) - 1 / (2 * s1**2)
    b = m1 / s1**2 - m2 / s2**2
    c = m2**2 / (2 * s2**2) - m1**2 / (2 * s1**2) + math.log(s2 / s1) - t
    disc = b * b - 4 * a * c
    if disc <= 0:
        return 0.0
    lo, hi = sorted(((-b + math.sqrt(disc)) / (2 * a), (-b - math.sqrt(disc)) / (2 * a)))
    mass = norm.cdf(hi, m1, s1) - norm.cdf(lo, m1, s1)
    return max(mass - math.exp(t) * (norm.cdf(hi, m2, s2) - norm.cdf(lo, m2, s2)), 0.0)


def test_an_asymmetric_pair_keeps_its_two_directions():
    """N(0, 1) vs N(1, 1.3²): E(mu || nu) != E(nu || mu). Below eps = 0 the PLD is 1 − gamma + gamma E_{1/gamma}(nu
    || mu) (mpmath oracle); two runs are the integral over the first run's loss L(x), x ~ mu, of the one-run
    profile at eps − L(x) (scipy quadrature of the float closed form above, itself checked against mpmath)."""
    mu, nu, h = Normal(0.0, 1.0), Normal(1.0, 1.3), 1e-3
    pld = to_pld(PairOf(mu, nu), value_discretization_interval=h)
    for t in (-0.3, 0.4):
        assert normals_profile(0.0, 1.0, 1.0, 1.3, t) == pytest.approx(
            mp_hockey_stick_normals(0.0, 1.0, 1.0, 1.3, t), abs=1e-15)
    for e in (-0.5, -0.1):  # on and off the grid
        g = math.exp(e)
        exact = 1 - g + g * mp_hockey_stick_normals(1.0, 1.3, 0.0, 1.0, -e)
        assert exact - TAIL <= pld.get_delta_for_epsilon(e) <= exact + 2 * h  # the chord: within h |delta'| <= h

    def loss(x):
        return float(mu.log_density(x) - nu.log_density(x))

    def two_runs(e):
        value, _ = integrate.quad(lambda x: norm.pdf(x) * normals_profile(0.0, 1.0, 1.0, 1.3, e - loss(x)),
                                  -12, 12, epsabs=1e-13, epsrel=1e-12, limit=400, points=[0.0, 1.0])
        return value

    twice = pld.self_compose(2)
    for e in (0.0, 0.25, 1.0):
        delta = twice.get_delta_for_epsilon(e)
        assert two_runs(e) - 1e-10 <= delta <= two_runs(e - 2 * h) + 1e-10, (e, delta, two_runs(e))


def test_pairs_without_an_exact_profile_refuse_naming_what_is_missing(monkeypatch):
    different = PairOf(MultivariateNormal(np.zeros(2), np.eye(2)), MultivariateNormal(np.ones(2), 2 * np.eye(2)))
    with pytest.raises(NotImplementedError, match=r"\(MultivariateNormal, MultivariateNormal\).*register_divergence"
                                                  r".*equal covariances"):
        to_pld(different)
    with pytest.raises(NotImplementedError, match="pessimistic only"):
        to_pld(md.LaplaceMechanism(1.0) >> md.LaplaceKernel(1.0), pessimistic_estimate=False)
    optimistic = to_pld(md.GaussianMechanism(1.0) >> md.GaussianKernel(1.0), pessimistic_estimate=False)
    exact = gauss_profile(1 / math.sqrt(2.0), EPS)
    assert np.all(np.asarray(optimistic.get_delta_for_epsilon(EPS)) <= exact + TAIL)
    with pytest.raises(ValueError, match="`value_discretization_interval` must be small enough|memory cap"):
        to_pld(md.GaussianMechanism(1e-6))
    monkeypatch.setattr(_validation, "work_cap_steps", 1e6)  # 2e3 grid points of LaplaceSum: 2e8 steps
    with pytest.raises(ValueError, match="`value_discretization_interval` must be .*elementary steps"):
        to_pld(PairOf(LaplaceSum(0.0, 1.0, 1.0), LaplaceSum(1.0, 1.0, 1.0)), value_discretization_interval=1e-3)
