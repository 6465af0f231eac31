"""Mechanisms with finitely many inputs and outputs: a row-stochastic matrix and a neighbour relation."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._moved import moved_names
from .._random import RNGLike, as_generator
from .._validation import check_eps, check_int, check_reporters, check_stochastic_matrix, fail, readonly
from ..distributions import Categorical
from ..operators.finite import FiniteKernel, matrix_text
from ..pairs import PUSHES, RowPairs, push_pairs
from ..spaces import FiniteSpace
from .base import AllPairs, IndexPairs, Mechanism, Neighbourhood, neighbour_pairs


class MatrixMechanism(Mechanism):
    """A mechanism on inputs {0..k-1} whose row i of ``matrix`` is the output law M(i).

    A subclass sets `matrix` and `neighbours`; `dominating_pairs` checks the rows (row-stochastic, the neighbour
    pairs in range) unless the class declares ``checked_rows = True`` because it builds and checks them itself.
    """

    matrix: NDArray[np.float64]
    checked_rows: ClassVar[bool] = False

    @cached_property
    def kernel(self) -> FiniteKernel:
        """The rows as a kernel (used for sampling)."""
        return FiniteKernel(self.matrix)

    @property
    def output_space(self) -> FiniteSpace:
        return FiniteSpace(self.matrix.shape[1])

    def output(self, value: Any) -> Categorical:
        k = self.matrix.shape[0]
        i = check_int("value", value, minimum=0)
        if i >= k:
            raise fail("value", f"an input index in [0, {k - 1}]", i)
        return Categorical(self.matrix[i])

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        return self.kernel.sample(value, rng=rng)

    def dominating_pairs(self) -> RowPairs:
        """The rows of every ordered neighbour pair (exhaustive: these are the real output laws).

        Raises NotImplementedError where a row holds a subnormal probability (`RowPairs`).
        """
        return self._row_pairs

    @cached_property
    def _row_pairs(self) -> RowPairs:  # the mechanism is frozen: build (and validate) the pairs once
        k = self.matrix.shape[0]
        all_pairs = isinstance(self.neighbours, AllPairs)
        build = RowPairs._of_checked if self.checked_rows else RowPairs  # a user's subclass: checked here
        return build(self.matrix, neighbour_pairs(self.neighbours, k), all_pairs)


def _check_pairs(pairs: Sequence[Sequence[int]], k: int) -> tuple[tuple[int, int], ...]:
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise fail("neighbours", "a list of (i, j) index pairs", pair)
        i, j = (check_int("neighbours", v, minimum=0) for v in pair)
        if i >= k or j >= k or i == j:
            raise fail("neighbours", f"pairs of distinct indices in [0, {k - 1}]", f"({i}, {j})")
        out.append((i, j))
    if not out:
        raise fail("neighbours", "a non-empty list of pairs (or None for all pairs)", "[]")
    return tuple(out)


@dataclass(frozen=True, eq=False, repr=False)
class FiniteMechanism(MatrixMechanism):
    """M(i) = Categorical(matrix[i]) for inputs (datasets) i = 0..k-1.

    `neighbours`: None = every ordered pair of inputs (local DP); or a list of index pairs (i, j),
    each checked in both directions.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    matrix: NDArray[np.float64]
    neighbours: Any = None

    def __post_init__(self) -> None:
        matrix = check_stochastic_matrix("matrix", self.matrix)
        object.__setattr__(self, "matrix", matrix)
        k = matrix.shape[0]
        if k < 2:
            raise fail("matrix", "a matrix with >= 2 rows (inputs)", f"{k} row")
        if self.neighbours is None:
            nb: Neighbourhood = AllPairs()
        elif isinstance(self.neighbours, AllPairs):
            nb = self.neighbours
        elif isinstance(self.neighbours, IndexPairs):  # its pairs are checked; here against the k inputs too
            nb = IndexPairs(_check_pairs(self.neighbours.pairs, k))
        else:
            nb = IndexPairs(_check_pairs(self.neighbours, k))
        object.__setattr__(self, "neighbours", nb)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FiniteMechanism) and self.neighbours == other.neighbours
                and np.array_equal(self.matrix, other.matrix))

    def __hash__(self) -> int:
        return hash((self.matrix.tobytes(), self.neighbours))

    def __repr__(self) -> str:
        return f"FiniteMechanism({matrix_text(self.matrix)}, neighbours={self.neighbours!r})"


