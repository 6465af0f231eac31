"""Unary encoding (RAPPOR / OUE) and subset selection: exact certification, channels, sampling, estimators.

THEORY: SRP-Tab1 (the oracles and their randomness per user), SRP-Est (unbiased frequency estimators),
AAC-T1 / AAC-eta (exact eps and delta from the channel, also for the implicit 2^k and C(k, d) channels).
Every check is against an independent computation: brute-force enumeration of the channel in plain Python,
the all-pairs hockey-stick sum in numpy, closed forms, or Monte Carlo with CI-derived tolerances (fixed seeds).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from markovdp.guarantees.coefficients import dobrushin, ldp_epsilon
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.implicit_channel import SubsetChannel, UnaryChannel, bernoulli_split
from markovdp.mechanisms.local.subset import SubsetSelection
from markovdp.mechanisms.local.unary import UnaryEncoding
from markovdp.operators.finite import FiniteKernel

K_GRID = [2, 3, 4, 8, 16, 33, 64]
EPS_GRID = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
ORACLES = {
    "OUE": lambda k, eps: UnaryEncoding(k, eps),
    "RAPPOR": lambda k, eps: UnaryEncoding(k, eps, optimized=False),
    "SS": lambda k, eps: SubsetSelection(k, eps),
}


# ----------------------------------------------------------------------------------------- independent oracles


def brute_unary(k: int, p: float, q: float) -> np.ndarray:
    """Q[x, y], y = Σ_j y_j 2^j: products of independent bits, enumerated in plain Python."""
    out = np.empty((k, 2**k))
    for x in range(k):
        for bits in itertools.product((0, 1), repeat=k):
            prob = 1.0
            for j, b in enumerate(bits):
                r = p if j == x else q
                prob *= r if b else 1.0 - r
            out[x, sum(b << j for j, b in enumerate(bits))] = prob
    return out


def brute_subset(k: int, d: int, eps: float) -> np.ndarray:
    """Q[x, S] ∝ e^eps 1{x ∈ S} + 1{x ∉ S}, normalised by summing over every d-subset (lexicographic order)."""
    subsets = list(itertools.combinations(range(k), d))
    weights = np.array([[math.exp(eps) if x in s else 1.0 for s in subsets] for x in range(k)])
    return weights / weights.sum(axis=1, keepdims=True)


def all_pairs_hockey_stick(matrix: np.ndarray, eps: float) -> float:
    """max over x != x' of Σ_y [Q[x, y] − e^eps Q[x', y]]_+ (AAC-eta), plain numpy."""
    k = matrix.shape[0]
    return max(float(np.maximum(matrix[i] - math.exp(eps) * matrix[j], 0.0).sum())
               for i in range(k) for j in range(k) if i != j)


def pure_eps(matrix: np.ndarray) -> float:
    """max over columns of log(max / min) (AAC-T1 at delta = 0), plain numpy."""
    return float(np.max(np.log(matrix.max(axis=0)) - np.log(matrix.min(axis=0))))


# ----------------------------------------------------------------------------------------- certification


@pytest.mark.parametrize("name", list(ORACLES))
@pytest.mark.parametrize("k", K_GRID)
def test_srp_tab1_oracles_are_certified_exactly_at_their_declared_eps(name: str, k: int) -> None:
    """AAC-T1: ldp_epsilon(oracle.channel) equals the declared eps to 1e-12, never more (no false claim), and
    eps is the smallest: at eps − 1e-9 the E_gamma coefficient is positive."""
    for eps in EPS_GRID:
        oracle = ORACLES[name](k, eps)
        exact = ldp_epsilon(oracle.channel)
        assert exact == pytest.approx(eps, abs=1e-12)
        assert exact <= eps + 1e-12
        assert dobrushin(oracle.channel, exact) == 0.0
        assert dobrushin(oracle.channel, eps - 1e-9) > 0.0


@pytest.mark.parametrize("name", list(ORACLES))
@pytest.mark.parametrize("eps", [0.0, 50.0, 300.0, 700.0])
def test_srp_tab1_certification_at_extreme_eps(name: str, eps: float) -> None:
    """AAC-T1 at eps = 0 (a constant channel) and up to 700 nats, where the full matrix would underflow (the
    channel falls back to the implicit form and is still certified exactly), and for k up to 2^20 + 2."""
    for k in (3, 10, 64, 2**20 + 2):
        assert ldp_epsilon(ORACLES[name](k, eps).channel) == pytest.approx(eps, abs=1e-12)


def test_srp_tab1_unary_encoding_that_never_resets_the_true_bit_is_caught() -> None:
    """The defect the issue cites: OUE whose true bit is set by the other-bit draw OR a fair coin (never reset)
    has P[true bit = 1] = 1 − (1/2)(1 − q) and exact eps log(e^eps + 2) (1.55 at a declared 1), both from the
    brute-force matrix and from the implicit channel at k = 64; the correct oracle certifies at eps."""
    for eps in (0.5, 1.0, 3.0):
        q = 1.0 / (math.exp(eps) + 1.0)
        broken_p = 1.0 - 0.5 * (1.0 - q)
        expected = math.log(math.exp(eps) + 2.0)
        assert ldp_epsilon(brute_unary(4, broken_p, q)) == pytest.approx(expected, abs=1e-12)
        broken = UnaryChannel(64, (1.0 - broken_p, broken_p), (1.0 - q, q))
        assert ldp_epsilon(broken) == pytest.approx(expected, abs=1e-12)
        assert ldp_epsilon(broken) > eps + 1e-3  # log(e^eps + 2) − eps = log1p(2 e^-eps) > 0
        assert ldp_epsilon(UnaryEncoding(64, eps).channel) == pytest.approx(eps, abs=1e-12)
    assert math.log(math.e + 2.0) == pytest.approx(1.5514, abs=1e-4)


# ----------------------------------------------------------------------------------------- channels


@pytest.mark.parametrize("optimized", [True, False])
@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_srp_tab1_unary_channel_matches_enumeration(k: int, optimized: bool) -> None:
    """The full matrix, prob(x, y) and the lumped 2 x 4 kernel behind dobrushin / ldp_epsilon (AAC-eta) against
    the channel enumerated in plain Python, at delta = 0 and delta > 0."""
    for eps in (0.3, 1.0, 4.0):
        oracle = UnaryEncoding(k, eps, optimized=optimized)
        brute = brute_unary(k, oracle.p, oracle.q)
        implicit = oracle.implicit_channel
        assert isinstance(oracle.channel, FiniteKernel)
        np.testing.assert_allclose(oracle.channel.matrix, brute, rtol=1e-13, atol=0)
        bits = implicit.outputs()
        for x in range(k):
            np.testing.assert_allclose(implicit.prob(np.full(len(bits), x), bits), brute[x], rtol=1e-12)
        assert implicit.prob(1, bits[3]) == pytest.approx(brute[1, 3], rel=1e-12)
        for gamma_eps in (0.0, 0.2, 1.0, 3.0):
            assert dobrushin(implicit, gamma_eps) == pytest.approx(all_pairs_hockey_stick(brute, gamma_eps),
                                                                   abs=1e-12)
        assert ldp_epsilon(implicit) == pytest.approx(pure_eps(brute), abs=1e-12)
        for delta in (1e-3, 0.05, 0.3):
            assert ldp_epsilon(implicit, delta) == pytest.approx(ldp_epsilon(brute, delta), abs=2e-12)


@pytest.mark.parametrize(("k", "d"), [(3, 1), (4, 2), (5, 2), (6, 3), (7, 2), (8, 5)])
def test_srp_tab1_subset_channel_matches_enumeration(k: int, d: int) -> None:
    """SubsetChannel's full matrix, prob(x, S) and lumped kernel against the normalised e^eps weights summed
    over every subset in plain Python (AAC-eta, AAC-T1 at delta = 0 and delta > 0)."""
    for eps in (0.3, 1.0, 4.0):
        oracle = SubsetSelection(k, eps, d=d)
        brute = brute_subset(k, d, eps)
        implicit = oracle.implicit_channel
        np.testing.assert_allclose(oracle.channel.matrix, brute, rtol=1e-13, atol=0)
        subsets = implicit.outputs()
        for x in range(k):
            np.testing.assert_allclose(implicit.prob(x, subsets), brute[x], rtol=1e-12)
        assert implicit.prob(0, subsets[-1][::-1]) == pytest.approx(brute[0, -1], rel=1e-12)  # any order
        for gamma_eps in (0.0, 0.2, 1.0, 3.0):
            assert dobrushin(implicit, gamma_eps) == pytest.approx(all_pairs_hockey_stick(brute, gamma_eps),
                                                                   abs=1e-12)
        assert ldp_epsilon(implicit) == pytest.approx(pure_eps(brute), abs=1e-12)
        for delta in (1e-3, 0.05, 0.3):
            assert ldp_epsilon(implicit, delta) == pytest.approx(ldp_epsilon(brute, delta), abs=2e-12)


def test_srp_tab1_implicit_channels_beyond_the_full_matrix() -> None:
    """k = 12 unary encoding (4096 outputs) and C(14, 5) = 2002 subsets at k = 14 are implicit in `channel`
    (or not, for SS) but enumerable: to_kernel and the certified values agree with the enumeration."""
    oracle = UnaryEncoding(12, 1.0)
    assert isinstance(oracle.channel, UnaryChannel)
    brute = brute_unary(12, oracle.p, oracle.q)
    np.testing.assert_allclose(oracle.implicit_channel.to_kernel().matrix, brute, rtol=1e-13)
    assert ldp_epsilon(oracle.channel, 0.01) == pytest.approx(ldp_epsilon(brute, 0.01), abs=2e-12)
    for eps in (0.0, 0.5):
        assert dobrushin(oracle.channel, eps) == pytest.approx(dobrushin(brute, eps), abs=1e-12)
    ss = SubsetSelection(14, 1.0, d=5)
    brute = brute_subset(14, 5, 1.0)
    np.testing.assert_allclose(ss.implicit_channel.to_kernel().matrix, brute, rtol=1e-13)
    assert ldp_epsilon(ss.implicit_channel, 0.01) == pytest.approx(ldp_epsilon(brute, 0.01), abs=2e-12)
    assert isinstance(UnaryEncoding(10, 1.0).channel, FiniteKernel)
    assert isinstance(UnaryEncoding(10, 100.0).channel, UnaryChannel)  # entries would underflow
    assert isinstance(SubsetSelection(64, 1.0).channel, SubsetChannel)
    with pytest.raises(ValueError, match="MAX_ENTRIES"):
        UnaryChannel(30, (0.5, 0.5), (0.7, 0.3)).to_kernel()


def test_srp_tab1_subset_selection_with_one_element_is_randomized_response() -> None:
    """d = 1: the subset is one label, reported with e^eps/(e^eps + k − 1): k-ary RR's matrix (SRP-D)."""
    for k, eps in ((2, 0.5), (5, 1.0), (9, 3.0)):
        np.testing.assert_allclose(SubsetSelection(k, eps, d=1).channel.matrix, RandomizedResponse(k, eps).matrix,
                                   rtol=1e-13)
    assert SubsetSelection(1000, 10.0).d == 1


