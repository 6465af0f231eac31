"""Gradient diffusions dX = −V'(X) dt + √2 dW on R with a grid transition density (BBGG-S, BBGG-A, BBGG-T6).

`GradientDiffusion` is sampled by integration (a `DiffusionSemigroup`) and carries the hooks of the numerical
BBGG-T6 route — the transition density of a grid discretisation of its generator, the carré du champ and the
pair attaining the sup over neighbours — so that `certify` bounds its diffusion mechanism. The potentials are
named (`POTENTIALS`); "harmonic" is the OU semigroup with theta = rho = 1, where the grid meets the closed forms.
numba and scipy.linalg are imported only when a potential's SDE or spectrum is first built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_positive, check_range, fail
from .general import DiffusionSemigroup
from .sde import SDE
from .solvers import EulerMaruyama

#: V of dX = −V'(X) dt + sqrt(2) dW, by name (each even: V(−x) = V(x)); "harmonic" (V = x²/2) is the OU semigroup
#: with theta = rho = 1, where the grid and the numerical BBGG-T6 meet the closed forms of BBGG-OU and BBGG-C7.
POTENTIALS = ("double_well", "quartic", "harmonic")
#: The grid of the transition density: nodes k h on [−GRID_HALF_WIDTH, GRID_HALF_WIDTH] (e^(−V) <= e^(−143) at the
#: ends, so the reflecting walls of the grid chain change no probability above rounding).
GRID_HALF_WIDTH, GRID_STEP = 5.0, 0.025
#: |y| up to which log p_t(x, y) is interpolated.
INTERPOLATION_HALF_WIDTH = 3.5
#: Node probabilities below this fraction of the row's largest are not trusted (the spectral sum's rounding is
#: ~1e-16 of it): `log_density` refuses a y that needs one, rather than return a log of rounding noise.
RELIABLE_FRACTION = 1e-12
#: Euler–Maruyama step of the sampled diffusion (weak error O(dt), far below the Monte Carlo's CI width).
T6_DT = 2e-3


def potential(name: str, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """V(x): double_well x⁴/4 − x²/2 (wells at ±1), quartic x⁴/4, harmonic x²/2."""
    if name == "double_well":
        return 0.25 * x**4 - 0.5 * x**2
    if name == "quartic":
        return 0.25 * x**4
    if name == "harmonic":
        return 0.5 * x**2
    raise ValueError(f"`potential` must be one of {POTENTIALS}; got {name!r}.")


@cache
def gradient_sde(name: str) -> Any:
    """The `SDE` dX = −V'(X) dt + sqrt(2) dW, its maps compiled once per process (numba imported here only)."""
    from numba import njit

    if name not in POTENTIALS:
        raise ValueError(f"`potential` must be one of {POTENTIALS}; got {name!r}.")
    linear, cubic = {"double_well": (1.0, -1.0), "quartic": (0.0, -1.0), "harmonic": (-1.0, 0.0)}[name]

    @njit
    def drift(x: np.ndarray, out: np.ndarray) -> None:  # −V'(x) = linear x + cubic x³
        out[0] = linear * x[0] + cubic * x[0] ** 3

    @njit
    def diffusion(x: np.ndarray, out: np.ndarray) -> None:
        out[0] = math.sqrt(2.0)

    return SDE(drift, diffusion, 1)


