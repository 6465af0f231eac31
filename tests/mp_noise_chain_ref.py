"""mpmath reference for the noise law Z = N(0, s²) + Σ_i Lap(0, b_i) (s = 0: no Gaussian) and the hockey-stick of
the shift pair (Z, Z + Δ). Independent of the library: nothing here calls markovdp.

Laplace part, exactly (equal scales grouped, no perturbation): the moment generating function
Π_g (1 − b_g² t²)^(−m_g) has poles of order m_g at ±1/b_g; its partial fractions
Σ_g Σ_(k<=m_g) A_gk [(1 − b_g t)^(−k) + (1 + b_g t)^(−k)] make the density of L = Σ Lap(b_i) the mixture
f_L(y) = Σ A_gk γ_(k,b_g)(|y|) of Gamma(k, b_g) densities (signed weights; the mirrored terms give |y|).
With w = 1 − b_g t, A_gk is the coefficient of w^(m_g − k) in
(2 − w)^(−m_g) Π_(h≠g) (1 − (b_h/b_g)² (1 − w)²)^(−m_h), found by power-series arithmetic in mpmath.

s = 0: F(x) = Σ A_gk Q(k, |x|/b_g) for x <= 0 (regularised upper gamma), F(x) = 1 − F(−x) for x > 0.
s > 0: F(x) = E[Φ((x − L)/s)] by mpmath.quad over y with breakpoints at 0 (the kink of f_L), x ± s 2^j and b 2^j;
the density f(x) = E[φ_s(x − L)] in closed form term by term: ∫_0^∞ y^(k−1) e^(−y/b) φ_s(x − y) dy
= s^(k−1) Γ(k) e^(−x/b + s²/(2b²) − μ²/(4s²)) D_(−k)(−μ/s) / √(2π), μ = x − s²/b (D the parabolic cylinder
function), checked against the quadrature E[φ_s(x − L)] in the tests. mpmath.quad stops on an ABSOLUTE error
estimate, so every integrand is divided by f(x) first (the value only sets the scale); without it tail values
of 1e-100 come out with a relative error of 1e-1.

Hockey-stick: log f is concave, so L(x) = log f(x) − log f(x − Δ) is non-increasing and the optimal event of
E_(e^eps)(Z || Z + Δ) is {x <= c} with L(c) = eps: δ = F(c) − e^eps F(c − Δ) (the other half-line gives <= 0),
and δ = 0 for eps >= Δ/b_max (the supremum of L).
"""

from __future__ import annotations

from mpmath import mp

DPS = 40


def _series_mul(p, q, n):
    return [mp.fsum(p[j] * q[i - j] for j in range(i + 1) if j < len(p) and i - j < len(q)) for i in range(n)]


def _series_inv_pow(p, m, n):
    """(p0 + p1 w + p2 w² + …)^(−m) to n terms."""
    inv = [1 / p[0]]
    for i in range(1, n):
        inv.append(-mp.fsum(p[j] * inv[i - j] for j in range(1, min(i, len(p) - 1) + 1)) / p[0])
    out = [mp.mpf(1)] + [mp.mpf(0)] * (n - 1)
    for _ in range(m):
        out = _series_mul(out, inv, n)
    return out


