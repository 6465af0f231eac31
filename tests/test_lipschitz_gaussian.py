"""LipschitzGaussianKernel (BBGG-T4, BBGG-E3), its compiled chain sampler and the built-in maps.

Laws are held against scipy's closed forms (KS, fixed seeds); the compiled chain against a plain-numpy
implementation of the same chain drawing the same normals (bit for bit); the built-in maps' Lipschitz constants
against the spectral norm (SVD) of the matrix recovered by evaluating ψ at basis vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy import stats

from markovdp import _fast_normal as fast
from markovdp.operators._lipschitz_kernels import BLOCK_POINTS
from markovdp.operators.algebra import Chain, Power
from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel, is_lipschitz_chain, sample_chain
from markovdp.operators.maps import diagonal_map, gradient_step_map, linear_map, tanh_map
from markovdp.operators.projections import Ball, Box
from markovdp.spaces import IncompatibleSpaces

ALPHA = 1e-6  # false-failure rate of each statistical assertion
THETA = 0.7
ROTATION = np.array([[np.cos(THETA), -np.sin(THETA)], [np.sin(THETA), np.cos(THETA)]])


@njit
def halve(x):  # the returning signature psi(x) -> new array
    return 0.5 * x


@njit
def square(x, out):  # 2-Lipschitz on [-1, 1]^d only
    for k in range(x.size):
        out[k] = x[k] * x[k]


def py_psi(x):
    return x


@pytest.fixture(scope="module")
def rotation():
    """ψ(x) = 0.8 Q x + c with Q a rotation of R^2: the tight case of BBGG-E3."""
    psi, L = linear_map(0.8, [0.3, -1.0], isometry=ROTATION)
    return psi, L


# ----------------------------------------------------------------------------------------- the law of one step


def test_one_step_law_is_the_gaussian_around_psi(rotation):
    """BBGG-E3, no projection: K(x) = N(0.8 Q x + c, sigma² I); each coordinate and a diagonal direction by KS."""
    psi, L = rotation
    kernel = LipschitzGaussianKernel(psi, L, 0.6, dim=2)
    x = np.array([1.5, -0.5])
    mean = 0.8 * ROTATION @ x + np.array([0.3, -1.0])
    y = kernel.sample(np.tile(x, (20_000, 1)), rng=11)
    assert y.shape == (20_000, 2)
    for direction in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 1.0]) / np.sqrt(2)):
        law = stats.norm(direction @ mean, 0.6)  # a unit direction of N(mean, sigma² I) is N(<u, mean>, sigma²)
        assert stats.kstest(y @ direction, law.cdf).pvalue > ALPHA


def test_log_density_is_scipys_multivariate_normal(rotation):
    psi, L = rotation
    kernel = LipschitzGaussianKernel(psi, L, 0.6, dim=2)
    x = np.array([[1.5, -0.5], [0.0, 2.0], [-3.0, 1.0]])
    y = np.array([[0.2, 0.1], [1.0, -1.0], [4.0, 0.0]])
    means = 0.8 * x @ ROTATION.T + np.array([0.3, -1.0])
    expected = [stats.multivariate_normal(m, 0.36 * np.eye(2)).logpdf(v) for m, v in zip(means, y, strict=True)]
    np.testing.assert_allclose(kernel.log_density(x, y), expected, rtol=1e-12)
    np.testing.assert_allclose(kernel.apply_psi(x), means, rtol=1e-14, atol=1e-15)


def test_log_density_with_a_projection_is_not_implemented(rotation):
    kernel = LipschitzGaussianKernel(*rotation, 0.6, projection=Ball(2, 1.0))
    with pytest.raises(NotImplementedError, match="atoms"):
        kernel.log_density(np.zeros(2), np.zeros(2))


def test_returning_map_and_scalar_points_in_one_dimension():
    """psi(x) -> array in d = 1: N(x / 2, sigma²), by KS; a scalar input is one point."""
    kernel = LipschitzGaussianKernel(halve, 0.5, 0.3)
    assert kernel.dim == 1 and kernel.domain.d == 1
    y = kernel.sample(np.full(20_000, 2.0), rng=5)
    assert y.shape == (20_000,)
    assert stats.kstest(y, stats.norm(1.0, 0.3).cdf).pvalue > ALPHA
    assert kernel.sample(2.0, rng=5).shape == ()
    np.testing.assert_allclose(kernel.log_density(2.0, np.array([0.0, 1.0])), stats.norm(1.0, 0.3).logpdf([0.0, 1.0]),
                               rtol=1e-12)


# ----------------------------------------------------------------------------------------------- projections


def test_projection_keeps_samples_in_w(rotation):
    """BBGG-T4: Π_W after the noise; large noise puts mass on the boundary (atoms), none outside."""
    psi, L = rotation
    x = np.zeros((5_000, 2))
    ball = LipschitzGaussianKernel(psi, L, 3.0, projection=Ball(2, 1.0))
    norms = np.linalg.norm(ball.sample_steps(x, 4, rng=1), axis=1)
    assert norms.max() <= 1.0 + 1e-12
    assert np.mean(np.isclose(norms, 1.0, rtol=1e-12)) > 0.5
    box = LipschitzGaussianKernel(psi, L, 3.0, projection=Box([-1.0, 0.0], [2.0, 0.5]))
    y = sample_chain([ball, box], x, rng=2)
    assert np.all((y >= [-1.0, 0.0]) & (y <= [2.0, 0.5]))
    assert np.any(y[:, 1] == 0.5) and np.any(y[:, 0] == -1.0)


# ------------------------------------------------------------------------------ compiled chain vs plain numpy


def plain_normals(seed, n, steps, d):
    """Z[i, s, k], the noise of point i, step s, coordinate k, in the documented order of
    `markovdp.operators._lipschitz_kernels`: the root SeedSequence is seeded by four 64-bit words of
    ``default_rng(seed)``; block b of P points has the xoshiro256++ state of words 4b … 4b + 3 of its
    ``generate_state`` and draws ``fill_normals(state, (P, steps, d))`` for its points (`fill_normals` is held
    against the reference xoshiro256++ and the normal law in tests/test_fast_normal.py)."""
    words = np.random.default_rng(seed).integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    blocks = -(-n // BLOCK_POINTS)
    states = np.random.SeedSequence([int(w) for w in words]).generate_state(4 * blocks, np.uint64)
    z = np.empty((blocks, BLOCK_POINTS, steps, d))
    for b in range(blocks):
        fast.fill_normals(states[4 * b:4 * b + 4].copy(), z[b])
    return z.reshape(blocks * BLOCK_POINTS, steps, d)[:n]


def numpy_chain(segments, x, seed):
    """Plain numpy on the same normals: step s adds sigma Z[:, s], then projects."""
    x = np.array(x, dtype=float).reshape(len(x), -1)
    n, d = x.shape
    z = plain_normals(seed, n, sum(r for _, r in segments), d)
    s = 0
    for kernel, r in segments:
        for _ in range(r):
            mapped = np.array([kernel.psi(row.copy()) if _takes_one(kernel.psi) else _inplace(kernel.psi, row)
                               for row in x])
            y = mapped + kernel.sigma * z[:, s]
            w = kernel.projection
            if isinstance(w, Ball):
                sq = sum(y[:, k] * y[:, k] for k in range(d))  # summed in coordinate order
                with np.errstate(divide="ignore"):
                    y = np.where((sq > w.radius**2)[:, None], y * (w.radius / np.sqrt(sq))[:, None], y)
            elif isinstance(w, Box):
                y = np.minimum(np.maximum(y, w.low), w.high)
            x, s = y, s + 1
    return x


def _takes_one(psi):
    return psi.py_func.__code__.co_argcount == 1


def _inplace(psi, row):
    out = np.empty_like(row)
    psi(row.copy(), out)
    return out


def test_chain_sampler_equals_plain_numpy_on_the_same_normals(rotation):
    """K1 >> K2 ** 3 >> K3 (three maps, both signatures, Ball / none / Box) over two blocks of points:
    identical floats to plain numpy fed the same normals in the documented order."""
    k1 = LipschitzGaussianKernel(*tanh_map(0.9), 0.5, projection=Ball(2, 1.5))
    k2 = LipschitzGaussianKernel(*rotation, 0.2, dim=2)
    k3 = LipschitzGaussianKernel(halve, 0.5, 1.0, projection=Box([-0.5, -1.0], [0.5, 1.0]))
    x = np.random.default_rng(0).normal(scale=2.0, size=(BLOCK_POINTS + 300, 2))
    chain = k1 >> k2 ** 3 >> k3
    assert isinstance(chain, Chain) and is_lipschitz_chain(chain.operators)
    got = sample_chain(chain, x, rng=42)
    np.testing.assert_array_equal(got, numpy_chain([(k1, 1), (k2, 3), (k3, 1)], x, 42))
    np.testing.assert_array_equal(sample_chain([k1, k2, k2, k2, k3], x, rng=42), got)  # runs of k2 merge
    np.testing.assert_array_equal(chain.sample(x, rng=42), got)
    np.testing.assert_array_equal(k2.sample(x[:300], rng=7), numpy_chain([(k2, 1)], x[:300], 7))


def test_one_map_under_two_projections_is_two_segment_kinds():
    """The sampler compiles one branch per (map, projection) kind: the same ψ under a Ball, a Box and none, in
    one chain, is still the plain numpy chain on the same normals."""
    psi, lipschitz = tanh_map(0.9)
    ball = LipschitzGaussianKernel(psi, lipschitz, 0.5, projection=Ball(2, 0.8))
    box = LipschitzGaussianKernel(psi, lipschitz, 0.3, projection=Box([-0.2, -0.4], [0.2, 0.4]))
    free = LipschitzGaussianKernel(psi, lipschitz, 0.7, dim=2)
    x = np.random.default_rng(5).normal(scale=2.0, size=(500, 2))
    segments = [(ball, 2), (box, 1), (free, 1), (ball, 1), (box, 3)]
    got = sample_chain([k ** r if r > 1 else k for k, r in segments], x, rng=9)
    np.testing.assert_array_equal(got, numpy_chain(segments, x, 9))


def test_powers_are_one_compiled_call_with_the_same_stream(rotation):
    kernel = LipschitzGaussianKernel(*rotation, 0.4, projection=Ball(2, 2.0))
    x = np.random.default_rng(1).normal(size=(1_000, 2))
    power = kernel ** 12
    assert isinstance(power, Power)
    steps = kernel.sample_steps(x, 12, rng=3)
    np.testing.assert_array_equal(steps, sample_chain([power], x, rng=3))
    np.testing.assert_array_equal(steps, power.sample(x, rng=3))
    np.testing.assert_array_equal(steps, numpy_chain([(kernel, 12)], x, 3))
    for rng in (np.random.default_rng(3), np.random.SeedSequence(3)):
        np.testing.assert_array_equal(kernel.sample_steps(x, 12, rng=rng), steps)
    assert not np.array_equal(kernel.sample_steps(x, 12, rng=4), steps)


def test_a_generator_gives_four_words_and_advances_by_them(rotation):
    """A Generator seeds the root with four 64-bit words (advancing it by exactly four): successive calls differ."""
    kernel = LipschitzGaussianKernel(*rotation, 0.4, projection=Ball(2, 2.0))
    x = np.random.default_rng(1).normal(size=(50, 2))
    gen, ref = np.random.default_rng(3), np.random.default_rng(3)
    first = kernel.sample_steps(x, 5, rng=gen)
    ref.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    assert gen.standard_normal() == ref.standard_normal()
    np.testing.assert_array_equal(first, numpy_chain([(kernel, 5)], x, 3))
    assert not np.array_equal(kernel.sample_steps(x, 5, rng=gen), first)


def test_points_keep_their_noise_whatever_the_number_of_points(rotation):
    """Block states are addresses under the root: the first rows of a larger call are the smaller call."""
    kernel = LipschitzGaussianKernel(*rotation, 0.4, dim=2)
    x = np.random.default_rng(2).normal(size=(2 * BLOCK_POINTS + 10, 2))
    full = kernel.sample_steps(x, 3, rng=9)
    for n in (1, 5, BLOCK_POINTS, BLOCK_POINTS + 1, 2 * BLOCK_POINTS):
        np.testing.assert_array_equal(kernel.sample_steps(x[:n], 3, rng=9), full[:n])


def test_empty_input_and_one_point(rotation):
    kernel = LipschitzGaussianKernel(*rotation, 0.4, dim=2)
    assert kernel.sample(np.zeros((0, 2)), rng=0).shape == (0, 2)
    assert kernel.sample_steps(np.zeros(2), 3, rng=0).shape == (2,)


# ------------------------------------------------------------------------------------------ Lipschitz check


@pytest.mark.parametrize(("factory", "dim"), [
    (lambda: linear_map(0.8, [0.3, -1.0], isometry=ROTATION), 2),
    (lambda: linear_map(1.0, 5.0, dim=3), 3),
    (lambda: tanh_map(2.0), 2),
    (lambda: diagonal_map([0.5, -3.0, 0.1]), 3),
    (lambda: gradient_step_map([[2.0, 0.5], [0.5, 1.0]], 0.4, [1.0, 0.0]), 2),
], ids=["linear-rotation", "linear-shift", "tanh", "diagonal", "gradient-step"])
def test_lipschitz_check_accepts_the_exact_constant_and_refuses_a_smaller_one(factory, dim):
    """The exact constants of the built-in maps pass (rounding never refutes them); 0.9 L is refused."""
    psi, L = factory()
    LipschitzGaussianKernel(psi, L, 1.0, dim=dim)
    with pytest.raises(ValueError, match=r"`lipschitz` must be a true Lipschitz constant.*\|\|ψ\(x\) − ψ\(y\)\|\|"):
        LipschitzGaussianKernel(psi, 0.9 * L, 1.0, dim=dim)


def test_lipschitz_check_is_on_w_when_projected():
    """x ↦ x² is 2-Lipschitz on [-1, 1]^2 (BBGG-T4 needs ψ Lipschitz on W) but not on R^2."""
    LipschitzGaussianKernel(square, 2.0, 1.0, projection=Box([-1.0, -1.0], [1.0, 1.0]))
    with pytest.raises(ValueError, match="`lipschitz`"):
        LipschitzGaussianKernel(square, 2.0, 1.0, dim=2)


def test_builtin_constants_are_the_spectral_norms():
    """STD-LipschitzMaps: ψ affine, A = [ψ(e_j) − ψ(0)]_j, its largest singular value (SVD) is L; ψ matches its
    formula; tanh's difference ratio at 0 attains L."""
    H, eta, b = np.array([[2.0, 0.5], [0.5, 1.0]]), 0.4, np.array([1.0, 0.0])
    cases = [(linear_map(0.8, [0.3, -1.0], isometry=ROTATION), 0.8 * ROTATION, np.array([0.3, -1.0])),
             (diagonal_map([0.5, -3.0]), np.diag([0.5, -3.0]), np.zeros(2)),
             (gradient_step_map(H, eta, b), np.eye(2) - eta * H, eta * b)]
    for (psi, L), A, c in cases:
        at = [_inplace(psi, v) for v in np.vstack([np.zeros(2), np.eye(2)])]
        recovered = np.column_stack([at[1] - at[0], at[2] - at[0]])
        np.testing.assert_allclose(recovered, A, atol=1e-15)
        np.testing.assert_allclose(at[0], c, atol=1e-15)
        assert L == pytest.approx(np.linalg.norm(A, 2), rel=1e-13)
    psi, L = tanh_map(2.0)
    x = np.concatenate([np.linspace(-30.0, 30.0, 601), [1e-300, -1e-12, 0.0]])
    np.testing.assert_allclose(_inplace(psi, x), 2.0 * np.tanh(x), rtol=1e-15, atol=0)
    assert (_inplace(psi, np.array([1e-8])) / 1e-8)[0] == pytest.approx(L, rel=1e-12)  # attained at 0


