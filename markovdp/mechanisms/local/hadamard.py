"""Hadamard response (Acharya, Sun & Zhang 2019): a frequency oracle with K <= 2k outputs (SRP-Tab1, SRP-Est).

Convention: K = the smallest power of 2 strictly greater than k (K = 2^bit_length(k), so k < K <= 2k) and H the
K×K Sylvester Hadamard matrix, H[r, j] = (−1)^popcount(r & j) (`scipy.linalg.hadamard`). Input x uses row r = x + 1
(row 0, all ones, carries no information); C_x = {j : H[x + 1, j] = +1} has K/2 columns, and any two distinct
rows r, r' >= 1 agree on exactly K/2 columns, so |C_x ∩ C_x'| = K/4 for x != x'.
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
from .implicit_channel import check_oracle_eps

__all__ = ["HadamardResponse"]

#: The smallest positive normal double: a channel entry below it is not exact (subnormal) or underflows to 0.
_TINY = float(np.finfo(np.float64).tiny)


def _hadamard_order(k: int) -> int:
    """K = the smallest power of 2 strictly greater than k: rows 1..k of H_K are the inputs' rows."""
    return 1 << k.bit_length()


def _keep_probability(eps: float) -> tuple[float, float]:
    """(a, 1 − a) with a = e^eps / (e^eps + 1), both without cancellation (1 − a = e^-eps / (1 + e^-eps))."""
    t = math.exp(-eps)
    return 1.0 / (1.0 + t), t / (1.0 + t)


def _keep_entropy_bits(eps: float) -> float:
    """H2(e^eps / (e^eps + 1)) in bits, as log2(1 + e^-eps) + eps (1 − a) / ln 2 (SRP-D's key).

    Equal to ``binary_entropy(a)``; this form stays exact when a rounds to 1 (eps >~ 37), where
    ``binary_entropy(a)`` returns 0.
    """
    return (math.log1p(math.exp(-eps)) + eps * _keep_probability(eps)[1]) / math.log(2.0)


def _sylvester_rows(k: int) -> NDArray[np.int8]:
    """Rows 1..k of the Sylvester Hadamard matrix H_K (K = `_hadamard_order(k)`), entries ±1."""
    from scipy.linalg import hadamard

    return hadamard(_hadamard_order(k), dtype=np.int8)[1:k + 1]


def _walsh_hadamard(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """H v for the Sylvester matrix of order len(v) (a power of 2): the fast transform, O(K log K)."""
    a = np.array(v, dtype=np.float64)
    h = 1
    while h < a.size:
        pairs = a.reshape(-1, 2, h)  # index = block · 2h + s · h + t: s is the bit of weight h
        a = np.stack((pairs[:, 0] + pairs[:, 1], pairs[:, 0] - pairs[:, 1]), axis=1).reshape(-1)
        h *= 2
    return a


def _check_representable(name: str, eps: float, scale: float) -> None:
    """Refuse a channel whose smallest entry (1 − a)/scale is not a normal double: its matrix would not be exact."""
    if _keep_probability(eps)[1] / scale < _TINY:
        top = math.log(1.0 / (scale * _TINY))  # (1 − a)/scale >= TINY holds for eps below about this
        raise NotImplementedError(
            f"{name}.channel: the smallest channel entry at eps = {eps!r} is below the smallest normal double "
            f"(2.2250738585072014e-308), so the matrix would not be exact; it is exact for eps <= {top:.1f}. "
            "Sampling, estimates and entropies do not need the matrix.")


@dataclass(frozen=True, repr=False)
class HadamardResponse(MatrixMechanism):
    """Hadamard response HR(k, eps): Q(y | x) = 2a/K for y ∈ C_x, 2(1 − a)/K otherwise, a = e^eps/(e^eps + 1).

    Outputs y ∈ {0..K−1} (K = `hadamard_order`, see the module for the convention); exactly eps-LDP (every
    column y >= 1 lies in C_x for some inputs and not for others: the likelihood ratio is e^eps; AAC-T1),
    neighbours all input pairs. `eps` in nats, in [0, 700] (`MAX_EPS`). THEORY SRP-Tab1, SRP-Est.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_oracle_eps(self.eps))

    @property
    def hadamard_order(self) -> int:
        """K: the smallest power of 2 strictly greater than k (k < K <= 2k)."""
        return _hadamard_order(self.k)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        """Q[x, y] (k × K): 2a/K where H[x + 1, y] = +1, 2(1 − a)/K where it is −1."""
        keep, flip = _keep_probability(self.eps)
        half = self.hadamard_order / 2
        _check_representable(repr(self), self.eps, half)
        return readonly(np.where(_sylvester_rows(self.k) > 0, keep / half, flip / half))

    @property
    def channel(self) -> FiniteKernel:
        """The exact channel Q as a `FiniteKernel` (k inputs, K outputs)."""
        return self.kernel

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """One report y_i ~ Q(· | x_i) per user (numba): an exact Bernoulli(1 − a) (1 − a = e^-eps/(1 + e^-eps))
        puts y outside C_x, an exactly uniform index in [K/2] picks the column (`_hadamard_kernels`), so the
        reports follow the certified channel at every eps. x: any shape, n >= 1 inputs in [0, k)."""
        from . import _hadamard_kernels as kernels

        if self.hadamard_order // 2 > 2**53:  # floor(2^m random()) is exactly uniform only for m <= 53
            raise fail("k", "below 2^54 for sampling (an exactly uniform column index in [K/2])", self.k)
        states = check_reporters("x", x, self.k)
        flat = states.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        kernels.hadamard_response(as_generator(rng), flat, self.hadamard_order // 2, _keep_probability(self.eps)[1],
                                  out)
        return out.reshape(states.shape)

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """Unbiased f̂(x) = (s_x − 1/2)/(a − 1/2) = (H c)[x + 1] / (n tanh(eps/2)), SRP-Est.

        s_x is the fraction of the n reports in C_x and c the report counts: P(Y ∈ C_x | X = x) = a and 1/2
        for every other input, so E[s_x] = 1/2 + f(x)(a − 1/2) with f the inputs' empirical frequencies
        (fixed inputs; for i.i.d. inputs f is p). Variance: (1/tanh²(eps/2) − f(x))/n for fixed inputs,
        (1/tanh²(eps/2) − p(x)²)/n for i.i.d. ones. Raises ValueError at eps = 0 (no unbiased estimator).
        """
        _require_informative(self.eps)
        counts, n = _report_counts("reports", reports, self.hadamard_order)
        return _walsh_hadamard(counts)[1:self.k + 1] / (n * math.tanh(self.eps / 2.0))

    @property
    def randomness_bits(self) -> float:
        """Private random bits per user: H2(a) + log2(K/2) (the in/out bit and a uniform column of K/2).

        y = g(x, U) is one-to-one in the key U for each x, so this equals H(Y | X = x): the least any keyed
        implementation of this channel can use (SRP-D, SRP-Tab1).
        """
        return _keep_entropy_bits(self.eps) + math.log2(self.hadamard_order // 2)

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) in bits (SRP's R): every row has the same entropy, H2(a) + log2(K/2)."""
        return self.randomness_bits

    def __repr__(self) -> str:
        return f"HadamardResponse(k={self.k}, eps={self.eps!r})"
