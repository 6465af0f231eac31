"""Private recoverability: Y = (X + U) mod k, U ~ q_min^s; the key holder recovers X, the public gets eps-LDP
(SRP-Rec)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._profiles import pure_epsilon
from ..._random import RNGLike
from ..._validation import (
    check_eps,
    check_int,
    check_probability_vector,
    check_reporters,
    check_size,
    check_states,
    fail,
    readonly,
)
from ...operators.finite import FiniteKernel
from ..base import AllPairs
from ..finite import MatrixMechanism
from .keyed import KeyedMechanism, draw_keys

#: The smallest positive normal double: key probabilities below it would make exact log-ratios impossible.
_TINY = float(np.finfo(np.float64).tiny)

__all__ = ["RecoverableMechanism", "circulant", "min_recoverable_randomness", "min_recoverable_s", "q_min"]


def _q_min_law(k: int, eps: float, s: int) -> NDArray[np.float64]:
    small = math.exp(-eps)
    out = np.full(k, small / (s + (k - s) * small))
    out[:s] = 1.0 / (s + (k - s) * small)
    return out


def q_min(k: int, eps: float, s: int) -> NDArray[np.float64]:
    """The key law q_min^s on Z_k (SRP-Rec): e^eps/(s e^eps + k − s) on keys 0..s−1, 1/(s e^eps + k − s) on
    keys s..k−1. Written as 1/(s + (k − s) e^-eps) and e^-eps/(s + (k − s) e^-eps): no overflow.

    Raises ValueError naming `eps` where the small probability is below the smallest normal double
    (eps >~ 708 − log s): there its log-ratio, and so any exact eps, is no longer representable.
    """
    k = check_int("k", k, minimum=2)
    e = float(check_eps("eps", eps))
    s = check_int("s", s, minimum=1)
    if s > k - 1:
        raise fail("s", f"an integer in 1..{k - 1} (k = {k})", s)
    check_size("k", k, k, what="the key law")
    out = _q_min_law(k, e, s)
    if out[-1] < _TINY:
        raise fail("eps", f"at most about {-math.log(_TINY * s):.6g} for k = {k}, s = {s} (the small key "
                   "probability e^-eps/(s + (k − s) e^-eps) must be a normal double)", e)
    return readonly(out)


def circulant(law: ArrayLike) -> NDArray[np.float64]:
    """Q[x, y] = law[(y − x) mod k]: the channel of Y = (X + W) mod k with W ~ law (a probability vector on Z_k)."""
    return _circulant(check_probability_vector("law", law))


def _circulant(p: NDArray[np.float64]) -> NDArray[np.float64]:
    k = p.size
    check_size("k", k, 2.0 * k * k, what="the k x k channel")
    return readonly(p[(np.arange(k)[None, :] - np.arange(k)[:, None]) % k])


def _key_entropies(k: int, eps: float) -> NDArray[np.float64]:
    """H(q_min^s) for s = 1..k−1 in bits, in closed form: with t = e^-eps and D = s + (k − s) t,
    H = ln D + (k − s) t eps / D nats (ln D = ln s + log1p((k − s) t / s)). Exact at every eps: no entry of
    q_min^s is formed, so no probability near 1 is rounded (and t = 0 beyond eps ~745 gives log2 s)."""
    check_size("k", k, 4 * k, what="the key entropies of s = 1..k−1")
    s = np.arange(1, k, dtype=np.float64)
    spread = (k - s) * math.exp(-eps)
    nats = np.log(s) + np.log1p(spread / s) + spread * eps / (s + spread)
    return nats / math.log(2.0)


def min_recoverable_s(k: int, eps: float) -> int:
    """The s in 1..k−1 minimising H(q_min^s) (SRP-Rec). Near-ties (within 4 ulps of the minimum, below the
    accuracy of the closed form) go to the s closest to floor(k/2), then to the smaller s: at eps → 0 the
    optimum is k/2 and the entropies of neighbouring s agree to rounding."""
    bits = _key_entropies(check_int("k", k, minimum=2), float(check_eps("eps", eps)))
    best = float(bits.min())
    near = np.flatnonzero(bits <= best + 4.0 * np.spacing(best)) + 1
    return int(min(near, key=lambda s: (abs(s - k // 2), s)))


def min_recoverable_randomness(k: int, eps: float) -> float:
    """min over s in 1..k−1 of H(q_min^s), in bits: the least key entropy of an eps-LDP additive Z_k key (SRP-Rec).

    Also a lower bound for *every* recoverable mechanism (derived here, see docs SRP-Rec): if X = f(Y, U) with
    U independent of X, then for uniform X, H(U) >= H(X | Y) >= min over the posterior polytope
    {p : p_i <= e^eps p_j} of H(p), and that polytope's vertices are the permutations of q_min^s.
    The argmin s is `min_recoverable_s`. Closed form (`_key_entropies`), exact at every finite eps >= 0: at
    eps = 800 the value (~1e-344 bits) rounds to 0.0, while `q_min`, which builds the law, refuses eps >~ 708.
    """
    return float(_key_entropies(check_int("k", k, minimum=2), float(check_eps("eps", eps))).min())


def shaded_eps(eps: float, key_law: Callable[[float], NDArray[np.float64]]) -> float:
    """The eps to build a two-level key law at so that it is exactly eps-LDP in floats: the first of
    eps − i · step, i = 0..63, step = max(ulp(eps), 2^-54), at which the float law ``key_law(built)`` has an exact
    D_inf ratio (`pure_epsilon` of its largest and smallest entries, the channel's exact eps when every column holds
    both, AAC-T1) <= eps and fl(e^eps) · min >= max (so ``dobrushin(Q, eps) == 0.0`` too). Rounding can lift the
    ratio a few 1e-16 above eps; the declared eps must bound the channel that is certified and sampled.

    Raises ValueError naming `eps` when no such law exists (eps so small that the float law is uniform)."""
    step = max(math.ulp(eps), 2.0**-54)
    for i in range(64):
        built = eps - i * step
        if built <= 0.0:
            break
        law = key_law(built)
        hi, lo = float(law.max()), float(law.min())
        if hi == lo:  # the float law is uniform: the channel would have rank 1
            break
        if pure_epsilon(hi, lo) <= eps and math.exp(eps) * lo >= hi:
            return built
    raise fail("eps", "large enough (about 1e-14 or more) that some key law with eps_built in "
               "(eps − 64 max(ulp(eps), 2^-54), eps] has two distinct float values and is exactly eps-LDP "
               "in floats", eps)


class RecoverableViews:
    """What every recoverable mechanism (Y = g(X, U), X a function of (Y, U)) shows the same way: Eve's public
    channel as a `FiniteKernel` of its `matrix`, every pair of inputs as neighbours, `output_entropy_bits` =
    H(Y | X = x) = H(U) (u ↦ g(x, u) is a bijection), the public output alone (`sample`), and its randomness
    against `min_recoverable_randomness` (SRP-Rec). Subclasses give `matrix`, `randomness_bits` and
    `sample_with_keys`."""

    k: int
    eps: float

    @cached_property
    def channel(self) -> FiniteKernel:
        """Eve's (the public analyst's) view as a `FiniteKernel`."""
        return FiniteKernel(self.matrix)  # type: ignore[attr-defined]

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) = H(U) in bits (u ↦ g(x, u) is a bijection for each x)."""
        return self.randomness_bits  # type: ignore[attr-defined]

    @property
    def min_randomness_bits(self) -> float:
        """`min_recoverable_randomness(k, eps)`: the least key entropy of an additive recoverable eps-LDP mechanism."""
        return min_recoverable_randomness(self.k, self.eps)

    @property
    def randomness_ratio(self) -> float:
        """randomness_bits / min_randomness_bits (SRP-Rec-ID: at most `recoverable_factor_bound(k)` for the
        identifiable mechanism; SRP-Rec-HR: at most 2.382 for eps <= 1)."""
        return self.randomness_bits / self.min_randomness_bits  # type: ignore[attr-defined]

    def sample(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False) -> NDArray[np.int64]:
        """The public output only (keys as in `sample_with_keys`)."""
        return self.sample_with_keys(x, rng=rng, secure=secure)[0]  # type: ignore[attr-defined]


