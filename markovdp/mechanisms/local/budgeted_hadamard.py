"""Binary Hadamard under a randomness budget of R bits per user, 0 <= R <= H2(e^eps/(e^eps + 1)) (SRP-R).

User i holds a public Hadamard column j_i (as in `binary_hadamard`: shared randomness, known to the analyst, not
counted) and reports one symbol b in {0, 1, ⊥} through a two-row channel of its sign s = H[x + 1, j_i]:

- "erasure" (family A): with probability 1 − lam the report is ⊥, else BH's bit (kept with probability
  a = e^eps/(e^eps + 1)); per-user entropy H2(lam) + lam H2(a) bits, informativeness chi = lam tanh²(eps/2);
- "one-sided" (family B): b = 1 with probability rho if s = −1 and rho e^-eps if s = +1, else ⊥; per-user entropy
  H2(rho) bits (H(Y | X = x)) and H2(rho) + rho H2(e^-eps) bits of key; chi = rho (1 − t)² / ((1 + t)(2 − rho (1 + t))),
  t = e^-eps (the best binary-output channel under the budget, docs SRP-R);
- "BH" at R >= H2(a): binary Hadamard itself (lam = 1).

The family with the larger chi at R is used. The l2² risk of the unbiased estimator is (k / chi − ||p||²) / n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike, as_generator
from ..._validation import (
    check_choice,
    check_int,
    check_probability_vector,
    check_range,
    check_reporters,
    fail,
    readonly,
)
from ...operators.finite import FiniteKernel
from ..base import AllPairs
from ..finite import MatrixMechanism
from .entropy import binary_entropy, entropy_bits
from .frequency import _report_counts
from .hadamard import _hadamard_order, _keep_entropy_bits, _keep_probability, _sylvester_rows, _walsh_hadamard
from .implicit_channel import check_oracle_eps
from .keyed import KeyedMechanism, draw_keys

__all__ = ["BUDGETS", "BudgetedHadamard", "budgeted_feature_channel"]

#: What the budget R bounds: "output" = max_x H(Y | X = x, public column) (SRP-D), "key" = H(U) of the key.
BUDGETS = ("output", "key")
#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)
#: R within this relative distance below H2(a) counts as H2(a) (BH): two roundings of H2(a) differ by a few ulps,
#: and the scheme jumps there (docs SRP-R), so a budget "= H2(a)" computed another way must still give BH.
BITS_TOLERANCE = 1e-12
#: Report symbols per public column: 0 (the sign's bit, +1 ↦ 0), 1 (−1 ↦ 1), 2 = ⊥ (no information).
SYMBOLS = 3
#: Key tables g[s, u] (s = 0 for sign +1, 1 for −1) of the two families; keys (⊥, keep, flip) and (⊥, always, iff −).
_ERASURE_TABLE = np.array([[2, 0, 1], [2, 1, 0]], dtype=np.int64)
_ONE_SIDED_TABLE = np.array([[2, 1, 2], [2, 1, 1]], dtype=np.int64)


def check_k_size(k: int) -> int:
    """k below 2^26: the k × 3K channel is built in memory."""
    if k >= 2**26:
        raise fail("k", "below 2^26 (the k × 3K channel is built in memory)", k)
    return k


def _parity(v: NDArray[np.int64]) -> NDArray[np.int64]:
    """popcount(v) mod 2 for 0 <= v < 2^63 (xor folding; numpy >= 1.24 has no bitwise_count)."""
    v = v.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        v ^= v >> shift
    return v & 1


def _h_erasure(lam: float, keep_bits: float) -> float:
    """H2(lam) + lam H2(a): the entropy of (1 − lam, lam a, lam (1 − a)) in bits."""
    return binary_entropy(lam) + lam * keep_bits


def _h_one_sided_key(rho: float, eps: float) -> float:
    """H(1 − rho, rho t, rho (1 − t)) = H2(rho) + rho H2(t) bits, t = e^-eps (the nested key of family B)."""
    return binary_entropy(rho) + rho * _keep_entropy_bits(eps)


def _increasing_root(f, target: float, hi: float) -> float:
    """An x in [0, hi] with f(x) <= target, within a relative 1e-13 of the root (f increasing on [0, hi],
    f(0) = 0 <= target < f(hi))."""
    from scipy.optimize import brentq

    if target <= 0.0:
        return 0.0
    # the root is at least target / (log2(1/target) + 2): an absolute tolerance of target · 1e-18 is relative
    x = float(brentq(lambda v: f(v) - target, 0.0, hi, xtol=max(target * 1e-18, 1e-320), rtol=4 * np.finfo(float).eps,
                     maxiter=2000))
    step = 1e-15
    while f(x) > target:  # the budget is a hard constraint: move below the float root (relative steps ×4)
        x, step = (x * (1.0 - step) if step < 0.5 else 0.0), 4.0 * step
    return x


@dataclass(frozen=True)
class FeatureChannel:
    """The two rows Q(b | s) over b in {0, 1, ⊥} of one user's report given its sign s (SRP-R), with the key
    (`table` g[s, u], `key_probs` q) that realises them, the family, its parameter (lam or rho) and chi."""

    family: str
    parameter: float
    rows: NDArray[np.float64]
    table: NDArray[np.int64]
    key_probs: NDArray[np.float64]
    chi: float


def budgeted_feature_channel(eps: float, R: float, budget: str = "output") -> FeatureChannel:
    """The per-user channel of `BudgetedHadamard` at (eps, R): the family (erasure, one-sided or BH) with the
    largest chi = Σ_b D(b)² / M(b) (D = (Q(b|+) − Q(b|−))/2, M = (Q(b|+) + Q(b|−))/2) whose entropy is <= R bits.

    THEORY: SRP-R. `eps` in [0, 700] nats, `R` >= 0 bits (R >= H2(a) (1 − 1e-12) > 0 gives BH, `BITS_TOLERANCE`),
    `budget` in `BUDGETS`.
    """
    e = check_oracle_eps(eps)
    checked = check_range("R", R, low=0.0, allowed=">= 0 bits and finite")
    if checked.ndim != 0:
        raise fail("R", "a scalar number of bits", R, TypeError)
    r = float(checked)
    check_choice("budget", budget, BUDGETS)
    keep, flip = _keep_probability(e)
    keep_bits = _keep_entropy_bits(e)
    tanh2 = math.tanh(e / 2.0) ** 2
    if r > 0.0 and r >= keep_bits * (1.0 - BITS_TOLERANCE):  # BH: H(Y | X = x, j) = H(U) = H2(a)
        return _erasure(1.0, keep, flip, tanh2)
    # family A: H2(lam) + lam H2(a) rises from 0 to its maximum at lam* = 1/(1 + 2^-H2(a)), then falls to H2(a)
    top = 1.0 / (1.0 + 2.0 ** -keep_bits)
    lam = _increasing_root(lambda v: _h_erasure(v, keep_bits), r, top)
    t = math.exp(-e)
    if budget == "output":  # family B: H(Y | X = x) = H2(rho) for the sign −1 (the larger rate)
        rho = _increasing_root(binary_entropy, r, 0.5)
    else:
        rho = _increasing_root(lambda v: _h_one_sided_key(v, e), r, 0.5)
    chi_b = rho * (1.0 - t) ** 2 / ((1.0 + t) * (2.0 - rho * (1.0 + t)))
    if chi_b > lam * tanh2:
        rows = np.array([[0.0, rho * t, 1.0 - rho * t], [0.0, rho, 1.0 - rho]])
        probs = np.array([1.0 - rho, rho * t, rho * (1.0 - t)])
        return FeatureChannel("one-sided", rho, readonly(rows), readonly(_ONE_SIDED_TABLE), readonly(probs), chi_b)
    return _erasure(lam, keep, flip, tanh2)


def _erasure(lam: float, keep: float, flip: float, tanh2: float) -> FeatureChannel:
    rows = np.array([[lam * keep, lam * flip, 1.0 - lam], [lam * flip, lam * keep, 1.0 - lam]])
    probs = np.array([1.0 - lam, lam * keep, lam * flip])
    family = "BH" if lam == 1.0 else "erasure"
    return FeatureChannel(family, lam, readonly(rows), readonly(_ERASURE_TABLE), readonly(probs), lam * tanh2)


@dataclass(frozen=True, repr=False)
class BudgetedHadamard(MatrixMechanism):
    """SRP-R(k, eps, R): report y = 3 j + b, Q(j, b | x) = rows[s(x, j), b] / K with s(x, j) = [H[x + 1, j] = −1].

    The public column j is uniform on [K] (K the smallest power of 2 > k); given j the report is the two-row
    channel `feature` of the sign, eps-LDP exactly (both families' column ratios are at most e^eps, docs SRP-R),
    with at most R bits per user: ``budget="output"`` bounds max_x H(Y | X = x, j) (SRP-D),
    ``budget="key"`` bounds the key entropy H(U) of the realisation Y = g(s, U). R = 0: every report is ⊥
    (``ldp_epsilon`` 0; `estimate` returns the uniform law); R >= H2(e^eps/(e^eps + 1)): binary Hadamard.
    Neighbours all input pairs. `eps` in nats in [0, 700]; `R` in bits. THEORY: SRP-R, SRP-D, SRP-Est.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float
    R: float
    budget: str = "output"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        check_k_size(self.k)
        feature = budgeted_feature_channel(self.eps, self.R, self.budget)
        used = feature.rows.max(axis=0) > 0  # a used symbol needs both rows normal: an underflow to 0 would
        smallest = float(feature.rows[:, used].min()) / _hadamard_order(self.k)  # make its ratio infinite
        if smallest < _TINY:  # exact log-ratios need normal doubles (as for BH, `_check_representable`)
            raise fail("R", f"0 or large enough at eps = {float(self.eps)!r}, k = {self.k} that the channel's "
                       f"smallest probability (lam (1 − a)/K or rho e^-eps/K) is a normal double", self.R)
        object.__setattr__(self, "eps", float(self.eps))
        object.__setattr__(self, "R", float(self.R))
        object.__setattr__(self, "feature", feature)

    @property
    def hadamard_order(self) -> int:
        """K: the number of public columns; there are 3K outputs (j, b)."""
        return _hadamard_order(self.k)

    @property
    def family(self) -> str:
        """"erasure", "one-sided" or "BH" (see the module docstring)."""
        return self.feature.family

    @property
    def chi(self) -> float:
        """chi = Σ_b D(b)² / M(b) of the per-user channel: 1/chi is the second moment of one user's unbiased term."""
        return self.feature.chi

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        """Q[x, 3 j + b] = rows[s, b] / K, s = 0 where H[x + 1, j] = +1 and 1 where it is −1 (k × 3K)."""
        signs = (_sylvester_rows(self.k) < 0).astype(np.int64)
        rows = self.feature.rows
        return readonly((rows[signs] / self.hadamard_order).reshape(self.k, SYMBOLS * self.hadamard_order))

    @property
    def channel(self) -> FiniteKernel:
        """The exact channel as a `FiniteKernel` (k inputs, 3K outputs y = 3 j + b)."""
        return self.kernel

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    def user_mechanism(self, j: int) -> KeyedMechanism:
        """The keyed mechanism Y = g(s(X, j), U) = b of a user with public column j (k inputs, outputs {0, 1, 2})."""
        col = check_int("j", j, minimum=0)
        if col >= self.hadamard_order:
            raise fail("j", f"a public column in [0, {self.hadamard_order - 1}]", col)
        signs = (_sylvester_rows(self.k)[:, col] < 0).astype(np.int64)
        return KeyedMechanism(self.feature.table[signs], self.feature.key_probs, n_outputs=SYMBOLS)

    @property
    def randomness_bits(self) -> float:
        """H(U) in bits: the private key of one user (the public column is not counted)."""
        return entropy_bits(self.feature.key_probs)

    @property
    def user_output_entropy_bits(self) -> float:
        """max_{x, j} H(Y | X = x, J = j) in bits: SRP-D's R of each user's channel (<= `randomness_bits`)."""
        return max(entropy_bits(row) for row in self.feature.rows)

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) = log2 K + `user_output_entropy_bits` (the public column contributes log2 K)."""
        return math.log2(self.hadamard_order) + self.user_output_entropy_bits

    @cached_property
    def estimator_weights(self) -> NDArray[np.float64]:
        """w(b) = D(b) / (M(b) chi) (0 where M(b) = 0): E[w(B) | s] = ±1, E[w(B)²] = 1/chi for a balanced sign."""
        plus, minus = self.feature.rows
        mean, half_gap = (plus + minus) / 2.0, (plus - minus) / 2.0
        if self.chi == 0.0:
            return readonly(np.zeros(SYMBOLS))
        return readonly(np.where(mean > 0, half_gap / np.where(mean > 0, mean, 1.0) / self.chi, 0.0))

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """y_i = 3 j_i + g(s_i, u_i): j_i uniform on [K] (public), u_i ~ q (`draw_keys`, exact), s_i the sign bit
        parity((x_i + 1) & j_i). x: any shape, inputs in [0, k)."""
        states = check_reporters("x", x, self.k)
        gen = as_generator(rng)
        flat = states.ravel()
        cols = gen.integers(0, self.hadamard_order, size=flat.size)
        signs = _parity((flat + 1) & cols)
        keys = draw_keys(self.feature.key_probs, flat.size, rng=gen)
        return (SYMBOLS * cols + self.feature.table[signs, keys]).reshape(states.shape)

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """f̂(x) = (1/n) Σ_i H[x + 1, j_i] w(b_i) = (H g)[x + 1] / n with g_j = Σ_b w(b) #{i : j_i = j, b_i = b}.

        Unbiased for the inputs' frequencies when chi > 0 (E[H[x + 1, j] w(B)] = 1(x = X) over the uniform
        public j); per-user second moment 1/chi, so the l2² risk is (k/chi − ||p||²)/n for i.i.d. inputs
        (`exact_risk`). At chi = 0 (R = 0 or eps = 0) the reports carry no information and the estimate is
        the uniform law 1/k (biased; risk ||p − 1/k||²).
        """
        counts, n = _report_counts("reports", reports, SYMBOLS * self.hadamard_order)
        if self.chi == 0.0:
            return np.full(self.k, 1.0 / self.k)
        signed = counts.reshape(self.hadamard_order, SYMBOLS) @ self.estimator_weights
        return _walsh_hadamard(signed)[1:self.k + 1] / n

    def exact_risk(self, p: ArrayLike | None = None, n: int = 1) -> float:
        """E||f̂ − p||² = (k/chi − ||p||²)/n for n i.i.d. inputs X ~ p (default uniform) and uniform public
        columns; ||p − 1/k||² at chi = 0 (the uniform guess). THEORY: SRP-R."""
        law = np.full(self.k, 1.0 / self.k) if p is None else check_probability_vector("p", p)
        if law.size != self.k:
            raise fail("p", f"a probability vector of length k = {self.k}", f"length {law.size}")
        users = check_int("n", n, minimum=1)
        if self.chi == 0.0:
            return float(np.sum((law - 1.0 / self.k) ** 2))
        return (self.k / self.chi - float(law @ law)) / users

    def __repr__(self) -> str:
        return f"BudgetedHadamard(k={self.k}, eps={self.eps!r}, R={self.R!r}, budget={self.budget!r})"
