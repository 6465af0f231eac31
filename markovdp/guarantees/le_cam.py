"""AAC-LeCam: the two-point Le Cam lower bound, computed exactly from the TV of n-fold product output laws.

THEORY: AAC-LeCam, AAC-phi. The n samples X_i ~ P_theta are privatised independently by a finite channel K, so
the statistician sees Z ~ (P_theta K)^{⊗n}: the law of n draws from the one-sample output law P_theta K. Its TV
is computed exactly through the count vector (Binomial for two outputs, Multinomial otherwise), a sufficient
statistic: the likelihood of a sequence depends on it only through its counts, so the TV of the sequences
equals the TV of the count laws.

What is exact and what is not (the source gives no constants): the risk bound below is derived here in
full (see `le_cam_bound`); `ldp_contraction_bound` (phi_n) and the Bretagnolle–Huber inequality give the
provable effective-sample-size companions of `bernoulli_rr_le_cam`; AAC's "effective sample size
phi(eps, delta) n" itself is shown beside them as a comparison, not asserted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_eps,
    check_int,
    check_probability,
    check_probability_vector,
    check_real,
    check_size,
    check_stochastic_matrix,
    fail,
    readonly,
)
from ..mechanisms.finite import RandomizedResponse
from ..operators.finite import FiniteKernel
from ..spaces import IncompatibleSpaces
from .aac import ldp_contraction_bound

#: The largest number of count vectors (compositions of n into m parts) `product_tv` enumerates.
MAX_COUNT_VECTORS = 2_000_000


def _law(name: str, value: Any) -> NDArray[np.float64]:
    """A probability vector from a `Categorical` (its ``probs``) or an array-like."""
    return check_probability_vector(name, getattr(value, "probs", value))


def _input_laws(what: str, matrix: NDArray[np.float64], p0: Any, p1: Any) -> tuple[NDArray[np.float64], ...]:
    """`p0`, `p1` as probability vectors on the k inputs of the channel `matrix` (IncompatibleSpaces otherwise)."""
    laws = _law("p0", p0), _law("p1", p1)
    for law in laws:
        if law.size != matrix.shape[0]:
            raise IncompatibleSpaces(f"`{what}`: an input law on {law.size} points for a channel with "
                                     f"{matrix.shape[0]} inputs.")
    return laws


def _matrix(K: Any, name: str = "K") -> NDArray[np.float64]:
    matrix = getattr(K, "matrix", None)
    if matrix is None and hasattr(K, "sample") and not isinstance(K, (np.ndarray, list, tuple)):
        raise NotImplementedError(f"The Le Cam bound is exact only for finite channels; got {type(K).__name__}.")
    return check_stochastic_matrix(name, K if matrix is None else matrix)


def _same_size(what: str, a: NDArray[np.float64], b: NDArray[np.float64]) -> None:
    if a.size != b.size:
        raise IncompatibleSpaces(f"`{what}`: laws on {a.size} and {b.size} points.")


def _count_log_pmfs(p: NDArray[np.float64], q: NDArray[np.float64],
                    n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """log-pmfs of the count vector of n i.i.d. draws from p and from q, on the same list of count vectors."""
    m = p.size
    if m == 2:
        check_size("n", n, 8.0 * (n + 1), what="the binomial count laws")
    from scipy import stats  # here, not at import: scipy.special/stats cost ~0.2 s to import

    if m == 1:
        return np.zeros(1), np.zeros(1)
    if m == 2:
        j = np.arange(n + 1)
        return stats.binom.logpmf(j, n, p[1]), stats.binom.logpmf(j, n, q[1])
    _, logs = count_log_pmfs(np.stack([p, q]), n)
    return logs[0], logs[1]


def count_log_pmfs(laws: NDArray[np.float64], n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Every count vector c of n i.i.d. draws on m points (rows of ``counts``, C(n + m − 1, m − 1) of them) and
    the Multinomial(n, ·) log-pmf of c under each row of `laws` (L, m): ``log_pmfs`` (L, C), −inf where a law
    gives c probability 0. At most `MAX_COUNT_VECTORS` count vectors."""
    from scipy import special

    m = laws.shape[1]
    size = math.comb(n + m - 1, m - 1)
    if size > MAX_COUNT_VECTORS:
        raise fail("n", f"small enough that the {m}-output count vectors number <= {MAX_COUNT_VECTORS} "
                        f"(there are C(n + {m - 1}, {m - 1}) = {size})", n)
    check_size("n", n, float(size) * (laws.shape[0] + m), what="the count vectors and their log-pmfs")
    counts = _compositions(n, m)
    base = special.gammaln(n + 1) - special.gammaln(counts + 1).sum(axis=1)
    with np.errstate(divide="ignore"):
        return counts, base + special.xlogy(counts[None, :, :], laws[:, None, :]).sum(axis=2)


def _compositions(n: int, m: int) -> NDArray[np.float64]:
    """Every vector of m non-negative integers summing to n (stars and bars), one per row."""
    from itertools import combinations

    bars = np.array(list(combinations(range(n + m - 1), m - 1)), dtype=np.int64).reshape(-1, m - 1)
    edges = np.concatenate([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + m - 1)], axis=1)
    return (np.diff(edges, axis=1) - 1).astype(np.float64)


