"""AAC-phi: an (eps, delta)-LDP channel contracts KL, chi², TV and E_gamma by phi(eps, delta); n copies by phi_n.

Each example draws a random channel with a known (eps, delta) — its exact eps from `ldp_epsilon` at a random
delta, or rows built to meet a target — and BATCH random input pairs; the output divergences are computed twice,
with the library's exact finite divergences (one pair) and in plain numpy (a batch of pairs, the bound
checked on both). chi² is expm1(R_2) in the library (it has no chi² function) and Σ (p − q)² / q here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markovdp as md
from markovdp.guarantees.aac import ldp_contraction_bound, ldp_profile
from markovdp.operators.algebra import tensor_power

#: 200 examples per property (the issue asks for property tests without a count; 200 keeps the file in budget).
EXAMPLES = settings(max_examples=200, deadline=None, derandomize=True, database=None)
#: gamma >= 1 of the hockey-stick divergences checked (gamma = 1 is TV).
GAMMAS = (1.0, 1.2, math.e, 10.0)
#: Random input pairs per example checked in numpy.
BATCH = 16
NAMES = ("KL", "chi2", "TV", *(f"E_{g:g}" for g in GAMMAS))


# ------------------------------------------------------------------------------ plain-numpy divergences


def divergences_numpy(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """(len(NAMES), b) array: KL, chi², TV, E_gamma of each row pair (P[r], Q[r]), from the definitions
    (THEORY: Notation); KL and chi² are +inf where some p > 0 = q, terms with p = q = 0 count 0."""
    singular = ((P > 0) & (Q == 0)).any(axis=1)
    safe_q = np.where(Q > 0, Q, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl_terms = np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0) / safe_q), 0.0) - P + Q
    kl = np.where(singular, np.inf, np.where(Q > 0, kl_terms, 0.0).sum(axis=1))
    chi2 = np.where(singular, np.inf, np.where(Q > 0, (P - Q) ** 2 / safe_q, 0.0).sum(axis=1))
    tv = 0.5 * np.abs(P - Q).sum(axis=1)
    hockey = [np.maximum(P - g * Q, 0.0).sum(axis=1) for g in GAMMAS[1:]]
    return np.stack([np.maximum(kl, 0.0), chi2, tv, tv, *hockey])


def divergences_library(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The same list through markovdp's exact finite divergences (registry dispatch on two Categoricals)."""
    mu, nu = md.Categorical(p), md.Categorical(q)
    hockey = md.hockey_stick(mu, nu, eps=np.log(GAMMAS))
    return np.array([md.kl(mu, nu), math.expm1(md.renyi(mu, nu, alpha=2.0)), md.tv(mu, nu), *hockey])


def assert_contracts(before: np.ndarray, after: np.ndarray, phi: float, what: str) -> None:
    """after <= phi · before for every divergence and pair, with the verdict tolerance of `markovdp validate`
    (relative 1e-9 plus absolute 1e-12); an infinite `before` bounds nothing."""
    bound = np.where(np.isinf(before), np.inf, phi * np.where(np.isinf(before), 0.0, before))
    bad = ~(after <= bound * (1 + 1e-9) + 1e-12)
    if bad.any():
        d, r = np.argwhere(bad)[0]
        raise AssertionError(f"{what}: {NAMES[d]} ratio {after[d, r]!r} / {before[d, r]!r} exceeds phi = {phi!r}")


# ------------------------------------------------------------------------------ random inputs


