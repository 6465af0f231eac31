"""Unary encoding: RAPPOR's basic one-time encoding and optimized unary encoding (OUE) (SRP-Tab1, SRP-Est).

User x reports k independent bits: bit x is 1 with probability p, every other bit with probability q.

- ``optimized=False`` (RAPPOR's basic one-time encoding, "symmetric UE"): every bit of the one-hot vector e_x is
  kept with probability e^(eps/2) / (e^(eps/2) + 1): p = e^(eps/2) / (e^(eps/2) + 1), q = 1 − p.
- ``optimized=True`` (OUE, Wang et al. 2017): p = 1/2, q = 1 / (e^eps + 1).

Both are exactly eps-LDP: the largest column ratio of the channel is p (1 − q) / (q (1 − p)) = e^eps. The true bit
is drawn from its own law (p), not set and then perturbed, so it cannot come out 1 too often (the defect that
makes a declared eps a true log(e^eps + 2)); `ldp_epsilon(oracle.channel)` certifies this from the channel.
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
from .implicit_channel import UnaryChannel, bernoulli_split, check_n, check_oracle_eps, check_users
from .implicit_mechanism import ImplicitOracle

__all__ = ["UnaryEncoding"]


@dataclass(frozen=True)
class UnaryEncoding(ImplicitOracle):
    """RAPPOR's basic one-time unary encoding (``optimized=False``) or OUE (``optimized=True``), eps in nats.

    THEORY: SRP-Tab1 (randomness per user), SRP-Est (the estimator), AAC-T1 (exact certification).
    Inputs {0..k−1}, k >= 2; eps in [0, 700] (`MAX_EPS`). Reports are (n, k) ``uint8`` arrays of 0/1.

    A `Mechanism` (local DP, `ImplicitOracle`): its exact pair is the channel lumped by (y_0, y_1), so
    ``privacy_profile``, ``renyi_profile``, ``privacy_epsilon`` and ``certify`` are exact at every k; its output
    space is {0..2^k − 1} (report y ↦ Σ_j y_j 2^j, `output_index`), and ``oracle >> K`` takes a kernel on it.
    """

    k: int
    eps: float
    optimized: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_oracle_eps(self.eps))
        if not isinstance(self.optimized, (bool, np.bool_)):
            raise fail("optimized", "True or False", repr(self.optimized), TypeError)
        object.__setattr__(self, "optimized", bool(self.optimized))

    # ------------------------------------------------------------------------------------------ the channel

    @cached_property
    def _laws(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """(P[0], P[1]) of the true bit and of the other bits, each entry to full relative precision."""
        if self.optimized:
            small = math.exp(-self.eps)
            return (0.5, 0.5), (1.0 / (1.0 + small), small / (1.0 + small))
        small = math.exp(-self.eps / 2.0)
        keep, flip = 1.0 / (1.0 + small), small / (1.0 + small)
        return (flip, keep), (keep, flip)

    @property
    def p(self) -> float:
        """P[bit x = 1 | X = x]."""
        return self._laws[0][1]

    @property
    def q(self) -> float:
        """P[bit j = 1 | X = x] for j != x."""
        return self._laws[1][1]

    @cached_property
    def implicit_channel(self) -> UnaryChannel:
        """The channel on {0,1}^k as a `UnaryChannel` (exact entries and certification for every k)."""
        return UnaryChannel(self.k, *self._laws)

    @cached_property
    def channel(self) -> FiniteKernel | UnaryChannel:
        """Q[x, y], y = Σ_j y_j 2^j: the full `FiniteKernel` when it is small and exact (k <= 10, entries normal
        doubles), else the `UnaryChannel`. Either way ``ldp_epsilon(channel)`` is the exact eps (AAC-T1)."""
        implicit = self.implicit_channel
        return implicit.to_kernel() if implicit.is_small else implicit

    def ldp_kernel(self) -> FiniteKernel:
        """The channel's 2 x 4 lumped kernel (`UnaryChannel.ldp_kernel`): ``ldp_epsilon(oracle)`` and
        ``dobrushin(oracle, eps)`` accept the oracle itself through it (AAC-eta, AAC-T1)."""
        return self.implicit_channel.ldp_kernel()

    def output_index(self, reports: ArrayLike) -> NDArray[np.int64]:
        """y = Σ_j reports[i, j] 2^j for each (n, k) report row: its column of `channel` (k <= 62)."""
        if self.k > 62:
            raise fail("k", "<= 62 to index reports as int64 (the output space has 2^k points)", self.k)
        bits = np.asarray(reports)
        _bitmap_counts(bits, self.k, "bits")  # shape, kind and 0/1 entries checked
        return (bits.astype(np.int64) << np.arange(self.k, dtype=np.int64)).sum(axis=1)

    # ------------------------------------------------------------------------------------------ sampling

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.uint8]:
        """One report per user: out[i, j] ~ Bernoulli(p if j == x[i] else q), independent (numba).

        Each bit is an exact Bernoulli draw of the channel's double probabilities (`_unary_kernels`). x: shape
        (n,), n >= 1, integers in [0, k). Returns shape (n, k), ``uint8``.
        """
        from . import _unary_kernels

        states = check_users(x, self.k)
        out = np.empty((states.size, self.k), dtype=np.uint8)
        true_law, other_law = (bernoulli_split(law) for law in self._laws)
        _unary_kernels.sample_unary(as_generator(rng), states, true_law, other_law, out)
        return out

    def sample_counts(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """The server's column counts c_j = Σ_i Y_ij without per-user reports (counts-only mode).

        The bits of all users are independent, so c_j = Binomial(n_j, p) + Binomial(n − n_j, q), independent
        over j, with n_j = #{i: x_i = j}: the law of ``sample(x).sum(axis=0)`` up to the precision of numpy's
        binomial sampler (a probability above 1/2 is drawn through its complement). That sampler is not exact:
        it decides with uniforms of resolution ~2^-53, so P(c_j > 0) = 1 − (1 − r)^trials has an absolute error
        of order 1e-16 for the rarer bit probability r. Where n_j r is not >> 1e-16 (RAPPOR or OUE at
        eps >~ 35: r = 1/(e^eps + 1) < 1e-15) a count is never, or too rarely, positive, and the counts do not
        follow the certified channel; there use ``sample(x).sum(axis=0)`` (exact Bernoulli bits).
        x: shape (n,), n >= 1. Returns shape (k,).
        """
        from ._unary_kernels import count_states

        states = check_users(x, self.k)
        gen = as_generator(rng)
        hits = count_states(states, self.k)
        return _binomial(gen, hits, self._laws[0]) + _binomial(gen, states.size - hits, self._laws[1])

    # ------------------------------------------------------------------------------------------ estimation

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """The unbiased frequency estimate f̂_j = (c_j / n − q) / (p − q), c_j = Σ_i reports[i, j] (SRP-Est).

        E f̂_j = f_j = #{i: x_i = j} / n for any fixed inputs; Var f̂_j = (f_j p (1 − p) + (1 − f_j) q (1 − q))
        / (n (p − q)²) (`estimator_variance`). May be negative; sums to 1 only in expectation. reports: shape
        (n, k), n >= 1, entries 0/1 (bool or integer). ValueError at eps = 0 (p = q: no unbiased estimator).
        """
        counts, n = _bitmap_counts(reports, self.k, "bits")
        return self.estimate_counts(counts, n)

    def count_statistics(self, reports: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(c, A): the counts c_v = Σ_i reports[i, v] of the n reports and the k × k matrix A with E[c / n] = f A
        (A[x, v] = p if v = x, q otherwise): what the iterative Bayesian update reads (`ibu_estimate`)."""
        counts, _ = _bitmap_counts(reports, self.k, "bits")
        return counts, self.count_rates

    @property
    def count_rates(self) -> NDArray[np.float64]:
        """A[x, v] = P(report supports v | X = x): p on the diagonal, q off it (k × k)."""
        return _support_rates(self.k, self.p, self.q)

    def estimate_counts(self, counts: ArrayLike, n: int) -> NDArray[np.float64]:
        """f̂ = (counts / n − q) / (p − q) from the column counts of n reports (`estimate`, `sample_counts`)."""
        c, users = _checked_support_counts(counts, self.k, n, "column counts")
        gap = self._gap()
        return (c / users - self.q) / gap

    def estimator_variance(self, freq: ArrayLike, n: int) -> NDArray[np.float64]:
        """Var f̂_j = (f_j p (1 − p) + (1 − f_j) q (1 − q)) / (n (p − q)²) for true frequencies `freq`."""
        f = np.asarray(freq, dtype=np.float64)
        if f.shape != (self.k,):
            raise fail("freq", f"a length-{self.k} frequency vector", f"shape {f.shape}")
        (a0, a1), (b0, b1) = self._laws
        return (f * a0 * a1 + (1.0 - f) * b0 * b1) / (check_n(n) * self._gap() ** 2)

    def _gap(self) -> float:
        return _estimator_gap(self.p, self.q)

    # ------------------------------------------------------------------------------------------ randomness

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) = H2(p) + (k − 1) H2(q) bits (SRP's R; every row has the same entropy)."""
        return self.implicit_channel.output_entropy_bits

    @property
    def randomness_bits(self) -> float:
        """Private random bits per user: H2(p) + (k − 1) H2(q), equal to `output_entropy_bits`.

        Every row of the channel is row 0 with labels 0 and x swapped, so the key U = "the report of input 0"
        (k independent coins of biases p, q, …, q) and Y = U with coordinates 0 and x swapped is a keyed
        realisation (SRP-D) with H(U) = H(Y | X = x), the least any key can have. No public coins.
        """
        return self.output_entropy_bits

    def __repr__(self) -> str:
        return f"UnaryEncoding(k={self.k}, eps={self.eps!r}, optimized={self.optimized})"


def _binomial(gen: np.random.Generator, trials: NDArray[np.int64], law: tuple[float, float]) -> NDArray[np.int64]:
    """Binomial(trials, law[1]) drawn through the rarer value, so its probability keeps full precision."""
    if law[0] < law[1]:
        return trials - gen.binomial(trials, law[0])
    return gen.binomial(trials, law[1])
