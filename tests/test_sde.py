"""SDE integrators (STD-EulerMaruyama, STD-Milstein), the driver `simulate` and `DiffusionSemigroup` (BBGG-S).

Independent references: the exact OU transition N(e^{−θt} x0, (ρ²/θ)(1 − e^{−2θt})) (BBGG-OU) for weak errors;
the exact geometric Brownian motion x0 exp((μ − σ²/2) T + σ W_T), with W_T rebuilt from the documented normal
stream (the `markovdp._fast_normal` stream of each block's xoshiro256++ state, seeded by address), for strong
errors; sdeint's ``itoEuler`` on the same increments (path by path) and ``itoSRI2`` (in law); the exact Gaussian
law of dX = A dW for general noise. Statistical tolerances are z = 4.89 (two-sided 1e-6) times the Monte Carlo
standard error, with fixed seeds.

Compiling an integrator for a new SDE costs 1-3 s, so one diagonal SDE on R^2 carries both test problems: its
coordinate 0 is OU, its coordinate 1 is GBM (each v_k depends on x_k only: diagonal noise in the strict sense).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy import stats

from markovdp._fast_normal import fill_normals, make_state
from markovdp.diffusions.general import DiffusionSemigroup
from markovdp.diffusions.sde import SDE
from markovdp.diffusions.simulate import BLOCK_PATHS, block_state, root_prefix, simulate
from markovdp.diffusions.solvers import EulerMaruyama, Milstein
from markovdp.operators.identity import Identity
from markovdp.spaces import IncompatibleSpaces

Z = 4.89  # two-sided normal quantile for a 1e-6 false-failure rate
THETA, RHO = 1.0, 0.5  # coordinate 0, OU: dX = −θ X dt + √2 ρ dW (BBGG-OU)
MU, SIGMA = 0.5, 0.8  # coordinate 1, GBM: dX = μ X dt + σ X dW
A = np.array([[1.0, 0.5, 0.0], [0.0, 0.3, 0.7]])  # general noise: dX = A dW, W in R^3


@njit
def pair_drift(x, out):  # the in-place signature f(x, out)
    out[0] = -THETA * x[0]
    out[1] = MU * x[1]


@njit
def pair_diffusion(x, out):
    out[0] = math.sqrt(2.0) * RHO
    out[1] = SIGMA * x[1]


@njit
def zero_drift(x, out):
    for k in range(x.size):
        out[k] = 0.0


@njit
def matrix_diffusion(x):  # the returning signature f(x) -> new array
    return A.copy()


@njit
def matrix_inplace(x, out):
    for i in range(2):
        for j in range(3):
            out[i, j] = A[i, j]


@njit
def wrong_shape(x):
    return np.zeros(x.size + 1)


@njit
def writes_past(x, out):
    for k in range(x.size + 1):
        out[k] = 1.0


def plain_drift(x, out):
    out[:] = -x


PAIR = SDE(pair_drift, pair_diffusion, 2)
GENERAL = SDE(zero_drift, matrix_diffusion, 2, noise="general", noise_dim=3)


def fitted_order(h: np.ndarray, err: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of log err against log h and its standard error (delta method: sd(log err) = se/err)."""
    lh = np.log(h)
    w = (lh - lh.mean()) / ((lh - lh.mean()) ** 2).sum()
    return float(w @ np.log(err)), float(np.sqrt((w**2 * (se / err) ** 2).sum()))


def block_normals(seed: int, n: int, steps: int, m: int) -> np.ndarray:
    """The documented stream: block b's xoshiro256++ state (`block_state`), its `fill_normals` draws laid out as
    (paths of the block, steps, m), the blocks stacked."""
    blocks = []
    for b, start in enumerate(range(0, n, BLOCK_PATHS)):
        z = np.empty((min(BLOCK_PATHS, n - start), steps, m))
        fill_normals(block_state((seed, ()), b), z)
        blocks.append(z)
    return np.concatenate(blocks)


