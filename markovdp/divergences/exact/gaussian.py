"""Exact divergences between isotropic Gaussians: STD-GaussHS, STD-GaussRenyi and the Gaussian KL."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...distributions import Normal
from .registry import Array, NoRule, register


def _normal_pair(mu: Normal, nu: Normal) -> tuple[float, float, float, int]:
    """(D = ||m1 − m2||, sigma1, sigma2, d)."""
    dist = math.hypot(*np.atleast_1d(mu.mean - nu.mean).tolist())  # scaled: no overflow of D² (D up to 1e308)
    return dist, float(mu.sigma), float(nu.sigma), mu.space.d


_SQRT_HALF = math.sqrt(0.5)
#: 8-point Gauss–Legendre nodes and weights on [−1, 1] (for `_erfcx_drop`).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
#: Below this D/s the two terms of STD-GaussHS agree to about D/s and `_erfcx_drop` takes over.
_SMALL_RATIO = 0.1


def _erfcx_drop(mid: Array, half: Array) -> Array:
    """erfcx(mid − half) − erfcx(mid + half) = ∫ (2/√π − 2t erfcx(t)) dt over [mid − half, mid + half] (t >= 0).

    erfcx' = 2t erfcx − 2/√π, and the integrand is > 0: a difference of two nearly equal erfcx values
    computed without cancellation, by 8-point Gauss–Legendre (for half <= 0.036, as at D/s < 0.1, the
    rule's error is below 1e-20 relative; the integrand itself loses at most 2t² ulps, 1.5e-13 at t = 27).
    """
    from scipy import special

    t = mid[:, None] + half[:, None] * _GL_NODES
    return half * ((2.0 / math.sqrt(math.pi) - 2.0 * t * special.erfcx(t)) @ _GL_WEIGHTS)


def gauss_hockey_stick(ratio: float, eps: Array) -> Array:
    """STD-GaussHS: E_{e^eps}(N(0, s² I) || N(v, s² I)) as a function of ratio = ||v||/s.

    ``Phi(a) − e^eps Phi(b)``, ``a = D/(2s) − eps s/D``, ``b = −D/(2s) − eps s/D`` (b < a, b < 0).
    Why not the textbook form: at D/s = 1e9, eps = 5e17 both terms need e^eps times e^(−b²/2), and any
    log-space version forms ``eps + log Phi(b)``, a difference of two numbers near 5e17 (it returned 0
    where the truth is 0.5). With ``Phi(t) = ½ erfcx(−t/√2) e^(−t²/2)`` for t <= 0 and the identity
    ``b² − a² = 2 eps``, ``e^eps Phi(b) = ½ erfcx(−b/√2) e^(−a²/2)``, so with ``w = ½ e^(−a²/2)``:
    ``w (erfcx(|a|/√2) − erfcx(−b/√2))`` if a < 0, ``(1 − w erfcx(a/√2)) − w erfcx(−b/√2)`` if a >= 0
    (the first term is Phi(a)). eps never meets a huge number, erfcx is taken at arguments >= 0 only (no
    overflow). For D/s >= 0.1 one numba pass (`_compiled`) with our inlined erfcx (the values of scipy's, see
    `_gaussian_kernels`) runs 1.2-1.7x faster than scipy's textbook form with ``ndtr``. Against mpmath: 1e-13
    relative for D/s in [0.1, 1e4]; beyond, the rounding of a (~1e-16 eps s/D) dominates (3e-12 at D/s = 1e6);
    below, the two terms agree to about D/s and `_small_ratio` takes their difference without cancellation.
    """
    eps = np.asarray(eps, dtype=np.float64)
    if ratio == 0.0:
        return np.zeros(eps.shape)  # identical laws
    if math.isinf(ratio):
        return np.where(np.isinf(eps), 0.0, 1.0)  # D/s overflowed: Phi(a) = 1, e^eps Phi(b) = 0 (eps < inf)
    if compiled_ratio(ratio):
        return _compiled(ratio, eps)
    from scipy import special  # here, not at import: scipy.special costs ~0.2 s to import

    out = np.zeros(eps.shape)
    finite = np.isfinite(eps)  # eps = inf: D_inf = 0 (mutually absolutely continuous)
    e = eps[finite]
    with np.errstate(over="ignore", invalid="ignore"):
        # eps s/D overflows for a tiny ratio: a = −inf, and the value there (below Phi(a) ~ e^(−1e308)) is 0
        shift = e / ratio
        a = ratio / 2.0 - shift
        erfcx_b = special.erfcx((ratio / 2.0 + shift) * _SQRT_HALF)  # erfcx(−b/√2)
        # |a| > 1e154 (a tiny ratio): a² = inf, w = 0 as it should be
        w = 0.5 * np.exp(-0.5 * np.square(a))  # the common factor cancels out of the difference's error
        values = _small_ratio(ratio, shift, a, w, erfcx_b)
    values = np.where(np.isinf(shift), 0.0, values)
    # eps = 0: TV = 2 Phi(D/(2s)) − 1 = erf(D/(2 sqrt(2) s)), exact for tiny D/s too
    values = np.where(e == 0.0, special.erf(ratio / (2.0 * math.sqrt(2.0))), values)
    out[finite] = np.clip(values, 0.0, 1.0)
    return out + 0.0  # never −0.0


def compiled_ratio(ratio: float) -> bool:
    """Whether `gauss_hockey_stick` at this finite D/s > 0 runs the numba pass, whose values are never NaN."""
    return ratio >= _SMALL_RATIO


def _compiled(ratio: float, eps: Array) -> Array:
    """`gauss_hockey_stick` for D/s >= 0.1 in the numba pass: the same arithmetic, our inlined erfcx, numpy's exp."""
    kernels = _kernels()
    flat = eps.reshape(-1)
    if not (flat.flags.c_contiguous and flat.flags.writeable):  # one array type: numba compiles one specialisation
        flat = flat.copy()
    shift, terms, out = np.empty(flat.size), np.empty(flat.size), np.empty(flat.size)
    tv = math.nan
    if kernels.gauss_exponents(ratio, flat, shift, terms):  # some eps = 0: the value there is the TV distance
        from scipy import special

        tv = float(special.erf(ratio / (2.0 * math.sqrt(2.0))))
    np.exp(terms, out=terms)
    kernels.gauss_hockey_stick_pass(ratio, tv, flat, shift, terms, out)
    return out.reshape(eps.shape)


def _kernels() -> Any:
    """The numba kernel module, imported on first use (numba costs ~0.3 s to import) and kept bound."""
    global _KERNELS
    if _KERNELS is None:
        from . import _gaussian_kernels

        _KERNELS = _gaussian_kernels
    return _KERNELS


_KERNELS: Any = None


def _small_ratio(ratio: float, shift: Array, a: Array, w: Array, erfcx_b: Array) -> Array:
    """STD-GaussHS for D/s < 0.1, where erfcx(|a|/√2) and erfcx(−b/√2) agree to about D/s (`_erfcx_drop`).

    a < 0: ``w (erfcx(|a|/√2) − erfcx(−b/√2))``, the two arguments (shift ∓ D/(2s))/√2.
    a >= 0: ``½ erf(a/√2) + ½ (1 − erfcx(−b/√2)) − ½ erfcx(−b/√2) expm1(−a²/2)``, three terms >= 0
    (Phi(a) = ½ + ½ erf(a/√2), and ``w erfcx(−b/√2) = e^eps Phi(b)``).
    """
    from scipy import special

    values = np.empty(a.shape)
    neg = a < 0.0
    half = np.full(int(neg.sum()), ratio / 2.0 * _SQRT_HALF)
    values[neg] = w[neg] * _erfcx_drop(shift[neg] * _SQRT_HALF, half)
    pos = ~neg
    u_b = (ratio / 2.0 + shift[pos]) * _SQRT_HALF
    values[pos] = (0.5 * special.erf(a[pos] * _SQRT_HALF) + 0.5 * _erfcx_drop(u_b / 2.0, u_b / 2.0)
                   - 0.5 * erfcx_b[pos] * np.expm1(-0.5 * np.square(a[pos])))
    return values


def _log_interval(lo: float, hi: float) -> float:
    """log(Phi(hi) − Phi(lo)) for lo <= hi, from the nearer tail (no 1 − 1e-17 cancellation)."""
    from scipy import special

    if lo > 0.0:
        lo, hi = -hi, -lo  # Phi(hi) − Phi(lo) = Phi(−lo) − Phi(−hi)
    top, bottom = float(special.log_ndtr(hi)), float(special.log_ndtr(lo))
    if bottom == -math.inf:
        return top
    return top + math.log(-math.expm1(bottom - top)) if bottom < top else -math.inf


def _log_outside(lo: float, hi: float) -> float:
    """log(Phi(lo) + 1 − Phi(hi)) for lo <= hi: the two tails."""
    from scipy import special

    return float(np.logaddexp(special.log_ndtr(lo), special.log_ndtr(-hi)))


def gauss_hockey_stick_scales(dist: float, s1: float, s2: float, eps: float) -> float:
    """E_{e^eps}(N(m1, s1²) || N(m2, s2²)) on R for s1 != s2, dist = m2 − m1: mu(S) − e^eps nu(S), S = {L > eps}.

    THEORY: Notation (the optimal event). In t = (x − m1)/s1, with rho = s1/s2 and d = dist/s2, the privacy
    loss is ``L = −log rho − t²/2 + (rho t − d)²/2``, so ``L − eps = c2 (t − t1)(t − t2)`` with
    ``c2 = (rho² − 1)/2`` and roots of discriminant ``d² + 2 (rho² − 1)(log rho + eps)``: S is the interval
    between the roots if s1 < s2 and its complement if s1 > s2. Under mu, t ~ N(0, 1); under nu,
    rho t − d ~ N(0, 1). The result is ``mu(S) (−expm1(eps + log nu(S) − log mu(S)))`` (`log_ndtr`); where
    that cancels (E < 1e-3 mu(S), e.g. a narrow S) it is the integral over S of the positive
    ``phi(t) (−expm1(−c2 (t − t1)(t − t2)))`` instead, which keeps full relative accuracy.
    """
    from scipy import integrate

    rho, d = s1 / s2, dist / s2
    rho2m1 = (s1 - s2) * (s1 + s2) / s2**2  # rho² − 1 without cancellation
    c2, c1, c0 = 0.5 * rho2m1, -rho * d, 0.5 * d * d - math.log(rho) - eps
    disc = d * d + 2.0 * rho2m1 * (math.log(rho) + eps)  # c1² − 4 c2 c0, simplified
    if disc <= 0.0:
        # no sign change: S is empty (s1 < s2) or R up to a point (s1 > s2, where 1 − e^eps <= 0)
        return 0.0
    q = -0.5 * (c1 + math.copysign(math.sqrt(disc), c1))
    lo, hi = sorted((q / c2, c0 / q)) if q != 0.0 else sorted((-math.sqrt(-c0 / c2), math.sqrt(-c0 / c2)))
    if c2 < 0.0:  # s1 < s2: S = (lo, hi)
        log_mu, log_nu = _log_interval(lo, hi), _log_interval(rho * lo - d, rho * hi - d)
        pieces = [(lo, hi)]
    else:  # s1 > s2: S = R minus [lo, hi]
        log_mu, log_nu = _log_outside(lo, hi), _log_outside(rho * lo - d, rho * hi - d)
        pieces = [(-math.inf, lo), (hi, math.inf)]
    if log_mu == -math.inf:
        return 0.0
    ratio = -math.expm1(min(eps + log_nu - log_mu, 0.0))  # E / mu(S)
    if ratio >= 1e-3:
        return math.exp(log_mu) * ratio + 0.0

    def density(t: float) -> float:  # [p − e^eps q]_+ in t units: phi(t)(1 − e^−(L − eps)) on S
        return math.exp(-0.5 * t * t) / math.sqrt(2.0 * math.pi) * -math.expm1(-c2 * (t - lo) * (t - hi))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return sum(integrate.quad(density, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0] for a, b in pieces) + 0.0


def normal_ratio(mu: Any, nu: Any) -> float | None:
    """D/s = ||m1 − m2|| / s for two isotropic Normals of one sigma s (STD-GaussHS and STD-GaussRenyi depend on
    the pair through it alone), else None."""
    if not (type(mu) is Normal and type(nu) is Normal and mu.mean.shape == nu.mean.shape):
        return None
    dist, s1, s2, _ = _normal_pair(mu, nu)
    return dist / s1 if s1 == s2 else None


@register("hockey_stick", "closed_form", (Normal, Normal))
def _hs_normal(mu: Normal, nu: Normal, eps: Array) -> Array:
    dist, s1, s2, d = _normal_pair(mu, nu)
    if s1 != s2:
        # eps = inf still has a value: both laws have everywhere-positive densities
        if np.all(np.isinf(eps)):
            return np.zeros(eps.shape)
        if d != 1:
            raise NoRule(f"STD-GaussHS needs equal sigmas on R^{d}, d > 1 (got {s1!r} and {s2!r})")
        shift = float(np.asarray(nu.mean).reshape(-1)[0] - np.asarray(mu.mean).reshape(-1)[0])
        return np.array([0.0 if math.isinf(e) else gauss_hockey_stick_scales(shift, s1, s2, float(e))
                         for e in eps])
    return gauss_hockey_stick(dist / s1, eps)


@register("kl", "closed_form", (Normal, Normal))
def _kl_normal(mu: Normal, nu: Normal, _: None) -> Array:
    # KL(N(m1, s1² I) || N(m2, s2² I)) = d/2 (r − 1 − log r) + D²/(2 s2²), r = s1²/s2²
    dist, s1, s2, d = _normal_pair(mu, nu)
    t = (s1 - s2) * (s1 + s2) / s2**2  # r − 1, without cancellation
    return np.array([0.5 * d * (t - math.log1p(t)) + dist**2 / (2.0 * s2**2)])


#: 1 + 2^-49: the factor that lifts the equal-variance Rényi closed form above its float rounding (< 5 ulps).
RENYI_ROUNDING = 1.0 + 2.0**-49


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
        # STD-GaussRenyi, equal variances: alpha (D/s)²/2, raised by a bound on its rounding (D from a scaled norm,
        # one division, a square, a product: < 5 ulps) so that it is never below the truth; inf once (D/s)² does
        ratio = np.float64(dist / s1)
        with np.errstate(over="ignore"):
            out[~inf] = a * (ratio * ratio) / 2.0 * RENYI_ROUNDING
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
