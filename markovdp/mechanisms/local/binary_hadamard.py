"""Binary Hadamard (BH): one randomized-response bit of a public-coin Hadamard column per user (SRP-Tab1, SRP-Est).

Same convention as `hadamard`: K = the smallest power of 2 strictly greater than k, H the Sylvester matrix,
input x uses row x + 1. User i is assigned a column j_i uniform on {0..K−1} by **public** randomness (a shared
seed or the server's choice: the analyst knows it, so it is no secret of the user) and sends the bit
b_i = [H[x_i + 1, j_i] = −1], kept with probability a = e^eps/(e^eps + 1) and flipped otherwise: the only private
randomness is that one biased coin, H2(a) bits, the least of SRP-Tab1's mechanisms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike, as_generator
from ..._validation import check_int, check_reporters, fail, readonly
from ...operators.finite import FiniteKernel
from ..base import AllPairs
from ..finite import MatrixMechanism
from .frequency import _report_counts, _require_informative
from .hadamard import (
    _check_representable,
    _hadamard_order,
    _keep_entropy_bits,
    _keep_probability,
    _sylvester_rows,
    _walsh_hadamard,
)
from .implicit_channel import check_oracle_eps

__all__ = ["BinaryHadamard"]


@dataclass(frozen=True, repr=False)
class BinaryHadamard(MatrixMechanism):
    """BH(k, eps): report (j, b) encoded as y = 2 j + b, with Q(j, b | x) = a/K if b = [H[x + 1, j] = −1], else
    (1 − a)/K; a = e^eps/(e^eps + 1).

    The channel includes the public column j (independent of x): given j it is binary RR, so both the joint
    channel and each column's channel are exactly eps-LDP (column j = 1 separates inputs 0 and 1; AAC-T1).
    Neighbours all input pairs. `eps` in nats, in [0, 700] (`MAX_EPS`). THEORY SRP-Tab1, SRP-Est.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_oracle_eps(self.eps))

    @property
    def hadamard_order(self) -> int:
        """K: the smallest power of 2 strictly greater than k; there are 2K outputs (j, b)."""
        return _hadamard_order(self.k)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        """Q[x, 2 j + b] (k × 2K): a/K where b matches H[x + 1, j] (b = 0 for +1, 1 for −1), (1 − a)/K otherwise."""
        keep, flip = _keep_probability(self.eps)
        order = self.hadamard_order
        _check_representable(repr(self), self.eps, order)
        plus = _sylvester_rows(self.k) > 0
        matrix = np.empty((self.k, 2 * order))
        matrix[:, 0::2] = np.where(plus, keep, flip) / order
        matrix[:, 1::2] = np.where(plus, flip, keep) / order
        return readonly(matrix)

    @property
    def channel(self) -> FiniteKernel:
        """The exact channel Q as a `FiniteKernel` (k inputs, 2K outputs y = 2 j + b)."""
        return self.kernel

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """One report y_i = 2 j_i + b_i per user (numba); j_i = y_i >> 1 is the public column, b_i = y_i & 1.

        The bit is flipped by an exact Bernoulli(1 − a) (1 − a = e^-eps/(1 + e^-eps)); the column is exactly
        uniform on [K], drawn from the same generator here for simulation (`_hadamard_kernels`). x: any shape,
        n >= 1 inputs in [0, k).
        """
        from . import _hadamard_kernels as kernels

        if self.hadamard_order > 2**53:  # floor(2^m random()) is exactly uniform only for m <= 53
            raise fail("k", "below 2^53 for sampling (an exactly uniform public column in [K])", self.k)
        states = check_reporters("x", x, self.k)
        flat = states.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        kernels.binary_hadamard(as_generator(rng), flat, self.hadamard_order, _keep_probability(self.eps)[1], out)
        return out.reshape(states.shape)

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """Unbiased f̂(x) = (1/(n tanh(eps/2))) Σ_i (−1)^{b_i} H[x + 1, j_i] = (H g)[x + 1] / (n tanh(eps/2)), SRP-Est.

        g_j = #{i : j_i = j, b_i = 0} − #{i : j_i = j, b_i = 1}. E[(−1)^{b_i} | x_i, j_i] = (2a − 1) H[x_i + 1, j_i]
        with 2a − 1 = tanh(eps/2), and (1/K) Σ_j H[x + 1, j] H[x' + 1, j] = 1(x = x'), so E[f̂] = f (the inputs'
        empirical frequencies; p for i.i.d. inputs). Each term is ±1/tanh(eps/2): variance
        (1/tanh²(eps/2) − f(x))/n for fixed inputs, (1/tanh²(eps/2) − p(x)²)/n for i.i.d. ones.
        Raises ValueError at eps = 0 (no unbiased estimator).
        """
        _require_informative(self.eps)
        counts, n = _report_counts("reports", reports, 2 * self.hadamard_order)
        signed = counts[0::2] - counts[1::2]
        return _walsh_hadamard(signed)[1:self.k + 1] / (n * math.tanh(self.eps / 2.0))

    @property
    def randomness_bits(self) -> float:
        """Private random bits per user: H2(a), the flip of one bit (SRP-Tab1: BH uses the least).

        The column j is public randomness (shared with the analyst) and is not counted; with it the report's
        entropy is `output_entropy_bits`.
        """
        return _keep_entropy_bits(self.eps)

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) = log2 K + H2(a) bits (SRP's R; the public column contributes log2 K)."""
        return math.log2(self.hadamard_order) + _keep_entropy_bits(self.eps)

    def __repr__(self) -> str:
        return f"BinaryHadamard(k={self.k}, eps={self.eps!r})"