def _tv_and_overlap(p: NDArray[np.float64], q: NDArray[np.float64], n: int) -> tuple[float, float]:
    """TV(p^{⊗n}, q^{⊗n}) = Σ_c [P(c) − Q(c)]_+ and the overlap 1 − TV = Σ_c min(P(c), Q(c)) over count
    vectors c, the overlap summed in log space (accurate relative to itself when TV is near 1)."""
    from scipy import special

    lp, lq = _count_log_pmfs(p, q, n)
    tv = float(np.clip(np.sum(np.maximum(np.exp(lp) - np.exp(lq), 0.0)), 0.0, 1.0))
    low = np.minimum(lp, lq)
    overlap = 0.0 if np.all(np.isneginf(low)) else float(min(np.exp(special.logsumexp(low)), 1.0))
    return tv, overlap


def product_tv(p: Any, q: Any, n: int) -> float:
    """TV(p^{⊗n}, q^{⊗n}) of n i.i.d. draws, exactly, as the TV of the two count laws.

    THEORY: AAC-LeCam (Notation: TV = E_1). The count vector is sufficient for i.i.d. sequences, so the sum over
    the m^n sequences collapses to one over the C(n + m − 1, m − 1) count vectors: Binomial(n, ·) for m = 2
    (any n), Multinomial(n, ·) otherwise (at most `MAX_COUNT_VECTORS` of them).

    Parameters
    ----------
    p, q : Categorical or array-like (m,)
        The one-draw laws.
    n : int
        Number of draws, >= 1.

    Raises
    ------
    ValueError
        `p` or `q` not a probability vector; `n` < 1 or too many count vectors.
    IncompatibleSpaces
        `p` and `q` on different numbers of points.
    """
    p, q = _law("p", p), _law("q", q)
    _same_size("product_tv", p, q)
    return _tv_and_overlap(p, q, check_int("n", n, minimum=1))[0]


def le_cam_bound(K: Any, p0: Any, p1: Any, n: int, *, theta0: float, theta1: float) -> float:
    """Le Cam's two-point lower bound on the minimax squared-error risk from n samples privatised by K:
    ``inf_hat max_{i in {0, 1}} E_i (hat − theta_i)² >= (theta1 − theta0)² / 4 · (1 − TV(P0^n K^n, P1^n K^n))``.

    THEORY: AAC-LeCam. theta_i is the parameter of the input law P_i; the inf is over every estimator of the n
    outputs (so also over every family containing P0 and P1). The constant is derived here, not taken from a
    source: for each output sequence z and any value a = hat(z),
    ``p0(z)(a − theta0)² + p1(z)(a − theta1)² >= min(p0, p1)(z) · (theta1 − theta0)² / 2`` (the sum of the two
    squares is at least (theta1 − theta0)² / 2); summing over z gives E_0 + E_1 >= (theta1 − theta0)² / 2 ·
    Σ_z min(p0, p1) = (theta1 − theta0)² / 2 · (1 − TV), and the max is at least half the sum. This is Le Cam's
    two-point method (Le Cam 1973; Yu 1997, "Assouad, Fano, and Le Cam", Lemma 1) in its squared-loss form.
    1 − TV is summed directly as the overlap Σ min(P0^n K^n, P1^n K^n) (`product_tv`), so small bounds keep
    their relative accuracy.

    Parameters
    ----------
    K : FiniteKernel, finite mechanism, or array-like (k, m)
        The channel applied to each sample (``np.eye(k)``: no privatisation).
    p0, p1 : Categorical or array-like (k,)
        The two input laws.
    n : int
        Number of samples, >= 1.
    theta0, theta1 : float
        Their parameters (finite reals; squared-error units).

    Raises
    ------
    ValueError
        Bad `K`, `p0`, `p1`, `n`, `theta0` or `theta1`.
    IncompatibleSpaces
        `p0`, `p1` not laws on the channel's k inputs.
    """
    matrix = _matrix(K)
    p0, p1 = _input_laws("le_cam_bound", matrix, p0, p1)
    n = check_int("n", n, minimum=1)
    gap = float(check_real("theta1", theta1)) - float(check_real("theta0", theta0))
    _, overlap = _tv_and_overlap(_pushed(p0, matrix), _pushed(p1, matrix), n)
    return gap * gap / 4.0 * overlap


