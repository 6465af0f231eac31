"""Private mean estimation lower bounds: one-dimensional (two-point Le Cam, AAC-LeCam-mean) and in the unit l2 ball of
R^k (Fano with the AAC hypercube packing, AAC-Fano). Every bound holds for every (eps, delta)-LDP channel.

THEORY: AAC-LeCam-mean, AAC-Fano, AAC-phi. The one-dimensional bounds use two laws supported on two points, so only
the channel's restriction to two inputs matters; every binary-input (eps, delta)-LDP channel is a post-processing of
`canonical_ldp_channel` (Kairouz, Oh, Viswanath 2015), so the TV of n privatised samples is largest through it
and the two-point Le Cam bound computed through it (exactly, `le_cam_bound`) holds for every channel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._validation import check_choice, check_eps, check_int, check_positive, check_probability, readonly
from .aac import ldp_contraction_bound
from .bayes_bernoulli import canonical_ldp_channel
from .fano import fano_error_bound
from .le_cam import le_cam_bound
from .packing import MAX_PACKING_K, packing_size

MODELS = ("bounded", "second_moment")
#: Points of the coarse grid over the free parameter (gamma, p or s) before the bounded refinement.
GRID_POINTS = 24


def _dominating_channel(eps: float, delta: float) -> NDArray[np.float64]:
    """`canonical_ldp_channel` (every binary-input (eps, delta)-LDP channel is a post-processing of it) without its
    zero columns (the outer two at delta = 0: then the count laws are binomial, for any n)."""
    matrix = canonical_ldp_channel(eps, delta)
    return readonly(matrix[:, matrix.sum(axis=0) > 0.0])


@dataclass(frozen=True)
class MeanLeCam:
    """The two-point Le Cam lower bound on the minimax squared-error risk of one-dimensional mean estimation from n
    samples, each privatised by any (eps, delta)-LDP channel (THEORY: AAC-LeCam-mean).

    ``bound`` = (theta1 − theta0)² / 4 · (1 − TV) at the pair found, ``tv`` the exact TV of the n outputs of
    `canonical_ldp_channel` (the largest over all channels); the pair is ``support`` (the two data values),
    ``p0``, ``p1`` (their laws) and ``theta0``, ``theta1`` (their means). ``closed_form`` =
    max over the same family of (theta1 − theta0)² / 8 · exp(−n phi KL(P0 || P1)) <= bound (AAC-phi,
    Bretagnolle–Huber). ``phi`` = phi(eps, delta).
    """

    model: str
    n: int
    eps: float
    delta: float
    sigma: float
    bound: float
    tv: float
    support: tuple[float, float]
    p0: tuple[float, float]
    p1: tuple[float, float]
    theta0: float
    theta1: float
    closed_form: float
    phi: float


def _pair(model: str, x: float) -> tuple[tuple[float, float], NDArray[np.float64], NDArray[np.float64],
                                                        float, float]:
    """(support, p0, p1, theta0, theta1) of the family's member x (gamma for "bounded", p for "second_moment" at
    sigma = 1: support and means scale with sigma, the risk with sigma², the TV not at all)."""
    if model == "bounded":  # X in {−1, 1}, means ∓gamma
        return (-1.0, 1.0), np.array([(1 + x) / 2, (1 - x) / 2]), np.array([(1 - x) / 2, (1 + x) / 2]), -x, x
    # second moment <= 1: X = 0, or X in {0, 1/sqrt(p)} with P(1/sqrt(p)) = p (E X² = 1)
    return (0.0, 1.0 / math.sqrt(x)), np.array([1.0, 0.0]), np.array([1.0 - x, x]), 0.0, math.sqrt(x)


def _pair_kl(model: str, x: float) -> float:
    """KL(P0 || P1) of the non-private pair (nats)."""
    if model == "bounded":
        return x * math.log1p(2 * x / (1 - x)) if x < 1 else math.inf
    return -math.log1p(-x) if x < 1 else math.inf


def _maximise(value, low: float, high: float) -> float:
    """The argmax over [low, high] of a one-parameter family of valid bounds: a log-spaced grid, then bounded Brent
    around its best point (every point is a valid bound, so the optimiser's accuracy only affects tightness)."""
    from scipy import optimize

    grid = np.geomspace(low, high, GRID_POINTS)
    values = [value(float(x)) for x in grid]
    best = int(np.argmax(values))
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, GRID_POINTS - 1)]
    found = optimize.minimize_scalar(lambda x: -value(float(x)), bounds=(lo, hi), method="bounded",
                                     options={"xatol": 1e-6 * hi})
    return float(found.x) if -found.fun > values[best] else float(grid[best])


