"""Private recoverability (SRP-Rec) and key reuse over T samples (SRP-Seq), against independent computations."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.exact import privacy_epsilon
from markovdp.guarantees.srp import compare_key_reuse
from markovdp.mechanisms.finite import FiniteMechanism, RandomizedResponse
from markovdp.mechanisms.local.key_reuse import per_sample_epsilon, sequence_channel
from markovdp.mechanisms.local.keyed import KeyedMechanism
from markovdp.mechanisms.local.recoverable import (
    RecoverableMechanism,
    min_recoverable_randomness,
    min_recoverable_s,
    q_min,
)
from markovdp.operators.algebra import tensor_power
from markovdp.operators.finite import FiniteKernel


def entropy_direct(p) -> float:
    return -sum(v * math.log2(v) for v in p if v > 0)


def q_min_textbook(k: int, eps: float, s: int) -> list[float]:
    """THEORY SRP-Rec as written: s entries e^eps/(s e^eps + k − s), k − s entries 1/(s e^eps + k − s)."""
    d = s * math.exp(eps) + k - s
    return [math.exp(eps) / d] * s + [1.0 / d] * (k - s)


def additive_channel_bruteforce(k: int, q) -> np.ndarray:
    """Q[x, y] = P((x + U) mod k = y) by a loop over x and u."""
    out = np.zeros((k, k))
    for x in range(k):
        for u in range(k):
            out[x, (x + u) % k] += q[u]
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 50.0])
def test_public_view_is_exactly_eps_ldp(k, eps):
    """SRP-Rec: Y = X + U mod k, U ~ q_min^s: the public channel's exact eps (AAC-T1) is eps, for every s."""
    for s in range(1, k):
        mech = RecoverableMechanism(k, eps, s)
        np.testing.assert_allclose(mech.key_probs, q_min_textbook(k, eps, s), rtol=1e-13)
        np.testing.assert_allclose(mech.matrix, additive_channel_bruteforce(k, mech.key_probs), rtol=1e-14)
        assert ldp_epsilon(mech.channel) == pytest.approx(eps, abs=1e-12)
        assert mech.randomness_bits == pytest.approx(entropy_direct(mech.key_probs), abs=1e-12)
    assert privacy_epsilon(RecoverableMechanism(k, eps, 1), 0.0) == pytest.approx(eps, abs=1e-12)


@settings(max_examples=100)
@given(st.integers(2, 9), st.floats(0.0, 30.0), st.data())
def test_recover_after_sample_is_identity(k, eps, data):
    """SRP-Rec: (Y − U) mod k = X on every sample, on the research and the secure path."""
    s = data.draw(st.integers(1, k - 1))
    mech = RecoverableMechanism(k, eps, s)
    x = np.arange(200) % k
    for secure in (False, True):
        y, u = mech.sample_with_keys(x, rng=data.draw(st.integers(0, 2**16)), secure=secure)
        np.testing.assert_array_equal(mech.recover(y, u), x)
        np.testing.assert_array_equal(y, mech.keyed.table[x, u])


def test_public_samples_follow_the_channel():
    """Y's frequencies given X match Q's rows within 5 binomial sd (seeded)."""
    mech = RecoverableMechanism(5, 1.0, 2)
    n = 40_000
    for x in range(5):
        freq = np.bincount(mech.sample(np.full(n, x), rng=x), minlength=5) / n
        sd = np.sqrt(mech.matrix[x] * (1 - mech.matrix[x]) / n)
        assert np.all(np.abs(freq - mech.matrix[x]) <= 5 * sd)


def test_keyed_view_agrees():
    """The KeyedMechanism form has the same channel and randomness."""
    mech = RecoverableMechanism(6, 0.7, 3)
    np.testing.assert_allclose(mech.keyed.matrix, mech.matrix, rtol=1e-14)
    assert mech.keyed.randomness_bits == pytest.approx(mech.randomness_bits, abs=1e-14)
    assert mech.output_entropy_bits == pytest.approx(mech.keyed.output_entropy_bits, abs=1e-12)
    assert repr(mech) == "RecoverableMechanism(k=6, eps=0.7, s=3)"