def input_pairs(rng: np.random.Generator, k: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """b pairs of laws on [k]: Dirichlet at a random concentration, some with zeros, some nearly equal."""
    conc = rng.choice([0.2, 1.0, 5.0])
    P, Q = rng.dirichlet(np.full(k, conc), size=b), rng.dirichlet(np.full(k, conc), size=b)
    near = rng.random(b) < 0.25
    Q[near] = 0.9 * P[near] + 0.1 * Q[near]
    sparse = rng.random((b, k)) < 0.15
    P[sparse & ~near[:, None]] = 0.0
    P[np.arange(b), rng.integers(0, k, size=b)] += 1e-3
    return P / P.sum(axis=1, keepdims=True), Q


def eps_ldp_rows(rng: np.random.Generator, k: int, m: int, eps: float) -> np.ndarray:
    """Rows ∝ e^(a_xy) with a in [0, eps/2]: each column ratio is at most e^(eps/2) · e^(eps/2) (the
    normalisers differ by at most e^(eps/2)), so the matrix is eps-LDP."""
    rows = np.exp(rng.uniform(0.0, eps / 2.0, size=(k, m)))
    return rows / rows.sum(axis=1, keepdims=True)


def random_matrix(rng: np.random.Generator, k: int, m: int) -> np.ndarray:
    """A row-stochastic k x m matrix in one of the styles of `tests.strategies.stochastic_matrices` (dense,
    sparse, near-deterministic, identical rows), drawn from a seed: hypothesis draws only the seed, which keeps
    200 examples per property inside the time budget."""
    style = rng.integers(4)
    raw = rng.random((k, m)) ** rng.choice([1.0, 3.0])
    if style == 1:
        raw[rng.random((k, m)) < 0.5] = 0.0
        raw[np.arange(k), rng.integers(0, m, size=k)] += rng.random(k) + 1e-3
    elif style == 2:
        raw = np.full((k, m), 10.0 ** -rng.integers(3, 10)) * rng.random((k, m))
        raw[np.arange(k), rng.integers(0, m, size=k)] = 1.0
    elif style == 3:
        raw = np.tile(raw[:1], (k, 1))
    return raw / raw.sum(axis=1, keepdims=True)


#: delta of the random channels: 0, a few fixed values and uniform draws.
DELTAS = (0.0, 0.0, 1e-6, 0.01, 0.1, None)
#: eps of the channels built to meet a target: fixed values and uniform draws on [0, 4].
TARGET_EPS = (0.0, 0.05, 0.5, 1.0, 3.0, None, None)


def ldp_channel(seed: int, k: int, m: int) -> tuple[np.ndarray, float, float]:
    """(matrix, eps, delta) with the matrix (eps, delta)-LDP: either eps = ldp_epsilon(matrix, delta) exactly at
    a random delta, or the target pair met by construction, (1 − delta) A + delta B with A eps-LDP."""
    rng = np.random.default_rng(seed)
    delta = DELTAS[rng.integers(len(DELTAS))]
    delta = float(rng.uniform(0.0, 0.5)) if delta is None else delta
    if rng.random() < 0.5:
        matrix = random_matrix(rng, k, m)
        return matrix, md.ldp_epsilon(matrix, delta), delta
    eps = TARGET_EPS[rng.integers(len(TARGET_EPS))]
    eps = float(rng.uniform(0.0, 4.0)) if eps is None else eps
    other = np.eye(m)[rng.integers(0, m, size=k)]  # deterministic rows: the delta part is as far apart as can be
    matrix = (1.0 - delta) * eps_ldp_rows(rng, k, m, eps) + delta * other
    matrix = matrix / matrix.sum(axis=1, keepdims=True)
    assert ldp_profile(matrix, eps) <= delta * (1 + 1e-12) + 1e-15  # AAC-T1: the target holds
    return matrix, eps, delta


seeds = st.integers(0, 2**32 - 1)


# ------------------------------------------------------------------------------ one channel


@EXAMPLES
@given(st.integers(2, 4), st.integers(2, 4), seeds)
def test_aac_phi_contraction_ratio_of_kl_chi2_tv_hockey_stick_never_exceeds_phi(k, m, seed):
    """AAC-phi: D(mu K || nu K) <= phi(eps, delta) D(mu || nu) for KL, chi², TV, E_gamma (gamma in GAMMAS)."""
    matrix, eps, delta = ldp_channel(seed, k, m)
    phi = ldp_contraction_bound(eps, delta)
    P, Q = input_pairs(np.random.default_rng([seed, 1]), k, BATCH)
    before, after = divergences_numpy(P, Q), divergences_numpy(P @ matrix, Q @ matrix)
    assert_contracts(before, after, phi, "numpy")
    # one pair through the library: the same values (an independent code path) and the same verdict
    lib_before = divergences_library(P[0], Q[0])
    lib_after = divergences_library(*((md.Categorical(v) >> md.FiniteKernel(matrix)).probs for v in (P[0], Q[0])))
    np.testing.assert_allclose(lib_before, before[:, 0], rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(lib_after, after[:, 0], rtol=1e-8, atol=1e-12)
    assert_contracts(lib_before[:, None], lib_after[:, None], phi, "library")


# ------------------------------------------------------------------------------ product channels


def product_matrix_numpy(matrix: np.ndarray, n: int) -> np.ndarray:
    """K^{⊗n}[x, y] = Π_i K[x_i, y_i], states encoded row-major (x_1 most significant), by explicit indices."""
    k, m = matrix.shape
    xs = np.indices((k,) * n).reshape(n, -1)
    ys = np.indices((m,) * n).reshape(n, -1)
    return np.prod([matrix[xs[i][:, None], ys[i][None, :]] for i in range(n)], axis=0)


@EXAMPLES
@given(st.sampled_from([(2, 2, 2), (2, 3, 2), (3, 2, 2), (3, 3, 2), (2, 2, 3), (2, 3, 3), (3, 2, 3)]), seeds)
def test_aac_phi_n_bounds_the_contraction_of_product_channels_on_any_input_laws(kmn, seed):
    """AAC-phi (n copies): for K^{⊗n} = tensor_power(K, n), n in {2, 3}, and random laws on [k]^n (not only
    products), D(mu K^{⊗n} || nu K^{⊗n}) <= phi_n(eps, delta) D(mu || nu)."""
    k, m, n = kmn
    matrix, eps, delta = ldp_channel(seed, k, m)
    product = tensor_power(md.FiniteKernel(matrix), n).matrix
    np.testing.assert_allclose(product, product_matrix_numpy(matrix, n), rtol=1e-13, atol=1e-16)
    phi_n = ldp_contraction_bound(eps, delta, n)
    rng = np.random.default_rng([seed, 1])
    P, Q = input_pairs(rng, product.shape[0], BATCH)
    # two structured pairs: product laws, and laws differing in the first coordinate only
    a, b, w = rng.dirichlet(np.ones(k), size=3)
    rest = np.kron(w, w) if n == 3 else w
    P[0], Q[0] = np.kron(a, rest), np.kron(b, rest)
    P[1], Q[1] = np.kron(a, np.kron(a, a) if n == 3 else a), np.kron(b, np.kron(b, b) if n == 3 else b)
    assert_contracts(divergences_numpy(P, Q), divergences_numpy(P @ product, Q @ product), phi_n, "numpy")
    lib_before, lib_after = divergences_library(P[2], Q[2]), divergences_library(P[2] @ product, Q[2] @ product)
    assert_contracts(lib_before[:, None], lib_after[:, None], phi_n, "library")


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("n", [2, 3])
def test_aac_phi_naive_power_phi_to_the_n_is_violated(eps, n):
    """THEORY note on AAC-phi: (1 − e^(−eps)(1 − delta))^n is *not* a valid factor. Binary randomized response
    (exactly eps-LDP), laws on [2]^n that differ in the first coordinate only: the TV ratio through K^{⊗n} is
    TV(K(0), K(1)) = tanh(eps / 2), above (1 − e^(−eps))^n for every eps > 0 and n >= 2, and below phi_n."""
    matrix = md.RandomizedResponse(2, eps).matrix
    product = tensor_power(md.FiniteKernel(matrix), n).matrix
    mu, nu = np.zeros(2**n), np.zeros(2**n)
    mu[0], nu[2 ** (n - 1)] = 1.0, 1.0  # (0, 0, …) against (1, 0, …)
    ratio = md.tv(md.Categorical(mu @ product), md.Categorical(nu @ product)) / md.tv(md.Categorical(mu),
                                                                                   md.Categorical(nu))
    assert ratio == pytest.approx(math.tanh(eps / 2.0), rel=1e-12)
    naive = ldp_contraction_bound(eps, 0.0) ** n
    assert ratio > naive
    assert ratio <= ldp_contraction_bound(eps, 0.0, n)