def mean_le_cam(n: int, eps: float, delta: float, *, model: str = "bounded", sigma: float = 1.0) -> MeanLeCam:
    """Two-point Le Cam lower bound on ``inf_{K, hat} sup_P E (hat − E_P X)²`` from n samples, K over every
    (eps, delta)-LDP channel (THEORY: AAC-LeCam-mean).

    Models: ``"bounded"``: laws on [−1, 1]; the pair puts mass (1 ± gamma)/2 on ±1 (means ∓gamma).
    ``"second_moment"``: laws with ``E X² <= sigma²``; the pair is X = 0 and X = sigma/sqrt(p) with probability p
    (else 0), means 0 and sigma sqrt(p). (Under LDP the class ``Var X <= sigma²`` alone has infinite minimax risk:
    two point masses far apart have TV <= 1 − (1 − delta)^n e^(−n eps) < 1 after privatisation.) The free parameter
    is maximised numerically; any value gives a valid bound. The TV is exact through `canonical_ldp_channel`
    (`le_cam_bound`: count vectors, so n is limited when delta > 0: C(n + 3, 3) <= `le_cam.MAX_COUNT_VECTORS`).

    Parameters
    ----------
    n : int
        Number of samples, >= 1.
    eps : float
        Privacy level in nats, >= 0 and finite.
    delta : float
        In [0, 1].
    model : {"bounded", "second_moment"}
    sigma : float, default 1
        The second-moment bound of ``"second_moment"`` (ignored for ``"bounded"``), > 0.

    Raises
    ------
    ValueError
        Bad `n`, `eps`, `delta`, `model` or `sigma`; `n` too large for the exact count-vector sum at delta > 0.
    """
    n = check_int("n", n, minimum=1)
    channel = _dominating_channel(eps, delta)
    eps, delta = float(eps), float(delta)
    model = check_choice("model", model, MODELS)
    sigma = check_positive("sigma", sigma)
    if channel.shape[1] > 2:
        from .le_cam import MAX_COUNT_VECTORS

        if math.comb(n + 3, 3) > MAX_COUNT_VECTORS:
            from .._validation import fail

            raise fail("n", f"small enough that the 4-output count vectors number <= {MAX_COUNT_VECTORS} when delta "
                            f"> 0 (there are C(n + 3, 3) = {math.comb(n + 3, 3)})", n)
    phi = ldp_contraction_bound(eps, delta)

    def exact(x: float) -> float:
        _, p0, p1, t0, t1 = _pair(model, x)
        return le_cam_bound(channel, p0, p1, n, theta0=t0, theta1=t1)

    def closed(x: float) -> float:
        _, _, _, t0, t1 = _pair(model, x)
        return (t1 - t0) ** 2 / 8.0 * math.exp(-n * phi * _pair_kl(model, x)) if phi > 0 else (t1 - t0) ** 2 / 8.0

    high = 1.0 - 1e-9
    x = _maximise(exact, 1e-6, high)
    support, p0, p1, t0, t1 = _pair(model, x)
    bound = exact(x)
    tv = 1.0 - bound / ((t1 - t0) ** 2 / 4.0)
    x_closed = _maximise(closed, 1e-6, high)
    scale = sigma if model == "second_moment" else 1.0
    return MeanLeCam(model, n, eps, delta, scale if model == "second_moment" else math.nan,
                     bound * scale * scale, max(tv, 0.0), (support[0] * scale, support[1] * scale),
                     (float(p0[0]), float(p0[1])), (float(p1[0]), float(p1[1])), t0 * scale, t1 * scale,
                     closed(x_closed) * scale * scale, phi)


