"""AAC-Bayes: the exact Bayes risk of a finite estimation problem seen through n privatised samples, and lower
bounds on it from two-point (Le Cam, E_gamma) and E_gamma-information arguments with the contraction coefficients.

THEORY: AAC-Bayes, AAC-LeCam, AAC-eta, AAC-phi. Parameters theta_1..theta_m (distinct reals) with input laws
P_j on a finite X and prior w; X_1..X_n i.i.d. P_theta, each privatised by the finite channel K. The count vector
c of the n outputs is sufficient (the likelihood of a sequence is Π_s q_j(s)^{c_s}, q_j = P_j K), so
``R = Σ_c min_a Σ_j w_j M_j(c) loss(a, theta_j)`` with M_j = Multinomial(n, q_j), every sum in log space.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_choice,
    check_eps,
    check_int,
    check_probability,
    check_probability_vector,
    check_size,
    check_stochastic_matrix,
    check_vector,
    check_work,
    fail,
    readonly,
)
from ..mechanisms.canonical import canonical_rows
from ..spaces import IncompatibleSpaces
from .le_cam import _matrix, count_log_pmfs

#: The losses: 1{a != theta}, |a − theta|, (a − theta)².
LOSSES = ("zero_one", "absolute", "squared")
#: The gamma grid (>= 1) of the E_gamma-information bound: gamma in geomspace(1, 1 / max(w), GAMMAS).
GAMMAS = 41


class _Problem(NamedTuple):
    thetas: NDArray[np.float64]  # (m,) sorted ascending
    laws: NDArray[np.float64]  # (m, k)
    prior: NDArray[np.float64]  # (m,)
    loss: str


def _problem(thetas: Any, laws: Any, prior: Any, loss: Any) -> _Problem:
    """The validated parameters, laws and prior, sorted by theta."""
    theta = check_vector("thetas", thetas)
    law = check_stochastic_matrix("laws", laws)
    if law.shape[0] != theta.size:
        raise fail("laws", f"a matrix with one row per theta ({theta.size} rows)", f"shape {law.shape}")
    weights = np.full(theta.size, 1.0 / theta.size) if prior is None else check_probability_vector("prior", prior)
    if weights.size != theta.size:
        raise fail("prior", f"a probability vector with one weight per theta ({theta.size})", f"size {weights.size}")
    order = np.argsort(theta, kind="stable")
    theta = theta[order]
    if theta.size > 1 and np.any(np.diff(theta) == 0.0):
        raise fail("thetas", "distinct reals", f"{theta[np.flatnonzero(np.diff(theta) == 0.0)[0]]!r} twice")
    return _Problem(theta, law[order], weights[order], check_choice("loss", loss, LOSSES))


def _outputs(problem: _Problem, matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """The one-sample output laws q_j = P_j K (m, r), renormalised, without the outputs no law can produce."""
    if problem.laws.shape[1] != matrix.shape[0]:
        raise IncompatibleSpaces(f"`bayes_risk`: input laws on {problem.laws.shape[1]} points for a channel with "
                                 f"{matrix.shape[0]} inputs.")
    out = np.clip(problem.laws @ matrix, 0.0, None)
    out = out / out.sum(axis=1, keepdims=True)
    return out


def _likelihoods(problem: _Problem, out: NDArray[np.float64],
                 n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(count vectors (C, r), log M_j(c) (m, C)), over the outputs some law produces."""
    used = out.sum(axis=0) > 0.0
    check_size("n", n, float(math.comb(n + int(used.sum()) - 1, int(used.sum()) - 1)) * (problem.thetas.size + 4),
               what="the joint log-likelihoods of the count vectors")
    counts, logs = count_log_pmfs(out[:, used], n)
    full = np.zeros((counts.shape[0], out.shape[1]))
    full[:, used] = counts
    return full, logs