@pytest.mark.parametrize("solver", [EulerMaruyama(), Milstein()], ids=["EM", "Milstein"])
def test_weak_order_on_ou_against_the_exact_transition(solver) -> None:
    """STD-EulerMaruyama / STD-Milstein weak order 1 on OU (BBGG-OU): errors of E[X_T] (paths from x0 = 1) and
    E[X_T²] (paths from 0, where it is the variance) against the exact transition at dt = 1/4, 1/8, 1/16; fitted
    slope of log error vs log dt ≈ 1 within the MC error."""
    t1, n = 1.0, 100_000
    mean = math.exp(-THETA * t1)
    second = RHO**2 / THETA * (1 - math.exp(-2 * THETA * t1))
    h = np.array([0.25, 0.125, 0.0625])
    x0 = np.column_stack([np.repeat([1.0, 0.0], n), np.ones(2 * n)])
    errs, ses = [], []
    for i, dt in enumerate(h):
        x = simulate(PAIR, solver, x0, t1=t1, dt=dt, rng=100 + i)[:, 0]
        ones, zeros = x[:n], x[n:] ** 2
        errs.append([abs(ones.mean() - mean), abs(zeros.mean() - second)])
        ses.append([ones.std() / math.sqrt(n), zeros.std() / math.sqrt(n)])
    errs, ses = np.array(errs), np.array(ses)
    assert np.all(errs > Z * ses)  # the bias is resolved at every step size
    for k in range(2):
        slope, sd = fitted_order(h, errs[:, k], ses[:, k])
        # 0.15: the O(dt²) terms at these step sizes (exact EM values: slopes 1.04-1.1)
        assert abs(slope - solver.weak_order) <= 0.15 + Z * sd, (k, slope, sd)


def test_milstein_equals_euler_maruyama_for_additive_noise() -> None:
    """With v constant the Milstein correction vanishes: on the OU coordinate the two schemes agree bit for bit
    (and they differ on the GBM coordinate, where it does not)."""
    em = simulate(PAIR, EulerMaruyama(), [0.3, 1.0], n_paths=300, t1=1.0, dt=0.01, rng=5)
    mil = simulate(PAIR, Milstein(), [0.3, 1.0], n_paths=300, t1=1.0, dt=0.01, rng=5)
    np.testing.assert_array_equal(em[:, 0], mil[:, 0])
    assert not np.any(em[:, 1] == mil[:, 1])


@pytest.mark.parametrize("solver", [EulerMaruyama(), Milstein()], ids=["EM", "Milstein"])
def test_strong_order_on_gbm_with_the_same_wiener_path(solver) -> None:
    """Strong order 0.5 (EM) and 1.0 (Milstein) on dX = μX dt + σX dW: E|X_T − x0 e^{(μ−σ²/2)T + σ W_T}| with
    W_T from the same increments, at dt = 2^-4 … 2^-8, fitted slope within the MC error (+0.1 for O(dt) terms)."""
    n, t1 = 4 * BLOCK_PATHS, 1.0
    h = 2.0 ** -np.arange(4, 9)
    errs, ses = [], []
    for dt in h:
        steps = round(t1 / dt)
        x = simulate(PAIR, solver, [0.0, 1.0], n_paths=n, t1=t1, dt=dt, rng=7)[:, 1]
        w = math.sqrt(dt) * block_normals(7, n, steps, 2)[:, :, 1].sum(axis=1)
        e = np.abs(x - np.exp((MU - SIGMA**2 / 2) * t1 + SIGMA * w))
        errs.append(e.mean())
        ses.append(e.std() / math.sqrt(n))
    slope, sd = fitted_order(h, np.array(errs), np.array(ses))
    assert abs(slope - solver.strong_order) <= 0.1 + Z * sd, (slope, sd)


@pytest.mark.parametrize("sde", [PAIR, GENERAL], ids=["diagonal", "general"])
def test_euler_maruyama_equals_sdeint_itoeuler_path_by_path(sde) -> None:
    """backend="sdeint" runs sdeint.itoEuler on the increments the compiled kernel draws: the same paths up to
    rounding (an independent implementation of the same scheme), saved times included."""
    kwargs = {"n_paths": 42, "t1": 1.0, "dt": 0.05, "rng": 11, "save_at": [0.0, 0.3, 1.0]}
    ours = simulate(sde, EulerMaruyama(), [1.0, 1.0], **kwargs)
    theirs = simulate(sde, EulerMaruyama(), [1.0, 1.0], backend="sdeint", **kwargs)
    np.testing.assert_allclose(ours.values, theirs.values, rtol=1e-12, atol=1e-12)
    assert ours.dims == ("path", "time", "dim") and ours.sizes == {"path": 42, "time": 3, "dim": 2}


