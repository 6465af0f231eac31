"""Event (split-sample) estimators of E_gamma and R_alpha from samples on R^d, with exact binomial bounds.

THEORY: Notation (E_gamma = sup_E P(E) − gamma Q(E), data processing, STD-DPI); DESIGN §6. STD-EventBound.

An event E fixed before the evaluation samples are seen gives, for *every* pair of laws,
``P(E) − gamma Q(E) <= E_gamma(P||Q)``; one-sided Clopper–Pearson (CP) bounds pL <= P(E), qU >= Q(E) from the
evaluation samples then make ``[pL − gamma qU]_+`` a lower confidence bound for E_gamma — whatever the event.
The events used here:

* **likelihood-ratio events** (both log-densities known): ``E_t = {x : log p(x) − log q(x) > t}``. With t = eps
  (the population optimum: ``P(E_eps) − gamma Q(E_eps) = E_gamma`` exactly) the event is fixed in advance, so
  every sample evaluates it and CP bounds on P(E) and Q(E) from both sides give a two-sided interval; the
  upper end assumes the callables are the exact, normalised log-densities of the sampled laws. With a list of
  candidate thresholds, t is chosen on the first halves and evaluated on the second halves (lower bound only).
* **histogram events** (no densities): both samples are counted on common cells chosen on the pooled first
  halves, and the counts go to the split estimator of :func:`~markovdp.divergences.estimate.
  estimate_hockey_stick_from_counts` (the event {p1 > gamma q1} chosen on the first halves). For d > 1 the
  points are first projected on a direction (by default the difference of the first-half means): a
  projection is a post-processing, so by data processing the bound on the projected laws is still a lower
  bound for the laws on R^d. The Rényi divergence of the binned (projected) laws is likewise <= the true one.

Halves follow estimate.py: the first ``n // 2`` samples of each side select, the rest evaluate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_int, check_order, check_real, fail
from .estimate import (
    Estimate,
    Real,
    _check_confidence,
    _cp_lower,
    _cp_upper,
    _excess,
    _out,
    _renyi,
    estimate_hockey_stick_from_counts,
    split_counts,
)

__all__ = ["estimate_hockey_stick_event", "estimate_renyi_histogram"]

LogDensity = Callable[[NDArray[np.float64]], ArrayLike]

#: Default number of cells of the histogram estimators (equal width between two outer quantile cells).
DEFAULT_BINS = 32
#: The range of the cells is taken from at most this many (evenly strided) points of the first halves.
_RANGE_POINTS = 2**16


# ---------------------------------------------------------------------------------------------
# points of R^d and log-density ratios (shared with estimate_density_ratio)


def _all_finite(arr: NDArray[np.float64]) -> bool:
    if arr.flags.c_contiguous:
        from ._estimate_kernels import all_finite  # numba: imported where used

        return bool(all_finite(arr.reshape(-1)))
    return bool(np.isfinite(arr.min()) and np.isfinite(arr.max()))


def _points(name: str, samples: Any) -> tuple[NDArray[np.float64], int]:
    """Finite points of R^d as (array, d): shape (n,) when d = 1 ((n, 1) is read as (n,)), (n, d) otherwise.

    A float64 array is used as is (no copy) once it is found finite (C-contiguous: one numba pass; otherwise its
    min and max); anything else goes through `check_real`, which names the offending value.
    """
    arr = samples if isinstance(samples, np.ndarray) and samples.dtype == np.float64 else None
    if arr is None or not (arr.size and _all_finite(arr)):
        arr = np.asarray(check_real(name, samples), dtype=np.float64)
    if arr.ndim not in (1, 2) or arr.shape[0] == 0 or (arr.ndim == 2 and arr.shape[1] == 0):
        raise fail(name, "a non-empty array of points of R^d, shape (n,) or (n, d)", f"shape {arr.shape}")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return arr, (1 if arr.ndim == 1 else arr.shape[1])


def _point_pair(samples_p: Any, samples_q: Any) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Both samples as points of the same R^d (`IncompatibleSpaces` naming both sizes otherwise)."""
    from ..spaces import IncompatibleSpaces

    xp, dp = _points("samples_p", samples_p)
    xq, dq = _points("samples_q", samples_q)
    if dp != dq:
        raise IncompatibleSpaces(f"`samples_q` are points of R^{dq}; `samples_p` are points of R^{dp}.")
    return xp, xq, dp