def _joint(problem: _Problem, logs: NDArray[np.float64]) -> NDArray[np.float64]:
    """log w_j + log M_j(c) (m, C)."""
    with np.errstate(divide="ignore"):
        return np.log(problem.prior)[:, None] + logs


def _logsumexp(a: NDArray[np.float64], axis: int | None = None) -> NDArray[np.float64]:
    """log Σ exp(a) along `axis`, shifted by the maximum (−inf for an all −inf slice)."""
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def _posterior(joint: NDArray[np.float64]) -> NDArray[np.float64]:
    """The posterior weights per count vector (m, C) (columns of probability 0: all zero)."""
    top = np.max(joint, axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    post = np.exp(joint - top)
    total = post.sum(axis=0)
    return post / np.where(total > 0.0, total, 1.0)


def _bayes_actions(joint: NDArray[np.float64], thetas: NDArray[np.float64],
                   loss: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The Bayes action a(c) per count vector and log Σ_j w_j M_j(c) loss(a(c), theta_j) (thetas sorted)."""
    m, size = joint.shape
    cols = np.arange(size)
    if loss == "zero_one":
        best = np.argmax(joint, axis=0)  # MAP (the first on ties)
        others = joint.copy()
        others[best, cols] = -np.inf
        return thetas[best], _logsumexp(others, axis=0)
    if loss == "absolute":
        cumulative = np.cumsum(_posterior(joint), axis=0)
        median = np.argmax(cumulative >= 0.5 * cumulative[-1], axis=0)  # the lower weighted median
        actions = thetas[median]
        with np.errstate(divide="ignore"):
            logdist = np.log(np.abs(actions[None, :] - thetas[:, None]))
        return actions, _logsumexp(joint + logdist, axis=0)
    actions = thetas @ _posterior(joint)  # squared: the posterior mean
    # Σ_j w_j M_j (theta_j − mean)² = Σ_{i<j} (w_i M_i)(w_j M_j)(theta_i − theta_j)² / Σ_j w_j M_j: no cancellation
    pairs = np.full(size, -np.inf)
    for i in range(m - 1):
        gaps = 2.0 * np.log(thetas[i + 1:] - thetas[i])
        pairs = np.logaddexp(pairs, _logsumexp(joint[i] + joint[i + 1:] + gaps[:, None], axis=0))
    marginal = _logsumexp(joint, axis=0)
    with np.errstate(invalid="ignore"):
        return actions, np.where(np.isfinite(marginal), pairs - marginal, -np.inf)


@dataclass(frozen=True)
class BayesRisk:
    """The exact Bayes risk of a finite problem (AAC-Bayes) and, on request, the Bayes estimator.

    ``risk`` = min over estimators of E[loss(hat(Z^n), theta)], ``log_risk`` its log (−inf for 0); ``thetas`` and
    ``prior`` sorted by theta. With ``estimator=True``: ``counts`` (C, r) every count vector of the n outputs,
    ``actions`` (C,) the Bayes action at each (MAP parameter, lower weighted median, posterior mean) and
    ``log_marginal`` (C,) the log-probability of each count vector; else None.
    """

    risk: float
    log_risk: float
    loss: str
    n: int
    thetas: NDArray[np.float64]
    prior: NDArray[np.float64]
    counts: NDArray[np.float64] | None = None
    actions: NDArray[np.float64] | None = None
    log_marginal: NDArray[np.float64] | None = None


def bayes_risk(channel: Any, thetas: ArrayLike, laws: ArrayLike, n: int, *, prior: ArrayLike | None = None,
               loss: str = "zero_one", estimator: bool = False) -> BayesRisk:
    """The exact Bayes risk ``min_hat E[loss(hat(Z^n), theta)]``, theta ~ prior, X_i i.i.d. P_theta, Z_i = K(X_i).

    THEORY: AAC-Bayes. ``R = Σ_c min_a Σ_j w_j M_j(c) loss(a, theta_j)`` over the count vectors c of the n outputs
    (sufficient), M_j = Multinomial(n, P_j K), summed in log space (log-likelihoods, logsumexp; a tiny risk keeps
    its relative accuracy). The minimising action per count vector: 0-1 loss, a parameter of largest posterior
    (MAP); absolute loss, a weighted median of the posterior (always one of the thetas, so allowing any real
    changes nothing); squared loss, the posterior mean (any real, not only the thetas). Units: those of the loss
    (theta units, their square, or a probability).

    Parameters
    ----------
    channel : FiniteKernel, finite mechanism, or array-like (k, r)
        The channel applied to each sample (``np.eye(k)``: no privatisation).
    thetas : array-like (m,)
        Distinct real parameters.
    laws : array-like (m, k)
        Row j: the input law P_j of theta_j on the k inputs of the channel.
    n : int
        Number of samples, >= 1.
    prior : array-like (m,), optional
        The prior weights (default uniform).
    loss : {"zero_one", "absolute", "squared"}
    estimator : bool
        Also return the Bayes estimator's table (count vectors, actions, marginal law).

    Raises
    ------
    ValueError, TypeError
        Bad `channel`, `thetas` (not distinct), `laws`, `prior`, `n` (or too many count vectors), `loss`.
    IncompatibleSpaces
        `laws` not on the channel's inputs.
    """
    problem = _problem(thetas, laws, prior, loss)
    matrix = _matrix(channel, "channel")
    n = check_int("n", n, minimum=1)
    if not isinstance(estimator, (bool, np.bool_)):
        raise fail("estimator", "True or False", repr(estimator), TypeError)
    counts, logs = _likelihoods(problem, _outputs(problem, matrix), n)
    joint = _joint(problem, logs)
    actions, terms = _bayes_actions(joint, problem.thetas, problem.loss)
    log_risk = float(_logsumexp(terms))
    table = (readonly(counts), readonly(actions), readonly(_logsumexp(joint, axis=0))) if estimator else ()
    return BayesRisk(math.exp(log_risk), log_risk, problem.loss, n, readonly(problem.thetas),
                     readonly(problem.prior), *table)


# ------------------------------------------------------------------------------------------------ lower bounds
def _separation(thetas: NDArray[np.float64], loss: str) -> NDArray[np.float64]:
    """min_a loss(a, theta_i) + loss(a, theta_j) for every pair (m, m): 1, |Δ| or Δ²/2 (0 on the diagonal)."""
    gap = np.abs(thetas[:, None] - thetas[None, :])
    if loss == "zero_one":
        return (gap > 0.0).astype(np.float64)
    return gap if loss == "absolute" else 0.5 * gap * gap


def _chain_weights(prior: NDArray[np.float64], step: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weights (a_l, b_l) of theta_l and theta_{l+step} in the pair (l, l + step), l < m − step: a weight in two
    pairs is split in half between them, a weight in one pair goes to it whole."""
    m = prior.size
    index = np.arange(m)
    share = 1.0 / np.maximum((index + step < m).astype(np.float64) + (index - step >= 0), 1.0)
    return prior[:m - step] * share[:m - step], prior[step:] * share[step:]


def _small_ball(thetas: NDArray[np.float64], prior: NDArray[np.float64],
                loss: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Thresholds t and L(t) = sup_a w{j : loss(a, theta_j) < t} (the largest prior mass a ball of radius t holds):
    at t = the half-gaps (absolute), their squares (squared) or t = 1 (0-1 loss)."""
    if loss == "zero_one" or thetas.size == 1:
        return np.array([1.0 if loss == "zero_one" else math.inf]), np.array([prior.max()])
    gaps = np.unique((thetas[None, :] - thetas[:, None])[np.triu_indices(thetas.size, 1)])
    cumulative = np.concatenate([[0.0], np.cumsum(prior)])
    # points within an open interval of length d: theta_i <= theta_j < theta_i + d
    ends = np.searchsorted(thetas, thetas[None, :] + gaps[:, None], side="left")
    mass = (cumulative[ends] - cumulative[None, :-1]).max(axis=1)
    radius = 0.5 * gaps
    return (radius if loss == "absolute" else radius * radius), np.minimum(mass, 1.0)


def _gamma_grid(prior: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.geomspace(1.0, max(1.0 / prior.max(), 1.0 + 1e-9), GAMMAS)


def _e_gamma_bound(info: NDArray[np.float64], gammas: NDArray[np.float64], radii: NDArray[np.float64],
                   mass: NDArray[np.float64]) -> float:
    """max over gamma and t of t (1 − I_gamma − gamma L(t)), clipped at 0 (info[i]: an upper bound on I_gamma)."""
    with np.errstate(invalid="ignore"):
        values = radii[None, :] * (1.0 - info[:, None] - gammas[:, None] * mass[None, :])
    values = np.where(np.isfinite(radii)[None, :], values, -np.inf)
    return float(max(np.max(values), 0.0))


def _hockey_sticks(p: NDArray[np.float64], q: NDArray[np.float64], gammas: NDArray[np.float64]) -> NDArray[np.float64]:
    """Σ (p − gamma q)_+ over every entry of p, q (same shape), for each gamma (in blocks of <= 2^21 entries)."""
    p, q = p.reshape(-1), q.reshape(-1)
    block = max(1, 2**21 // max(p.size, 1))
    return np.concatenate([np.maximum(p[None, :] - gammas[i:i + block, None] * q[None, :], 0.0).sum(axis=1)
                           for i in range(0, gammas.size, block)])


def _e_gamma_information(joint: NDArray[np.float64], prior: NDArray[np.float64],
                         gammas: NDArray[np.float64]) -> NDArray[np.float64]:
    """I_gamma(theta; Y) = E_gamma(P_{theta Y} || P_theta ⊗ P_Y) = Σ_j Σ_c (w_j M_j(c) − gamma w_j M̄(c))_+ per gamma."""
    both = np.exp(joint)
    return _hockey_sticks(both, prior[:, None] * both.sum(axis=0)[None, :], gammas)


@dataclass(frozen=True)
class BayesLowerBound:
    """Lower bounds on the Bayes risk (AAC-Bayes), each valid on its own; ``bound`` is their maximum.

    ``le_cam``: the two-point (Le Cam / E_gamma) bound, the best of one pair and of the chains of pairs (l, l + step);
    ``e_gamma``: the E_gamma-information (small-ball) bound max_{gamma >= 1, t} t (1 − I_gamma − gamma L(t)).
    """

    le_cam: float
    e_gamma: float
    bound: float


def _le_cam_from_overlaps(overlap: Any, problem: _Problem, size: int) -> float:
    """The best of one pair and of the chains of pairs (l, l + step), every step: Σ_pairs Δ_pair · overlap(i, j, a, b),
    overlap(i, j, a, b) <= Σ_c min(a M_i(c), b M_j(c))."""
    m = problem.thetas.size
    if m == 1:
        return 0.0
    check_work("thetas", f"{m} parameters", 2.0 * m * m * (size + 1000.0), what="the pairwise overlaps")
    sep = _separation(problem.thetas, problem.loss)
    w = problem.prior
    single = max(sep[i, j] * overlap(i, j, w[i], w[j]) for i in range(m) for j in range(i + 1, m))
    chains = [0.0]
    for step in range(1, m - 1):
        a, b = _chain_weights(w, step)
        chains.append(sum(sep[i, i + step] * overlap(i, i + step, a[i], b[i]) for i in range(m - step)))
    return float(max(single, *chains))


def bayes_lower_bound(channel: Any, thetas: ArrayLike, laws: ArrayLike, n: int, *, prior: ArrayLike | None = None,
                      loss: str = "zero_one") -> BayesLowerBound:
    """Lower bounds on `bayes_risk` for this channel, from exact two-point overlaps and exact E_gamma-information.

    THEORY: AAC-Bayes. (i) Le Cam: for pairs with weights a_i <= w_i, b_j <= w_j (one pair, or the sorted
    thetas' pairs (l, l + step) for one step, a weight in two pairs split in half),
    ``R >= Σ_pairs Δ_ij Σ_c min(a M_i(c), b M_j(c))`` with
    Δ_ij = min_a loss(a, theta_i) + loss(a, theta_j) (1, |Δθ|, Δθ²/2); ``Σ_c min(a M_i, b M_j) = a (1 −
    E_{b/a}(M_i || M_j))``. (ii) E_gamma-information: for gamma >= 1 and t > 0,
    ``R >= t (1 − I_gamma(theta; Z^n) − gamma L(t))``, I_gamma = E_gamma(P_{theta Z} || P_theta ⊗ P_Z) and L(t) the
    largest prior mass within loss < t of one action. Both exact sums over the count vectors; derivations in
    docs/theory.md. Parameters and errors as `bayes_risk`.
    """
    problem = _problem(thetas, laws, prior, loss)
    matrix = _matrix(channel, "channel")
    n = check_int("n", n, minimum=1)
    _, logs = _likelihoods(problem, _outputs(problem, matrix), n)
    joint = _joint(problem, logs)
    prior_w = problem.prior

    def overlap(i: int, j: int, a: float, b: float) -> float:
        if a <= 0.0 or b <= 0.0:
            return 0.0
        rows = logs[[i, j]] + np.log([a, b])[:, None]
        return float(np.exp(_logsumexp(np.min(rows, axis=0))))

    le_cam = _le_cam_from_overlaps(overlap, problem, logs.shape[1])
    gammas = _gamma_grid(prior_w)
    e_gamma = _e_gamma_bound(_e_gamma_information(joint, prior_w, gammas), gammas, *_small_ball(
        problem.thetas, prior_w, problem.loss))
    return BayesLowerBound(le_cam, e_gamma, max(le_cam, e_gamma))


# ------------------------------------------------------------------------------------ every (eps, delta)-LDP K
def ldp_e_gamma(eps: float, delta: float, n: int, gamma: ArrayLike) -> NDArray[np.float64]:
    """h_n(gamma) = E_gamma(C0^{⊗n} || C1^{⊗n}) for the canonical (eps, delta) pair C0, C1: the largest E_gamma
    contraction coefficient of a product of n (eps, delta)-LDP channels, for each gamma >= 1.

    THEORY: AAC-eta, AAC-Bayes. eta_gamma(K^{⊗n}) = max over input sequences of E_gamma between the two output
    laws (AAC-eta); on a pair of inputs an (eps, delta)-LDP K is a post-processing of the canonical pair
    (Kairouz–Oh–Viswanath 2015), coordinates with equal inputs carry no information, so every such value is at
    most h_n(gamma). n = 1: delta + (1 − delta)(e^eps − gamma)_+ / (1 + e^eps); h_n(1) <= phi_n(eps, delta).
    """
    eps = float(check_eps("eps", eps))
    delta = float(check_probability("delta", delta))
    n = check_int("n", n, minimum=1)
    gammas = np.atleast_1d(np.asarray(check_vector("gamma", gamma), dtype=np.float64))
    if np.any(gammas < 1.0):
        raise fail("gamma", "reals >= 1", float(gammas[gammas < 1.0][0]))
    return np.clip(_hockey_sticks(*_canonical_counts(eps, delta, n), gammas), 0.0, 1.0)


def _canonical_counts(eps: float, delta: float, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The pmfs of the count vector of n draws from each canonical (eps, delta) row, on one list of counts."""
    p, q = canonical_rows(eps, delta)
    used = (p + q) > 0.0
    _, logs = count_log_pmfs(np.stack([p[used], q[used]]), n)
    return np.exp(logs[0]), np.exp(logs[1])


def ldp_tv_coefficient(eps: float, delta: float) -> float:
    """sup of eta_TV(K) over (eps, delta)-LDP channels: delta + (1 − delta) tanh(eps / 2) <= phi(eps, delta)."""
    eps = float(check_eps("eps", eps))
    delta = float(check_probability("delta", delta))
    return delta + (1.0 - delta) * math.tanh(0.5 * eps)


def ldp_bayes_lower_bound(eps: float, delta: float, thetas: ArrayLike, laws: ArrayLike, n: int, *,
                          prior: ArrayLike | None = None, loss: str = "zero_one") -> BayesLowerBound:
    """Lower bounds on `bayes_risk` valid for EVERY (eps, delta)-LDP channel applied to each sample.

    THEORY: AAC-Bayes, AAC-eta, AAC-phi. The two bounds of `bayes_lower_bound` with the private quantities
    replaced by upper bounds from the contraction coefficients and the exact non-private ones (count vectors of
    the n inputs): ``E_gamma((P_i K)^{⊗n} || (P_j K)^{⊗n}) <= min(h_n(gamma) E_gamma(P_i^n || P_j^n),
    1 − (1 − t TV(P_i, P_j))^n)`` (contraction through the product; or per sample, then the coupling bound on a
    product's TV, E_gamma <= TV), t = `ldp_tv_coefficient`, h_n = `ldp_e_gamma`; and
    ``I_gamma(theta; Z^n) <= h_n(gamma) I_gamma(theta; X^n)``.

    Parameters
    ----------
    eps : float
        The channels' privacy level in nats, >= 0 and finite.
    delta : float
        In [0, 1].
    thetas, laws, n, prior, loss
        As `bayes_risk` (`laws` on any finite input set).
    """
    eps = float(check_eps("eps", eps))
    delta = float(check_probability("delta", delta))
    problem = _problem(thetas, laws, prior, loss)
    n = check_int("n", n, minimum=1)
    _, logs = _likelihoods(problem, problem.laws, n)  # the n inputs: identity channel
    joint = _joint(problem, logs)
    w = problem.prior
    lp, lq = _canonical_counts(eps, delta, n)
    contraction: dict[float, float] = {}

    def h_n(gamma: float) -> float:  # ldp_e_gamma without recounting
        if gamma not in contraction:
            contraction[gamma] = min(float(_hockey_sticks(lp, lq, np.array([gamma]))[0]), 1.0)
        return contraction[gamma]

    tv_one = ldp_tv_coefficient(eps, delta) * 0.5 * np.abs(problem.laws[:, None, :] - problem.laws[None, :, :]).sum(
        axis=2)
    tv_coupling = -np.expm1(n * np.log1p(-np.minimum(tv_one, 1.0)))

    def overlap(i: int, j: int, a: float, b: float) -> float:
        if a <= 0.0 or b <= 0.0:
            return 0.0
        lo, hi, first, second = (a, b, i, j) if a <= b else (b, a, j, i)
        gamma = hi / lo
        e_gamma_in = float(np.maximum(np.exp(logs[first]) - gamma * np.exp(logs[second]), 0.0).sum())
        e_gamma_out = min(h_n(gamma) * e_gamma_in, float(tv_coupling[i, j]))
        return lo * (1.0 - min(e_gamma_out, 1.0))

    le_cam = _le_cam_from_overlaps(overlap, problem, logs.shape[1])
    gammas = _gamma_grid(w)
    info = np.clip(_hockey_sticks(lp, lq, gammas), 0.0, 1.0) * _e_gamma_information(joint, w, gammas)
    e_gamma = _e_gamma_bound(info, gammas, *_small_ball(problem.thetas, w, problem.loss))
    return BayesLowerBound(le_cam, e_gamma, max(le_cam, e_gamma))


__all__ = ["LOSSES", "BayesLowerBound", "BayesRisk", "bayes_lower_bound", "bayes_risk", "ldp_bayes_lower_bound",
           "ldp_e_gamma", "ldp_tv_coefficient"]
