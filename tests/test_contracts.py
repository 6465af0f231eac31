"""Contract tests over every registered operator and mechanism (DESIGN §9; tests/registry.py).

Statistical checks use fixed seeds and thresholds for a 1e-6 false-failure rate (Bonferroni over cells).
"""

from __future__ import annotations

import numpy as np
import pytest
from registry import EXACT_MECHANISMS, MECHANISMS, OPERATORS, random_stochastic
from scipy import integrate, stats

import markovdp as md
from markovdp.operators import Chain, Mixture, Power

ALPHA = 1e-6  # false-failure rate of each statistical assertion


def z_bound(cells: int) -> float:
    return float(stats.norm.isf(ALPHA / (2 * cells)))


def assert_frequencies(samples: np.ndarray, probs: np.ndarray) -> None:
    """Each cell's frequency within z standard errors of its probability (Bonferroni over cells)."""
    n = samples.size
    freq = np.bincount(samples, minlength=probs.size) / n
    se = np.sqrt(np.maximum(probs * (1 - probs), 1e-300) / n)
    assert freq.size == probs.size
    assert np.all(np.abs(freq - probs) <= z_bound(probs.size) * se + 1e-12), (freq, probs)


def assert_same_law(a: np.ndarray, b: np.ndarray) -> None:
    assert stats.ks_2samp(a, b).pvalue > ALPHA


@pytest.mark.parametrize("case", OPERATORS, ids=repr)
def test_operator_sample_shape_and_space(case):
    op = case.build()
    rng = np.random.default_rng(0)
    x = case.inputs(50, rng)
    y = op.sample(x, rng=rng)
    assert y.shape[0] == 50
    if isinstance(op.codomain, md.FiniteSpace):
        assert y.ndim == 1 and np.issubdtype(y.dtype, np.integer)
        assert y.min() >= 0 and y.max() < op.codomain.k
    else:
        assert y.shape == ((50,) if op.codomain.d == 1 else (50, op.codomain.d))
        assert np.all(np.isfinite(y))


@pytest.mark.parametrize("case", OPERATORS + MECHANISMS, ids=repr)
def test_sampling_is_reproducible_for_every_rng_kind(case):
    obj = case.build()
    x = case.inputs(20, np.random.default_rng(1))
    a = obj.sample(x, rng=7)
    b = obj.sample(x, rng=np.random.default_rng(7))
    c = obj.sample(x, rng=np.random.SeedSequence(7))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("case", [c for c in OPERATORS if c.name.startswith("FiniteKernel")], ids=repr)
def test_finite_kernel_law_matches_its_rows(case):
    kernel = case.build()
    rng = np.random.default_rng(3)
    for x in range(kernel.domain.k):
        assert_frequencies(kernel.sample(np.full(20_000, x), rng=rng), kernel.matrix[x])


@pytest.mark.parametrize(("kernel", "law"), [
    (md.GaussianKernel(0.7), lambda x: stats.norm(x, 0.7)),
    (md.LaplaceKernel(1.3), lambda x: stats.laplace(x, 1.3)),
])
def test_continuous_kernel_law_matches_scipy(kernel, law):
    rng = np.random.default_rng(4)
    y = kernel.sample(np.full(20_000, 0.5), rng=rng)
    assert stats.kstest(y, law(0.5).cdf).pvalue > ALPHA
    np.testing.assert_allclose(kernel.log_density(0.5, np.array([-1.0, 0.2, 3.0])),
                               law(0.5).logpdf(np.array([-1.0, 0.2, 3.0])), rtol=1e-12)


@pytest.mark.parametrize("kernel", [md.GaussianKernel(0.3), md.LaplaceKernel(2.0)], ids=repr)
def test_log_density_integrates_to_one(kernel):
    total, _ = integrate.quad(lambda y: np.exp(kernel.log_density(np.array([0.4]), np.array([y]))[0]),
                              -np.inf, np.inf, epsabs=0, epsrel=1e-10)
    assert total == pytest.approx(1.0, rel=1e-8)


def test_chain_is_associative_and_merges_finite_kernels():
    k1, k2, k3 = (md.FiniteKernel(random_stochastic(4, 4, s)) for s in (10, 11, 12))
    left, right = (k1 >> k2) >> k3, k1 >> (k2 >> k3)
    assert isinstance(left, md.FiniteKernel)
    np.testing.assert_allclose(left.matrix, right.matrix, atol=1e-15)
    np.testing.assert_allclose(left.matrix, k1.matrix @ k2.matrix @ k3.matrix, atol=1e-15)


def test_mixed_chain_is_associative_and_flat():
    g, lap = md.GaussianKernel(0.5), md.LaplaceKernel(1.0)
    left, right = (g >> lap) >> g, g >> (lap >> g)
    expected = "GaussianKernel(sigma=0.5) >> LaplaceKernel(scale=1.0) >> GaussianKernel(sigma=0.5)"
    assert repr(left) == repr(right) == expected
    assert left == right


