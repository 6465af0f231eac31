"""Private recoverability that the public analyst can still use: a full-rank public channel (SRP-Rec-ID).

`RecoverableMechanism` at its randomness minimum s* can have a singular public channel (k = 4, eps = 0.5: s* = 2),
so p is not identifiable from Y. Here the key is q_min^s with the least-entropy s among those coprime to k.

*Full rank.* Q[x, y] = q[(y − x) mod k] is a circulant, diagonalised by the characters of Z_k (the DFT); it is
normal, so its singular values are the moduli |q̂(w)|, w = 0..k−1. q̂(0) = 1, and for w != 0 the constant part
of q_min^s drops out: q̂(w) = (A − B) Σ_{u<s} ζ^{wu} = (A − B)(1 − ζ^{ws})/(1 − ζ^w), ζ = e^{−2πi/k}, A − B =
(1 − e^−eps)/(s + (k − s) e^−eps). Its modulus (A − B)|sin(π w s/k) / sin(π w/k)| vanishes iff k | w s, which for
gcd(s, k) = 1 and 0 < w < k never happens: Q is invertible for every eps > 0 (at eps = 0 every eps-LDP channel has
equal rows). For k = 2^b the eligible s are the odd ones (the Walsh–Hadamard analogue over Z_2^b: a ±1 sum of odd
length is odd, hence non-zero).

*Randomness factor.* For s <= s': D_s = s + (k − s) e^−eps satisfies D_{s'} <= (s'/s) D_s and the light mass
L_s = (k − s) e^−eps / D_s decreases in s, so H(q^{s'}) = log2 D_{s'} + L_{s'} eps log2 e <= H(q^s) + log2(s'/s);
and H(q^s) >= log2 D_s >= log2 s. With s* the unconstrained argmin and s' the least integer >= s* coprime to k
(s' <= k − 1), H(chosen) / H(q^{s*}) <= 1 + log2(s'/s*) / log2 s* (= 1 where s* is coprime to k):
`recoverable_factor_bound(k)` is the maximum over s* in 2..k−1, at most log2 3 for every prime power k.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike
from ..._validation import check_int, check_positive, check_probability_vector, check_size, readonly
from ...spaces import IncompatibleSpaces
from ..finite import MatrixMechanism
from .frequency import _report_counts
from .keyed import KeyedMechanism
from .recoverable import RecoverableMechanism, RecoverableViews, _circulant, _key_entropies, shaded_eps

__all__ = ["IdentifiableRecoverableMechanism", "identifiable_recoverable_s", "recoverable_factor_bound"]


def _coprime(k: int) -> NDArray[np.bool_]:
    """mask[s − 1] = gcd(s, k) == 1 for s = 1..k−1."""
    return np.gcd(np.arange(1, k), k) == 1


def identifiable_recoverable_s(k: int, eps: float) -> int:
    """The s in 1..k−1 with gcd(s, k) = 1 minimising H(q_min^s) (SRP-Rec-ID); near-ties (4 ulps) to the s closest
    to floor(k/2), then the smaller. `k` >= 2, `eps` > 0 finite (nats)."""
    k = check_int("k", k, minimum=2)
    eps = check_positive("eps", eps)
    bits = _key_entropies(k, eps)  # checks the size first
    bits = np.where(_coprime(k), bits, np.inf)
    best = float(bits.min())
    near = np.flatnonzero(bits <= best + 4.0 * np.spacing(best)) + 1
    return int(min(near, key=lambda s: (abs(s - k // 2), s)))


def recoverable_factor_bound(k: int) -> float:
    """max over s in 2..k−1 of 1 + log2(s'/s) / log2 s, s' the least integer >= s coprime to k (1.0 for k <= 3):
    H(q_min^{s_ID}) <= this × min_recoverable_randomness(k, eps) at every eps > 0 (module docstring; SRP-Rec-ID).
    At most log2 3 when k is a prime power (s' <= s + 1)."""
    k = check_int("k", k, minimum=2)
    check_size("k", k, 4 * k, what="the coprimality table of 1..k−1")
    if k <= 3:
        return 1.0
    s = np.arange(1, k)
    ok = _coprime(k)
    # next coprime >= s: a reverse running minimum over the coprime positions (k − 1 is always coprime)
    nxt = np.minimum.accumulate(np.where(ok, s, k)[::-1])[::-1]
    s, nxt = s[1:].astype(np.float64), nxt[1:].astype(np.float64)
    return float(np.max(1.0 + np.log2(nxt / s) / np.log2(s)))


@dataclass(frozen=True, repr=False)
class IdentifiableRecoverableMechanism(RecoverableViews, MatrixMechanism):
    """Y = (X + U) mod k with U ~ q_min^s, s = `identifiable_recoverable_s(k, eps)` (coprime to k): the key holder
    recovers X = (Y − U) mod k, the public channel is exactly eps-LDP and invertible (module docstring;
    SRP-Rec-ID), so the public analyst's `estimate` is unbiased for p. `k` >= 2, `eps` > 0 finite (nats); the
    key law is built on construction (`q_min`: eps beyond ~708 is refused).
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_positive("eps", self.eps))
        self.base  # noqa: B018 -- build (and check) the key law now

    @cached_property
    def s(self) -> int:
        """The number of heavy keys, coprime to k (`identifiable_recoverable_s`)."""
        return identifiable_recoverable_s(self.k, self.eps)

    @cached_property
    def base(self) -> RecoverableMechanism:
        """The same mechanism as `RecoverableMechanism(k, eps_built, s)` (its key law, sampler and `recover`), with
        eps_built from `shaded_eps`: the circulant's columns all hold q_min^s's two values, so the float law's ratio
        is the channel's exact eps."""
        built = shaded_eps(self.eps, lambda e: RecoverableMechanism(self.k, e, self.s).key_probs)
        return RecoverableMechanism(self.k, built, self.s)

    @property
    def key_probs(self) -> NDArray[np.float64]:
        """q_min^s (`q_min`)."""
        return self.base.key_probs

    @property
    def keyed(self) -> KeyedMechanism:
        """The same mechanism as a `KeyedMechanism(table, key_probs)`."""
        return self.base.keyed

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        return _circulant(self.key_probs)

    @cached_property
    def singular_values(self) -> NDArray[np.float64]:
        """|q̂(w)| for w = 0..k−1, in closed form: 1 at w = 0, (A − B)|sin(π w s/k)/sin(π w/k)| elsewhere, with
        A − B the difference of the two values of the float key law (exact, Sterbenz): the singular values of the
        circulant Q that is certified and sampled (module docstring)."""
        w = np.arange(1, self.k)
        gap = float(self.key_probs.max() - self.key_probs.min())
        rest = gap * np.abs(np.sin(np.pi * ((w * self.s) % self.k) / self.k) / np.sin(np.pi * w / self.k))
        return readonly(np.concatenate(([1.0], rest)))

    @property
    def smallest_singular_value(self) -> float:
        """min_w |q̂(w)| > 0 (eps > 0): 1/condition number of Q in the spectral norm."""
        return float(self.singular_values.min())

    @property
    def condition_number(self) -> float:
        """σ_max / σ_min of Q in the spectral norm = 1 / `smallest_singular_value` (σ_max = q̂(0) = 1, as
        |q̂(w)| <= Σ q = 1)."""
        return 1.0 / self.smallest_singular_value

    @property
    def randomness_bits(self) -> float:
        """H(q_min^s) in bits (closed form)."""
        return float(_key_entropies(self.k, self.eps)[self.s - 1])

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, u) with y = (x + u) mod k (``secure``: keys from the OS CSPRNG, `draw_keys`)."""
        return self.base.sample_with_keys(x, rng=rng, secure=secure)

    def recover(self, y: ArrayLike, u: ArrayLike) -> NDArray[np.int64]:
        """X = (Y − U) mod k: exact for the key holder."""
        return self.base.recover(y, u)

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """The public analyst's unbiased p̂ = f_Y Q^{-1} from n >= 1 public reports (f_Y their frequencies:
        E f_Y = f Q, f the inputs' frequencies). Q^T is the circulant with first column q, solved by FFT
        (`scipy.linalg.solve_circulant`)."""
        from scipy.linalg import solve_circulant

        counts, n = _report_counts("reports", reports, self.k)
        return np.real(solve_circulant(self.key_probs, counts / n))

    def l2_risk(self, p: ArrayLike, n: int) -> float:
        """E||p̂ − p||² of `estimate` from n i.i.d. inputs ~ p: tr(Q^{-T} (diag μ − μ μ^T) Q^{-1}) / n, μ = p Q."""
        probs = check_probability_vector("p", p)
        if probs.size != self.k:
            raise IncompatibleSpaces(f"`p` has {probs.size} entries but the mechanism has k = {self.k} inputs.")
        users = check_int("n", n, minimum=1)
        mu = probs @ self.matrix
        inverse = np.linalg.inv(self.matrix)
        cov = np.diag(mu) - np.outer(mu, mu)
        return float(np.trace(inverse.T @ cov @ inverse) / users)

    def __repr__(self) -> str:
        return f"IdentifiableRecoverableMechanism(k={self.k}, eps={self.eps!r})"

