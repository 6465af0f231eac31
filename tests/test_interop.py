"""markovdp.interop: dp_accounting PLDs from dominating pairs (issue 5 §6).

A composed PLD's delta is held against markovdp's exact profile of the product pipeline: n independent runs
on the same input are the rows of `tensor_power(FiniteKernel(matrix), n)` at the diagonal inputs
(i, ..., i) (AAC-phi), computed exactly, independently of dp_accounting. Pessimistic rounding moves each
privacy loss up by less than the grid step h, so exact(eps) <= pld(eps) <= exact(eps − n h) (+ dp_accounting's
truncated tail mass, <= 1e-12 here).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

import markovdp as md  # noqa: E402
from markovdp.divergences.exact.finite import hockey_stick_finite_pairs  # noqa: E402
from markovdp.interop import to_pld, to_plds  # noqa: E402
from markovdp.operators.algebra import tensor_power  # noqa: E402

H = 1e-4
TAIL = 1e-12
EPS = np.array([0.0, 0.05, 0.3, 0.8, 1.5, 2.5])


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
        to_pld(md.GaussianMechanism(1.0) >> md.LaplaceKernel(1.0))