def test_factories_are_cached_by_parameters():
    assert tanh_map(0.7)[0] is tanh_map(0.7)[0]
    assert linear_map(0.5, [1.0, 2.0])[0] is linear_map(0.5, np.array([1.0, 2.0]))[0]
    assert diagonal_map([1.0, 2.0])[0] is not diagonal_map([1.0, 3.0])[0]
    k = LipschitzGaussianKernel(*tanh_map(0.7), 1.0)
    assert k == LipschitzGaussianKernel(*tanh_map(0.7), 1.0) and hash(k) == hash(LipschitzGaussianKernel(*tanh_map(0.7),
                                                                                                             1.0))
    assert repr(k) == "LipschitzGaussianKernel(psi=tanh_map(L=0.7), lipschitz=0.7, sigma=1.0, dim=1)"


# ------------------------------------------------------------------------------------------------ bad input


@njit
def too_long(x):
    return np.zeros(3)


@njit
def writes_one(x, out):
    out[0] = x[0]


@njit
def returns_inf(x):
    y = np.empty(1)
    y[0] = np.inf
    return y


@njit
def returns_value(x, out):
    out[0] = x[0]
    return 1.0


def test_bad_psi():
    with pytest.raises(TypeError, match=r"from numba import njit.*@njit"):
        LipschitzGaussianKernel(py_psi, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"`psi` must be a map returning an array of shape \(2,\); got shape \(3,\)"):
        LipschitzGaussianKernel(too_long, 1.0, 1.0, dim=2)
    with pytest.raises(ValueError, match=r"`psi` must be a map writing all 2 coordinates.*out\[1\]"):
        LipschitzGaussianKernel(writes_one, 1.0, 1.0, dim=2)
    with pytest.raises(ValueError, match="writing exactly the 1 coordinates"):
        LipschitzGaussianKernel(linear_map(1.0, dim=2)[0], 1.0, 1.0)  # a map of R^2 used on R^1
    with pytest.raises(ValueError, match="`psi` must be a map with finite values"):
        LipschitzGaussianKernel(returns_inf, 1.0, 1.0)
    with pytest.raises(TypeError, match="returns None"):
        LipschitzGaussianKernel(returns_value, 1.0, 1.0)
    with pytest.raises(TypeError, match=r"psi\(x\)` or `psi\(x, out\)"):
        LipschitzGaussianKernel(njit(lambda x, out, extra: None), 1.0, 1.0)


