"""Soundness of the BBGG §4 bounds: exact <= bound on random parameters (hypothesis, 1000 examples each).

Each exact value is computed here, independently of the code under test:

- BBGG-E2: the Rényi divergence of two shifted sums of Laplace variables (their density written here, checked
  against a numerical convolution and mpmath), by scipy quadrature; and the bound is <= the BBGG-T2 minimand
  at every w on a grid;
- BBGG-E3: a linear psi(x) = A x: the output is Gaussian, exact RDP alpha Delta²/2 · λ_max(Aᵀ(s1² A Aᵀ + s2² I)⁻¹ A);
- BBGG-T4, BBGG-T4opt: chains of linear steps with ||A_i|| <= L: mean and covariance propagated step by step;
- BBGG-T5, BBGG-T5opt: NoisyProjSGD on the quadratic loss ½ xᵀ H x − zᵀ x (records ||z|| <= C, H with
  eigenvalues in [rho, beta]) without projection: x_n is Gaussian, its mean moves by η A^(n−i)(z_i − z_i') with
  A = I − η H; only ||∇ℓ(x; z) − ∇ℓ(x; z')|| <= 2C enters BBGG-T5, which holds here. Also the real
  `NoisyProjSGD(QuadraticLoss(...)).differing_at(i)` against its exact `renyi_profile`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import mp_renyi_1d
from scipy.integrate import quad

import markovdp as md
import markovdp.guarantees.coupling_rules  # noqa: F401  (registers the rules until the lead imports them)
from markovdp.guarantees.coupling import iterated_laplace_rdp, lipschitz_kernel_rdp
from markovdp.guarantees.iteration import (
    lipschitz_chain_opt_rdp,
    lipschitz_chain_rdp,
    lipschitz_path_rdp,
    noisy_sgd_opt_rdp,
    noisy_sgd_rdp,
)

EXAMPLES = settings(max_examples=1000, deadline=None, derandomize=True, database=None)


def assert_sound(exact: float, bound: float, what: str, rel: float = 1e-9) -> None:
    assert exact <= bound * (1 + rel) + 1e-12, f"{what}: exact {exact!r} > bound {bound!r}"


# --------------------------------------------------------------------------------------------------- BBGG-E2

def log_sum_laplace(z: float, a: float, b: float) -> float:
    """log density at z of X + Y, X ~ Lap(0, a), Y ~ Lap(0, b), independent:
    (a e^(−|z|/a) − b e^(−|z|/b)) / (2(a² − b²)) for a != b, (a + |z|) e^(−|z|/a) / (4a²) for a = b."""
    z = abs(z)
    if a == b:
        return math.log(a + z) - z / a - math.log(4 * a * a)
    if a < b:
        a, b = b, a
    return (math.log(a) - z / a + math.log1p(-(b / a) * math.exp(-z * (1 / b - 1 / a)))
            - math.log(2 * (a * a - b * b)))


def laplace_pipeline_renyi(alpha: float, delta: float, a: float, b: float) -> float:
    """R_alpha(p || p(· − Delta)), p the density of Lap(0, a) + Lap(0, b), by scipy quadrature on
    (−inf, 0], [0, Delta], [Delta, inf) of the integrand scaled by its largest value."""
    def log_f(z):
        return alpha * log_sum_laplace(z, a, b) + (1 - alpha) * log_sum_laplace(z - delta, a, b)

    top = max(log_f(0.0), log_f(delta))

    def f(z):
        return math.exp(log_f(z) - top)

    total = quad(f, -np.inf, 0.0)[0] + quad(f, 0.0, delta)[0] + quad(f, delta, np.inf)[0]
    return (top + math.log(total)) / (alpha - 1)


@pytest.mark.parametrize(("a", "b", "alpha", "delta"),
                         [(1.0, 1.0, 2.0, 1.0), (1.0, 2.5, 7.0, 0.5), (0.4, 0.1, 3.0, 2.0)])
def test_the_sum_of_laplaces_oracle_matches_convolution_and_mpmath(a, b, alpha, delta):
    """The oracle of the BBGG-E2 soundness test: its density against numerical convolution of the two Laplace
    densities, and its Rényi divergence against mpmath quadrature (`mp_renyi_1d`)."""
    for z in (0.0, 0.3, -1.7, 6.0):
        def integrand(x, z=z):
            return math.exp(-abs(x) / a - abs(z - x) / b) / (4 * a * b)

        lo, hi = min(0.0, z), max(0.0, z)
        conv = quad(integrand, -np.inf, lo)[0] + quad(integrand, lo, hi)[0] + quad(integrand, hi, np.inf)[0]
        assert math.exp(log_sum_laplace(z, a, b)) == pytest.approx(conv, rel=1e-8)

    def mp_log(loc):
        with mp.workdps(50):
            aa, bb = mp.mpf(a), mp.mpf(b)

        def f(x):
            u = abs(x - loc)
            if a == b:
                return mp.log(aa + u) - u / aa - mp.log(4 * aa * aa)
            return mp.log((aa * mp.exp(-u / aa) - bb * mp.exp(-u / bb)) / (2 * (aa * aa - bb * bb)))
        return f

    reference = mp_renyi_1d(mp_log(0), mp_log(delta), alpha, [-30 * max(a, b), 0, delta, 30 * max(a, b)])
    assert laplace_pipeline_renyi(alpha, delta, a, b) == pytest.approx(reference, rel=1e-8)


SEEDS = st.integers(0, 2**32 - 1)  # one draw per example: hypothesis' own cost dominates otherwise


def log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


@EXAMPLES
@given(SEEDS)
def test_bbgg_e2_is_sound_against_quadrature_and_below_the_minimand_everywhere(seed):
    """BBGG-E2: exact R_alpha of Lap(l1) >> Lap(l2) (quadrature) <= bound <= the T2 minimand at 17 points w."""
    rng = np.random.default_rng(seed)
    l1, l2, delta = log_uniform(rng, 0.05, 5.0), log_uniform(rng, 0.05, 5.0), log_uniform(rng, 0.01, 4.0)
    alpha = 1.0 + log_uniform(rng, 0.01, 30.0)
    if rng.random() < 0.3 or abs(l1 / l2 - 1) < 0.02:  # equal scales (the a != b density cancels near a = b)
        l2 = l1
    bound = iterated_laplace_rdp(alpha, sensitivity=delta, scale1=l1, scale2=l2)
    what = f"BBGG-E2 at l1={l1!r}, l2={l2!r}, delta={delta!r}, alpha={alpha!r}"
    assert_sound(laplace_pipeline_renyi(alpha, delta, l1, l2), bound, what, rel=1e-7)
    t = np.linspace(0.0, delta, 17)
    w1, w2 = alpha / (2 * alpha - 1), (alpha - 1) / (2 * alpha - 1)
    minimand = (np.logaddexp(np.log(w1) + t / l1 * (alpha - 1), np.log(w2) - t / l1 * alpha)
                + np.logaddexp(np.log(w1) + (delta - t) / l2 * (alpha - 1), np.log(w2) - (delta - t) / l2 * alpha)
                ) / (alpha - 1)  # log g_alpha of BBGG-E2, from THEORY
    # the minimand's log g here loses ~1e-16 absolute near z = 0 (logaddexp), hence the allowance / (alpha − 1)
    assert np.all(bound <= minimand * (1 + 1e-12) + 1e-15 / (alpha - 1)), what


# ------------------------------------------------------------------------------- BBGG-E3, BBGG-T4, T4opt

def random_matrices(rng: np.random.Generator, d: int, norms: np.ndarray, orthogonal: bool) -> np.ndarray:
    """len(norms) d × d matrices with spectral norms `norms`: norm · Q (Q orthogonal) or random ones rescaled."""
    m = rng.standard_normal((len(norms), d, d))
    if orthogonal:
        m = np.linalg.qr(m)[0]
    return m * (np.asarray(norms) / np.linalg.svd(m, compute_uv=False)[:, 0])[:, None, None]


def gaussian_worst_rdp(alpha: float, delta: float, p: np.ndarray, cov: np.ndarray) -> float:
    """sup over ||v|| <= Delta of R_alpha(N(P v, C) || N(0, C)) = alpha Delta²/2 · λ_max(Pᵀ C⁻¹ P) (STD-GaussRenyi)."""
    m = p.T @ np.linalg.solve(cov, p)
    return alpha * delta**2 / 2 * float(np.max(np.linalg.eigvalsh(0.5 * (m + m.T))))


def linear_chain_worst_rdp(alpha, delta, s1, sigma, matrices):
    """GaussianMechanism(s1) then x ↦ A_i x + N(0, sigma² I), i = 1..r: mean map and covariance step by step."""
    d = matrices[0].shape[0]
    p, cov = np.eye(d), s1**2 * np.eye(d)
    for a in matrices:
        p, cov = a @ p, a @ cov @ a.T + sigma**2 * np.eye(d)
    return gaussian_worst_rdp(alpha, delta, p, cov)


@EXAMPLES
@given(SEEDS)
def test_bbgg_e3_t4_and_t4opt_are_sound_for_linear_gaussian_pipelines(seed):
    """GaussianMechanism(s1) >> r linear steps x ↦ A_i x + N(0, sigma² I) with ||A_i||_2 <= L (L = 1 included):

    - BBGG-E3 on the first step alone, ||A_1||_2 = L: exact = bound (to 1e-8) for *every* linear A — the worst
      shift of the L2 ball is the top singular vector;
    - BBGG-T4 (3) (L <= 1), BBGG-T4opt and BBGG-T4 (2) on a random straight path from M(D) to M(D') for the whole
      chain: never below its exact RDP.
    """
    rng = np.random.default_rng(seed)
    d, r = int(rng.integers(1, 4)), int(rng.integers(1, 26))
    lip = 1.0 if rng.random() < 0.15 else float(rng.uniform(0.05, 1.6))
    s1, sigma = log_uniform(rng, 1e-3, 3.0), log_uniform(rng, 1e-3, 3.0)
    delta, alpha = log_uniform(rng, 0.1, 3.0), 1.0 + log_uniform(rng, 0.01, 1e3)
    style = rng.choice(["orthogonal", "random", "mixed"])
    shrink = np.concatenate([[1.0], rng.uniform(0.0, 1.0, r - 1)]) if style == "mixed" else np.ones(r)
    mats = random_matrices(rng, d, lip * shrink, style == "orthogonal")

    one_step = linear_chain_worst_rdp(alpha, delta, s1, sigma, mats[:1])
    e3 = lipschitz_kernel_rdp(alpha, sensitivity=delta, sigma1=s1, lipschitz=lip, sigma2=sigma)
    assert_sound(one_step, e3, f"BBGG-E3 seed {seed}")
    assert one_step >= e3 * (1 - 1e-8), f"BBGG-E3 not tight for a linear map, seed {seed}"

    exact = linear_chain_worst_rdp(alpha, delta, s1, sigma, mats)
    chain = dict(sensitivity=delta, lipschitz=lip, sigma=sigma, r=r)
    assert_sound(exact, lipschitz_chain_opt_rdp(alpha, **chain), f"BBGG-T4opt seed {seed}")
    if lip <= 1.0:
        assert_sound(exact, lipschitz_chain_rdp(alpha, **chain), f"BBGG-T4 seed {seed}")
    steps = rng.dirichlet(np.ones(r)) * delta  # W_inf between consecutive points of the straight path
    assert_sound(exact, lipschitz_path_rdp(alpha, steps, lipschitz=lip, sigma=sigma), f"BBGG-T4 (2) seed {seed}")


# ----------------------------------------------------------------------------------------- BBGG-T5, T5opt

def quadratic_sgd_worst_rdp(alpha, c, hessian, eta, sigma, n, index):
    """x_j = A x_{j−1} + η z_j − η Z_j, A = I − η H, fixed x_0: covariance and the map of z_i − z_i' propagated step
    by step; sup over ||z_i − z_i'|| <= 2C."""
    d = hessian.shape[0]
    a = np.eye(d) - eta * hessian
    cov, p = np.zeros((d, d)), np.eye(d)
    for j in range(1, n + 1):
        cov = a @ cov @ a.T + (eta * sigma) ** 2 * np.eye(d)
        if j > index:
            p = a @ p
    return gaussian_worst_rdp(alpha, 2 * c, eta * p, cov)  # the mean moves by η P (z_i − z_i')


@EXAMPLES
@given(SEEDS)
def test_bbgg_t5_and_t5opt_are_sound_for_quadratic_losses(seed):
    """BBGG-T5 and BBGG-T5opt: alpha · eps_i >= the exact RDP of the final iterate of noisy SGD on a quadratic loss
    (Hessian eigenvalues in [rho, beta], both extremes attained, eta up to 2/(beta + rho)), neighbours differing in
    record i; and the rules on the real `NoisyProjSGD(QuadraticLoss(Ball(d, R)), ...).differing_at(i)` (no
    projection) are never below its exact `renyi_profile`."""
    from markovdp.mechanisms.losses import QuadraticLoss
    from markovdp.mechanisms.sgd import NoisyProjSGD

    rng = np.random.default_rng(seed)
    d, n = int(rng.integers(1, 4)), int(rng.integers(1, 41))
    index = int(rng.integers(1, n + 1))
    beta = log_uniform(rng, 0.05, 4.0)
    rho = beta * float(rng.choice([0.0, 1.0, rng.uniform()]))
    eta = (1.0 if rng.random() < 0.2 else float(rng.uniform(0.01, 1.0))) * 2.0 / (beta + rho)
    while Fraction(eta) * (Fraction(beta) + Fraction(rho)) > 2:  # the float nearest the limit may exceed it
        eta = float(np.nextafter(eta, 0.0))
    c, sigma, alpha = log_uniform(rng, 0.1, 3.0), log_uniform(rng, 0.05, 3.0), 1.0 + log_uniform(rng, 0.01, 1e3)
    eigs = np.concatenate([[beta, rho], rng.uniform(rho, beta, max(d - 2, 0))])[:d] if d > 1 else \
        np.array([rng.choice([beta, rho])])
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    exact = quadratic_sgd_worst_rdp(alpha, c, q @ np.diag(eigs) @ q.T, eta, sigma, n, index)
    params = dict(lipschitz=c, smoothness=beta, strong_convexity=rho, eta=eta, sigma=sigma, n=n, index=index)
    assert_sound(exact, alpha * noisy_sgd_rdp(**params), f"BBGG-T5 seed {seed}")
    assert_sound(exact, alpha * noisy_sgd_opt_rdp(**params), f"BBGG-T5opt seed {seed}")

    sgd = NoisyProjSGD(QuadraticLoss(md.operators.Ball(d, c)), min(eta, 1.0), sigma, None, np.zeros(d), n=n)
    subject = sgd.differing_at(index)
    exact = float(md.renyi_profile(subject, alpha))
    cert = md.certify(subject, rules=["BBGG-T5", "BBGG-T5opt"])
    for tid in ("BBGG-T5", "BBGG-T5opt"):
        assert_sound(exact, float(cert.candidates[tid].renyi(alpha)), f"{tid} rule seed {seed}")