def test_srp_tab1_subset_size_is_ye_barg_ceiling() -> None:
    """d = ceil(k / (e^eps + 1)), at least 1 and at most k − 1."""
    for k in (2, 3, 16, 1024):
        for eps in (0.0, 0.1, 1.0, 5.0):
            d = SubsetSelection(k, eps).d
            assert d == max(1, math.ceil(k / (math.exp(eps) + 1.0)))
            assert 1 <= d <= k - 1
    assert SubsetSelection(1024, 1.0).d == 276


def test_srp_tab1_parameters_of_the_oracles() -> None:
    """OUE: p = 1/2, q = 1/(e^eps + 1); RAPPOR: p = e^(eps/2)/(e^(eps/2) + 1) = 1 − q; SS: p = d e^eps/(d e^eps
    + k − d); each channel's column ratio p (1 − q) / (q (1 − p)) is e^eps."""
    eps = 1.3
    oue, sue, ss = UnaryEncoding(7, eps), UnaryEncoding(7, eps, optimized=False), SubsetSelection(7, eps)
    assert (oue.p, oue.q) == pytest.approx((0.5, 1.0 / (math.exp(eps) + 1.0)), rel=1e-15)
    assert sue.p == pytest.approx(math.exp(eps / 2) / (math.exp(eps / 2) + 1.0), rel=1e-15)
    assert sue.q == pytest.approx(1.0 - sue.p, rel=1e-14)
    for o in (oue, sue):
        assert o.p * (1 - o.q) / (o.q * (1 - o.p)) == pytest.approx(math.exp(eps), rel=1e-13)
    d = ss.d
    assert ss.p == pytest.approx(d * math.exp(eps) / (d * math.exp(eps) + 7 - d), rel=1e-15)
    assert repr(oue) == "UnaryEncoding(k=7, eps=1.3, optimized=True)"
    assert repr(sue) == "UnaryEncoding(k=7, eps=1.3, optimized=False)"
    assert repr(ss) == f"SubsetSelection(k=7, eps=1.3, d={d})"


