"""Mechanisms driven by a finite key: Y = g(X, U), U ~ q, and the randomness they spend (SRP-D)."""

from __future__ import annotations

import bisect
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike, as_generator
from ..._validation import check_int, check_probability_vector, check_reporters, check_size, fail, readonly
from ...operators.finite import FiniteKernel
from ...spaces import IncompatibleSpaces
from ..base import AllPairs
from ..finite import MatrixMechanism
from .entropy import entropy_bits

__all__ = ["SECURE_BITS", "KeyedMechanism", "draw_keys", "output_entropy_bits", "randomness_bits"]

#: The smallest positive normal double.
_TINY = float(np.finfo(np.float64).tiny)
#: Bits per block of the lazy uniform that draws keys: U = 0.B_1 B_2 … in base 2^53, each block B_r a uniform
#: integer in [0, 2^53) (numpy's ``random()`` = B 2^-53, or 8 bytes of the OS CSPRNG shifted right by 11).
SECURE_BITS = 53
_BLOCK = 1 << SECURE_BITS


def _check_table(table: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(table)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise fail("table", "an integer array table[x, u] of outputs", f"dtype {arr.dtype}", TypeError)
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise fail("table", "a 2-D array table[x, u] with >= 2 inputs (rows) and >= 1 key (column)",
                   f"shape {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.min() < 0:
        raise fail("table", "outputs in {0..m-1} (non-negative integers)", int(arr.min()))
    return readonly(arr)


def _scaled_cumsums(probs: NDArray[np.float64]) -> tuple[list[int], int]:
    """(S, T): S_u = 2^1074 Σ_{v<=u} q_v as exact integers (every double is a multiple of 2^-1074) and
    T = S_last, so the cut C_u = S_u / T is exact (C_last = 1; a key with q_u = 0 has C_u = C_{u−1})."""
    sums, running = [], 0
    for q in probs.tolist():
        num, den = q.as_integer_ratio()
        running += num * ((1 << 1074) // den)
        sums.append(running)
    return sums, running


def _keys_from_blocks(probs: NDArray[np.float64], first: NDArray[np.uint64], next_block: Callable[[], int]
                      ) -> NDArray[np.int64]:
    """The keys u with C_{u−1} <= V < C_u (C_u = Σ_{v<=u} q_v / Σ q, exact) for V = 0.B_1 B_2 … in base 2^53:
    `first` holds each draw's B_1, and `next_block()` returns one more block, read only while V's known digits
    leave it astride a cut.

    B_1 = j puts V in [j, j + 1) 2^-53; that cell lies inside one key's interval unless a cut C_v falls strictly
    inside it (j = floor(2^53 C_v) with 2^53 C_v not an integer: probability <= #keys 2^-53). Those draws read
    further blocks, narrowing V to [J, J + 1) 2^(−53 r), until the cell lies inside one interval. So
    P(U = u) = C_u − C_{u−1} = q_u / Σ q exactly, for every double q_u (2^-1074 included).
    """
    sums, total = _scaled_cumsums(probs)
    floors = [(s << SECURE_BITS) // total for s in sums]
    keys = np.searchsorted(np.array(floors, dtype=np.uint64), first, side="right").astype(np.int64)
    astride = np.array([f for f, s in zip(floors, sums, strict=True) if (s << SECURE_BITS) % total],
                       dtype=np.uint64)
    for i in np.flatnonzero(np.isin(first, astride)):
        prefix, shift = int(first[i]), SECURE_BITS
        while True:  # V in [prefix, prefix + 1) 2^-shift
            prefix, shift = (prefix << SECURE_BITS) | next_block(), shift + SECURE_BITS
            # the first cut above V's lower end (C_last = 1 > it), and whether the cell ends below that cut
            u = bisect.bisect_right(sums, prefix * total, key=lambda s, n=shift: s << n)
            if (prefix + 1) * total <= sums[u] << shift:
                keys[i] = u
                break
    return keys


def _secure_blocks(n: int) -> NDArray[np.uint64]:
    """n uniform integers in [0, 2^53) from the OS CSPRNG (`secrets.token_bytes`, 8 bytes each)."""
    return np.frombuffer(secrets.token_bytes(8 * n), dtype=np.uint64) >> np.uint64(64 - SECURE_BITS)


def draw_keys(key_probs: NDArray[np.float64], n: int, *, rng: RNGLike = None, secure: bool = False
              ) -> NDArray[np.int64]:
    """n i.i.d. keys U ~ key_probs by an exact inverse CDF (vectorised; SRP-D).

    U = u iff C_{u−1} <= V < C_u for a uniform V on [0, 1) read lazily in blocks of 53 bits and the exact
    rational cuts C_u = Σ_{v<=u} q_v / Σ q (`_keys_from_blocks`): P(U = u) = q_u / Σ q exactly, so a key of
    probability 0 is never drawn and a tiny q_u (e^-50, 2^-1074) is drawn at exactly its rate. Almost every
    draw reads one block; one whose first block straddles a cut (probability <= #keys 2^-53) reads more.
    ``secure=False``: blocks from the numpy Generator `rng` (``random()`` = B 2^-53; research path,
    reproducible). ``secure=True``: blocks from the operating system's CSPRNG (`secrets.token_bytes`, 8 bytes
    per block); `rng` is ignored.
    """
    probs = check_probability_vector("key_probs", key_probs)
    n = check_int("n", n, minimum=0)
    check_size("n", n, 3 * n, what="the keys and their random blocks")
    if secure:
        return _keys_from_blocks(probs, _secure_blocks(n), lambda: int(_secure_blocks(1)[0]))
    gen = as_generator(rng)
    first = (gen.random(n) * float(_BLOCK)).astype(np.uint64)  # exact: random() is B 2^-53
    return _keys_from_blocks(probs, first, lambda: int(gen.random() * float(_BLOCK)))


@dataclass(frozen=True, eq=False, repr=False)
class KeyedMechanism(MatrixMechanism):
    """Y = g(X, U) = table[X, U] with a key U ~ q = `key_probs` independent of X (SRP-D).

    The channel is ``Q[x, y] = Σ_{u: table[x, u] = y} q_u`` (x in {0..k-1}, y in {0..m-1}); neighbours are all
    input pairs (local DP), so `ldp_epsilon`, `privacy_profile` and `privacy_epsilon` give its exact eps (AAC-T1).
    `n_outputs` = m, by default ``table.max() + 1``; a table value outside {0..m-1} is an error. `key_probs`
    (summing to 1 ± 1e-12) is stored divided by its sum: the channel and the sampler use that one law.
    Randomness (bits): ``randomness_bits`` = H(U); ``output_entropy_bits`` = max_x H(Y | X = x) <= H(U).
    """

    checked_rows: ClassVar[bool] = True  # the matrix is built and checked here

    table: NDArray[np.int64]
    key_probs: NDArray[np.float64]
    n_outputs: int | None = None

    def __post_init__(self) -> None:
        table = _check_table(self.table)
        raw = check_probability_vector("key_probs", self.key_probs)
        probs = readonly(raw / raw.sum())  # normalised once: the law both certified (`matrix`) and sampled
        if ((probs > 0) & (probs < _TINY)).any():  # the channel's entries are sums of these: keep them normal
            raise fail("key_probs", "0 or a normal double (>= 2.2250738585072014e-308) each, so that the channel's "
                       "log-ratios are exact", float(probs[(probs > 0) & (probs < _TINY)][0]))
        if probs.size != table.shape[1]:
            raise IncompatibleSpaces(f"`key_probs` has {probs.size} keys but `table` has {table.shape[1]} key "
                                     f"columns (table[x, u] needs one probability per column u).")
        top = int(table.max())
        m = top + 1 if self.n_outputs is None else check_int("n_outputs", self.n_outputs, minimum=1)
        if top >= m:
            raise fail("table", f"outputs in {{0..{m - 1}}} (n_outputs={m})", top)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "key_probs", probs)
        object.__setattr__(self, "n_outputs", m)

    @cached_property
    def matrix(self) -> NDArray[np.float64]:  # type: ignore[override]
        """Q[x, y] = Σ_{u: g(x, u) = y} q_u (one scatter-add per input)."""
        k, _ = self.table.shape
        out = np.zeros((k, self.n_outputs))
        rows = np.broadcast_to(np.arange(k)[:, None], self.table.shape)
        np.add.at(out, (rows, self.table), np.broadcast_to(self.key_probs, self.table.shape))
        return readonly(out / out.sum(axis=1, keepdims=True))

    @cached_property
    def channel(self) -> FiniteKernel:
        """The channel Q as a `FiniteKernel` (`>>`, `ldp_epsilon`, `dobrushin` accept it)."""
        return FiniteKernel(self.matrix)

    @property
    def neighbours(self) -> AllPairs:
        return AllPairs()

    @property
    def randomness_bits(self) -> float:
        """H(U) in bits: the private randomness per use (SRP-D)."""
        return entropy_bits(self.key_probs)

    @property
    def output_entropy_bits(self) -> float:
        """max_x H(Y | X = x) in bits (SRP-D's R)."""
        return max(entropy_bits(row) for row in self.matrix)

    def sample_with_keys(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False
                         ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(y, u): one fresh key u_i ~ q per input and y_i = table[x_i, u_i] (see `draw_keys` for `secure`)."""
        states = check_reporters("x", x, self.table.shape[0])
        keys = draw_keys(self.key_probs, states.size, rng=rng, secure=secure).reshape(states.shape)
        return self.table[states, keys], keys

    def sample(self, x: ArrayLike, *, rng: RNGLike = None, secure: bool = False) -> NDArray[np.int64]:
        """y_i = table[x_i, u_i] with fresh keys (``secure=True``: keys from the OS CSPRNG, `draw_keys`)."""
        return self.sample_with_keys(x, rng=rng, secure=secure)[0]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, KeyedMechanism) and self.n_outputs == other.n_outputs
                and np.array_equal(self.table, other.table) and np.array_equal(self.key_probs, other.key_probs))

    def __hash__(self) -> int:
        return hash((self.table.tobytes(), self.table.shape, self.key_probs.tobytes(), self.n_outputs))

    def __repr__(self) -> str:
        k, n_keys = self.table.shape
        table = repr(self.table.tolist()) if self.table.size <= 25 else f"<{k}x{n_keys} table>"
        probs = repr(np.round(self.key_probs, 4).tolist()) if self.key_probs.size <= 25 else f"<{n_keys} keys>"
        return f"KeyedMechanism(table={table}, key_probs={probs}, n_outputs={self.n_outputs})"


def randomness_bits(mechanism: Any) -> float:
    """The private random bits per use: H(U) of a keyed mechanism, or the object's own `randomness_bits`
    (e.g. a frequency oracle). TypeError for anything else."""
    value = getattr(mechanism, "randomness_bits", None)
    if value is None:
        raise fail("mechanism", "a KeyedMechanism or an object with a `randomness_bits` property",
                   type(mechanism).__name__, TypeError)
    return float(value)


def output_entropy_bits(mechanism: Any) -> float:
    """max_x H(Y | X = x) in bits (SRP-D's R): the object's `output_entropy_bits`, else from its `matrix`
    rows. TypeError for an object with neither."""
    value = getattr(mechanism, "output_entropy_bits", None)
    if value is not None:
        return float(value)
    matrix = getattr(mechanism, "matrix", None)
    if matrix is None:
        raise fail("mechanism", "an object with `output_entropy_bits` or a row-stochastic `matrix`",
                   type(mechanism).__name__, TypeError)
    return max(entropy_bits(row) for row in np.asarray(matrix, dtype=np.float64))
