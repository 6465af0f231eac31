"""Soundness: no random finite kernel or mechanism makes an exact value exceed a certified bound.

Hypothesis (deadline=None, derandomize=True, database=None) with >= 2000 examples per rule:
BBGG-T1.1–T1.4 and POST against the exact post-processed profile; DPI (STD-DPI) for E_gamma, TV, KL and
Rényi; certify(M >> K) never worse than certify(M).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import hockey_stick_bruteforce
from strategies import eps_values, neighbour_relations, stochastic_matrices

import markovdp as md
from markovdp.guarantees.types import Bound
from markovdp.mechanisms.base import neighbour_pairs

EXAMPLES = settings(max_examples=2000, deadline=None, derandomize=True, database=None)
RULES = ("POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4")


def assert_sound(exact: float, bound: float, what: str) -> None:
    # The verdict tolerance of `markovdp validate`: relative 1e-9 plus absolute 1e-12 (float round-off).
    assert exact <= bound * (1 + 1e-9) + 1e-12, f"{what}: exact {exact!r} > bound {bound!r}"


@st.composite
def finite_pipelines(draw):
    k = draw(st.integers(2, 6))
    m = draw(st.integers(1, 6))
    mech = md.FiniteMechanism(draw(stochastic_matrices(rows=k, cols=m)), neighbours=draw(neighbour_relations(k)))
    kernel = md.FiniteKernel(draw(stochastic_matrices(rows=m)))
    return mech, kernel


@EXAMPLES
@given(finite_pipelines(), eps_values)
def test_bbgg_t1_every_rule_is_sound_on_random_finite_pipelines(pipeline, eps):
    mech, kernel = pipeline
    exact = md.privacy_profile(mech >> kernel, eps)
    cert = md.certify(mech >> kernel)
    for rule in RULES:
        cand = cert.candidates[rule]
        if rule in ("POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3"):
            assert isinstance(cand, Bound), (rule, cand)  # always applicable to a finite kernel
        if isinstance(cand, Bound):
            assert_sound(exact, cand.delta(eps), rule)
    assert isinstance(cert.candidates["BBGG-T1.4"], Bound) == np.isfinite(md.ultra_mixing(kernel))


@EXAMPLES
@given(st.one_of(st.floats(0.0, 5.0), st.sampled_from([10.0, 50.0])), st.one_of(st.floats(0.0, 1.0), st.just(0.0)),
       stochastic_matrices(rows=4), eps_values)
def test_bbgg_t1_is_sound_for_declared_dp_through_its_witness(eps0, delta0, matrix, eps):
    """Every bound for DeclaredDP(eps0, delta0) >> K must hold for the four-point witness (STD-DominatingPair)."""
    declared = md.DeclaredDP(eps0, delta0)
    kernel = md.FiniteKernel(matrix)
    try:
        exact = md.privacy_profile(declared.witness() >> kernel, eps)
    except NotImplementedError as exc:
        # a subnormal delta0, or delta0 * K[x, y] underflowing: refused (log-ratios or the support would be
        # wrong), never silently wrong
        assert ("underflows" in str(exc) or "smallest normal double" in str(exc)) and 0 < delta0 < 1e-290, exc
        return
    for rule, cand in md.certify(declared >> kernel).candidates.items():
        if isinstance(cand, Bound):
            assert_sound(exact, cand.delta(eps), rule)


def test_std_dominating_pair_witness_profile_equals_the_declared_curve():
    for eps0, delta0 in [(0.0, 0.0), (1.0, 0.05), (3.0, 0.5), (50.0, 1e-6)]:
        declared = md.DeclaredDP(eps0, delta0)
        eps = np.array([0.0, 0.3, eps0 / 2, eps0, eps0 + 1])
        np.testing.assert_allclose(md.privacy_profile(declared.witness(), eps),
                                   md.certify(declared).delta(eps), rtol=1e-12, atol=1e-15)


@EXAMPLES
@given(finite_pipelines(), eps_values)
def test_certify_post_processed_is_never_worse_than_the_mechanism(pipeline, eps):
    mech, kernel = pipeline
    assert md.certify(mech >> kernel).delta(eps) <= md.certify(mech).delta(eps) + 1e-15


@st.composite
def law_pairs_and_kernel(draw):
    m = draw(st.integers(2, 8))
    mu, nu = draw(stochastic_matrices(rows=2, cols=m))
    return md.Categorical(mu), md.Categorical(nu), md.FiniteKernel(draw(stochastic_matrices(rows=m)))


@EXAMPLES
@given(law_pairs_and_kernel(), eps_values, st.sampled_from([1.5, 2.0, 10.0, 1e3, np.inf]))
def test_std_dpi_for_hockey_stick_tv_kl_renyi(laws, eps, alpha):
    mu, nu, kernel = laws
    mu_k, nu_k = mu >> kernel, nu >> kernel
    assert_sound(md.hockey_stick(mu_k, nu_k, eps=eps), md.hockey_stick(mu, nu, eps=eps), "E_gamma DPI")
    assert_sound(md.tv(mu_k, nu_k), md.tv(mu, nu), "TV DPI")
    assert_sound(md.kl(mu_k, nu_k), md.kl(mu, nu), "KL DPI")
    assert_sound(md.renyi(mu_k, nu_k, alpha=alpha), md.renyi(mu, nu, alpha=alpha), "Renyi DPI")


@EXAMPLES
@given(stochastic_matrices(), st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_aac_phi_bounds_kl_contraction_of_the_product_channel(matrix, seed, n):
    """KL(mu K^n || nu K^n) <= phi_n(eps, 0) KL(mu || nu) with eps = the channel's LDP level (AAC-phi)."""
    kernel = md.FiniteKernel(matrix)
    eps = md.ldp_epsilon(kernel)
    if not np.isfinite(eps) or kernel.domain.k ** n > 64:
        return
    product = md.tensor_power(kernel, n)
    rng = np.random.default_rng(seed)
    mu, nu = (md.Categorical(rng.dirichlet(np.full(product.domain.k, 0.5))) for _ in range(2))
    bound = md.guarantees.ldp_contraction_bound(eps, 0.0, n) * md.kl(mu, nu)
    assert_sound(md.kl(mu >> product, nu >> product), bound, "AAC-phi")


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(finite_pipelines(), st.sampled_from([0.0, 0.3, 1.0, 5.0, 50.0, 800.0, float("inf")]))
def test_exact_post_processed_profile_matches_bruteforce_over_events(pipeline, eps):
    """The 'exact' side of every soundness check, itself held against the event-enumeration oracle."""
    mech, kernel = pipeline
    matrix = mech.matrix @ kernel.matrix
    pairs = neighbour_pairs(mech.neighbours, mech.matrix.shape[0])
    expected = max(hockey_stick_bruteforce(matrix[i], matrix[j], eps) for i, j in pairs)
    assert md.privacy_profile(mech >> kernel, eps) == pytest.approx(expected, abs=1e-12)
