"""BBGG-T2-finite: `coupling_bound` and `optimise_coupling_bound` against direct sums written here (THEORY: BBGG-T2,
BBGG-T2-finite, STD-DPI)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from markovdp.guarantees import OptimisedCoupling, coupling_bound, optimise_coupling_bound
from markovdp.operators.finite import FiniteKernel

ORDERS = np.array([1.0, 1.5, 2.0, 5.0, math.inf])
#: Relative slack of a float comparison between two sums of a few terms (each exact to a few ulps).
RTOL = 1e-10


def direct_renyi(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    """R_alpha(p || q) by the textbook sums (no log space; fine for the moderate values used here)."""
    s = p > 0
    if np.any(q[s] == 0):
        return math.inf
    if alpha == 1.0:
        return float(np.sum(p[s] * np.log(p[s] / q[s])))
    if math.isinf(alpha):
        return float(np.log(np.max(p[s] / q[s])))
    return float(np.log(np.sum(p[s] ** alpha * q[s] ** (1 - alpha))) / (alpha - 1))


def direct_bound(nu: np.ndarray, K: np.ndarray, omega: np.ndarray, pi: np.ndarray, alpha: float) -> float:
    """BBGG-T2's right-hand side by a loop over x: rows of H_pi where omega(x) > 0, sup over supp(omega) ∩ supp(nu)."""
    terms = [0.0]
    for x in range(nu.size):
        if nu[x] > 0 and omega[x] > 0:
            terms.append(direct_renyi(pi[x] / omega[x] @ K, K[x], alpha))
    return direct_renyi(omega, nu, alpha) + max(terms)


def sinkhorn(rng: np.random.Generator, omega: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """A random coupling of (omega, mu): Sinkhorn scaling of a random positive matrix on supp(omega) × supp(mu)."""
    pi = rng.exponential(size=(omega.size, mu.size)) * np.outer(omega > 0, mu > 0)
    for _ in range(200):
        pi *= (omega / np.maximum(pi.sum(axis=1), 1e-300))[:, None]
        pi *= (mu / np.maximum(pi.sum(axis=0), 1e-300))[None, :]
    return pi


def random_law(rng: np.random.Generator, n: int, zeros: bool) -> np.ndarray:
    p = rng.dirichlet(np.full(n, 0.8))
    if zeros and n > 2:
        p[rng.integers(n)] = 0.0
        p /= p.sum()
    return p


def test_identity_coupling_is_data_processing_and_above_the_exact_value():
    """omega = mu, pi = diag(mu) (the defaults) give R_alpha(mu || nu) >= R_alpha(mu K || nu K) (STD-DPI)."""
    rng = np.random.default_rng(1)
    for _ in range(50):
        mu, nu = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        K = rng.dirichlet(np.ones(3), size=4)
        got = coupling_bound(mu, nu, FiniteKernel(K), ORDERS)
        want = [direct_renyi(mu, nu, a) for a in ORDERS]
        np.testing.assert_allclose(got, want, rtol=1e-12)
        exact = [direct_renyi(mu @ K, nu @ K, a) for a in ORDERS]
        assert np.all(got >= np.array(exact) * (1 - RTOL))
        assert coupling_bound(mu, nu, K, 2.0, omega=mu) == pytest.approx(want[2], rel=1e-12)


def test_bound_is_the_direct_sum_and_never_below_the_exact_value_on_500_instances():
    """Random mu, nu, K (with zeros), omega ≪ nu and random couplings of (omega, mu) (Sinkhorn): the bound equals
    the direct loop over x and is >= R_alpha(mu K || nu K) at every order."""
    rng = np.random.default_rng(20150)
    checked = finite = 0
    for i in range(500):
        n, m = int(rng.integers(2, 6)), int(rng.integers(2, 5))
        mu, nu = random_law(rng, n, i % 3 == 0), random_law(rng, n, i % 4 == 0)
        K = rng.dirichlet(np.full(m, 0.7), size=n)
        if i % 5 == 0:
            K[rng.integers(n), rng.integers(m)] = 0.0
            K /= K.sum(axis=1, keepdims=True)
        omega = nu * rng.dirichlet(np.ones(n)) if i % 2 else nu.copy()
        omega /= omega.sum()
        if i % 7 == 0:
            omega[np.argmax(omega)] = 0.0  # omega(x) = 0 on part of supp(nu): the free rows
            omega /= omega.sum()
        pi = sinkhorn(rng, omega, mu) if i % 6 else np.outer(omega, mu)
        got = coupling_bound(mu, nu, K, ORDERS, omega=pi.sum(axis=1), coupling=pi)
        exact = np.array([direct_renyi(mu @ K, nu @ K, a) for a in ORDERS])
        want = np.array([direct_bound(nu, K, pi.sum(axis=1), pi, a) for a in ORDERS])
        np.testing.assert_allclose(got, want, rtol=1e-9)
        assert np.all(got >= exact * (1 - RTOL)), (i, got, exact)
        checked += got.size
        finite += int(np.isfinite(got).sum())
    assert checked == 2500 and finite > 1500  # most instances give a finite bound: the check has teeth


def test_free_rows_and_infinite_cases():
    """omega(x) = 0 < nu(x): the row is free and adds 0; omega not ≪ nu, or (H K)(x) not ≪ K(x): +inf."""
    mu, nu = np.array([0.5, 0.5, 0.0]), np.array([0.4, 0.3, 0.3])
    K = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.3, 0.3, 0.4]])
    pi = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])  # omega = delta_0, H(0) = mu
    want = math.log(1 / 0.4) + direct_renyi(np.array([0.55, 0.45, 0.0]), K[0], 2.0)
    assert coupling_bound(mu, nu, K, 2.0, coupling=pi) == pytest.approx(want, rel=1e-12)
    assert coupling_bound(mu, np.array([0.5, 0.5, 0.0]), K, 2.0, omega=[0.0, 0.0, 1.0],
                          coupling=[[0, 0, 0], [0, 0, 0], [0.5, 0.5, 0]]) == math.inf  # omega not ≪ nu
    to_sparse = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.0]])  # H(2) = mu: (H K)(2) ≪ K(2), finite
    assert math.isfinite(coupling_bound(mu, nu, K, 2.0, coupling=to_sparse))
    K2 = np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.8], [0.3, 0.3, 0.4]])
    mass_on_zero = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])  # (H K)(0) puts mass where K(0) is 0
    assert coupling_bound(mu, nu, K2, [1.0, 2.0, math.inf], coupling=mass_on_zero).tolist() == [math.inf] * 3


