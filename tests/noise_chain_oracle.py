"""Test oracle for BBGG-E2r: the law of a sum of independent Gaussian and Laplace noises on a grid, and the exact
Rényi divergence and hockey-stick divergence between two shifts of it — independent of the code under test.

Method. The sum S = Z_0 + … + Z_r is discretised on the grid h·Z (Delta = m h, so the shift is exact on the
grid): each noise by its exact cell masses P(Z_i ∈ [jh − h/2, jh + h/2)), the masses of S by FFT convolution
(the transform of each term's masses in closed form, then one inverse FFT). The tails matter (at alpha = 1e3 the
Rényi integrand lives hundreds of scales out), so every convolution runs on exponentially tilted masses
m_i(x) e^(theta x) (tilting commutes with convolution: the tilted sum is the sum of the tilted terms), which puts
the region of interest in the bulk of the tilted law where the FFT is accurate; theta is moved left until the
integrand at the left edge of the trusted cells (tilted mass above e^-23 of its maximum: FFT round-off below
1e-5 relative) is e^-30 of the total. Cells outside every trusted region are left out, which only lowers the
integrals (both integrands are >= 0).

Its error is that of replacing each noise by its rounding to the grid (h²/12 per term, a smoothing, 12 cells
per smallest scale): measured in `tests/test_shift_reduction.py` against closed forms (two Laplace terms,
`markovdp.divergences.exact.laplace_sum`; n equal Laplace terms, the K_(n−1/2) density; Gaussian terms only,
STD-GaussRenyi and STD-GaussHS), at most 6e-4 relative and low in every case seen; allowed `ORACLE_RTOL` there.
"""

from __future__ import annotations

import math

import numpy as np

#: Cells whose tilted mass is below e^-ACCURATE of the maximum are not trusted (FFT round-off).
ACCURATE = 23.0
#: Grid cells per smallest noise scale (before rounding h down so that Delta is a multiple of h).
CELLS_PER_SCALE = 12
MAX_FFT = 2**15


def _cumulants(steps, theta: float) -> tuple[float, float]:
    """Mean and standard deviation of the theta-tilted sum."""
    mean = var = 0.0
    for kind, scale, count in steps:
        if kind == "laplace":
            u = (scale * theta) ** 2
            mean += count * 2.0 * scale**2 * theta / (1.0 - u)
            var += count * 2.0 * scale**2 * (1.0 + u) / (1.0 - u) ** 2
        else:
            mean += count * scale**2 * theta
            var += count * scale**2
    return mean, math.sqrt(var)


def _tilted_transform(kind: str, scale: float, h: float, theta: float, t: np.ndarray,
                      one_minus_z: np.ndarray) -> tuple[np.ndarray, float]:
    """(A / A_0, log A_0): the DFT A_k = Σ_j a_j e^(−i t_k j h) of the tilted cell masses
    a_j = P(Z ∈ [jh − h/2, jh + h/2)) e^(theta j h), periodised, scaled by its value at t = 0 (the total mass).

    Laplace: a_0 = 1 − e^(−h/2b), a_j = sinh(h/2b) e^(−|j| h/b + theta j h): two geometric series, summed in closed
    form. Gaussian: by Poisson summation, M(s) · sinh(s h/2)/(s h/2) with M(s) = e^(sigma² s²/2), s = theta − i t
    (the other terms are below e^(−(2 pi sigma/h)²/2), nothing at 12 cells per sigma)."""
    if kind == "laplace":
        # Σ_{j>=1} (r z)^j = r z / (1 − r z), 1 − r z = (1 − r) + r (1 − z) without cancellation near t = 0
        half = h / (2.0 * scale)
        log_right, log_left = -h / scale + theta * h, -h / scale - theta * h
        right, left = math.exp(log_right), math.exp(log_left)
        z = 1.0 - one_minus_z
        series = (right * z / (-math.expm1(log_right) + right * one_minus_z)
                  + left * z.conj() / (-math.expm1(log_left) + left * one_minus_z.conj()))
        full = -math.expm1(-half) + math.sinh(half) * series
        return full / full[0].real, math.log(full[0].real)
    s = theta - 1j * t
    w, w0 = s * h / 2.0, theta * h / 2.0
    sinhc0 = math.sinh(w0) / w0 if w0 != 0 else 1.0
    sinhc = np.where(w == 0, 1.0, np.sinh(w) / np.where(w == 0, 1.0, w))
    return np.exp(scale * scale * (s * s - theta * theta) / 2.0) * sinhc / sinhc0, \
        scale * scale * theta * theta / 2.0 + math.log(sinhc0)