#: The smallest positive normal double: probabilities below it are subnormal (inexact) or underflow to 0.
_TINY = float(np.finfo(np.float64).tiny)


def _rr_log_probs(k: int, eps0: float) -> tuple[float, float]:
    """(log p, log q) of k-ary RR: p = 1/(1 + (k − 1) e^-eps0) on the diagonal, q = e^-eps0 p off it."""
    log_p = -math.log1p((k - 1) * math.exp(-eps0))
    return log_p, log_p - eps0


@dataclass(frozen=True, repr=False)
class RandomizedResponse(MatrixMechanism):
    """k-ary randomized response: M(x) = x with probability e^eps / (e^eps + k − 1), else uniform on the rest.

    Neighbours: all input pairs (local DP); exactly eps-LDP (AAC-T1; SRP-D). `eps` in nats, finite.
    Exact privacy comes from closed forms (`RandomizedResponsePairs`), valid at every eps: the matrix's
    off-diagonals are subnormal for eps in (708.4, 745.1) and 0 beyond.
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    k: int
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps", check_eps("eps", self.eps))

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        k = self.k
        # 1 / (e^eps + k - 1) written as e^-eps / (1 + (k - 1) e^-eps): no overflow for large eps.
        off = np.exp(-self.eps) / (1.0 + (k - 1) * np.exp(-self.eps))
        matrix = np.full((k, k), off)
        np.fill_diagonal(matrix, 1.0 / (1.0 + (k - 1) * np.exp(-self.eps)))
        return readonly(matrix / matrix.sum(axis=1, keepdims=True))

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    @property
    def channel(self) -> FiniteKernel:
        """The exact channel (the rows) as a `FiniteKernel`: the frequency-oracle view (SRP-Tab1)."""
        return self.kernel

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.int64]:
        """y_i ~ M(value_i) for n >= 1 inputs of any shape (numba): an exact Bernoulli of the rarer of "another
        label" ((k − 1) q, to full relative precision) and "the input" (p) decides, then an exactly uniform label
        among the k − 1 others (`_hadamard_kernels`); so the reports follow the certified rows at every eps, and
        no k × k table is read. NotImplementedError where q is not a normal double (eps >~ 708)."""
        from .local import _hadamard_kernels as kernels  # numba: imported where used
        states = check_reporters("value", value, self.k)
        log_q = _rr_log_probs(self.k, self.eps)[1]
        if log_q < math.log(_TINY):
            raise NotImplementedError(
                f"{self!r}.sample: the off-diagonal probability exp({log_q!r}) is below the smallest normal double "
                "(2.2250738585072014e-308), so no sampler of doubles realises the certified channel; sampling "
                "needs eps <= 708.39.")
        if self.k - 1 > 2**53:
            raise fail("k", "<= 2^53 + 1 to sample (53-bit uniform labels)", self.k)
        spread = (self.k - 1) * math.exp(-self.eps)  # (k − 1) e^-eps: p = 1/(1 + spread), (k − 1) q = spread p
        flip = spread > 1.0  # draw the rarer of "another label" and "the input"
        flat = states.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        kernels.randomized_response(as_generator(rng), flat, self.k, (1.0 if flip else spread) / (1.0 + spread),
                                    flip, out)
        return out.reshape(states.shape)

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]:
        """Unbiased f̂(x) = (c_x/n − q)/(p − q) from n >= 1 reports, c_x = #{i : y_i = x} (SRP-Est).

        E[c_x/n] = q + f(x)(p − q) with f the inputs' empirical frequencies (fixed inputs; p_X for i.i.d. ones).
        Variance: (f(x) p(1 − p) + (1 − f(x)) q(1 − q)) / (n (p − q)²) for fixed inputs, π(1 − π)/(n (p − q)²)
        with π = q + p_X(x)(p − q) for i.i.d. ones. Raises ValueError at eps = 0 (no unbiased estimator).
        """
        from .local.frequency import _report_counts, _require_informative

        _require_informative(self.eps)
        counts, n = _report_counts("reports", reports, self.k)
        log_p, log_q = _rr_log_probs(self.k, self.eps)
        p = math.exp(log_p)
        return (counts / n - math.exp(log_q)) / (p * -math.expm1(-self.eps))

    @property
    def randomness_bits(self) -> float:
        """Private random bits per user: H(Y | X = x) = −p log2 p − (k − 1) q log2 q (SRP-Tab1).

        The least any keyed implementation needs; Y = (X + U) mod k with U ~ (p, q, …, q) attains it (SRP-Rec,
        s = 1). Exact at every eps (from the log probabilities).
        """
        log_p, log_q = _rr_log_probs(self.k, self.eps)
        nats = -math.exp(log_p) * log_p - (self.k - 1) * math.exp(log_q) * log_q
        return nats / math.log(2.0)

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) in bits (SRP's R): every row has the entropy `randomness_bits`."""
        return self.randomness_bits

    def dominating_pairs(self) -> RandomizedResponsePairs:
        """Every ordered pair of rows, with the closed-form profile, RDP curve and inverse."""
        return self._rr_pairs

    @cached_property
    def _rr_pairs(self) -> RandomizedResponsePairs:
        return RandomizedResponsePairs._of_checked(self.matrix, neighbour_pairs(AllPairs(), self.k), True, k=self.k,
                                                   eps0=self.eps)

    def __repr__(self) -> str:
        return f"RandomizedResponse(k={self.k}, eps={self.eps!r}, neighbours=AllPairs())"


