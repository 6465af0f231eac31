"""Exact divergences between laws on finitely many atoms (Categorical, PointMass, Empirical): finite sums.

Also the atomic vs absolutely continuous pairs, which are mutually singular. THEORY: Notation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ...distributions import Categorical, Distribution
from .registry import Array, register


def _aligned(mu: Distribution, nu: Distribution) -> tuple[Array, Array]:
    """Probability vectors p, q of mu and nu on the union of their atoms."""
    if isinstance(mu, Categorical) and isinstance(nu, Categorical):
        return np.asarray(mu.probs), np.asarray(nu.probs)
    (am, wm), (an, wn) = mu.atoms(), nu.atoms()
    atoms, inverse = np.unique(np.concatenate([am, an]), axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    p, q = np.zeros(atoms.shape[0]), np.zeros(atoms.shape[0])
    np.add.at(p, inverse[: am.shape[0]], wm)
    np.add.at(q, inverse[am.shape[0]:], wn)
    return p, q


def hockey_stick_finite(p: Array, q: Array, eps: Array) -> Array:
    """Σ_i [p_i − e^eps q_i]_+ for each eps (THEORY: Notation); eps = inf gives D_inf = p(q = 0).

    Each term is computed as ``−p_i expm1(eps − log(p_i/q_i))`` where log(p_i/q_i) > eps: no cancellation
    and no overflow of e^eps (eps up to inf). Every term is >= 0.
    """
    keep = p > 0
    p, q = p[keep], q[keep]
    singular = float(p[q == 0].sum())  # BBGG footnote 3: D_inf = mu(supp(mu) \ supp(nu))
    pc = p[q > 0]
    log_ratio = np.log(pc) - np.log(q[q > 0])
    diff = np.asarray(eps, dtype=np.float64)[:, None] - log_ratio[None, :]  # eps = inf → +inf → 0
    terms = np.where(diff < 0, -np.expm1(np.minimum(diff, 0.0)), 0.0)
    return singular + terms @ pc


def kl_finite(p: Array, q: Array) -> float:
    """Σ_i p_i log(p_i/q_i); +inf if some p_i > 0 = q_i (THEORY: Notation).

    Summed as Σ (p log(p/q) − p + q) (scipy.special.kl_div): non-negative terms for normalised p, q.
    """
    if np.any((p > 0) & (q == 0)):
        return math.inf
    return float(special.kl_div(p, q).sum())


def renyi_finite(p: Array, q: Array, alpha: Array) -> Array:
    """1/(alpha−1) log Σ_{p>0} p^alpha q^(1−alpha); alpha = inf: log max_{p>0} p/q (THEORY: Notation).

    In log space (logsumexp), so alpha = 1e3 stays finite; +inf where supp(p) ⊄ supp(q).
    """
    return renyi_finite_rows(p[None, :], q[None, :], alpha)[:, 0]


#: Rows per block of `renyi_finite_rows`, so temporaries stay near 2^22 floats.
_BLOCK = 2**22


def renyi_finite_rows(P: Array, Q: Array, alpha: Array) -> Array:
    """(n_alpha, n) array of R_alpha(P[r] || Q[r]) for each row pair r: `renyi_finite`, vectorised over rows.

    Near alpha = 1 (|(alpha − 1) log p/q| < 0.5 on the support) the log-sum is log1p(Σ p expm1(x)), which
    keeps the O(alpha − 1) signal of nearby laws; elsewhere logsumexp.
    """
    P, Q = np.atleast_2d(P), np.atleast_2d(Q)
    alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    out = np.empty((alpha.size, P.shape[0]))
    step = max(1, _BLOCK // max(P.shape[1], 1))
    for start in range(0, P.shape[0], step):
        block = slice(start, start + step)
        out[:, block] = _renyi_block(P[block], Q[block], alpha)
    return out


def _renyi_block(P: Array, Q: Array, alpha: Array) -> Array:
    support = P > 0
    singular = (support & (Q == 0)).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(support, np.log(P), -np.inf)
        log_ratio = np.where(support & (Q > 0), log_p - np.log(np.where(Q > 0, Q, 1.0)), 0.0)
    out = np.empty((alpha.size, P.shape[0]))
    for n, a in enumerate(alpha):
        if math.isinf(a):
            out[n] = np.where(support, log_ratio, -np.inf).max(axis=1)
            continue
        x = np.where(support, (a - 1.0) * log_ratio, 0.0)  # log (p/q)^(alpha−1) on the support
        near = np.abs(x).max(axis=1) < 0.5
        with np.errstate(divide="ignore"):
            log_sum = special.logsumexp(np.where(support, log_p + x, -np.inf), axis=1)
        if near.any():
            s = np.einsum("ij,ij->i", np.where(support, P, 0.0)[near], np.expm1(x[near]))
            log_sum[near] = np.log1p(np.maximum(s, 0.0))
        out[n] = log_sum / (a - 1.0)
    out[:, singular] = math.inf
    return out


@register("hockey_stick", "finite_sum", ("atomic", "atomic"))
def _hs_atomic(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return hockey_stick_finite(*_aligned(mu, nu), eps)


@register("kl", "finite_sum", ("atomic", "atomic"))
def _kl_atomic(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([kl_finite(*_aligned(mu, nu))])


@register("renyi", "finite_sum", ("atomic", "atomic"))
def _renyi_atomic(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return renyi_finite(*_aligned(mu, nu), alpha)


# Atomic vs absolutely continuous: mutually singular. E_gamma = 1 for every gamma (the event "the atoms",
# or its complement, has mass 1 under mu and 0 under nu); KL = R_alpha = inf.

@register("hockey_stick", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _hs_singular(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return np.ones(eps.shape)


@register("kl", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _kl_singular(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([math.inf])


@register("renyi", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _renyi_singular(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return np.full(alpha.shape, math.inf)

