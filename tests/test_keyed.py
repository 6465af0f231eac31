"""Keyed mechanisms Y = g(X, U) (SRP-D): channel, exact eps, randomness, key sampling, bad input."""

from __future__ import annotations

import math
import secrets
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import hockey_stick_bruteforce

from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.guarantees.exact import privacy_epsilon, privacy_profile
from markovdp.mechanisms.finite import FiniteMechanism, RandomizedResponse
from markovdp.mechanisms.local import keyed
from markovdp.mechanisms.local.keyed import (
    SECURE_BITS,
    KeyedMechanism,
    draw_keys,
    output_entropy_bits,
    randomness_bits,
)
from markovdp.spaces import IncompatibleSpaces

EPS_GRID = [0.0, 1e-6, 0.5, 1.0, 2.0, 5.0, 20.0, 50.0]


def xor_mechanism(eps: float) -> KeyedMechanism:
    """SRP-D's example: Y = X xor U, q = [e^eps/(e^eps + 1), 1/(e^eps + 1)]."""
    t = math.exp(-eps)  # not 1 − p: e^-50 is lost next to 1
    return KeyedMechanism([[0, 1], [1, 0]], [1.0 / (1.0 + t), t / (1.0 + t)])


def channel_bruteforce(table, probs, m):
    """Q[x, y] = Σ_{u: g(x, u) = y} q_u by a loop over every (x, u)."""
    k, n = len(table), len(table[0])
    out = [[0.0] * m for _ in range(k)]
    for x in range(k):
        for u in range(n):
            out[x][table[x][u]] += probs[u]
    return np.array(out)


def entropy_direct(p) -> float:
    return -sum(v * math.log2(v) for v in p if v > 0)


def log_ratio_bruteforce(Q) -> float:
    """max_{y, x, x'} log Q[x, y] / Q[x', y] by loops (inf when a column has a 0 beside a positive entry)."""
    worst = 0.0
    for y in range(Q.shape[1]):
        for x in range(Q.shape[0]):
            for x2 in range(Q.shape[0]):
                if Q[x, y] > 0 and Q[x2, y] == 0:
                    return math.inf
                if Q[x, y] > 0:
                    worst = max(worst, math.log(Q[x, y]) - math.log(Q[x2, y]))
    return worst