# ----------------------------------------------------------------------------------------- randomness


def test_srp_tab1_randomness_bits_equal_brute_force_row_entropies() -> None:
    """output_entropy_bits = max_x H(Y | X = x) of the enumerated rows (scipy's entropy, base 2); every row has
    the same entropy and randomness_bits equals it (the key is the report of input 0, relabelled)."""
    cases = [(UnaryEncoding(k, eps, optimized=o), brute_unary(k, *_pq(k, eps, o)))
             for k in (2, 3, 6) for eps in (0.2, 1.0, 6.0) for o in (True, False)]
    cases += [(SubsetSelection(k, eps, d=d), brute_subset(k, d, eps))
              for k, d in ((5, 2), (7, 3), (6, 1), (8, 4)) for eps in (0.2, 1.0, 6.0)]
    for oracle, brute in cases:
        rows = [stats.entropy(row, base=2) for row in brute]
        assert oracle.output_entropy_bits == pytest.approx(max(rows), rel=1e-12, abs=1e-14)
        assert np.ptp(rows) < 1e-12
        assert oracle.randomness_bits == oracle.output_entropy_bits
    # large k, from the structure: OUE at eps = 0 is k fair coins, SS at eps = 0 a uniform d-subset
    assert UnaryEncoding(1024, 0.0).randomness_bits == pytest.approx(1024.0, rel=1e-14)
    ss = SubsetSelection(1024, 0.0)
    assert ss.randomness_bits == pytest.approx(math.log2(math.comb(1024, ss.d)), rel=1e-12)


