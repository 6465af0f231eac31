"""T samples per user through one keyed mechanism: one key reused for all samples vs fresh keys (SRP-Seq).

Inputs and outputs are T-tuples, indexed in base k with the first sample most significant (`numpy.ravel_multi_index`
order). Two privacy notions of the T-tuple channel are compared, both exactly (AAC-T1):

- tuple LDP: every pair of input tuples are neighbours (`ldp_epsilon` of the channel);
- per-sample LDP: tuples differing in exactly one sample are neighbours (`per_sample_epsilon`).

Fresh keys give the product channel Q^{⊗T}: tuple eps = T · eps and per-sample eps = eps (the other factors
cancel in each likelihood ratio), with T · H(U) bits. A reused key gives
Q_T[x, y] = Σ_u q_u Π_t 1{g(x_t, u) = y_t} with H(U) bits; for an additive key (Y_t = X_t + U mod k) and T >= 2
the output reveals the differences X_t − X_s exactly, so two tuples with different differences — e.g. differing
in one sample — have disjoint supports: both eps are infinite.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..._moved import moved_names
from ..._validation import check_int, check_stochastic_matrix, fail
from ...operators.finite import FiniteKernel

__all__ = ["per_sample_epsilon", "sequence_channel"]

#: The largest k^T the exact T-tuple channel is built for (a (k^T × k^T) float64 matrix: 128 MiB at 4096).
MAX_TUPLES = 4096


def _keyed_parts(mechanism: Any) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    table = getattr(mechanism, "table", None)
    probs = getattr(mechanism, "key_probs", None)
    if table is None or probs is None or not isinstance(probs, np.ndarray):
        raise fail("mechanism", "a keyed mechanism with `table` and a single `key_probs` vector "
                   "(KeyedMechanism, RecoverableMechanism)", type(mechanism).__name__, TypeError)
    m = int(getattr(mechanism, "n_outputs", None) or table.max() + 1)
    return np.asarray(table), np.asarray(probs, dtype=np.float64), m


def _power_up_to(base: int, T: int, limit: int) -> int | None:
    """base^T if it is at most `limit`, else None — without forming a huge power (base >= 2: <= log2(limit) steps)."""
    out = 1
    for _ in range(T):
        out *= base
        if out > limit:
            return None
    return out


def _check_size(k: int, m: int, T: int) -> None:
    if _power_up_to(max(k, m), T, MAX_TUPLES) is None:
        raise fail("T", f"small enough that max(k, m)^T <= {MAX_TUPLES} (k = {k}, m = {m})", T)


def sequence_channel(mechanism: Any, T: int, *, reuse: bool) -> FiniteKernel:
    """The exact channel of T samples: (x_1..x_T) ↦ (g(x_1, U_1), …, g(x_T, U_T)) with fresh keys U_t ~ q
    (``reuse=False``), or with one key U_1 = … = U_T = U ~ q (``reuse=True``) (SRP-Seq)."""
    table, probs, m = _keyed_parts(mechanism)
    T = check_int("T", T, minimum=1)
    k = table.shape[0]
    _check_size(k, m, T)
    xs = np.indices((k,) * T).reshape(T, -1)  # column i = the tuple with flat index i
    if reuse:
        out = np.zeros((k**T, m**T))
        for u, q in enumerate(probs):
            if q > 0:
                ys = np.ravel_multi_index(tuple(table[xs[t], u] for t in range(T)), (m,) * T)
                out[np.arange(k**T), ys] += q
    else:
        single = np.asarray(mechanism.matrix, dtype=np.float64)
        out = np.ones((1, 1))
        for _ in range(T):
            out = np.kron(out, single)
    return FiniteKernel(out / out.sum(axis=1, keepdims=True))


def per_sample_epsilon(channel: Any, k: int, T: int) -> float:
    """max over tuples x, x' differing in exactly one sample and outputs y of |log Q(y|x) − log Q(y|x')| (inf if
    one is 0 and the other is not): the exact per-sample eps of a T-tuple channel on inputs [k]^T (AAC-T1).

    `channel`: a row-stochastic matrix with k^T rows, or an object with one as ``matrix`` (a FiniteKernel from
    `sequence_channel`, a finite mechanism); `k` >= 2, `T` >= 1.
    """
    k = check_int("k", k, minimum=2)
    T = check_int("T", T, minimum=1)
    P = check_stochastic_matrix("channel", getattr(channel, "matrix", channel))
    if _power_up_to(k, T, P.shape[0]) != P.shape[0]:
        raise fail("T", f"such that the channel's {P.shape[0]} rows are the k^T input tuples (k = {k})", T)
    xs = np.indices((k,) * T).reshape(T, -1)
    worst = 0.0
    with np.errstate(divide="ignore"):
        logs = np.log(P)
    for t in range(T):
        for shift in range(1, k):
            other = xs.copy()
            other[t] = (other[t] + shift) % k
            partner = np.ravel_multi_index(tuple(other), (k,) * T)
            a, b = P, P[partner]
            if ((a > 0) != (b > 0)).any():
                return float("inf")
            both = a > 0
            worst = max(worst, float(np.max(np.abs(logs[both] - logs[partner][both]), initial=0.0)))
    return worst

__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.{name}" for name in ("compare_key_reuse", "KeyReuse")})
