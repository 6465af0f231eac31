"""Optimized local hashing (OLH; Wang, Blocki, Li & Jha 2017): randomized response over a public hash (SRP-Est,
STD-OLH).

User i draws a public hash h_i : [k] → [g] (uniform over all such functions; the analyst knows it) and reports
(h_i, y_i) with y_i = h_i(x_i) kept with probability p = e^eps / (e^eps + g − 1), else a uniform other value of
[g]: given h_i it is g-ary randomized response on the hashed value, so the report is exactly eps-LDP whatever the
hash. OLH's g = round(e^eps + 1) minimises the estimator's variance. The server counts the support
c_v = #{i : h_i(v) = y_i}; E c_v / n = f_v p + (1 − f_v)/g (another input collides with v under a uniform hash
with probability 1/g, and then y_i = h_i(v) with probability p, otherwise with probability (1 − p)/(g − 1)), so
f̂_v = (c_v / n − 1/g) / (p − 1/g) is unbiased.

The exact channel is a k × g^(k+1) matrix over the joint output (h, y); its exact pair is the two rows of x = 0, 1
lumped into four classes (STD-OLH): h(0) = h(1) (the rows agree), and otherwise y = h(0), y = h(1) or neither.
In code the hash is a 64-bit public seed s expanded by `_hashing_kernels` (h_s(v) exactly uniform on [g] given
uniform 64-bit mixes: the usual pseudo-random-function model). The pure eps holds for every hash (conditionally
GRR); the profile and Rényi curve are exact for the uniform hash.
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
from .entropy import binary_entropy
from .frequency import _checked_support_counts, _estimator_gap, _require_informative, _support_rates
from .implicit_channel import MAX_ENTRIES, check_n, check_oracle_eps, check_users
from .implicit_mechanism import ImplicitOracle

__all__ = ["HashedChannel", "LocalHashing"]

#: Largest hash range g (the sampler's exact uniform labels, the seeds' 64-bit reduction).
MAX_G = 2**31


def _grr_probs(g: int, eps: float) -> tuple[float, float]:
    """(p, r): p = e^eps / (e^eps + g − 1) the kept value, r = (1 − p)/(g − 1) each other one (no overflow)."""
    t = math.exp(-eps)
    p = 1.0 / (1.0 + (g - 1) * t)
    return p, t * p


@dataclass(frozen=True)
class HashedChannel:
    """The exact channel of OLH(k, g, eps) on the joint output (h, y): Q[x, (h, y)] = g^-k p if y = h(x), g^-k r
    otherwise; column index (Σ_v h(v) g^v) g + y. ``ldp_kernel()`` gives the exact 2 × 4 lumped pair."""

    k: int
    g: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        g = check_int("g", self.g, minimum=2)
        if g > MAX_G:
            raise fail("g", f"an integer in [2, 2^31] = [2, {MAX_G}]", g)
        object.__setattr__(self, "g", g)
        object.__setattr__(self, "eps", check_oracle_eps(self.eps))

    @property
    def num_outputs(self) -> int:
        """g^(k+1): every hash [k] → [g] times every reported value."""
        return self.g ** (self.k + 1)

    @cached_property
    def _lumped(self) -> FiniteKernel:
        p, r = _grr_probs(self.g, self.eps)
        apart = 1.0 - 1.0 / self.g  # P(h(0) != h(1)) under a uniform hash
        # classes: h(0) = h(1); apart with y = h(0); apart with y = h(1); apart with y elsewhere
        rest = apart * (self.g - 2) * r
        return FiniteKernel([[1.0 / self.g, apart * p, apart * r, rest], [1.0 / self.g, apart * r, apart * p, rest]])

    def ldp_kernel(self) -> FiniteKernel:
        """Rows x = 0, 1 lumped by (h(0) = h(1), y = h(0), y = h(1)): within a class the likelihood ratio is
        constant, so every divergence equals that of the full rows (STD-OLH; AAC-eta)."""
        return self._lumped

    def to_kernel(self) -> FiniteKernel:
        """The full k × g^(k+1) matrix (tiny k and g only; ValueError above `MAX_ENTRIES` entries)."""
        if self.k * self.num_outputs > MAX_ENTRIES:
            raise fail("k", f"small enough that the k × g^(k+1) channel has at most {MAX_ENTRIES} entries "
                       f"(g = {self.g}: {self.k} × {self.num_outputs})", self.k)
        p, r = _grr_probs(self.g, self.eps)
        tables = (np.arange(self.g**self.k)[:, None] // self.g ** np.arange(self.k)) % self.g  # h as digits
        y = np.arange(self.g)
        rows = [np.where(tables[:, x, None] == y[None, :], p, r).ravel() / self.g**self.k for x in range(self.k)]
        return FiniteKernel(np.stack(rows))

    @property
    def randomness_bits(self) -> float:
        """H(Y | h, X = x) = −p log2 p − (g − 1) r log2 r bits: g-ary randomized response, the private coins."""
        p, r = _grr_probs(self.g, self.eps)
        if self.g == 2:
            return binary_entropy(r)
        return (-p * math.log(p) - (self.g - 1) * r * math.log(r)) / math.log(2.0)

    @property
    def output_entropy_bits(self) -> float:
        """H((h, Y) | X = x) = k log2 g + `randomness_bits` (the public hash counted, as BH's public column)."""
        return self.k * math.log2(self.g) + self.randomness_bits


@dataclass(frozen=True)
class LocalHashing(ImplicitOracle):
    """OLH(k, eps, g): g = round(e^eps + 1) unless given (g >= 2), eps in nats (STD-OLH; SRP-Est).

    Reports are (n, 2) ``uint64`` arrays: column 0 the public hash seed, column 1 the value y in [0, g). A
    `Mechanism` with local-DP neighbours (`ImplicitOracle`): exact profile, Rényi curve and eps from the lumped
    pair; its output space has g^(k+1) points, so ``oracle >> K`` needs tiny k and g.
    """

    k: int
    eps: float
    g: int | None = None

    def __post_init__(self) -> None:
        k = check_int("k", self.k, minimum=2)
        eps = check_oracle_eps(self.eps)
        if self.g is None:
            if math.exp(eps) + 1.0 > MAX_G:
                raise fail("eps", f"<= {math.log(MAX_G - 1):.2f} for the default g = round(e^eps + 1) <= 2^31 (or "
                           "give `g`)", eps)
            g = max(2, round(math.exp(eps) + 1.0))
        else:
            g = check_int("g", self.g, minimum=2)
            if g > MAX_G:
                raise fail("g", f"an integer in [2, 2^31] = [2, {MAX_G}]", g)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "g", g)

    @cached_property
    def implicit_channel(self) -> HashedChannel:
        return HashedChannel(self.k, self.g, self.eps)

    @property
    def channel(self) -> HashedChannel:
        """The exact channel (implicit: g^(k+1) outputs); ``ldp_epsilon(channel)`` is exact (AAC-T1)."""
        return self.implicit_channel

    def ldp_kernel(self) -> FiniteKernel:
        """The 2 × 4 lumped pair (`HashedChannel.ldp_kernel`): ``ldp_epsilon(oracle)`` accepts the oracle."""
        return self.implicit_channel.ldp_kernel()

    @property
    def p(self) -> float:
        """P[y = h(x) | X = x] = e^eps / (e^eps + g − 1)."""
        return _grr_probs(self.g, self.eps)[0]

    @property
    def q(self) -> float:
        """P[h(v) = y | X = x] for v != x: 1/g (uniform hash)."""
        return 1.0 / self.g

    @cached_property
    def _floor(self) -> np.uint64:
        return np.uint64(2**64 % self.g)

    # ------------------------------------------------------------------------------------------ reports
    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.uint64]:
        """One report (seed, y) per user (numba): a uniform 64-bit public seed, then g-ary randomized response of
        h_seed(x_i) (exact Bernoulli and uniform labels, `_hadamard_kernels`). x: shape (n,), n >= 1."""
        from . import _hadamard_kernels, _hashing_kernels

        states = check_users(x, self.k)
        gen = as_generator(rng)
        seeds = gen.integers(0, 2**64, size=states.size, dtype=np.uint64, endpoint=False)
        hashed = np.empty(states.size, dtype=np.int64)
        _hashing_kernels.hash_inputs(seeds, states, np.uint64(self.g), self._floor, hashed)
        spread = (self.g - 1) * math.exp(-self.eps)
        flip = spread > 1.0
        y = np.empty(states.size, dtype=np.int64)
        _hadamard_kernels.randomized_response(gen, hashed, self.g, (1.0 if flip else spread) / (1.0 + spread), flip, y)
        return np.stack([seeds, y.astype(np.uint64)], axis=1)

    def _split(self, reports: ArrayLike) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
            raise fail("reports", "an (n, 2) array of (hash seed, value) reports with n >= 1", f"shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer):
            raise fail("reports", "integers (uint64 seeds and values)", f"dtype {arr.dtype}", TypeError)
        y = arr[:, 1].astype(np.int64)
        bad = (y < 0) | (y >= self.g) if arr.dtype != np.uint64 else arr[:, 1] >= np.uint64(self.g)
        if bad.any():
            raise fail("reports", f"values in [0, g) = [0, {self.g}] in column 1", arr[np.argmax(bad), 1])
        return np.ascontiguousarray(arr[:, 0].astype(np.uint64)), np.ascontiguousarray(y)

    def hash_values(self, seeds: ArrayLike) -> NDArray[np.int64]:
        """The public hashes h_s(v), v = 0..k−1, of each seed s: shape (n, k)."""
        from . import _hashing_kernels

        s = np.ascontiguousarray(np.asarray(seeds).astype(np.uint64).ravel())
        out = np.empty((s.size, self.k), dtype=np.int64)
        _hashing_kernels.hash_tables(s, self.k, np.uint64(self.g), self._floor, out)
        return out

    def output_index(self, reports: ArrayLike) -> NDArray[np.int64]:
        """(Σ_v h(v) g^v) g + y for each report: its column of the full channel (g^(k+1) < 2^63)."""
        if self.implicit_channel.num_outputs >= 2**63:
            raise fail("k", f"small enough that the g^(k+1) = {self.g}^{self.k + 1} outputs have int64 indices",
                       self.k)
        seeds, y = self._split(reports)
        digits = self.hash_values(seeds)
        return (digits * self.g ** np.arange(self.k, dtype=np.int64)).sum(axis=1) * self.g + y

    def support_counts(self, reports: ArrayLike) -> tuple[NDArray[np.int64], int]:
        """(c, n): c_v = #{i : h_i(v) = y_i}, the server's statistic, and the number of reports."""
        from . import _hashing_kernels

        seeds, y = self._split(reports)
        return _hashing_kernels.support_counts(seeds, y, self.k, np.uint64(self.g), self._floor), seeds.size

    # ------------------------------------------------------------------------------------------ estimation
    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """Unbiased f̂_v = (c_v / n − 1/g) / (p − 1/g) from the support counts (module docstring; STD-OLH).

        Var f̂_v = (f_v p (1 − p) + (1 − f_v)(1/g)(1 − 1/g)) / (n (p − 1/g)²) for fixed inputs and fresh hashes
        (`estimator_variance`); at f_v = 0 Wang et al.'s (e^eps − 1 + g)² / (n (e^eps − 1)² (g − 1)).
        ValueError at eps = 0."""
        _require_informative(self.eps)
        counts, n = self.support_counts(reports)
        return self.estimate_counts(counts, n)

    def count_statistics(self, reports: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(c, A): the counts c_v = #{i : h_i(v) = y_i} of the n reports and the k × k matrix A with E[c / n] = f A
        (A[x, v] = p if v = x, q otherwise): what the iterative Bayesian update reads (`ibu_estimate`)."""
        counts, _ = self.support_counts(reports)
        return counts, self.count_rates

    @property
    def count_rates(self) -> NDArray[np.float64]:
        """A[x, v] = P(report supports v | X = x): p on the diagonal, q off it (k × k)."""
        return _support_rates(self.k, self.p, self.q)

    def estimate_counts(self, counts: ArrayLike, n: int) -> NDArray[np.float64]:
        """f̂ = (counts / n − 1/g) / (p − 1/g) from the support counts of n reports."""
        c, users = _checked_support_counts(counts, self.k, n, "support counts")
        return (c / users - 1.0 / self.g) / self._gap()

    def estimator_variance(self, freq: ArrayLike, n: int) -> NDArray[np.float64]:
        """Var f̂_v = (f_v p (1 − p) + (1 − f_v)(1/g)(1 − 1/g)) / (n (p − 1/g)²) for true frequencies `freq`."""
        f = np.asarray(freq, dtype=np.float64)
        if f.shape != (self.k,):
            raise fail("freq", f"a length-{self.k} frequency vector", f"shape {f.shape}")
        p, r = _grr_probs(self.g, self.eps)
        q = 1.0 / self.g
        return (f * p * (self.g - 1) * r + (1.0 - f) * q * (1.0 - q)) / (check_n(n) * self._gap() ** 2)

    def _gap(self) -> float:
        """p − 1/g = (g − 1)(1 − e^-eps) p / g, without cancellation."""
        return _estimator_gap((self.g - 1) * -math.expm1(-self.eps) * self.p / self.g, 0.0)

    # ------------------------------------------------------------------------------------------ randomness
    @property
    def randomness_bits(self) -> float:
        """Private random bits per user: H of g-ary randomized response (the hash is public, as BH's column)."""
        return self.implicit_channel.randomness_bits

    @property
    def output_entropy_bits(self) -> float:
        """max_x H((h, Y) | X = x) = k log2 g + `randomness_bits` (SRP's R, the uniform public hash counted)."""
        return self.implicit_channel.output_entropy_bits

    def __repr__(self) -> str:
        return f"LocalHashing(k={self.k}, eps={self.eps!r}, g={self.g})"
