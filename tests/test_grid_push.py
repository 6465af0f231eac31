"""The general 1-D push on a grid (`grid_push`) and its stated sup-norm CDF error bound.

Held against closed forms: Gaussian * Gaussian = Gaussian, Laplace * Laplace = LaplaceSum (whose CDF is itself
checked against the textbook form in tests/test_laplace_sum.py), an empirical law * Gaussian = a mixture of
Gaussian CDFs, and Normal * Laplace by scipy quadrature of E G(y − X). The actual error (max over a dense set of
points, on and between the nodes and beyond the grid) must be <= the stated bound, and the bound within 100x of
it at the default grid for comparable scales.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

import markovdp as md
from markovdp.distributions.laplace_sum import LaplaceSum
from markovdp.operators.grid_push import GridLaw, ShiftNoise, grid_push, shift_noise


def sup_error(law: GridLaw, truth) -> float:
    """max |law.cdf − truth| over 2e5 points spanning the grid and beyond, plus every node and midpoint."""
    y = np.concatenate([np.linspace(law.grid[0] - 5.0, law.grid[-1] + 5.0, 200_001), law.grid,
                        (law.grid[1:] + law.grid[:-1]) / 2.0])
    return float(np.max(np.abs(law.cdf(y) - truth(y))))


CASES = [
    ("N(0.3, 1) * N(0, 1)", md.Normal(0.3, 1.0), md.GaussianKernel(1.0),
     lambda y: special.ndtr((y - 0.3) / math.sqrt(2))),
    ("N(0, 0.5) * N(0, 1)", md.Normal(0.0, 0.5), md.GaussianKernel(1.0),
     lambda y: special.ndtr(y / math.hypot(0.5, 1.0))),
    ("Lap(0.3, 1) * Lap(1)", md.Laplace(0.3, 1.0), md.LaplaceKernel(1.0), LaplaceSum(0.3, 1.0, 1.0).cdf),
    ("Lap(0, 0.5) * Lap(2)", md.Laplace(0.0, 0.5), md.LaplaceKernel(2.0), LaplaceSum(0.0, 0.5, 2.0).cdf),
    ("Lap(0, 1) * Lap(0.7)", md.Laplace(0.0, 1.0), md.LaplaceKernel(0.7), LaplaceSum(0.0, 1.0, 0.7).cdf),
]


@pytest.mark.parametrize(("name", "mu", "kernel", "truth"), CASES, ids=[c[0] for c in CASES])
def test_stated_bound_holds_and_is_within_100x_at_the_default_grid(name, mu, kernel, truth):
    law = grid_push(mu, kernel)
    actual = sup_error(law, truth)
    assert actual <= law.error_bound
    assert law.error_bound <= 100.0 * actual
    assert law.error_bound < 1e-5
    assert law.error_bound == pytest.approx(sum(law.terms.values()), rel=1e-12)


def test_bound_is_second_order_in_the_step_and_holds_at_coarse_grids():
    mu, kernel, truth = md.Laplace(0.3, 1.0), md.LaplaceKernel(1.0), LaplaceSum(0.3, 1.0, 1.0).cdf
    bounds = []
    for step in (0.4, 0.2, 0.1):
        law = grid_push(mu, kernel, step=step)
        assert sup_error(law, truth) <= law.error_bound
        bounds.append(law.error_bound)
    assert bounds[0] / bounds[1] == pytest.approx(4.0, rel=0.02)
    assert bounds[1] / bounds[2] == pytest.approx(4.0, rel=0.02)


def test_truncated_tails_are_in_the_bound():
    """tail = 3 drops about e^-3 of a Laplace input's mass: the bound says so and still holds."""
    law = grid_push(md.Laplace(0.0, 1.0), md.GaussianKernel(0.5), tail=3.0)
    assert law.terms["truncation"] == pytest.approx(math.exp(-3.0), rel=0.01)  # (the span ends on cell edges)
    truth = lambda y: integrate_normal_laplace(y, 0.0, 1.0, 0.5)  # noqa: E731
    y = np.linspace(-8.0, 8.0, 161)
    assert np.max(np.abs(law.cdf(y) - truth(y))) <= law.error_bound


def integrate_normal_laplace(y, loc, scale, sigma):
    """CDF of Lap(loc, scale) + N(0, sigma²) at each y: ∫ Phi((y − x)/sigma) dLap(x), scipy quad split at loc."""
    out = []
    for t in np.atleast_1d(y):
        def f(x, t=t):
            return special.ndtr((t - x) / sigma) * math.exp(-abs(x - loc) / scale) / (2 * scale)
        out.append(integrate.quad(f, -np.inf, loc, epsabs=1e-15, epsrel=1e-12)[0]
                   + integrate.quad(f, loc, np.inf, epsabs=1e-15, epsrel=1e-12)[0])
    return np.array(out)