def test_finite_merge_matches_unsimplified_chain_in_law():
    k1 = md.FiniteKernel(random_stochastic(3, 4, 20))
    k2 = md.FiniteKernel(random_stochastic(4, 3, 21, zeros=True))
    merged, chain = k1 >> k2, Chain((k1, k2))
    rng = np.random.default_rng(5)
    for x in range(3):
        assert_frequencies(chain.sample(np.full(20_000, x), rng=rng), merged.matrix[x])


def test_gaussian_merge_parameters_and_law():
    g1, g2 = md.GaussianKernel(0.3), md.GaussianKernel(0.4)
    merged = g1 >> g2
    assert merged.sigma == pytest.approx(0.5, rel=1e-15)  # sqrt(0.09 + 0.16)
    assert (g1 ** 4).sigma == pytest.approx(0.6, rel=1e-15)  # 0.3 * sqrt(4)
    rng = np.random.default_rng(6)
    x = np.zeros(20_000)
    assert_same_law(merged.sample(x, rng=rng), Chain((g1, g2)).sample(x, rng=rng))
    assert_same_law((g1 ** 4).sample(x, rng=rng), Power(g1, 4).sample(x, rng=rng))


def test_finite_power_matches_repeated_sampling():
    k = md.FiniteKernel(random_stochastic(3, 3, 30))
    cube = k ** 3
    np.testing.assert_allclose(cube.matrix, np.linalg.matrix_power(k.matrix, 3), atol=1e-15)
    rng = np.random.default_rng(7)
    for x in range(3):
        assert_frequencies(Power(k, 3).sample(np.full(20_000, x), rng=rng), cube.matrix[x])


def test_finite_mixture_matches_mixture_node_in_law():
    k1, k2 = md.FiniteKernel(random_stochastic(3, 3, 40)), md.FiniteKernel(random_stochastic(3, 3, 41))
    w = np.array([0.25, 0.75])
    merged = md.mixture([k1, k2], weights=w)
    np.testing.assert_allclose(merged.matrix, 0.25 * k1.matrix + 0.75 * k2.matrix, atol=1e-15)
    rng = np.random.default_rng(8)
    for x in range(3):
        assert_frequencies(Mixture((k1, k2), w).sample(np.full(20_000, x), rng=rng), merged.matrix[x])
    assert md.mixture([k1]) is k1


def test_finite_tensor_is_the_independent_product():
    k1, k2 = md.FiniteKernel(random_stochastic(2, 3, 50)), md.FiniteKernel(random_stochastic(3, 2, 51))
    prod = md.tensor(k1, k2)
    assert prod.matrix.shape == (6, 6)
    rng = np.random.default_rng(9)
    x1, x2 = 1, 2
    y1 = k1.sample(np.full(20_000, x1), rng=rng)
    y2 = k2.sample(np.full(20_000, x2), rng=rng)
    assert_frequencies(y1 * 2 + y2, prod.matrix[x1 * 3 + x2])  # row-major encoding of pairs
    assert md.tensor(md.tensor(k1, k2), k1).matrix.shape == (12, 18)
    np.testing.assert_allclose(md.tensor_power(k1, 3).matrix, np.kron(np.kron(k1.matrix, k1.matrix), k1.matrix),
                               atol=1e-15)


def test_gaussian_tensor_merges_equal_sigmas():
    assert md.tensor_power(md.GaussianKernel(0.5), 3) == md.GaussianKernel(0.5, dim=3)


@pytest.mark.parametrize("case", OPERATORS + MECHANISMS, ids=repr)
def test_repr_prints_the_expression(case):
    text = repr(case.build())
    assert "\n" not in text
    assert text.split("(")[0].split(" ")[0] in {
        "FiniteKernel", "GaussianKernel", "AffineGaussianKernel", "LipschitzGaussianKernel", "LaplaceKernel",
        "Identity", "mixture", "tensor", "RandomizedResponse",
        "FiniteMechanism", "GaussianMechanism", "LaplaceMechanism", ""}


@pytest.mark.parametrize("case", EXACT_MECHANISMS, ids=repr)
def test_mechanism_states_neighbours_and_outputs_match_samples(case):
    mech = case.build()
    assert "neighbours" in repr(mech)
    assert "neighbour" in (type(mech).__doc__ or "").lower() or isinstance(mech, md.PostProcessed)
    rng = np.random.default_rng(10)
    x0 = case.inputs(1, rng)[0]
    y = mech.sample(np.full(20_000, x0), rng=rng)
    law = mech.output(x0)
    if isinstance(law, md.Categorical):
        assert_frequencies(y, law.probs)
    elif isinstance(law, md.Normal):
        assert stats.kstest(y, stats.norm(float(law.mean), law.sigma).cdf).pvalue > ALPHA
    elif isinstance(law, md.Laplace):
        assert stats.kstest(y, stats.laplace(law.loc, law.scale).cdf).pvalue > ALPHA
    elif isinstance(law, md.LaplaceSum):
        assert stats.kstest(y, law.cdf).pvalue > ALPHA


