"""The scenarios of BBGG-T6-1D: BBGG-T6 for a user's one-dimensional SDE, certified from its coefficients.

- BBGG-T6-1D: ``SDE(drift, diffusion, dim=1)`` as a user writes it (double well u = x − x³, or OU u = −x; v = √2)
  in a plain `DiffusionSemigroup`. The BBGG-T6 rule's alpha Lambda(t) (spectral grids of the generator plus the
  measured grid error, `markovdp.diffusions.spectral_1d`) against: for OU, the exact Rényi divergence alpha
  Lambda_C7(t) (BBGG-C7 is tight); for the double well, the Rényi divergence of the finest grid chain's two laws
  at the worst pair (an approximation of the exact value); and the binned Monte Carlo lower limit of Euler–Maruyama
  paths (dt = T6_DT) from the worst pair.
- BBGG-T6-1D-hockey-stick: the same certificate converted to delta(eps) (STD-RDP2DP), against the grid chain's
  hockey-stick and the split-sample Monte Carlo.

numba and scipy are imported only when a scenario is evaluated; the grids and the certificate are cached per
process (one eigen-decomposition per SDE, grid and time).
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..diffusions.general import DiffusionSemigroup
from ..diffusions.intrinsic_sensitivity import ou_intrinsic_sensitivity
from ..diffusions.sde import SDE
from ..guarantees.types import NotApplicable
from ..mechanisms.diffusion import DiffusionMechanism
from .catalogue import N_EDGES, tightness
from .catalogue_bbgg4 import RENYI_EDGES
from .scenario import Scenario, ScenarioVariable

#: The L2 sensitivity (neighbouring query values at distance 1).
SENSITIVITY = 1.0
#: The user SDEs: dX = u(X) dt + √2 dW with u = x − x³ (double well) or u = −x (OU, theta = rho = 1).
SDES = ("double_well", "ou")
#: Euler–Maruyama step of the sampled paths (weak error O(dt), far below the Monte Carlo's CI width).
T6_DT = 2e-3
#: Grid nodes below this fraction of their row's peak are left out of the grid chain's divergences (rounding).
GRID_FLOOR = 1e-12

COORDINATES = {
    "sde": ("the user SDE dX = u dt + sqrt(2) dW (double_well: u = x − x³; ou: u = −x)", "1"),
    "t": ("diffusion time t of the mechanism", "1"),
    "alpha": ("Rényi order alpha", "1"),
    "eps": ("privacy level eps", "nats"),
}


@cache
def user_sde(sde: str) -> SDE:
    """The `SDE` as a user writes it, compiled once per process (numba imported here only)."""
    from numba import njit

    if sde == "double_well":
        drift = njit(lambda x: x - x**3)
    elif sde == "ou":
        drift = njit(lambda x: -x)
    else:
        raise ValueError(f"`sde` must be one of {SDES}; got {sde!r}.")
    return SDE(drift, njit(lambda x: math.sqrt(2.0) * np.ones(1)), 1)


def mechanism(sde: str, t: float, **_: Any) -> DiffusionMechanism:
    return DiffusionMechanism(DiffusionSemigroup(user_sde(sde), dt=T6_DT), t, SENSITIVITY)


@lru_cache(maxsize=64)
def certificate(sde: str, t: float) -> Any:
    """The BBGG-T6 rule's bound (or NotApplicable) for the mechanism at time t, once per process."""
    from ..guarantees.registry import certify

    return certify(mechanism(sde, t), rules=["BBGG-T6"]).candidates["BBGG-T6"]


def _value(point: dict, read: Any) -> tuple[float, str, dict[str, float]]:
    bound = certificate(point["sde"], point["t"])
    found = math.nan if isinstance(bound, NotApplicable) else float(read(bound))
    return found, "BBGG-T6", {"BBGG-T6": found}


def renyi_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """alpha Lambda(t) of the BBGG-T6 rule (route spectral-1d)."""
    return _value(point, lambda bound: bound.renyi(point["alpha"]))


def delta_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """The BBGG-T6 rule's STD-RDP2DP profile at eps."""
    return _value(point, lambda bound: bound.delta(point["eps"]))


def pair(sde: str, t: float, **_: Any) -> tuple[float, float]:
    """The worst pair (x, x + Δ) of the certificate (the pair the Monte Carlo samples)."""
    bound = certificate(sde, t)
    return (-0.5, 0.5) if isinstance(bound, NotApplicable) else tuple(bound.inputs["worst_pair"])


