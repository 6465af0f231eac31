"""Exact divergences between Gaussians with full covariances (MultivariateNormal, mixed with Normal).

THEORY: STD-GaussHS with the Mahalanobis distance (equal covariances), STD-GaussRenyi in matrix form
and the Gaussian KL (any covariances).

Both laws are brought to one frame: with Σ2 = L Lᵀ and the eigendecomposition L⁻¹ Σ1 L⁻ᵀ = V diag(λ) Vᵀ,
the map T = Vᵀ L⁻¹ sends N(m1, Σ1), N(m2, Σ2) to N(T m1, diag λ), N(T m2, I): independent coordinates,
so Rényi and KL are sums of 1-D terms in λ_i and δ = T (m1 − m2). With u_i = 1 − λ_i this is the matrix
form ``alpha/2 Δᵀ Σ_a⁻¹ Δ − 1/(2(alpha−1)) log(det Σ_a / (det Σ1^(1−alpha) det Σ2^alpha))``,
``Σ_a = alpha Σ2 + (1 − alpha) Σ1``, written without the cancellation of its log-determinants at large alpha:
``Σ_i ½ [−log1p(−u_i) − log1p((alpha−1) u_i)/(alpha−1)] + alpha δ_i² / (2 (1 + (alpha−1) u_i))``,
+inf where Σ_a is not positive definite (some ``1 + (alpha−1) u_i <= 0``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..._validation import check_instance, check_order, check_real, check_vector, fail
from ...distributions import Normal
from ...distributions.multivariate_normal import MultivariateNormal, as_multivariate_normal
from .gaussian import gauss_hockey_stick, gauss_hockey_stick_scales
from .registry import Array, NoRule, register

_PAIRS = ((MultivariateNormal, MultivariateNormal), (Normal, MultivariateNormal), (MultivariateNormal, Normal))
#: At alpha = inf a coordinate with |1 − λ_i| below this is read as equal variances (λ_i = 1 up to rounding).
_EQUAL_AT_INF = 1e-12


def _pair(mu: Normal | MultivariateNormal, nu: Normal | MultivariateNormal) -> tuple[MultivariateNormal, ...]:
    return as_multivariate_normal(mu), as_multivariate_normal(nu)


def _difference(p: MultivariateNormal, q: MultivariateNormal) -> Array:
    d = p.space.d
    return (p.mean - q.mean).reshape(d)


def mahalanobis(delta: ArrayLike, cholesky: ArrayLike) -> float:
    """||delta||_{Σ⁻¹} = sqrt(deltaᵀ Σ⁻¹ delta) with Σ = L Lᵀ: the norm of L⁻¹ delta.

    `delta`: a finite vector of length d; `cholesky`: L, a finite lower-triangular (d, d) matrix with a positive
    diagonal (e.g. ``MultivariateNormal.cholesky``).
    """
    vec = check_vector("delta", delta)
    low = np.asarray(check_real("cholesky", cholesky))
    d = vec.size
    if low.shape != (d, d):
        raise fail("cholesky", f"a lower-triangular matrix of shape ({d}, {d})", f"shape {low.shape}")
    if np.any(np.triu(low, 1) != 0.0) or not np.all(np.diag(low) > 0.0):
        raise fail("cholesky", "lower-triangular with a positive diagonal (a Cholesky factor)", "another matrix")
    return _mahalanobis(vec, low)


def _mahalanobis(delta: Array, cholesky: Array) -> float:
    return float(np.linalg.norm(np.linalg.solve(cholesky, delta)))


def _checked_pair(p: Normal | MultivariateNormal, q: Normal | MultivariateNormal) -> tuple[MultivariateNormal, ...]:
    """Two Gaussians on one R^d as MultivariateNormal (TypeError / ValueError naming `p` or `q`)."""
    allowed = "a MultivariateNormal (or Normal)"
    pm = as_multivariate_normal(check_instance("p", p, (Normal, MultivariateNormal), allowed))
    qm = as_multivariate_normal(check_instance("q", q, (Normal, MultivariateNormal), allowed))
    if qm.space.d != pm.space.d:
        raise fail("q", f"a Gaussian on R^{pm.space.d}, the space of `p`", f"a Gaussian on R^{qm.space.d}")
    return pm, qm


def _common_frame(p: MultivariateNormal, q: MultivariateNormal) -> tuple[Array, Array]:
    """(λ, δ): the variances of p in the frame where q is N(·, I), and δ = T (m_p − m_q) (module docstring)."""
    whitened = np.linalg.solve(q.cholesky, np.linalg.solve(q.cholesky, p.cov).T)  # L⁻¹ Σ1 L⁻ᵀ
    lam, vecs = np.linalg.eigh(0.5 * (whitened + whitened.T))
    delta = vecs.T @ np.linalg.solve(q.cholesky, _difference(p, q))
    return lam, delta


def mvn_renyi(p: MultivariateNormal, q: MultivariateNormal, alpha: ArrayLike) -> Array:
    """STD-GaussRenyi, matrix form: R_alpha(p || q) for alpha in (1, inf] (module docstring), in nats; `p`, `q`
    Gaussians on one R^d (MultivariateNormal or Normal).

    Equal covariances: alpha/2 ||Δ||²_{Σ⁻¹} (alpha = inf: 0 if Δ = 0, else inf). alpha = inf otherwise:
    Σ_i [−½ log λ_i + δ_i² / (2 (1 − λ_i))] if every λ_i < 1 (Σ1 < Σ2), inf if some λ_i > 1; the
    alpha → inf limit of the finite formula (a coordinate with 1 − 1e-12 <= λ_i <= 1 counts as λ_i = 1).
    """
    pm, qm = _checked_pair(p, q)
    return _mvn_renyi(pm, qm, np.asarray(check_order("alpha", alpha), dtype=np.float64))


def _mvn_renyi(p: MultivariateNormal, q: MultivariateNormal, alpha: Array) -> Array:
    alpha = np.asarray(alpha, dtype=np.float64)
    out = np.empty(alpha.shape)
    inf = np.isinf(alpha)
    a = alpha[~inf]
    if np.array_equal(p.cov, q.cov):
        dist = _mahalanobis(_difference(p, q), q.cholesky)
        out[~inf] = a * dist**2 / 2.0
        out[inf] = 0.0 if dist == 0.0 else math.inf
        return out
    lam, delta = _common_frame(p, q)
    u = (1.0 - lam)[:, None]  # (d, 1) against (1, n_alpha)
    am1 = (a - 1.0)[None, :]
    sa2 = 1.0 + am1 * u  # the eigenvalues of L⁻¹ Σ_a L⁻ᵀ
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 0.5 * (-np.log1p(-u) - np.log1p(am1 * u) / am1) + a[None, :] * np.square(delta)[:, None] / (2 * sa2)
    out[~inf] = np.where(np.all(sa2 > 0.0, axis=0), terms.sum(axis=0), math.inf)
    if inf.any():
        out[inf] = _renyi_inf(lam, delta)
    return out


def _renyi_inf(lam: Array, delta: Array) -> float:
    # λ_i > 1 (however close to 1) makes the log-likelihood ratio unbounded: inf. Only 1 − 1e-12 <= λ_i <= 1
    # counts as equal (the limit term −½ log λ_i → 0), so rounding can only raise the value, never lower it.
    equal = (lam <= 1.0) & (1.0 - lam <= _EQUAL_AT_INF)
    if np.any(lam > 1.0) or np.any(delta[equal] != 0.0):
        return math.inf
    lam, delta = lam[~equal], delta[~equal]
    return float((-0.5 * np.log(lam) + np.square(delta) / (2.0 * (1.0 - lam))).sum())


def mvn_kl(p: MultivariateNormal, q: MultivariateNormal) -> float:
    """KL(p || q) = ½ [tr(Σ2⁻¹ Σ1) − d + Δᵀ Σ2⁻¹ Δ + log det Σ2 − log det Σ1] = ½ Σ_i (λ_i − 1 − log λ_i + δ_i²),
    in nats; `p`, `q` Gaussians on one R^d (MultivariateNormal or Normal)."""
    return _mvn_kl(*_checked_pair(p, q))


def _mvn_kl(p: MultivariateNormal, q: MultivariateNormal) -> float:
    if np.array_equal(p.cov, q.cov):
        return 0.5 * _mahalanobis(_difference(p, q), q.cholesky) ** 2
    lam, delta = _common_frame(p, q)
    u = 1.0 - lam
    return float(0.5 * (-u - np.log1p(-u) + np.square(delta)).sum())


@register("hockey_stick", "closed_form", *_PAIRS)
def _hs_mvn(mu: Normal | MultivariateNormal, nu: Normal | MultivariateNormal, eps: Array) -> Array:
    # STD-GaussHS depends on the two means only through ||m1 − m2||_{Σ⁻¹} when both covariances are Σ
    p, q = _pair(mu, nu)
    if np.array_equal(p.cov, q.cov):
        return gauss_hockey_stick(_mahalanobis(_difference(p, q), q.cholesky), eps)
    if np.all(np.isinf(eps)):
        return np.zeros(eps.shape)  # everywhere-positive densities: D_inf = 0
    if p.space.d != 1:
        raise NoRule(f"STD-GaussHS needs equal covariances on R^{p.space.d}, d > 1")
    s1, s2 = float(p.cholesky[0, 0]), float(q.cholesky[0, 0])
    shift = float(q.mean - p.mean)
    return np.array([0.0 if math.isinf(e) else gauss_hockey_stick_scales(shift, s1, s2, float(e)) for e in eps])


@register("renyi", "closed_form", *_PAIRS)
def _renyi_mvn(mu: Normal | MultivariateNormal, nu: Normal | MultivariateNormal, alpha: Array) -> Array:
    return _mvn_renyi(*_pair(mu, nu), alpha)


@register("kl", "closed_form", *_PAIRS)
def _kl_mvn(mu: Normal | MultivariateNormal, nu: Normal | MultivariateNormal, _: None) -> Array:
    return np.array([_mvn_kl(*_pair(mu, nu))])


__all__ = ["mahalanobis", "mvn_kl", "mvn_renyi"]