def test_bad_couplings_name_the_parameter():
    mu, nu, K = np.array([0.5, 0.5]), np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match="`coupling` must be a coupling whose column sums are `mu`"):
        coupling_bound(mu, nu, K, 2.0, coupling=[[0.5, 0.0], [0.0, 0.4]])
    with pytest.raises(ValueError, match="`coupling` must be a coupling whose row sums are `omega`"):
        coupling_bound(mu, nu, K, 2.0, omega=[0.3, 0.7], coupling=np.diag(mu))
    with pytest.raises(ValueError, match="`coupling` must be given when `omega` is not `mu`"):
        coupling_bound(mu, nu, K, 2.0, omega=[0.3, 0.7])
    with pytest.raises(ValueError, match="`coupling` must be an \\(2, 2\\) matrix"):
        coupling_bound(mu, nu, K, 2.0, coupling=np.ones((3, 3)) / 9)
    with pytest.raises(ValueError, match="`alpha` must be in \\[1, inf\\]"):
        coupling_bound(mu, nu, K, 0.5)
    with pytest.raises(ValueError, match="`nu` must be a law on the 2 states"):
        coupling_bound(mu, [0.2, 0.3, 0.5], K, 2.0)


def test_optimiser_is_sound_below_the_identity_bound_and_reproducible():
    """On small random instances the searched bound is a value of the right-hand side at its (omega, pi), lies in
    [exact, identity bound], and is the same for the same seed."""
    rng = np.random.default_rng(7)
    ratios = []
    for i in range(12):
        n = 2 + i % 2
        mu, nu = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
        K = rng.dirichlet(np.ones(3), size=n)
        alpha = float(ORDERS[i % ORDERS.size])
        found = optimise_coupling_bound(mu, nu, K, alpha, restarts=0, rng=i)
        assert isinstance(found, OptimisedCoupling)
        exact = direct_renyi(mu @ K, nu @ K, alpha)
        assert found.exact == pytest.approx(exact, rel=1e-9)
        assert found.identity_bound == pytest.approx(direct_renyi(mu, nu, alpha), rel=1e-9)
        assert exact * (1 - RTOL) <= found.bound <= found.identity_bound
        np.testing.assert_allclose(found.coupling.sum(axis=0), mu, atol=1e-12)
        assert found.bound == pytest.approx(direct_bound(nu, K, found.omega, found.coupling, alpha), rel=1e-9)
        ratios.append(found.bound / found.identity_bound)
    assert min(ratios) < 0.9  # the search improves on data processing somewhere: it is not the identity only
    again = optimise_coupling_bound(mu, nu, K, alpha, restarts=0, rng=11)
    assert again.bound == found.bound


def test_optimiser_beats_data_processing_where_a_middle_law_helps():
    """Two far-apart point-like laws through a noisy kernel: moving part of the way (omega between mu and nu)
    splits the cost, as the translation coupling does on R; the identity bound R(mu || nu) is much larger."""
    mu, nu = np.array([0.9, 0.05, 0.05]), np.array([0.05, 0.05, 0.9])
    K = np.array([[0.6, 0.3, 0.1], [0.25, 0.5, 0.25], [0.1, 0.3, 0.6]])
    found = optimise_coupling_bound(mu, nu, K, 2.0, restarts=1, rng=0)
    assert found.bound < 0.5 * found.identity_bound
    assert found.bound >= found.exact


def test_categorical_laws_are_accepted():
    from markovdp.distributions import Categorical

    mu, nu, K = np.array([0.6, 0.4]), np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])
    assert coupling_bound(Categorical(mu), Categorical(nu), FiniteKernel(K), 2.0) == coupling_bound(mu, nu, K, 2.0)


@pytest.mark.slow
def test_optimiser_is_sound_on_500_instances():
    """The search on 500 random instances (n <= 4, alpha in ORDERS): exact <= bound <= identity bound, and the bound
    is the direct loop at the returned (omega, pi)."""
    rng = np.random.default_rng(500)
    for i in range(500):
        n = 2 + i % 3
        mu, nu = random_law(rng, n, i % 5 == 0), random_law(rng, n, i % 7 == 0)
        K = rng.dirichlet(np.ones(3), size=n)
        alpha = float(ORDERS[i % ORDERS.size])
        found = optimise_coupling_bound(mu, nu, K, alpha, restarts=0, rng=i)
        exact = direct_renyi(mu @ K, nu @ K, alpha)
        assert exact * (1 - RTOL) <= found.bound <= found.identity_bound, i
        assert found.bound == pytest.approx(direct_bound(nu, K, found.omega, found.coupling, alpha), rel=1e-9)