def test_long_paths_use_the_documented_normal_stream() -> None:
    """Paths longer than one buffer of normals (2500 steps) against a plain numpy Euler–Maruyama loop on the
    documented stream: block b's state, normals of shape (paths, steps, 2)."""
    n, steps, t1 = 5, 2500, 1.0
    dt = t1 / steps
    ours = simulate(PAIR, EulerMaruyama(), [0.5, 1.0], n_paths=n, t1=t1, dt=dt, rng=31)
    z = block_normals(31, n, steps, 2)
    x = np.tile([0.5, 1.0], (n, 1))
    for s in range(steps):
        u = np.column_stack([-THETA * x[:, 0], MU * x[:, 1]])
        v = np.column_stack([np.full(n, math.sqrt(2.0) * RHO), SIGMA * x[:, 1]])
        x = x + u * dt + v * (math.sqrt(dt) * z[:, s])
    np.testing.assert_allclose(ours, x, rtol=1e-12)


def test_milstein_agrees_with_sdeint_sri2_in_law() -> None:
    """Milstein vs sdeint's itoSRI2 (both strong order 1) on the GBM coordinate: two-sample KS test of X_T, and
    both against the exact log-normal law (KS, p > 1e-6 each; dt = 1/16, where the schemes' bias is far below
    KS's power at 200 paths)."""
    kwargs = {"n_paths": 200, "t1": 1.0, "dt": 1 / 16}
    ours = simulate(PAIR, Milstein(), [0.0, 1.0], rng=21, **kwargs)[:, 1]
    theirs = simulate(PAIR, Milstein(), [0.0, 1.0], rng=22, backend="sdeint", **kwargs)[:, 1]
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-6
    exact = stats.lognorm(s=SIGMA, scale=math.exp(MU - SIGMA**2 / 2))
    for sample in (ours, theirs):
        assert stats.kstest(sample, exact.cdf).pvalue > 1e-6


def test_general_noise_matches_the_exact_gaussian_law() -> None:
    """dX = A dW (general noise, W in R^3) from x0: X_T ~ N(x0, T A Aᵀ) exactly; sample mean and covariance
    within Z standard errors (the covariance entries' SE from the fourth moments of a Gaussian)."""
    n, t1 = 20_000, 2.0
    x = simulate(GENERAL, EulerMaruyama(), [1.0, -1.0], n_paths=n, t1=t1, dt=0.25, rng=3)
    cov = t1 * A @ A.T
    assert np.all(np.abs(x.mean(axis=0) - [1.0, -1.0]) <= Z * np.sqrt(np.diag(cov) / n))
    se = np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / n)
    assert np.all(np.abs(np.cov(x.T) - cov) <= Z * se)


def test_same_seed_same_paths_and_paths_depend_on_their_index_only() -> None:
    """Seeds are addresses: the same seed gives identical paths, for any number of worker threads; the first paths
    do not depend on how many are run; another seed or successive draws of one Generator give different paths."""
    kwargs = {"t1": 0.5, "dt": 0.05}
    a = simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=600, rng=np.random.SeedSequence(9), **kwargs)
    b = simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=600, rng=np.random.SeedSequence(9), **kwargs)
    np.testing.assert_array_equal(a, b)
    threads = simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=600, rng=np.random.SeedSequence(9), workers=2,
                       **kwargs)
    np.testing.assert_array_equal(threads, a)  # blocks are addresses: any number of threads, the same paths
    np.testing.assert_array_equal(simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=300,
                                           rng=np.random.SeedSequence(9), **kwargs), a[:300])
    assert not np.any(a == simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=600, rng=10, **kwargs))
    gen = np.random.default_rng(4)
    first, second = (simulate(PAIR, Milstein(), [0.0, 1.0], n_paths=50, rng=gen, **kwargs) for _ in range(2))
    assert not np.any(first == second)


