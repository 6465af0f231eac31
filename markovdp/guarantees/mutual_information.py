"""AAC-MI: the largest mutual information I(X; Z) over (eps, delta)-LDP channels of a k-ary input, by an exact LP.

THEORY: AAC-MI, AAC-phi, AAC-T1. For a fixed input law, I(X; Z) = Σ_z mu(column z of the channel) with
``mu(c) = Σ_x P_x c_x log(c_x / Σ_x' P_x' c_x')``, convex and positively homogeneous (sublinear). Splitting a
column into rays of the cone the LDP constraints allow never lowers the utility, so the maximum over every
channel (any output alphabet) is a linear program over the rays of that cone (Kairouz, Oh, Viswanath 2016 for
delta = 0; derived in docs/theory.md for delta > 0), with at most k² outputs at an optimal vertex.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import check_eps, check_int, check_probability, check_probability_vector, fail, readonly
from .aac import ldp_contraction_bound
from .coefficients import dobrushin

#: The largest k for pure LDP (delta = 0): the LP has 2^k − 1 columns (binary patterns in {1, e^eps}^k).
MAX_K_PURE = 14
#: The largest k for delta > 0: the LP has one column per ray of the lifted cone — Σ_j C(k, j) Fubini(j), 9365 at
#: k = 6 (and 87 k at k = 7) — and k² constraints.
MAX_K_APPROX = 6
#: Weights below this (relative to the largest) are dropped from the LP's optimal channel before it is polished.
_WEIGHT_RTOL = 1e-12


@dataclass(frozen=True)
class MaxMutualInformation:
    """sup I(X; Z) over (eps, delta)-LDP channels for a k-ary input X of law ``input_law``, and its bounds.

    ``mi_nats`` / ``mi_bits``: the maximum, in nats and in bits; it is the mutual information of ``channel``
    (k x m, m <= k² + k), computed directly from that channel (exact up to the LP solver's optimality tolerance,
    ~1e-9 nats; where that tolerance left the channel's delta above `delta`, the channel is an output-labelled
    mixture with the pure optimum that meets it, see `_feasible`). ``certified_delta`` = dobrushin(channel, eps):
    the channel's exact delta at eps (AAC-T1; delta up to a few ulps of rounding).
    Bounds beside it, compared not asserted (nats): ``phi_bound_nats`` = phi(eps, delta) · H(X) (AAC-phi with the
    SDPI I(X; Z) <= eta_KL H(X)); ``eta_tv_bound_nats`` = eta_TV(channel) · H(X), eta_TV standing in for the
    optimal channel's eta_KL (eta_KL <= eta_TV, so it is a valid, computable upper bound);
    ``mcgregor_bound`` = 3 eps as the seed cites it for pure LDP (McGregor et al. 2010; the seed does not fix
    the logarithm's base, so compare it with both ``mi_nats`` and ``mi_bits``; NaN for delta > 0, where it is
    not claimed). ``entropy_nats`` = H(X); ``n_rays`` = the LP's number of columns.
    """

    k: int
    eps: float
    delta: float
    input_law: NDArray[np.float64]
    mi_nats: float
    mi_bits: float
    channel: NDArray[np.float64]
    certified_delta: float
    entropy_nats: float
    phi: float
    phi_bound_nats: float
    eta_tv: float
    eta_tv_bound_nats: float
    mcgregor_bound: float
    n_rays: int


def max_mutual_information(k: int, eps: float, delta: float = 0.0, input_law: Any = None) -> MaxMutualInformation:
    """max I(X; Z) over all (eps, delta)-LDP channels K (any finite output alphabet), X ~ `input_law` on k points.

    THEORY: AAC-MI. Exact by a linear program over the rays r of the cone of allowed columns (module docstring):
    maximise Σ_r w_r mu(r) subject to Σ_r w_r r = 1 (rows sum to 1), Σ_r w_r [r_x − e^eps r_x']_+ <= delta for
    every ordered pair x != x' (AAC-T1: the hockey-stick of the rows), w >= 0. The rays are the columns whose
    positive entries are e^(eps h_x) with the levels h_x filling {0, …, L} (L <= k − 1) and any proper subset of
    entries 0; for delta = 0 only the KOV patterns {1, e^eps}^k remain. The optimal channel is polished (the
    active constraints re-solved) and its MI recomputed from it.

    Parameters
    ----------
    k : int
        Input alphabet size, 2 <= k <= `MAX_K_PURE` (delta = 0) or `MAX_K_APPROX` (delta > 0).
    eps : float
        Privacy level in nats, >= 0 and finite.
    delta : float, default 0
        In [0, 1].
    input_law : Categorical or array-like (k,), optional
        The law of X; default uniform.

    Raises
    ------
    ValueError
        Bad `eps`, `delta` or `input_law`; `k` < 2 or above the size limit (named in the message).
    """
    k = check_int("k", k, minimum=2)
    eps = float(check_eps("eps", eps))
    delta = float(check_probability("delta", delta))
    limit = MAX_K_PURE if delta == 0.0 else MAX_K_APPROX
    if k > limit:
        count = f"{_ray_count(k, delta)}" if k <= 2 * MAX_K_PURE else "astronomically many"
        raise fail("k", f"an integer <= {limit} for delta {'=' if delta == 0.0 else '>'} 0 (the exact LP has one "
                        f"column per ray of the LDP cone: {count} at this k)", k)
    law = (np.full(k, 1.0 / k) if input_law is None
           else check_probability_vector("input_law", getattr(input_law, "probs", input_law)))
    if law.size != k:
        raise fail("input_law", f"a probability vector on k = {k} points", f"length {law.size}")

    rays = _rays(k, eps, delta)
    weights = _solve(rays, law, eps, delta)
    channel = _feasible(_channel(rays, weights), law, eps, delta)
    mi = _mutual_information(law, channel)
    entropy = float(-np.sum(law[law > 0] * np.log(law[law > 0])))
    phi, eta = ldp_contraction_bound(eps, delta), dobrushin(channel, 0.0)
    return MaxMutualInformation(
        k=k, eps=eps, delta=delta, input_law=readonly(law), mi_nats=mi, mi_bits=mi / math.log(2.0),
        channel=readonly(channel), certified_delta=dobrushin(channel, eps), entropy_nats=entropy, phi=phi,
        phi_bound_nats=phi * entropy, eta_tv=eta, eta_tv_bound_nats=eta * entropy,
        mcgregor_bound=3.0 * eps if delta == 0.0 else math.nan, n_rays=rays.shape[0])


def _mutual_information(law: NDArray[np.float64], matrix: NDArray[np.float64]) -> float:
    """I(X; Z) in nats for X ~ law and Z | X = x ~ matrix[x]: Σ_{x,z} P_x K_xz log(K_xz / (P K)_z), 0 log 0 = 0."""
    joint = law[:, None] * matrix
    out = law @ matrix
    used = joint > 0
    ratio = matrix[used] / np.broadcast_to(out, matrix.shape)[used]
    return max(float(np.sum(joint[used] * np.log(ratio))), 0.0)


def _ray_count(k: int, delta: float) -> int:
    if delta == 0.0:
        return 2**k - 1
    fubini = [1]
    for j in range(1, k + 1):
        fubini.append(sum(math.comb(j, i) * fubini[j - i] for i in range(1, j + 1)))
    return sum(math.comb(k, j) * fubini[j] for j in range(1, k + 1))


def _rays(k: int, eps: float, delta: float) -> NDArray[np.float64]:
    """The rays (one per row, largest entry 1): entries e^(−eps (L − h_x)) on the support, 0 off it."""
    if delta == 0.0:
        masks = np.arange(2**k - 1)  # all-ones and all-e^eps are one ray: the last mask is left out
        bits = (masks[:, None] >> np.arange(k)[None, :]) & 1
        return np.exp(-eps * (1 - bits)).astype(np.float64)
    rows = []
    for levels in itertools.product(range(k + 1), repeat=k):  # level 0: off the support; 1..L+1: h + 1
        used = sorted(set(levels) - {0})
        if used and used == list(range(1, len(used) + 1)):
            h = np.array(levels, dtype=np.float64)
            top = float(len(used))
            rows.append(np.where(h > 0, np.exp(-eps * (top - h)), 0.0))
    return np.unique(np.array(rows), axis=0)  # eps = 0 merges the levels


def _utilities(rays: NDArray[np.float64], law: NDArray[np.float64]) -> NDArray[np.float64]:
    """mu(r) = Σ_x P_x r_x log(r_x / (P r)) per ray (nats; 0 where P r = 0)."""
    mass = rays @ law
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(rays > 0, law[None, :] * rays * np.log(rays / mass[:, None]), 0.0)
    return np.where(mass > 0, terms.sum(axis=1), 0.0)


def _slacks(rays: NDArray[np.float64], eps: float) -> NDArray[np.float64]:
    """[r_x − e^eps r_x']_+ for every ordered pair x != x' (one row per pair, one column per ray)."""
    k = rays.shape[1]
    pairs = [(x, y) for x in range(k) for y in range(k) if x != y]
    return np.array([np.maximum(rays[:, x] - math.exp(eps) * rays[:, y], 0.0) for x, y in pairs])


def _solve(rays: NDArray[np.float64], law: NDArray[np.float64], eps: float, delta: float) -> NDArray[np.float64]:
    """The LP's optimal weights (HiGHS), then the active constraints re-solved on the optimal support."""
    from scipy import optimize  # here, not at import: scipy.optimize costs ~0.3 s to import

    k = rays.shape[1]
    utility = _utilities(rays, law)
    slacks = _slacks(rays, eps) if delta > 0.0 else None
    result = optimize.linprog(-utility, A_eq=rays.T, b_eq=np.ones(k),
                              A_ub=slacks, b_ub=None if slacks is None else np.full(slacks.shape[0], delta),
                              bounds=(0.0, None), method="highs")
    if result.status != 0:  # pragma: no cover - the all-ones ray alone is feasible, and the objective is bounded
        raise RuntimeError(f"The AAC-MI linear program failed: {result.message}")
    w = np.maximum(result.x, 0.0)
    support = w > _WEIGHT_RTOL * w.max()
    # Polish: the row sums and the active slack constraints as equalities on the support (least squares).
    equations, rhs = [rays.T[:, support]], [np.ones(k)]
    if slacks is not None:
        active = slacks[:, support] @ w[support] > delta - 1e-9
        equations.append(slacks[active][:, support])
        rhs.append(np.full(int(active.sum()), delta))
    polished, *_ = np.linalg.lstsq(np.vstack(equations), np.concatenate(rhs), rcond=None)
    out = np.zeros_like(w)
    out[support] = polished if np.all(polished >= 0) else w[support]
    return out


def _feasible(channel: NDArray[np.float64], law: NDArray[np.float64], eps: float,
              delta: float) -> NDArray[np.float64]:
    """Where the solver's tolerance left the channel's delta at eps above `delta` (d > delta): the output-labelled
    mixture [(delta/d) K | (1 − delta/d) K0] with K0 the pure eps-LDP optimum. Its delta is (delta/d) d + 0 = delta
    (E_{e^eps} adds over the disjoint output blocks), its MI (delta/d) I(K) + (1 − delta/d) I(K0) (the block label
    is independent of X), below the optimum by at most (1 − delta/d)(I(K) − I(K0))."""
    d = dobrushin(channel, eps)
    if delta == 0.0 or d <= delta:
        return channel
    rays = _rays(law.size, eps, 0.0)
    pure = _channel(rays, _solve(rays, law, eps, 0.0))
    keep = delta / d
    return np.hstack([keep * channel, (1.0 - keep) * pure])


def _channel(rays: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """The channel with one output per ray of positive weight: column w_r r, rows renormalised (sums 1 ± 1e-15)."""
    used = weights > 0
    matrix = (rays[used] * weights[used, None]).T
    return matrix / matrix.sum(axis=1, keepdims=True)


__all__ = ["MAX_K_APPROX", "MAX_K_PURE", "MaxMutualInformation", "max_mutual_information"]