@pytest.mark.parametrize("name", ["lipschitz", "sigma"])
@pytest.mark.parametrize("value", [0.0, -1.0, np.nan, np.inf])
def test_bad_lipschitz_and_sigma(name, value):
    args = {"lipschitz": 1.0, "sigma": 1.0, name: value}
    with pytest.raises(ValueError, match=f"`{name}` must be"):
        LipschitzGaussianKernel(halve, args["lipschitz"], args["sigma"])


def test_bad_dimensions_and_projections():
    psi, L = tanh_map(1.0)
    with pytest.raises(IncompatibleSpaces, match=r"R\^3.*R\^2"):
        LipschitzGaussianKernel(psi, L, 1.0, projection=Ball(3, 1.0), dim=2)
    with pytest.raises(TypeError, match="`projection`"):
        LipschitzGaussianKernel(psi, L, 1.0, projection="ball")
    with pytest.raises(ValueError, match="`dim` must be an integer >= 1"):
        LipschitzGaussianKernel(psi, L, 1.0, dim=0)
    one, two = LipschitzGaussianKernel(psi, L, 1.0), LipschitzGaussianKernel(psi, L, 1.0, dim=2)
    with pytest.raises(IncompatibleSpaces, match=r"R\^1.*R\^2"):
        sample_chain([one, two], np.zeros(3), rng=0)
    with pytest.raises(IncompatibleSpaces):
        one >> two
    with pytest.raises(TypeError, match="`kernels` must be"):
        sample_chain([one, Chain((one, one))], np.zeros(3), rng=0)
    with pytest.raises(ValueError, match="`x` must be points of R\\^2"):
        two.sample(np.zeros((4, 3)), rng=0)
    with pytest.raises(ValueError, match="`r` must be an integer >= 1"):
        one.sample_steps(np.zeros(3), 0, rng=0)
    with pytest.raises(TypeError, match="`r`"):
        one.sample_steps(np.zeros(3), 1.5, rng=0)


