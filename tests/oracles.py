"""Independent computations that formulas are checked against — never the code under test.

Finite cases: brute force over every event (subset of outcomes), straight from the definitions in
docs/theory.md (Notation). Continuous cases: mpmath quadrature at >= 30 digits (section below).
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


def black_box_worst_case_lp(matrix, eps0: float, delta0: float, eps: float) -> float:
    """sup of E_{e^eps}(mu K || nu K) over every pair (mu, nu) of laws on K's inputs that is
    (eps0, delta0)-indistinguishable both ways — the worst (eps0, delta0)-DP mechanism followed by K — from
    the definitions alone (THEORY: Notation), without the canonical pair of STD-BlackBoxExact.

    E_gamma(muK||nuK) = max over output events S of (muK)(S) − e^eps (nuK)(S), linear in (mu, nu); so for
    each S a linear programme (scipy HiGHS, feasibility tolerances 1e-10) over mu, nu >= 0 of mass 1 with,
    for every event E of the inputs, mu(E) <= e^eps0 nu(E) + delta0 and nu(E) <= e^eps0 mu(E) + delta0.
    """
    from scipy.optimize import linprog

    K = np.asarray(matrix, float)
    k, m = K.shape
    g0, g = math.exp(eps0), math.exp(eps)
    rows = []
    for mask in events(k):
        e = mask.astype(float)
        rows += [np.concatenate([e, -g0 * e]), np.concatenate([-g0 * e, e])]
    a_eq = np.array([[1.0] * k + [0.0] * k, [0.0] * k + [1.0] * k])
    options = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    best = 0.0
    for mask in events(m):
        w = K[:, mask].sum(axis=1)  # K[x](S) for every input x
        res = linprog(-np.concatenate([w, -g * w]), A_ub=np.array(rows), b_ub=np.full(len(rows), delta0),
                      A_eq=a_eq, b_eq=[1.0, 1.0], bounds=(0, None), method="highs", options=options)
        assert res.status == 0, res.message
        best = max(best, -res.fun)
    return best


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


# ---------------------------------------------------------------------------------------------------
# Robustness oracles (tests/test_robustness.py): exact derivations evaluated in mpmath at >= 50 digits,
# with the working precision raised by the number of digits that the textbook forms cancel.
# ---------------------------------------------------------------------------------------------------

def mp_gauss_hockey_stick_textbook(ratio, eps, digits: int = 50):
    """STD-GaussHS in its textbook form Phi(a) − e^eps Phi(b), a, b = ±ratio/2 − eps/ratio, as mpmath
    numbers at ``digits`` + log10(1 + eps + ratio²) + 10 digits (the form cancels about that many), written
    Phi(a) (−expm1(eps + log Phi(b) − log Phi(a))). Returns (value, Phi(a), e^eps Phi(b), phi(a)) as floats
    of the value and mpmath numbers of the rest (for the caller's error model)."""
    extra = int(mp.log10(1 + mp.mpf(eps) + mp.mpf(ratio) ** 2)) + 10
    with mp.workdps(digits + extra):
        r, e = mp.mpf(ratio), mp.mpf(eps)
        a, b = r / 2 - e / r, -r / 2 - e / r
        phi_a, log_b = mp.ncdf(a), mp.log(mp.ncdf(b))
        value = phi_a * -mp.expm1(e + log_b - mp.log(phi_a))
        return float(value), phi_a, mp.exp(e + log_b), mp.npdf(a)


def mp_randomized_response_rows(k: int, eps0, digits: int = 60):
    """Rows 0 and 1 of k-ary randomized response as mpmath numbers: e^eps0/(e^eps0 + k − 1) on the
    diagonal, 1/(e^eps0 + k − 1) elsewhere (THEORY: SRP-D), at ``digits`` digits (no underflow)."""
    with mp.workdps(digits):
        g = mp.exp(mp.mpf(eps0))
        diag, off = g / (g + k - 1), 1 / (g + k - 1)
        row0 = [diag] + [off] * (k - 1)
        row1 = [off, diag] + [off] * (k - 2)
        return row0, row1


def mp_hockey_stick_atoms(p, q, eps, digits: int = 60) -> float:
    """E_{e^eps}(p||q) = Σ_i [p_i − e^eps q_i]_+ over mpmath atoms (THEORY: Notation); a term within
    rounding of the working precision (relative 10^(10 − digits)) counts as 0 (p_i = e^eps q_i exactly)."""
    with mp.workdps(digits):
        g, noise = mp.exp(mp.mpf(eps)), mp.mpf(10) ** (10 - digits)
        return float(mp.fsum(max(a - g * b, 0) for a, b in zip(p, q, strict=True)
                             if abs(a - g * b) > noise * (a + g * b)))


def mp_renyi_atoms(p, q, alpha, digits: int = 60) -> float:
    """R_alpha(p||q) = log Σ p^alpha q^(1−alpha)/(alpha − 1) over mpmath atoms; alpha = inf: log max p/q."""
    with mp.workdps(digits):
        if alpha == math.inf:
            return float(max(mp.log(a / b) for a, b in zip(p, q, strict=True)))
        al = mp.mpf(alpha)
        return float(mp.log(mp.fsum(a**al * b ** (1 - al) for a, b in zip(p, q, strict=True))) / (al - 1))


def mp_hockey_stick_normals(m1, s1, m2, s2, eps, digits: int = 50) -> float:
    """E_{e^eps}(N(m1, s1²) || N(m2, s2²)) on R, s1 != s2: the privacy loss L(x) is the quadratic
    A x² + B x + C' in x (THEORY: Notation), so {L > eps} has its ends at the real roots of A x² + B x + C,
    found in mpmath (the quadratic formula, cancellation-free); then mpmath quadrature of p − e^eps q over that set."""
    with mp.workdps(digits):
        m1, s1, m2, s2, eps = (mp.mpf(v) for v in (m1, s1, m2, s2, eps))
        A = 1 / (2 * s2**2) - 1 / (2 * s1**2)
        B = m1 / s1**2 - m2 / s2**2
        C = m2**2 / (2 * s2**2) - m1**2 / (2 * s1**2) + mp.log(s2 / s1) - eps
        g = mp.exp(eps)

        def f(x):
            return mp.npdf(x, m1, s1) - g * mp.npdf(x, m2, s2)

        disc = B**2 - 4 * A * C
        if disc <= 0:
            return 0.0
        root = mp.sqrt(disc)  # the two real roots, the larger-magnitude one first (no cancellation)
        far = (-B - mp.sign(B) * root) / (2 * A) if B != 0 else root / (2 * A)
        lo, hi = sorted((far, C / (A * far)))
        if A < 0:  # s1 < s2: the set is (lo, hi)
            return float(max(mp.quad(f, [lo, (lo + hi) / 2, hi]), 0))
        return float(max(mp.quad(f, [mp.ninf, lo]) + mp.quad(f, [hi, mp.inf]), 0))
