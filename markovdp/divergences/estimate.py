"""Estimates of E_gamma and R_alpha from samples, with exact binomial confidence intervals.

THEORY: Notation (E_gamma, R_alpha, data processing); DESIGN §6.

Every estimator reduces the samples to *counts* first — an integer array of shape ``(2, m)`` per side,
row 0 for the selection half, row 1 for the evaluation half — and works on counts only, so counts from
independent batches add up exactly and a sweep's result never depends on its chunking. The sample-level
functions (:func:`estimate_hockey_stick`, :func:`estimate_renyi`) bin and call the count-level ones.

Two interval constructions, both from exact Clopper–Pearson (CP) binomial bounds:

* **box**: a CP interval for every cell probability of both laws, Bonferroni over the ``2m`` cells, so all
  cells are covered at once with probability >= `confidence`. E_gamma and the Rényi power sum are
  monotone in each cell (increasing in p_y, decreasing in q_y), so evaluating them at the box corners
  gives a two-sided interval for the divergence of the (binned) laws.
* **split**: the selection half chooses the event ``E = {y : p1(y) > gamma q1(y)}``; the evaluation half,
  independent of E, gives one-sided CP bounds on P(E) and Q(E). Since ``P(E) − gamma Q(E) <= E_gamma``
  for every event, the lower end is a valid lower confidence bound for the divergence (as in privacy
  auditing). Nothing bounds the divergence from above, so ``ci_high`` is NaN.

Honest intervals (DESIGN §6): ``ci_low`` is always a valid lower confidence bound for the divergence of the
sampled laws; ``ci_high`` is a valid upper confidence bound for it, or NaN. On continuous samples every
binned interval bounds the divergence of the *binned* laws, which is below the true one (data processing):
its lower end stays valid, its upper end is NaN. Data-derived bins (a number of bins) are chosen from the
selection halves, so the interval then uses the evaluation halves only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_int, check_order, check_range, check_size, fail
from ._binning import all_finite, binned_counts, quantile_counts, split_counts_of

__all__ = [
    "Estimate",
    "estimate_hockey_stick",
    "estimate_hockey_stick_from_counts",
    "estimate_renyi",
    "estimate_renyi_from_counts",
    "split_counts",
]

#: Largest number of cells inferred from discrete samples when `k` is not given (counts cost 8 bytes a cell).
MAX_INFERRED_K = 2**20
#: Number of equal-probability bins for continuous samples when `bins` is not given.
DEFAULT_BINS = 64

_HS_COUNT_METHODS = ("split", "box", "plugin")
_HS_DISCRETE_METHODS = ("box", "split", "plugin")
_HS_CONTINUOUS_METHODS = ("split", "histogram", "plugin")
_RENYI_COUNT_METHODS = ("box", "plugin")
_RENYI_DISCRETE_METHODS = ("box", "plugin")
_RENYI_CONTINUOUS_METHODS = ("histogram", "plugin")

Real = float | NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Estimate:
    """A Monte Carlo estimate with a confidence interval, ``ci_low <= value <= ci_high``.

    Attributes
    ----------
    value : float or ndarray
        The point estimate (an array with the shape of `eps` / `alpha` when those are arrays).
    ci_low : float or ndarray
        A valid lower confidence bound (level `confidence`) for the divergence of the sampled laws, except for
        methods whose name ends in ``-clt`` (asymptotic normal intervals: approximate, and they say so).
    ci_high : float or ndarray
        A valid upper confidence bound for it, or NaN where the method gives none (split-sample events,
        binned continuous samples).
    n : int
        Samples per side (the smaller side if the two differ).
    method : str
        The estimator that produced it.
    confidence : float
        The nominal level in (0, 1).
    seed : optional
        The seed (int entropy, SeedSequence, …) the samples were drawn with, when the caller knows it.
    """

    value: Real
    ci_low: Real
    ci_high: Real
    n: int
    method: str
    confidence: float
    seed: Any = None

    @property
    def has_upper_bound(self) -> bool:
        """Whether `ci_high` is a valid upper confidence bound (not NaN) everywhere."""
        return bool(np.all(np.isfinite(self.ci_high) | np.isposinf(self.ci_high)))

    def _key(self) -> tuple[Any, ...]:
        return (self.value, self.ci_low, self.ci_high)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Estimate):
            return NotImplemented
        pairs = zip(self._key(), other._key(), strict=True)
        return (
            (self.n, self.method, self.confidence) == (other.n, other.method, other.confidence)
            and all(np.array_equal(a, b, equal_nan=True) for a, b in pairs)
        )

    def __hash__(self) -> int:
        arrays = tuple(np.asarray(a, dtype=np.float64).tobytes() for a in self._key())
        return hash((*arrays, self.n, self.method, self.confidence))


# ---------------------------------------------------------------------------------------------
# validation


def _check_confidence(confidence: Any) -> float:
    arr = check_range("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                      allowed="in (0, 1)")
    if arr.ndim != 0:
        raise fail("confidence", "a scalar", confidence, TypeError)
    return float(arr)


def _check_method(method: Any, allowed: tuple[str, ...], what: str = "") -> str:
    if method is None:
        return allowed[0]
    listed = "one of " + ", ".join(repr(m) for m in allowed) + what
    if not isinstance(method, str):
        raise fail("method", listed, method, TypeError)
    if method not in allowed:
        raise fail("method", listed, repr(method))
    return method


def _check_counts(name: str, counts: Any, *, split: bool) -> NDArray[np.int64]:
    """Counts as an int64 array of shape (2, m); a 1-D (m,) array is accepted as totals when not `split`."""
    shape_text = "of shape (2, m)" + ("" if split else " or (m,)")
    try:
        arr = np.asarray(counts)
    except Exception as exc:  # ragged input and the like
        raise fail(name, f"an integer array {shape_text}", counts, TypeError) from exc
    numeric = np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    if arr.dtype == bool or not numeric:
        raise fail(name, f"an integer array {shape_text}", f"dtype {arr.dtype}", TypeError)
    if arr.ndim == 1 and not split:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] not in ((2,) if split else (1, 2)) or arr.shape[1] == 0:
        raise fail(name, f"a non-empty array {shape_text}", f"shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            raise fail(name, "whole numbers (counts)", arr[bad][0])
    if (arr < 0).any():
        raise fail(name, "non-negative (counts)", arr[arr < 0][0])
    out = arr.astype(np.int64)
    if split and (out.sum(axis=1) == 0).any():
        raise fail(name, "a positive count in each row (selection and evaluation halves) for method 'split'",
                   f"row sums {out.sum(axis=1).tolist()}")
    if out.sum() == 0:
        raise fail(name, "a positive total count", 0)
    return out


def _check_pair(counts_p: Any, counts_q: Any, *, split: bool) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    cp = _check_counts("counts_p", counts_p, split=split)
    cq = _check_counts("counts_q", counts_q, split=split)
    if cp.shape[1] != cq.shape[1]:
        raise fail("counts_q", f"counts over the same {cp.shape[1]} cells as `counts_p`",
                   f"{cq.shape[1]} cells")
    return cp, cq


def _check_samples(name: str, samples: Any, *, finite: bool = True) -> NDArray[Any]:
    """A non-empty 1-D array: integer (discrete; bool read as 0/1) or finite float (continuous). ``finite=False``
    leaves float64 samples unchecked for NaN and inf: the caller's binning pass checks them (`_binning`)."""
    try:
        arr = np.asarray(samples)
    except Exception as exc:
        raise fail(name, "a 1-D array of integer or float samples", samples, TypeError) from exc
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise fail(name, "a 1-D array of integer or float samples", f"dtype {arr.dtype}", TypeError)
    if arr.ndim != 1 or arr.size == 0:
        raise fail(name, "a non-empty 1-D array of samples", f"shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating) and (finite or arr.dtype != np.float64) and not all_finite(arr):
        raise fail(name, "finite (no NaN or inf)", arr[~np.isfinite(arr)][0])
    return arr


def _finite_counts(counts: Any, **samples: NDArray[Any]) -> Any:
    """`counts` from a binning pass, or the error naming the first sample and value that are not finite (the
    pass found one: ``_check_samples(..., finite=False)`` left float64 samples to it)."""
    if counts is None:
        for name, arr in samples.items():
            _check_samples(name, arr)
    return counts


def _interior_edges(name: str, edges: Any) -> NDArray[np.float64]:
    """The finite edges of a binning of the real line (outer edges -inf/+inf are implied)."""
    arr = check_range(name, edges, allow_inf=True, allowed="bin edges (not NaN)")
    if arr.ndim != 1:
        raise fail(name, "a 1-D array of bin edges", f"shape {arr.shape}")
    if arr.size > 1 and not (np.diff(arr) > 0).all():
        raise fail(name, "strictly increasing", f"{arr.tolist()!r}")
    interior = arr[np.isfinite(arr)]
    if arr.size and ((np.isinf(arr) & (arr > 0))[:-1].any() or (np.isinf(arr) & (arr < 0))[1:].any()):
        raise fail(name, "finite except possibly the outer edges", f"{arr.tolist()!r}")
    return interior


# ---------------------------------------------------------------------------------------------
# counts


def _check_support(name: str, samples: NDArray[Any], k: int) -> None:
    bad = (samples < 0) | (samples >= k)
    if bad.any():
        raise fail(name, f"integers in [0, k) = [0, {k})", samples[bad][0])


def split_counts(samples: ArrayLike, *, k: int | None = None,
                 edges: ArrayLike | None = None) -> NDArray[np.int64]:
    """Counts of the two halves of `samples`: row 0 the first ``n // 2`` samples, row 1 the rest.

    Counts of independent batches add up: the sum is a valid input of the ``*_from_counts`` estimators
    (the selection half is then the union of the batches' first halves).

    Parameters
    ----------
    samples : array_like
        1-D integer samples in {0..k-1} (give `k`) or float samples (give `edges`).
    k : int, optional
        The number of cells of a discrete sample space.
    edges : array_like, optional
        Increasing bin edges for float samples; outer edges -inf/+inf are always added, bins are
        ``[e_j, e_{j+1})``.

    Returns
    -------
    ndarray of int64, shape (2, m)

    Raises
    ------
    ValueError, TypeError
        Bad samples, `k` or `edges`, or the wrong one of `k` / `edges` for the kind of samples.
    """
    arr = _check_samples("samples", samples, finite=False)
    if np.issubdtype(arr.dtype, np.integer):
        if edges is not None:
            raise fail("edges", "None for integer (discrete) samples; give `k`", "an array")
        if k is None:
            raise fail("k", "an integer >= 1 for integer (discrete) samples", k)
        k = check_int("k", k, minimum=1)
        check_size("k", k, 2 * k, what="the counts")
        _check_support("samples", arr, k)
        return split_counts_of(arr.astype(np.int64), k)
    if k is not None:
        raise fail("k", "None for float (continuous) samples; give `edges`", k)
    if edges is None:
        raise fail("edges", "an array of bin edges for float (continuous) samples", edges)
    interior = _interior_edges("edges", edges)
    return _finite_counts(binned_counts(arr, arr[:0], interior), samples=arr)[0]


def _sample_counts(samples_p: Any, samples_q: Any, k: Any, bins: Any,
                   ) -> tuple[NDArray[np.int64], NDArray[np.int64], bool, bool]:
    """Validate a pair of samples and bin them; returns (counts_p, counts_q, discrete, bins derived from data)."""
    xp = _check_samples("samples_p", samples_p, finite=False)
    xq = _check_samples("samples_q", samples_q, finite=False)
    discrete = bool(np.issubdtype(xp.dtype, np.integer))
    if discrete != bool(np.issubdtype(xq.dtype, np.integer)):
        kind = "integer (discrete)" if discrete else "float (continuous)"
        raise fail("samples_q", f"{kind} samples like `samples_p`", f"dtype {xq.dtype}", TypeError)
    if discrete:
        if bins is not None:
            raise fail("bins", "None for integer (discrete) samples; use `k`", "given")
        if k is None:
            k = int(max(xp.max(), xq.max(), 0)) + 1
            if k > MAX_INFERRED_K:
                raise fail("k", f"given explicitly when the largest sample exceeds {MAX_INFERRED_K - 1} "
                                "(the counts would need one cell per value)", k - 1)
        else:
            k = check_int("k", k, minimum=1)
            check_size("k", k, 4 * k, what="the counts")
        _check_support("samples_p", xp, k)
        _check_support("samples_q", xq, k)
        return split_counts_of(xp.astype(np.int64), k), split_counts_of(xq.astype(np.int64), k), True, False
    if k is not None:
        raise fail("k", "None for float (continuous) samples; use `bins`", k)
    if bins is None:
        bins = DEFAULT_BINS
    derived = isinstance(bins, numbers.Integral) and not isinstance(bins, (bool, np.bool_))
    if derived:
        bins = check_int("bins", bins, minimum=1)
        # Equal-probability bins from the pooled selection halves only, so the evaluation halves stay
        # independent of the binning (and of the event chosen from it).
        counts_p, counts_q = _finite_counts(quantile_counts(xp, xq, bins), samples_p=xp, samples_q=xq)
    else:
        counts = binned_counts(xp, xq, _interior_edges("bins", bins))
        counts_p, counts_q = _finite_counts(counts, samples_p=xp, samples_q=xq)
    return counts_p, counts_q, False, derived


# ---------------------------------------------------------------------------------------------
# exact binomial bounds


def _cp_lower(x: NDArray[Any], n: Any, miss: float) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson lower bound: P(p < bound) <= miss. 0 when x = 0.

    The miss-quantile of Beta(x, n − x + 1), by `scipy.special.betaincinv` (what `scipy.stats.beta.ppf` calls,
    bit for bit, without its ~0.1 ms of argument handling per call)."""
    from scipy.special import betaincinv  # here, not at import: `import markovdp` stays light

    x = np.asarray(x)
    safe = np.where(x > 0, x, 1)
    return np.where(x > 0, betaincinv(safe, n - x + 1, miss), 0.0)


def _cp_upper(x: NDArray[Any], n: Any, miss: float) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson upper bound: P(p > bound) <= miss. 1 when x = n.

    The upper miss-quantile of Beta(x + 1, n − x), by `scipy.special.betainccinv` (`scipy.stats.beta.isf`'s
    routine, bit for bit)."""
    from scipy.special import betainccinv  # here, not at import (see _cp_lower)

    x = np.asarray(x)
    safe = np.where(x < n, n - x, 1)
    return np.where(x < n, betainccinv(x + 1, safe, miss), 1.0)


def _box(tp: NDArray[np.int64], tq: NDArray[np.int64], confidence: float) -> tuple[NDArray[np.float64], ...]:
    """Simultaneous CP box (pL, pU, qL, qU): Bonferroni over the 2m cells, each two-sided."""
    miss = (1.0 - confidence) / (2 * tp.size) / 2  # per cell and per side of its interval
    n_p, n_q = tp.sum(), tq.sum()
    return (_cp_lower(tp, n_p, miss), _cp_upper(tp, n_p, miss),
            _cp_lower(tq, n_q, miss), _cp_upper(tq, n_q, miss))


def _scaled(gamma: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """gamma * q with 0 where q = 0 (gamma = e^eps may have overflowed to inf: inf * 0 means 0 here)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(q > 0, gamma * q, 0.0)


def _excess(p: NDArray[np.float64], gamma: NDArray[np.float64],
            q: NDArray[np.float64]) -> NDArray[np.float64]:
    """[p - gamma q]_+ elementwise (THEORY: Notation)."""
    return np.maximum(p - _scaled(gamma, q), 0.0)


def _out(arr: Any) -> Real:
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim == 0:
        return float(arr)
    arr = arr.copy()
    arr.setflags(write=False)
    return arr


def _n(cp: NDArray[np.int64], cq: NDArray[np.int64]) -> int:
    return int(min(cp.sum(), cq.sum()))


# ---------------------------------------------------------------------------------------------
# hockey-stick


def _hockey_stick(cp: NDArray[np.int64], cq: NDArray[np.int64], eps: Real, confidence: float, method: str,
                  label: str, *, upper: bool = True, seed: Any = None) -> Estimate:
    """`upper`: whether the box's upper end bounds the divergence itself (cells are the sample space)."""
    with np.errstate(over="ignore"):
        gamma = np.exp(np.asarray(eps, dtype=np.float64))[..., None]  # gamma = e^eps, broadcast over cells
    if method == "split":
        (sel_p, ev_p), (sel_q, ev_q) = cp, cq
        n2p, n2q = ev_p.sum(), ev_q.sum()
        chosen = sel_p / sel_p.sum() > _scaled(gamma, sel_q / sel_q.sum())  # E = {y: p1(y) > gamma q1(y)}
        xp, xq = (chosen * ev_p).sum(axis=-1), (chosen * ev_q).sum(axis=-1)
        g = gamma[..., 0]
        miss = (1.0 - confidence) / 2  # Bonferroni over the bound on P(E) and the bound on Q(E)
        value = _excess(xp / n2p, g, xq / n2q)
        low = _excess(_cp_lower(xp, n2p, miss), g, _cp_upper(xq, n2q, miss))
        high = np.full(np.shape(value), np.nan)  # the chosen event's advantage bounds nothing from above
    else:
        tp, tq = cp.sum(axis=0), cq.sum(axis=0)
        p_low, p_high, q_low, q_high = _box(tp, tq, confidence)
        value = _excess(tp / tp.sum(), gamma, tq / tq.sum()).sum(axis=-1)
        low = _excess(p_low, gamma, q_high).sum(axis=-1)
        high = np.minimum(1.0, _excess(p_high, gamma, q_low).sum(axis=-1))
        if not upper:
            high = np.full(np.shape(high), np.nan)
    value = np.clip(value, 0.0, 1.0)  # E_gamma lies in [0, 1]
    return Estimate(_out(value), _out(np.minimum(low, 1.0)), _out(high), _n(cp, cq), label, confidence, seed)


def estimate_hockey_stick_from_counts(counts_p: ArrayLike, counts_q: ArrayLike, *, eps: ArrayLike,
                                      confidence: float = 0.95, method: str = "split",
                                      seed: Any = None) -> Estimate:
    """Estimate E_{e^eps}(P||Q) = Σ_y [p_y − e^eps q_y]_+ from cell counts of samples of P and Q.

    THEORY: Notation (hockey-stick divergence). DESIGN §6.

    Parameters
    ----------
    counts_p, counts_q : array_like of int, shape (2, m)
        Row 0: counts of the selection half, row 1: of the evaluation half (see :func:`split_counts`).
        Methods other than ``"split"`` use the sum of the rows and also accept shape (m,).
    eps : float or array_like
        eps >= 0 in nats (gamma = e^eps). An array gives an Estimate whose fields have its shape.
    confidence : float
        Level in (0, 1).
    method : {"split", "box", "plugin"}
        ``"split"``: E = {y: p1(y) > gamma q1(y)} from row 0; value = [p2(E) − gamma q2(E)]_+ from row 1;
        ``ci_low = [pL − gamma qU]_+`` with one-sided CP bounds pL <= P(E), qU >= Q(E), each at level
        1 − (1 − confidence)/2, is a lower confidence bound for E_gamma at level `confidence`;
        ``ci_high`` is NaN (an event's advantage bounds the divergence from below only).
        ``"box"``: value = plug-in; ``ci_low = Σ [pL_y − gamma qU_y]_+``,
        ``ci_high = min(1, Σ [pU_y − gamma qL_y]_+)`` from CP intervals for all 2m cells (Bonferroni):
        a two-sided interval for E_gamma of the (binned) laws at level `confidence`.
        ``"plugin"``: the plug-in value with the box interval.
    seed : optional
        Recorded in the Estimate: the seed the samples were drawn with.

    Returns
    -------
    Estimate
        ``n`` is the total count per side.

    Raises
    ------
    ValueError, TypeError
        Bad counts (negative, non-integer, wrong shape, an empty half for ``"split"``), `eps` < 0 or NaN,
        `confidence` outside (0, 1), an unknown `method`.
    """
    method = _check_method(method, _HS_COUNT_METHODS)
    cp, cq = _check_pair(counts_p, counts_q, split=method == "split")
    return _hockey_stick(cp, cq, check_eps("eps", eps), _check_confidence(confidence), method, method, seed=seed)


def estimate_hockey_stick(samples_p: ArrayLike, samples_q: ArrayLike, *, eps: ArrayLike,
                          confidence: float = 0.95, method: str | None = None, k: int | None = None,
                          bins: int | ArrayLike | None = None, seed: Any = None) -> Estimate:
    """Estimate E_{e^eps}(P||Q) = sup_E P(E) − e^eps Q(E) from samples of P and of Q.

    THEORY: Notation (hockey-stick divergence, data processing). DESIGN §6.

    The samples are reduced to counts of their halves (first ``n // 2`` samples = selection half) and
    passed to :func:`estimate_hockey_stick_from_counts`; see there for the intervals.

    Parameters
    ----------
    samples_p, samples_q : array_like, 1-D
        Both integer (discrete, values in {0..k−1}) or both float (continuous, on R).
    eps : float or array_like
        eps >= 0 in nats.
    confidence : float
        Level in (0, 1).
    method : str, optional
        Discrete: ``"box"`` (default), ``"split"``, ``"plugin"``. Continuous: ``"split"`` (default),
        ``"histogram"`` (the box on the binned law: ``ci_low`` is a valid lower bound for the true
        E_gamma by data processing; ``ci_high`` is NaN), ``"plugin"``.
    k : int, optional
        Size of a discrete sample space (fix it so counts of batches line up); default max + 1 of both.
    bins : int or array_like, optional
        Continuous only: a number of equal-probability bins from the quantiles of the pooled selection
        halves (default 64), or explicit edges (outer edges −inf/+inf always added). With a number of
        bins the ``"histogram"`` box uses the evaluation halves only (the selection halves chose the
        edges); ``"split"`` is unaffected.
    seed : optional
        Recorded in the Estimate: the seed the samples were drawn with.

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError, TypeError
        Empty or NaN samples, integer mixed with float samples, discrete samples outside [0, k),
        `eps` < 0 or NaN, `confidence` outside (0, 1), an unknown `method`, `k` with float samples or
        `bins` with integer samples.
    """
    eps = check_eps("eps", eps)
    confidence = _check_confidence(confidence)
    cp, cq, discrete, derived = _sample_counts(samples_p, samples_q, k, bins)
    allowed = _HS_DISCRETE_METHODS if discrete else _HS_CONTINUOUS_METHODS
    label = _check_method(method, allowed, " for " + ("integer" if discrete else "float") + " samples")
    for name, counts in (("samples_p", cp), ("samples_q", cq)):
        if label == "split" and counts.sum() < 2:
            raise fail(name, "at least 2 samples for method 'split'", "1 sample")
    if derived and label != "split":  # bins chosen on the selection halves: evaluate on the other halves
        cp, cq = cp[1:], cq[1:]
    return _hockey_stick(cp, cq, eps, confidence, "box" if label == "histogram" else label, label,
                         upper=discrete, seed=seed)


# ---------------------------------------------------------------------------------------------
# Rényi


def _log(x: NDArray[np.float64]) -> NDArray[np.float64]:
    with np.errstate(divide="ignore"):
        return np.log(x)


def _log_power_sum(p: NDArray[np.float64], q: NDArray[np.float64], alpha: NDArray[np.float64],
                   ) -> NDArray[np.float64]:
    """log Σ_{y: p_y > 0} p_y^alpha q_y^(1−alpha) in log space (alpha up to 1e3 and beyond).

    Cells with p_y = 0 contribute 0 (alpha > 1); p_y > 0 = q_y gives +inf.
    """
    from scipy.special import logsumexp  # imported where used: `import markovdp` stays light

    with np.errstate(invalid="ignore"):
        terms = np.where(p > 0, alpha * _log(np.where(p > 0, p, 1.0)) + (1.0 - alpha) * _log(q), -np.inf)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return logsumexp(terms, axis=-1)


def _log_max_ratio(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """log max_{y: p_y > 0} p_y / q_y (R_inf); +inf if some p_y > 0 = q_y, −inf if p = 0."""
    with np.errstate(invalid="ignore"):
        return np.max(np.where(p > 0, _log(np.where(p > 0, p, 1.0)) - _log(q), -np.inf), axis=-1)


def _renyi_at(p: NDArray[np.float64], q: NDArray[np.float64], alpha: NDArray[np.float64],
              ) -> NDArray[np.float64]:
    """R_alpha = log S / (alpha − 1), S = Σ p^alpha q^(1−alpha); R_inf = log max p/q (THEORY: Notation)."""
    a = alpha[..., None]
    finite = np.where(np.isinf(a), 2.0, a)  # placeholder order where alpha = inf (replaced below)
    with np.errstate(invalid="ignore"):
        out = _log_power_sum(p, q, finite) / (finite[..., 0] - 1.0)
    return np.where(np.isinf(alpha), _log_max_ratio(p, q), out)


def _renyi(cp: NDArray[np.int64], cq: NDArray[np.int64], alpha: Real, confidence: float, label: str,
           *, upper: bool = True, seed: Any = None) -> Estimate:
    alpha = np.asarray(alpha, dtype=np.float64)
    tp, tq = cp.sum(axis=0), cq.sum(axis=0)
    # S is increasing in every p_y and decreasing in every q_y (alpha > 1), so the box corners bound it; the
    # corners of `_box`, computed only where used (each inversion of the beta law costs ~0.25 ms for 32 cells).
    miss = (1.0 - confidence) / (2 * tp.size) / 2
    n_p, n_q = tp.sum(), tq.sum()
    value = np.maximum(_renyi_at(tp / n_p, tq / n_q, alpha), 0.0)
    low = np.maximum(_renyi_at(_cp_lower(tp, n_p, miss), _cp_upper(tq, n_q, miss), alpha), 0.0)
    high = (np.maximum(_renyi_at(_cp_upper(tp, n_p, miss), _cp_lower(tq, n_q, miss), alpha), 0.0) if upper
            else np.full(np.shape(value), np.nan))
    return Estimate(_out(value), _out(low), _out(high), _n(cp, cq), label, confidence, seed)


def estimate_renyi_from_counts(counts_p: ArrayLike, counts_q: ArrayLike, *, alpha: ArrayLike,
                               confidence: float = 0.95, method: str = "box", seed: Any = None) -> Estimate:
    """Estimate R_alpha(P||Q) = log(Σ_y p_y^alpha q_y^(1−alpha)) / (alpha − 1) from cell counts.

    THEORY: Notation (Rényi divergence; alpha = inf: R_inf = log max_y p_y / q_y). DESIGN §6.

    With the simultaneous CP box (pL, pU, qL, qU) over all 2m cells (Bonferroni), S is increasing in p and
    decreasing in q, so ``ci_low = max(0, log S(pL, qU) / (alpha − 1))`` and
    ``ci_high = log S(pU, qL) / (alpha − 1)`` (inf if some qL_y = 0) form a two-sided interval for the
    divergence of the (binned) laws at level `confidence`; for alpha = inf, ``max_y log(pL/qU)`` and
    ``max_y log(pU/qL)``. The value is the plug-in (inf where q̂_y = 0 < p̂_y). Computed in log space.

    Parameters
    ----------
    counts_p, counts_q : array_like of int, shape (2, m) or (m,)
        Cell counts; the two rows (halves) are summed.
    alpha : float or array_like
        Orders in (1, inf]. An array gives an Estimate whose fields have its shape.
    confidence : float
        Level in (0, 1).
    method : {"box", "plugin"}
        Both give the plug-in value with the box interval.
    seed : optional
        Recorded in the Estimate: the seed the samples were drawn with.

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError, TypeError
        Bad counts, `alpha` <= 1 or NaN, `confidence` outside (0, 1), an unknown `method`.
    """
    method = _check_method(method, _RENYI_COUNT_METHODS)
    cp, cq = _check_pair(counts_p, counts_q, split=False)
    return _renyi(cp, cq, check_order("alpha", alpha), _check_confidence(confidence), method, seed=seed)


def estimate_renyi(samples_p: ArrayLike, samples_q: ArrayLike, *, alpha: ArrayLike, confidence: float = 0.95,
                   method: str | None = None, k: int | None = None,
                   bins: int | ArrayLike | None = None, seed: Any = None) -> Estimate:
    """Estimate R_alpha(P||Q) = log(∫ (dP/dQ)^alpha dQ) / (alpha − 1) from samples of P and of Q.

    THEORY: Notation (Rényi divergence, data processing). DESIGN §6.

    The samples are binned as in :func:`estimate_hockey_stick` and passed to
    :func:`estimate_renyi_from_counts`; see there for the interval.

    Parameters
    ----------
    samples_p, samples_q : array_like, 1-D
        Both integer (discrete, values in {0..k−1}) or both float (continuous, on R).
    alpha : float or array_like
        Orders in (1, inf].
    confidence : float
        Level in (0, 1).
    method : str, optional
        Discrete: ``"box"`` (default) or ``"plugin"``. Continuous: ``"histogram"`` (default; the box on
        the binned law: ``ci_low`` is a valid lower bound for the true R_alpha by data processing;
        ``ci_high`` is NaN) or ``"plugin"``.
    k : int, optional
        Size of a discrete sample space; default max + 1 of both samples.
    bins : int or array_like, optional
        Continuous only: number of equal-probability bins (default 64; edges from the pooled first
        halves, the box then from the second halves) or explicit edges (outer −inf/+inf added).
    seed : optional
        Recorded in the Estimate: the seed the samples were drawn with.

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError, TypeError
        As :func:`estimate_hockey_stick`, with `alpha` <= 1 or NaN in place of a bad `eps`.
    """
    alpha = check_order("alpha", alpha)
    confidence = _check_confidence(confidence)
    cp, cq, discrete, derived = _sample_counts(samples_p, samples_q, k, bins)
    allowed = _RENYI_DISCRETE_METHODS if discrete else _RENYI_CONTINUOUS_METHODS
    label = _check_method(method, allowed, " for " + ("integer" if discrete else "float") + " samples")
    if derived:  # bins chosen on the selection halves: evaluate on the other halves
        cp, cq = cp[1:], cq[1:]
    return _renyi(cp, cq, alpha, confidence, label, upper=discrete, seed=seed)