class NoiseLaw:
    """Z = N(0, sigma²) + Σ Lap(0, b) for b in `scales` (sigma = 0 allowed), in mpmath at `dps` digits."""

    def __init__(self, sigma, scales, dps=DPS):
        self.dps = dps
        with mp.workdps(dps):
            counts: dict[float, int] = {}
            for b in scales:
                counts[float(b)] = counts.get(float(b), 0) + 1
            groups = [(mp.mpf(b), m) for b, m in sorted(counts.items())]
            self.sigma = mp.mpf(sigma)
            self.b_max = max(b for b, _ in groups)
            self.terms = []  # (A, k, b): f_L(y) = Σ A γ_(k,b)(|y|)
            for g, (bg, mg) in enumerate(groups):
                series = _series_inv_pow([mp.mpf(2), mp.mpf(-1)], mg, mg)
                for h, (bh, mh) in enumerate(groups):
                    if h != g:
                        r = (bh / bg) ** 2
                        series = _series_mul(series, _series_inv_pow([1 - r, 2 * r, -r], mh, mg), mg)
                self.terms += [(series[mg - k], k, bg) for k in range(1, mg + 1)]
            self._gamma = [(a / (mp.gamma(k) * b**k), k - 1, 1 / b) for a, k, b in self.terms]

    # ------------------------------------------------------------------ the Laplace sum
    def laplace_density(self, y):
        y = abs(mp.mpf(y))
        return mp.fsum(c * y**p * mp.exp(-y * rate) for c, p, rate in self._gamma)

    def mass(self):
        with mp.workdps(self.dps):
            return 2 * mp.fsum(a for a, _, _ in self.terms)

    # ------------------------------------------------------------------ Z
    def density(self, x):
        """Valid for |x| <= 1e5 (checked to 1e-36 against the quadrature there; far beyond, the exponent
        cancellation in the closed form exceeds the digits)."""
        with mp.workdps(self.dps):
            x, s = mp.mpf(x), self.sigma
            if s == 0:
                return self.laplace_density(x)
            assert abs(x) <= 1e5, x
            total = mp.mpf(0)
            for a, k, b in self.terms:
                for xx in (x, -x):
                    mu = xx - s * s / b
                    total += (a / b**k * s ** (k - 1) * mp.exp(-xx / b + s * s / (2 * b * b) - mu * mu / (4 * s * s))
                              * mp.pcfd(-k, -mu / s))
            return total / mp.sqrt(2 * mp.pi)

    def _points(self, x):
        s, b_min = self.sigma, min(b for _, _, b in self.terms)
        pts = {mp.mpf(0), -mp.inf, mp.inf, x}
        pts |= {x + sg * s * 8 for sg in (1, -1)} | {sg * b_min for sg in (1, -1)}
        return sorted(pts)

    def density_by_quad(self, x):
        """E[φ_s(x − L)] by quadrature (a check of the closed form)."""
        with mp.workdps(self.dps):
            x, s = mp.mpf(x), self.sigma
            scale = 1 / self.density(x)  # mp.quad's tolerance is absolute: integrate values of order 1
            return mp.quad(lambda y: scale * mp.npdf(x - y, 0, s) * self.laplace_density(y), self._points(x)) / scale

    def cdf(self, x):
        with mp.workdps(self.dps):
            x, s = mp.mpf(x), self.sigma
            if s == 0:
                if x > 0:
                    return 1 - self.cdf(-x)
                return mp.fsum(a * mp.gammainc(k, -x / b, regularized=True) for a, k, b in self.terms)
            scale = 1 / self.density(x)  # mp.quad's tolerance is absolute: integrate values of order 1
            return mp.quad(lambda y: scale * mp.ncdf((x - y) / s) * self.laplace_density(y), self._points(x)) / scale

    # ------------------------------------------------------------------ the shift pair
    def loss(self, x, dist):
        return mp.log(self.density(x)) - mp.log(self.density(x - dist))

    def hockey_stick(self, dist, eps):
        """E_(e^eps)(Z || Z + dist), dist > 0: (delta, c) with c the end of the event {x <= c}."""
        with mp.workdps(self.dps):
            dist, eps = mp.mpf(dist), mp.mpf(eps)
            if eps >= dist / self.b_max:
                return mp.mpf(0), None
            half = dist / 2
            if eps == 0:
                c = half
            else:
                with mp.workdps(25):  # bracket, then a secant polish at full precision
                    lo = -self.b_max
                    while self.loss(lo, dist) < eps:
                        lo = 2 * lo - self.b_max
                    c = mp.findroot(lambda t: self.loss(t, dist) - eps, (lo, half), solver="illinois", verify=False)
                c = mp.findroot(lambda t: self.loss(t, dist) - eps, (c, c + mp.mpf(10) ** -12 * (1 + abs(c))),
                                solver="secant", tol=mp.mpf(10) ** (-2 * self.dps // 3), verify=False)
            f_c, f_cd = self.cdf(c), self.cdf(c - dist)
            delta = f_c - mp.exp(eps) * f_cd
            other = (1 - f_c) - mp.exp(eps) * (1 - f_cd)  # the other half-line
            assert other <= max(delta, 0) and delta >= 0, (delta, other)
            return delta, c
