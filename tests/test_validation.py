"""Every bad input of issue §9 raises the right error whose message names the parameter in backticks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import markovdp as md

NAN = float("nan")
GOOD = [[0.5, 0.5], [0.2, 0.8]]


@pytest.mark.parametrize(("call", "error", "name"), [
    # NaN anywhere numeric
    (lambda: md.GaussianKernel(NAN), ValueError, "sigma"),
    (lambda: md.Normal(NAN, 1.0), ValueError, "mean"),
    (lambda: md.FiniteKernel([[NAN, 1.0], [0.5, 0.5]]), ValueError, "matrix"),
    (lambda: md.RandomizedResponse(3, NAN), ValueError, "eps"),
    (lambda: md.DeclaredDP(1.0, NAN), ValueError, "delta"),
    (lambda: md.hockey_stick(md.Normal(0, 1), md.Normal(1, 1), eps=NAN), ValueError, "eps"),
    (lambda: md.dobrushin(md.FiniteKernel(GOOD), NAN), ValueError, "eps"),
    (lambda: md.privacy_profile(md.RandomizedResponse(2, 1.0), [0.1, NAN]), ValueError, "eps"),
    # inf where not meaningful
    (lambda: md.GaussianKernel(math.inf), ValueError, "sigma"),
    (lambda: md.RandomizedResponse(3, math.inf), ValueError, "eps"),
    (lambda: md.Laplace(0.0, math.inf), ValueError, "scale"),
    # sigma / scale <= 0
    (lambda: md.GaussianKernel(0.0), ValueError, "sigma"),
    (lambda: md.GaussianMechanism(-1.0), ValueError, "sigma"),
    (lambda: md.LaplaceKernel(-0.5), ValueError, "scale"),
    (lambda: md.LaplaceMechanism(0.0), ValueError, "scale"),
    (lambda: md.GaussianMechanism(1.0, sensitivity=0.0), ValueError, "sensitivity"),
    # eps < 0, delta outside [0, 1], alpha <= 1
    (lambda: md.RandomizedResponse(3, -0.1), ValueError, "eps"),
    (lambda: md.DeclaredDP(-1.0, 0.0), ValueError, "eps"),
    (lambda: md.certify(md.RandomizedResponse(2, 1.0)).delta(-1.0), ValueError, "eps"),
    (lambda: md.DeclaredDP(1.0, 1.5), ValueError, "delta"),
    (lambda: md.privacy_epsilon(md.RandomizedResponse(2, 1.0), -0.1), ValueError, "delta"),
    (lambda: md.ldp_epsilon(md.FiniteKernel(GOOD), 2.0), ValueError, "delta"),
    (lambda: md.guarantees.ldp_contraction_bound(1.0, -0.5), ValueError, "delta"),
    (lambda: md.renyi(md.Normal(0, 1), md.Normal(1, 1), alpha=1.0), ValueError, "alpha"),
    (lambda: md.renyi_profile(md.RandomizedResponse(2, 1.0), 0.5), ValueError, "alpha"),
    (lambda: md.certify(md.GaussianMechanism(1.0)).renyi(1.0), ValueError, "alpha"),
    (lambda: md.guarantees.rdp_to_dp(1.0, 1.0, 1e-5), ValueError, "alpha"),
    # k < 2
    (lambda: md.RandomizedResponse(1, 1.0), ValueError, "k"),
    (lambda: md.RandomizedResponse(2.5, 1.0), TypeError, "k"),
    # matrix: not 2-D, empty, negative, rows not summing to 1
    (lambda: md.FiniteKernel([0.5, 0.5]), ValueError, "matrix"),
    (lambda: md.FiniteKernel(np.zeros((0, 0))), ValueError, "matrix"),
    (lambda: md.FiniteKernel([[1.5, -0.5], [0.5, 0.5]]), ValueError, "matrix"),
    (lambda: md.FiniteKernel([[0.5, 0.5 + 2e-12], [0.5, 0.5]]), ValueError, "matrix"),
    (lambda: md.FiniteMechanism([[0.6, 0.6], [0.5, 0.5]]), ValueError, "matrix"),
    (lambda: md.FiniteMechanism(GOOD, neighbours=[(0, 5)]), ValueError, "neighbours"),
    (lambda: md.Categorical([0.5, 0.6]), ValueError, "probs"),
    # K ** r
    (lambda: md.FiniteKernel(GOOD) ** 0, ValueError, "r"),
    (lambda: md.FiniteKernel(GOOD) ** 1.5, TypeError, "r"),
    (lambda: md.GaussianKernel(1.0) ** -2, ValueError, "r"),
    # mixture weights
    (lambda: md.mixture([md.FiniteKernel(GOOD)] * 2, weights=[1.5, -0.5]), ValueError, "weights"),
    (lambda: md.mixture([md.FiniteKernel(GOOD)] * 2, weights=[0.5, 0.6]), ValueError, "weights"),
    (lambda: md.mixture([md.FiniteKernel(GOOD)] * 2, weights=[1.0]), ValueError, "weights"),
    # K >> M, M >> M
    (lambda: md.FiniteKernel(GOOD) >> md.RandomizedResponse(2, 1.0), TypeError, "K >> M"),
    # divergences between laws on different spaces
    (lambda: md.hockey_stick(md.Categorical([0.5, 0.5]), md.Categorical([0.2, 0.3, 0.5]), eps=0.0),
     ValueError, "nu"),
    (lambda: md.kl(md.Normal(0.0, 1.0), md.Normal([0.0, 1.0], 1.0)), ValueError, "nu"),
    # samples, rng
    (lambda: md.Categorical([0.5, 0.5]).sample(-1), ValueError, "n"),
    (lambda: md.FiniteKernel(GOOD).sample(np.array([0, 2])), ValueError, "x"),
    (lambda: md.FiniteKernel(GOOD).sample(np.array([0.5])), TypeError, "x"),
    (lambda: md.GaussianKernel(1.0).sample([0.0], rng="seed"), TypeError, "rng"),
    (lambda: md.estimate_hockey_stick(np.array([0, 1]), np.array([0, 1]), eps=-1.0), ValueError, "eps"),
])
def test_bad_input_raises_naming_the_parameter(call, error, name):
    with pytest.raises(error, match=f"`{name}"):
        call()


@pytest.mark.parametrize(("left", "right"), [
    (md.FiniteKernel(GOOD), md.FiniteKernel(np.eye(3))),
    (md.GaussianKernel(1.0), md.GaussianKernel(1.0, dim=2)),
    (md.FiniteKernel(GOOD), md.GaussianKernel(1.0)),
])
def test_incompatible_spaces_name_both_sizes(left, right):
    with pytest.raises(md.IncompatibleSpaces) as info:
        left >> right
    message = str(info.value)
    assert repr(left.codomain) in message and repr(right.domain) in message


def test_mechanism_kernel_mismatch_names_both_spaces():
    with pytest.raises(md.IncompatibleSpaces, match="FiniteSpace\\(k=3\\).*FiniteSpace\\(k=2\\)"):
        md.RandomizedResponse(3, 1.0) >> md.FiniteKernel(GOOD)


def test_no_silent_renormalisation_and_read_only_copy():
    raw = np.array(GOOD)
    kernel = md.FiniteKernel(raw)
    raw[0, 0] = 0.9
    assert kernel.matrix[0, 0] == 0.5
    with pytest.raises(ValueError):
        kernel.matrix[0, 0] = 0.1
    md.FiniteKernel([[0.5, 0.5 + 5e-13], [0.5, 0.5]])  # within the 1e-12 tolerance


def test_message_template():
    with pytest.raises(ValueError) as info:
        md.GaussianKernel(-2.0)
    assert str(info.value) == "`sigma` must be > 0 and finite; got -2.0."


def test_check_vector_shapes_and_messages():
    from markovdp._validation import check_vector

    np.testing.assert_array_equal(check_vector("c", 2.0, 3, broadcast=True), [2.0, 2.0, 2.0])
    assert check_vector("a", [1, 2]).dtype == np.float64
    with pytest.raises(ValueError, match=r"`x` must be a vector of shape \(3,\)"):
        check_vector("x", [1.0, 2.0], 3)
    with pytest.raises(ValueError, match="`b` must be a scalar or a vector of length 3"):
        check_vector("b", [1.0, 2.0], 3, broadcast=True)
    with pytest.raises(ValueError, match="`a` must be a non-empty vector"):
        check_vector("a", [])
    with pytest.raises(ValueError, match="NaN"):
        check_vector("a", [1.0, np.nan])
