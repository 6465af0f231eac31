"""Independent computations that formulas are checked against — never the code under test.

Finite cases: brute force over every event (subset of outcomes), straight from the definitions in
THEORY.md (Notation). Continuous cases: mpmath quadrature at >= 30 digits (section below).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from mpmath import mp


def events(m: int):
    """Every subset of {0..m-1} as a boolean mask (2^m of them)."""
    for bits in itertools.product((False, True), repeat=m):
        yield np.array(bits, dtype=bool)


def hockey_stick_bruteforce(p, q, eps: float) -> float:
    """E_{e^eps}(p||q) = sup over events E of p(E) - e^eps q(E) (THEORY: Notation), by enumeration."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    # e^eps overflows past 709.78; there e^eps q(E) > 1 >= p(E) for any q(E) > 1e-300, as for gamma = inf.
    gamma = math.exp(eps) if eps < 709.0 else math.inf
    best = 0.0
    for mask in events(p.size):
        if gamma == math.inf:
            value = p[mask].sum() if q[mask].sum() == 0 else -math.inf
        else:
            value = p[mask].sum() - gamma * q[mask].sum()
        best = max(best, value)
    return best


def coefficient_bruteforce(matrix, eps: float) -> float:
    """sup over row pairs (x, x') of E_{e^eps}(K[x] || K[x']) by event enumeration (BBGG-D1, AAC-eta)."""
    k = np.asarray(matrix).shape[0]
    return max(hockey_stick_bruteforce(matrix[i], matrix[j], eps)
               for i in range(k) for j in range(k) if i != j) if k > 1 else 0.0


def doeblin_bruteforce(matrix) -> float:
    """Smallest gamma with K(x) >= (1 - gamma) omega for a law omega (BBGG-D1.3), from the definition:
    the best omega is min_x K[x, .] normalised, so 1 - gamma = total mass of the column minima."""
    matrix = np.asarray(matrix, float)
    return 1.0 - sum(min(matrix[x, y] for x in range(matrix.shape[0])) for y in range(matrix.shape[1]))


def ultra_mixing_bruteforce(matrix) -> float:
    """Smallest gamma with dK(x)/dK(x') >= 1 - gamma for all x, x' (BBGG-D1.4); inf if supports differ."""
    matrix = np.asarray(matrix, float)
    k, m = matrix.shape
    worst = 1.0
    for x in range(k):
        for xp in range(k):
            for y in range(m):
                if (matrix[x, y] > 0) != (matrix[xp, y] > 0):
                    return math.inf
                if matrix[xp, y] > 0:
                    worst = min(worst, matrix[x, y] / matrix[xp, y])
    return 1.0 - worst


# ---------------------------------------------------------------------------------------------------
# mpmath section: quadrature at 40 digits on the DEFINITIONS (integrals of densities), never the
# closed forms under test. mpmath's quadrature tolerances are absolute, so every integrand is rescaled by
# its maximum c over a scan (integrate exp(log f − c), multiply back by e^c) and the domain is split at
# the caller's points and at the crossings log p − log q = eps, so the quadrature sees the mass.
# ---------------------------------------------------------------------------------------------------

MP_DPS = 40
_MP_NOISE = mp.mpf(10) ** (8 - MP_DPS)  # differences below this (relative) are rounding at MP_DPS digits


def mp_normal_logpdf(mean, sigma):
    """x ↦ log N(x; mean, sigma²) in mpmath arithmetic."""
    with mp.workdps(MP_DPS + 10):
        m, two_var = mp.mpf(mean), 2 * mp.mpf(sigma) ** 2
        const = -mp.log(mp.mpf(sigma)) - mp.log(2 * mp.pi) / 2
    return lambda x: -((x - m) ** 2) / two_var + const


def mp_laplace_logpdf(loc, scale):
    """x ↦ log Lap(x; loc, scale) = −|x − loc|/scale − log(2 scale) in mpmath arithmetic."""
    with mp.workdps(MP_DPS + 10):
        m, b = mp.mpf(loc), mp.mpf(scale)
        const = -mp.log(2 * b)
    return lambda x: -abs(x - m) / b + const


def _mp_scan(points, per: int = 16):
    """The sorted points, each gap subdivided `per` times (a scan grid for maxima and sign changes)."""
    pts = sorted({mp.mpf(x) for x in points})
    grid = []
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        grid.extend(a + (b - a) * k / per for k in range(per))
    grid.append(pts[-1])
    return pts, grid


def _mp_roots(f, grid):
    """Every sign change of f on the grid, bisected to full working precision."""
    roots = []
    values = [f(x) for x in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], values[:-1], values[1:], strict=True):
        if fa == 0 and (not roots or roots[-1] != a):
            roots.append(a)
        elif fa * fb < 0:
            for _ in range(4 * MP_DPS):
                m = (a + b) / 2
                fm = f(m)
                if fa * fm <= 0:
                    b = m
                else:
                    a, fa = m, fm
            roots.append((a + b) / 2)
    return roots


def _mp_log_integral(log_f, points, grid):
    """log ∫_R exp(log_f): quad on [−inf, points..., inf] of exp(log_f − c), c = max over the grid."""
    finite = [v for v in (log_f(x) for x in grid) if mp.isfinite(v)]
    if not finite:
        return mp.ninf
    c = max(finite)

    def f(x):
        v = log_f(x)
        return mp.exp(v - c) if mp.isfinite(v) else mp.mpf(0)

    total = mp.quad(f, [mp.ninf, *points, mp.inf])
    return c + mp.log(total) if total > 0 else mp.ninf