def _pushed(p: NDArray[np.float64], matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """p K, renormalised against the last ulps of the product (it sums to 1 up to rounding)."""
    out = np.clip(p @ matrix, 0.0, None)
    return out / out.sum()


@dataclass(frozen=True)
class BernoulliLeCam:
    """Bernoulli mean estimation under binary randomized response at eps: the numbers of AAC-LeCam per n.

    Every array has the shape of ``n``. Exact (finite sums): ``tv_private`` = TV(P0^n K^n, P1^n K^n),
    ``tv_nonprivate`` = TV(P0^n, P1^n), and their Le Cam bounds ``le_cam_private``, ``le_cam_nonprivate``
    (`le_cam_bound`). Provable companions (AAC-phi): ``tv_phi_bound`` = phi_n(eps, 0) · tv_nonprivate
    >= tv_private, and ``le_cam_effective`` = (theta1 − theta0)² / 8 · exp(−phi n KL(P0 || P1))
    <= le_cam_private (per sample KL(P0 K || P1 K) <= phi KL(P0 || P1), KL adds over the n samples, and
    Bretagnolle–Huber: 1 − TV >= exp(−KL) / 2, Tsybakov 2009, Lemma 2.6): the Le Cam bound of phi n
    non-private samples in that form. Comparison only (not asserted): ``n_effective`` = phi(eps, 0) n
    (AAC's effective sample size), ``le_cam_at_effective_n`` = the exact non-private bound at
    ceil(phi n) samples, and ``n_effective_duchi`` = 4 eps² n (the earlier effective size AAC compares with).
    """

    eps: float
    theta0: float
    theta1: float
    phi: float
    n: NDArray[np.int64]
    tv_private: NDArray[np.float64]
    tv_nonprivate: NDArray[np.float64]
    tv_phi_bound: NDArray[np.float64]
    le_cam_private: NDArray[np.float64]
    le_cam_nonprivate: NDArray[np.float64]
    le_cam_effective: NDArray[np.float64]
    n_effective: NDArray[np.float64]
    le_cam_at_effective_n: NDArray[np.float64]
    n_effective_duchi: NDArray[np.float64]


def bernoulli_rr_le_cam(eps: float, n: ArrayLike, *, theta0: float = 0.4, theta1: float = 0.6) -> BernoulliLeCam:
    """AAC-LeCam for Bernoulli(theta) mean estimation, each bit privatised by binary randomized response at eps
    (exactly eps-LDP, delta = 0): exact Le Cam bounds beside the effective-sample-size comparison, per n.

    THEORY: AAC-LeCam, AAC-phi. See `BernoulliLeCam` for what each number is and which are proven.

    Parameters
    ----------
    eps : float
        The channel's privacy level in nats, >= 0 and finite.
    n : int or array-like of int
        Sample sizes, each >= 1.
    theta0, theta1 : float
        The two means, in [0, 1] and distinct.

    Raises
    ------
    ValueError
        Bad `eps`, `n`, `theta0` or `theta1`.
    """
    eps = float(check_eps("eps", eps))
    t0, t1 = float(check_probability("theta0", theta0)), float(check_probability("theta1", theta1))
    if t0 == t1:
        raise fail("theta1", f"different from `theta0` = {t0!r}", t1)
    sizes = np.asarray(n)
    flat = [check_int("n", v, minimum=1) for v in sizes.reshape(-1).tolist()]
    channel = FiniteKernel(RandomizedResponse(2, eps).matrix)
    p0, p1 = np.array([1.0 - t0, t0]), np.array([1.0 - t1, t1])
    phi = ldp_contraction_bound(eps, 0.0)
    kl = _bernoulli_kl(t0, t1)  # inf when theta1 is 0 or 1: then only phi = 0 (eps = 0) keeps a positive bound
    rows = []
    for m in flat:
        tv_priv = _tv_and_overlap(_pushed(p0, channel.matrix), _pushed(p1, channel.matrix), m)[0]
        tv_non = _tv_and_overlap(p0, p1, m)[0]
        effective = math.ceil(phi * m)  # 0 at eps = 0: no samples, overlap 1
        rows.append((tv_priv, tv_non, ldp_contraction_bound(eps, 0.0, m) * tv_non,
                     le_cam_bound(channel, p0, p1, m, theta0=t0, theta1=t1),
                     _le_cam_identity(p0, p1, m, t1 - t0),
                     (t1 - t0) ** 2 / 8.0 * (1.0 if phi == 0.0 else math.exp(-phi * m * kl)),
                     phi * m, _le_cam_identity(p0, p1, effective, t1 - t0), 4.0 * eps * eps * m))
    table = np.array(rows, dtype=np.float64).reshape(len(flat), 9)
    columns = [readonly(table[:, i].reshape(sizes.shape)) for i in range(9)]
    return BernoulliLeCam(eps, t0, t1, phi, readonly(np.asarray(flat, dtype=np.int64).reshape(sizes.shape)),
                          *columns)


def _le_cam_identity(p0: NDArray[np.float64], p1: NDArray[np.float64], n: int, gap: float) -> float:
    """The non-private Le Cam bound with n >= 0 samples (n = 0: no data, the overlap is 1)."""
    return gap * gap / 4.0 * (1.0 if n == 0 else _tv_and_overlap(p0, p1, n)[1])


def _bernoulli_kl(t0: float, t1: float) -> float:
    """KL(Bernoulli(t0) || Bernoulli(t1)) in nats (inf if t1 is 0 or 1 and t0 differs)."""
    from scipy import special

    return float(special.kl_div(t0, t1) + special.kl_div(1.0 - t0, 1.0 - t1))


__all__ = ["MAX_COUNT_VECTORS", "BernoulliLeCam", "bernoulli_rr_le_cam", "le_cam_bound", "product_tv"]