@dataclass(frozen=True, eq=False)
class RandomizedResponsePairs(RowPairs):
    """The rows of k-ary randomized response RR(k, eps0) for every ordered pair, read by closed forms.

    Rows i and j differ in two coordinates only: (p, q) at (i, j) against (q, p), with p the diagonal and
    q = e^-eps0 p the off-diagonal probability. Every pair has the same divergences (symmetry), so
    (THEORY: Notation; AAC-T1, SRP-D):

    - ``delta(eps) = p (1 − e^(eps − eps0))`` for eps < eps0, else 0;
    - ``R_alpha = log(p e^((alpha−1) eps0) + p e^(−alpha eps0) + (k − 2) q)/(alpha − 1)``, R_inf = eps0;
    - the inverse ``eps(delta) = eps0 + log(1 − delta/p)`` (0 where delta >= p − q; eps0 at delta = 0).

    The values never read `matrix`, so they stay exact where its off-diagonals are subnormal or 0
    (eps0 > 708.4); there `exhaustive` is False and pushing the rows through a kernel raises.
    """

    k: int = 2
    eps0: float = 0.0

    def _check(self) -> None:
        super()._check()
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "eps0", float(check_eps("eps0", self.eps0)))
        if self.matrix.shape != (self.k, self.k):
            raise fail("matrix", f"the ({self.k}, {self.k}) matrix of RandomizedResponse(k={self.k})",
                       f"shape {self.matrix.shape}")

    def _finish(self) -> None:
        self._freeze()  # not RowPairs' subnormal check: the closed forms do not read the matrix
        object.__setattr__(self, "exhaustive", self.representable)

    @property
    def log_probs(self) -> tuple[float, float]:
        """(log p, log q): the log diagonal and off-diagonal probabilities, exact at every eps0."""
        return _rr_log_probs(self.k, self.eps0)

    @property
    def representable(self) -> bool:
        """Whether q is a normal double, so that the stored rows are the laws to rounding."""
        return self.log_probs[1] >= math.log(_TINY)


@PUSHES.register((FiniteKernel, RandomizedResponsePairs))
def _push_rr(kernel: FiniteKernel, pairs: RandomizedResponsePairs) -> RowPairs:
    """RR >> K: the rows P @ K, exact where the off-diagonal q is a normal double; else NotImplementedError."""
    if not pairs.representable:
        raise NotImplementedError(
            f"RandomizedResponse(k={pairs.k}, eps={pairs.eps0!r}) >> {type(kernel).__name__}: the off-diagonal "
            f"probability e^-eps/(1 + (k − 1) e^-eps) = exp({pairs.log_probs[1]!r}) is below the smallest normal "
            f"double (2.2250738585072014e-308), so the rows of the pipeline are not representable exactly; "
            f"exact values need eps <= 708.39.")
    return push_pairs(kernel, RowPairs._of_checked(pairs.matrix, pairs.index, pairs.all_pairs))

__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.pair_maxima.{name}" for name in (
    "pairs_hockey_stick", "pairs_renyi", "pairs_argmax", "pairs_epsilon", "randomized_response_epsilon")})
