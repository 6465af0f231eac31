"""Exact divergences between two laws: hockey-stick E_{e^eps}, TV, KL and Rényi R_alpha.

THEORY: Notation (E_gamma, TV = E_1, KL, R_alpha, D_inf); STD-GaussHS, STD-GaussRenyi, STD-LapHS,
STD-LapRenyi. Each public function dispatches on the *pair* of types through a small registry keyed by
``(divergence, type, type)`` (DESIGN §6) and falls back closed form → finite sum → quadrature:

``"closed_form"``
    Normal/Normal, Laplace/Laplace, and atomic vs continuous pairs (mutually singular).
``"finite_sum"``
    atomic pairs: Categorical, PointMass and Empirical laws (exact sums over the union of atoms).
``"quadrature"``
    any two laws on R^1 with ``log_density`` and location/scale hints (Normal, Laplace):
    `scipy.integrate.quad` on pieces split at the locations, at powers-of-two multiples of the scales and
    at the crossings ``log p - log q = eps``, with the integrand rescaled by its maximum so values such
    as 1e-23 keep full relative accuracy.

``method=None`` uses the best available method (a closed form that does not cover a case, e.g. the
hockey-stick between Gaussians of different sigmas, falls back to quadrature on R^1);
``method="quadrature"`` forces the fallback so tests can hold each formula against it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, optimize, special

from .._validation import check_eps, check_order, fail
from ..distributions import Categorical, Distribution, Empirical, Laplace, Normal, PointMass
from ..operators.base import IncompatibleSpaces
from ..spaces import RealSpace

__all__ = ["METHODS", "hockey_stick", "kl", "renyi", "tv"]

#: Accepted values of ``method`` (besides None = best available).
METHODS: tuple[str, ...] = ("closed_form", "finite_sum", "quadrature")

Array = NDArray[np.float64]
#: A rule maps (mu, nu, parameter) to values; the parameter is a 1-D array of eps (hockey-stick) or
#: alpha (Rényi), or None (KL). NaN entries mean "not covered here": the dispatcher tries the next method.
Rule = Callable[[Distribution, Distribution, Any], Array]

_RULES: dict[tuple[str, type, type], tuple[str, Rule]] = {}
_NAMES = {"hockey_stick": "the hockey-stick divergence", "kl": "the KL divergence",
          "renyi": "the Rényi divergence"}


class _NoRule(Exception):
    """A registered rule does not cover this case (the message says why); try the next method."""


def register(divergence: str, method: str, *pairs: tuple[type, type]) -> Callable[[Rule], Rule]:
    """Register `rule` as the `method` for `divergence` on each ``(type(mu), type(nu))`` in `pairs`."""
    if divergence not in _NAMES or method not in METHODS[:2]:
        raise ValueError(f"unknown divergence {divergence!r} or method {method!r}")

    def decorate(rule: Rule) -> Rule:
        for pair in pairs:
            _RULES[(divergence, *pair)] = (method, rule)
        return rule

    return decorate


def _lookup(divergence: str, a: type, b: type) -> tuple[str, Rule] | None:
    for ta in a.__mro__:
        for tb in b.__mro__:
            found = _RULES.get((divergence, ta, tb))
            if found is not None:
                return found
    return None


# ---------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------

def hockey_stick(mu: Distribution, nu: Distribution, *, eps: ArrayLike,
                 method: str | None = None) -> float | Array:
    """E_{e^eps}(mu || nu) = ∫ [p_mu − e^eps p_nu]_+ = sup_E mu(E) − e^eps nu(E), in [0, 1].

    THEORY: Notation (hockey-stick, D_inf), STD-GaussHS, STD-LapHS.

    Parameters
    ----------
    mu, nu : Distribution
        Two laws on the same space.
    eps : float or array
        Privacy level(s) in nats, ``>= 0``; ``inf`` gives D_inf, the mass of the part of mu singular
        w.r.t. nu (the gamma → ∞ limit; BBGG footnote 3). Arrays broadcast: a delta(eps) curve.
    method : {None, "closed_form", "finite_sum", "quadrature"}
        None = best available.

    Returns
    -------
    float for scalar `eps`, else an array of the shape of `eps`.

    Raises
    ------
    ValueError
        NaN or negative `eps`, an unknown `method`, laws on different spaces (`IncompatibleSpaces`).
    NotImplementedError
        No method covers the pair (e.g. Gaussians of different sigmas on R^d, d > 1).
    """
    eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    out = _evaluate("hockey_stick", mu, nu, eps_arr.ravel(), method)
    return _shaped(np.clip(out, 0.0, 1.0), eps_arr)


def tv(mu: Distribution, nu: Distribution, *, method: str | None = None) -> float:
    """TV(mu, nu) = E_1(mu || nu) = ½ ∫ |p_mu − p_nu|, in [0, 1]. THEORY: Notation (E_1 = TV).

    Raises as `hockey_stick`.
    """
    return float(hockey_stick(mu, nu, eps=0.0, method=method))


def kl(mu: Distribution, nu: Distribution, *, method: str | None = None) -> float:
    """KL(mu || nu) = ∫ p_mu log(p_mu / p_nu) in nats, in [0, inf]; inf where mu is not ≪ nu.

    THEORY: Notation (alpha → 1 limit of R_alpha). Raises as `hockey_stick`.
    """
    return float(max(_evaluate("kl", mu, nu, None, method)[0], 0.0))


def renyi(mu: Distribution, nu: Distribution, *, alpha: ArrayLike,
          method: str | None = None) -> float | Array:
    """R_alpha(mu || nu) = 1/(alpha − 1) log ∫ (dmu/dnu)^alpha dnu in nats, in [0, inf].

    THEORY: Notation (R_alpha, R_inf = log ess sup dmu/dnu), STD-GaussRenyi, STD-LapRenyi, BBGG-E2.

    Parameters
    ----------
    alpha : float or array
        Order(s) in (1, inf]; arrays broadcast (an eps(alpha) RDP curve).
    mu, nu, method
        As in `hockey_stick`.

    Returns
    -------
    float for scalar `alpha`, else an array of the shape of `alpha`; +inf where mu is not ≪ nu.

    Raises
    ------
    ValueError
        NaN or `alpha` <= 1 (alpha = 1 is `kl`), an unknown `method`, laws on different spaces.
    NotImplementedError
        No method covers the pair.
    """
    alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    out = _evaluate("renyi", mu, nu, alpha_arr.ravel(), method)
    return _shaped(np.maximum(out, 0.0), alpha_arr)


def _shaped(values: Array, like: Array) -> float | Array:
    values = values.reshape(like.shape)
    return float(values) if like.ndim == 0 else values


# ---------------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------------

def _check_pair(mu: Any, nu: Any) -> None:
    for name, law in (("mu", mu), ("nu", nu)):
        if not isinstance(law, Distribution):
            raise fail(name, "a Distribution", type(law).__name__, TypeError)
    if mu.space != nu.space:
        raise IncompatibleSpaces(
            f"`nu` must be a law on the same space as `mu` ({mu.space.describe()}); "
            f"got a law on {nu.space.describe()}.")


def _evaluate(divergence: str, mu: Distribution, nu: Distribution, par: Array | None,
              method: str | None) -> Array:
    _check_pair(mu, nu)
    if method is not None and (not isinstance(method, str) or method not in METHODS):
        allowed = ", ".join(repr(m) for m in METHODS)
        raise fail("method", f"None or one of {allowed}", repr(method))
    n = 1 if par is None else par.size
    out = np.full(n, np.nan)
    reasons: list[str] = []
    found = _lookup(divergence, type(mu), type(nu))
    if found is None:
        reasons.append("no closed form or finite sum is registered for this pair")
    elif method is not None and method != found[0]:
        reasons.append(f"its exact method is {found[0]!r}")
    else:
        try:
            with np.errstate(over="ignore", under="ignore"):
                out = np.array(found[1](mu, nu, par), dtype=np.float64).reshape(n)
        except _NoRule as exc:
            reasons.append(str(exc))
        else:
            if np.isnan(out).any():
                reasons.append(f"its {found[0].replace('_', ' ')} does not cover every requested value")
    todo = np.isnan(out)
    if todo.any() and method in (None, "quadrature"):
        if _quadrature_ready(mu, nu):
            sub = None if par is None else par[todo]
            out[todo] = _QUADRATURE[divergence](mu, nu, sub)
        else:
            reasons.append("quadrature needs two laws on R^1 with log densities and location/scale hints")
    if np.isnan(out).any():
        how = "" if method is None else f" with method={method!r}"
        raise NotImplementedError(
            f"Cannot compute {_NAMES[divergence]} between {type(mu).__name__} and {type(nu).__name__} "
            f"on {mu.space.describe()}{how}: {'; '.join(reasons)}.")
    return out


# ---------------------------------------------------------------------------------------------------
# Atomic laws (finite sums): Categorical, PointMass, Empirical
# ---------------------------------------------------------------------------------------------------

_ATOMIC = (Categorical, PointMass, Empirical)
_CONTINUOUS = (Normal, Laplace)


def _atoms(law: Distribution) -> tuple[Array, Array]:
    """(atoms as rows, weights) of an atomic law."""
    if isinstance(law, Categorical):
        return np.arange(law.probs.size, dtype=np.float64)[:, None], np.asarray(law.probs)
    if isinstance(law, PointMass):
        return np.asarray(law.x, dtype=np.float64).reshape(1, -1) + 0.0, np.ones(1)
    if isinstance(law, Empirical):
        rows = law.samples.reshape(law.samples.shape[0], -1) + 0.0  # + 0.0 merges -0.0 with 0.0
        atoms, counts = np.unique(rows, axis=0, return_counts=True)
        return atoms, counts / rows.shape[0]
    raise _NoRule(f"{type(law).__name__} is not atomic")  # pragma: no cover - registry guards this


def _aligned(mu: Distribution, nu: Distribution) -> tuple[Array, Array]:
    """Probability vectors p, q of mu and nu on the union of their atoms."""
    if isinstance(mu, Categorical) and isinstance(nu, Categorical):
        return np.asarray(mu.probs), np.asarray(nu.probs)
    (am, wm), (an, wn) = _atoms(mu), _atoms(nu)
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
    alpha = np.asarray(alpha, dtype=np.float64)
    keep = p > 0
    p, q = p[keep], q[keep]
    if np.any(q == 0):
        return np.full(alpha.shape, math.inf)
    log_p = np.log(p)
    log_ratio = log_p - np.log(q)
    out = np.empty(alpha.shape)
    for i, a in enumerate(alpha):
        if math.isinf(a):
            out[i] = log_ratio.max()
            continue
        x = (a - 1.0) * log_ratio  # log (p/q)^(alpha−1)
        if np.abs(x).max() < 0.5:
            # log Σ p e^x = log1p(Σ p expm1(x)): keeps the O(alpha − 1) signal for nearby laws
            log_sum = math.log1p(max(float(np.dot(p, np.expm1(x))), 0.0))
        else:
            log_sum = float(special.logsumexp(log_p + x))
        out[i] = log_sum / (a - 1.0)
    return out


_ATOMIC_PAIRS = [(a, b) for a in _ATOMIC for b in _ATOMIC]


@register("hockey_stick", "finite_sum", *_ATOMIC_PAIRS)
def _hs_atomic(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return hockey_stick_finite(*_aligned(mu, nu), eps)


@register("kl", "finite_sum", *_ATOMIC_PAIRS)
def _kl_atomic(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([kl_finite(*_aligned(mu, nu))])


@register("renyi", "finite_sum", *_ATOMIC_PAIRS)
def _renyi_atomic(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return renyi_finite(*_aligned(mu, nu), alpha)


# Atomic vs absolutely continuous: mutually singular. E_gamma = 1 for every gamma (the event "the atoms",
# or its complement, has mass 1 under mu and 0 under nu); KL = R_alpha = inf.
_SINGULAR_PAIRS = ([(a, c) for a in _ATOMIC for c in _CONTINUOUS]
                   + [(c, a) for a in _ATOMIC for c in _CONTINUOUS])


@register("hockey_stick", "closed_form", *_SINGULAR_PAIRS)
def _hs_singular(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return np.ones(eps.shape)


@register("kl", "closed_form", *_SINGULAR_PAIRS)
def _kl_singular(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([math.inf])


@register("renyi", "closed_form", *_SINGULAR_PAIRS)
def _renyi_singular(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return np.full(alpha.shape, math.inf)


# ---------------------------------------------------------------------------------------------------
# Gaussians
# ---------------------------------------------------------------------------------------------------

def _normal_pair(mu: Normal, nu: Normal) -> tuple[float, float, float, int]:
    """(D = ||m1 − m2||, sigma1, sigma2, d)."""
    dist = float(np.linalg.norm(np.atleast_1d(mu.mean - nu.mean)))
    return dist, float(mu.sigma), float(nu.sigma), mu.space.d


def gauss_hockey_stick(ratio: float, eps: Array) -> Array:
    """STD-GaussHS: E_{e^eps}(N(0, s² I) || N(v, s² I)) as a function of ratio = ||v||/s.

    ``Phi(a) − e^eps Phi(b)``, ``a = D/(2s) − eps s/D``, ``b = −D/(2s) − eps s/D``, evaluated as
    ``Phi(a) · (−expm1(eps + log Phi(b) − log Phi(a)))`` with `log_ndtr`: the difference of two tiny
    numbers never forms, so eps = 50 or s = 1e-3 keep full relative accuracy (D = s, eps = 10: 9.8e-23).
    """
    eps = np.asarray(eps, dtype=np.float64)
    out = np.zeros(eps.shape)
    if ratio == 0.0:
        return out  # identical laws
    finite = np.isfinite(eps)  # eps = inf: D_inf = 0 (mutually absolutely continuous)
    e = eps[finite]
    a = ratio / 2.0 - e / ratio
    b = -ratio / 2.0 - e / ratio
    log_a, log_b = special.log_ndtr(a), special.log_ndtr(b)
    # Phi(a) underflowing to 0 (log_a = -inf, as at tiny D/s) means Phi(a) − e^eps Phi(b) <= Phi(a) = 0.
    zero = np.isneginf(log_a)
    exponent = np.minimum(e + log_b - np.where(zero, 0.0, log_a), 0.0)  # log(e^eps Phi(b)/Phi(a)) <= 0
    values = np.where(zero, 0.0, np.exp(log_a) * -np.expm1(exponent))
    # eps = 0: TV = 2 Phi(D/(2s)) − 1 = erf(D/(2 sqrt(2) s)), exact for tiny D/s too
    values = np.where(e == 0.0, special.erf(ratio / (2.0 * math.sqrt(2.0))), values)
    out[finite] = values
    return out


@register("hockey_stick", "closed_form", (Normal, Normal))
def _hs_normal(mu: Normal, nu: Normal, eps: Array) -> Array:
    dist, s1, s2, _ = _normal_pair(mu, nu)
    if s1 != s2:
        # eps = inf still has a value: both laws have everywhere-positive densities
        if np.all(np.isinf(eps)):
            return np.zeros(eps.shape)
        raise _NoRule(f"STD-GaussHS needs equal sigmas (got {s1!r} and {s2!r})")
    return gauss_hockey_stick(dist / s1, eps)


@register("kl", "closed_form", (Normal, Normal))
def _kl_normal(mu: Normal, nu: Normal, _: None) -> Array:
    # KL(N(m1, s1² I) || N(m2, s2² I)) = d/2 (r − 1 − log r) + D²/(2 s2²), r = s1²/s2²
    dist, s1, s2, d = _normal_pair(mu, nu)
    t = (s1 - s2) * (s1 + s2) / s2**2  # r − 1, without cancellation
    return np.array([0.5 * d * (t - math.log1p(t)) + dist**2 / (2.0 * s2**2)])


def gauss_renyi(dist: float, s1: float, s2: float, d: int, alpha: Array) -> Array:
    """STD-GaussRenyi: R_alpha(N(m1, s1² I) || N(m2, s2² I)), D = ||m1 − m2||, alpha in (1, inf].

    Equal sigmas: alpha D²/(2 s²) (alpha = inf: 0 if D = 0 else inf). Otherwise, summed over the d
    coordinates: ``d [log(s2/s1) + log(s2²/s_a²)/(2(alpha−1))] + alpha D²/(2 s_a²)`` with
    ``s_a² = alpha s2² + (1−alpha) s1²`` (+inf when s_a² <= 0). alpha = inf (derived: the sup over x of
    the log ratio, a concave quadratic iff s1 < s2): ``d log(s2/s1) + D²/(2 (s2² − s1²))`` if s1 < s2,
    inf if s1 > s2 — the alpha → inf limit of the finite-alpha formula.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    out = np.empty(alpha.shape)
    inf = np.isinf(alpha)
    a = alpha[~inf]
    if s1 == s2:
        out[~inf] = a * dist**2 / (2.0 * s1**2)  # STD-GaussRenyi, equal variances
        out[inf] = 0.0 if dist == 0.0 else math.inf
        return out
    u = (s2 - s1) * (s2 + s1) / s2**2  # (s2² − s1²)/s2²
    sa2_rel = 1.0 + (a - 1.0) * u  # s_a²/s2² = (alpha s2² + (1 − alpha) s1²)/s2²
    with np.errstate(divide="ignore", invalid="ignore"):
        # d [log(s2/s1) + log(s2²/s_a²)/(2(alpha−1))] = d/2 [−log1p(−u) − log1p((alpha−1) u)/(alpha−1)]
        finite = (0.5 * d * (-math.log1p(-u) - np.log1p((a - 1.0) * u) / (a - 1.0))
                  + a * dist**2 / (2.0 * s2**2 * sa2_rel))
    out[~inf] = np.where(sa2_rel > 0, finite, math.inf)
    if s1 < s2:
        out[inf] = d * math.log(s2 / s1) + dist**2 / (2.0 * (s2 - s1) * (s2 + s1))
    else:
        out[inf] = math.inf
    return out


