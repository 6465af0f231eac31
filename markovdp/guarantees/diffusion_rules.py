"""The `certify` rules of BBGG §5: BBGG-BM, BBGG-T6 and BBGG-C7 (diffusion mechanisms M_t^f = P_t(f(D))).

Each rule returns the RDP curve alpha ↦ alpha Lambda(t) (nats; inf at alpha = inf: BBGG-T6 speaks of
alpha < inf only) with its STD-RDP2DP profile (`rdp_bound`), or `NotApplicable` with the reason. A subject is a
`DiffusionMechanism` or a pipeline ``DiffusionMechanism >> K`` (the mechanism's bound holds after any K,
STD-DPI). The rules read the duck-typed attributes ``mechanism.semigroup``, ``.t``, ``.sensitivity`` and import
the classes inside the rules, so this module imports nothing but the core.

- BBGG-BM: Brownian motion, Lambda(t) = Delta²/(4t) (the Brownian example of BBGG-T6; its own ID).
- BBGG-T6: the numerical route (`semigroup_intrinsic_sensitivity`) for a semigroup with ``log_density`` and
  ``carre_du_champ`` (Brownian motion and OU decline: BBGG-BM / BBGG-C7 give the exact value),
  computed at certify time (a failure of the route is NotApplicable with its reason) and raised by its error bound;
  for a one-dimensional `DiffusionSemigroup` without those hooks, BBGG-T6-1D (spectral grids of the SDE's generator,
  `markovdp.diffusions.spectral_1d`, raised by the measured grid error).
- BBGG-C7: the Ornstein–Uhlenbeck closed form, tight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..diffusions.base import Semigroup
from ..diffusions.brownian import BrownianSemigroup
from ..diffusions.general import DiffusionSemigroup
from ..diffusions.ornstein_uhlenbeck import OrnsteinUhlenbeckSemigroup
from ..mechanisms.base import PostProcessed
from ..mechanisms.diffusion import DiffusionMechanism
from .intrinsic_sensitivity import (
    brownian_intrinsic_sensitivity,
    coordinate_carre_du_champ,
    default_y_bounds,
    intrinsic_sensitivity_with_error,
    ou_intrinsic_sensitivity,
    semigroup_log_density,
    semigroup_log_ratio_gradient,
)
from .rdp_curves import rdp_bound
from .registry import theorem
from .types import Bound, NotApplicable


def _diffusion(subject: Any, theorem_id: str) -> Any:
    """The DiffusionMechanism of `subject` (itself, or the mechanism of ``M >> K``), or NotApplicable."""
    mechanism = subject.mechanism if isinstance(subject, PostProcessed) else subject
    if not isinstance(mechanism, DiffusionMechanism):
        return NotApplicable(theorem_id, f"{theorem_id} applies to a DiffusionMechanism (or DiffusionMechanism >> K); "
                                         f"got {type(mechanism).__name__}.")
    return mechanism


def linear_rdp_curve(intrinsic: Callable[[], float]) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """alpha ↦ alpha Lambda for finite alpha, inf at alpha = inf (Lambda from `intrinsic()`, called once).

    A Lambda that is NaN or negative raises ValueError (never an RDP curve of 0)."""
    cache: list[float] = []

    def curve(alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        if not cache:
            lam = float(intrinsic())
            if not lam >= 0.0:
                raise ValueError(f"the intrinsic sensitivity Lambda must be a number >= 0 (or inf); got {lam!r}.")
            cache.append(lam)
        alpha = np.asarray(alpha, dtype=np.float64)
        finite = np.isfinite(alpha)
        slope = np.where(finite, alpha, 0.0) * cache[0] if cache[0] > 0.0 else np.zeros(alpha.shape)
        return np.where(finite, slope, np.inf)

    return curve


def _inputs(mechanism: Any, **extra: Any) -> dict[str, Any]:
    return {"t": mechanism.t, "sensitivity": mechanism.sensitivity, **extra, "semigroup": mechanism.semigroup,
            "mechanism": mechanism}


@theorem("BBGG-BM")
def bm(subject: Any) -> Bound | NotApplicable:
    """BBGG-BM: a Brownian DiffusionMechanism at time t is (alpha, alpha Delta²/(4t))-RDP (tight: N(x, 2t I)).

    The Brownian example of BBGG-T6 (`markovdp.diffusions.intrinsic_sensitivity.brownian_intrinsic_sensitivity`).
    """
    mechanism = _diffusion(subject, "BBGG-BM")
    if isinstance(mechanism, NotApplicable):
        return mechanism
    if not isinstance(mechanism.semigroup, BrownianSemigroup):
        return NotApplicable("BBGG-BM", f"BBGG-BM needs a BrownianSemigroup; got {type(mechanism.semigroup).__name__}.")
    lam = brownian_intrinsic_sensitivity(mechanism.sensitivity, mechanism.t)
    return rdp_bound("BBGG-BM", _inputs(mechanism, intrinsic_sensitivity=lam), linear_rdp_curve(lambda: lam))


def _worst_pairs(semigroup: Semigroup, sensitivity: float) -> list[tuple[NDArray[np.float64], ...]]:
    """The pairs (x, x') whose largest ∫ kappa is Lambda: the semigroup's own ``sensitivity_pairs(sensitivity)``."""
    return [(np.asarray(x, dtype=np.float64), np.asarray(xp, dtype=np.float64))
            for x, xp in semigroup.sensitivity_pairs(sensitivity)]


def _has_closed_form(semigroup: Any) -> bool:
    """Whether BBGG-BM or BBGG-C7 certifies this semigroup exactly (a `BrownianSemigroup` or an
    `OrnsteinUhlenbeckSemigroup`): then the numerical route is not needed. A user's semigroup with its own
    ``intrinsic_sensitivity`` is not enough, since no rule reads that method: T6 computes Lambda for it."""
    return isinstance(semigroup, (BrownianSemigroup, OrnsteinUhlenbeckSemigroup))


#: The BBGG-T6 hooks of `Semigroup` the numerical route cannot do without.
NEEDED_HOOKS = ("log_density", "carre_du_champ", "sensitivity_pairs")
#: Errors of the numerical route that make BBGG-T6 NotApplicable (with the message) rather than fail certify.
ROUTE_ERRORS = (ValueError, ArithmeticError, NotImplementedError)


@theorem("BBGG-T6")
def t6(subject: Any) -> Bound | NotApplicable:
    """BBGG-T6: M_t^f is (alpha, alpha Lambda(t))-RDP, Lambda(t) = sup ∫_t^∞ sup_y Gamma(log p_s(x,·)/p_s(x',·)) ds.

    The numerical route (`markovdp.guarantees.intrinsic_sensitivity`): kappa by a multistart local search over y
    in `default_y_bounds` (clipped to the semigroup's ``log_density_domain`` if it has one) — a numerical sup over
    that box, not a proof —, the integral by quadrature, plus the route's error bound; computed here, so that a
    failure of the route (a y the density refuses, a gradient lost in rounding, a quadrature that does not
    converge) is NotApplicable with its reason. Needs the semigroup's ``log_density`` and ``carre_du_champ`` and
    the pairs attaining the sup over the L2 ball (``sensitivity_pairs(sensitivity)``). Declines Brownian motion and OU,
    where BBGG-BM / BBGG-C7 give the exact value.
    """
    mechanism = _diffusion(subject, "BBGG-T6")
    if isinstance(mechanism, NotApplicable):
        return mechanism
    semigroup = mechanism.semigroup
    if _has_closed_form(semigroup):
        return NotApplicable("BBGG-T6", f"BBGG-T6 (numerical) is not needed: BBGG-BM / BBGG-C7 give the exact "
                                        f"intrinsic sensitivity of a {type(semigroup).__name__}.")
    missing = [hook for hook in NEEDED_HOOKS if not semigroup.provides(hook)]
    if missing and isinstance(semigroup, DiffusionSemigroup) and semigroup.sde.dim == 1:
        return _t6_spectral_1d(mechanism)
    if missing:
        return NotApplicable("BBGG-T6", f"BBGG-T6 (numerical) needs the semigroup methods {', '.join(NEEDED_HOOKS)}; "
                                        f"{type(semigroup).__name__} lacks {', '.join(missing)} (see "
                                        f"`markovdp.Semigroup`: sensitivity_pairs(sensitivity) gives the pairs (x, x') "
                                        f"attaining the sup over the L2 ball).")
    dim = int(mechanism.dim)
    try:
        pairs = _worst_pairs(semigroup, mechanism.sensitivity)
    except ROUTE_ERRORS as exc:
        return NotApplicable("BBGG-T6", f"BBGG-T6: {type(semigroup).__name__}.sensitivity_pairs"
                                        f"({mechanism.sensitivity!r}) failed: {exc}")
    log_density = semigroup_log_density(semigroup, dim)
    carre = coordinate_carre_du_champ(semigroup.carre_du_champ, dim)
    domain = semigroup.log_density_domain() if semigroup.provides("log_density_domain") else None
    try:
        lam = max(sum(intrinsic_sensitivity_with_error(log_density, carre, x, x_prime, mechanism.t,
                                                       y_bounds=default_y_bounds(x, x_prime, domain=domain),
                                                       gradient=semigroup_log_ratio_gradient(semigroup, x, x_prime)))
                  for x, x_prime in pairs)
    except ROUTE_ERRORS as exc:
        return NotApplicable("BBGG-T6", f"BBGG-T6 (numerical) failed for {type(semigroup).__name__} at t = "
                                        f"{mechanism.t!r}, sensitivity {mechanism.sensitivity!r}: {exc}")
    return rdp_bound("BBGG-T6", _inputs(mechanism, route="numerical", pairs=len(pairs), intrinsic_sensitivity=lam),
                     linear_rdp_curve(lambda: lam))


def _t6_spectral_1d(mechanism: Any) -> Bound | NotApplicable:
    """BBGG-T6-1D: Lambda(t) of a one-dimensional `DiffusionSemigroup` from its SDE's coefficients (spectral grids,
    `markovdp.diffusions.spectral_1d`), the measured grid error included; NotApplicable with the reason where the
    SDE fails Assumption 1 (pi not normalisable, an attracting boundary, v = 0) or the grids do not converge."""
    from ..diffusions.spectral_1d import spectral_intrinsic_sensitivity

    try:
        found = spectral_intrinsic_sensitivity(mechanism.semigroup.sde, mechanism.sensitivity, mechanism.t)
    except ValueError as exc:
        return NotApplicable("BBGG-T6", f"BBGG-T6 (BBGG-T6-1D, spectral grids of the SDE) does not apply at t = "
                                        f"{mechanism.t!r}, sensitivity {mechanism.sensitivity!r}: {exc}")
    lam = found.value
    inputs = _inputs(mechanism, route="spectral-1d", intrinsic_sensitivity=lam, grid_estimate=found.estimate,
                     grid_error=found.grid_error, quadrature_error=found.quadrature_error, grid_nodes=found.levels,
                     convergence_ratio=found.ratio, worst_pair=found.pair, window=found.window,
                     invariant_mass_outside=found.outside_mass, query_range=found.query, pairs=found.pairs,
                     grid_refinement=found.refinement)
    return rdp_bound("BBGG-T6", inputs, linear_rdp_curve(lambda: lam))


@theorem("BBGG-C7")
def c7(subject: Any) -> Bound | NotApplicable:
    """BBGG-C7: an OU DiffusionMechanism is (alpha, alpha theta Delta²/(2 rho² (e^(2 theta t) − 1)))-RDP.

    Tight: alpha Lambda(t) is the Rényi divergence of N(0, s_t² I) and N(e^(−theta t) Delta e_1, s_t² I)
    (`markovdp.diffusions.intrinsic_sensitivity.ou_intrinsic_sensitivity`).
    """
    mechanism = _diffusion(subject, "BBGG-C7")
    if isinstance(mechanism, NotApplicable):
        return mechanism
    semigroup = mechanism.semigroup
    if not isinstance(semigroup, OrnsteinUhlenbeckSemigroup):
        return NotApplicable("BBGG-C7", f"BBGG-C7 needs an OrnsteinUhlenbeckSemigroup; got {type(semigroup).__name__}.")
    lam = ou_intrinsic_sensitivity(semigroup.theta, semigroup.rho, mechanism.sensitivity, mechanism.t)
    return rdp_bound("BBGG-C7", _inputs(mechanism, theta=semigroup.theta, rho=semigroup.rho, intrinsic_sensitivity=lam),
                     linear_rdp_curve(lambda: lam))


__all__ = ["bm", "c7", "linear_rdp_curve", "t6"]
