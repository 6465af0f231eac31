"""BBGG-T2-finite optimised: the least right-hand side of BBGG Theorem 2 over omega and pi found by search (nats).

The mu-marginal of pi is fixed and omega = pi 1 is free, so pi is parametrised by columns:
``pi(x, y) = mu(y) G(y, x)`` with each G(y, .) a softmax of logits over the x it may use. Only entries that can keep
the bound finite are free: x in supp(nu) (else omega is not ≪ nu) and supp K(y) ⊆ supp K(x) (else (H_pi K)(x) is
not ≪ K(x)). The objective R_alpha(omega || nu) + max_x R_alpha((H_pi K)(x) || K(x)) is minimised by Adam steps
on the logits with the max smoothed by a log-sum-exp at a falling temperature (analytic gradients, plain numpy:
scipy's SLSQP found the same optima but ran 10-30x slower where BLAS threads compete), from several starts. Every
candidate is re-evaluated by `coupling_bound`'s arithmetic at its (omega, pi), so the reported bound is a value of
the theorem's right-hand side, valid whether or not the search converged. The identity coupling (omega = mu:
R_alpha(mu || nu), STD-DPI) and the product coupling nu ⊗ mu (omega = nu: first term 0) are always candidates, so
the result never exceeds either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_work, fail
from .coupling_finite import check_orders, coupling_value, exact_pushed_renyi, kernel_matrix, law_vector

Array = NDArray[np.float64]

#: The most states of K's domain the search accepts (n² logits; the cost grows like n³ m per step).
MAX_STATES = 8
#: Adam steps per start, its step size and its moment decays.
STEPS = 300
STEP_SIZE = 0.1
DECAYS = (0.9, 0.999)
#: The temperature of the smoothed max over the rows falls geometrically from the first to the second (nats).
TEMPERATURES = (0.05, 5e-4)
#: The logit of the diagonal at the start near the identity coupling (e^-6 of each column elsewhere).
IDENTITY_LOGIT = 6.0


@dataclass(frozen=True)
class OptimisedCoupling:
    """The best BBGG-T2-finite bound found: its value, the (omega, pi) that give it and the exact value beside it.

    ``bound`` = coupling_bound(mu, nu, K, alpha, omega, coupling); ``exact`` = R_alpha(mu K || nu K);
    ``identity_bound`` = R_alpha(mu || nu) (the data-processing bound); all in nats.
    """

    alpha: float
    bound: float
    omega: Array
    coupling: Array
    exact: float
    identity_bound: float

    @property
    def ratio(self) -> float:
        """bound / exact (>= 1; nan where exact is 0 or inf)."""
        return self.bound / self.exact if 0 < self.exact < math.inf else math.nan


def optimise_coupling_bound(
    mu: object, nu: object, K: object, alpha: float, *, restarts: int = 2, rng: RNGLike = None
) -> OptimisedCoupling:
    """BBGG-T2-finite: the least ``R_alpha(omega || nu) + sup_x R_alpha((H_pi K)(x) || K(x))`` found over omega, pi.

    Parameters
    ----------
    mu, nu : Categorical or array_like
        Laws on the n <= `MAX_STATES` states of K's domain.
    K : FiniteKernel or array_like
        An (n, m) row-stochastic matrix.
    alpha : float
        One order in [1, inf] (1: KL).
    restarts : int
        Random starts (logits ~ N(0, 1) from `rng`) beside the starts near the identity and the product couplings.
    rng : seed or Generator
        For the random starts.

    Returns
    -------
    OptimisedCoupling
        The smallest bound over the identity coupling, the product coupling nu ⊗ mu and the searched couplings,
        its omega and pi, the exact R_alpha(mu K || nu K) and the identity bound R_alpha(mu || nu) (nats).
    """
    matrix = kernel_matrix(K)
    n = matrix.shape[0]
    if n > MAX_STATES:
        raise fail("K", f"a kernel on at most {MAX_STATES} states for the search", f"{n} states")
    mu_v, nu_v = law_vector("mu", mu, n), law_vector("nu", nu, n)
    orders, shape = check_orders(alpha)
    if shape != ():
        raise fail("alpha", "one order in [1, inf] (a scalar)", f"shape {shape}")
    starts = check_int("restarts", restarts, minimum=0)
    check_work("restarts", restarts, (starts + 2.0) * STEPS * n * n * (n + matrix.shape[1]), what="the search")
    gen = as_generator(rng)

    candidates = [(mu_v, np.diag(mu_v)), (nu_v, np.outer(nu_v, mu_v))]
    search = _Search(mu_v, nu_v, matrix, orders)
    if search.size:
        for logits in search.starts(starts, gen):
            pi = search.coupling(search.descend(logits))
            candidates.append((pi.sum(axis=1), pi))
    values = [float(coupling_value(mu_v, nu_v, matrix, orders, w, pi)[0]) for w, pi in candidates]
    best = int(np.argmin(values))
    w, pi = candidates[best]
    return OptimisedCoupling(
        float(orders[0]),
        values[best],
        w / w.sum(),
        pi,
        float(exact_pushed_renyi(mu_v, nu_v, matrix, orders)[0]),
        values[0],
    )


class _Search:
    """The logits of G(y, .) over the allowed (y, x), and the objective's two parts with their gradients.

    With pi(x, y) = mu(y) G(y, x) and a function f of pi with A(x, y) = df/dpi(x, y), the softmax gives
    df/dtheta(y, x') = mu(y) G(y, x') (A(x', y) − Σ_x G(y, x) A(x, y)). For the first term A(x, y) = dF/domega(x);
    for the row term of x, P_x = (pi K)(x)/omega(x) gives A(x, y) = ((K g_x)(y) − <g_x, P_x>)/omega(x) with
    g_x = dR/dP_x, and A = 0 on the other rows.
    """

    def __init__(self, mu: Array, nu: Array, matrix: Array, orders: Array) -> None:
        self.mu, self.nu, self.matrix, self.alpha = mu, nu, matrix, float(orders[0])
        support = matrix > 0.0
        inside = ~np.any(support[:, None, :] & ~support[None, :, :], axis=2)  # [y, x]: supp K(y) ⊆ supp K(x)
        self.allowed = inside & (nu > 0.0)[None, :] & (mu > 0.0)[:, None]
        feasible = bool(np.all(self.allowed.any(axis=1)[mu > 0.0]))
        self.size = int(self.allowed.sum()) if feasible else 0  # infeasible: every coupling gives inf
        self.rows_x = np.flatnonzero(nu > 0.0)

    def softmax(self, theta: Array) -> Array:
        """G(y, x): each row a softmax of its logits over the allowed x (rows of mu(y) = 0: uniform, weight 0)."""
        logits = np.full(self.allowed.shape, -np.inf)
        logits[self.allowed] = theta
        logits[~self.allowed.any(axis=1)] = 0.0
        logits -= logits.max(axis=1, keepdims=True)
        g = np.exp(logits)
        return g / g.sum(axis=1, keepdims=True)

    def coupling(self, theta: Array) -> Array:
        """pi(x, y) = mu(y) G(y, x)."""
        return (self.mu[:, None] * self.softmax(theta)).T

    def _chain(self, G: Array, A: Array) -> Array:
        """df/dtheta from A[j, x, y] = df_j/dpi(x, y) (one row per function j), on the allowed entries."""
        At = np.swapaxes(A, 1, 2)  # [j, y, x]
        mean = np.einsum("yx,jyx->jy", G, At)
        return (self.mu[None, :, None] * G[None] * (At - mean[:, :, None]))[:, self.allowed]

    def first(self, theta: Array) -> tuple[float, Array]:
        """R_alpha(omega || nu) and its gradient."""
        G = self.softmax(theta)
        w = (self.mu[:, None] * G).sum(axis=0)
        value, grad = _search_rows(w[None, :], self.nu[None, :], self.alpha)
        A = np.broadcast_to(grad[0][:, None], G.shape[::-1])[None]
        return float(value[0]), self._chain(G, A)[0]

    def rows(self, theta: Array) -> tuple[Array, Array]:
        """R_alpha((H_pi K)(x) || K(x)) for x in supp(nu) (0 where omega(x) = 0: the free row delta_x), Jacobian."""
        G = self.softmax(theta)
        pi = (self.mu[:, None] * G).T
        xs = self.rows_x
        w = pi[xs].sum(axis=1)
        used = w > 0.0
        values, A = np.zeros(xs.size), np.zeros((xs.size, *pi.shape))
        if used.any():
            pushed = (pi[xs[used]] / w[used, None]) @ self.matrix
            vals, g = _search_rows(pushed, self.matrix[xs[used]], self.alpha)
            values[used] = vals
            with np.errstate(over="ignore", invalid="ignore"):  # omega(x) -> 0: a steep (clipped) gradient
                A[np.flatnonzero(used), xs[used], :] = np.nan_to_num(
                    (g @ self.matrix.T - np.sum(g * pushed, axis=1)[:, None]) / w[used, None]
                )
        return values, self._chain(G, A)

    def descend(self, theta: Array) -> Array:
        """Adam on R_alpha(omega || nu) + tau log Σ_x exp(R_x / tau) (>= the max over x; tau falling); the iterate
        whose objective with the plain max is least."""
        first, second = DECAYS
        m, v = np.zeros_like(theta), np.zeros_like(theta)
        best, best_theta = math.inf, theta
        for k in range(1, STEPS + 1):
            tau = TEMPERATURES[0] * (TEMPERATURES[1] / TEMPERATURES[0]) ** (k / STEPS)
            value, grad = self.first(theta)
            rows, jac = self.rows(theta)
            top = rows.max(initial=0.0)
            if value + top < best:
                best, best_theta = value + top, theta
            weights = np.exp((rows - top) / tau)
            grad = grad + (weights / weights.sum()) @ jac
            m = first * m + (1.0 - first) * grad
            v = second * v + (1.0 - second) * grad * grad
            theta = theta - STEP_SIZE * (m / (1.0 - first**k)) / (np.sqrt(v / (1.0 - second**k)) + 1e-8)
        return best_theta

    def starts(self, restarts: int, rng: np.random.Generator) -> list[Array]:
        """Near the identity coupling, near nu ⊗ mu, and `restarts` random logits."""
        n = self.allowed.shape[0]
        near_identity = IDENTITY_LOGIT * np.eye(n)[self.allowed]
        with np.errstate(divide="ignore"):
            product = np.broadcast_to(np.log(self.nu)[None, :], self.allowed.shape)[self.allowed]
        return [near_identity, product, *(rng.standard_normal((restarts, self.size)))]


def _search_rows(P: Array, Q: Array, alpha: float) -> tuple[Array, Array]:
    """R_alpha(P[r] || Q[r]) by the plain sums and dR/dP[r] (a subgradient at alpha = inf), for the search only:
    supp P[r] ⊆ supp Q[r] by the mask, and the reported bound is recomputed by `coupling_value`."""
    positive = P > 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(positive, np.log(P) - np.log(Q), -np.inf)
    if alpha == 1.0:
        finite = np.where(positive, ratio, 0.0)
        return np.sum(P * finite, axis=1), np.where(positive, finite + 1.0, 0.0)
    if math.isinf(alpha):
        top = np.argmax(ratio, axis=1)
        grad = np.zeros_like(P)
        grad[np.arange(P.shape[0]), top] = 1.0 / P[np.arange(P.shape[0]), top]
        return ratio.max(axis=1), grad
    with np.errstate(divide="ignore"):
        e = np.where(positive, np.log(P) + (alpha - 1.0) * ratio, -np.inf)
    top = e.max(axis=1, keepdims=True)
    log_sum = top[:, 0] + np.log(np.exp(e - top).sum(axis=1))
    grad = np.where(positive, alpha / (alpha - 1.0) * np.exp((alpha - 1.0) * ratio - log_sum[:, None]), 0.0)
    return log_sum / (alpha - 1.0), grad


__all__ = ["MAX_STATES", "OptimisedCoupling", "optimise_coupling_bound"]
