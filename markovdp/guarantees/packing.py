"""The AAC hypercube packing: at least ceil(e^{k/16}) vectors of {−1, 1}^k with pairwise l1 distance >= k/2.

THEORY: AAC-Fano. Built greedily from uniform random candidates (Gilbert–Varshamov): a candidate is kept when its
Hamming distance to every kept vector is >= ceil(k/4) (l1 = 2 · Hamming). A Hamming ball of radius k/4 holds at most
2^{k H2(1/4)} points, so a maximal such code has >= 2^{k (1 − H2(1/4))} ≈ e^{0.131 k} > e^{k/16} vectors; random
candidates reach ceil(e^{k/16}) quickly for every supported k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, fail, readonly

#: The largest dimension `hypercube_packing` builds (ceil(e^{128/16}) = 2981 vectors; pairwise checks ~k N²).
MAX_PACKING_K = 128
#: The largest k whose size ceil(e^{k/16}) `packing_size` computes (e^{k/16} overflows a float beyond ~11356).
MAX_SIZE_K = 11_200
#: Random candidates drawn per vector needed before `hypercube_packing` gives up (never reached for k <= 128).
CANDIDATES_PER_VECTOR = 1000
#: Candidates drawn and checked against the kept vectors at once.
BATCH = 64


def packing_size(k: int) -> int:
    """ceil(e^{k/16}), the number of vectors the AAC packing of {−1, 1}^k has (e^{k/16} is never an integer)."""
    k = check_int("k", k, minimum=1)
    if k > MAX_SIZE_K:
        raise fail("k", f"at most {MAX_SIZE_K} (e^(k/16) overflows a float beyond)", k)
    return math.ceil(math.exp(k / 16.0))


def hypercube_packing(k: int, *, rng: RNGLike = 0) -> NDArray[np.int8]:
    """ceil(e^{k/16}) vectors of {−1, 1}^k, pairwise l1 distance >= k/2 (THEORY: AAC-Fano), one per row.

    Greedy Gilbert–Varshamov construction from uniform random candidates drawn with ``numpy.random.default_rng(seed)``:
    the same seed gives the same packing. The result is checked (`check_packing`) before it is returned.

    Parameters
    ----------
    k : int
        The dimension, 1 <= k <= `MAX_PACKING_K`.
    rng : Generator, int seed, SeedSequence or None, default 0
        The randomness of the candidates (an int seed: a deterministic packing).

    Raises
    ------
    ValueError
        `k` < 1 or > `MAX_PACKING_K`.
    """
    k = check_int("k", k, minimum=1)
    if k > MAX_PACKING_K:
        raise fail("k", f"at most {MAX_PACKING_K} (the packing has ceil(e^(k/16)) vectors, {packing_size(k)} at "
                        f"this k, each checked against the others)", k)
    need, radius = packing_size(k), math.ceil(k / 4.0)
    generator = as_generator(rng)
    kept = np.empty((need, k), dtype=np.float64)
    count, drawn = 0, 0
    while count < need:
        if drawn > CANDIDATES_PER_VECTOR * need:  # pragma: no cover - GV: the code can hold far more vectors
            raise RuntimeError(f"hypercube_packing({k}): only {count} of {need} vectors found.")
        batch = generator.choice(np.array([-1.0, 1.0]), size=(BATCH, k))
        drawn += BATCH
        # l1 = k − <u, v> (twice the Hamming distance), exact in floats (integers below 2^53)
        if count:
            batch = batch[(k - batch @ kept[:count].T).min(axis=1) >= 2 * radius]
        gram = k - batch @ batch.T
        chosen: list[int] = []
        for i in range(batch.shape[0]):  # greedy within the batch, in draw order
            if count + len(chosen) < need and all(gram[i, j] >= 2 * radius for j in chosen):
                chosen.append(i)
        kept[count:count + len(chosen)] = batch[chosen]
        count += len(chosen)
    vectors = kept.astype(np.int8)
    if not check_packing(vectors).ok:  # pragma: no cover - the construction guarantees it
        raise RuntimeError(f"hypercube_packing({k}) built an invalid packing.")
    return readonly(vectors)


@dataclass(frozen=True)
class PackingCheck:
    """What `check_packing` found: ``size`` vectors of {−1, 1}^``k``, their least pairwise l1 distance
    ``min_l1`` (inf for one vector), the AAC requirements ``required_size`` = ceil(e^{k/16}) and
    ``required_l1`` = k/2, and ``ok`` when both hold."""

    k: int
    size: int
    min_l1: float
    required_size: int
    required_l1: float
    ok: bool


def check_packing(vectors: ArrayLike) -> PackingCheck:
    """Check a packing of the hypercube against AAC's requirements (THEORY: AAC-Fano): pairwise l1 >= k/2 and at
    least ceil(e^{k/16}) vectors; the distances exactly, ``l1(u, v) = k − <u, v>``.

    Parameters
    ----------
    vectors : array-like (N, k)
        Entries in {−1, 1}, N >= 1.

    Raises
    ------
    ValueError
        Not a non-empty 2-D array of ±1 entries.
    """
    arr = np.asarray(vectors)
    if arr.ndim != 2 or arr.size == 0:
        raise fail("vectors", "a non-empty 2-D array (N, k)", f"shape {arr.shape}")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise fail("vectors", "an array of entries in {-1, 1}", f"dtype {arr.dtype}", TypeError)
    if not np.all((arr == 1) | (arr == -1)):
        raise fail("vectors", "an array of entries in {-1, 1}", "another entry")
    signs = arr.astype(np.float64)  # BLAS; the inner products are integers below 2^53, so exact
    n, k = signs.shape
    if n == 1:
        min_l1 = math.inf
    else:
        l1 = k - signs @ signs.T
        min_l1 = float(l1[np.triu_indices(n, 1)].min())
    required = packing_size(k)
    return PackingCheck(k, n, min_l1, required, k / 2.0, bool(min_l1 >= k / 2.0 and n >= required))


__all__ = ["MAX_PACKING_K", "PackingCheck", "check_packing", "hypercube_packing", "packing_size"]