def test_bad_map_parameters():
    with pytest.raises(ValueError, match="`L` must be > 0"):
        linear_map(0.0)
    with pytest.raises(ValueError, match="`isometry` must be orthogonal"):
        linear_map(1.0, isometry=[[1.0, 0.1], [0.0, 1.0]])
    with pytest.raises(ValueError, match="`c` must be a scalar or a vector of length 2"):
        linear_map(1.0, [1.0, 2.0, 3.0], isometry=np.eye(2))
    with pytest.raises(ValueError, match="`L` must be > 0 and finite"):
        tanh_map(np.inf)
    with pytest.raises(ValueError, match="`a` must be a vector with at least one non-zero entry"):
        diagonal_map([0.0, 0.0])
    with pytest.raises(ValueError, match="`H` must be a symmetric matrix"):
        gradient_step_map([[1.0, 1.0], [0.0, 1.0]], 0.1)
    with pytest.raises(ValueError, match="`eta` must be > 0"):
        gradient_step_map([[1.0]], -0.1)


@pytest.mark.parametrize("rng, error", [(-1, ValueError), (True, TypeError), (1.5, TypeError), ("7", TypeError)])
def test_bad_rng(rotation, rng, error):
    kernel = LipschitzGaussianKernel(*rotation, 0.4, dim=2)
    with pytest.raises(error, match="`rng` must be"):
        kernel.sample(np.zeros((3, 2)), rng=rng)
