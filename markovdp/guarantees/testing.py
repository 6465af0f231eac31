"""AAC-Test: the exact Neyman–Pearson trade-off of testing p0 vs p1 from n samples privatised by a finite channel.

THEORY: AAC-Test, AAC-phi, AAC-eta. The statistician sees n i.i.d. outputs of K, from P = p0 K (H0) or Q = p1 K
(H1). The log-likelihood ratio of the n-sample laws depends on the sample only through its count vector c:
``log Q^n(z)/P^n(z) = Σ_j c_j log(Q_j/P_j)``; so the Neyman–Pearson test is a test on the count classes
(the count-vector machinery of `markovdp.guarantees.le_cam`), exact for every n the class count allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_int, check_probability, check_stochastic_matrix, fail, readonly
from ..divergences.exact.finite import kl_finite
from .aac import ldp_contraction_bound
from .coefficients import dobrushin, ldp_epsilon
from .le_cam import _count_log_pmfs, _input_laws, _pushed

#: Relative width within which two count classes count as one LLR level for the reported test (threshold and
#: randomisation); beta itself is summed class by class, so it does not depend on this.
LLR_TIE_RTOL = 1e-9


@dataclass(frozen=True)
class PrivateTestTradeoff:
    """The exact trade-off curve beta_n(alpha) of P^n = (p0 K)^{⊗n} vs Q^n = (p1 K)^{⊗n}, and its exponents.

    ``alpha``, ``beta``, ``log_beta`` (natural log, −inf where beta = 0), ``threshold`` and ``randomisation``
    have the shape of the `alpha` given (floats for a scalar). The optimal test at level alpha rejects H0 when
    the log-likelihood ratio ``Σ_j c_j log(Q_j/P_j)`` of the counts exceeds ``threshold``, and with probability
    ``randomisation`` when it equals it (to within `LLR_TIE_RTOL`). ``alpha_vertices``, ``beta_vertices``: the
    corners of the piecewise-linear curve (alpha increasing from 0; the curve is linear between them; the first
    vertices may share alpha = 0). ``law0``, ``law1``: the one-sample output laws P, Q.

    Exponents, nats: ``stein_exponent`` = D(p0 K || p1 K) (Chernoff–Stein: −(1/n) log beta_n(alpha) → it),
    ``kl_input`` = D(p0 || p1), ``phi_bound`` = phi(eps, delta) · D(p0 || p1) and ``eta_tv_bound`` =
    eta_TV(K) · D(p0 || p1), both >= stein_exponent (AAC-phi; eta_KL <= eta_TV <= phi). ``eps`` (nats) and
    ``delta`` are the privacy parameters phi is evaluated at; ``eta_tv`` is Dobrushin's coefficient of K.
    """

    n: int
    alpha: float | NDArray[np.float64]
    beta: float | NDArray[np.float64]
    log_beta: float | NDArray[np.float64]
    threshold: float | NDArray[np.float64]
    randomisation: float | NDArray[np.float64]
    alpha_vertices: NDArray[np.float64]
    beta_vertices: NDArray[np.float64]
    law0: NDArray[np.float64]
    law1: NDArray[np.float64]
    stein_exponent: float
    kl_input: float
    eps: float
    delta: float
    phi: float
    phi_bound: float
    eta_tv: float
    eta_tv_bound: float


def private_test_tradeoff(channel: Any, p0: Any, p1: Any, n: int, alpha: ArrayLike, *, delta: float = 0.0,
                          eps: float | None = None) -> PrivateTestTradeoff:
    """beta_n(alpha) = min{ Q^n(accept H0) : P^n(reject H0) <= alpha } over randomised tests, P = p0 K, Q = p1 K.

    THEORY: AAC-Test. This is the trade-off (f-DP) curve T((p0 K)^{⊗n}, (p1 K)^{⊗n})(alpha) of the pair of
    n-sample output laws. Exact: the count classes are sorted by their log-likelihood ratio log Q^n/P^n (highest
    first), rejected in that order until their P^n-mass reaches alpha, the boundary class with the probability
    that fills alpha exactly (Neyman–Pearson). Output symbols with the same ratio Q_j/P_j are merged first (their
    total count is sufficient), then the counts of the rest are enumerated: Binomial for two ratio classes (any
    n), Multinomial otherwise (at most `markovdp.guarantees.le_cam.MAX_COUNT_VECTORS` count vectors). beta is
    summed from the tail in log space, so ``log_beta`` stays accurate where beta underflows.

    Beside it, AAC-phi: the Chernoff–Stein exponent D(p0 K || p1 K) <= eta_TV(K) D(p0 || p1) <= phi(eps, delta)
    D(p0 || p1) (``eta_KL <= eta_TV``, and phi(0, eta_TV) = eta_TV, so the eta_TV bound is never the weaker).

    Parameters
    ----------
    channel : FiniteKernel, finite mechanism, or array-like (k, m)
        The channel K each sample goes through.
    p0, p1 : Categorical or array-like (k,)
        The input laws under H0 and H1.
    n : int
        Number of samples, >= 1.
    alpha : float or array-like
        Type-I error levels (the P^n-probability of rejecting H0), in [0, 1].
    delta : float, default 0
        The delta at which phi(eps, delta) is evaluated, in [0, 1].
    eps : float, optional
        The channel's eps at `delta` (nats); default the exact one, ``ldp_epsilon(channel, delta)``. A given eps
        must be one at which the channel is (eps, delta)-LDP (AAC-T1: ``dobrushin(channel, eps) <= delta``).

    Raises
    ------
    ValueError
        Bad `channel`, `p0`, `p1`, `n`, `alpha`, `delta` or `eps` (an eps at which the channel is not
        (eps, delta)-LDP); too many count vectors.
    IncompatibleSpaces
        `p0` or `p1` not a law on the channel's k inputs.
    """
    matrix = _channel_matrix(channel)
    p0, p1 = _input_laws("private_test_tradeoff", matrix, p0, p1)
    n = check_int("n", n, minimum=1)
    levels = np.asarray(check_probability("alpha", alpha), dtype=np.float64)
    delta = float(check_probability("delta", delta))
    eps = _certified_eps(matrix, delta, eps)
    law0, law1 = _pushed(p0, matrix), _pushed(p1, matrix)

    alpha_cum, log_q, llr = _sorted_classes(law0, law1, n)
    beta, log_beta, threshold, randomisation = _at_levels(levels.reshape(-1), alpha_cum, log_q, llr)
    log_tail = _log_tails(log_q)
    alpha_vertices = np.concatenate([[0.0], np.minimum(alpha_cum, 1.0)])
    beta_vertices = np.exp(log_tail)

    kl_input, stein = kl_finite(p0, p1), kl_finite(law0, law1)
    phi, eta_tv = ldp_contraction_bound(eps, delta), dobrushin(matrix, 0.0)

    def shaped(values: NDArray[np.float64]) -> float | NDArray[np.float64]:
        return float(values[0]) if levels.ndim == 0 else readonly(values.reshape(levels.shape))

    return PrivateTestTradeoff(
        n=n, alpha=shaped(levels.reshape(-1)), beta=shaped(beta), log_beta=shaped(log_beta),
        threshold=shaped(threshold), randomisation=shaped(randomisation), alpha_vertices=readonly(alpha_vertices),
        beta_vertices=readonly(beta_vertices), law0=readonly(law0), law1=readonly(law1), stein_exponent=stein,
        kl_input=kl_input, eps=eps, delta=delta, phi=phi, phi_bound=_times(phi, kl_input), eta_tv=eta_tv,
        eta_tv_bound=_times(eta_tv, kl_input))


def _channel_matrix(channel: Any) -> NDArray[np.float64]:
    """The validated row-stochastic matrix of a finite channel (``.matrix``) or of an array-like."""
    matrix = getattr(channel, "matrix", None)
    if matrix is None and hasattr(channel, "sample") and not isinstance(channel, (np.ndarray, list, tuple)):
        raise NotImplementedError(f"The trade-off is exact only for finite channels; got {type(channel).__name__}.")
    return check_stochastic_matrix("channel", channel if matrix is None else matrix)


def _certified_eps(matrix: NDArray[np.float64], delta: float, eps: Any) -> float:
    """The channel's exact eps at delta, or the given eps after checking the channel is (eps, delta)-LDP there."""
    if eps is None:
        return ldp_epsilon(matrix, delta)
    value = float(check_eps("eps", eps, allow_inf=True))
    if dobrushin(matrix, value) > delta:
        raise fail("eps", f"a level at which the channel is (eps, delta = {delta!r})-LDP, i.e. >= "
                          f"ldp_epsilon(channel, delta) = {ldp_epsilon(matrix, delta)!r}", value)
    return value


