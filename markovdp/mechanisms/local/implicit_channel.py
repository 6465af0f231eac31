"""Exact channels with huge output spaces (2^k bit vectors, C(k, d) subsets), computed on demand (SRP-Tab1).

A frequency oracle's channel Q[x, y] has one row per input x in {0..k−1}. For unary encoding (y in {0,1}^k)
and subset selection (y a d-subset of {0..k−1}) the matrix has 2^k or C(k, d) columns, too many to store, but
its structure gives every exact quantity:

- `prob(x, y)` / `log_prob(x, y)`: one entry, in log space;
- `ldp_kernel()`: a 2 x 4 `FiniteKernel` with the same E_gamma contraction coefficient at every gamma
  (AAC-eta), so `dobrushin(channel, eps)` and `ldp_epsilon(channel, delta)` (AAC-T1) are exact for every
  delta >= 0. Why: a permutation of the labels maps any input pair (x, x') to (0, 1) and the channel onto
  itself, so every pair has the same E_gamma; and on each of the four classes of outputs "is 0 in y, is 1 in
  y" (the bits y_0, y_1; or 0 ∈ S, 1 ∈ S) the ratio Q[0, y] / Q[1, y] is constant, so E_gamma(Q[0] || Q[1]) =
  Σ over classes [Q[0](class) − gamma Q[1](class)]_+: the two rows lumped by class. The same holds for every
  f-divergence between the two rows;
- `to_kernel()`: the whole matrix, for small k (tests compare it with the implicit form).

`markovdp.guarantees.coefficients.dobrushin` and `ldp_epsilon` accept these objects through `ldp_kernel()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_eps, check_int, check_probability_vector, check_reporters, check_states, fail
from ...operators.finite import FiniteKernel
from .entropy import binary_entropy

__all__ = ["SubsetChannel", "UnaryChannel"]

#: Largest declared eps (nats) of the oracles: beyond ~708 the small probabilities (~e^-eps) are no longer
#: normal doubles, so neither the sampler nor the certified channel would be the declared mechanism.
MAX_EPS = 700.0
#: `to_kernel()` refuses matrices with more entries than this (32 MiB).
MAX_ENTRIES = 2**22
#: The oracles' `channel` is the full matrix up to this many outputs (and k * outputs <= 2^21 entries).
MAX_FULL_OUTPUTS = 10**4
_TINY = float(np.finfo(np.float64).tiny)


def check_oracle_eps(value: Any) -> float:
    """A declared eps in [0, MAX_EPS] nats (finite; NaN and inf rejected)."""
    e = check_eps("eps", value)
    if np.ndim(e) != 0:
        raise fail("eps", "a scalar", value, TypeError)
    if e > MAX_EPS:
        raise fail("eps", f"in [0, {MAX_EPS:g}] nats (beyond it e^-eps is not a normal double)", value)
    return float(e)


def check_users(x: ArrayLike, k: int) -> NDArray[np.int64]:
    """The inputs of n >= 1 users: a 1-D array of integers in [0, k)."""
    states = check_reporters("x", x, k)
    if states.ndim != 1:
        raise fail("x", f"a non-empty 1-D array of inputs in [0, {k}) (n >= 1 users)", f"shape {np.shape(states)}")
    return states


def check_n(n: Any) -> int:
    """A number of users (reports) n >= 1."""
    return check_int("n", n, minimum=1)


def bernoulli_split(law: tuple[float, float]) -> tuple[int, float, bool]:
    """(B, R, flip) for the exact byte-wise sampler of a bit with law (P[0], P[1]) (`_unary_kernels`): the
    rarer value v has probability (B + R) / 256 with B an integer and R in [0, 1), and flip = (v == 0)."""
    flip = law[0] < law[1]
    rare = law[0] if flip else law[1]
    digits = math.floor(rare * 256.0)
    return digits, rare * 256.0 - digits, flip


def _law(name: str, value: Any) -> tuple[float, float]:
    arr = check_probability_vector(name, value)
    if arr.shape != (2,):
        raise fail(name, "the law (P[bit = 0], P[bit = 1]) of one bit", f"shape {arr.shape}")
    return float(arr[0]), float(arr[1])


def _log_comb(n: int, r: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)


@dataclass(frozen=True)
class UnaryChannel:
    """Y in {0,1}^k with independent bits: Y_x ~ `true_bit`, Y_j ~ `other_bit` for j != x (SRP-Tab1, RAPPOR).

    Each law is (P[bit = 0], P[bit = 1]), given as both entries so a probability near 1 keeps its complement's
    relative precision. OUE at eps is true_bit = (1/2, 1/2), other_bit = (e^eps, 1)/(e^eps + 1); RAPPOR's
    basic one-time encoding flips every bit with probability 1/(e^(eps/2) + 1). A unary encoding that never
    resets the true bit (true bit = OR of a fair coin and an other-bit draw) is ``true_bit = (a0 b0, 1 − a0 b0)``:
    its exact eps is log(e^eps + 2) (see `ldp_epsilon`). Outputs are indexed by y = Σ_j y_j 2^j.
    """

    k: int
    true_bit: tuple[float, float]
    other_bit: tuple[float, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "true_bit", _law("true_bit", self.true_bit))
        object.__setattr__(self, "other_bit", _law("other_bit", self.other_bit))

    @property
    def num_outputs(self) -> int:
        return 2**self.k

    def log_prob(self, x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
        """log Q[x, y] = Σ_{j != x} log other_bit[y_j] + log true_bit[y_x] (nats); y of shape (k,) or (m, k)
        with entries 0/1, x a scalar or shape (m,)."""
        bits = _bits(y, self.k)
        states = np.broadcast_to(check_states("x", x, self.k), bits.shape[:-1])
        with np.errstate(divide="ignore"):
            log_a, log_b = np.log(self.true_bit), np.log(self.other_bit)
        base = np.where(bits == 1, log_b[1], log_b[0]).sum(axis=-1)
        at_x = np.take_along_axis(bits, states[..., None], axis=-1)[..., 0]
        out = base + np.where(at_x == 1, log_a[1] - log_b[1], log_a[0] - log_b[0])
        return float(out) if out.ndim == 0 else out

    def prob(self, x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
        """Q[x, y] = exp(log_prob(x, y))."""
        return np.exp(self.log_prob(x, y))

    @cached_property
    def _lumped(self) -> FiniteKernel:
        (a0, a1), (b0, b1) = self.true_bit, self.other_bit
        # classes (y_0, y_1) = (0, 0), (0, 1), (1, 0), (1, 1); row 0 has x = 0, row 1 has x = 1
        return FiniteKernel([[a0 * b0, a0 * b1, a1 * b0, a1 * b1], [b0 * a0, b0 * a1, b1 * a0, b1 * a1]])

    def ldp_kernel(self) -> FiniteKernel:
        """Rows x = 0, 1 lumped by (y_0, y_1): the same E_gamma coefficient as the channel at every gamma
        (AAC-eta; module docstring)."""
        return self._lumped

    @property
    def min_entry_log(self) -> float:
        """log of the smallest entry of the full matrix (nats; -inf when some entry is 0)."""
        with np.errstate(divide="ignore"):
            return float(np.log(min(self.true_bit)) + (self.k - 1) * np.log(min(self.other_bit)))

    @property
    def is_small(self) -> bool:
        """Whether `to_kernel()` is cheap (<= 1024 outputs) and exact (every entry a normal double)."""
        return self.k <= 10 and self.min_entry_log >= math.log(_TINY)

    def outputs(self) -> NDArray[np.uint8]:
        """Every output as a row of k bits, in column order (column y has bits y_j = (y >> j) & 1)."""
        _check_size(self.num_outputs, self.k)
        y = np.arange(self.num_outputs, dtype=np.int64)
        return ((y[:, None] >> np.arange(self.k)) & 1).astype(np.uint8)

    def to_kernel(self) -> FiniteKernel:
        """The full k x 2^k matrix (products of the bit probabilities); ValueError above `MAX_ENTRIES`."""
        bits = self.outputs()
        a, b = np.asarray(self.true_bit), np.asarray(self.other_bit)
        rows = [np.prod(np.where(np.arange(self.k) == x, a[bits], b[bits]), axis=1) for x in range(self.k)]
        return FiniteKernel(np.stack(rows))

    @property
    def output_entropy_bits(self) -> float:
        """H(Y | X = x) = H2(true bit) + (k − 1) H2(other bit) bits, the same for every x (each H2 from the
        law's smaller entry, full relative precision at large eps)."""
        return binary_entropy(min(self.true_bit)) + (self.k - 1) * binary_entropy(min(self.other_bit))


@dataclass(frozen=True)
class SubsetChannel:
    """Y a d-subset of {0..k−1}: Q[x, S] ∝ e^eps if x ∈ S, 1 otherwise (Ye–Barg / Wang et al. subset selection).

    P[x ∈ S] = d e^eps / (d e^eps + k − d), and given whether x ∈ S every such subset is equally likely. Outputs
    are the sorted d-subsets in lexicographic order (`itertools.combinations`). 1 <= d <= k − 1.
    """

    k: int
    d: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        d = check_int("d", self.d, minimum=1)
        if d > self.k - 1:
            raise fail("d", f"an integer in [1, k − 1] = [1, {self.k - 1}]", d)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "eps", check_oracle_eps(self.eps))

    @property
    def num_outputs(self) -> int:
        return math.comb(self.k, self.d)

    @cached_property
    def membership(self) -> tuple[float, float]:
        """(P[x ∉ S], P[x ∈ S]) under input x, each to full relative precision."""
        ratio = (self.k - self.d) / self.d * math.exp(-self.eps)  # (k − d) / (d e^eps)
        return ratio / (1.0 + ratio), 1.0 / (1.0 + ratio)

    @cached_property
    def _log_entries(self) -> tuple[float, float]:
        """(log Q[x, S] for x ∉ S, for x ∈ S): each class's mass over its C(k−1, d) or C(k−1, d−1) subsets."""
        out, inn = self.membership
        k, d = self.k, self.d
        return math.log(out) - _log_comb(k - 1, d), math.log(inn) - _log_comb(k - 1, d - 1)

    def log_prob(self, x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
        """log Q[x, S] (nats) for S of shape (d,) or (m, d) (distinct labels, any order), x scalar or (m,)."""
        subsets = _subsets(y, self.k, self.d)
        states = np.broadcast_to(check_states("x", x, self.k), subsets.shape[:-1])
        inside = (subsets == states[..., None]).any(axis=-1)
        out = np.where(inside, self._log_entries[1], self._log_entries[0])
        return float(out) if out.ndim == 0 else out

    def prob(self, x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
        """Q[x, S] = exp(log_prob(x, S))."""
        return np.exp(self.log_prob(x, y))

    @cached_property
    def _lumped(self) -> FiniteKernel:
        out, inn = self.membership
        k, d = self.k, self.d
        # classes (0 ∈ S, 1 ∈ S) = both, only 0, only 1, neither; given x ∈ S (x ∉ S) the other members are a
        # uniform (d − 1)- (d-) subset of the k − 1 other labels
        both, only_x, only_other, neither = (inn * (d - 1), inn * (k - d), out * d, out * (k - 1 - d))
        return FiniteKernel(np.array([[both, only_x, only_other, neither],
                                      [both, only_other, only_x, neither]]) / (k - 1))

    def ldp_kernel(self) -> FiniteKernel:
        """Rows x = 0, 1 lumped by (0 ∈ S, 1 ∈ S): the same E_gamma coefficient as the channel at every gamma
        (AAC-eta; module docstring)."""
        return self._lumped

    @property
    def is_small(self) -> bool:
        """Whether `to_kernel()` is cheap (<= 10^4 outputs, <= 2^21 entries) and exact (normal entries)."""
        if _log_comb(self.k, self.d) > math.log(MAX_FULL_OUTPUTS) + 1.0:  # no huge exact C(k, d) for a "no"
            return False
        m = self.num_outputs
        return m <= MAX_FULL_OUTPUTS and m * self.k <= 2**21 and min(self._log_entries) >= math.log(_TINY)

    def outputs(self) -> NDArray[np.int64]:
        """Every output as a sorted row of d labels, in column order."""
        _check_size(self.num_outputs, self.k)
        return np.array(list(combinations(range(self.k), self.d)), dtype=np.int64).reshape(-1, self.d)

    def to_kernel(self) -> FiniteKernel:
        """The full k x C(k, d) matrix; ValueError above `MAX_ENTRIES` entries."""
        subsets = self.outputs()
        out, inn = self.membership
        entry_in = inn / math.comb(self.k - 1, self.d - 1)
        entry_out = out / math.comb(self.k - 1, self.d)
        inside = (subsets[None, :, :] == np.arange(self.k)[:, None, None]).any(axis=-1)
        return FiniteKernel(np.where(inside, entry_in, entry_out))

    @property
    def output_entropy_bits(self) -> float:
        """H(Y | X = x) = H2(P[x ∈ S]) + P[x ∈ S] log2 C(k−1, d−1) + P[x ∉ S] log2 C(k−1, d) bits (uniform
        within each class), the same for every x."""
        out, inn = self.membership
        spread = inn * _log_comb(self.k - 1, self.d - 1) + out * _log_comb(self.k - 1, self.d)
        return binary_entropy(min(out, inn)) + spread / math.log(2.0)


def _check_size(outputs: int, k: int) -> None:
    if outputs * k > MAX_ENTRIES:
        raise ValueError(f"the full channel has {k} x {outputs} entries, more than MAX_ENTRIES = {MAX_ENTRIES}; "
                         "use the implicit channel (prob, ldp_kernel) instead.")


def _bits(y: ArrayLike, k: int) -> NDArray[np.int64]:
    arr = np.asarray(y)
    if arr.ndim not in (1, 2) or arr.shape[-1] != k:
        raise fail("y", f"bit vectors of length k = {k}, shape ({k},) or (m, {k})", f"shape {arr.shape}")
    if arr.dtype != bool and not np.issubdtype(arr.dtype, np.integer):
        raise fail("y", "bits (bool or integer 0/1)", f"dtype {arr.dtype}", TypeError)
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise fail("y", "bits in {0, 1}", int(arr[(arr < 0) | (arr > 1)][0]))
    return arr


def _subsets(y: ArrayLike, k: int, d: int) -> NDArray[np.int64]:
    arr = np.asarray(y)
    if arr.ndim not in (1, 2) or arr.shape[-1] != d:
        raise fail("y", f"d-subsets (d = {d}) of labels, shape ({d},) or (m, {d})", f"shape {arr.shape}")
    arr = check_states("y", arr, k)
    ordered = np.sort(arr, axis=-1)
    if (np.diff(ordered, axis=-1) == 0).any():
        raise fail("y", "subsets of distinct labels", "a repeated label")
    return arr
