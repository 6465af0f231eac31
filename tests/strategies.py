"""Hypothesis strategies: random finite kernels and mechanisms, sparse and near-deterministic included."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def stochastic_matrices(draw, rows=None, cols=None):
    """A row-stochastic matrix with 2..8 rows/columns: dense, sparse (zeros), or near-deterministic."""
    k = draw(st.integers(2, 8)) if rows is None else rows
    m = draw(st.integers(1, 8)) if cols is None else cols
    seed = draw(st.integers(0, 2**32 - 1))
    style = draw(st.sampled_from(["dense", "sparse", "near_deterministic", "identical_rows"]))
    rng = np.random.default_rng(seed)
    raw = rng.random((k, m)) ** draw(st.sampled_from([1.0, 3.0]))
    if style == "sparse":
        raw[rng.random((k, m)) < 0.5] = 0.0
        raw[np.arange(k), rng.integers(0, m, size=k)] += rng.random(k) + 1e-3
    elif style == "near_deterministic":
        raw = np.full((k, m), 10.0 ** -draw(st.integers(3, 9))) * rng.random((k, m))
        raw[np.arange(k), rng.integers(0, m, size=k)] = 1.0
    elif style == "identical_rows":
        raw = np.tile(raw[:1], (k, 1))
    return raw / raw.sum(axis=1, keepdims=True)


@st.composite
def neighbour_relations(draw, k):
    """None (all pairs) or a non-empty list of distinct index pairs."""
    if k == 2 or draw(st.booleans()):
        return None if draw(st.booleans()) else [(0, 1)]
    pairs = draw(st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=1, max_size=4))
    return pairs


#: eps in nats: mostly moderate, with the extremes (e^eps overflows past 709.78; inf is the D_inf limit).
eps_values = st.one_of(st.floats(0.0, 5.0),
                       st.sampled_from([0.0, 1e-9, 0.5, 10.0, 50.0, 100.0, 709.5, 710.0, 800.0, float("inf")]))
