"""Multi-level privacy with Hadamard-order utility at every level: binary Hadamard plus additive bit keys
(SRP-ML-HR).

User i gets a public column c_i uniform on {0..K−1} (K = the smallest power of 2 strictly greater than k, the
`binary_hadamard` convention; public randomness, not counted) and publishes y = 2 c + B with the bit
B = h(x, c) ⊕ U_1 ⊕ … ⊕ U_d, h(x, c) = [H[x + 1, c] = −1]. The keys are those of the binary
`MultiLevelMechanism(eps_levels, k=2)`: U_1 the binary RR key of eps_1, U_{j+1} the added key taking eps_j to
eps_{j+1}. Analyst j holds U_{j+1..d} and so sees h(x, c) ⊕ U_1 ⊕ … ⊕ U_j, whose bit channel is binary RR at
eps_j: analyst j's view is exactly `BinaryHadamard(k, eps_j)`. Each view's eps is the max over columns of the
bit's (the column is independent of x), certified exactly by `ldp_epsilon` (AAC-T1); analyst j's unbiased
estimate is BH's, with l2² risk (k/λ_j² − ||p||²)/n, λ_j = tanh(eps_j/2) — HR's risk at eps_j (SRP-Est). The
private randomness is Σ_j H(U_j), that of the binary scheme, against Σ_j H2(e^eps_j/(e^eps_j + 1)) for d
independent BH releases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._profiles import pure_epsilon
from ..._random import RNGLike, as_generator
from ..._validation import check_int, check_probability_vector, check_reporters, check_states, fail, readonly
from ...operators.finite import FiniteKernel
from ...spaces import IncompatibleSpaces
from ..base import AllPairs
from ..finite import FiniteMechanism, MatrixMechanism
from .frequency import _report_counts
from .hadamard import _hadamard_order, _keep_entropy_bits, _sylvester_rows, _walsh_hadamard
from .keyed import draw_keys
from .multilevel import MultiLevelMechanism, _check_levels
from .recoverable import _circulant

__all__ = ["MultiLevelHadamard"]


def _parity(v: NDArray[np.int64]) -> NDArray[np.int64]:
    """popcount(v) mod 2, elementwise."""
    return (np.bitwise_count(v.astype(np.uint64)) & 1).astype(np.int64)


@dataclass(frozen=True, repr=False)
class MultiLevelHadamard(MatrixMechanism):
    """Public y = 2 c + (h(x, c) ⊕ U_1 ⊕ … ⊕ U_d) with a public column c (module docstring; SRP-ML-HR): analyst j,
    holding U_{j+1..d}, sees exactly BinaryHadamard(k, eps_j). `eps_levels` (nats) strictly decreasing, > 0,
    finite, eps_1 up to ~708; `k` >= 2. The mechanism's own channel (`matrix`, k × 2K) is the public view (level
    d); `view(j)` is level j's.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    eps_levels: tuple[float, ...]
    k: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps_levels", _check_levels(self.eps_levels))
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        self.bits  # noqa: B018 -- build (and check) the key laws now

    @cached_property
    def bits(self) -> MultiLevelMechanism:
        """The binary scheme whose keys flip the bit: `MultiLevelMechanism(levels, k=2)`, each level the first of
        eps_j − i · step (i = 0..63, step = max(ulp(eps_j), 2^-54)) at which the float level-j bit law is exactly
        eps_j-LDP (`pure_epsilon` of its two entries <= eps_j, and fl(e^eps_j) · min >= max, so
        ``ldp_epsilon(view(j)) <= eps_j``; the convolution's rounding can lift the ratio by a few 1e-16). Level
        j's law depends on levels 1..j only, so the levels are settled in order."""
        levels = list(self.eps_levels)
        for j, target in enumerate(self.eps_levels):
            step = max(math.ulp(target), 2.0**-54)
            for i in range(64):
                levels[j] = target - i * step
                if levels[j] <= 0.0 or (j and levels[j] >= levels[j - 1]):
                    break
                law = MultiLevelMechanism(tuple(levels), k=2)._view_laws[j]
                hi, lo = float(law.max()), float(law.min())
                if pure_epsilon(hi, lo) <= target and math.exp(target) * lo >= hi:
                    break
            else:
                levels[j] = -1.0
            if levels[j] <= 0.0 or (j and levels[j] >= levels[j - 1]):
                raise fail("eps_levels", "levels apart and large enough (about 1e-14 or more) that each level's "
                           "bit law is exactly eps_j-LDP in floats for some eps_j − i max(ulp, 2^-54), i < 64",
                           self.eps_levels)
        return MultiLevelMechanism(tuple(levels), k=2)

    @property
    def d(self) -> int:
        """The number of levels (analysts)."""
        return len(self.eps_levels)

    @property
    def hadamard_order(self) -> int:
        """K: the smallest power of 2 strictly greater than k; there are 2K outputs y = 2 c + b."""
        return _hadamard_order(self.k)

    @property
    def key_probs(self) -> tuple[NDArray[np.float64], ...]:
        """The laws of the bit keys U_1, …, U_d (those of `bits`)."""
        return self.bits.key_probs

    def _check_level(self, j: int, top: int | None = None) -> int:
        top = self.d if top is None else top
        j = check_int("j", j, minimum=1)
        if j > top:
            raise fail("j", f"a level in 1..{top}", j)
        return j

    def _bit_law(self, j: int) -> NDArray[np.float64]:
        """The law of U_1 ⊕ … ⊕ U_j on {0, 1} (the binary scheme's level-j key)."""
        return self.bits._view_laws[j - 1]

    def _view_matrix(self, j: int) -> NDArray[np.float64]:
        law = self._bit_law(j)
        order = self.hadamard_order
        plus = _sylvester_rows(self.k) > 0  # h(x, c) = 0
        out = np.empty((self.k, 2 * order))
        out[:, 0::2] = np.where(plus, law[0], law[1]) / order
        out[:, 1::2] = np.where(plus, law[1], law[0]) / order
        return readonly(out)

    def view(self, j: int) -> FiniteMechanism:
        """Analyst j's channel x ↦ law of 2 c + (h(x, c) ⊕ U_1 ⊕ … ⊕ U_j) (j in 1..d), local-DP neighbours."""
        return FiniteMechanism(self._view_matrix(self._check_level(j)))

    def added_key(self, j: int) -> FiniteKernel:
        """The kernel 2 c + b ↦ 2 c + (b ⊕ U_{j+1}) taking level j's view to level j+1's (j in 1..d−1)."""
        law = self.key_probs[self._check_level(j, self.d - 1)]
        return FiniteKernel(np.kron(np.eye(self.hadamard_order), _circulant(law)))

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        return self._view_matrix(self.d)

    @property
    def channel(self) -> FiniteKernel:
        """The public view (level d) as a `FiniteKernel`."""
        return self.kernel

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    def signal(self, j: int) -> float:
        """λ_j = P(bit kept) − P(bit flipped) of level j's key sum (tanh(eps_j/2) to rounding)."""
        law = self._bit_law(self._check_level(j))
        return float(law[0] - law[1])

    @property
    def randomness_bits(self) -> float:
        """Σ_j H(U_j) in bits: the private key bits of one user (the public column is not counted)."""
        return self.bits.randomness_bits

    @property
    def trivial_randomness_bits(self) -> float:
        """Σ_j H2(e^eps_j/(e^eps_j + 1)) in bits: d independent BinaryHadamard releases."""
        return float(sum(_keep_entropy_bits(e) for e in self.eps_levels))

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) of the public output: log2 K + H(level-d bit key) bits."""
        return float(np.log2(self.hadamard_order)) + self.bits.output_entropy_bits

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, keys): c uniform on [K] from `rng` (public coin), keys[..., j − 1] = U_j (``secure``: from the OS
        CSPRNG, `draw_keys`), y = 2 c + (h(x, c) ⊕ U_1 ⊕ … ⊕ U_d)."""
        if self.hadamard_order > 2**53:
            raise fail("k", "below 2^53 for sampling (an exactly uniform public column in [K])", self.k)
        states = check_reporters("x", x, self.k)
        gen = as_generator(rng)
        columns = gen.integers(0, self.hadamard_order, size=states.shape, dtype=np.int64)
        keys = np.stack([draw_keys(law, states.size, rng=None if secure else gen, secure=secure
                                   ).reshape(states.shape) for law in self.key_probs], axis=-1)
        bit = (_parity((states + 1) & columns) + keys.sum(axis=-1)) % 2
        return 2 * columns + bit, keys

    def sample(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False) -> NDArray[np.int64]:
        """The public output only."""
        return self.sample_with_keys(x, rng=rng, secure=secure)[0]

    def analyst_view(self, y: ArrayLike, keys: ArrayLike, j: int) -> NDArray[np.int64]:
        """What analyst j computes from the public y and its shares U_{j+1..d}: 2 c + (b ⊕ U_{j+1} ⊕ … ⊕ U_d)."""
        j = self._check_level(j)
        ys = check_states("y", y, 2 * self.hadamard_order)
        ks = check_states("keys", keys, 2)
        if ks.shape != (*ys.shape, self.d):
            raise fail("keys", f"an array of shape {(*ys.shape, self.d)} (one share per level)", f"shape {ks.shape}")
        return ys ^ (ks[..., j:].sum(axis=-1) % 2)

    def estimate(self, reports: ArrayLike, j: int | None = None) -> NDArray[np.float64]:
        """Analyst j's unbiased f̂ = (H g)[x + 1] / (n λ_j) from n >= 1 reports of level j (default d, the public):
        BinaryHadamard's estimator with λ_j = `signal(j)` (g_c = #{c, b = 0} − #{c, b = 1}; SRP-Est)."""
        level = self.d if j is None else self._check_level(j)
        counts, n = _report_counts("reports", reports, 2 * self.hadamard_order)
        signed = counts[0::2] - counts[1::2]
        return _walsh_hadamard(signed)[1:self.k + 1] / (n * self.signal(level))

    def l2_risk(self, j: int, p: ArrayLike, n: int) -> float:
        """E||f̂ − p||² of analyst j's `estimate` from n i.i.d. inputs ~ p: (k/λ_j² − ||p||²)/n (each user's term
        is ±1/λ_j with mean p(x))."""
        level = self._check_level(j)
        probs = check_probability_vector("p", p)
        if probs.size != self.k:
            raise IncompatibleSpaces(f"`p` has {probs.size} entries but the mechanism has k = {self.k} inputs.")
        users = check_int("n", n, minimum=1)
        return float((self.k / self.signal(level) ** 2 - probs @ probs) / users)

    def __repr__(self) -> str:
        return f"MultiLevelHadamard(eps_levels={self.eps_levels!r}, k={self.k})"