@dataclass(frozen=True)
class L2MeanFano:
    """Fano's lower bound on the minimax squared l2 risk of mean estimation in the unit l2 ball of R^k under
    (eps, delta)-LDP (THEORY: AAC-Fano), for the family of `l2_mean_fano_bound` at its best signal ``s``.

    ``size`` = ceil(e^{k/16}) laws (the AAC packing), ``tau`` = s / (2 sqrt(k)) (half the least distance between
    means), ``input_information`` = min(log 2, s log((1 + s)/(1 − s))) >= I(V; X), ``mutual_information`` =
    n phi · input_information >= I(V; Z^n), ``error_bound`` = Fano's bound on P(V̂ ≠ V) (inverse form),
    ``bound`` = tau² · error_bound; ``n_effective`` = phi · n.
    """

    k: int
    n: int
    eps: float
    delta: float
    phi: float
    size: int
    s: float
    tau: float
    input_information: float
    mutual_information: float
    error_bound: float
    bound: float
    n_effective: float


def l2_mean_input_information(s: float) -> float:
    """min(log 2, s log((1 + s)/(1 − s))): a bound on I(V; X) for the packing family of `l2_mean_fano_bound`."""
    return min(math.log(2.0), s * math.log1p(2 * s / (1 - s)) if s < 1 else math.inf)


def l2_mean_fano_bound(k: int, n: int, eps: float, delta: float) -> L2MeanFano:
    """Lower bound on ``inf_{K, hat} sup_P E ||hat − E_P X||_2²`` over laws P of X in the unit l2 ball of R^k and every
    (eps, delta)-LDP channel K applied to each of n samples (THEORY: AAC-Fano).

    The family: for each v of a packing of {−1, 1}^k (pairwise l1 >= k/2, ceil(e^{k/16}) vectors,
    `hypercube_packing`), X = B e_J with J uniform on {1..k} and P(B = v_J) = (1 + s)/2, B in {−1, 1}; so
    ||X||_2 = 1 and E X = s v / k, and ||E_v X − E_v' X||_2 = (2s/k) sqrt(Hamming) >= s / sqrt(k) = 2 tau.
    I(V; X) = I(V; B | J) <= min(log 2, max KL(P_v || P_v')) <= `l2_mean_input_information`(s); then
    I(V; Z^n) <= n phi(eps, delta) I(V; X) (AAC-Fano) and the risk is >= tau² · Fano's error bound. The signal
    s in (0, 1) is maximised numerically (every s gives a valid bound). Positive only when log M > log 2, i.e. k >= 12.

    Raises
    ------
    ValueError
        `k` < 1 or > `MAX_PACKING_K`; bad `n`, `eps` or `delta`.
    """
    from .._validation import fail

    k = check_int("k", k, minimum=1)
    if k > MAX_PACKING_K:
        raise fail("k", f"at most {MAX_PACKING_K} (the size of the packing `hypercube_packing` builds)", k)
    n = check_int("n", n, minimum=1)
    eps = float(check_eps("eps", eps, allow_inf=True))
    delta = float(check_probability("delta", delta))
    phi = ldp_contraction_bound(eps, delta)
    size = packing_size(k)

    def parts(s: float) -> tuple[float, float, float]:
        information = n * phi * l2_mean_input_information(s)
        error = fano_error_bound(information, size)[1]
        return information, error, s * s / (4.0 * k) * error

    s = _maximise(lambda x: parts(x)[2], 1e-6, 1.0 - 1e-9)
    information, error, bound = parts(s)
    return L2MeanFano(k, n, eps, delta, phi, size, s, s / (2.0 * math.sqrt(k)), l2_mean_input_information(s),
                      information, error, bound, phi * n)


__all__ = ["L2MeanFano", "MeanLeCam", "l2_mean_fano_bound", "l2_mean_input_information", "mean_le_cam"]
