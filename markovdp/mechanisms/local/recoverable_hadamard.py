"""Private recoverability with a Hadamard-order public channel: an XOR key with a two-level law on a bent set
(SRP-Rec-HR).

*Construction.* N = 4^m, the least power of 4 >= k (m >= 1, N < 4k); inputs x in [k] are elements of Z_2^{2m}
(bit vectors). u = a + 2^m b with a, b in Z_2^m; f(u) = <a, b> mod 2 is the Maiorana–McFarland bent function and
S = {u : f(u) = 1}, |S| = N/2 − 2^{m−1}. The key U has q(u) = α = e^eps/Z on S and β = 1/Z off S,
Z = |S| e^eps + N − |S|; the public output is Y = x XOR U and the key holder recovers x = Y XOR U.

*eps-LDP.* Q[x, y] = q(x XOR y) takes the two values α, β: ratio e^eps, attained (column y = 2^m holds
q(2^m) = β and q(2^m XOR 1) = α in rows 0 and 1).

*Flat spectrum.* Q (N x N) is an XOR convolution, diagonalised by the characters (−1)^{<w, u>}: q̂(0) = 1 and, for
w != 0, q̂(w) = (α − β) Σ_{u in S} (−1)^{<w, u>} = −(α − β) W_f(w)/2 with W_f(w) = Σ_u (−1)^{f(u) + <w, u>} =
2^m (−1)^{f(w)} (f is bent and self-dual). So |q̂(w)| = λ = (α − β) 2^{m−1} = t/(2^m − t), t = tanh(eps/2), for
every w != 0, and Q² = λ² I + (1 − λ²) J/N. Eve's channel is the k rows Q_k: Q_k Q_kᵀ = λ² I_k + c J_k,
c = (1 − λ²)/N, so its singular values are λ (k − 1 times) and sqrt(λ² + c k): full rank at every eps > 0.

*Eve's estimator.* The least-squares left inverse p̂ = f_Y Q_kᵀ (Q_k Q_kᵀ)^{-1} = λ^{-2}(g − κ Σ_x g_x 1),
g = f_Y Q_kᵀ (an XOR convolution, by a fast Walsh–Hadamard transform), κ = c/(λ² + c k): unbiased for every p on
[k] (E f_Y = p Q_k). n · risk <= k (1 − t 2^-m)²/t² + (α N)²/k − ||p||² < n · risk_HR(p) + 16/k (docs/theory.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike
from ..._validation import (
    check_int,
    check_positive,
    check_probability_vector,
    check_reporters,
    check_size,
    check_states,
    fail,
    readonly,
)
from ...spaces import IncompatibleSpaces
from ..finite import MatrixMechanism
from .frequency import _report_counts
from .keyed import KeyedMechanism, draw_keys
from .recoverable import RecoverableViews, shaded_eps

__all__ = ["HadamardRecoverableMechanism"]

#: The smallest positive normal double: the light key probability must stay above it (exact log-ratios).
_TINY = float(np.finfo(np.float64).tiny)


def _fwht(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """The unnormalised Walsh–Hadamard transform â(w) = Σ_u a(u) (−1)^{<w, u>} along the last axis (length a power
    of 2), in log2(N) butterfly passes."""
    out = np.array(a, dtype=np.float64)
    n, h = out.shape[-1], 1
    lead = out.shape[:-1]
    while h < n:
        out = out.reshape(*lead, n // (2 * h), 2, h)
        out = np.stack((out[..., 0, :] + out[..., 1, :], out[..., 0, :] - out[..., 1, :]), axis=-2)
        h *= 2
    return out.reshape(*lead, n)


def _xor_convolve(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """(a ⋆ b)(x) = Σ_y a(y) b(x XOR y) on Z_2^d (both of length 2^d)."""
    return _fwht(_fwht(a) * _fwht(b)) / a.shape[-1]


def _maiorana_mcfarland(m: int) -> NDArray[np.bool_]:
    """f(u) = <a, b> mod 2 for u = a + 2^m b, a, b in Z_2^m (u = 0..4^m − 1): a bent function of 2m variables."""
    u = np.arange(4**m, dtype=np.int64)
    both = (u & ((1 << m) - 1)) & (u >> m)
    parity = np.zeros(u.size, dtype=np.int64)
    for i in range(m):
        parity ^= (both >> i) & 1
    return parity.astype(bool)


def _order(k: int) -> int:
    """m >= 1 with 4^m the least power of 4 >= k."""
    return max(1, ((k - 1).bit_length() + 1) // 2)


@dataclass(frozen=True, repr=False)
class HadamardRecoverableMechanism(RecoverableViews, MatrixMechanism):
    """Y = x XOR U on Z_2^{2m} (N = 4^m the least power of 4 >= k), U two-level on the bent set S of the
    Maiorana–McFarland function (e^eps/Z on S, 1/Z off it): the key holder recovers x = Y XOR U, the public channel
    (k x N) is exactly eps-LDP with singular values λ = tanh(eps/2)/(2^m − tanh(eps/2)) (k − 1 times) and
    sqrt(λ² + (1 − λ²) k/N), and the public analyst's `estimate` has Hadamard-response order l2² risk (module
    docstring; SRP-Rec-HR). `k` >= 2, `eps` > 0 finite (nats); eps beyond ~708 (a subnormal key probability) and
    eps below ~1e-14 (a float law with one value) are refused.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_positive("eps", self.eps))
        check_size("k", self.k, 8 * 4 ** _order(self.k), what="the key law and its Walsh–Hadamard transforms")
        self.key_probs  # noqa: B018 -- build (and check) the key law now

    @property
    def m(self) -> int:
        """Half the number of bits: N = 4^m."""
        return _order(self.k)

    @property
    def n_outputs(self) -> int:
        """N = 4^m, the size of the output and key group Z_2^{2m} (k <= N < 4k for k >= 2)."""
        return 4**self.m

    @cached_property
    def bent_set(self) -> NDArray[np.bool_]:
        """The indicator of S = {u : <a, b> = 1 mod 2} over u = a + 2^m b in 0..N − 1 (|S| = N/2 − 2^{m−1})."""
        return readonly(_maiorana_mcfarland(self.m))

    def _law(self, eps: float) -> NDArray[np.float64]:
        n, heavy = self.n_outputs, int(self.bent_set.sum())
        small = math.exp(-eps)
        alpha = 1.0 / (heavy + (n - heavy) * small)
        return np.where(self.bent_set, alpha, small * alpha)

    @cached_property
    def eps_built(self) -> float:
        """The eps the key law is built at (`shaded_eps`; column 2^m of the channel holds both values of the law, so
        its ratio is the channel's exact eps). Refused when the light probability would not be a normal double."""
        law = self._law(self.eps)
        if float(law.min()) < _TINY:
            raise fail("eps", f"at most about {math.log(1.0 / _TINY) - math.log(self.n_outputs):.6g} for "
                       f"k = {self.k} (the light key probability must be a normal double)", self.eps)
        return shaded_eps(self.eps, self._law)

    @cached_property
    def key_probs(self) -> NDArray[np.float64]:
        """q: α = 1/(|S| + (N − |S|) e^-eps) on S, β = e^-eps α off S, at `eps_built`."""
        return readonly(self._law(self.eps_built))

    @cached_property
    def table(self) -> NDArray[np.int64]:
        """g(x, u) = x XOR u for x < k, u < N."""
        return readonly(np.arange(self.k)[:, None] ^ np.arange(self.n_outputs)[None, :])

    @cached_property
    def keyed(self) -> KeyedMechanism:
        """The same mechanism as a `KeyedMechanism(table, key_probs, n_outputs=N)`."""
        return KeyedMechanism(self.table, self.key_probs, self.n_outputs)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        """Q[x, y] = q(x XOR y), k x N."""
        check_size("k", self.k, 2.0 * self.k * self.n_outputs, what="the k x N channel")
        return readonly(self.key_probs[self.table])

    @cached_property
    def eigenvalue(self) -> float:
        """λ = |q̂(w)| for every w != 0: (α − β) 2^{m−1} from the float law (α − β exact, Sterbenz);
        = tanh(eps/2)/(2^m − tanh(eps/2)) at eps_built."""
        return float(self.key_probs.max() - self.key_probs.min()) * 2.0 ** (self.m - 1)

    @cached_property
    def _gram(self) -> tuple[float, float]:
        """(λ², c): Q_k Q_kᵀ = λ² I + c J with c = (q̂(0)² − λ²)/N (q̂(0) = Σ q, 1 up to rounding)."""
        lam2 = self.eigenvalue**2
        return lam2, (float(self.key_probs.sum()) ** 2 - lam2) / self.n_outputs

    @cached_property
    def singular_values(self) -> NDArray[np.float64]:
        """The singular values of Q_k in closed form: sqrt(λ² + c k), then λ (k − 1 times)."""
        lam2, c = self._gram
        return readonly(np.concatenate(([math.sqrt(lam2 + c * self.k)], np.full(self.k - 1, math.sqrt(lam2)))))

    @property
    def smallest_singular_value(self) -> float:
        """λ > 0 (eps > 0): Eve's channel has full rank k."""
        return self.eigenvalue

    @property
    def condition_number(self) -> float:
        """σ_max / σ_min of Q_k = sqrt(λ² + c k)/λ."""
        return float(self.singular_values[0] / self.eigenvalue)

    @property
    def randomness_bits(self) -> float:
        """H(U) in bits, closed form at eps_built: with r = e^-eps, s = |S|, D = s + (N − s) r,
        H = ln D + (N − s) r eps / D nats (no probability near 1 is formed)."""
        eps = self.eps_built
        n, s = self.n_outputs, int(self.bent_set.sum())
        spread = (n - s) * math.exp(-eps)
        return (math.log(s) + math.log1p(spread / s) + spread * eps / (s + spread)) / math.log(2.0)

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, u) with y = x XOR u, u ~ q (``secure``: keys from the OS CSPRNG, `draw_keys`)."""
        states = check_reporters("x", x, self.k)
        keys = draw_keys(self.key_probs, states.size, rng=rng, secure=secure).reshape(states.shape)
        return states ^ keys, keys

    def recover(self, y: ArrayLike, u: ArrayLike) -> NDArray[np.int64]:
        """x = Y XOR U: exact for the key holder (`y`, `u` in 0..N − 1; a pair with y XOR u >= k, which no sample
        produces, is refused)."""
        x = check_states("y", y, self.n_outputs) ^ check_states("u", u, self.n_outputs)
        if x.size and int(x.max()) >= self.k:
            raise fail("u", f"the key of `y` (y XOR u < k = {self.k} for a pair from sample_with_keys)",
                       f"a pair with y XOR u = {int(x.max())}")
        return x

    def _scaled(self, g: NDArray[np.float64]) -> NDArray[np.float64]:
        """λ^{-2}(g − κ Σ g 1), κ = c/(λ² + c k): g (Q_k Q_kᵀ)^{-1}."""
        lam2, c = self._gram
        return (g - c / (lam2 + c * self.k) * g.sum(axis=-1, keepdims=True)) / lam2

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """Eve's unbiased p̂ = f_Y Q_kᵀ (Q_k Q_kᵀ)^{-1} from n >= 1 public reports in 0..N − 1 (f_Y their
        frequencies; E f_Y = p Q_k for p on [k]); f_Y Q_kᵀ is an XOR convolution (fast Walsh–Hadamard)."""
        counts, n = _report_counts("reports", reports, self.n_outputs)
        return self._scaled(_xor_convolve(counts / n, self.key_probs)[: self.k])

    def l2_risk(self, p: ArrayLike, n: int) -> float:
        """E||p̂ − p||² of `estimate` from n i.i.d. inputs ~ p, exact: (Σ_y μ_y Σ_x W[y, x]² − ||p||²)/n with
        W = Q_kᵀ (Q_k Q_kᵀ)^{-1}, μ = p Q_k, and Σ_x W[y, x]² = λ^{-4}(t(y) + (k κ² − 2κ) s(y)²),
        s(y) = Σ_{x<k} q(x XOR y), t(y) = Σ_{x<k} q(x XOR y)² (XOR convolutions)."""
        probs = check_probability_vector("p", p)
        if probs.size != self.k:
            raise IncompatibleSpaces(f"`p` has {probs.size} entries but the mechanism has k = {self.k} inputs.")
        users = check_int("n", n, minimum=1)
        lam2, c = self._gram
        kappa = c / (lam2 + c * self.k)
        inputs = np.zeros(self.n_outputs)
        inputs[: self.k] = 1.0
        padded = np.zeros(self.n_outputs)
        padded[: self.k] = probs
        q = self.key_probs
        mu = _xor_convolve(padded, q)
        s, t = _xor_convolve(inputs, q), _xor_convolve(inputs, q * q)
        second = float(mu @ (t + (self.k * kappa**2 - 2.0 * kappa) * s * s)) / lam2**2
        return (second - float(probs @ probs)) / users

    def __repr__(self) -> str:
        return f"HadamardRecoverableMechanism(k={self.k}, eps={self.eps!r})"
