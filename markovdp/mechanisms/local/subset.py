"""Subset selection (Ye & Barg 2018; Wang et al. 2016): report a d-subset of {0..k−1} (SRP-Tab1, SRP-Est).

User x reports a d-subset S that contains x with probability d e^eps / (d e^eps + k − d); given whether x ∈ S,
every such subset is equally likely, so Q[x, S] ∝ e^eps if x ∈ S, 1 otherwise: exactly eps-LDP.

The subset size is Ye–Barg's d = ceil(k / (e^eps + 1)) (computed in floating point; 1 <= d <= ceil(k/2)), or any
d in [1, k − 1] given as ``d=``. d = 1 is k-ary randomized response.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike, as_generator
from ..._validation import check_int, fail
from ...operators.finite import FiniteKernel
from .frequency import _bitmap_counts, _checked_support_counts, _estimator_gap, _support_rates
from .implicit_channel import SubsetChannel, check_n, check_oracle_eps, check_users
from .implicit_mechanism import ImplicitOracle

__all__ = ["SubsetSelection"]


@dataclass(frozen=True)
class SubsetSelection(ImplicitOracle):
    """Subset selection with d = ceil(k / (e^eps + 1)) (or the given `d`), eps in nats.

    THEORY: SRP-Tab1 (randomness per user), SRP-Est (the estimator), AAC-T1 (exact certification).
    Inputs {0..k−1}, k >= 2; eps in [0, 700] (`MAX_EPS`). Reports are (n, k) ``uint8`` bitmaps: row i is the
    indicator of user i's subset S_i (d ones), as unary-encoding reports are; ``np.nonzero(reports)[1].reshape(n,
    d)`` lists the members in increasing order.
    """

    k: int
    eps: float
    d: int | None = None

    def __post_init__(self) -> None:
        k = check_int("k", self.k, minimum=2)
        eps = check_oracle_eps(self.eps)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "eps", eps)
        d = math.ceil(k / (math.exp(eps) + 1.0)) if self.d is None else check_int("d", self.d, minimum=1)
        if d > k - 1:
            raise fail("d", f"an integer in [1, k − 1] = [1, {k - 1}]", d)
        object.__setattr__(self, "d", d)

    # ------------------------------------------------------------------------------------------ the channel

    @cached_property
    def implicit_channel(self) -> SubsetChannel:
        """The channel on d-subsets as a `SubsetChannel` (exact entries and certification for every k)."""
        return SubsetChannel(self.k, self.d, self.eps)

    @cached_property
    def channel(self) -> FiniteKernel | SubsetChannel:
        """Q[x, S], subsets in lexicographic order: the full `FiniteKernel` when small and exact (C(k, d) <=
        10^4, k C(k, d) <= 2^21, entries normal doubles), else the `SubsetChannel`. Either way
        ``ldp_epsilon(channel)`` is the exact eps (AAC-T1)."""
        implicit = self.implicit_channel
        return implicit.to_kernel() if implicit.is_small else implicit

    @property
    def p(self) -> float:
        """P[v ∈ S | X = v] = d e^eps / (d e^eps + k − d)."""
        return self.implicit_channel.membership[1]

    @property
    def q(self) -> float:
        """P[v ∈ S | X = x] for x != v: p (d − 1)/(k − 1) + (1 − p) d/(k − 1)."""
        out, inn = self.implicit_channel.membership
        return (inn * (self.d - 1) + out * self.d) / (self.k - 1)

    def ldp_kernel(self) -> FiniteKernel:
        """The channel's 2 x 4 lumped kernel (`SubsetChannel.ldp_kernel`): ``ldp_epsilon(oracle)`` and
        ``dobrushin(oracle, eps)`` accept the oracle itself through it (AAC-eta, AAC-T1)."""
        return self.implicit_channel.ldp_kernel()

    def output_index(self, reports: ArrayLike) -> NDArray[np.int64]:
        """The rank of each reported subset s_0 < … < s_{d−1} among the d-subsets in lexicographic order (the
        columns of `channel`): C(k, d) − 1 − Σ_i C(k − 1 − s_i, d − i)."""
        bits = np.asarray(reports)
        _bitmap_counts(bits, self.k, "subset bitmaps", ones=self.d)  # shape, kind, 0/1 and d ones per row
        if math.comb(self.k, self.d) >= 2**63:
            raise fail("k", f"small enough that the C(k, d) = C({self.k}, {self.d}) subsets have int64 indices",
                       self.k)
        members = np.nonzero(bits)[1].reshape(-1, self.d)
        ranks = [math.comb(self.k, self.d) - 1 - sum(math.comb(self.k - 1 - int(s), self.d - i)
                                                    for i, s in enumerate(row)) for row in members]
        return np.array(ranks, dtype=np.int64)

    # ------------------------------------------------------------------------------------------ sampling

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.uint8]:
        """One d-subset per user as a bitmap (numba): x[i] joins with probability p, then the other members are
        a uniform subset of the remaining labels (Floyd's algorithm, exact uniform integers). x: shape (n,),
        n >= 1; k <= 2^31 + 1 (the labels' 32-bit sampler). Returns shape (n, k), ``uint8``, d ones per row."""
        from . import _subset_kernels

        if self.k - 1 > 2**31:
            raise ValueError(f"`k` must be <= 2^31 + 1 to sample (bitmaps of k bytes per user); got {self.k}.")
        states = check_users(x, self.k)
        out = np.zeros((states.size, self.k), dtype=np.uint8)
        out_p, in_p = self.implicit_channel.membership
        flip = in_p > out_p  # draw the rarer event, at full relative precision
        width = _subset_kernels.chunk_width(self.k - 1)
        _subset_kernels.sample_subsets(as_generator(rng), states, self.d, out_p if flip else in_p, flip, width, out)
        return out

    # ------------------------------------------------------------------------------------------ estimation

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """The unbiased frequency estimate f̂_v = (c_v / n − q) / (p − q), c_v = #{i: v ∈ S_i} (SRP-Est).

        E f̂_v = f_v = #{i: x_i = v} / n for any fixed inputs; Var f̂_v = (f_v p (1 − p) + (1 − f_v) q (1 − q))
        / (n (p − q)²) (`estimator_variance`). May be negative; sums to 1 only in expectation. reports: shape
        (n, k), n >= 1, 0/1 rows with d ones each (`sample`). ValueError at eps = 0 (p = q).
        """
        counts, n = _bitmap_counts(reports, self.k, "subset bitmaps", ones=self.d)
        return self.estimate_counts(counts, n)

    def count_statistics(self, reports: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(c, A): the counts c_v = #{i: v ∈ S_i} of the n reports and the k × k matrix A with E[c / n] = f A
        (A[x, v] = p if v = x, q otherwise): what the iterative Bayesian update reads (`ibu_estimate`)."""
        counts, _ = _bitmap_counts(reports, self.k, "subset bitmaps", ones=self.d)
        return counts, self.count_rates

    @property
    def count_rates(self) -> NDArray[np.float64]:
        """A[x, v] = P(report supports v | X = x): p on the diagonal, q off it (k × k)."""
        return _support_rates(self.k, self.p, self.q)

    def estimate_counts(self, counts: ArrayLike, n: int) -> NDArray[np.float64]:
        """f̂ = (counts / n − q) / (p − q) from c_v = #{reports containing v} of n reports (`estimate`)."""
        c, users = _checked_support_counts(counts, self.k, n, "counts")
        return (c / users - self.q) / self._gap()

    def estimator_variance(self, freq: ArrayLike, n: int) -> NDArray[np.float64]:
        """Var f̂_v = (f_v p (1 − p) + (1 − f_v) q (1 − q)) / (n (p − q)²) for true frequencies `freq`."""
        f = np.asarray(freq, dtype=np.float64)
        if f.shape != (self.k,):
            raise fail("freq", f"a length-{self.k} frequency vector", f"shape {f.shape}")
        out, inn = self.implicit_channel.membership
        q = self.q
        return (f * inn * out + (1.0 - f) * q * (1.0 - q)) / (check_n(n) * self._gap() ** 2)

    def _gap(self) -> float:
        return _estimator_gap(self.p, self.q)

    # ------------------------------------------------------------------------------------------ randomness

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) = H2(p) + p log2 C(k−1, d−1) + (1 − p) log2 C(k−1, d) bits (SRP's R)."""
        return self.implicit_channel.output_entropy_bits

    @property
    def randomness_bits(self) -> float:
        """Private random bits per user, equal to `output_entropy_bits`: every row of the channel is row 0 with
        labels 0 and x swapped, so the key U = "the report of input 0" and Y = U with 0 and x swapped is a keyed
        realisation (SRP-D) with H(U) = H(Y | X = x), the least any key can have. No public coins."""
        return self.output_entropy_bits

    def __repr__(self) -> str:
        return f"SubsetSelection(k={self.k}, eps={self.eps!r}, d={self.d})"
