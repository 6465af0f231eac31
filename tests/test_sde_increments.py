"""`simulate(..., increments=...)`: given Brownian increments drive every solver (issue 15 §4).

Checked against the seeded draws (the increments sqrt(h) · fill_normals of the documented layout reproduce the
seeded paths bit for bit, as the kernel forms sqrt(h) · Z itself), against a hand-written numpy Euler–Maruyama loop
on the same increments, and against sdeint's itoEuler; a Generator passed along is not advanced.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

import markovdp as md
from markovdp._fast_normal import fill_normals
from markovdp.diffusions.simulate import BLOCK_PATHS, block_state, root_seed, simulate


@numba.njit
def drift(x, out):
    out[0] = -x[0] + 0.3 * math.sin(x[1])
    out[1] = -2.0 * x[1] + 0.1 * x[0]


@numba.njit
def diagonal(x, out):
    out[0] = 1.0 + 0.2 * math.tanh(x[0])
    out[1] = 0.5 + 0.1 * math.cos(x[1])


@numba.njit
def general(x, out):  # (2, 3)
    out[0, 0] = 1.0
    out[0, 1] = 0.2 * math.tanh(x[1])
    out[0, 2] = 0.0
    out[1, 0] = 0.1
    out[1, 1] = 0.0
    out[1, 2] = 0.5 + 0.1 * math.cos(x[0])


SDE_DIAGONAL = md.SDE(drift, diagonal, 2)
SDE_GENERAL = md.SDE(drift, general, 2, noise="general", noise_dim=3)
SLOW = pytest.mark.slow  # each case compiles two integrators (~1.5 s each); EM-general's given loop runs below
CASES = [pytest.param(SDE_DIAGONAL, md.EulerMaruyama(), id="EM-diagonal"),
         pytest.param(SDE_DIAGONAL, md.Milstein(), id="Milstein", marks=SLOW),
         pytest.param(SDE_GENERAL, md.EulerMaruyama(), id="EM-general", marks=SLOW)]
T1, DT = 1.0, 0.05
SAVE = np.array([0.1, 0.37, 0.5])  # stretches of lengths 0.1, 0.27, 0.13, 0.5: step sizes 0.05, 0.045, 0.0433.., 0.05


def grid_steps(save_at: np.ndarray | None) -> np.ndarray:
    """The step size of every step of simulate's grid (the stretches cut into ceil(length/dt) equal steps)."""
    bounds = np.concatenate([[0.0], [] if save_at is None else save_at, [T1]])
    sizes = []
    for length in np.diff(bounds):
        k = max(1, math.ceil(length / DT - 1e-9))
        sizes += [length / k] * k
    return np.array(sizes)


def seeded_increments(seed: int, n: int, h: np.ndarray, m: int) -> np.ndarray:
    """sqrt(h_s) · Z[i, s] with Z the documented layout: block b's stream fill_normals into (paths, S, m)."""
    root = root_seed(seed)
    z = np.empty((n, h.size, m))
    for b, start in enumerate(range(0, n, BLOCK_PATHS)):
        block = z[start:start + BLOCK_PATHS]
        fill_normals(block_state(root, b), block)
    return np.sqrt(h)[None, :, None] * z


@pytest.mark.parametrize(("sde", "solver"), CASES)
@pytest.mark.parametrize("save_at", [pytest.param(None, id="no-save"), pytest.param(SAVE, id="save-at")])
def test_the_seeds_increments_give_the_seeded_paths_bit_for_bit(sde, solver, save_at):
    n = BLOCK_PATHS + 20  # two blocks
    h = grid_steps(save_at)
    seeded = simulate(sde, solver, [0.3, -0.2], n_paths=n, t1=T1, dt=DT, rng=11, save_at=save_at)
    dw = seeded_increments(11, n, h, sde.noise_dim)
    gen = np.random.default_rng(5)
    before = gen.bit_generator.state
    given = simulate(sde, solver, [0.3, -0.2], n_paths=n, t1=T1, dt=DT, rng=gen, save_at=save_at, increments=dw)
    assert gen.bit_generator.state == before  # no randomness consumed
    if save_at is None:
        assert np.array_equal(given, seeded)
    else:
        assert np.array_equal(given.values, seeded.values)
        assert given.attrs["seed_entropy"] == "given increments"


def numpy_euler_maruyama(sde_diffusion, general_noise: bool, x0: np.ndarray, dw: np.ndarray,
                         h: np.ndarray) -> np.ndarray:
    """X_{s+1} = X_s + u(X_s) h_s + v(X_s) ΔW_s, path by path, in plain numpy (the maps' py_funcs)."""
    out = np.empty_like(x0)
    for i in range(x0.shape[0]):
        x = x0[i].copy()
        for s in range(h.size):
            u = np.empty(2)
            drift.py_func(x, u)
            v = np.empty((2, 3) if general_noise else 2)
            sde_diffusion.py_func(x, v)
            x = x + u * h[s] + (v @ dw[i, s] if general_noise else v * dw[i, s])
        out[i] = x
    return out


@pytest.mark.parametrize(("sde", "general_noise"), [pytest.param(SDE_DIAGONAL, False, id="diagonal"),
                                                    pytest.param(SDE_GENERAL, True, id="general")])
def test_euler_maruyama_on_given_increments_is_the_plain_loop(sde, general_noise):
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((7, 2))
    h = grid_steps(None)
    dw = np.sqrt(h)[None, :, None] * rng.standard_normal((7, h.size, sde.noise_dim))
    got = simulate(sde, md.EulerMaruyama(), x0, t1=T1, dt=DT, increments=dw)
    want = numpy_euler_maruyama(sde.diffusion, general_noise, x0, dw, h)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    h = grid_steps(SAVE)  # unequal steps: the saved state at t = 0.5 is the loop over the steps up to 0.5
    before = int(np.searchsorted(np.cumsum(h), 0.5 + 1e-12))
    dw = np.sqrt(h)[None, :, None] * rng.standard_normal((7, h.size, sde.noise_dim))
    got = simulate(sde, md.EulerMaruyama(), x0, t1=T1, dt=DT, save_at=SAVE, increments=dw)
    want = numpy_euler_maruyama(sde.diffusion, general_noise, x0, dw[:, :before], h[:before])
    np.testing.assert_allclose(got.sel(time=0.5).values, want, rtol=1e-13, atol=1e-13)


def test_sdeint_on_given_increments_agrees_with_numba():
    rng = np.random.default_rng(4)
    h = grid_steps(None)
    dw = np.sqrt(h)[None, :, None] * rng.standard_normal((3, h.size, 2))
    numba_paths = simulate(SDE_DIAGONAL, md.EulerMaruyama(), np.zeros(2), n_paths=3, t1=T1, dt=DT, increments=dw)
    sdeint_paths = simulate(SDE_DIAGONAL, md.EulerMaruyama(), np.zeros(2), n_paths=3, t1=T1, dt=DT, increments=dw,
                            backend="sdeint")
    np.testing.assert_allclose(sdeint_paths, numba_paths, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("bad", "error"), [(np.zeros((4, 19, 2)), ValueError), (np.zeros((4, 20)), ValueError),
                                            (np.full((4, 20, 2), np.nan), ValueError),
                                            (np.full((4, 20, 2), np.inf), ValueError), ("x", TypeError)])
def test_bad_increments_are_refused_naming_the_parameter(bad, error):
    with pytest.raises(error, match="`increments` must be"):
        simulate(SDE_DIAGONAL, md.EulerMaruyama(), np.zeros(2), n_paths=4, t1=T1, dt=DT, increments=bad)