def _times(factor: float, divergence: float) -> float:
    """factor · divergence, 0 when the factor is 0 (a channel that contracts everything to 0: D(p0K||p1K) = 0)."""
    return 0.0 if factor == 0.0 else factor * divergence


def _merged(law0: NDArray[np.float64], law1: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The two laws on the classes of output symbols with one ratio law1/law0 (inf where law0 = 0; symbols of mass 0
    under both dropped): the count of each class is sufficient for the likelihood ratio, so nothing is lost."""
    used = (law0 > 0) | (law1 > 0)
    p, q = law0[used], law1[used]
    with np.errstate(divide="ignore"):
        ratio = np.where(p > 0, q / np.where(p > 0, p, 1.0), np.inf)
    _, group = np.unique(ratio, return_inverse=True)
    return np.bincount(group, weights=p), np.bincount(group, weights=q)


def _sorted_classes(law0: NDArray[np.float64], law1: NDArray[np.float64],
                    n: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Count classes sorted by LLR = log Q^n/P^n, highest first: the cumulative P^n-mass (alpha after rejecting
    classes 0..i), log Q^n of each class and the LLR (+inf where P^n = 0, −inf where Q^n = 0)."""
    p, q = _merged(law0, law1)
    log_p, log_q = _count_log_pmfs(p / p.sum(), q / q.sum(), n)
    used = ~(np.isneginf(log_p) & np.isneginf(log_q))
    log_p, log_q = log_p[used], log_q[used]
    with np.errstate(invalid="ignore"):
        llr = np.where(np.isneginf(log_p), np.inf, np.where(np.isneginf(log_q), -np.inf, log_q - log_p))
    order = np.argsort(-llr, kind="stable")
    alpha_cum = np.cumsum(np.exp(log_p[order]))
    return alpha_cum / alpha_cum[-1], log_q[order], llr[order]  # the total is 1 up to rounding: make it 1


def _log_tails(log_q: NDArray[np.float64]) -> NDArray[np.float64]:
    """out[i] = log Σ_{j >= i} Q^n(class j), i = 0..C (out[C] = −inf): beta after rejecting classes 0..i−1."""
    out = np.full(log_q.size + 1, -np.inf)
    out[:-1] = np.logaddexp.accumulate(log_q[::-1])[::-1]
    return out


def _at_levels(levels: NDArray[np.float64], alpha_cum: NDArray[np.float64], log_q: NDArray[np.float64],
               llr: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """beta, log beta, the test's threshold and randomisation at each alpha (Neyman–Pearson, boundary randomised)."""
    size = alpha_cum.size
    log_tail = _log_tails(log_q)
    b = np.searchsorted(alpha_cum, levels, side="right")  # the boundary class: the first with cumulative > alpha
    inside = b < size
    bi = np.minimum(b, size - 1)
    before = np.where(bi > 0, alpha_cum[np.maximum(bi - 1, 0)], 0.0)
    mass = alpha_cum[bi] - before
    frac = np.where(inside, np.clip((levels - before) / np.where(mass > 0, mass, 1.0), 0.0, 1.0), 1.0)
    with np.errstate(divide="ignore"):
        partial = np.where(inside, np.log1p(-frac) + log_q[bi], -np.inf)
    log_beta = np.logaddexp(log_tail[np.minimum(b + 1, size)], partial)
    log_beta = np.where(inside, log_beta, -np.inf)
    threshold = np.where(inside, llr[bi], -np.inf)
    randomisation = np.array([_group_randomisation(a, t, alpha_cum, llr) for a, t in zip(levels, threshold,
                                                                                          strict=True)])
    return np.minimum(np.exp(log_beta), 1.0), np.minimum(log_beta, 0.0), threshold, randomisation


def _group_randomisation(alpha: float, threshold: float, alpha_cum: NDArray[np.float64],
                         llr: NDArray[np.float64]) -> float:
    """The probability of rejecting at LLR == threshold (all classes within `LLR_TIE_RTOL` of it as one level)."""
    if not math.isfinite(threshold):
        return 1.0
    tol = LLR_TIE_RTOL * max(1.0, abs(threshold))
    # llr is sorted descending: the tie group is the run of classes in [threshold − tol, threshold + tol]
    first = int(np.searchsorted(-llr, -(threshold + tol), side="left"))
    last = int(np.searchsorted(-llr, -(threshold - tol), side="right"))
    above = alpha_cum[first - 1] if first > 0 else 0.0
    mass = alpha_cum[last - 1] - above
    return float(np.clip((alpha - above) / mass, 0.0, 1.0)) if mass > 0 else 1.0


__all__ = ["LLR_TIE_RTOL", "PrivateTestTradeoff", "private_test_tradeoff"]