def test_laplace_pipeline_output_is_the_laplace_sum_law():
    """BBGG-E2: Laplace noise then a Laplace kernel outputs the law of the sum of two Laplace variables."""
    pipe = md.LaplaceMechanism(1.0) >> md.LaplaceKernel(0.5)
    assert pipe.output(0.0) == md.LaplaceSum(0.0, 1.0, 0.5)
    assert pipe.sample(np.zeros(10), rng=0).shape == (10,)


def test_post_processing_reassociates():
    m = md.RandomizedResponse(3, 0.5)
    k1, k2 = md.FiniteKernel(random_stochastic(3, 3, 60)), md.FiniteKernel(random_stochastic(3, 2, 61))
    nested = (m >> k1) >> k2
    assert nested.mechanism is m
    np.testing.assert_allclose(nested.matrix, m.matrix @ k1.matrix @ k2.matrix, atol=1e-15)
    np.testing.assert_allclose((m >> (k1 >> k2)).matrix, nested.matrix, atol=0)


def test_declared_dp_is_a_black_box():
    m = md.DeclaredDP(1.0, 0.1)
    pipe = m >> md.GaussianKernel(1.0)  # any kernel
    for call in (lambda: m.sample(np.zeros(3)), lambda: m.output(0), lambda: md.privacy_profile(pipe, 1.0),
                 lambda: pipe.sample(np.zeros(3))):
        with pytest.raises(NotImplementedError):
            call()


def test_distribution_through_kernel():
    q = md.Categorical([0.2, 0.5, 0.3])
    k = md.FiniteKernel(random_stochastic(3, 4, 70))
    np.testing.assert_allclose((q >> k).probs, q.probs @ k.matrix, atol=1e-15)
    law = md.Normal(1.0, 0.3) >> md.GaussianKernel(0.4)
    assert law == md.Normal(1.0, 0.5)
    assert md.PointMass(2.0) >> md.LaplaceKernel(1.0) == md.Laplace(2.0, 1.0)


def test_both_inverse_cdf_searches_return_the_same_samples():
    from markovdp.operators import _sampling

    rng = np.random.default_rng(12)
    for m in (2, 7, 300):
        cdf = np.empty((5, m))
        _sampling.cumulative_rows(random_stochastic(5, m, m, zeros=True), cdf)
        x, u = rng.integers(0, 5, 10_000), rng.random(10_000)
        guide = np.empty(cdf.shape, dtype=np.int32)
        _sampling.guide_table(cdf, guide)
        a, b = np.empty(10_000, np.int64), np.empty(10_000, np.int64)
        _sampling._scan(cdf, x, u, a)
        _sampling._guided(cdf, guide, x, u, b)
        np.testing.assert_array_equal(a, b)
        # the definition of inverse-CDF sampling, by numpy: the first y with cdf > u
        np.testing.assert_array_equal(a, (cdf[x] <= u[:, None]).sum(axis=1))


def test_finite_identity_merges_in_mixtures_and_tensors():
    k = md.FiniteKernel(random_stochastic(2, 2, 80))
    ident = md.Identity(md.FiniteSpace(2))
    np.testing.assert_allclose(md.mixture([k, ident]).matrix, 0.5 * (k.matrix + np.eye(2)), atol=1e-15)
    np.testing.assert_allclose(md.tensor(k, ident).matrix, np.kron(k.matrix, np.eye(2)), atol=0)
    assert md.tensor_power(ident, 2) == md.FiniteKernel(np.eye(4))


@pytest.mark.parametrize("op", [Mixture((md.GaussianKernel(0.5), md.LaplaceKernel(1.0)), np.array([0.3, 0.7])),
                                md.tensor(md.GaussianKernel(0.5), md.LaplaceKernel(1.0)),
                                md.FiniteKernel(random_stochastic(3, 2, 81))], ids=repr)
def test_one_input_gives_one_output_and_zero_inputs_none(op):
    one = 0.3 if op.domain == md.RealSpace(1) else (1 if isinstance(op.domain, md.FiniteSpace) else [0.3, 1.0])
    y = op.sample(one, rng=0)
    assert np.shape(y) == np.shape(one)
    empty = np.empty((0,) + np.shape(one), dtype=int if isinstance(op.domain, md.FiniteSpace) else float)
    assert op.sample(empty, rng=0).shape[0] == 0


def test_pushing_a_law_from_another_space_is_incompatible():
    with pytest.raises(md.IncompatibleSpaces):
        md.Categorical([0.4, 0.6]) >> md.mixture([md.GaussianKernel(1.0), md.LaplaceKernel(1.0)])


def test_gaussian_mechanism_output_is_a_point_of_its_space():
    assert md.GaussianMechanism(1.0, dim=2).output([0.0, 1.0]).space == md.RealSpace(2)
    with pytest.raises(ValueError, match="`value`"):
        md.GaussianMechanism(1.0, dim=2).output(0.0)
    assert md.Normal([0.0], 1.0) == md.Normal(0.0, 1.0)