def _tilted_log_pmf(steps, h: float, theta: float) -> tuple[int, np.ndarray, np.ndarray]:
    """(first grid index j0, log P(S = j h) for j = j0, j0 + 1, …, relative accuracy) from one tilt; rel is the
    log of the tilted mass over its maximum."""
    mean, sd = _cumulants(steps, theta)
    # the window holds the tilted law down to far below e^-ACCURATE: 10 sd, and 45 of its slowest exponential decay
    decay = max([1.0 / (1.0 / b - abs(theta)) for kind, b, _ in steps if kind == "laplace"], default=0.0)
    width = 2.0 * (abs(mean) + 10.0 * sd + 45.0 * decay)
    n = 1 << max(8, math.ceil(math.log2(width / h)))
    if n > MAX_FFT:
        raise ValueError(f"grid of {n} cells: coarser h needed")
    k = np.arange(n // 2 + 1)
    t = 2.0 * math.pi * k / (n * h)
    one_minus_z = -np.expm1(-1j * t * h)
    total, log_scale = np.ones(k.size, dtype=complex), 0.0
    for kind, scale, count in steps:
        scaled, log_mass = _tilted_transform(kind, scale, h, theta, t, one_minus_z)
        total *= scaled**count
        log_scale += count * log_mass
    pmf = np.fft.irfft(total, n)
    # index i stands for x ≡ i h (mod n h): read it on the window of n cells centred on the tilted mean
    k = np.arange(n)
    j0 = round(mean / h) - n // 2
    pmf = pmf[(j0 + k) % n]
    peak = float(np.max(pmf))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.log(np.where(pmf > 0, pmf, 0.0)) - math.log(peak)
        log_pmf = np.log(np.where(pmf > 0, pmf, 1.0)) + log_scale - theta * (j0 + k) * h
    return j0, log_pmf, rel


class ShiftedSum:
    """log P(S = j h) of S = Σ Z_i on the grid, merged from several tilts (each cell from its most accurate tilt).

    `steps`: (kind, scale, count) with kind "gaussian" (scale = sigma) or "laplace"; `delta` the shift.
    """

    def __init__(self, steps, delta: float) -> None:
        self.steps, self.delta = steps, delta
        smallest = min(scale for _, scale, _ in steps)
        self.m = max(1, math.ceil(delta * CELLS_PER_SCALE / smallest))
        laplace = [scale for kind, scale, _ in steps if kind == "laplace"]
        # the tilt must keep every Laplace term's moment generating function finite (|theta| < 1/b)
        self.theta_max = (1.0 - 1e-3) / max(laplace) if laplace else 1e6 / smallest
        self.theta = 0.0
        self._reset()
        self.add_tilt(0.0)

    @property
    def h(self) -> float:
        return self.delta / self.m

    def _reset(self) -> None:
        self.j0, self.log_f, self.rel = 0, np.zeros(0), np.zeros(0)

    def add_tilt(self, theta: float) -> None:
        """Add the cells of the theta-tilted convolution; a tilt whose grid would exceed MAX_FFT cells is moved
        back towards the current one (the first, theta = 0, coarsens h instead: Delta stays a multiple of h)."""
        while True:
            try:
                j0, log_pmf, rel = _tilted_log_pmf(self.steps, self.h, theta)
                break
            except ValueError:
                if self.rel.size and abs(theta - self.theta) > 1e-6 * self.theta_max:
                    theta = 0.5 * (theta + self.theta)
                elif self.rel.size:
                    return
                elif self.m == 1:
                    raise
                else:
                    self.m = max(1, self.m // 2)
        self.theta = theta
        if self.rel.size == 0:
            self.j0, self.log_f, self.rel = j0, log_pmf, rel
            return
        lo, hi = min(self.j0, j0), max(self.j0 + self.rel.size, j0 + rel.size)
        log_f, best = np.zeros(hi - lo), np.full(hi - lo, -np.inf)
        for start, values, accuracy in ((self.j0, self.log_f, self.rel), (j0, log_pmf, rel)):
            window = slice(start - lo, start - lo + accuracy.size)
            better = accuracy > best[window]
            log_f[window] = np.where(better, values, log_f[window])
            best[window] = np.where(better, accuracy, best[window])
        self.j0, self.log_f, self.rel = lo, log_f, best

    def trusted(self) -> np.ndarray:
        """log P(S = (j0 + k) h), −inf where no tilt is accurate."""
        return np.where(self.rel >= -ACCURATE, self.log_f, -np.inf)


def _pair(chain: ShiftedSum) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(j, log p, log q) at x = j h: p = P(S = x), q = P(S + Delta = x) (−inf where not trusted)."""
    log_f, m = chain.trusted(), chain.m
    j = chain.j0 + np.arange(log_f.size + m)
    log_p = np.concatenate([log_f, np.full(m, -np.inf)])
    log_q = np.concatenate([np.full(m, -np.inf), log_f])
    return j, log_p, log_q


def _integrate(chain: ShiftedSum, log_integrand, rounds: int = 10) -> float:
    """log Σ_x integrand(x) over the cells where p and q are trusted, moving the tilt left (where p/q grows:
    x → −inf, p at 0 and q at Delta) until the integrand at the left edge is e^-30 of the total."""
    for _ in range(rounds):
        j, log_p, log_q = _pair(chain)
        both = np.isfinite(log_p) & np.isfinite(log_q)
        with np.errstate(invalid="ignore"):
            values = np.where(both, log_integrand(log_p, log_q), -np.inf)
        finite = np.isfinite(values)
        if not finite.any():
            return -math.inf
        top = float(np.max(values[finite]))
        total = top + math.log(float(np.sum(np.exp(values[finite] - top))))
        first = int(np.argmax(both))
        if values[first] < total - 30.0 or chain.theta <= -chain.theta_max:
            return total
        # tilt so that the tilted law is centred at the left edge (its mean is decreasing in -theta)
        edge = (chain.j0 + first - chain.m) * chain.h
        lo, hi = -chain.theta_max, chain.theta
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _cumulants(chain.steps, mid)[0] < edge else (lo, mid)
        chain.add_tilt(hi)
    return total


def renyi(chain: ShiftedSum, alpha: float) -> float:
    """R_alpha(u + S || v + S), |u − v| = Delta (the shift of `chain`), nats; errs low (module docstring)."""
    def log_integrand(log_p, log_q):
        return alpha * log_p + (1.0 - alpha) * log_q

    return _integrate(chain, log_integrand) / (alpha - 1.0)


def hockey_stick(chain: ShiftedSum, eps: float) -> float:
    """E_{e^eps}(u + S || v + S) = Σ (p − e^eps q)_+; errs low."""
    def log_integrand(log_p, log_q):
        gap = eps + log_q - log_p
        return np.where(gap < 0, log_p + np.log(-np.expm1(np.minimum(gap, -1e-300))), -np.inf)

    return math.exp(_integrate(chain, log_integrand))
