"""The all-pairs Rényi path of a finite mechanism with its alpha-independent work kept on the pair set
(`RenyiRows`, `pair_maxima._renyi_rows`): values against mpmath over every pair, the same doubles as a fresh
computation however the calls come (other orders, many orders in blocks, inf, threads), and the integer-bit row scan
of the candidate bound against a plain float loop. THEORY: Notation (R_alpha, D_inf). No timing assertions.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from oracles import mp_renyi_atoms

import markovdp as md
from markovdp.divergences.exact import finite
from markovdp.divergences.exact.finite import RenyiRows, renyi_finite_worst
from markovdp.guarantees import pair_maxima
from markovdp.mechanisms.base import AllPairs, neighbour_pairs


def random_rows(rng, k, m, zeros=0.0, power=1.0):
    matrix = rng.random((k, m)) ** power
    matrix[rng.random((k, m)) < zeros] = 0.0
    matrix[:, 0] += 1e-3  # no empty row
    return matrix / matrix.sum(axis=1, keepdims=True)


def mp_worst(matrix, alpha):
    """max over ordered pairs i != j of R_alpha(row i || row j), 60 digits (inf where a support is not nested)."""
    k = matrix.shape[0]
    out = []
    for a in alpha:
        values = []
        for i in range(k):
            for j in range(k):
                if i == j:
                    continue
                p, q = matrix[i], matrix[j]
                if np.any((p > 0) & (q == 0)):
                    values.append(math.inf)
                    continue
                keep = p > 0
                values.append(mp_renyi_atoms(p[keep], q[keep], a))
        out.append(max(values))
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_cached_all_pairs_renyi_matches_mpmath_call_after_call(seed):
    """One mechanism asked three times with other orders: each answer within 1e-12 of 60 digits (the product form's
    error, about (m + alpha max|log p|) ulps of the log-sum) and bit for bit a fresh computation's."""
    rng = np.random.default_rng(900 + seed)
    k, m = (8, 11) if seed < 2 else (6, 40)
    matrix = random_rows(rng, k, m, power=rng.uniform(0.5, 6.0))
    mech = md.FiniteMechanism(matrix)
    index = neighbour_pairs(AllPairs(), k)
    for alpha in (np.array([1.5, 2.0, 8.0, 32.0]), np.array([1.01, 3.0]), np.array([2.0, 64.0, 1e3, math.inf])):
        got = md.renyi_profile(mech, alpha)
        finite_alpha = np.isfinite(alpha)
        np.testing.assert_allclose(got[finite_alpha], mp_worst(mech.matrix, alpha[finite_alpha]), rtol=1e-12)
        fresh = renyi_finite_worst(mech.matrix, index, alpha, all_pairs=True)
        np.testing.assert_array_equal(got[finite_alpha], fresh[finite_alpha])
        if not finite_alpha.all():  # R_inf: the pure-DP eps, rounded up, never below 60 digits
            assert got[~finite_alpha][0] >= mp_worst(mech.matrix, [math.inf])[0]
    assert "_renyi_rows" in mech.dominating_pairs().__dict__  # kept on the pair set


def test_many_orders_run_in_blocks_with_the_same_doubles(monkeypatch):
    """More orders than one block holds (and a last partial block), inf among them: the values of one order at a
    time; a user's index pair set (not all pairs) too."""
    rng = np.random.default_rng(905)
    matrix = random_rows(rng, 7, 13, zeros=0.0, power=3.0)
    alpha = np.concatenate([np.geomspace(1.001, 500.0, 37), [math.inf, 2.5]])
    index = neighbour_pairs(AllPairs(), 7)
    one_at_a_time = np.array([renyi_finite_worst(matrix, index, [a], all_pairs=True)[0] for a in alpha])
    rows = RenyiRows(matrix, index, all_pairs=True)
    monkeypatch.setattr(finite, "_ORDERS_BLOCK", 3 * (2 * 7 * 13 + 7 * 7))  # three orders a block
    np.testing.assert_array_equal(rows.worst(alpha), one_at_a_time)
    np.testing.assert_array_equal(rows.worst(alpha[::-1]), one_at_a_time[::-1])  # a block of another size
    listed = index[::3]
    np.testing.assert_array_equal(RenyiRows(matrix, listed).worst(alpha),
                                  [renyi_finite_worst(matrix, listed, [a])[0] for a in alpha])
    np.testing.assert_allclose(rows.worst(alpha[:-2]), mp_worst(matrix, alpha[:-2]), rtol=1e-12)