def test_independent_blocks_are_independent() -> None:
    """No two paths are identical (a block state reused would repeat paths), and the first normals of path i
    in block b and path i in block b + 1 are uncorrelated: |r| <= Z / sqrt(pairs). One EM step of the OU
    coordinate from 0 recovers the normal: z = X_h / (√2 ρ √h)."""
    n, dt = 8 * BLOCK_PATHS, 0.01
    x = simulate(PAIR, EulerMaruyama(), [0.0, 1.0], n_paths=n, t1=dt, dt=dt, rng=2024)[:, 0]
    assert np.unique(x).size == n
    z = (x / (math.sqrt(2.0) * RHO * math.sqrt(dt))).reshape(8, BLOCK_PATHS)
    assert abs(z.mean()) <= Z / math.sqrt(n) and abs(z.var() - 1) <= Z * math.sqrt(2 / n)
    r = np.corrcoef(z[:-1].ravel(), z[1:].ravel())[0, 1]
    assert abs(r) <= Z / math.sqrt(7 * BLOCK_PATHS)


WORDS = st.integers(min_value=0, max_value=2**130)


@settings(max_examples=300, deadline=None)
@given(entropy=WORDS | st.lists(WORDS, min_size=1, max_size=6), key=st.lists(WORDS, max_size=3),
       block=st.integers(min_value=0, max_value=2**40))
def test_block_states_are_numpys_seed_sequence_by_address(entropy, key, block) -> None:
    """The numba hash of a block's address equals numpy's ``SeedSequence(entropy, spawn_key=(*key, block))
    .generate_state(4, np.uint64)`` (through `make_state`), for int and sequence entropies of any size."""
    root = (entropy, tuple(key))
    expected = make_state(np.random.SeedSequence(entropy, spawn_key=(*key, block)))
    assert root_prefix(root) is not None
    np.testing.assert_array_equal(block_state(root, block), expected)


@pytest.mark.parametrize(("backend", "workers"), [("numba", 1), ("numba", 2), ("sdeint", 1)])
def test_a_non_finite_state_stops_with_an_error_naming_path_step_and_time(backend, workers) -> None:
    """GBM from 1e308 overflows on its first steps: FloatingPointError naming the path, step and time (the
    same for any number of workers: the first failing block's)."""
    x0 = np.ones((600, 2))
    x0[300:, 1] = 1e308  # blocks 1 and 2 overflow
    match = r"path 3\d\d has a non-finite state \(NaN or inf\) after step \d+ \(t = "
    with pytest.raises(FloatingPointError, match=match):
        simulate(PAIR, EulerMaruyama(), x0[:320] if backend == "sdeint" else x0, t1=1.0, dt=0.5, rng=0,
                 backend=backend, workers=workers)


def test_save_at_grid_gives_the_final_values_and_the_start() -> None:
    """save_at on the step grid: the state at t1 equals the run without save_at (same normals), at 0 it is x0."""
    x0 = np.column_stack([np.linspace(-1.0, 1.0, 30), np.ones(30)])
    final = simulate(PAIR, EulerMaruyama(), x0, t1=1.0, dt=0.1, rng=8)
    saved = simulate(PAIR, EulerMaruyama(), x0, t1=1.0, dt=0.1, rng=8, save_at=[0.0, 0.5, 1.0])
    np.testing.assert_array_equal(saved.sel(time=1.0).values, final)
    np.testing.assert_array_equal(saved.sel(time=0.0).values, x0)
    assert final.shape == (30, 2)