def test_laplace_through_gaussian_kernel_matches_quadrature():
    """A push with no closed form in markovdp: Lap(0.2, 0.8) >> GaussianKernel(0.6), vs scipy quad at 41 points."""
    law = grid_push(md.Laplace(0.2, 0.8), md.GaussianKernel(0.6))
    y = np.linspace(-6.0, 6.0, 41)
    actual = np.max(np.abs(law.cdf(y) - integrate_normal_laplace(y, 0.2, 0.8, 0.6)))
    assert actual <= law.error_bound < 1e-5


def test_atomic_input_is_exact_sums():
    """An empirical law through a Gaussian kernel: the truth is the mean of Gaussian CDFs."""
    samples = np.random.default_rng(3).normal(size=50) * 2.0
    law = grid_push(md.Empirical(samples), md.GaussianKernel(0.7))
    truth = lambda y: special.ndtr((y[:, None] - samples) / 0.7).mean(axis=1)  # noqa: E731
    y = np.linspace(law.grid[0], law.grid[-1], 4001)
    assert np.max(np.abs(law.cdf(y) - truth(y))) <= law.error_bound
    assert grid_push(md.PointMass(1.0), md.LaplaceKernel(1.0)).cdf(1.0)[()] == pytest.approx(0.5, abs=1e-5)


def test_grid_law_is_a_proper_law():
    law = grid_push(md.Normal(0.0, 1.0), md.LaplaceKernel(0.5))
    assert law.cdf(law.grid[0] - 1.0)[()] == 0.0 and law.cdf(law.grid[-1] + 1.0)[()] == 1.0
    assert np.all(np.diff(law.cdf_values) >= 0.0)
    # the piecewise-constant density integrates (cell by cell) to the CDF
    mid = (law.grid[1:] + law.grid[:-1]) / 2.0
    np.testing.assert_allclose(np.cumsum(law.density(mid) * np.diff(law.grid)), law.cdf_values[1:], atol=1e-12)
    assert np.isneginf(law.log_density(law.grid[-1] + 1.0)[()])
    y = law.sample(20_000, rng=np.random.default_rng(9))
    assert stats.kstest(y, law.cdf).pvalue > 1e-3
    assert np.array_equal(law.sample(4, rng=2), law.sample(4, rng=2))
    assert "error_bound" in repr(law)
    (loc,), _ = law.quadrature_hints()
    assert abs(loc) < 1e-3


def test_a_new_kernel_joins_by_registering_its_noise():
    class Shifted(md.LaplaceKernel):
        pass

    assert shift_noise(Shifted(1.0)).scale == 1.0  # inherits the Laplace rule
    noise = ShiftNoise(cdf=special.ndtr, pdf=stats.norm.pdf, density_lipschitz=math.exp(-0.5) / math.sqrt(2 * math.pi),
                       scale=1.0)
    assert noise.density_lipschitz == pytest.approx(shift_noise(md.GaussianKernel(1.0)).density_lipschitz)


@pytest.mark.parametrize(("call", "error", "name"), [
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), step=0.0), ValueError, "step"),
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), step=float("nan")), ValueError, "step"),
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), step=1e-6), ValueError, "step"),
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), tail=0.5), ValueError, "tail"),
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), tail=float("inf")), ValueError, "tail"),
    (lambda: grid_push(md.Normal(0.0, 1.0), md.GaussianKernel(1.0), max_points=1.5), TypeError, "max_points"),
    (lambda: grid_push("N(0, 1)", md.GaussianKernel(1.0)), TypeError, "mu"),
    (lambda: grid_push(md.Normal(0.0, 1.0), "K"), TypeError, "kernel"),
    (lambda: grid_push(md.Normal([0.0, 0.0], 1.0), md.GaussianKernel(1.0)), md.IncompatibleSpaces, "mu >> K"),
    (lambda: ShiftNoise(special.ndtr, special.ndtr, 0.0, 1.0), ValueError, "density_lipschitz"),
    (lambda: ShiftNoise(special.ndtr, special.ndtr, 1.0, -1.0), ValueError, "scale"),
    (lambda: ShiftNoise("cdf", special.ndtr, 1.0, 1.0), TypeError, "cdf"),
    (lambda: GridLaw([0.0, 1.0], [0.0, 0.5], 1e-3), ValueError, "cdf_values"),
    (lambda: GridLaw([0.0, 0.0], [0.0, 1.0], 1e-3), ValueError, "grid"),
    (lambda: GridLaw([0.0, 1.0], [0.0, 1.0], float("nan")), ValueError, "error_bound"),
])
def test_bad_input_names_the_parameter(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()


def test_kernels_without_shift_noise_are_refused():
    with pytest.raises(NotImplementedError, match="Identity"):
        grid_push(md.Normal(0.0, 1.0), md.Identity(md.RealSpace(1)))