def _pq(k: int, eps: float, optimized: bool) -> tuple[float, float]:
    o = UnaryEncoding(k, eps, optimized=optimized)
    return o.p, o.q


# ----------------------------------------------------------------------------------------- sampling


def _chi_square_p(observed: np.ndarray, probs: np.ndarray) -> float:
    return float(stats.chisquare(observed, probs * observed.sum()).pvalue)


@pytest.mark.parametrize(("optimized", "eps"), [(True, 1.0), (False, 1.0), (False, 5.0)])
def test_srp_tab1_unary_reports_follow_the_channel(optimized: bool, eps: float) -> None:
    """Per-user reports for fixed inputs: the frequencies of the 2^3 outputs against the channel rows
    (chi-square, p > 1e-4; fixed seed). RAPPOR at eps = 5 draws its likely true bit through the complement."""
    oracle = UnaryEncoding(3, eps, optimized=optimized)
    for x in (0, 2):
        reports = oracle.sample(np.full(40_000, x), rng=np.random.default_rng(7 + x))
        assert reports.dtype == np.uint8 and reports.shape == (40_000, 3)
        index = reports.astype(np.int64) @ (1 << np.arange(3))
        assert _chi_square_p(np.bincount(index, minlength=8), oracle.channel.matrix[x]) > 1e-4


@pytest.mark.parametrize(("k", "eps", "d"), [(5, 1.0, None), (5, 2.0, None), (6, 1.0, 1), (7, 0.5, 3)])
def test_srp_tab1_subset_reports_follow_the_channel(k: int, eps: float, d: int | None) -> None:
    """Per-user subset bitmaps (d ones per row) against the channel rows: chi-square over all C(k, d) subsets."""
    oracle = SubsetSelection(k, eps, d=d)
    subsets = oracle.implicit_channel.outputs()
    column = {tuple(s): i for i, s in enumerate(subsets.tolist())}
    for x in (0, k - 1):
        reports = oracle.sample(np.full(30_000, x), rng=np.random.default_rng(11 + x))
        assert reports.dtype == np.uint8 and reports.shape == (30_000, k)
        assert (reports.sum(axis=1) == oracle.d).all()
        members = np.nonzero(reports)[1].reshape(-1, oracle.d)
        index = np.array([column[tuple(r)] for r in members.tolist()])
        assert _chi_square_p(np.bincount(index, minlength=len(subsets)), oracle.channel.matrix[x]) > 1e-4


