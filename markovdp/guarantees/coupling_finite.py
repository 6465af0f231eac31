"""BBGG-T2-finite: the right-hand side of BBGG Theorem 2 for any omega and coupling pi on a finite space (nats).

For laws mu, nu on X = {0..n-1}, a kernel K from X to {0..m-1}, a law omega and a coupling pi in C(omega, mu)
(row sums omega, column sums mu), the transport kernel is ``h_pi(x, y) = pi(x, y)/omega(x)`` (so omega H_pi = mu) and

    R_alpha(mu K || nu K) <= R_alpha(omega || nu) + sup_{x in supp(nu)} R_alpha((H_pi K)(x) || K(x)).

H_pi is defined omega-almost everywhere only. Where omega(x) = 0 < nu(x) its row is free: the theorem holds for
every choice, and the choice h(x, .) = delta_x gives R_alpha(K(x) || K(x)) = 0, the least any row can give. So the
sup runs over supp(omega) ∩ supp(nu) (and is 0 if that is empty). The value is +inf exactly when omega is not
≪ nu (the first term), or when (H_pi K)(x) is not ≪ K(x) for some x with omega(x) > 0 and nu(x) > 0 (the second).
omega = mu with the identity coupling gives R_alpha(mu || nu) (STD-DPI).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_probability_vector, check_range, check_stochastic_matrix, fail
from ..distributions import Categorical, Distribution
from ..divergences.exact.finite import renyi_finite_rows
from ..operators.finite import FiniteKernel

Array = NDArray[np.float64]

#: The largest absolute deviation of a coupling's marginals from (omega, mu) that is accepted. The bound is that
#: of the laws the coupling's marginals actually are (omega H_pi is pi's column sums), within this of mu.
COUPLING_TOL = 1e-9


def law_vector(name: str, value: object, n: int | None = None) -> Array:
    """A `Categorical` or a probability vector as a float array (on `n` states if given)."""
    if isinstance(value, Categorical):
        p = np.asarray(value.probs, dtype=np.float64)
    elif isinstance(value, Distribution):
        raise fail(name, "a Categorical law or a probability vector", value, TypeError)
    else:
        p = check_probability_vector(name, value)  # type: ignore[arg-type]
    if n is not None and p.size != n:
        raise fail(name, f"a law on the {n} states of `K`'s domain", f"{p.size} states")
    return p


def kernel_matrix(K: object) -> Array:
    """The row-stochastic matrix of a `FiniteKernel` or of a matrix (checked)."""
    return np.asarray(K.matrix) if isinstance(K, FiniteKernel) else check_stochastic_matrix("K", K)  # type: ignore


def check_orders(alpha: ArrayLike) -> tuple[Array, tuple[int, ...]]:
    """Orders alpha in [1, inf] (1: KL), flattened, and their shape."""
    arr = check_range("alpha", alpha, low=1.0, allow_inf=True, allowed="in [1, inf]")
    return np.atleast_1d(arr).ravel(), arr.shape


def renyi_rows(P: Array, Q: Array, orders: Array) -> Array:
    """(n_alpha, n_rows) array of R_alpha(P[r] || Q[r]); alpha = 1 is KL (inf where supp P[r] ⊄ supp Q[r])."""
    out = np.empty((orders.size, P.shape[0]))
    above = orders > 1.0
    if above.any():
        out[above] = renyi_finite_rows(P, Q, orders[above])
    if not above.all():
        from scipy.special import kl_div  # non-negative terms p log(p/q) − p + q; inf where p > 0 = q

        out[~above] = kl_div(P, Q).sum(axis=1)
    return out


def transport_rows(coupling: Array, omega: Array) -> tuple[Array, NDArray[np.bool_]]:
    """The rows h_pi(x, .) = pi(x, .)/omega(x) where omega(x) > 0 (normalised by pi's own row sums), and that mask."""
    sums = coupling.sum(axis=1)
    used = (omega > 0.0) & (sums > 0.0)
    return coupling[used] / sums[used, None], used


def coupling_value(mu: Array, nu: Array, matrix: Array, orders: Array, omega: Array, coupling: Array) -> Array:
    """BBGG-T2's right-hand side at each order for checked arrays (no validation): see `coupling_bound`."""
    del mu  # the coupling carries it (its column sums)
    first = renyi_rows(omega[None, :], nu[None, :], orders)[:, 0]
    rows, used = transport_rows(coupling, omega)
    keep = nu[used] > 0.0  # the sup runs over supp(omega) ∩ supp(nu); other rows of supp(nu) give 0
    if not keep.any():
        return first  # omega ⊥ nu: the first term is inf
    pushed = rows[keep] @ matrix
    pushed /= pushed.sum(axis=1, keepdims=True)
    second = renyi_rows(pushed, matrix[np.flatnonzero(used)[keep]], orders).max(axis=1)
    return first + np.maximum(second, 0.0)


def check_coupling(mu: Array, omega: object, coupling: object) -> tuple[Array, Array]:
    """(omega, pi) with pi in C(omega, mu) to `COUPLING_TOL`; the defaults of `coupling_bound`."""
    n = mu.size
    if coupling is None:
        if omega is not None:
            w = law_vector("omega", omega, n)
            if float(np.max(np.abs(w - mu))) > COUPLING_TOL:
                raise fail(
                    "coupling", f"given when `omega` is not `mu` (±{COUPLING_TOL:g}): a coupling of omega and mu", None
                )
        return mu, np.diag(mu)
    pi = check_range("coupling", coupling, low=0.0, allowed="a non-negative finite matrix")
    if pi.shape != (n, n):
        raise fail("coupling", f"an ({n}, {n}) matrix (a coupling of omega and mu)", f"shape {pi.shape}")
    column_gap = float(np.max(np.abs(pi.sum(axis=0) - mu)))
    if column_gap > COUPLING_TOL:
        raise fail(
            "coupling",
            f"a coupling whose column sums are `mu` (±{COUPLING_TOL:g})",
            f"a column sum off by {column_gap!r}",
        )
    if omega is None:
        rows = pi.sum(axis=1)
        return rows / rows.sum(), pi
    w = law_vector("omega", omega, n)
    row_gap = float(np.max(np.abs(pi.sum(axis=1) - w)))
    if row_gap > COUPLING_TOL:
        raise fail(
            "coupling", f"a coupling whose row sums are `omega` (±{COUPLING_TOL:g})", f"a row sum off by {row_gap!r}"
        )
    return w, pi


def coupling_bound(
    mu: object, nu: object, K: object, alpha: ArrayLike, omega: object = None, coupling: object = None
) -> float | Array:
    """BBGG-T2-finite: ``R_alpha(omega || nu) + sup_{x in supp(nu)} R_alpha((H_pi K)(x) || K(x))`` in nats.

    An upper bound on R_alpha(mu K || nu K) for every law omega and coupling pi of (omega, mu); the transport
    kernel is h_pi(x, y) = pi(x, y)/omega(x), so omega H_pi = mu. Where omega(x) = 0 < nu(x) the row of H_pi is
    free and taken as delta_x (term 0, the least possible), so the sup is over supp(omega) ∩ supp(nu). The value
    is +inf where omega is not ≪ nu, or where (H_pi K)(x) is not ≪ K(x) for some x with omega(x), nu(x) > 0.
    Each Rényi divergence is the exact finite sum in log space (`renyi_finite_rows`; alpha = 1: KL; inf: log max).

    Parameters
    ----------
    mu, nu : Categorical or array_like
        Laws on the n states of K's domain.
    K : FiniteKernel or array_like
        An (n, m) row-stochastic matrix.
    alpha : float or array_like
        Orders in [1, inf].
    omega : Categorical or array_like, optional
        The intermediate law; default the row sums of `coupling`, or mu when no coupling is given.
    coupling : array_like, optional
        An (n, n) matrix pi >= 0 with row sums omega and column sums mu (each within `COUPLING_TOL`); default the
        identity coupling diag(mu), which needs omega = mu (then the bound is R_alpha(mu || nu): STD-DPI).

    Returns
    -------
    float or ndarray
        The bound at each order (the shape of `alpha`), nats.
    """
    matrix = kernel_matrix(K)
    n = matrix.shape[0]
    mu_v, nu_v = law_vector("mu", mu, n), law_vector("nu", nu, n)
    orders, shape = check_orders(alpha)
    w, pi = check_coupling(mu_v, omega, coupling)
    out = coupling_value(mu_v, nu_v, matrix, orders, w, pi).reshape(shape) + 0.0
    return float(out) if out.ndim == 0 else out


def exact_pushed_renyi(mu: Array, nu: Array, matrix: Array, orders: Array) -> Array:
    """R_alpha(mu K || nu K) at each order (the exact finite sums), for checked arrays."""
    p, q = mu @ matrix, nu @ matrix
    return renyi_rows((p / p.sum())[None, :], (q / q.sum())[None, :], orders)[:, 0]


__all__ = ["COUPLING_TOL", "coupling_bound"]
