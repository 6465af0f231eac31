"""Multi-level privacy with additive keys over Z_k (SRP-ML): exact level eps, randomness, BBGG-T1 prediction."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markovdp.guarantees.coefficients import dobrushin, ldp_epsilon
from markovdp.guarantees.exact import privacy_epsilon
from markovdp.guarantees.srp import multilevel_exact_epsilons, multilevel_predicted_epsilon
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.multilevel import MultiLevelMechanism, added_key_law


def entropy_direct(p) -> float:
    return -sum(v * math.log2(v) for v in p if v > 0)


def h2(p: float) -> float:
    return entropy_direct([p, 1.0 - p])


def view_bruteforce(keys, k: int, j: int) -> np.ndarray:
    """Q[x, z] = P((x + U_1 + … + U_j) mod k = z), by enumerating every key tuple (u_1..u_j)."""
    out = np.zeros((k, k))
    for us in itertools.product(range(k), repeat=j):
        weight = math.prod(keys[i][u] for i, u in enumerate(us))
        for x in range(k):
            out[x, (x + sum(us)) % k] += weight
    return out


def log_ratio_bruteforce(Q) -> float:
    return max(math.log(Q[x, y]) - math.log(Q[x2, y]) for y in range(Q.shape[1]) for x in range(Q.shape[0])
               for x2 in range(Q.shape[0]))


LEVELS = [((1.0,), 2), ((1.0, 0.5), 2), ((2.0, 1.0, 0.5), 2), ((5.0, 2.5), 3), ((4.0, 1.0, 0.25), 4),
          ((50.0, 25.0, 12.5), 2), ((50.0, 49.0), 5), ((1.0, 1e-6), 2), ((3.0, 2.0, 1.0, 0.5), 8)]


@pytest.mark.parametrize(("levels", "k"), LEVELS)
def test_every_level_is_exactly_its_target(levels, k):
    """SRP-ML: analyst j's view X + U_1 + … + U_j (enumerated over key tuples) is exactly eps_j-LDP (AAC-T1)."""
    mech = MultiLevelMechanism(levels, k=k)
    keys = [law.tolist() for law in mech.key_probs]
    for j, target in enumerate(levels, start=1):
        view = mech.view(j)
        if k**j <= 4096:
            np.testing.assert_allclose(view.matrix, view_bruteforce(keys, k, j), rtol=1e-12)
        assert ldp_epsilon(view) == pytest.approx(target, abs=1e-12)
        assert log_ratio_bruteforce(view.matrix) == pytest.approx(target, abs=1e-12)
    assert multilevel_exact_epsilons(mech) == pytest.approx(levels, abs=1e-12)
    assert privacy_epsilon(mech, 0.0) == pytest.approx(levels[-1], abs=1e-12)  # the public output
    np.testing.assert_allclose(mech.key_probs[0], RandomizedResponse(k, levels[0]).matrix[0], rtol=1e-13)


@settings(max_examples=40)
@given(st.integers(2, 6), st.lists(st.floats(0.01, 30.0), min_size=1, max_size=4, unique=True))
def test_random_levels_exact_and_sound(k, raw):
    """Random strictly decreasing levels: each view exact to 1e-12; BBGG-T1's prediction >= the exact eps
    (sound) and, via T1.2, equal to it up to the bisection tolerance (derived in docs SRP-ML)."""
    levels = sorted(raw, reverse=True)
    if any(a - b < 1e-6 for a, b in zip(levels, levels[1:], strict=False)):
        return
    mech = MultiLevelMechanism(levels, k=k)
    assert multilevel_exact_epsilons(mech) == pytest.approx(levels, abs=1e-12)
    for law in mech.key_probs:
        assert law.min() > 0 and law[0] >= law[1:].max()  # a valid symmetric key law
    assert mech.randomness_bits <= mech.trivial_randomness_bits + 1e-12
    for j in range(1, mech.d):
        predicted = multilevel_predicted_epsilon(mech, j)
        pipeline = mech.view(j) >> mech.added_key(j)
        assert dobrushin(pipeline, predicted) == 0.0  # sound for the float matrix itself, not to a tolerance
        assert predicted >= privacy_epsilon(pipeline, 0.0)
        assert predicted <= levels[j] * (1 + 1e-9) + 1e-12


def test_added_key_solves_the_convolution():
    """The added key W satisfies RRkey(eps_from) * W = RRkey(eps_to) on Z_k (cyclic convolution by loops)."""
    for k, e1, e2 in [(2, 2.0, 1.0), (3, 5.0, 0.1), (7, 40.0, 39.5), (4, 1e-3, 1e-4)]:
        w = added_key_law(k, e1, e2)
        a = RandomizedResponse(k, e1).matrix[0]
        conv = [sum(a[u] * w[(z - u) % k] for u in range(k)) for z in range(k)]
        np.testing.assert_allclose(conv, RandomizedResponse(k, e2).matrix[0], rtol=1e-12)
        assert abs(w.sum() - 1.0) <= 1e-15 and w.min() > 0