@pytest.mark.parametrize(("k", "eps", "d"), [(2000, 1.0, 40), (2**20 + 2, 5.0, None)])
def test_srp_tab1_subset_sampler_for_large_label_ranges(k: int, eps: float, d: int | None) -> None:
    """The 26-bit (k − 1 > 2^10) and 32-bit (k − 1 > 2^20) uniform-label paths: the true label's inclusion
    rate is p (binomial CI), the other labels are uniform (chi-square over 16 bins of labels; at k = 2^20 + 2,
    d = 7019 labels per user, so 50 users, 50 MiB of bitmaps, suffice)."""
    oracle = SubsetSelection(k, eps, d=d)
    n = 50 if k > 10**6 else 20_000
    reports = oracle.sample(np.zeros(n, dtype=np.int64), rng=np.random.default_rng(3))
    assert (reports.sum(axis=1) == oracle.d).all()
    hits = int(reports[:, 0].sum())
    assert abs(hits - n * oracle.p) <= 5 * math.sqrt(n * oracle.p * (1 - oracle.p))
    others = np.nonzero(reports[:, 1:])[1]  # label − 1
    bins = np.bincount(others * 16 // (k - 1), minlength=16)
    assert stats.chisquare(bins).pvalue > 1e-4


def test_srp_tab1_exact_bernoulli_decides_ties_by_the_next_digits() -> None:
    """A bit with P[1] = 0.5/256 is 1 only through a tie of the first byte (B = 0, R = 0.5), and
    P[1] = 3.7/256 mostly not: both rates match P[1] within a binomial CI (the byte-wise exact sampler)."""
    from markovdp.mechanisms.local import _unary_kernels

    n, k = 20_000, 50
    for b in (0.5 / 256, 3.7 / 256, 1.0 - 0.5 / 256):
        law = bernoulli_split((1.0 - b, b))
        out = np.empty((n, k), dtype=np.uint8)
        _unary_kernels.sample_unary(np.random.default_rng(5), np.zeros(n, dtype=np.int64), law, law, out)
        assert abs(out.sum() - n * k * b) <= 5 * math.sqrt(n * k * b * (1 - b))


def test_srp_tab1_samples_are_reproducible_from_the_seed() -> None:
    """Same seed, same reports; a SeedSequence and an int seed are accepted (DESIGN §7)."""
    x = np.arange(100) % 8
    for oracle in (UnaryEncoding(8, 1.0), SubsetSelection(8, 1.0)):
        np.testing.assert_array_equal(oracle.sample(x, rng=42), oracle.sample(x, rng=42))
        np.testing.assert_array_equal(oracle.sample(x, rng=np.random.SeedSequence(1)),
                                      oracle.sample(x, rng=np.random.SeedSequence(1)))
    oue = UnaryEncoding(8, 1.0)
    np.testing.assert_array_equal(oue.sample_counts(x, rng=3), oue.sample_counts(x, rng=3))


# ----------------------------------------------------------------------------------------- estimation


@pytest.mark.parametrize("oracle", [UnaryEncoding(8, 1.0), UnaryEncoding(8, 2.0, optimized=False),
                                    SubsetSelection(8, 1.0), SubsetSelection(8, 0.5, d=1)], ids=repr)
def test_srp_est_estimators_are_unbiased_with_the_stated_variance(oracle) -> None:
    """SRP-Est: over R = 300 runs of n = 1000 users with fixed inputs, the mean estimate is within 4.5 standard
    errors of the true frequencies (standard error from `estimator_variance`), and the empirical variance of
    each coordinate is within a chi-square(R − 1) 1e-5-level interval of `estimator_variance`."""
    rng = np.random.default_rng(2024)
    n, runs = 1000, 300
    x = rng.choice(8, size=n, p=[0.4, 0.2, 0.1, 0.1, 0.05, 0.05, 0.1, 0.0])
    freq = np.bincount(x, minlength=8) / n
    estimates = np.array([oracle.estimate(oracle.sample(x, rng=rng)) for _ in range(runs)])
    variance = oracle.estimator_variance(freq, n)
    assert np.all(np.abs(estimates.mean(axis=0) - freq) <= 4.5 * np.sqrt(variance / runs))
    lo, hi = stats.chi2.ppf([1e-5, 1 - 1e-5], runs - 1) / (runs - 1)
    ratio = estimates.var(axis=0, ddof=1) / variance
    assert np.all((ratio > lo) & (ratio < hi))


def test_srp_est_counts_only_mode_has_the_law_of_the_column_sums() -> None:
    """sample_counts draws c_j = Bin(n_j, p) + Bin(n − n_j, q) directly; over R = 2000 runs its means and
    variances match both the closed forms and the column sums of per-user reports (CI-derived tolerances);
    estimate_counts on it is the per-user estimator applied to the same counts."""
    rng = np.random.default_rng(99)
    for oracle in (UnaryEncoding(6, 1.0), UnaryEncoding(6, 4.0, optimized=False)):
        x = rng.choice(6, size=400, p=[0.5, 0.2, 0.1, 0.1, 0.1, 0.0])
        n, runs = x.size, 2000
        hits = np.bincount(x, minlength=6)
        mean = hits * oracle.p + (n - hits) * oracle.q
        var = hits * oracle.p * (1 - oracle.p) + (n - hits) * oracle.q * (1 - oracle.q)
        counts = np.array([oracle.sample_counts(x, rng=rng) for _ in range(runs)])
        sums = np.array([oracle.sample(x, rng=rng).sum(axis=0) for _ in range(runs)])
        lo, hi = stats.chi2.ppf([1e-5, 1 - 1e-5], runs - 1) / (runs - 1)
        for sample in (counts, sums):
            assert np.all(np.abs(sample.mean(axis=0) - mean) <= 4.5 * np.sqrt(var / runs))
            ratio = sample.var(axis=0, ddof=1) / var
            assert np.all((ratio > lo) & (ratio < hi))
        assert np.all(np.abs(counts.mean(axis=0) - sums.mean(axis=0)) <= 4.5 * np.sqrt(2 * var / runs))
        assert abs(np.corrcoef(counts[:, 0], counts[:, 1])[0, 1]) < 5 / math.sqrt(runs)  # independent columns
        reports = oracle.sample(x, rng=1)
        np.testing.assert_array_equal(oracle.estimate(reports), oracle.estimate_counts(reports.sum(axis=0), n))


# ----------------------------------------------------------------------------------------- bad input


def test_oracles_reject_bad_parameters() -> None:
    """§7: k < 2, eps < 0 / NaN / inf / > 700, optimized not a bool, d outside 1..k−1: errors naming them."""
    for make in (UnaryEncoding, SubsetSelection):
        with pytest.raises(ValueError, match="`k`"):
            make(1, 1.0)
        with pytest.raises(TypeError, match="`k`"):
            make(2.5, 1.0)
        for eps in (-0.1, math.nan, math.inf, 701.0):
            with pytest.raises(ValueError, match="`eps`"):
                make(4, eps)
        with pytest.raises(TypeError, match="`eps`"):
            make(4, "1")
    with pytest.raises(TypeError, match="`optimized`"):
        UnaryEncoding(4, 1.0, optimized=1)
    for d in (0, 4):
        with pytest.raises(ValueError, match="`d`"):
            SubsetSelection(4, 1.0, d=d)
    with pytest.raises(ValueError, match="`true_bit`"):
        UnaryChannel(4, (0.5, 0.6), (0.5, 0.5))
    with pytest.raises(ValueError, match="`d`"):
        SubsetChannel(4, 5, 1.0)


@pytest.mark.parametrize("oracle", [UnaryEncoding(4, 1.0), SubsetSelection(4, 1.0)], ids=repr)
def test_oracles_reject_bad_inputs_and_reports(oracle) -> None:
    """§7: n < 1 users, inputs outside 0..k−1 or not integers, malformed reports or counts; estimating at
    eps = 0 (no unbiased estimator) raises instead of returning inf/NaN."""
    for bad in ([], [0, 4], [-1], [[0, 1]]):
        with pytest.raises(ValueError, match="`x`"):
            oracle.sample(bad)
    with pytest.raises(TypeError, match="`x`"):
        oracle.sample([0.5])
    width = oracle.k
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.zeros((0, width), dtype=np.int64))
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.zeros((3, width + 1), dtype=np.int64))
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.full((3, width), 7))
    with pytest.raises(ValueError, match="`reports`"):
        oracle.estimate(np.full((3, width), 2**40))
    with pytest.raises(TypeError, match="`reports`"):
        oracle.estimate(np.zeros((3, width)))
    with pytest.raises(ValueError, match="`n`"):
        oracle.estimate_counts(np.zeros(4, dtype=np.int64), 0)
    with pytest.raises(ValueError, match="`counts`"):
        oracle.estimate_counts(np.full(4, 5), 3)
    with pytest.raises(ValueError, match="eps"):
        type(oracle)(4, 0.0).estimate(type(oracle)(4, 0.0).sample([0, 1], rng=0))
    if isinstance(oracle, SubsetSelection):
        with pytest.raises(ValueError, match="exactly d"):
            oracle.estimate(np.array([[1, 1, 1, 0], [0, 1, 1, 0]]))
    else:
        with pytest.raises(ValueError, match="`x`"):
            oracle.sample_counts([])