def _grid_laws(sde: str, t: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """P_t(x, ·), P_t(x', ·) of the finest grid chain at the worst pair (probabilities on its nodes)."""
    from ..diffusions.spectral_1d import spectral_grids

    finest = spectral_grids(user_sde(sde), SENSITIVITY, t)[-1]
    x, x_prime = pair(sde, t)
    return finest.transition(t, x), finest.transition(t, x_prime)


def renyi_exact(point: dict) -> float:
    """OU: alpha Lambda_C7(t), the exact Rényi divergence (BBGG-C7 is tight). Double well: the Rényi divergence of
    the finest grid chain's two laws over the nodes above GRID_FLOOR of their peaks (an approximation)."""
    alpha = point["alpha"]
    if point["sde"] == "ou":
        return alpha * ou_intrinsic_sensitivity(1.0, 1.0, SENSITIVITY, point["t"])
    from scipy.special import logsumexp

    p, q = _grid_laws(point["sde"], point["t"])
    keep = (p >= GRID_FLOOR * p.max()) & (q >= GRID_FLOOR * q.max())
    return float(logsumexp(alpha * np.log(p[keep]) + (1.0 - alpha) * np.log(q[keep]))) / (alpha - 1.0)


def delta_exact(point: dict) -> float:
    """delta(eps) of the finest grid chain's two laws at the worst pair (an approximation of the SDE's)."""
    p, q = _grid_laws(point["sde"], point["t"])
    return float(np.maximum(p - math.exp(point["eps"]) * q, 0.0).sum())


def bins(sde: str, t: float, **point: Any) -> NDArray[np.float64]:
    return np.linspace(-3.0, 3.0, RENYI_EDGES if "alpha" in point else N_EDGES)


def _input(name: str) -> Any:
    def compute(point: dict, values: dict) -> float:
        bound = certificate(point["sde"], point["t"])
        return math.nan if isinstance(bound, NotApplicable) else float(bound.inputs[name])

    return compute


def grid_error(point: dict, values: dict) -> float:
    return _input("grid_error")(point, values)


def c7_excess(point: dict, values: dict) -> float:
    """OU: Lambda of the rule − Lambda_C7 (>= 0, and <= 1e-4 on the grid); NaN for the double well."""
    if point["sde"] != "ou":
        return math.nan
    return _input("intrinsic_sensitivity")(point, values) - ou_intrinsic_sensitivity(1.0, 1.0, SENSITIVITY,
                                                                                      point["t"])


BBGG_T6_1D = Scenario(
    name="BBGG-T6-1D",
    theory_id="BBGG-T6-1D",
    description="A user's SDE(drift, diffusion, dim=1) in a DiffusionSemigroup (double well u = x − x³, or OU u = −x; "
                "v = sqrt(2)): the BBGG-T6 rule's alpha Lambda(t) from spectral grids of the generator plus the "
                "measured grid error, against the exact Rényi divergence (OU: alpha Lambda_C7) or the finest grid "
                "chain's (double well), and the binned Monte Carlo lower limit of Euler–Maruyama paths from the "
                "worst pair.",
    grid_full={"sde": SDES, "t": (0.25, 0.5, 1.0), "alpha": (1.5, 2.0, 4.0, 8.0)},
    grid_quick={"sde": ("double_well",), "t": (0.5,), "alpha": (1.5, 2.0, 4.0)},
    pipeline=mechanism,
    bound=renyi_bound,
    exact=renyi_exact,
    pair=pair,
    estimator="continuous",
    bins=bins,
    coordinates=COORDINATES,
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness),
               "grid_error": ScenarioVariable("grid error of Lambda accounted for (refinement)", "nats", grid_error),
               "c7_excess": ScenarioVariable("Lambda − Lambda_C7 (OU only; >= 0)", "nats", c7_excess)},
)

BBGG_T6_1D_HOCKEY_STICK = Scenario(
    name="BBGG-T6-1D-hockey-stick",
    theory_id="BBGG-T6-1D",
    description="The BBGG-T6-1D certificate of the double-well user SDE converted to delta(eps) (STD-RDP2DP), against "
                "the finest grid chain's hockey-stick at the worst pair and the split-sample Monte Carlo of "
                "Euler–Maruyama paths.",
    grid_full={"sde": SDES, "t": (0.25, 0.5, 1.0), "eps": (0.0, 0.5, 1.0)},
    grid_quick={"sde": ("double_well",), "t": (0.5,), "eps": (0.0, 0.5)},
    pipeline=mechanism,
    bound=delta_bound,
    exact=delta_exact,
    pair=pair,
    estimator="continuous",
    bins=bins,
    coordinates=COORDINATES,
    variables={"tightness": ScenarioVariable("tightness ratio exact / certified bound", "1", tightness)},
)

T6_1D_SCENARIOS = (BBGG_T6_1D, BBGG_T6_1D_HOCKEY_STICK)

__all__ = ["T6_1D_SCENARIOS"]