@st.composite
def keyed_cases(draw):
    """A random table (2..5 inputs, 1..6 keys, 1..5 outputs) and key law (some keys may have probability 0)."""
    k, n, m = draw(st.integers(2, 5)), draw(st.integers(1, 6)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    table = rng.integers(0, m, size=(k, n))
    raw = rng.random(n) ** draw(st.sampled_from([1.0, 4.0]))
    if draw(st.booleans()) and n > 1:
        raw[rng.random(n) < 0.3] = 0.0
    raw[rng.integers(n)] += 0.1
    return table, raw / raw.sum(), m


@pytest.mark.parametrize("eps", EPS_GRID)
def test_xor_example_is_eps_ldp_with_h2_bits(eps):
    """SRP-D: X xor U with q = [e^eps/(e^eps+1), 1/(e^eps+1)] is exactly eps-LDP and uses H2(e^eps/(e^eps+1)) bits."""
    mech = xor_mechanism(eps)
    assert ldp_epsilon(mech) == pytest.approx(eps, abs=1e-12)
    assert ldp_epsilon(mech.channel) == pytest.approx(eps, abs=1e-12)
    assert privacy_epsilon(mech, 0.0) == pytest.approx(eps, abs=1e-12)
    t = math.exp(-eps)
    h2 = entropy_direct([1.0 / (1.0 + t), t / (1.0 + t)])
    assert randomness_bits(mech) == pytest.approx(h2, abs=1e-12)
    assert output_entropy_bits(mech) == pytest.approx(h2, abs=1e-12)
    np.testing.assert_allclose(mech.matrix, RandomizedResponse(2, eps).matrix, rtol=1e-13, atol=0)
    with mpmath.workdps(60):  # relative precision too: the law the sampler draws is key_probs / Σ key_probs
        law = [mpmath.mpf(float(q)) for q in mech.key_probs]
        exact = float(-sum(q / sum(law) * mpmath.log(q / sum(law), 2) for q in law if q > 0))
    assert randomness_bits(mech) == pytest.approx(exact, rel=1e-12, abs=0)


@settings(max_examples=100)
@given(keyed_cases())
def test_channel_matches_enumeration(case):
    """SRP-D: Q[x, y] = Σ_{u: g(x,u)=y} q_u; rows sum to 1; H(U) >= H(g(x, U)); eps and profile from the rows."""
    table, probs, m = case
    mech = KeyedMechanism(table, probs, n_outputs=m)
    brute = channel_bruteforce(table.tolist(), probs.tolist(), m)
    np.testing.assert_allclose(mech.matrix, brute, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(mech.matrix.sum(axis=1), 1.0, atol=1e-12)
    assert mech.channel.matrix.shape == (table.shape[0], m)
    h_key = entropy_direct(probs)
    assert randomness_bits(mech) == pytest.approx(h_key, abs=1e-12)
    for x in range(table.shape[0]):
        assert entropy_direct(brute[x]) <= h_key + 1e-12
    assert output_entropy_bits(mech) == pytest.approx(max(entropy_direct(row) for row in brute), abs=1e-12)
    assert output_entropy_bits(mech) <= randomness_bits(mech) + 1e-12
    exact = log_ratio_bruteforce(brute)
    assert ldp_epsilon(mech) == pytest.approx(exact, abs=1e-9) if math.isfinite(exact) else ldp_epsilon(mech) == exact
    expected = max(hockey_stick_bruteforce(brute[i], brute[j], 0.5)
                   for i in range(len(brute)) for j in range(len(brute)) if i != j)
    assert privacy_profile(mech, 0.5) == pytest.approx(expected, abs=1e-12)


def test_default_and_explicit_output_alphabet():
    """m = table.max() + 1 by default; a larger n_outputs adds never-used outputs (zero columns)."""
    mech = KeyedMechanism([[0, 2], [2, 0]], [0.5, 0.5])
    assert mech.n_outputs == 3 and mech.matrix.shape == (2, 3)
    np.testing.assert_array_equal(mech.matrix[:, 1], 0.0)
    wide = KeyedMechanism([[0, 1], [1, 0]], [0.5, 0.5], n_outputs=4)
    assert wide.matrix.shape == (2, 4) and ldp_epsilon(wide) == 0.0
    assert "KeyedMechanism(table=[[0, 1], [1, 0]]" in repr(wide)
    assert mech == KeyedMechanism(np.array([[0, 2], [2, 0]]), np.array([0.5, 0.5]))
    assert hash(mech) == hash(KeyedMechanism([[0, 2], [2, 0]], [0.5, 0.5]))


def test_composes_with_kernels_and_mechanism_functions():
    """A keyed mechanism is a finite local-DP mechanism: M >> K is exact and equals the matrix product."""
    mech = xor_mechanism(1.0)
    kernel = FiniteMechanism([[0.8, 0.2], [0.3, 0.7]]).kernel
    pipeline = mech >> kernel
    product = FiniteMechanism(mech.matrix @ kernel.matrix)
    assert privacy_epsilon(pipeline, 0.0) == pytest.approx(ldp_epsilon(product), abs=1e-12)
    assert privacy_profile(pipeline, 0.2) == pytest.approx(privacy_profile(product, 0.2), abs=1e-14)


def test_research_sampling_matches_the_channel():
    """Research path: seeded, y = table[x, u], and the output frequencies match Q within 5 binomial sd."""
    mech = KeyedMechanism([[0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 2]], [0.1, 0.2, 0.3, 0.4])
    n = 60_000
    x = np.repeat(np.arange(3), n)
    y, u = mech.sample_with_keys(x, rng=7)
    np.testing.assert_array_equal(y, mech.table[x, u])
    np.testing.assert_array_equal(mech.sample(x, rng=7), y)
    for i in range(3):
        freq = np.bincount(y[x == i], minlength=3) / n
        sd = np.sqrt(mech.matrix[i] * (1 - mech.matrix[i]) / n)
        assert np.all(np.abs(freq - mech.matrix[i]) <= 5 * sd + 1e-12)
    assert mech.sample(np.array([[0, 1], [2, 0]]), rng=1).shape == (2, 2)


def test_zero_probability_keys_are_never_drawn():
    """A key with q_u = 0 never appears, on either path."""
    probs = np.array([0.0, 0.5, 0.0, 0.5, 0.0])
    for secure in (False, True):
        keys = draw_keys(probs, 20_000, rng=3, secure=secure)
        assert set(np.unique(keys).tolist()) <= {1, 3}


TOP = 2**SECURE_BITS


class ScriptedGenerator(np.random.Generator):
    """A numpy Generator whose ``random()`` returns scripted blocks B 2^-53, then 2^53 − 1 (a deterministic stub)."""

    def __init__(self, blocks):
        super().__init__(np.random.PCG64(0))
        self.blocks = list(blocks)

    def _next(self) -> float:
        return (self.blocks.pop(0) if self.blocks else TOP - 1) / TOP

    def random(self, size=None, dtype=np.float64, out=None):
        return self._next() if size is None else np.array([self._next() for _ in range(int(np.prod(size)))])


def scripted_key(probs, blocks, secure, monkeypatch):
    """The key draw_keys draws for V = 0.B_1 B_2 … (base 2^53), the blocks scripted on either path."""
    if not secure:
        return int(draw_keys(probs, 1, rng=ScriptedGenerator(blocks))[0])
    words = list(blocks)

    def token_bytes(n):
        out = [(words.pop(0) if words else TOP - 1) for _ in range(n // 8)]
        return (np.array(out, dtype=np.uint64) << np.uint64(64 - SECURE_BITS)).tobytes()

    monkeypatch.setattr(keyed.secrets, "token_bytes", token_bytes)
    return int(draw_keys(probs, 1, secure=True)[0])


def realised_cuts(probs, secure, monkeypatch, blocks: int = 3) -> list[Fraction]:
    """The realised CDF: cut_v = inf{V : key(V) > v}, read digit block by digit block from scripted streams
    (key(prefix, B_r, then 2^53 − 1 …) <= v iff B_r < the cut's digit D_r: a binary search). To 2^(−53 blocks)."""
    cuts = []
    for v in range(len(probs) - 1):
        digits: list[int] = []
        for _ in range(blocks):
            lo, hi = 0, TOP
            while lo < hi:
                mid = (lo + hi) // 2
                if scripted_key(probs, [*digits, mid], secure, monkeypatch) <= v:
                    lo = mid + 1
                else:
                    hi = mid
            digits.append(lo)
            if lo == TOP:  # key(V) <= v for every V in the cell: the cut is at (or past) its upper end
                break
        cuts.append(min(sum((Fraction(d, TOP ** (r + 1)) for r, d in enumerate(digits)), Fraction(0)), Fraction(1)))
    return [Fraction(0), *cuts, Fraction(1)]


def exact_law(probs) -> list[Fraction]:
    exact = [Fraction(q) for q in np.asarray(probs).tolist()]
    return [q / sum(exact) for q in exact]


@pytest.mark.parametrize("secure", [False, True])
@pytest.mark.parametrize("eps", [30.0, 37.0, 40.0, 50.0])
def test_srp_rec_keys_of_tiny_probability_are_drawn_at_exactly_their_rate(monkeypatch, eps, secure):
    """RecoverableMechanism(2, eps): the rare key has probability e^-eps/(1 + e^-eps). The realised CDF of
    draw_keys, read from scripted streams on both paths, is q / Σq to 2^-159, so the realised eps
    log(q_0/q_1) is the certified `ldp_epsilon` to 1e-13 (a single 53-bit uniform made it 30.001 at eps = 30
    and inf from eps ≈ 36.7)."""
    from markovdp.mechanisms.local.recoverable import RecoverableMechanism

    mech = RecoverableMechanism(2, eps)
    cuts = realised_cuts(mech.key_probs, secure, monkeypatch)
    law = exact_law(mech.key_probs)
    assert 0 <= law[0] - cuts[1] < Fraction(1, TOP**3)
    with mpmath.workdps(80):
        c = mpmath.mpf(cuts[1].numerator) / cuts[1].denominator
        realised = float(mpmath.log(c / (1 - c)))
    assert realised == pytest.approx(ldp_epsilon(mech), abs=1e-13)
    assert realised == pytest.approx(eps, abs=1e-13)


@pytest.mark.parametrize("secure", [False, True])
def test_srp_d_a_key_of_probability_zero_is_never_drawn_even_at_the_last_uniform(monkeypatch, secure):
    """The last key has q = 0 and would reveal x (outputs 2, 3): the uniform 1 − 2^-53 drew it (round-off to the
    last key). The realised CDF equals q / Σq (to 2^-106), so key 3 has mass 0, and V = 1 − 2^-53 gives key 2."""
    probs = np.array([0.39546198954297845, 0.5930180594914135, 0.011519950965607977, 0.0])
    mech = KeyedMechanism([[0, 1, 0, 2], [1, 0, 1, 3]], probs)
    assert scripted_key(mech.key_probs, [TOP - 1], secure, monkeypatch) == 2
    cuts = realised_cuts(mech.key_probs, secure, monkeypatch, blocks=2)
    law = exact_law(mech.key_probs)
    assert cuts[3] == 1  # key 3: [cut_2, cut_3) is empty
    for v in range(3):
        assert abs((cuts[v + 1] - cuts[v]) - law[v]) < Fraction(2, TOP**2)


def test_srp_d_certified_and_sampled_laws_are_the_same_normalised_law():
    """q = [0.3 − 9e-13, 0.7] (sum 1 − 9e-13, accepted): key_probs is stored normalised, the channel is built from
    it, and the sampler draws exactly key_probs / Σ key_probs; so the realised eps log(q_1/q_0) of the XOR
    mechanism is the certified one to 1e-15 (the raw law was sampled: 1.3e-12 above)."""
    raw = np.array([0.3 - 9e-13, 0.7])
    mech = KeyedMechanism([[0, 1], [1, 0]], raw)
    assert float(mech.key_probs.sum()) == pytest.approx(1.0, abs=2e-16)
    np.testing.assert_allclose(mech.key_probs, raw / raw.sum(), rtol=1e-15)
    np.testing.assert_allclose(mech.matrix, channel_bruteforce(mech.table.tolist(), mech.key_probs, 2), rtol=1e-15)
    gen = ScriptedGenerator([])
    low, high = 0, TOP  # the realised cut between keys 0 and 1, first block
    while low < high:
        mid = (low + high) // 2
        gen.blocks = [mid]
        if mech.sample_with_keys([0], rng=gen)[1][0] == 0:
            low = mid + 1
        else:
            high = mid
    realised = math.log((TOP - low) / low)  # P(key 1) / P(key 0) to 2^-53 relative
    assert realised == pytest.approx(ldp_epsilon(mech), abs=1e-15)


def test_secure_sampling_uses_the_os_csprng(monkeypatch):
    """secure=True reads secrets.token_bytes (8 bytes per key), ignores `rng`, and matches q statistically."""
    calls = []
    real = secrets.token_bytes
    monkeypatch.setattr(keyed.secrets, "token_bytes", lambda n: calls.append(n) or real(n))
    mech = xor_mechanism(1.0)
    x = np.zeros(100_000, dtype=np.int64)
    y, u = mech.sample_with_keys(x, rng=0, secure=True)
    assert calls == [8 * x.size]
    np.testing.assert_array_equal(y, u)  # x = 0: y = 0 xor u
    p = mech.key_probs[1]
    assert abs(u.mean() - p) <= 6 * math.sqrt(p * (1 - p) / x.size)  # OS entropy: a 6-sd band, not seeded


def test_randomness_functions_duck_type():
    """randomness_bits reads a `randomness_bits` property; output_entropy_bits falls back to `matrix` rows."""

    class Oracle:
        randomness_bits = 1.25
        output_entropy_bits = 0.75

    assert randomness_bits(Oracle()) == 1.25 and output_entropy_bits(Oracle()) == 0.75
    rr = RandomizedResponse(4, 1.0)
    assert output_entropy_bits(rr) == pytest.approx(entropy_direct(rr.matrix[0]), abs=1e-12)
    with pytest.raises(TypeError, match="`mechanism`"):
        randomness_bits(object())
    with pytest.raises(TypeError, match="`mechanism`"):
        output_entropy_bits(object())


@pytest.mark.parametrize("probs", [[0.5, 0.6], [1.5, -0.5], [0.5, float("nan")], [[0.5, 0.5]], [], [1.0, 1e-320]])
def test_bad_key_probs(probs):
    """§7: key probabilities not a distribution → ValueError naming `key_probs`."""
    with pytest.raises(ValueError, match="`key_probs`"):
        KeyedMechanism([[0, 1], [1, 0]], probs)


def test_draw_keys_rejects_bad_input():
    """draw_keys validates its law (a probability vector) and n >= 0 (the exact cuts divide by Σ q)."""
    for probs in ([0.5, 0.6], [0.0, 0.0], [1.5, -0.5]):
        with pytest.raises(ValueError, match="`key_probs`"):
            draw_keys(probs, 3, rng=0)
    with pytest.raises(ValueError, match="`n`"):
        draw_keys([0.5, 0.5], -1, rng=0)
    assert draw_keys([0.5, 0.5], 0, rng=0).shape == (0,)


def test_bad_table_and_outputs():
    """§7: table values outside the output alphabet, bad shapes and kinds, key-count mismatch, bad n_outputs."""
    with pytest.raises(ValueError, match="`table`"):
        KeyedMechanism([[0, 3], [1, 0]], [0.5, 0.5], n_outputs=2)
    with pytest.raises(ValueError, match="`table`"):
        KeyedMechanism([[0, -1], [1, 0]], [0.5, 0.5])
    with pytest.raises(ValueError, match="`table`"):
        KeyedMechanism([[0, 1]], [0.5, 0.5])
    with pytest.raises(TypeError, match="`table`"):
        KeyedMechanism([[0, 0.5], [1, 0]], [0.5, 0.5])
    with pytest.raises(IncompatibleSpaces, match="3 keys.*2 key"):
        KeyedMechanism([[0, 1], [1, 0]], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="`n_outputs`"):
        KeyedMechanism([[0, 1], [1, 0]], [0.5, 0.5], n_outputs=0)
    with pytest.raises(TypeError, match="`n_outputs`"):
        KeyedMechanism([[0, 1], [1, 0]], [0.5, 0.5], n_outputs=2.5)
    with pytest.raises(ValueError, match="`x`"):
        xor_mechanism(1.0).sample([0, 2], rng=0)