# ----------------------------------------------------------------------------------------- entropies at large eps


def mp_entropy_bits(weighted) -> float:
    """−Σ m p log2 p over (multiplicity m, probability p) pairs, p given as mpmath numbers (60 digits)."""
    return float(sum(-m * p * mpmath.log(p, 2) for m, p in weighted if p > 0))


def mp_h2(p) -> mpmath.mpf:
    """H2(p) in bits; log1p keeps 1 − p exact however small p is (60 digits alone round 1 − 1e-300 to 1)."""
    return -(p * mpmath.log(p) + (1 - p) * mpmath.log1p(-p)) / mpmath.log(2)


def mp_oracle_bits(oracle) -> tuple[float, float]:
    """(randomness_bits, output_entropy_bits) of an oracle from its definition, in mpmath."""
    from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
    from markovdp.mechanisms.local.hadamard import HadamardResponse

    k = oracle.k
    with mpmath.workdps(60):
        e = mpmath.mpf(oracle.eps)
        a = mpmath.e**e / (mpmath.e**e + 1)
        if isinstance(oracle, UnaryEncoding):
            if oracle.optimized:
                p, q = mpmath.mpf(1) / 2, 1 / (mpmath.e**e + 1)
            else:
                p = mpmath.e ** (e / 2) / (mpmath.e ** (e / 2) + 1)
                q = 1 - p
            bits = float(mp_h2(p) + (k - 1) * mp_h2(q))
            return bits, bits
        if isinstance(oracle, SubsetSelection):
            d = oracle.d
            inside = d * mpmath.e**e / (d * mpmath.e**e + k - d)
            bits = float(mp_h2(inside) + inside * mpmath.log(math.comb(k - 1, d - 1), 2)
                         + (1 - inside) * mpmath.log(math.comb(k - 1, d), 2))
            return bits, bits
        if isinstance(oracle, HadamardResponse):
            bits = float(mp_h2(a) + mpmath.log(oracle.hadamard_order // 2, 2))
            return bits, bits
        if isinstance(oracle, BinaryHadamard):
            return float(mp_h2(a)), float(mp_h2(a) + mpmath.log(oracle.hadamard_order, 2))
        if isinstance(oracle, RandomizedResponse):
            p = mpmath.e**e / (mpmath.e**e + k - 1)
            bits = mp_entropy_bits([(1, p), (k - 1, 1 / (mpmath.e**e + k - 1))])
            return bits, bits
        s = oracle.s  # RecoverableMechanism
        total = s * mpmath.e**e + k - s
        bits = mp_entropy_bits([(s, mpmath.e**e / total), (k - s, 1 / total)])
        return bits, bits


@pytest.mark.parametrize("eps", [20.0, 40.0, 50.0])
def test_srp_tab1_randomness_bits_of_every_oracle_against_mpmath_at_large_eps(eps) -> None:
    """SRP-Tab1 / SRP-Rec entropies where a probability rounds to 1: relative error <= 1e-12 against mpmath
    (H2 through the smaller probability and log1p; H(q_min^s) in closed form). Before: SubsetSelection(2, 40)
    and RecoverableMechanism(2, 40) were 2.4 % off, RAPPOR(2, 60) 5e-4."""
    from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
    from markovdp.mechanisms.local.hadamard import HadamardResponse
    from markovdp.mechanisms.local.recoverable import RecoverableMechanism

    oracles = [UnaryEncoding(2, eps), UnaryEncoding(2, eps, optimized=False), UnaryEncoding(5, eps),
               UnaryEncoding(5, eps, optimized=False), SubsetSelection(2, eps), SubsetSelection(6, eps, d=2),
               HadamardResponse(5, eps), BinaryHadamard(5, eps), RandomizedResponse(5, eps),
               RecoverableMechanism(2, eps), RecoverableMechanism(5, eps, 2)]
    for oracle in oracles:
        randomness, output = mp_oracle_bits(oracle)
        assert oracle.randomness_bits == pytest.approx(randomness, rel=1e-12, abs=0), oracle
        assert oracle.output_entropy_bits == pytest.approx(output, rel=1e-12, abs=0), oracle
    assert UnaryEncoding(2, 2 * eps, optimized=False).randomness_bits == pytest.approx(
        mp_oracle_bits(UnaryEncoding(2, 2 * eps, optimized=False))[0], rel=1e-12, abs=0)


@pytest.mark.parametrize("p", [1e-9, 1e-300, math.exp(-50), 0.3, 0.5, 1 - 2**-40,
                               math.exp(20) / (math.exp(20) + 1)])
def test_srp_d_binary_entropy_keeps_full_relative_precision(p) -> None:
    """binary_entropy(p) of the double p to 1e-12 relative against mpmath (it lost 1.3e-9 at p = 1e-9: the
    rounded 1 − p); symmetric: H2(p) = H2(1 − p) where 1 − p is exact."""
    from markovdp.mechanisms.local.entropy import binary_entropy

    with mpmath.workdps(60):
        exact = float(mp_h2(mpmath.mpf(p)))
    assert binary_entropy(p) == pytest.approx(exact, rel=1e-12, abs=0)
    if p >= 0.5:
        assert binary_entropy(1.0 - p) == binary_entropy(p)
    assert binary_entropy(0.0) == binary_entropy(1.0) == 0.0


def test_aac_t1_every_oracle_object_is_certified_directly() -> None:
    """ldp_epsilon and dobrushin accept every oracle object, not only its `.channel` (UE and SS through their
    `ldp_kernel()`; they raised NotImplementedError), with the same values as from the channel."""
    from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
    from markovdp.mechanisms.local.hadamard import HadamardResponse
    from markovdp.mechanisms.local.keyed import KeyedMechanism
    from markovdp.mechanisms.local.recoverable import RecoverableMechanism

    oracles = [UnaryEncoding(4, 1.0), UnaryEncoding(4, 1.0, optimized=False), SubsetSelection(5, 1.0),
               SubsetSelection(40, 2.0, d=3), UnaryEncoding(30, 0.7), HadamardResponse(4, 1.0),
               BinaryHadamard(4, 1.0), RandomizedResponse(4, 1.0), RecoverableMechanism(4, 1.0, 2),
               KeyedMechanism([[0, 1], [1, 0]], [0.7, 0.3])]
    for oracle in oracles:
        same = getattr(oracle, "implicit_channel", oracle.channel)  # the same finite stand-in: equal values
        assert ldp_epsilon(oracle) == ldp_epsilon(same)
        assert ldp_epsilon(oracle) == pytest.approx(ldp_epsilon(oracle.channel), abs=1e-12)
        assert ldp_epsilon(oracle, 0.05) == ldp_epsilon(same, 0.05)
        for e in (0.0, 0.3):
            assert dobrushin(oracle, e) == dobrushin(same, e)
            assert dobrushin(oracle, e) == pytest.approx(dobrushin(oracle.channel, e), abs=1e-14)
    assert ldp_epsilon(UnaryEncoding(4, 1.0)) == pytest.approx(1.0, abs=1e-12)
