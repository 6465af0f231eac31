"""AAC-Fano: Fano's method under local DP, with the strong data-processing inequality for mutual information.

THEORY: AAC-Fano, AAC-phi. V is uniform on a finite family {P_v} of input laws, X_1..X_n i.i.d. P_V, and each
X_i is privatised by the same channel K (non-interactive): Z_i = K(X_i). Then
``I(V; Z^n) <= n I(V; Z_1)`` (the Z_i are independent given V) and ``I(V; Z_1) <= eta_KL(K) I(V; X_1)`` with
``eta_KL(K) <= eta_TV(K) <= phi(eps, delta)`` (AAC-phi); Fano turns the bound on I into a lower bound on the error
of every test of V, and a 2·tau-separated parameter family turns that into a lower bound on the minimax risk.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_choice,
    check_eps,
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_stochastic_matrix,
    fail,
    readonly,
)
from .aac import ldp_contraction_bound
from .coefficients import dobrushin, ldp_epsilon

#: The metrics a family's parameters may be separated in (scipy.spatial.distance names).
METRICS = {"l2": "euclidean", "l1": "cityblock", "linf": "chebyshev"}
#: Relative upward rounding of a reported mutual-information bound (the sums' rounding error is far below it).
REL_SLACK = 1e-12
#: The routes to a bound on I(V; Z^n), in the order they are tried (the smallest value is used).
ROUTES = ("exact", "eta_tv", "phi")


def _laws(value: Any) -> NDArray[np.float64]:
    """Input laws as the rows of a matrix: a 2-D array, or a sequence of `Categorical` (their ``probs``)."""
    if isinstance(value, (list, tuple)) and value and all(hasattr(v, "probs") for v in value):
        value = [v.probs for v in value]
    return check_stochastic_matrix("laws", value)


@dataclass(frozen=True)
class PriorFamily:
    """A finite family of input laws P_v with parameters theta_v, for Fano's method (THEORY: AAC-Fano).

    The family is 2·tau-separated in the metric rho: ``tau = min_{v != v'} rho(theta_v, theta_v') / 2`` is
    computed from the parameters, not asserted. The loss is ``Phi(rho) = rho ** power`` (power 2: squared error).

    Parameters
    ----------
    laws : array-like (M, k) or sequence of M `Categorical`
        The input laws P_v, one per row, M >= 2.
    parameters : array-like (M,) or (M, d)
        theta_v, pairwise distinct.
    metric : {"l2", "l1", "linf"}
        rho.
    power : float, default 2
        The loss exponent, > 0.

    Raises
    ------
    ValueError
        Fewer than two laws, a bad law, parameters not one per law or not pairwise distinct, a bad power.
    """

    laws: NDArray[np.float64]
    parameters: NDArray[np.float64]
    metric: str = "l2"
    power: float = 2.0
    tau: float = field(init=False)

    def __post_init__(self) -> None:
        from scipy.spatial.distance import pdist

        laws = _laws(self.laws)
        if laws.shape[0] < 2:
            raise fail("laws", "at least two laws (rows)", f"shape {laws.shape}")
        theta = np.asarray(check_real("parameters", self.parameters), dtype=np.float64)
        theta = theta.reshape(-1, 1) if theta.ndim == 1 else theta
        if theta.ndim != 2 or theta.shape[0] != laws.shape[0]:
            raise fail("parameters", f"one parameter (row) per law, {laws.shape[0]} rows", f"shape {theta.shape}")
        metric = check_choice("metric", self.metric, tuple(METRICS))
        power = check_positive("power", self.power)
        separation = float(pdist(theta, METRICS[metric]).min())
        if not separation > 0.0:
            raise fail("parameters", "pairwise distinct", "two equal rows")
        object.__setattr__(self, "laws", readonly(laws))
        object.__setattr__(self, "parameters", readonly(theta))
        object.__setattr__(self, "power", power)
        object.__setattr__(self, "tau", separation / 2.0)

    @property
    def size(self) -> int:
        """M, the number of laws."""
        return int(self.laws.shape[0])

    def loss(self, rho: ArrayLike) -> float | NDArray[np.float64]:
        """Phi(rho) = rho ** power."""
        return np.asarray(rho, dtype=np.float64) ** self.power


@dataclass(frozen=True)
class FanoBound:
    """The numbers of `private_fano_bound` (THEORY: AAC-Fano). Information in nats.

    ``mutual_information`` is the bound on I(V; Z^n) used (the smallest of ``routes``: route name → its bound),
    ``route`` its name; ``input_information`` = I(V; X) exactly; ``one_sample_information`` = I(V; Z) exactly
    (NaN without a channel); ``eta_tv`` = Dobrushin's coefficient of the channel (NaN without one); ``phi`` the
    phi(eps, delta) used. ``error_bound`` = 1 − (I + log 2) / log M and ``error_bound_sharp`` = the least p with
    h(p) + p log(M − 1) >= log M − I (Fano's inequality itself, >= the first), both clipped at 0, lower bounds on
    P(V̂ ≠ V) for every test; ``risk_bound`` = Phi(tau) · error_bound_sharp <= the minimax risk over any model
    containing the family.
    """

    n: int
    size: int
    tau: float
    mutual_information: float
    route: str
    routes: Mapping[str, float]
    input_information: float
    one_sample_information: float
    eta_tv: float
    phi: float
    error_bound: float
    error_bound_sharp: float
    risk_bound: float


def mutual_information(laws: NDArray[np.float64]) -> float:
    """I(V; Y) in nats for V uniform on the rows and Y | V = v ~ laws[v]: the mean KL(laws[v] || mean law)."""
    from scipy import special

    mean = laws.mean(axis=0)
    return max(float(special.rel_entr(laws, mean[None, :]).sum()) / laws.shape[0], 0.0)


def _channel_or_pair(value: Any) -> tuple[NDArray[np.float64] | None, float, float]:
    """(matrix, nan, nan) for a finite channel; (None, eps, delta) for a pair."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(np.ndim(v) == 0 for v in value):
        try:
            eps = float(check_eps("eps", value[0], allow_inf=True))
            delta = float(check_probability("delta", value[1]))
        except (TypeError, ValueError) as exc:
            raise fail("channel_or_eps_delta", "a finite channel or a pair (eps >= 0, delta in [0, 1])",
                       repr(tuple(value)), type(exc)) from exc
        return None, eps, delta
    matrix = getattr(value, "matrix", None)
    if matrix is None and hasattr(value, "sample") and not isinstance(value, np.ndarray):
        raise NotImplementedError(f"`private_fano_bound` is exact only for finite channels or (eps, delta) pairs; "
                                  f"got {type(value).__name__}.")
    return check_stochastic_matrix("channel_or_eps_delta", value if matrix is None else matrix), math.nan, math.nan


def fano_error_bound(information: float, size: int) -> tuple[float, float]:
    """(1 − (I + log 2)/log M, the least p in [0, 1 − 1/M] with h(p) + p log(M − 1) >= log M − I), both >= 0.

    THEORY: AAC-Fano. `information` I >= 0 in nats (``inf`` allowed), `size` M >= 2 (ValueError otherwise).
    h(p) + p log(M − 1) increases from 0 to log M on [0, 1 − 1/M], so the second is a root;
    h <= log 2 and log(M − 1) <= log M give the first <= the second.
    """
    from scipy import optimize, special

    information = float(check_eps("information", information, allow_inf=True))
    size = check_int("size", size, minimum=2)
    log_m = math.log(size)
    closed = max(1.0 - (information + math.log(2.0)) / log_m, 0.0)
    target = log_m - information
    if not target > 0.0:
        return closed, 0.0
    top = 1.0 - 1.0 / size

    def excess(p: float) -> float:
        return float(special.entr(p) + special.entr(1.0 - p) + special.xlogy(p, size - 1.0)) - target

    if excess(top) <= 0.0:  # target = log M to rounding: I is 0
        return closed, top
    sharp = optimize.brentq(excess, 0.0, top, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    # brentq's root is within xtol; step down so that the reported p is not above the true root
    return closed, max(min(sharp - 1e-14, top), closed, 0.0)


def private_fano_bound(channel_or_eps_delta: Any, prior_family: PriorFamily, n: int, *,
                       delta: float = 0.0) -> FanoBound:
    """Fano's lower bound on testing and on the minimax risk from n privatised samples (THEORY: AAC-Fano).

    ``P(V̂ ≠ V) >= 1 − (I(V; Z^n) + log 2) / log M`` for V uniform on the M laws of `prior_family`, and
    ``inf_hat max_v E_v Phi(rho(hat, theta_v)) >= Phi(tau) · P(V̂ ≠ V)`` (an estimate within tau of theta_V decodes
    V; Markov). I(V; Z^n) is bounded by the smallest available route: with a finite channel K, ``exact``
    n · I(V; Z) (Z = one privatised sample, exact), ``eta_tv`` n · eta_TV(K) · I(V; X) and ``phi``
    n · phi(eps_K, delta) · I(V; X) with eps_K = `ldp_epsilon`(K, delta); with a pair (eps, delta) only ``phi``,
    valid for every (eps, delta)-LDP channel.

    Parameters
    ----------
    channel_or_eps_delta : FiniteKernel, finite mechanism, array-like (k, m), or (eps, delta)
        The channel applied to each sample, or the LDP level (eps in nats, ``inf`` allowed; delta in [0, 1]).
    prior_family : PriorFamily
        The M >= 2 input laws on the channel's k inputs, their parameters and loss.
    n : int
        Number of samples, >= 1.
    delta : float, default 0
        With a channel: the delta at which its eps (for the ``phi`` route) is computed. Ignored for a pair.

    Returns
    -------
    FanoBound

    Raises
    ------
    ValueError
        Bad channel, pair, `n` or `delta`; laws on a different number of points than the channel's inputs.
    TypeError
        `prior_family` not a `PriorFamily`.
    NotImplementedError
        A channel without a finite matrix.
    """
    matrix, eps, pair_delta = _channel_or_pair(channel_or_eps_delta)
    if not isinstance(prior_family, PriorFamily):
        raise fail("prior_family", "a PriorFamily", f"{prior_family!r} of type {type(prior_family).__name__}",
                   TypeError)
    n = check_int("n", n, minimum=1)
    delta = float(check_probability("delta", delta))
    laws = prior_family.laws
    input_info = mutual_information(laws)
    routes: dict[str, float] = {}
    one_sample, eta = math.nan, math.nan
    if matrix is None:
        phi = ldp_contraction_bound(eps, pair_delta)
    else:
        if laws.shape[1] != matrix.shape[0]:
            raise fail("prior_family", f"laws on the channel's {matrix.shape[0]} inputs", f"{laws.shape[1]} points")
        pushed = np.clip(laws @ matrix, 0.0, None)
        one_sample = mutual_information(pushed / pushed.sum(axis=1, keepdims=True))
        eta = dobrushin(matrix, 0.0)
        phi = ldp_contraction_bound(ldp_epsilon(matrix, delta), delta)
        routes["exact"] = n * one_sample
        routes["eta_tv"] = n * eta * input_info
    routes["phi"] = n * phi * input_info
    routes = {name: value * (1.0 + REL_SLACK) for name, value in routes.items()}
    route = min(routes, key=lambda name: (routes[name], ROUTES.index(name)))
    information = routes[route]
    closed, sharp = fano_error_bound(information, prior_family.size)
    risk = float(prior_family.loss(prior_family.tau)) * sharp
    return FanoBound(n, prior_family.size, prior_family.tau, information, route, routes,
                     input_info, one_sample, eta, phi, closed, sharp, risk)


__all__ = ["FanoBound", "PriorFamily", "fano_error_bound", "mutual_information", "private_fano_bound"]
