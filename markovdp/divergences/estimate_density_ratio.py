"""Density-ratio Monte Carlo estimators of E_gamma and R_alpha on R^d when both log-densities are known.

THEORY: Notation (E_gamma, R_alpha); DESIGN §6. STD-DensityRatioMC.

With L = log p − log q (nats) and X ~ P (samples of P only):

* **hockey-stick**: ``E_{e^eps}(P||Q) = ∫ [p − e^eps q]_+ = E_P[(1 − e^{eps − L})_+]``, a mean of terms in
  [0, 1] (the form of E_Q[(e^L − e^eps)_+] with bounded terms). Intervals: ``"bernstein"`` (empirical
  Bernstein, Maurer & Pontil 2009, Thm 4 — valid at every finite n), ``"hoeffding"`` (valid at every n,
  wider when the variance is small) or ``"clt"`` (normal approximation: approximate, not guaranteed).
* **Rényi**: ``R_alpha = log E_P[e^{(alpha − 1) L}] / (alpha − 1)`` — the P-form of E_Q[e^{alpha L}], whose
  weights have lighter tails (for a Gaussian shift of D/sigma = s, log-weights have sd (alpha − 1) s instead
  of alpha s). The mean of the weights is taken in log space (the logsumexp identity, relative to the largest
  weight); its CLT interval is mapped through the increasing map S -> log S / (alpha − 1). Approximate:
  heavy-tailed weights make both the value (biased low) and the interval unreliable, which the Kish effective
  sample size ``ess = (Σ w)² / Σ w²`` flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_range, fail
from .estimate import Estimate, Real, _check_confidence, _out
from .estimate_events import LogDensity, _densities, _log_ratio, _points, _values_at

__all__ = ["WeightedEstimate", "estimate_hockey_stick_importance", "estimate_renyi_density_ratio"]

_INTERVALS = ("bernstein", "hoeffding", "clt")


@dataclass(frozen=True, eq=False)
class WeightedEstimate(Estimate):
    """An `Estimate` from a weighted (importance) mean, with the weights' Kish effective sample size.

    Attributes
    ----------
    ess : float or ndarray
        ``(Σ w_i)² / Σ w_i²`` in [1, n] (shape of `alpha`): near n for even weights, small when a few
        weights dominate — then the value and the CLT interval are not to be trusted.
    """

    ess: Real = np.nan

    def _key(self) -> tuple[Any, ...]:
        return (*super()._key(), self.ess)


def _z(confidence: float) -> float:
    from scipy.special import ndtri  # here, not at import

    return float(ndtri(0.5 + confidence / 2))


def _loss(samples_p: Any, log_density_p: Any, log_density_q: Any, log_ratio: Any) -> NDArray[np.float64]:
    """L = log p − log q at the samples of P (at least 2 of them), C-contiguous.

    A `log_ratio` callable's values are not checked for NaN here: the caller's one pass over L does it (raise
    :func:`_nan_log_ratio`). Values of the two log-densities are checked by `_log_ratio`.
    """
    xp = _points("samples_p", samples_p)[0]
    densities = _densities(log_density_p, log_density_q, log_ratio, required=True)
    if xp.shape[0] < 2:
        raise fail("samples_p", "at least 2 samples (a variance is estimated)", f"{xp.shape[0]} sample")
    if log_ratio is not None:
        loss = _values_at("log_ratio", log_ratio, xp)
    else:
        loss = _log_ratio(densities, xp, "p")
    return np.ascontiguousarray(loss)


def _nan_log_ratio() -> ValueError:
    return fail("log_ratio", "a log-density ratio: not NaN at any point", float("nan"))


def estimate_hockey_stick_importance(samples_p: ArrayLike, *, eps: ArrayLike,
                                     log_density_p: LogDensity | None = None,
                                     log_density_q: LogDensity | None = None, log_ratio: LogDensity | None = None,
                                     confidence: float = 0.95, interval: str = "bernstein",
                                     seed: Any = None) -> Estimate:
    """Estimate E_{e^eps}(P||Q) = E_P[(1 − e^{eps − L})_+], L = log p − log q, from samples of P.

    THEORY: Notation (E_gamma = ∫ [p − gamma q]_+); STD-DensityRatioMC. DESIGN §6.

    The terms T_i = (1 − e^{eps − L_i})_+ lie in [0, 1] (absolute error < 2^-51 each at any eps, one vectorised
    numba pass); value = their mean m, with s² their sample variance and miss = 1 − confidence:

    * ``"bernstein"``: m ± (sqrt(2 s² log(4/miss) / n) + 7 log(4/miss) / (3 (n − 1))) — valid at every n >= 2;
    * ``"hoeffding"``: m ± sqrt(log(2/miss) / (2 n)) — valid at every n;
    * ``"clt"``: m ± z s / sqrt(n), z the (1 + confidence)/2 normal quantile — approximate (asymptotic).

    Both ends are clipped into [0, 1] and form a two-sided interval at level `confidence`, valid when the
    callables are the exact normalised log-densities of P (sampled) and Q.

    Parameters
    ----------
    samples_p : array_like, shape (n,) or (n, d)
        Independent samples of P on R^d, n >= 2.
    eps : float or array_like
        eps >= 0 in nats; an array gives fields of its shape.
    log_density_p, log_density_q : callable, optional
        x -> log density at each point (−inf allowed); or instead
    log_ratio : callable, optional
        x -> log p(x) − log q(x) (±inf allowed), e.g. a closed form.
    confidence : float
        Level in (0, 1).
    interval : {"bernstein", "hoeffding", "clt"}
        The interval construction; `method` is ``"importance-" + interval``.
    seed : optional
        Recorded in the Estimate.

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError, TypeError
        NaN/inf samples or fewer than 2, `eps` < 0 or NaN, `confidence` outside (0, 1), an unknown
        `interval`, neither both log-densities nor `log_ratio`, a callable that returns NaN (or +inf for a
        log-density) or the wrong shape.
    """
    eps = check_eps("eps", eps)
    confidence = _check_confidence(confidence)
    if not isinstance(interval, str) or interval not in _INTERVALS:
        raise fail("interval", "one of " + ", ".join(repr(i) for i in _INTERVALS), repr(interval),
                   ValueError if isinstance(interval, str) else TypeError)
    loss = _loss(samples_p, log_density_p, log_density_q, log_ratio)
    n = loss.size
    flat_eps = np.asarray(eps, dtype=np.float64).reshape(-1)
    mean, var = np.empty(flat_eps.size), np.empty(flat_eps.size)
    from ._estimate_kernels import hockey_stick_term_sums  # numba: imported where used

    for i, e in enumerate(flat_eps):
        s1, s2 = hockey_stick_term_sums(loss, float(e))
        if np.isnan(s1):  # terms lie in [0, 1]: only a NaN L gives a NaN sum
            raise _nan_log_ratio()
        mean[i] = s1 / n
        var[i] = max(s2 - s1 * mean[i], 0.0) / (n - 1)  # terms in [0, 1]: no harmful cancellation
    mean, var = mean.reshape(np.shape(eps)), var.reshape(np.shape(eps))
    miss = 1.0 - confidence
    if interval == "bernstein":
        log_term = np.log(4.0 / miss)
        half = np.sqrt(2.0 * var * log_term / n) + 7.0 * log_term / (3.0 * (n - 1))
    elif interval == "hoeffding":
        half = np.full(np.shape(mean), np.sqrt(np.log(2.0 / miss) / (2.0 * n)))
    else:
        half = _z(confidence) * np.sqrt(var / n)
    low, high = np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)
    return Estimate(_out(mean), _out(low), _out(high), n, "importance-" + interval, confidence, seed)


def estimate_renyi_density_ratio(samples_p: ArrayLike, *, alpha: ArrayLike, log_density_p: LogDensity | None = None,
                                 log_density_q: LogDensity | None = None, log_ratio: LogDensity | None = None,
                                 confidence: float = 0.95, seed: Any = None) -> WeightedEstimate:
    """Estimate R_alpha(P||Q) = log E_P[w] / (alpha − 1), w = e^{(alpha − 1) L}, L = log p − log q.

    THEORY: Notation (Rényi divergence); STD-DensityRatioMC. DESIGN §6.

    In log space, relative to the largest log-weight M: u_i = e^{(alpha − 1) L_i − M} in [0, 1] and
    ``log Ŝ = M + log(mean u)`` (the logsumexp identity; alpha up to 1e3 without overflow); where the mean u is
    above ½ (alpha near 1) the mean and variance come from the sums of u − 1 (expm1, no cancellation) and
    ``log(mean u) = log1p(mean(u − 1))``, accurate to 1e-9 at alpha = 1 + 1e-6. The interval maps
    the CLT interval mean(u) ± z s_u / sqrt(n) of the mean weight through S -> max(0, log S / (alpha − 1))
    (``ci_low = 0`` where the lower end is <= 0): **approximate** — heavy-tailed weights (large
    (alpha − 1) · separation) make it undercover; the Kish ``ess`` of the weights (a field of the returned
    `WeightedEstimate`) says when: trust it only where ``ess`` is a sizeable fraction of n. A sample with
    q = 0 < p (L = +inf) means R_alpha = +inf: value and both ends are +inf there.

    Parameters
    ----------
    samples_p : array_like, shape (n,) or (n, d)
        Independent samples of P on R^d, n >= 2.
    alpha : float or array_like
        Finite orders > 1; an array gives fields (and `ess`) of its shape.
    log_density_p, log_density_q : callable, optional
        x -> log density at each point (−inf allowed); or instead
    log_ratio : callable, optional
        x -> log p(x) − log q(x) (±inf allowed).
    confidence : float
        Level in (0, 1).
    seed : optional
        Recorded in the Estimate.

    Returns
    -------
    WeightedEstimate
        `method` is ``"density-ratio-clt"``; `ess` the Kish effective sample size of the weights.

    Raises
    ------
    ValueError, TypeError
        NaN/inf samples or fewer than 2, `alpha` <= 1, infinite or NaN, `confidence` outside (0, 1), neither
        both log-densities nor `log_ratio`, a callable that returns NaN (or +inf for a log-density) or the
        wrong shape.
    """
    alpha = check_range("alpha", alpha, low=1.0, low_open=True, allowed="in (1, inf) (finite)")
    confidence = _check_confidence(confidence)
    loss = _loss(samples_p, log_density_p, log_density_q, log_ratio)
    n = loss.size
    shape = np.shape(alpha)
    top_loss = float(loss.max())  # NaN if some L is NaN
    if np.isnan(top_loss):
        raise _nan_log_ratio()
    if top_loss == np.inf:  # q = 0 < p on a set of positive P-mass
        inf = np.full(shape, np.inf)
        ess = np.full(shape, float(np.count_nonzero(np.isposinf(loss))))
        return WeightedEstimate(_out(inf), _out(inf), _out(inf), n, "density-ratio-clt", confidence, seed,
                                ess=_out(ess))
    if top_loss == -np.inf:
        raise fail("log_density_p", "> -inf at some sample of P (the samples are not from this density)", "-inf")
    a1 = (alpha - 1.0).reshape(-1)
    value, low, high, ess = (np.empty(a1.size) for _ in range(4))
    z = _z(confidence)
    from ._estimate_kernels import weight_sums  # numba: imported where used

    for i, a in enumerate(a1):
        # the weights over the largest one, u in [0, 1] (a > 0: the same sample for every alpha); the mean and
        # variance from the sums of w = u − 1 when the mean u is near 1 (alpha near 1: log1p of mean w), else from
        # those of u (log of mean u), so that neither cancels
        u1, u2, w1, w2 = weight_sums(loss, float(a), top_loss)
        ess[i] = u1 * u1 / u2
        near_one = u1 > 0.5 * n
        s1, s2 = (w1, w2) if near_one else (u1, u2)
        log_of_mean_u = np.log1p if near_one else np.log  # of the mean of w = u − 1, or of u
        mean = s1 / n
        half = z * np.sqrt(max(s2 - s1 * mean, 0.0) / (n - 1)) / np.sqrt(n)
        value[i] = max((a * top_loss + log_of_mean_u(mean)) / a, 0.0)
        low[i] = max((a * top_loss + log_of_mean_u(mean - half)) / a, 0.0) if u1 / n > half else 0.0
        high[i] = max((a * top_loss + log_of_mean_u(mean + half)) / a, 0.0)
    fields = (value, low, high, ess)
    value, low, high, ess = (f.reshape(shape) for f in fields)
    return WeightedEstimate(_out(value), _out(low), _out(high), n, "density-ratio-clt", confidence, seed,
                            ess=_out(ess))