@dataclass(frozen=True)
class GradientDiffusion(DiffusionSemigroup):
    """dX = −V'(X) dt + sqrt(2) dW on R (BBGG-S, BBGG-A): sampled by integration (`DiffusionSemigroup`), with the
    transition density of a grid discretisation of its generator, so that the numerical BBGG-T6 route applies.

    The generator L f = f'' − V' f' is discretised on the nodes z_k = k h of [−GRID_HALF_WIDTH, GRID_HALF_WIDTH] as
    the nearest-neighbour jump chain with rates h⁻² e^(−(V(z_j) − V(z_i))/2) (the square-root approximation: second
    order consistent, reversible w.r.t. e^(−V) as BBGG-A(2) asks). Its symmetrisation is tridiagonal with constant
    off-diagonal h⁻², so e^(tL_h) = D^(−1/2) U e^(t mu) Uᵀ D^(1/2) from one `eigh_tridiagonal`; p_t(x, z_k) is
    e^(tL_h)[x, k]/h, and `log_density` interpolates its log in y by the cubic through the 4 nearest nodes.
    Gamma(f, g) = f'g' (½ v² = 1). Invariant law ∝ e^(−V) (BBGG-A(1)). `sde` must be ``gradient_sde(potential)``
    (build it with `gradient_semigroup`). Checked against the OU closed forms on the harmonic potential
    (tests/test_catalogue_diffusions.py): density within 2e-4 of its peak, Lambda(t) within 1e-3.
    """

    potential: str = "double_well"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.potential not in POTENTIALS:
            raise fail("potential", f"one of {POTENTIALS}", repr(self.potential))
        if self.sde is not gradient_sde(self.potential):
            raise fail("sde", f"gradient_sde({self.potential!r}), the SDE of the potential", repr(self.sde))

    def nodes(self) -> NDArray[np.float64]:
        return _spectrum(self.potential)[0]

    def transition(self, t: float, x: float) -> NDArray[np.float64]:
        """P_t(x, {z_k}) of the grid chain for a node x: probabilities over `nodes()` (sum 1 up to rounding)."""
        return _transition(self.potential, check_positive("t", t), _node(x))

    def log_density(self, t: float, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """log p_t(x, y) w.r.t. Lebesgue for one node x (a multiple of GRID_STEP) and points y, |y| <= 3.5.

        Raises ValueError for a y whose neighbouring nodes carry probabilities below RELIABLE_FRACTION of the
        largest (far tails at small t), where the grid's value would be rounding noise.
        """
        half = INTERPOLATION_HALF_WIDTH
        ys = np.asarray(check_range("y", y, low=-half, high=half, allowed=f"points in [−{half}, {half}]"), float)
        out = _interpolated(_log_row(self.potential, check_positive("t", t), _node(x)), ys)
        if not np.all(np.isfinite(out)):
            where = np.asarray(ys).reshape(-1)[~np.isfinite(out.reshape(-1))][0]
            raise fail("y", f"points where P_t(x, ·) is above the grid's rounding (t = {t!r}, x = {_node(x)!r})",
                       float(where))
        return out

    def log_density_domain(self) -> tuple[float, float]:
        """The y where `log_density` is defined (the interpolation range): BBGG-T6's default box is clipped to it."""
        return -INTERPOLATION_HALF_WIDTH, INTERPOLATION_HALF_WIDTH

    def carre_du_champ(self, f: Any, g: Any = None) -> Any:
        """Gamma(f, g) = f' g' as a callable y ↦ Gamma(f, g)(y), by central differences of vectorised f and g."""

        def derivative(fn: Any, y: NDArray[np.float64]) -> NDArray[np.float64]:
            step = 1e-4 * np.maximum(1.0, np.abs(y))
            return (np.asarray(fn(y + step)) - np.asarray(fn(y - step))) / (2.0 * step)

        def gamma(y: ArrayLike) -> NDArray[np.float64]:
            ys = np.asarray(y, dtype=np.float64)
            df = derivative(f, ys)
            return df * (df if g is None else derivative(g, ys))

        return gamma

    def sensitivity_pairs(self, sensitivity: float) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """The pair (−Δ/2, Δ/2) (grid nodes) taken by BBGG-T6 as the sup over neighbours.

        Not proven: a scan of x in {−Δ/2, −Δ/4, 0, Δ/4, Δ/2} for the pairs (x, x + Δ), Δ = 1, t in {0.25, 0.5, 1}
        and both potentials found the symmetric pair's Lambda largest (V is even and its drift weakest at 0), and
        the other pairs cost 5-30 s each. So the bound is BBGG-T6's for this pair, not a proven sup over all of R.
        The exact Rényi divergences of some other pairs ((−0.25, 0.75), (0, 1)) exceed the symmetric pair's, so the
        scenario BBGG-T6-grid-renyi checks the largest over six pairs against alpha Lambda of this one.
        """
        half = 0.5 * check_positive("sensitivity", sensitivity)
        return [(np.array([_node(-half)]), np.array([_node(half)]))]


def _node(x: ArrayLike) -> float:
    """x as a node k GRID_STEP of the grid (ValueError if it is not one)."""
    value = float(np.asarray(x, dtype=np.float64).reshape(()))
    k = round(value / GRID_STEP)
    if not (abs(value - k * GRID_STEP) <= 1e-9 and abs(value) <= GRID_HALF_WIDTH - 1.0):
        raise fail("x", f"a multiple of {GRID_STEP} in [−{GRID_HALF_WIDTH - 1.0}, {GRID_HALF_WIDTH - 1.0}] (a grid "
                        f"node)", value)
    return k * GRID_STEP


@cache
def _spectrum(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(nodes z, V(z), eigenvalues mu, eigenvectors U) of the symmetrised grid generator."""
    from scipy.linalg import eigh_tridiagonal

    z = np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, round(2.0 * GRID_HALF_WIDTH / GRID_STEP) + 1)
    v = potential(name, z)
    up = np.exp(-0.5 * np.diff(v)) / GRID_STEP**2  # rate z_k → z_(k+1)
    down = np.exp(0.5 * np.diff(v)) / GRID_STEP**2  # rate z_(k+1) → z_k
    diagonal = np.zeros(z.size)
    diagonal[:-1] -= up
    diagonal[1:] -= down
    mu, u = eigh_tridiagonal(diagonal, np.full(z.size - 1, GRID_STEP**-2))
    return z, v, mu, u


@lru_cache(maxsize=4096)
def _transition(name: str, t: float, x: float) -> NDArray[np.float64]:
    z, v, mu, u = _spectrum(name)
    k = int(np.argmin(np.abs(z - x)))
    row = (u[k] * np.exp(t * (mu - mu[-1]))) @ u.T  # mu[-1] = 0 up to rounding: the invariant mode
    return np.maximum(row * np.exp(0.5 * (v[k] - v)), 0.0)


@lru_cache(maxsize=4096)
def _log_row(name: str, t: float, x: float) -> NDArray[np.float64]:
    """log p_t(x, z_k) = log(P_t(x, {z_k})/h) at every node; −inf where P_t(x, {z_k}) < RELIABLE_FRACTION max."""
    row = _transition(name, t, x)
    with np.errstate(divide="ignore"):
        return np.where(row >= RELIABLE_FRACTION * row.max(), np.log(row / GRID_STEP), -np.inf)


def _interpolated(values: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """The cubic through the 4 nodes around each y (error O(h⁴) in value, O(h³) in slope), vectorised."""
    position = (y + GRID_HALF_WIDTH) / GRID_STEP
    k = np.clip(np.floor(position).astype(np.int64), 1, values.size - 3)
    u = position - k  # in [0, 1) between nodes k and k + 1
    w = (-u * (u - 1.0) * (u - 2.0) / 6.0, (u + 1.0) * (u - 1.0) * (u - 2.0) / 2.0,
         -(u + 1.0) * u * (u - 2.0) / 2.0, (u + 1.0) * u * (u - 1.0) / 6.0)
    with np.errstate(invalid="ignore"):  # 0 · (−inf) at an untrusted node: NaN, refused by the caller
        return w[0] * values[k - 1] + w[1] * values[k] + w[2] * values[k + 1] + w[3] * values[k + 2]


def gradient_semigroup(potential: str) -> GradientDiffusion:
    return GradientDiffusion(gradient_sde(potential), EulerMaruyama(), T6_DT, potential=potential)


__all__ = ["POTENTIALS", "GradientDiffusion", "gradient_sde", "gradient_semigroup", "potential"]