def test_min_randomness_special_cases():
    """SRP-Rec: s = 3 at k = 8, eps = 0.5; s = 1 (RR's key) at large eps; s = k/2 near eps = 0; uniform at 0."""
    assert min_recoverable_s(8, 0.5) == 3
    for k in (2, 3, 4, 8, 16):
        rr_key = RandomizedResponse(k, 8.0).matrix[0]
        assert min_recoverable_s(k, 8.0) == 1
        assert min_recoverable_randomness(k, 8.0) == pytest.approx(entropy_direct(rr_key), abs=1e-12)
        assert min_recoverable_randomness(k, 0.0) == pytest.approx(math.log2(k), abs=1e-12)
        near = [entropy_direct(q_min_textbook(k, 1e-3, s)) for s in range(1, k)]
        assert min_recoverable_randomness(k, 1e-3) == pytest.approx(min(near), abs=1e-15)
        assert min_recoverable_s(k, 1e-3) in {k // 2, (k + 1) // 2}
        if k % 2 == 0:
            assert min_recoverable_randomness(k, 1e-3) == pytest.approx(entropy_direct(q_min_textbook(k, 1e-3, k // 2)),
                                                                      abs=1e-15)


@settings(max_examples=200)
@given(st.integers(2, 16), st.floats(0.0, 20.0), st.floats(0.0, 20.0))
def test_min_randomness_non_increasing(k, a, b):
    """SRP-Rec: min_s H(q_min^s) is non-increasing in eps, and it is the minimum of the direct entropy sums."""
    lo, hi = sorted((a, b))
    assert min_recoverable_randomness(k, hi) <= min_recoverable_randomness(k, lo) + 1e-12
    direct = [entropy_direct(q_min_textbook(k, lo, s)) for s in range(1, k)]
    assert min_recoverable_randomness(k, lo) == pytest.approx(min(direct), abs=1e-12)
    assert min_recoverable_s(k, lo) - 1 in np.flatnonzero(np.isclose(direct, min(direct), atol=1e-12))


def _additive_vertices(k: int, eps: float):
    """Every law on Z_k with entries in {e^eps b, b} (the vertices of {q : q_i <= e^eps q_j})."""
    for pattern in itertools.product([0, 1], repeat=k):
        s = sum(pattern)
        if 0 < s < k:
            d = s * math.exp(eps) + k - s
            yield [math.exp(eps) / d if bit else 1.0 / d for bit in pattern]


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_formula_is_the_additive_vertex_minimum(k, eps):
    """The minimum of the concave H over the eps-LDP additive-key polytope is at a vertex: enumerate them all."""
    best = min(entropy_direct(q) for q in _additive_vertices(k, eps))
    assert min_recoverable_randomness(k, eps) == pytest.approx(best, abs=1e-12)


@st.composite
def recoverable_tables(draw):
    """A random recoverable table: each key u is an injection x ↦ g(x, u) of {0..k-1} into {0..m-1}."""
    k = draw(st.integers(2, 4))
    m = draw(st.integers(k, k + 2))
    n = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    table = np.stack([rng.permutation(m)[:k] for _ in range(n)], axis=1)
    probs = rng.dirichlet(np.full(n, draw(st.sampled_from([0.3, 1.0, 5.0]))))
    probs = np.maximum(probs, 1e-6)
    return table, probs / probs.sum(), m


@settings(max_examples=200)
@given(recoverable_tables())
def test_no_recoverable_mechanism_beats_the_formula(case):
    """Derived lower bound (docs SRP-Rec): every recoverable keyed mechanism with exact eps has
    H(U) >= H(X | Y) (uniform X) >= min_s H(q_min^s) at that eps. Checked on random injective tables."""
    table, probs, m = case
    mech = KeyedMechanism(table, probs, n_outputs=m)
    eps = ldp_epsilon(mech)
    k = table.shape[0]
    joint = mech.matrix / k
    py = joint.sum(axis=0)
    h_x_given_y = sum(py[y] * entropy_direct(joint[:, y] / py[y]) for y in range(m) if py[y] > 0)
    assert mech.randomness_bits >= h_x_given_y - 1e-12
    if math.isfinite(eps):
        assert h_x_given_y >= min_recoverable_randomness(k, eps) - 1e-9


def test_recoverable_search_table():
    """simulations/recoverable_search.py's table: no family beat the formula (gap >= −1e-9 at the exact eps)."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "recoverable_search.csv"  # committed with the script
    rows = list(csv.DictReader(path.open()))
    assert {int(r["k"]) for r in rows} == {2, 3, 4}
    for row in rows:
        assert float(row["gap_bits"]) >= -1e-9
        assert float(row["best_bits"]) >= float(row["posterior_bound_bits"]) - 1e-9


# ----------------------------------------------------------------------------- SRP-Seq: key reuse


def reused_channel_bruteforce(table, probs, T: int) -> np.ndarray:
    """Q_T[x, y] = Σ_u q_u Π_t 1{g(x_t, u) = y_t}, by loops over input tuples, keys and samples."""
    k, m = table.shape[0], int(table.max()) + 1
    out = np.zeros((k**T, m**T))
    for i, xs in enumerate(itertools.product(range(k), repeat=T)):
        for u, q in enumerate(probs):
            ys = [int(table[x, u]) for x in xs]
            out[i, int(np.ravel_multi_index(ys, (m,) * T))] += q
    return out


def per_sample_neighbours(k: int, T: int) -> list[tuple[int, int]]:
    tuples = list(itertools.product(range(k), repeat=T))
    return [(i, j) for i, a in enumerate(tuples) for j, b in enumerate(tuples)
            if i < j and sum(p != q for p, q in zip(a, b, strict=True)) == 1]


@pytest.mark.parametrize(("k", "T", "eps", "s"), [(2, 2, 1.0, 1), (2, 3, 0.5, 1), (3, 2, 2.0, 1), (4, 2, 1.0, 2),
                                                 (3, 3, 0.3, 2)])
def test_key_reuse_breaks_ldp_fresh_keys_cost_T_times(k, T, eps, s):
    """SRP-Seq: fresh keys — tuple eps = T eps, per-sample eps = eps, T H(U) bits; one reused key — the output
    reveals X_t − X_s, so tuple and per-sample eps are infinite, with H(U) bits. Channels checked by enumeration
    (reuse) and against tensor_power (fresh); per-sample eps also from privacy_epsilon with IndexPairs."""
    mech = RecoverableMechanism(k, eps, s)
    fresh = sequence_channel(mech, T, reuse=False)
    reused = sequence_channel(mech, T, reuse=True)
    np.testing.assert_allclose(fresh.matrix, tensor_power(FiniteKernel(mech.matrix), T).matrix, rtol=1e-12)
    np.testing.assert_allclose(reused.matrix, reused_channel_bruteforce(mech.table, mech.key_probs, T), atol=1e-15)
    pairs = per_sample_neighbours(k, T)
    fresh_sample = privacy_epsilon(FiniteMechanism(fresh.matrix, neighbours=pairs), 0.0)
    reused_sample = privacy_epsilon(FiniteMechanism(reused.matrix, neighbours=pairs), 0.0)
    assert fresh_sample == pytest.approx(eps, abs=1e-12)
    assert per_sample_epsilon(fresh, k, T) == pytest.approx(fresh_sample, abs=1e-12)
    assert reused_sample == math.inf and per_sample_epsilon(reused, k, T) == math.inf
    report = compare_key_reuse(mech, T)
    assert report.tuple_eps_fresh == pytest.approx(T * eps, abs=1e-11)
    assert report.tuple_eps_reused == math.inf and report.sample_eps_reused == math.inf
    assert report.sample_eps_fresh == pytest.approx(eps, abs=1e-12)
    assert report.bits_fresh == pytest.approx(T * entropy_direct(mech.key_probs), abs=1e-12)
    assert report.bits_reused == pytest.approx(entropy_direct(mech.key_probs), abs=1e-12)


def test_key_reuse_single_sample_and_generic_keyed():
    """T = 1: reuse = fresh. A non-additive keyed mechanism (RR: keep x or output a key symbol) also breaks."""
    mech = RecoverableMechanism(3, 1.0, 1)
    one = compare_key_reuse(mech, 1)
    assert one.tuple_eps_reused == pytest.approx(1.0, abs=1e-12) == pytest.approx(one.tuple_eps_fresh)
    t = math.exp(-1.0)
    rr = KeyedMechanism([[0, 0, 1], [1, 0, 1]], [(1 - t) / (1 + t), t / (1 + t), t / (1 + t)])
    assert ldp_epsilon(rr) == pytest.approx(1.0, abs=1e-12)
    report = compare_key_reuse(rr, 2)
    assert report.tuple_eps_fresh == pytest.approx(2.0, abs=1e-12)
    assert report.sample_eps_reused == math.inf


def test_recoverable_bad_input():
    """§7: s outside 1..k−1, k < 2, eps < 0 or non-finite — each names its parameter."""
    for s in (0, 4, -1):
        with pytest.raises(ValueError, match="`s`"):
            RecoverableMechanism(4, 1.0, s)
        with pytest.raises(ValueError, match="`s`"):
            q_min(4, 1.0, s)
    with pytest.raises(TypeError, match="`s`"):
        RecoverableMechanism(4, 1.0, 1.5)
    for k in (1, 0):
        with pytest.raises(ValueError, match="`k`"):
            RecoverableMechanism(k, 1.0, 1)
        with pytest.raises(ValueError, match="`k`"):
            min_recoverable_randomness(k, 1.0)
    for eps in (-0.1, math.inf, math.nan):
        with pytest.raises(ValueError, match="`eps`"):
            RecoverableMechanism(4, eps, 1)
        with pytest.raises(ValueError, match="`eps`"):
            min_recoverable_randomness(4, eps)
        with pytest.raises(ValueError, match="`eps`"):
            min_recoverable_s(4, eps)
    with pytest.raises(ValueError, match="`eps`.*normal double"):  # a subnormal key probability: no exact eps
        RecoverableMechanism(4, 709.0, 2)
    assert min_recoverable_randomness(4, 800.0) == 0.0  # the entropy itself needs no exact ratio
    mech = RecoverableMechanism(4, 1.0, 1)
    with pytest.raises(ValueError, match="`u`"):
        mech.recover([0, 1], [0, 4])
    with pytest.raises(ValueError, match="`T`"):
        sequence_channel(mech, 0, reuse=True)
    with pytest.raises(ValueError, match="`T`"):
        sequence_channel(mech, 7, reuse=True)  # 4^7 > 4096 tuples
    with pytest.raises(TypeError, match="`mechanism`"):
        sequence_channel(RandomizedResponse(2, 1.0), 2, reuse=True)


def mp_key_entropies(k: int, eps: float) -> list[float]:
    """H(q_min^s) for s = 1..k−1 in bits, by the defining sum in mpmath (60 digits more than e^-eps needs, so
    that 1 − e^-eps is not rounded to 1)."""
    out = []
    with mpmath.workdps(60 + int(eps / 2.3)):
        e = mpmath.mpf(eps)
        for s in range(1, k):
            total = s * mpmath.e**e + k - s
            big, small = mpmath.e**e / total, 1 / total
            out.append(float(-(s * big * mpmath.log(big, 2) + (k - s) * small * mpmath.log(small, 2))))
    return out


@pytest.mark.parametrize("eps", [20.0, 40.0, 50.0, 700.0])
def test_srp_rec_min_randomness_against_mpmath_at_large_eps(eps):
    """The closed form H = [ln D + (k − s) t eps / D] / ln 2 (t = e^-eps, D = s + (k − s) t) is mpmath's
    entropy of q_min^s to 1e-12 relative at every s, up to eps = 700 (the entry 1/D rounds to 1 from eps ≈ 37,
    which cost 2.4 % at k = 2, eps = 40); s = 1 is k-ary RR's key: equal to RR's randomness_bits."""
    for k in (2, 3, 8):
        exact = mp_key_entropies(k, eps)
        assert min_recoverable_randomness(k, eps) == pytest.approx(min(exact), rel=1e-12, abs=0)
        for s in range(1, k):
            assert RecoverableMechanism(k, eps, s).randomness_bits == pytest.approx(exact[s - 1], rel=1e-12, abs=0)
        if eps <= 50:
            assert min_recoverable_randomness(k, eps) == pytest.approx(RandomizedResponse(k, eps).randomness_bits,
                                                                       rel=1e-12, abs=0)


def test_srp_rec_min_randomness_beyond_representable_keys():
    """Decided: the entropy needs no key law, so min_recoverable_randomness stays defined where q_min refuses
    (its small entry is not a normal double): at eps = 800 the exact value (~1e-344 bits) rounds to 0.0, and
    the argmin is s = 1; q_min and RecoverableMechanism raise ValueError naming `eps`."""
    exact = min(mp_key_entropies(4, 800.0))
    assert min_recoverable_randomness(4, 800.0) == exact == 0.0
    assert min_recoverable_s(4, 800.0) == 1
    for make in (lambda: q_min(4, 800.0, 1), lambda: RecoverableMechanism(4, 800.0)):
        with pytest.raises(ValueError, match="`eps`"):
            make()


def test_srp_rec_argmin_is_stable_at_tiny_eps():
    """min_recoverable_s(33, 1e-6) picked 15 from rounding noise; the entropies of s = 16 and 17 agree to
    rounding there, and near-ties go to floor(k/2). At every (k, eps) the chosen s is a true minimiser
    (mpmath, within 1e-14 relative)."""
    assert min_recoverable_s(33, 1e-6) == 16
    assert min_recoverable_s(32, 1e-6) == 16
    for k in (3, 4, 5, 16, 33):
        for eps in (1e-9, 1e-6, 1e-3, 0.5, 2.0, 8.0):
            exact = mp_key_entropies(k, eps)
            chosen = min_recoverable_s(k, eps)
            assert exact[chosen - 1] <= min(exact) * (1 + 1e-14), (k, eps, chosen)
            if eps <= 1e-6:
                assert chosen == k // 2