@dataclass(frozen=True, repr=False)
class RecoverableMechanism(RecoverableViews, MatrixMechanism):
    """Y = (X + U) mod k with U ~ q_min^s (SRP-Rec): the holder of U recovers X = (Y − U) mod k exactly, while
    the public channel Q[x, y] = q_min^s[(y − x) mod k] is exactly eps-LDP (max ratio e^eps; eps in nats).

    `k` >= 2, `eps` >= 0 finite, `s` in 1..k−1 (s = 1 is k-ary RR's key; s = k/2 is the eps → 0 optimum).
    The key law is built on construction (`q_min`), so eps beyond ~708 (a subnormal key probability) is refused.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float
    s: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", float(check_eps("eps", self.eps)))
        s = check_int("s", self.s, minimum=1)
        if s > self.k - 1:
            raise fail("s", f"an integer in 1..{self.k - 1} (k = {self.k})", s)
        object.__setattr__(self, "s", s)
        self.key_probs  # noqa: B018 -- build (and check) the key law now

    @cached_property
    def key_probs(self) -> NDArray[np.float64]:
        """q_min^s (see `q_min`)."""
        return q_min(self.k, self.eps, self.s)

    @cached_property
    def table(self) -> NDArray[np.int64]:
        """g(x, u) = (x + u) mod k."""
        return readonly((np.arange(self.k)[:, None] + np.arange(self.k)[None, :]) % self.k)

    @cached_property
    def keyed(self) -> KeyedMechanism:
        """The same mechanism as a `KeyedMechanism(table, key_probs)`."""
        return KeyedMechanism(self.table, self.key_probs)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        return _circulant(self.key_probs)

    @property
    def randomness_bits(self) -> float:
        """H(q_min^s) in bits (closed form, `_key_entropies`: full relative precision at every eps)."""
        return float(_key_entropies(self.k, self.eps)[self.s - 1])

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, u) with y = (x + u) mod k. The key is Bob's secret: in deployment pass ``secure=True`` (keys from
        the OS CSPRNG, `draw_keys`); the default uses the numpy Generator `rng` (reproducible research path)."""
        states = check_reporters("x", x, self.k)
        keys = draw_keys(self.key_probs, states.size, rng=rng, secure=secure).reshape(states.shape)
        return (states + keys) % self.k, keys

    def recover(self, y: ArrayLike, u: ArrayLike) -> NDArray[np.int64]:
        """X = (Y − U) mod k: exact for the key holder."""
        ys = check_states("y", y, self.k)
        us = check_states("u", u, self.k)
        return (ys - us) % self.k

    def __repr__(self) -> str:
        return f"RecoverableMechanism(k={self.k}, eps={self.eps!r}, s={self.s})"
