"""Multi-level privacy with additive keys over Z_k: one public output, one key share per level (SRP-ML).

Laws on Z_k with mass a at 0 and b = (1 − a)/(k − 1) elsewhere ("symmetric") are closed under convolution:
their Fourier coefficient at every non-zero frequency is lambda = a − b, and convolution multiplies lambdas.
The k-ary RR key for eps has lambda(eps) = (e^eps − 1)/(e^eps + k − 1), in (0, 1) for eps > 0. So with
U_1 ~ RR key(eps_1) and U_{j+1} symmetric with lambda = lambda(eps_{j+1}) / lambda(eps_j) in (0, 1) — a valid
law (a' = (1 + (k − 1) lambda)/k, b' = (1 − lambda)/k), unique among symmetric laws — the sum U_1 + … + U_j has
exactly the RR-key law of eps_j, so analyst j's view X + U_1 + … + U_j is exactly eps_j-LDP. Such a key exists
for every strictly decreasing positive eps_levels.
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
    check_eps,
    check_int,
    check_positive,
    check_reporters,
    check_scalar,
    check_size,
    check_states,
    check_vector,
    fail,
    readonly,
)
from ...operators.finite import FiniteKernel
from ..base import AllPairs
from ..finite import FiniteMechanism, MatrixMechanism
from .entropy import entropy_bits
from .keyed import draw_keys
from .recoverable import _circulant

__all__ = ["BBGG_T1_RULES", "MultiLevelMechanism", "added_key_law", "rr_key_law"]

#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)
#: The BBGG-T1 rules used to predict level j+1 from level j (the best of them at delta = 0).
BBGG_T1_RULES = ("BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4")


def _symmetric(k: int, b: float) -> NDArray[np.float64]:
    law = np.full(k, b)
    law[0] = 1.0 - (k - 1) * b
    return law


def rr_key_law(k: int, eps: float) -> NDArray[np.float64]:
    """The key of k-ary RR for eps: 1/(1 + (k − 1) e^-eps) at 0, e^-eps/(1 + (k − 1) e^-eps) elsewhere.

    `k` >= 2, `eps` >= 0 and finite (nats).
    """
    k = check_int("k", k, minimum=2)
    eps = check_scalar("eps", check_eps("eps", eps))
    check_size("k", k, k, what="the key law")
    return _rr_key_law(k, eps)


def _rr_key_law(k: int, eps: float) -> NDArray[np.float64]:
    t = math.exp(-eps)
    law = np.full(k, t / (1.0 + (k - 1) * t))
    law[0] = 1.0 / (1.0 + (k - 1) * t)
    return law


def added_key_law(k: int, eps_from: float, eps_to: float) -> NDArray[np.float64]:
    """The symmetric key W with RRkey(eps_from) * W = RRkey(eps_to) on Z_k (0 < eps_to < eps_from; SRP-ML).

    b' = (b(eps_to) − b(eps_from)) / lambda(eps_from), written without cancellation as
    e^-eps_to (−expm1(eps_to − eps_from)) / ((1 + (k − 1) e^-eps_to)(−expm1(−eps_from))).
    `k` >= 2; `eps_from` > `eps_to` > 0, both finite (nats).
    """
    k = check_int("k", k, minimum=2)
    eps_from = check_positive("eps_from", eps_from)
    eps_to = check_positive("eps_to", eps_to)
    if not eps_to < eps_from:
        raise fail("eps_to", f"< eps_from = {eps_from!r} (the added key only lowers eps)", eps_to)
    check_size("k", k, k, what="the key law")
    return _added_key_law(k, eps_from, eps_to)


def _added_key_law(k: int, eps_from: float, eps_to: float) -> NDArray[np.float64]:
    b = (math.exp(-eps_to) * -math.expm1(eps_to - eps_from)
         / ((1.0 + (k - 1) * math.exp(-eps_to)) * -math.expm1(-eps_from)))
    return _symmetric(k, b)


def _convolve(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """(p * q)[z] = Σ_u p[u] q[(z − u) mod k] on Z_k."""
    return p @ _circulant(q)


def _check_levels(value: ArrayLike) -> tuple[float, ...]:
    levels = check_vector("eps_levels", value)
    if (levels <= 0).any():
        raise fail("eps_levels", "levels > 0 and finite", float(levels[levels <= 0][0]))
    if (np.diff(levels) >= 0).any():
        raise fail("eps_levels", "strictly decreasing (eps_1 > eps_2 > … > eps_d)", tuple(levels.tolist()))
    return tuple(levels.tolist())


@dataclass(frozen=True, repr=False)
class MultiLevelMechanism(MatrixMechanism):
    """Public Y = (X + U_1 + … + U_d) mod k; analyst j holds U_{j+1..d} and sees X + U_1 + … + U_j, which is
    exactly eps_j-LDP (SRP-ML; construction in the module docstring). Analyst d holds no key: the mechanism's
    own channel (`matrix`) is the public view, eps_d-LDP. `eps_levels` (nats) strictly decreasing, > 0, finite.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    eps_levels: tuple[float, ...]
    k: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps_levels", _check_levels(self.eps_levels))
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        self.key_probs  # noqa: B018 -- build (and check) the key laws now

    @property
    def d(self) -> int:
        """The number of levels (analysts)."""
        return len(self.eps_levels)

    @cached_property
    def key_probs(self) -> tuple[NDArray[np.float64], ...]:
        """The laws of U_1, …, U_d: U_1 the RR key of eps_1, U_{j+1} = `added_key_law(k, eps_j, eps_{j+1})`."""
        e = self.eps_levels
        check_size("k", self.k, self.k * self.d, what="the key laws")
        laws = [_rr_key_law(self.k, e[0])] + [_added_key_law(self.k, e[j], e[j + 1]) for j in range(self.d - 1)]
        smallest = min(float(law.min()) for law in laws)
        if smallest < _TINY:  # subnormal or 0: the views' log-ratios (ldp_epsilon) would no longer be exact
            raise fail("eps_levels", "levels whose key probabilities are normal doubles (eps_1 up to about 708), "
                       "so that every level's exact eps is representable", tuple(e))
        return tuple(readonly(law) for law in laws)

    @cached_property
    def _view_laws(self) -> tuple[NDArray[np.float64], ...]:
        laws = [self.key_probs[0]]
        for key in self.key_probs[1:]:
            laws.append(_convolve(laws[-1], key))
        return tuple(readonly(law / law.sum()) for law in laws)

    def _check_level(self, j: int, top: int | None = None) -> int:
        top = self.d if top is None else top
        j = check_int("j", j, minimum=1)
        if j > top:
            raise fail("j", f"a level in 1..{top}", j)
        return j

    def view(self, j: int) -> FiniteMechanism:
        """Analyst j's channel x ↦ law of (x + U_1 + … + U_j) mod k (j in 1..d), local-DP neighbours."""
        return FiniteMechanism(_circulant(self._view_laws[self._check_level(j) - 1]))

    def added_key(self, j: int) -> FiniteKernel:
        """The kernel z ↦ z + U_{j+1} mod k taking level j's view to level j+1's (j in 1..d−1)."""
        return FiniteKernel(_circulant(self.key_probs[self._check_level(j, self.d - 1)]))

    def exact_epsilons(self) -> tuple[float, ...]:
        """Moved: `markovdp.guarantees.multilevel_exact_epsilons(mechanism)` (a value no longer certifies itself)."""
        raise AttributeError("`MultiLevelMechanism.exact_epsilons()` moved to "
                             "`markovdp.guarantees.multilevel_exact_epsilons(mechanism)`.")

    def predicted_epsilon(self, j: int, rules: tuple[str, ...] = BBGG_T1_RULES) -> float:
        """Moved: `markovdp.guarantees.multilevel_predicted_epsilon(mechanism, j, rules)`."""
        raise AttributeError("`MultiLevelMechanism.predicted_epsilon(j)` moved to "
                             "`markovdp.guarantees.multilevel_predicted_epsilon(mechanism, j)`.")

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        return _circulant(self._view_laws[-1])

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    @property
    def randomness_bits(self) -> float:
        """Σ_j H(U_j) in bits: all key shares of one user."""
        return float(sum(entropy_bits(law) for law in self.key_probs))

    @property
    def trivial_randomness_bits(self) -> float:
        """Σ_j H(RR key(eps_j)) in bits: d independent k-ary RR releases (k = 2: Σ_j H2(e^eps_j/(e^eps_j + 1)))."""
        return float(sum(entropy_bits(rr_key_law(self.k, e)) for e in self.eps_levels))

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) of the public output, in bits."""
        return entropy_bits(self._view_laws[-1])

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, keys): keys[..., j − 1] = U_j, y = (x + Σ_j U_j) mod k (``secure``: see `draw_keys`)."""
        from ..._random import as_generator

        states = check_reporters("x", x, self.k)
        gen = None if secure else as_generator(rng)
        keys = np.stack([draw_keys(law, states.size, rng=gen, secure=secure).reshape(states.shape)
                         for law in self.key_probs], axis=-1)
        return (states + keys.sum(axis=-1)) % self.k, keys

    def sample(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False) -> NDArray[np.int64]:
        """The public output only."""
        return self.sample_with_keys(x, rng=rng, secure=secure)[0]

    def analyst_view(self, y: ArrayLike, keys: ArrayLike, j: int) -> NDArray[np.int64]:
        """What analyst j computes from the public y and its shares U_{j+1..d}: (y − Σ_{i>j} U_i) mod k."""
        j = self._check_level(j)
        ys = check_states("y", y, self.k)
        ks = check_states("keys", keys, self.k)
        if ks.shape != (*ys.shape, self.d):
            raise fail("keys", f"an array of shape {(*ys.shape, self.d)} (one share per level)", f"shape {ks.shape}")
        return (ys - ks[..., j:].sum(axis=-1)) % self.k

    def __repr__(self) -> str:
        return f"MultiLevelMechanism(eps_levels={self.eps_levels!r}, k={self.k})"