def _values_at(name: str, fn: Any, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """fn(x) as a float array of shape (n,)."""
    if not callable(fn):
        raise fail(name, "a callable of the points x (shape (n,) or (n, d)) returning one value per point",
                   repr(fn), TypeError)
    values = np.asarray(fn(x), dtype=np.float64)
    if values.shape != (x.shape[0],):
        raise fail(name, f"a callable returning one value per point, shape ({x.shape[0]},)",
                   f"shape {values.shape}")
    return values


def _log_ratio(densities: tuple[Any, Any, Any], x: NDArray[np.float64], side: str) -> NDArray[np.float64]:
    """L(x) = log p(x) − log q(x) at samples of one side (nats); +inf where q = 0 < p, −inf where p = 0 < q.

    `densities` is (log_density_p, log_density_q, log_ratio) as checked by :func:`_densities`.
    """
    log_density_p, log_density_q, log_ratio = densities
    if log_ratio is not None:
        loss = _values_at("log_ratio", log_ratio, x)
        if np.isnan(loss).any():
            raise fail("log_ratio", "a log-density ratio: not NaN at any point", float("nan"))
        return loss
    lp = _values_at("log_density_p", log_density_p, x)
    lq = _values_at("log_density_q", log_density_q, x)
    with np.errstate(invalid="ignore"):
        loss = lp - lq
    if lp.max() == np.inf or lq.max() == np.inf or np.isnan(loss).any():  # one pass each on the common path
        for name, values in (("log_density_p", lp), ("log_density_q", lq)):
            bad = np.isnan(values) | (values == np.inf)
            if bad.any():
                raise fail(name, "a log density: finite or -inf at every point (not NaN or +inf)", values[bad][0])
        raise fail(f"samples_{side}", "points where p or q is positive (both log-densities are -inf at one)",
                   f"sample {int(np.flatnonzero(np.isnan(loss))[0])}")
    return loss


def _densities(log_density_p: Any, log_density_q: Any, log_ratio: Any, *, required: bool,
               ) -> tuple[Any, Any, Any] | None:
    """Both log-densities, or `log_ratio` alone (or nothing when not `required`); None when nothing is given."""
    given = (log_density_p is not None, log_density_q is not None, log_ratio is not None)
    if given == (False, False, False):
        if required:
            raise fail("log_density_p", "given with `log_density_q` (or `log_ratio` alone)", None)
        return None
    if given[2] and (given[0] or given[1]):
        raise fail("log_ratio", "None when the log-densities are given (give one or the other)", "given")
    if not given[2] and given[0] != given[1]:
        missing = "log_density_q" if given[0] else "log_density_p"
        raise fail(missing, "given together with the other log-density (or both None)", None)
    return log_density_p, log_density_q, log_ratio


def _halves(x: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    cut = x.shape[0] // 2
    return x[:cut], x[cut:]


def _check_split_sizes(xp: NDArray[Any], xq: NDArray[Any]) -> None:
    for name, x in (("samples_p", xp), ("samples_q", xq)):
        if x.shape[0] < 2:
            raise fail(name, "at least 2 samples (a selection and an evaluation half)", f"{x.shape[0]} sample")


# ---------------------------------------------------------------------------------------------
# projections and histograms (no densities)


def _direction(direction: Any, xp: NDArray[np.float64], xq: NDArray[np.float64], d: int,
               ) -> tuple[NDArray[np.float64], str]:
    """A unit direction of R^d and how it was chosen: given, or the difference of the means of the first halves
    (over at most `_RANGE_POINTS` evenly strided points of them), so it depends on the first halves only."""
    if direction is not None:
        v = np.asarray(check_real("direction", direction), dtype=np.float64)
        if v.shape != (d,):
            raise fail("direction", f"a vector of R^{d}, shape ({d},)", f"shape {v.shape}")
        norm = float(np.linalg.norm(v))
        if norm == 0.0:
            raise fail("direction", "a non-zero vector", "the zero vector")
        return v / norm, "the given direction"
    first_p, first_q = _halves(xp)[0], _halves(xq)[0]
    stride = max(1, (first_p.shape[0] + first_q.shape[0]) // _RANGE_POINTS)  # a function of the first halves
    v = first_p[::stride].mean(axis=0) - first_q[::stride].mean(axis=0)
    norm = float(np.linalg.norm(v))
    if not np.isfinite(norm) or norm == 0.0:
        return np.eye(d)[0], "the first axis (the first-half means coincide)"
    return v / norm, "the difference of the first-half means"


def _projected(xp: NDArray[np.float64], xq: NDArray[np.float64], d: int, direction: Any,
               ) -> tuple[NDArray[np.float64], NDArray[np.float64], str]:
    """The samples on R (projected on a direction when d > 1) and the note for `method`."""
    if d == 1:
        if direction is not None:
            raise fail("direction", "None for samples on R^1", "a direction")
        return xp, xq, ""
    v, how = _direction(direction, xp, xq, d)
    return xp @ v, xq @ v, f", projected from R^{d} on {how}"


def _histogram_counts(yp: NDArray[np.float64], yq: NDArray[np.float64], bins: Any,
                      ) -> tuple[NDArray[np.int64], NDArray[np.int64], str]:
    """Split counts (row 0 first halves, row 1 second halves) of both samples on common cells chosen on the
    pooled first halves only, and the note for `method`.

    A number of bins m >= 3: m − 2 equal-width cells between the 1/(2m) and 1 − 1/(2m) quantiles of (at most
    `_RANGE_POINTS` evenly strided points of) the pooled first halves, plus two outer cells. Explicit edges:
    :func:`~markovdp.divergences.estimate.split_counts` (outer edges −inf/+inf added).
    """
    if bins is not None and np.ndim(bins) > 0:
        return split_counts(yp, edges=bins), split_counts(yq, edges=bins), ", given edges"
    m = DEFAULT_BINS if bins is None else check_int("bins", bins, minimum=3)
    firsts = (_halves(yp)[0], _halves(yq)[0])
    stride = max(1, (firsts[0].size + firsts[1].size) // _RANGE_POINTS)
    pooled = np.concatenate([half[::stride] for half in firsts])
    low, high = np.quantile(pooled, [0.5 / m, 1.0 - 0.5 / m])  # each outer cell holds ~1/(2m) of the mass
    if not high > low:  # all selection points (nearly) equal: two cells split at that value
        m, scale = 2, 0.0
    else:
        scale = (m - 2) / (high - low)
    from ._estimate_kernels import split_cell_counts  # numba: imported where used

    def counts(y: NDArray[np.float64]) -> NDArray[np.int64]:
        return split_cell_counts(np.ascontiguousarray(y), float(low), float(scale), m, y.size // 2)

    return counts(yp), counts(yq), f", {m} cells"


# ---------------------------------------------------------------------------------------------
# hockey-stick


def _lr_event(lp: NDArray[np.float64], lq: NDArray[np.float64], eps: Real, confidence: float,
              thresholds: Any) -> tuple[NDArray[np.float64], ...]:
    """(value, ci_low, ci_high) of the likelihood-ratio event estimator."""
    eps_arr = np.asarray(eps, dtype=np.float64)
    with np.errstate(over="ignore"):
        gamma = np.exp(eps_arr)

    def count(loss: NDArray[np.float64], t: NDArray[np.float64]) -> NDArray[np.int64]:
        flat = [np.count_nonzero(loss > ti) for ti in t.reshape(-1)]
        return np.asarray(flat, dtype=np.int64).reshape(t.shape)

    if thresholds is None:  # E = {L > eps}, fixed in advance: every sample evaluates it
        xp, xq = count(lp, eps_arr), count(lq, eps_arr)
        n_p, n_q = lp.size, lq.size
        miss = (1.0 - confidence) / 4  # Bonferroni over both sides of the bounds on P(E) and Q(E)
        high = np.minimum(1.0, _excess(_cp_upper(xp, n_p, miss), gamma, _cp_lower(xq, n_q, miss)))
    else:
        t = np.asarray(check_real("thresholds", thresholds), dtype=np.float64).reshape(-1)
        if t.size == 0:
            raise fail("thresholds", "a non-empty list of candidate thresholds (nats)", "an empty list")
        (sel_p, ev_p), (sel_q, ev_q) = _halves(lp), _halves(lq)
        sel_hat_p = count(sel_p, t) / sel_p.size  # P1(E_t) for each candidate t
        sel_hat_q = count(sel_q, t) / sel_q.size
        with np.errstate(invalid="ignore", over="ignore"):
            gain = sel_hat_p - np.where(sel_hat_q > 0, gamma[..., None] * sel_hat_q, 0.0)
        chosen = t[np.argmax(gain, axis=-1)]  # the best candidate on the selection halves, per eps
        xp, xq = count(ev_p, chosen), count(ev_q, chosen)
        n_p, n_q = ev_p.size, ev_q.size
        miss = (1.0 - confidence) / 2  # Bonferroni over the lower bound on P(E) and the upper bound on Q(E)
        high = np.full(np.shape(xp), np.nan)
    value = np.clip(_excess(xp / n_p, gamma, xq / n_q), 0.0, 1.0)
    low = np.minimum(1.0, _excess(_cp_lower(xp, n_p, miss), gamma, _cp_upper(xq, n_q, miss)))
    return value, low, high


def estimate_hockey_stick_event(samples_p: ArrayLike, samples_q: ArrayLike, *, eps: ArrayLike,
                                log_density_p: LogDensity | None = None, log_density_q: LogDensity | None = None,
                                log_ratio: LogDensity | None = None, thresholds: ArrayLike | None = None,
                                bins: int | ArrayLike | None = None, direction: ArrayLike | None = None,
                                confidence: float = 0.95, seed: Any = None) -> Estimate:
    """Lower confidence bound for E_{e^eps}(P||Q) on R^d from the advantage P(E) − e^eps Q(E) of an event E.

    THEORY: Notation (E_gamma = sup_E P(E) − gamma Q(E)), STD-DPI (projection); STD-EventBound. DESIGN §6.

    With both log-densities (or their difference `log_ratio`; L = log p − log q in nats):

    * ``thresholds=None`` (method ``"lr-fixed"``): E = {L > eps}, fixed before sampling, evaluated on all
      samples; exact one-sided CP bounds at miss (1 − confidence)/4 each give
      ``ci_low = [pL − gamma qU]_+`` and ``ci_high = min(1, pU − gamma qL)``, simultaneously valid at level
      `confidence`. ``ci_low`` is valid for any callables; ``ci_high`` when they are the exact normalised
      log-densities of the sampled laws (then P(E) − gamma Q(E) = E_gamma).
    * ``thresholds`` a list of candidate t (method ``"lr-split"``): t maximising the first-half advantage
      is evaluated on the second halves; ``ci_low`` as above at miss (1 − confidence)/2 each; ``ci_high`` NaN.

    Without densities (method ``"histogram-split, <m> cells"``): the samples (projected when d > 1 on
    `direction`, default the difference of the first-half means, said in `method`) are counted on common cells
    chosen on the pooled first halves — `bins` cells (default 32): two outer cells at the 1/(2 bins) and
    1 − 1/(2 bins) quantiles and equal-width cells between them; or explicit edges — and passed to
    :func:`~markovdp.divergences.estimate.estimate_hockey_stick_from_counts` (method ``"split"``: the event
    {p1 > gamma q1} from the first halves, CP bounds from the second halves). ``ci_high`` NaN.

    Parameters
    ----------
    samples_p, samples_q : array_like, shape (n,) or (n, d)
        Independent samples of P and of Q on the same R^d (sizes may differ).
    eps : float or array_like
        eps >= 0 in nats (gamma = e^eps); an array gives fields of its shape.
    log_density_p, log_density_q : callable, optional
        Both or neither: x (shape (n,) for d = 1, (n, d) otherwise) -> log density at each point (−inf allowed).
    log_ratio : callable, optional
        Instead of the two log-densities: x -> log p(x) − log q(x) (±inf allowed), e.g. a closed form.
    thresholds : array_like, optional
        Candidate thresholds t (nats) of the events {L > t}; only with log-densities.
    bins : int or array_like, optional
        Only without log-densities: number of cells (>= 3) or bin edges (of the projection when d > 1).
    direction : array_like, shape (d,), optional
        Only without log-densities and d > 1: a fixed projection direction chosen without these samples.
    confidence : float
        Level in (0, 1).
    seed : optional
        Recorded in the Estimate.

    Returns
    -------
    Estimate
        ``n`` is the smaller sample size.

    Raises
    ------
    ValueError, TypeError
        NaN/inf or empty samples, `eps` < 0 or NaN, `confidence` outside (0, 1), one log-density without the
        other (or with `log_ratio`), a callable returning NaN/+inf (log-densities) or the wrong shape,
        `thresholds` without densities, `bins`/`direction` with densities, fewer than 2 samples per side where
        halves are needed.
    IncompatibleSpaces
        `samples_p` and `samples_q` on different R^d (both sizes named).
    """
    eps = check_eps("eps", eps)
    confidence = _check_confidence(confidence)
    xp, xq, d = _point_pair(samples_p, samples_q)
    n = min(xp.shape[0], xq.shape[0])
    densities = _densities(log_density_p, log_density_q, log_ratio, required=False)
    if densities is not None:
        for name, value in (("bins", bins), ("direction", direction)):
            if value is not None:
                raise fail(name, "None when the log-densities are given (the event is a likelihood-ratio set)",
                           "given")
        if thresholds is not None:
            _check_split_sizes(xp, xq)
        value, low, high = _lr_event(_log_ratio(densities, xp, "p"), _log_ratio(densities, xq, "q"), eps,
                                     confidence, thresholds)
        method = "lr-fixed" if thresholds is None else "lr-split"
        return Estimate(_out(value), _out(low), _out(high), n, method, confidence, seed)
    if thresholds is not None:
        raise fail("thresholds", "None without log-densities (thresholds are on log p − log q)", "given")
    _check_split_sizes(xp, xq)
    yp, yq, note = _projected(xp, xq, d, direction)
    cp, cq, cells = _histogram_counts(yp, yq, bins)
    est = estimate_hockey_stick_from_counts(cp, cq, eps=eps, confidence=confidence, method="split", seed=seed)
    return dataclasses.replace(est, n=n, method="histogram-split" + cells + note)


# ---------------------------------------------------------------------------------------------
# Rényi


def estimate_renyi_histogram(samples_p: ArrayLike, samples_q: ArrayLike, *, alpha: ArrayLike,
                             bins: int | ArrayLike | None = None, direction: ArrayLike | None = None,
                             confidence: float = 0.95, seed: Any = None) -> Estimate:
    """Histogram plug-in of R_alpha(P||Q) on R^d, with a valid lower confidence bound.

    THEORY: Notation (Rényi divergence), STD-DPI; STD-EventBound. DESIGN §6.

    Both samples (projected when d > 1 on `direction`, default the difference of the first-half means) are
    counted on common cells chosen on the pooled first halves, as in :func:`estimate_hockey_stick_event`
    (default 32 equal-width cells), and the second halves go to the box of
    :func:`~markovdp.divergences.estimate.estimate_renyi_from_counts`. Binning and projecting are
    post-processings, so the Rényi divergence of the binned laws is <= the true one: the estimand is a lower
    bound of R_alpha and ``ci_low`` (the box, Bonferroni over the 2m cells) is a valid lower confidence bound
    for the true R_alpha at level `confidence`; ``ci_high`` is NaN. The plug-in value itself is biased
    *upwards* for its estimand at small counts per cell (and +inf if a cell has P-samples but no Q-sample).
    Fewer cells tighten ``ci_low`` (smaller Bonferroni factor) and lower the estimand: at n = 2000 per side,
    4 cells give a useful ``ci_low``, 32 cells often 0.

    Parameters
    ----------
    samples_p, samples_q : array_like, shape (n,) or (n, d)
        Independent samples of P and of Q on the same R^d, at least 2 each.
    alpha : float or array_like
        Orders in (1, inf].
    bins : int or array_like, optional
        Number of cells (>= 3) or bin edges on R (of the projection when d > 1).
    direction : array_like, shape (d,), optional
        d > 1 only: a fixed projection direction chosen without these samples.
    confidence : float
        Level in (0, 1).
    seed : optional
        Recorded in the Estimate.

    Returns
    -------
    Estimate
        `method` is ``"histogram, <m> cells"``, with the projection named when d > 1.

    Raises
    ------
    ValueError, TypeError
        As :func:`estimate_hockey_stick_event`, with `alpha` <= 1 or NaN in place of a bad `eps`.
    IncompatibleSpaces
        `samples_p` and `samples_q` on different R^d (both sizes named).
    """
    alpha = check_order("alpha", alpha)
    confidence = _check_confidence(confidence)
    xp, xq, d = _point_pair(samples_p, samples_q)
    _check_split_sizes(xp, xq)
    yp, yq, note = _projected(xp, xq, d, direction)
    cp, cq, cells = _histogram_counts(yp, yq, bins)
    # the box's upper end bounds the binned laws only: not computed, ci_high NaN
    est = _renyi(cp[1:], cq[1:], alpha, confidence, "histogram" + cells + note, upper=False, seed=seed)
    return dataclasses.replace(est, n=min(xp.shape[0], xq.shape[0]))