def test_threads_share_the_cached_pair_set():
    """Each thread has its own scratch arrays: concurrent calls on one mechanism give the single-thread values."""
    rng = np.random.default_rng(906)
    mech = md.FiniteMechanism(random_rows(rng, 30, 30, power=2.0))
    orders = [np.array([1.5 + t, 2.0 * (t + 1), 30.0 + t]) for t in range(6)]
    expected = [md.renyi_profile(mech, a) for a in orders]
    results: dict[int, list[np.ndarray]] = {}

    def work(t):
        results[t] = [md.renyi_profile(mech, orders[t]) for _ in range(40)]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for t in range(6):
        for got in results[t]:
            np.testing.assert_array_equal(got, expected[t])


def test_nested_and_unnested_supports_and_big_matrices_are_not_kept():
    """A zero of one row where another is positive: inf at every finite order (as mpmath); a pair set past
    `_KEEP_RENYI_ROWS` entries computes without keeping anything."""
    rng = np.random.default_rng(907)
    matrix = random_rows(rng, 5, 9, zeros=0.3)
    mech = md.FiniteMechanism(matrix)
    alpha = np.array([1.5, 4.0])
    np.testing.assert_array_equal(md.renyi_profile(mech, alpha), mp_worst(mech.matrix, alpha))
    big = md.FiniteMechanism(random_rows(rng, 3, 2**21 + 1))
    assert big.matrix.size > pair_maxima._KEEP_RENYI_ROWS
    md.renyi_profile(big, np.array([2.0]))
    assert "_renyi_rows" not in big.dominating_pairs().__dict__


def plain_row_tops(s, listed, scale):
    """min of the listed s (inf if none) and per row max(0, max over listed s scale), in plain Python floats."""
    lowest, tops = math.inf, []
    for u in range(s.shape[0]):
        top = 0.0
        for v in range(s.shape[1]):
            if listed[u, v]:
                lowest = min(lowest, float(s[u, v]))
                top = max(top, float(s[u, v]) * float(scale[v]))
        tops.append(top)
    return lowest, np.array(tops)


@pytest.mark.parametrize("seed", range(4))
def test_integer_bit_row_scan_is_the_float_scan(seed):
    """`_listed_row_tops` reduces the bit patterns of non-negative doubles as int64: the same min and maxima as
    float comparisons, with zeros, subnormals, ties, empty rows and nothing listed."""
    from markovdp.divergences.exact._finite_kernels import _listed_row_tops

    rng = np.random.default_rng(910 + seed)
    for trial in range(30):
        k_l, k_r = int(rng.integers(1, 12)), int(rng.integers(1, 40))
        s = rng.random((k_l, k_r)) ** rng.uniform(1.0, 400.0)
        s[rng.random(s.shape) < 0.15] = 0.0
        s[rng.random(s.shape) < 0.05] = 5e-324
        if trial % 5 == 0:
            s[:, : k_r // 2] = s[0, 0]
        listed = rng.random(s.shape) < (0.0 if trial == 7 else rng.uniform(0.0, 1.0))
        scale = rng.random(k_r) ** rng.uniform(1.0, 50.0)
        tops = np.empty(k_l)
        lowest = _listed_row_tops(s, listed, scale, tops, np.empty(k_r))
        want_lowest, want_tops = plain_row_tops(s, listed, scale)
        assert lowest == want_lowest
        np.testing.assert_array_equal(tops, want_tops)


def test_a_mechanism_that_keeps_its_renyi_work_pickles():
    """The pair set keeps `RenyiRows` in its ``__dict__``; a pickled mechanism (to a dask worker) carries it as its
    arguments and gives the same values after loading."""
    import pickle

    rng = np.random.default_rng(908)
    mech = md.FiniteMechanism(random_rows(rng, 6, 9, power=2.0))
    alpha = np.array([1.5, 3.0, math.inf])
    before = md.renyi_profile(mech, alpha)
    loaded = pickle.loads(pickle.dumps(mech))
    assert "_renyi_rows" in loaded.dominating_pairs().__dict__
    np.testing.assert_array_equal(md.renyi_profile(loaded, alpha), before)
