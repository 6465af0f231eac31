"""Frequency oracles with small output spaces: k-ary RR, Hadamard response, binary Hadamard (SRP-Tab1, SRP-Est).

Each oracle's channel is held against an independent computation (brute-force popcount parities, scipy's Hadamard
matrix, scipy entropies, mpmath), its declared eps against `ldp_epsilon` (AAC-T1), its sampler against the channel
rows (chi-square at a fixed seed) and its estimator against the channel: E[f̂ | x] = Σ_y Q[x, y] f̂(y) = e_x exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats as st
from scipy.linalg import hadamard

import markovdp as md
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
from markovdp.mechanisms.local.entropy import binary_entropy
from markovdp.mechanisms.local.frequency import empirical_frequencies
from markovdp.mechanisms.local.hadamard import HadamardResponse, _keep_entropy_bits, _walsh_hadamard

ORACLES = (RandomizedResponse, HadamardResponse, BinaryHadamard)
KS = (2, 3, 4, 8, 16, 33, 64)
EPS_GRID = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)


def parity(v: int) -> int:
    return bin(v).count("1") % 2


def brute_channel(oracle) -> np.ndarray:
    """The channel from the definitions, entry by entry (popcount parities of Python ints, no scipy, no numba)."""
    k, eps = oracle.k, oracle.eps
    if isinstance(oracle, RandomizedResponse):
        return np.array([[math.exp(eps) if x == y else 1.0 for y in range(k)] for x in range(k)]) / (math.exp(eps)
                                                                                                     + k - 1)
    order = 1
    while order <= k:
        order *= 2
    a = math.exp(eps) / (math.exp(eps) + 1)
    if isinstance(oracle, HadamardResponse):
        return np.array([[(a if parity((x + 1) & y) == 0 else 1 - a) / (order / 2) for y in range(order)]
                         for x in range(k)])
    return np.array([[(a if parity((x + 1) & (y >> 1)) == (y & 1) else 1 - a) / order for y in range(2 * order)]
                     for x in range(k)])


def estimator_matrix(oracle) -> np.ndarray:
    """G[y] = the estimate from the single report y."""
    return np.array([oracle.estimate(np.array([y])) for y in range(oracle.channel.matrix.shape[1])])


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_tab1_exact_certification(cls):
    """ldp_epsilon(channel) equals the declared eps to 1e-12 (so no larger: no false claim), on the whole grid."""
    for k in KS:
        for eps in EPS_GRID:
            oracle = cls(k, eps)
            assert isinstance(oracle.channel, md.FiniteKernel)
            assert oracle.channel.matrix.shape[0] == k
            assert abs(ldp_epsilon(oracle.channel) - eps) <= 1e-12
    assert ldp_epsilon(cls(5, 0.0).channel) == 0.0


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_tab1_channel_matches_the_definition(cls):
    """Q from the class (scipy's Hadamard matrix, RR's closed form) equals Q built from popcount parities."""
    for k in (2, 3, 4, 7, 8, 33):
        for eps in (0.0, 0.5, 5.0):
            oracle = cls(k, eps)
            np.testing.assert_allclose(oracle.channel.matrix, brute_channel(oracle), rtol=1e-13, atol=0)


def test_srp_tab1_hadamard_output_sizes():
    """K = the smallest power of 2 strictly greater than k: k < K <= 2k; HR has K outputs, BH 2K."""
    for k, order in ((2, 4), (3, 4), (4, 8), (7, 8), (8, 16), (33, 64), (64, 128)):
        assert HadamardResponse(k, 1.0).hadamard_order == order
        assert HadamardResponse(k, 1.0).channel.matrix.shape == (k, order)
        assert BinaryHadamard(k, 1.0).channel.matrix.shape == (k, 2 * order)


@pytest.mark.parametrize("cls", (HadamardResponse, BinaryHadamard))
def test_oracles_are_exact_mechanisms(cls):
    """The oracles are finite mechanisms with local-DP neighbours: privacy_epsilon reads their rows."""
    oracle = cls(6, 1.5)
    assert md.privacy_epsilon(oracle, 0.0) == pytest.approx(1.5, rel=1e-12)


def test_walsh_hadamard_matches_scipy():
    rng = np.random.default_rng(3)
    for order in (1, 2, 4, 64, 256):
        v = rng.standard_normal(order)
        np.testing.assert_allclose(_walsh_hadamard(v), hadamard(order) @ v, rtol=1e-12, atol=1e-12)


TOP = 2**53


def _untemper(y: np.ndarray) -> np.ndarray:
    """The MT19937 state words whose tempered outputs are y (tempering is a bijection on 32-bit words)."""
    y = y.astype(np.uint64)
    y ^= y >> np.uint64(18)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    x = y.copy()
    for _ in range(5):
        x = y ^ ((x << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = x & np.uint64(0xFFFFFFFF)
    x = y.copy()
    for _ in range(3):
        x = y ^ (x >> np.uint64(11))
    return (x & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def scripted(blocks: list[int], pad: int = TOP - 1) -> np.random.Generator:
    """A real numpy Generator (MT19937, so numba's cached kernels take it) whose ``random()`` returns B 2^-53
    for the given blocks B, then `pad` blocks (default the largest, 2^53 − 1): a deterministic rng stub.
    numpy's MT19937 ``random()`` is ((w1 >> 5) 2^26 + (w2 >> 6)) 2^-53 for two tempered words; with the
    position at 0 the next words are the state's own, untempered here."""
    values = np.array([*blocks, *[pad] * (312 - len(blocks))], dtype=np.uint64)
    words = np.empty(624, dtype=np.uint64)
    words[0::2] = (values >> np.uint64(26)) << np.uint64(5)
    words[1::2] = (values & np.uint64(2**26 - 1)) << np.uint64(6)
    bits = np.random.MT19937(0)
    state = bits.state
    state["state"]["key"] = _untemper(words)
    state["state"]["pos"] = 0
    bits.state = state
    return np.random.Generator(bits)


def threshold(decide, blocks: int = 3) -> Fraction:
    """b = Σ_r D_r 2^(−53 r) for a decision that is True iff U < b, U = 0.B_1 B_2 … in base 2^53 (the exact
    Bernoulli's law: P(True) = b). Block by block, with the earlier blocks at the found digits and the later
    ones at 2^53 − 1, decide is True iff B_r < D_r: a binary search finds D_r. Exact for b >= 2^-106."""
    digits: list[int] = []
    for _ in range(blocks):
        lo, hi = 0, TOP
        while lo < hi:
            mid = (lo + hi) // 2
            if decide([*digits, mid]):
                lo = mid + 1
            else:
                hi = mid
        digits.append(lo)
    return sum((Fraction(d, TOP ** (r + 1)) for r, d in enumerate(digits)), Fraction(0))


def test_scripted_generator_replays_its_blocks():
    gen = scripted([0, 1, 2**52, 123456789012345])
    assert [int(gen.random() * TOP) for _ in range(5)] == [0, 1, 2**52, 123456789012345, TOP - 1]


def log_ratio(rare: Fraction, others: int = 1) -> float:
    """log((1 − b) / (b / others)) for an exact rational b, in mpmath: the realised eps of the rare event."""
    with mpmath.workdps(60):
        b = mpmath.mpf(rare.numerator) / rare.denominator
        return float(mpmath.log((1 - b) / (b / others)))


@pytest.mark.parametrize("eps", [30.0, 37.0, 40.0, 50.0])
def test_srp_tab1_hadamard_rare_reports_have_exactly_the_channel_probability(eps):
    """HR and BH at large eps, through the public ``sample`` with a scripted generator: the realised probability
    b of "y outside C_x" (HR) / "bit flipped" (BH) is read digit block by digit block (`threshold`). It equals
    the channel's mass outside C_x (to 1e-15) and mpmath's e^-eps/(1 + e^-eps), so the realised eps
    log((1 − b)/b) is the declared one to 1e-13 (a single uniform u < a made it 30.001 at eps = 30 and inf
    from eps ≈ 36.7)."""
    with mpmath.workdps(40):
        exact = float(mpmath.exp(-eps) / (1 + mpmath.exp(-eps)))
    hr, bh = HadamardResponse(5, eps), BinaryHadamard(5, eps)
    rows = hadamard(hr.hadamard_order)[1:hr.k + 1]
    x = np.array([3])

    def hr_outside(blocks):
        return rows[3, hr.sample(x, rng=scripted(blocks))[0]] < 0

    def bh_flipped(blocks):
        y = bh.sample(x, rng=scripted(blocks))[0]
        return rows[3, y >> 1] != 1 - 2 * (y & 1)

    channel_mass = (hr.matrix[3][rows[3] < 0].sum(),
                    bh.matrix[3, 1::2][rows[3] > 0].sum() + bh.matrix[3, 0::2][rows[3] < 0].sum())
    for decide, mass in zip((hr_outside, bh_flipped), channel_mass, strict=True):
        realised = threshold(decide)
        assert float(realised) == pytest.approx(mass, rel=1e-15, abs=0)
        assert float(realised) == pytest.approx(exact, rel=1e-15, abs=0)
        assert log_ratio(realised) == pytest.approx(eps, abs=1e-13)


@pytest.mark.parametrize("eps", [30.0, 37.0, 40.0, 50.0])
def test_srp_tab1_randomized_response_other_label_has_exactly_the_channel_probability(eps):
    """k-ary RR at large eps, through ``sample`` with a scripted generator: the realised probability of "report
    another label" is the channel's off-diagonal mass (k − 1) q (mpmath, 1e-15), so the realised eps
    log(p / q) is the declared one to 1e-13 (inf from eps ≈ 36.7 with one uniform)."""
    k = 6
    rr = RandomizedResponse(k, eps)
    with mpmath.workdps(40):
        exact = float((k - 1) * mpmath.exp(-eps) / (1 + (k - 1) * mpmath.exp(-eps)))
    realised = threshold(lambda blocks: rr.sample(np.array([2]), rng=scripted(blocks))[0] != 2)
    assert float(realised) == pytest.approx(exact, rel=1e-15, abs=0)
    assert float(realised) == pytest.approx(rr.matrix[2, np.arange(k) != 2].sum(), rel=1e-15, abs=0)
    assert log_ratio(realised, k - 1) == pytest.approx(eps, abs=1e-13)


def test_randomized_response_labels_are_exactly_uniform_on_the_others():
    """Given "another label", the label is t + (t >= x) for the Lemire draw t uniform on [0, k − 1): every
    other label is hit, and x never (scripted stream: the Bernoulli decides at once, then t's block)."""
    k, x = 7, 3
    labels = set()
    for t in range(k - 1):
        # eps = 0: "other" has probability 6/7 > 1/2, so the Bernoulli of p = 1/7 is drawn (flipped): a block
        # above 2^53/7 says "not x". Lemire: t = floor(w (k − 1) / 2^32) with w the top 32 bits of the next block
        w = -(-t * 2**32 // (k - 1)) + 1
        labels.add(int(RandomizedResponse(k, 0.0).sample([x], rng=scripted([TOP - 1, w << 21]))[0]))
    assert labels == set(range(k)) - {x}


def test_hadamard_response_kernel_is_a_bijection_onto_c_x():
    """With the in/out coin fixed (scripted stream), the K/2 indices map one to one onto C_x (in) or its
    complement (out); the index is floor(K/2 · random())."""
    for k, inputs in ((2, range(2)), (5, range(5)), (33, (0, 1, 6, 31, 32))):
        oracle = HadamardResponse(k, 0.0)  # coin: Bernoulli(1/2), a first block below 2^52 is "out"
        rows = hadamard(oracle.hadamard_order)[1:k + 1]
        half = rows.shape[1] // 2
        for x in inputs:
            for coin, sign in ((TOP - 1, 1), (0, -1)):
                got = [int(oracle.sample([x], rng=scripted([coin, z * (TOP // half)]))[0]) for z in range(half)]
                assert sorted(got) == list(np.flatnonzero(rows[x] == sign))


def chi_square_rows(oracle, per_input: int, seed: int) -> tuple[float, float]:
    """Chi-square statistic of `per_input` reports of every input against the channel rows, and its 1e-6 quantile."""
    k = oracle.k
    matrix = oracle.channel.matrix
    x = np.repeat(np.arange(k), per_input)
    y = oracle.sample(x, rng=seed)
    counts = np.zeros_like(matrix)
    np.add.at(counts, (x, y), 1.0)
    expected = matrix * per_input
    stat = float(((counts - expected) ** 2 / expected).sum())
    return stat, float(st.chi2.isf(1e-6, k * (matrix.shape[1] - 1)))


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize(("k", "eps"), [(3, 0.5), (8, 2.0), (33, 1.0)])
def test_sampling_frequencies_match_the_channel_rows(cls, k, eps):
    """Chi-square of per-input report counts vs the exact rows (fixed seed; rejection level 1e-6)."""
    stat, limit = chi_square_rows(cls(k, eps), 20000, seed=11)
    assert stat < limit


def test_randomized_response_sampler_has_the_law_of_the_table_sampler():
    """RR.sample (exact Bernoulli + uniform label) and the generic table sampler (kernel.sample) agree in law:
    a two-sample chi-square on the report counts per input (fixed seeds, rejection level 1e-6); any shape."""
    rng = np.random.default_rng(5)
    for k, eps in ((2, 0.3), (3, 1.0), (16, 1.0), (200, 4.0)):
        rr = RandomizedResponse(k, eps)
        x = np.repeat(np.arange(min(k, 4)), 20_000)
        a = np.zeros((4, k))
        b = np.zeros((4, k))
        np.add.at(a, (x, rr.sample(x, rng=9)), 1.0)
        np.add.at(b, (x, rr.kernel.sample(x, rng=10)), 1.0)
        seen = (a + b) > 0
        stat = float((((a - b) ** 2)[seen] / (a + b)[seen]).sum())
        assert stat < st.chi2.isf(1e-6, max(int(seen.sum()) - min(k, 4), 1))
    x2 = rng.integers(0, 4, (30, 7))
    assert RandomizedResponse(4, 1.0).sample(x2, rng=1).shape == (30, 7)


def test_hadamard_reports_at_large_eps_are_in_c_x():
    """eps = 50: 1 − a ≈ 2e-22, so every HR report lies in C_x and every BH bit equals the Hadamard sign."""
    k = 9
    rows = hadamard(16)[1:k + 1]
    x = np.repeat(np.arange(k), 500)
    y = HadamardResponse(k, 50.0).sample(x, rng=2)
    assert (rows[x, y] == 1).all()
    z = BinaryHadamard(k, 50.0).sample(x, rng=2)
    assert (rows[x, z >> 1] == 1 - 2 * (z & 1)).all()


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_est_estimator_is_exactly_unbiased_from_the_channel(cls):
    """Σ_y Q[x, y] f̂(y) = e_x to 1e-12 (one user), and f̂ of n reports is the mean of the one-report estimates:
    so E[f̂] = the empirical frequencies of any fixed inputs (heavy hitters, no distributional assumption)."""
    rng = np.random.default_rng(8)
    for k in KS:
        for eps in EPS_GRID:
            oracle = cls(k, eps)
            Q = oracle.channel.matrix
            G = estimator_matrix(oracle)
            np.testing.assert_allclose(Q @ G, np.eye(k), rtol=0, atol=1e-12 * max(1.0, np.abs(G).max()))
    oracle = cls(7, 1.0)
    reports = rng.integers(0, oracle.channel.matrix.shape[1], 500)
    np.testing.assert_allclose(oracle.estimate(reports), estimator_matrix(oracle)[reports].mean(axis=0),
                               rtol=0, atol=1e-12)


def stated_variance(oracle, f: np.ndarray) -> np.ndarray:
    """The one-user variance the docstrings state for fixed inputs with frequencies f (here one-hot)."""
    if isinstance(oracle, RandomizedResponse):
        p = math.exp(oracle.eps) / (math.exp(oracle.eps) + oracle.k - 1)
        q = p * math.exp(-oracle.eps)
        return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (p - q) ** 2
    return 1.0 / math.tanh(oracle.eps / 2) ** 2 - f


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_est_stated_variance_matches_the_channel(cls):
    """Var[f̂ | x] = Σ_y Q[x, y] f̂(y)² − e_x² equals the variance in the docstring."""
    for k, eps in ((2, 0.5), (5, 1.0), (33, 2.0)):
        oracle = cls(k, eps)
        Q, G = oracle.channel.matrix, estimator_matrix(oracle)
        eye = np.eye(k)
        np.testing.assert_allclose(Q @ G**2 - eye, [stated_variance(oracle, eye[x]) for x in range(k)], rtol=1e-10)


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_est_monte_carlo_mean_is_the_empirical_frequency(cls):
    """N = 4e5 users with fixed skewed inputs: |f̂ − f| <= 5 standard deviations (stated variance) per coordinate."""
    k, eps, n = 8, 1.0, 400_000
    rng = np.random.default_rng(17)
    x = rng.choice(k, size=n, p=np.arange(1, k + 1) / (k * (k + 1) / 2))
    f = empirical_frequencies(x, k)
    oracle = cls(k, eps)
    sd = np.sqrt(stated_variance(oracle, f) / n)
    assert (np.abs(oracle.estimate(oracle.sample(x, rng=4)) - f) <= 5 * sd).all()


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_tab1_output_entropy_is_the_largest_row_entropy(cls):
    """output_entropy_bits = max_x H(Q[x]) (scipy's entropy of each channel row, bits)."""
    for k in (2, 3, 16, 33):
        for eps in (0.0, 0.5, 2.0, 10.0):
            oracle = cls(k, eps)
            rows = st.entropy(oracle.channel.matrix, base=2, axis=1)
            assert oracle.output_entropy_bits == pytest.approx(rows.max(), rel=1e-12, abs=1e-14)


def test_srp_tab1_private_randomness():
    """RR and HR spend H(Y | X = x) private bits (one-to-one in the key); BH only the coin: H2(a) — the least.

    BH's brute force: the entropy of a row given the public column j, Q[x, (j, ·)] K, is H2(a) for every x, j.
    """
    for k, eps in ((2, 0.5), (16, 1.0), (33, 5.0)):
        a = math.exp(eps) / (math.exp(eps) + 1)
        for cls in (RandomizedResponse, HadamardResponse):
            oracle = cls(k, eps)
            rows = st.entropy(oracle.channel.matrix, base=2, axis=1)
            assert oracle.randomness_bits == pytest.approx(rows.max(), rel=1e-12)
        bh = BinaryHadamard(k, eps)
        given_column = bh.channel.matrix.reshape(k, -1, 2) * bh.hadamard_order
        np.testing.assert_allclose(st.entropy(given_column, base=2, axis=2), bh.randomness_bits, rtol=1e-12)
        assert bh.randomness_bits == pytest.approx(binary_entropy(a), rel=1e-12)
        assert bh.randomness_bits < HadamardResponse(k, eps).randomness_bits
        assert bh.randomness_bits <= RandomizedResponse(k, eps).randomness_bits + 1e-15


def mp_binary_entropy(eps: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        a = mpmath.e**eps / (mpmath.e**eps + 1)
        return -(a * mpmath.log(a, 2) + (1 - a) * mpmath.log(1 - a, 2))


def test_randomness_at_extreme_eps_against_mpmath():
    """eps up to 50: H2(a) ≈ 1e-20 bits stays exact (binary_entropy(a) rounds a to 1 and returns 0)."""
    for eps in (0.1, 1.0, 10.0, 37.0, 50.0):
        assert _keep_entropy_bits(eps) == pytest.approx(float(mp_binary_entropy(eps)), rel=1e-12, abs=0)
        assert BinaryHadamard(4, eps).randomness_bits == pytest.approx(float(mp_binary_entropy(eps)), rel=1e-12, abs=0)
    with mpmath.workdps(60):
        k, eps = 5, mpmath.mpf(50)
        p = mpmath.e**eps / (mpmath.e**eps + k - 1)
        q = 1 / (mpmath.e**eps + k - 1)
        exact = -(p * mpmath.log(p, 2) + (k - 1) * q * mpmath.log(q, 2))
    assert RandomizedResponse(5, 50.0).randomness_bits == pytest.approx(float(exact), rel=1e-12, abs=0)


@pytest.mark.parametrize("cls", ORACLES)
def test_srp_tab1_oracles_at_huge_eps(cls):
    """eps = 700 (`MAX_EPS`): sampling, estimates and entropies stay finite; a Hadamard channel whose entries are
    not normal doubles is refused. Beyond: HR and BH refuse eps > 700 like UE and SS (same message); RR is
    constructed (closed-form privacy) but its sampler refuses an off-diagonal below the smallest normal double."""
    oracle = cls(4, 700.0)
    x = np.arange(4).repeat(10)
    reports = oracle.sample(x, rng=0)
    assert np.isfinite(oracle.estimate(reports)).all()
    assert math.isfinite(oracle.randomness_bits) and oracle.randomness_bits >= 0
    if cls is RandomizedResponse:
        rr = RandomizedResponse(4, 800.0)
        assert math.isfinite(rr.randomness_bits) and md.privacy_epsilon(rr, 0.0) == 800.0
        with pytest.raises(NotImplementedError, match="smallest normal double"):
            rr.sample(x, rng=0)
        return
    with pytest.raises(NotImplementedError, match="smallest normal double"):
        cls(10_000, 700.0).channel  # noqa: B018
    with pytest.raises(ValueError, match=r"`eps` must be in \[0, 700\] nats") as caught:
        cls(4, 800.0)
    with pytest.raises(ValueError) as reference:
        md.UnaryEncoding(4, 800.0)
    assert str(caught.value) == str(reference.value)


def test_reprs():
    assert repr(HadamardResponse(16, 1.0)) == "HadamardResponse(k=16, eps=1.0)"
    assert repr(BinaryHadamard(16, 1)) == "BinaryHadamard(k=16, eps=1.0)"
    assert repr(RandomizedResponse(16, 1.0)) == "RandomizedResponse(k=16, eps=1.0, neighbours=AllPairs())"


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize(("args", "error", "name"), [
    ((1, 1.0), ValueError, "k"), ((0, 1.0), ValueError, "k"), ((2.5, 1.0), TypeError, "k"),
    ((3, -0.1), ValueError, "eps"), ((3, math.nan), ValueError, "eps"), ((3, math.inf), ValueError, "eps"),
    ((3, "1"), TypeError, "eps"),
])
def test_bad_construction(cls, args, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        cls(*args)


@pytest.mark.parametrize("cls", ORACLES)
def test_bad_inputs_and_reports(cls):
    """Bad inputs name the sampler's parameter (`value` for RR, a Mechanism; `x` for HR and BH)."""
    oracle = cls(3, 1.0)
    name = "value" if cls is RandomizedResponse else "x"
    for bad in ([0, 3], [-1], np.array([0.5])):
        with pytest.raises((ValueError, TypeError), match=f"`{name}`"):
            oracle.sample(bad, rng=0)
    with pytest.raises(ValueError, match=r"`reports`.*n >= 1"):
        oracle.estimate(np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate([oracle.channel.matrix.shape[1]])
    with pytest.raises(ValueError, match="`eps`"):
        cls(3, 0.0).estimate([0, 1])


@pytest.mark.parametrize("oracle", [RandomizedResponse(3, 1.0), HadamardResponse(3, 1.0), BinaryHadamard(3, 1.0),
                                    md.UnaryEncoding(3, 1.0), md.SubsetSelection(3, 1.0),
                                    md.KeyedMechanism([[0, 1], [1, 0], [2, 2]], [0.7, 0.3]),
                                    md.RecoverableMechanism(3, 1.0, 1), md.MultiLevelMechanism((2.0, 1.0), k=3)],
                         ids=repr)
def test_every_oracle_refuses_no_users(oracle):
    """§7 "n < 1": ``sample([])`` raises the same ValueError for every oracle (it returned [] for RR, HR, BH)."""
    name = "value" if isinstance(oracle, RandomizedResponse) else "x"
    with pytest.raises(ValueError, match=rf"`{name}` must be a non-empty array of inputs in \[0, 3\) \(n >= 1 users\)"):
        oracle.sample(np.array([], dtype=np.int64), rng=0)


def test_lemire_rejection_keeps_the_other_label_exactly_uniform():
    """RR(4, eps = 0) from input 0: the first block makes the report another label; the label is Lemire's
    multiply-and-reject on m = 3, whose threshold is 2^32 mod 3 = 1: a 32-bit word w = 0 (low part 0 < 1) must be
    rejected and the next word used (w = 3·2^30 → t = 2 → label 3). Without the rejection the label would be 1:
    the three labels would not be equally likely."""
    first = TOP - 1  # Bernoulli(1/4) of keeping the input is False: the report is another label
    y = RandomizedResponse(4, 0.0).sample([0], rng=scripted([first, 0 << 21, (3 * 2**30) << 21]))
    assert int(y[0]) == 3


def test_hadamard_sampling_refuses_column_ranges_beyond_exact_uniform_draws():
    """The column index is floor(2^m random()), exactly uniform for m <= 53 only: HR up to K/2 = 2^53 (k < 2^54),
    BH up to K = 2^53 (k < 2^53); beyond, sampling is refused (it would not follow the certified channel)."""
    assert HadamardResponse(2**54 - 1, 1.0).sample([0], rng=0).shape == (1,)
    assert BinaryHadamard(2**53 - 1, 1.0).sample([0], rng=0).shape == (1,)
    with pytest.raises(ValueError, match="`k` must be below 2\\^54"):
        HadamardResponse(2**54, 1.0).sample([0], rng=0)
    with pytest.raises(ValueError, match="`k` must be below 2\\^53"):
        BinaryHadamard(2**53, 1.0).sample([0], rng=0)