@register("renyi", "closed_form", (Normal, Normal))
def _renyi_normal(mu: Normal, nu: Normal, alpha: Array) -> Array:
    dist, s1, s2, d = _normal_pair(mu, nu)
    return gauss_renyi(dist, s1, s2, d, alpha)


# ---------------------------------------------------------------------------------------------------
# Laplace
# ---------------------------------------------------------------------------------------------------

def laplace_hockey_stick(z: float, eps: Array) -> Array:
    """STD-LapHS: E_{e^eps}(Lap(0, b) || Lap(D, b)) with z = D/b: ``1 − e^((eps − z)/2)`` for eps < z, else 0.

    The privacy loss is bounded by z, so the value is exactly 0 for eps >= z (eps = inf included).
    """
    eps = np.asarray(eps, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(eps < z, -np.expm1(np.minimum(eps - z, 0.0) / 2.0), 0.0)


def laplace_log_g(alpha: float, z: float) -> float:
    """BBGG-E2: log g_alpha(z), with g_alpha(z) = w1 e^(z(alpha−1)) + w2 e^(−z alpha).

    Weights w1 = alpha/(2alpha−1), w2 = (alpha−1)/(2alpha−1). By `logaddexp` (alpha = 1e3 is finite);
    for small exponents by ``log1p(w1 expm1(x1) + w2 expm1(x2))`` (the weights sum to 1), which keeps
    full relative accuracy as z → 0.
    """
    w1, w2 = alpha / (2.0 * alpha - 1.0), (alpha - 1.0) / (2.0 * alpha - 1.0)
    x1, x2 = z * (alpha - 1.0), -z * alpha
    if max(abs(x1), abs(x2)) < 0.5:
        return math.log1p(w1 * math.expm1(x1) + w2 * math.expm1(x2))
    return float(np.logaddexp(math.log(w1) + x1, math.log(w2) + x2))


def laplace_renyi(z: float, alpha: Array) -> Array:
    """STD-LapRenyi: R_alpha(Lap(0, b) || Lap(D, b)) = log g_alpha(z)/(alpha − 1), z = D/b; alpha = inf: z."""
    alpha = np.asarray(alpha, dtype=np.float64)
    return np.array([z if math.isinf(a) else laplace_log_g(float(a), z) / (a - 1.0) for a in alpha])


@register("hockey_stick", "closed_form", (Laplace, Laplace))
def _hs_laplace(mu: Laplace, nu: Laplace, eps: Array) -> Array:
    if mu.scale != nu.scale:
        if np.all(np.isinf(eps)):
            return np.zeros(eps.shape)
        raise _NoRule(f"STD-LapHS needs equal scales (got {mu.scale!r} and {nu.scale!r})")
    return laplace_hockey_stick(abs(mu.loc - nu.loc) / mu.scale, eps)


@register("kl", "closed_form", (Laplace, Laplace))
def _kl_laplace(mu: Laplace, nu: Laplace, _: None) -> Array:
    # KL(Lap(m1, b1) || Lap(m2, b2)) = log(b2/b1) + D/b2 + (b1/b2) e^(−D/b1) − 1
    #   (derived: E|X − m1| = b1 and E|X − m2| = D + b1 e^(−D/b1) for X ~ Lap(m1, b1))
    #   = (u − log1p(u)) + (b1/b2)(z1 + expm1(−z1)), u = b1/b2 − 1, z1 = D/b1:
    #   two terms >= 0, so no cancellation.
    # Equal scales: z + e^(−z) − 1.
    b1, b2 = mu.scale, nu.scale
    z1 = abs(mu.loc - nu.loc) / b1
    u = (b1 - b2) / b2
    return np.array([(u - math.log1p(u)) + (b1 / b2) * (z1 + math.expm1(-z1))])


@register("renyi", "closed_form", (Laplace, Laplace))
def _renyi_laplace(mu: Laplace, nu: Laplace, alpha: Array) -> Array:
    b1, b2 = mu.scale, nu.scale
    dist = abs(mu.loc - nu.loc)
    if b1 == b2:
        return laplace_renyi(dist / b1, alpha)
    # Different scales: only alpha = inf has a closed form here. log p/q = log(b2/b1) − |x−m1|/b1 + |x−m2|/b2
    # grows without bound if b1 > b2; if b1 < b2 it peaks at x = m1: R_inf = log(b2/b1) + D/b2.
    inf_value = math.log(b2 / b1) + dist / b2 if b1 < b2 else math.inf
    return np.where(np.isinf(alpha), inf_value, np.nan)


# ---------------------------------------------------------------------------------------------------
# Quadrature fallback (laws on R^1)
# ---------------------------------------------------------------------------------------------------

#: Location and scale hints per law type: where the mass is and how wide it is (breakpoints for quad).
QUADRATURE_HINTS: dict[type, Callable[[Any], tuple[list[float], list[float]]]] = {
    Normal: lambda law: ([float(np.asarray(law.mean).reshape(-1)[0])], [float(law.sigma)]),
    Laplace: lambda law: ([float(law.loc)], [float(law.scale)]),
}
_EPSREL = 1e-11
_RTOL = 4 * np.finfo(float).eps
_TAIL = 100.0  # the integrand is negligible (< e^-100 of its peak) outside the window
_FAR = 1e100  # no window extends beyond ±_FAR
_GRID_T = np.sinh(np.linspace(-math.asinh(1e5), math.asinh(1e5), 2001))  # in scale units, dense near 0


def _hints(law: Distribution) -> tuple[list[float], list[float]] | None:
    for t in type(law).__mro__:
        if t in QUADRATURE_HINTS:
            return QUADRATURE_HINTS[t](law)
    return None


def _quadrature_ready(mu: Distribution, nu: Distribution) -> bool:
    return (mu.space == RealSpace(1) and _hints(mu) is not None and _hints(nu) is not None)


def _log_density_1d(law: Distribution) -> Callable[[Any], Array]:
    def f(x: Any) -> Array:
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        out = np.asarray(law.log_density(x), dtype=np.float64)
        if out.shape != x.shape:  # laws whose points are rows of length 1 (e.g. Normal with mean [m])
            out = np.asarray(law.log_density(x[:, None]), dtype=np.float64)
        return out

    return f


class _Problem:
    """Shared quadrature setup for a pair of laws on R^1: densities, hints and a scan grid."""

    def __init__(self, mu: Distribution, nu: Distribution) -> None:
        (lm, sm), (ln, sn) = _hints(mu), _hints(nu)  # type: ignore[misc]
        self.locs = sorted(set(lm + ln))
        self.scales = sorted(set(sm + sn))
        self.log_p, self.log_q = _log_density_1d(mu), _log_density_1d(nu)
        grid = np.concatenate([loc + s * _GRID_T for loc in self.locs for s in self.scales])
        self.grid = np.unique(grid[np.isfinite(grid)])
        with np.errstate(invalid="ignore"):
            self.grid_lp, self.grid_lq = self.log_p(self.grid), self.log_q(self.grid)
            self.grid_loss = self.grid_lp - self.grid_lq

    def loss(self, x: float) -> float:
        with np.errstate(invalid="ignore"):
            return float(self.log_p(x)[0] - self.log_q(x)[0])

    def peak(self, h: Callable[[Array], Array], values: Array) -> tuple[float, float]:
        """(argmax, max) of the log-integrand h: grid argmax refined by bounded Brent between neighbours."""
        i = int(np.argmax(values))
        x_best, c = float(self.grid[i]), float(values[i])
        lo, hi = self.grid[max(i - 1, 0)], self.grid[min(i + 1, self.grid.size - 1)]
        if hi > lo and np.isfinite(h(np.array([lo]))[0]) and np.isfinite(h(np.array([hi]))[0]):
            xatol = 1e-14 * max(abs(lo), abs(hi), 1e-300)
            res = optimize.minimize_scalar(lambda x: -float(h(np.array([x]))[0]), bounds=(lo, hi),
                                           method="bounded", options={"xatol": xatol})
            if np.isfinite(res.fun) and -res.fun > c:
                x_best, c = float(res.x), float(-res.fun)
        return x_best, c

    def window(self, h: Callable[[Array], Array], values: Array, x_peak: float,
               c: float) -> tuple[float, float]:
        """An interval outside which h < c − _TAIL."""
        big = np.flatnonzero(values >= c - _TAIL)
        lo = self.grid[max(big[0] - 1, 0)] if big.size else x_peak
        hi = self.grid[min(big[-1] + 1, self.grid.size - 1)] if big.size else x_peak
        lo, hi = min(lo, x_peak), max(hi, x_peak)
        with np.errstate(over="ignore", invalid="ignore"):
            step = self.scales[0]
            while h(np.array([lo]))[0] >= c - _TAIL and lo > -_FAR:  # heavy tails beyond the grid
                lo, step = lo - step, step * 2
            step = self.scales[0]
            while h(np.array([hi]))[0] >= c - _TAIL and hi < _FAR:
                hi, step = hi + step, step * 2
        return float(lo), float(hi)

    def breakpoints(self, lo: float, hi: float, centres: list[float], extra: list[float]) -> Array:
        """Pieces for quad: the window ends, `extra` (kinks) and centre ± scale·2^k for each centre."""
        centres = [*self.locs, *centres]
        powers = self.scales[0] * 2.0 ** np.arange(0, 64)
        pts = [lo, hi, *centres, *extra]
        for centre in centres:
            pts.extend(centre + powers)
            pts.extend(centre - powers)
        pts_arr = np.unique(np.asarray(pts, dtype=np.float64))
        return pts_arr[(pts_arr >= lo) & (pts_arr <= hi)]

    def integrate(self, f: Callable[[float], float], pts: Array) -> tuple[float, float]:
        """Σ over consecutive pieces of quad(f); returns (value, error estimate)."""
        total, error = 0.0, 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                value, err = integrate.quad(f, a, b, epsabs=0.0, epsrel=_EPSREL, limit=200)
                total += value
                error += err
        return total, error


def _warn_inaccurate(value: float, error: float, what: str, *, slack: float = 0.0) -> None:
    """Warn when quad's error estimate exceeds 1e-6 of the value (+ `slack`, relative)."""
    if error > (1e-6 + slack) * abs(value) and error > 1e-300:
        warnings.warn(f"quadrature for {what} may be inaccurate: estimate {value!r}, "
                      f"error estimate {error!r}", RuntimeWarning, stacklevel=4)


def _rescaled(h: Callable[[Array], Array], c: float) -> Callable[[float], float]:
    """x ↦ exp(h(x) − c): the integrand divided by its peak e^c, so quad sees values of order 1."""
    return lambda x: math.exp(h(np.array([x]))[0] - c)


def _crossings(prob: _Problem, eps: float) -> list[float]:
    """Points where log p − log q = eps: sign changes on the scan grid, polished by brentq."""
    s = prob.grid_loss - eps
    ok = np.isfinite(s)
    idx = np.flatnonzero(ok[:-1] & ok[1:] & (np.sign(s[:-1]) * np.sign(s[1:]) < 0))
    roots = []
    for i in idx:
        a, b = prob.grid[i], prob.grid[i + 1]
        roots.append(optimize.brentq(lambda x: prob.loss(x) - eps, a, b, xtol=1e-300, rtol=_RTOL))
    return roots


def _hs_log_integrand(prob: _Problem, eps: float) -> Callable[[Array], Array]:
    """log [p − e^eps q]_+ = log p + log(−expm1(eps − L)) where L = log p − log q > eps.

    L within rounding of eps counts as L = eps (integrand 0): a plateau L = eps (Laplace pairs at
    eps = D/b) would otherwise integrate pure rounding noise.
    """
    def h(x: Array) -> Array:
        lp, lq = prob.log_p(x), prob.log_q(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = lp - lq
            noise = _RTOL * (np.abs(lp) + np.abs(lq) + abs(eps))
            inside = (loss > eps + noise) | (np.isposinf(loss) & np.isfinite(lp))
            factor = np.where(np.isposinf(loss), 0.0, np.log(-np.expm1(np.minimum(eps - loss, 0.0))))
            return np.where(inside, lp + factor, -np.inf)

    return h


def _quadrature_hockey_stick(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    prob = _Problem(mu, nu)
    out = np.empty(eps.shape)
    for i, e in enumerate(eps):
        h = _hs_log_integrand(prob, float(e))
        values = h(prob.grid)
        if not np.isfinite(values).any():
            out[i] = 0.0
            continue
        x_peak, c = prob.peak(h, values)
        lo, hi = prob.window(h, values, x_peak, c)
        cross = [x for x in _crossings(prob, float(e)) if lo <= x <= hi] if math.isfinite(e) else []
        pts = prob.breakpoints(lo, hi, [x_peak], cross)
        value, err = prob.integrate(_rescaled(h, c), pts)
        _warn_inaccurate(value, err, f"the hockey-stick divergence at eps={float(e)!r}")
        out[i] = math.exp(c) * value if value > 0 else 0.0
    return out


def _quadrature_kl(mu: Distribution, nu: Distribution, _: None) -> Array:
    prob = _Problem(mu, nu)
    values = prob.grid_lp
    x_peak, c = prob.peak(prob.log_p, values)
    lo, hi = prob.window(prob.log_p, values, x_peak, c)
    pts = prob.breakpoints(lo, hi, [x_peak], [])

    def f(x: float) -> float:
        lp, lq = prob.log_p(x)[0], prob.log_q(x)[0]
        if lp == -math.inf:
            return 0.0
        return math.exp(lp - c) * (lp - lq)

    value, err = prob.integrate(f, pts)
    _warn_inaccurate(value, err, "the KL divergence")
    return np.array([math.exp(c) * value])


def _quadrature_renyi(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    prob = _Problem(mu, nu)
    out = np.empty(alpha.shape)
    for i, a in enumerate(alpha):
        if math.isinf(a):
            out[i] = _numerical_ess_sup(prob)
            continue

        def h(x: Array, a: float = float(a)) -> Array:
            # log of p^alpha q^(1−alpha), rescaled below by its maximum c
            lp, lq = prob.log_p(x), prob.log_q(x)
            with np.errstate(invalid="ignore"):
                return np.where(np.isneginf(lp), -np.inf, a * lp + (1.0 - a) * lq)

        values = h(prob.grid)
        top = int(np.argmax(values))
        if np.isposinf(values[top]) or top in (0, values.size - 1):
            # p^alpha q^(1−alpha) largest 1e5 scales away from every law: it grows in the tails and the
            # integral diverges (e.g. Gaussians with s_a² = alpha s2² + (1 − alpha) s1² <= 0)
            out[i] = math.inf
            continue
        x_peak, c = prob.peak(h, values)
        lo, hi = prob.window(h, values, x_peak, c)
        pts = prob.breakpoints(lo, hi, [x_peak], [])
        value, err = prob.integrate(_rescaled(h, c), pts)
        out[i] = (c + math.log(value)) / (a - 1.0) if value > 0 else math.inf
        # a relative error r of the integral moves R_alpha by r/(alpha − 1): judge that against R_alpha.
        # (At large alpha, alpha log p + (1 − alpha) log q carries rounding noise ~ alpha·ulp(log p).)
        _warn_inaccurate(value, err, f"the Rényi divergence at alpha={float(a)!r}",
                         slack=1e-6 * (a - 1.0) * abs(out[i]) + 1e-12 * (a - 1.0))
    return out


def _numerical_ess_sup(prob: _Problem) -> float:
    """R_inf = sup_x log p/q on the scan grid, refined by bounded Brent; inf if it grows at the grid ends."""
    loss = np.where(np.isnan(prob.grid_loss), -np.inf, prob.grid_loss)
    i = int(np.argmax(loss))
    if i in (0, loss.size - 1) or np.isposinf(loss[i]):
        return math.inf
    res = optimize.minimize_scalar(lambda x: -prob.loss(x), bounds=(prob.grid[i - 1], prob.grid[i + 1]),
                                   method="bounded", options={"xatol": 1e-13})
    return max(float(loss[i]), float(-res.fun))


_QUADRATURE: dict[str, Callable[[Distribution, Distribution, Any], Array]] = {
    "hockey_stick": _quadrature_hockey_stick,
    "kl": _quadrature_kl,
    "renyi": _quadrature_renyi,
}