def test_diffusion_semigroup_samples_the_ou_transition() -> None:
    """DiffusionSemigroup(sde).at(t) in law: the OU coordinate vs the exact OU transition (BBGG-OU), KS p > 1e-6
    (dt = 1e-3: the EM bias is ~1e-3 standard deviations); at(0) is the identity; at(t) >> at(s) merges to
    at(t + s)."""
    P = DiffusionSemigroup(PAIR, dt=1e-3)
    t, x0 = 0.7, 0.8
    y = P.at(t).sample(np.tile([x0, 1.0], (2000, 1)), rng=1)
    assert y.shape == (2000, 2)
    exact = stats.norm(math.exp(-THETA * t) * x0, math.sqrt(RHO**2 / THETA * (1 - math.exp(-2 * THETA * t))))
    assert stats.kstest(y[:, 0], exact.cdf).pvalue > 1e-6
    assert P.at(0.0) == Identity(P.space)
    assert P.at(0.3) >> P.at(0.4) == P.at(0.7)
    assert P.at(0.5).sample([0.2, 1.0], rng=0).shape == (2,)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"dt": 0.0}, ValueError, "`dt` must be > 0"),
    ({"dt": -0.1}, ValueError, "`dt` must be > 0"),
    ({"dt": 2.0}, ValueError, r"`dt` must be <= t1 = 1.0; got 2.0"),
    ({"t1": 0.0}, ValueError, "`t1` must be > 0"),
    ({"x0": [0.0, np.nan]}, ValueError, "`x0` must be"),
    ({"x0": [0.0, np.inf]}, ValueError, "`x0` must be"),
    ({"x0": np.zeros((3, 3)), "n_paths": None}, IncompatibleSpaces, r"R\^3, but the SDE is on R\^2"),
    ({"x0": np.zeros(3)}, IncompatibleSpaces, r"R\^3, but the SDE is on R\^2"),
    ({"x0": np.zeros((2, 2))}, ValueError, r"`x0` must be one point of R\^2"),
    ({"n_paths": 0}, ValueError, "`n_paths` must be an integer >= 1"),
    ({"workers": 0}, ValueError, "`workers` must be an integer >= 1"),
    ({"save_at": [0.5, 2.0]}, ValueError, r"`save_at` must be times in \[0, t1 = 1.0\]"),
    ({"save_at": [0.5, 0.2]}, ValueError, "`save_at` must be strictly increasing"),
    ({"backend": "torch"}, ValueError, "`backend` must be 'numba' or 'sdeint'"),
    ({"solver": "EM"}, TypeError, "`solver` must be a solver"),
])
def test_simulate_bad_input(kwargs, error, match) -> None:
    args = {"x0": [0.0, 1.0], "n_paths": 5, "t1": 1.0, "dt": 0.1, "rng": 0, "solver": EulerMaruyama()} | kwargs
    solver, x0 = args.pop("solver"), args.pop("x0")
    with pytest.raises(error, match=match):
        simulate(PAIR, solver, x0, **args)


def test_sde_and_semigroup_bad_input() -> None:
    """A plain function, a wrong output shape, a bad noise type, Milstein on general noise, a point of the wrong
    dimension: each a clear error naming the parameter."""
    with pytest.raises(TypeError, match="`drift` must be a numba-compiled function: .*@njit"):
        SDE(plain_drift, pair_diffusion, 2)
    with pytest.raises(ValueError, match=r"`drift` must be a function returning an array of shape \(1,\)"):
        SDE(wrong_shape, zero_drift, 1)
    with pytest.raises(ValueError, match=r"`diffusion` must be a function returning an array of shape \(2, 4\)"):
        SDE(zero_drift, matrix_diffusion, 2, noise="general", noise_dim=4)
    with pytest.raises(ValueError, match=r"`diffusion` must be a function writing exactly the entries of `out`"):
        SDE(zero_drift, writes_past, 1)
    with pytest.raises(TypeError, match=r"`diffusion` must be a function `diffusion\(x, out\)` with out of shape"):
        SDE(zero_drift, matrix_inplace, 2)  # indexes out as a (2, 3) matrix: numba cannot type it for shape (2,)
    with pytest.raises(ValueError, match="`noise` must be 'diagonal' or 'general'"):
        SDE(zero_drift, zero_drift, 1, noise="scalar")
    with pytest.raises(ValueError, match="`dim` must be an integer >= 1"):
        SDE(zero_drift, zero_drift, 0)
    with pytest.raises(ValueError, match=r"`test_point` must be a vector of shape \(1,\)"):
        SDE(zero_drift, zero_drift, 1, test_point=[1.0, 2.0])
    with pytest.raises(ValueError, match="`noise_dim` must be None or 1"):
        SDE(zero_drift, zero_drift, 1, noise_dim=2)
    with pytest.raises(NotImplementedError, match="Milstein supports noise 'diagonal' only"):
        simulate(GENERAL, Milstein(), [0.0, 0.0], n_paths=2, t1=1.0, dt=0.5, rng=0)
    with pytest.raises(ValueError, match="`dt` must be > 0"):
        DiffusionSemigroup(PAIR, dt=0.0)
    with pytest.raises(TypeError, match="`sde` must be an SDE"):
        DiffusionSemigroup(pair_drift)
    with pytest.raises(NotImplementedError, match="Milstein supports"):
        DiffusionSemigroup(GENERAL, Milstein())
    with pytest.raises(IncompatibleSpaces):
        DiffusionSemigroup(GENERAL).at(1.0).sample(np.zeros((4, 3)), rng=0)