def mp_hockey_stick_1d(logpdf_p, logpdf_q, eps, points) -> float:
    """E_{e^eps}(p||q) = ∫ [p − e^eps q]_+ by mpmath quadrature (THEORY: Notation).

    `points` must bracket where the mass is (locations ± several scales); the crossings of
    log p − log q = eps between them are found by a scan and bisection and added as breakpoints.
    """
    with mp.workdps(MP_DPS):
        eps = mp.mpf(eps)
        pts, grid = _mp_scan(points)

        def excess(x):  # L − eps, with |L − eps| within rounding of the 40-digit arithmetic set to 0
            lp, lq = logpdf_p(x), logpdf_q(x)
            value = lp - lq - eps
            return mp.mpf(0) if abs(value) <= _MP_NOISE * (1 + abs(lp) + abs(lq)) else value

        crossings = _mp_roots(excess, grid)
        pts = sorted(set(pts) | set(crossings))

        def log_f(x):  # log [p − e^eps q]_+ = log p + log(1 − e^(eps − L)), L = log p − log q
            if excess(x) <= 0:  # (a plateau L = eps, e.g. Laplace at eps = D/b, integrates to 0)
                return mp.ninf
            lp, lq = logpdf_p(x), logpdf_q(x)
            return lp + mp.log(-mp.expm1(eps + lq - lp))

        _, grid = _mp_scan(pts)
        return float(mp.exp(_mp_log_integral(log_f, pts, grid)))


def mp_renyi_1d(logpdf_p, logpdf_q, alpha, points) -> float:
    """R_alpha(p||q) = 1/(alpha − 1) log ∫ p^alpha q^(1−alpha) by mpmath quadrature; alpha = inf gives
    sup_x log p/q on a scan of `points`, refined by golden-section search (THEORY: Notation).

    `points` must include the peak of p^alpha q^(1−alpha) (at large alpha it is far from both laws).
    """
    with mp.workdps(MP_DPS):
        pts, grid = _mp_scan(points)
        if alpha == math.inf:
            loss = [logpdf_p(x) - logpdf_q(x) for x in grid]
            i = max(range(len(grid)), key=lambda j: loss[j])
            a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
            invphi = (mp.sqrt(5) - 1) / 2
            for _ in range(6 * MP_DPS):  # golden section on a unimodal bracket
                x1, x2 = b - invphi * (b - a), a + invphi * (b - a)
                if logpdf_p(x1) - logpdf_q(x1) >= logpdf_p(x2) - logpdf_q(x2):
                    b = x2
                else:
                    a = x1
            x = (a + b) / 2
            return float(max(loss[i], logpdf_p(x) - logpdf_q(x)))
        al = mp.mpf(alpha)
        log_int = _mp_log_integral(lambda x: al * logpdf_p(x) + (1 - al) * logpdf_q(x), pts, grid)
        return float(log_int / (al - 1))


def mp_kl_1d(logpdf_p, logpdf_q, points) -> float:
    """KL(p||q) = ∫ p (log p − log q) by mpmath quadrature (THEORY: Notation)."""
    with mp.workdps(MP_DPS):
        pts, grid = _mp_scan(points)
        c = max(logpdf_p(x) for x in grid)

        def f(x):
            lp, lq = logpdf_p(x), logpdf_q(x)
            return mp.exp(lp - c) * (lp - lq)

        return float(mp.exp(c) * mp.quad(f, [mp.ninf, *pts, mp.inf]))


def scale_points(centres, scale, k_max: int = 5):
    """centre ± scale·4^k, k = −1..k_max, for each centre: breakpoints where the mass is (4^5 = 1024)."""
    pts = set()
    for centre in centres:
        pts.add(float(centre))
        for k in range(-1, k_max + 1):
            pts.update((centre - scale * 4.0**k, centre + scale * 4.0**k))
    return sorted(pts)


def mp_hockey_stick_normal(D, s, eps) -> float:
    """E_{e^eps}(N(0, s²) || N(D, s²)) by mpmath quadrature of the definition (oracle for STD-GaussHS)."""
    return mp_hockey_stick_1d(mp_normal_logpdf(0, s), mp_normal_logpdf(D, s), eps,
                              scale_points([0.0, D], s))


def mp_hockey_stick_laplace(D, b, eps) -> float:
    """E_{e^eps}(Lap(0, b) || Lap(D, b)) by mpmath quadrature of the definition (oracle for STD-LapHS)."""
    return mp_hockey_stick_1d(mp_laplace_logpdf(0, b), mp_laplace_logpdf(D, b), eps,
                              scale_points([0.0, D], b))


def renyi_categorical_mp(p, q, alpha) -> float:
    """R_alpha(p||q) = 1/(alpha−1) log Σ_{p>0} p^alpha q^(1−alpha) in mpmath arithmetic; alpha = inf gives
    log max_{p>0} p/q; +inf where some p > 0 = q (THEORY: Notation)."""
    with mp.workdps(MP_DPS):
        pairs = [(mp.mpf(float(a)), mp.mpf(float(b))) for a, b in zip(p, q, strict=True) if a > 0]
        if any(b == 0 for _, b in pairs):
            return math.inf
        if alpha == math.inf:
            return float(max(mp.log(a / b) for a, b in pairs))
        al = mp.mpf(alpha)
        return float(mp.log(mp.fsum(a**al * b ** (1 - al) for a, b in pairs)) / (al - 1))


def kl_categorical_mp(p, q) -> float:
    """KL(p||q) = Σ_{p>0} p log(p/q) in mpmath arithmetic; +inf where some p > 0 = q."""
    with mp.workdps(MP_DPS):
        pairs = [(mp.mpf(float(a)), mp.mpf(float(b))) for a, b in zip(p, q, strict=True) if a > 0]
        if any(b == 0 for _, b in pairs):
            return math.inf
        return float(mp.fsum(a * mp.log(a / b) for a, b in pairs))