def test_randomness_against_the_trivial_scheme():
    """SRP-ML: Σ_j H(U_j) (direct sums) vs the trivial Σ_j H2(e^eps_j/(e^eps_j + 1)) for k = 2."""
    for levels in [(1.0, 0.5), (2.0, 1.0, 0.5), (10.0, 5.0, 2.5)]:
        mech = MultiLevelMechanism(levels)
        assert mech.randomness_bits == pytest.approx(sum(entropy_direct(law) for law in mech.key_probs), abs=1e-12)
        trivial = sum(h2(math.exp(e) / (math.exp(e) + 1.0)) for e in levels)
        assert mech.trivial_randomness_bits == pytest.approx(trivial, abs=1e-12)
        assert mech.randomness_bits < trivial
    single = MultiLevelMechanism((1.0,))
    assert single.randomness_bits == pytest.approx(single.trivial_randomness_bits, abs=1e-15)


def test_bbgg_prediction_beside_exact():
    """BBGG-T1 through `>>` (view(j) >> added key, ultra-mixing): sound, and here tight (T1.2's eps~ reaches it);
    the pushed pipeline's exact eps equals level j+1's."""
    for mech in (MultiLevelMechanism((2.0, 1.0, 0.5), k=3), MultiLevelMechanism((1.0, 0.5, 0.25), k=2)):
        for j in (1, 2):
            pipeline = mech.view(j) >> mech.added_key(j)
            exact = privacy_epsilon(pipeline, 0.0)
            assert exact == pytest.approx(mech.eps_levels[j], abs=1e-12)
            predicted = multilevel_predicted_epsilon(mech, j)
            # (1, 0.5, 0.25), j = 1: T1.2 lands 1 ulp below the float matrix's exact eps, rounded outward
            assert exact <= predicted <= exact + 1e-9 and dobrushin(pipeline, predicted) == 0.0


def test_sampling_shares_and_views():
    """The public y = x + Σ U_j; analyst j's view y − Σ_{i>j} U_i = x + Σ_{i<=j} U_i follows view(j)."""
    mech = MultiLevelMechanism((2.0, 1.0, 0.5), k=3)
    n = 30_000
    x = np.repeat(np.arange(3), n)
    y, keys = mech.sample_with_keys(x, rng=11)
    assert keys.shape == (3 * n, 3)
    np.testing.assert_array_equal(y, (x + keys.sum(axis=1)) % 3)
    np.testing.assert_array_equal(mech.sample(x, rng=11), y)
    for j in (1, 2, 3):
        seen = mech.analyst_view(y, keys, j)
        np.testing.assert_array_equal(seen, (x + keys[:, :j].sum(axis=1)) % 3)
        row = mech.view(j).matrix
        for i in range(3):
            freq = np.bincount(seen[x == i], minlength=3) / n
            assert np.all(np.abs(freq - row[i]) <= 5 * np.sqrt(row[i] * (1 - row[i]) / n))
    y2, keys2 = mech.sample_with_keys(x[:100], secure=True)
    np.testing.assert_array_equal(y2, (x[:100] + keys2.sum(axis=1)) % 3)


def test_multilevel_bad_input():
    """§7: eps_levels not strictly decreasing, <= 0, non-finite or empty; k < 2; bad level index j."""
    for levels in [(1.0, 1.0), (0.5, 1.0), (1.0, 0.0), (1.0, -0.5), (math.inf, 1.0), (1.0, math.nan), ()]:
        with pytest.raises(ValueError, match="`eps_levels`"):
            MultiLevelMechanism(levels)
    with pytest.raises(TypeError, match="`eps_levels`"):
        MultiLevelMechanism(("a", "b"))
    with pytest.raises(ValueError, match="`k`"):
        MultiLevelMechanism((1.0, 0.5), k=1)
    with pytest.raises(ValueError, match="`eps_levels`.*normal doubles"):
        MultiLevelMechanism((720.0, 710.0))
    mech = MultiLevelMechanism((1.0, 0.5))
    for j in (0, 3):
        with pytest.raises(ValueError, match="`j`"):
            mech.view(j)
    with pytest.raises(ValueError, match="`j`"):
        mech.added_key(2)
    with pytest.raises(ValueError, match="`keys`"):
        mech.analyst_view([0, 1], [[0, 1], [1, 0], [0, 0]], 1)
    assert repr(mech) == "MultiLevelMechanism(eps_levels=(1.0, 0.5), k=2)"
