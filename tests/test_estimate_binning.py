"""The counts behind the binned estimators (issue 13 §6): the numba binning of float64 samples gives numpy's
counts — equal-probability edges from ``np.quantile`` of the pooled selection halves, bins by
``np.searchsorted(edges, y, side="right")``, halves counted by ``np.bincount`` — exactly, on every kind of data
(ties, point masses, ±0, outliers, huge and tiny scales), so every estimate is the one computed from numpy's
counts. The reference is written out here in plain numpy; no timing assertions (speed: benchmarks/estimators.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markovdp.divergences import _binning_kernels as kernels
from markovdp.divergences.estimate import (
    estimate_hockey_stick,
    estimate_hockey_stick_from_counts,
    estimate_renyi,
    estimate_renyi_from_counts,
    split_counts,
)

SEED = 20240613


def numpy_counts(x: np.ndarray, interior: np.ndarray) -> np.ndarray:
    """(2, m): bincount of searchsorted bins of the first n // 2 samples and of the rest."""
    cells = np.searchsorted(interior, x, side="right")
    cut = x.size // 2
    return np.stack([np.bincount(cells[:cut], minlength=interior.size + 1),
                     np.bincount(cells[cut:], minlength=interior.size + 1)])


def numpy_quantile_edges(xp: np.ndarray, xq: np.ndarray, bins: int) -> np.ndarray:
    """np.unique(np.quantile(pooled first halves, j / bins)), as the estimators documented it before numba."""
    pooled = np.concatenate([xp[: xp.size // 2], xq[: xq.size // 2]])
    return np.unique(np.quantile(pooled, np.arange(1, bins) / bins)) if pooled.size else np.empty(0)


def draw(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "cauchy":  # heavy tails: the grid spans the quantiles' range, outliers pile up in its end cells
        return rng.standard_cauchy(n)
    if kind == "lognormal":
        return rng.lognormal(0.0, 3.0, n)
    if kind == "rounded":  # many ties, edges equal to sample values
        return np.round(rng.standard_normal(n), 1)
    if kind == "three values":  # point masses: the cells holding the ranks are too full, numpy partitions
        return rng.integers(0, 3, n).astype(np.float64)
    if kind == "constant":
        return np.full(n, 2.5)
    if kind == "signed zeros":
        return np.where(rng.random(n) < 0.5, 0.0, -0.0)
    if kind == "huge":  # (y − low) overflows to ±inf near the ends of the double range (so does numpy's lerp)
        return np.clip(rng.standard_normal(n), -1.7, 1.7) * 1e308
    if kind == "tiny":  # subnormal widths: the scale of the grid overflows, one cell
        return rng.standard_normal(n) * 1e-320
    if kind == "two scales":  # most values in one cell of a grid set by the other scale
        return np.where(rng.random(n) < 0.5, rng.standard_normal(n) * 1e-9, rng.standard_normal(n) * 1e9)
    raise AssertionError(kind)


KINDS = ("normal", "cauchy", "lognormal", "rounded", "three values", "constant", "signed zeros", "huge", "tiny",
         "two scales")


@pytest.mark.filterwarnings("ignore:overflow encountered in subtract:RuntimeWarning")  # numpy's lerp, "huge"
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000, 4097, 200_001])
def test_quantile_bins_give_numpys_counts(kind: str, n: int) -> None:
    """Counts of both halves of both samples in the default 64 equal-probability bins and in 1, 2, 7 and 1000
    bins equal numpy's; so do the estimates, computed from numpy's counts by the count-level estimators."""
    rng = np.random.default_rng([SEED, KINDS.index(kind), n])
    xp, xq = draw(kind, n, rng), draw(kind, n + int(rng.integers(0, 3)), rng)
    for bins in (64, 1, 2, 7, 1000):
        interior = numpy_quantile_edges(xp, xq, bins)
        cp, cq = numpy_counts(xp, interior), numpy_counts(xq, interior)
        np.testing.assert_array_equal(split_counts_bins(xp, xq, bins), np.stack([cp, cq]))
    eps, alpha = np.array([0.0, 0.3, 2.0]), np.array([1.5, 2.0, np.inf])
    cp, cq = (numpy_counts(x, numpy_quantile_edges(xp, xq, 64)) for x in (xp, xq))
    if n >= 2:
        assert estimate_hockey_stick(xp, xq, eps=eps) == estimate_hockey_stick_from_counts(cp, cq, eps=eps)
        histogram = estimate_hockey_stick(xp, xq, eps=eps, method="histogram")
        reference = estimate_hockey_stick_from_counts(cp[1:], cq[1:], eps=eps, method="box")
        np.testing.assert_array_equal(histogram.value, reference.value)
        np.testing.assert_array_equal(histogram.ci_low, reference.ci_low)
    renyi = estimate_renyi(xp, xq, alpha=alpha)
    reference = estimate_renyi_from_counts(cp[1:], cq[1:], alpha=alpha)
    np.testing.assert_array_equal(renyi.value, reference.value)
    np.testing.assert_array_equal(renyi.ci_low, reference.ci_low)


def split_counts_bins(xp: np.ndarray, xq: np.ndarray, bins: int) -> np.ndarray:
    """The library's (2, 2, m) counts of both samples in `bins` quantile bins (the estimators' first step)."""
    from markovdp.divergences._binning import quantile_counts

    return np.stack(quantile_counts(xp, xq, bins))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1e-300, 3.0]), min_size=1, max_size=300),
       st.lists(st.floats(-5.0, 5.0, allow_subnormal=True), min_size=1, max_size=300),
       st.integers(1, 40))
def test_quantile_bins_on_ties_and_edges_at_sample_values(few: list[float], many: list[float], bins: int) -> None:
    """Few distinct values (every edge a sample value, g = 0 or ties) against arbitrary ones, any bins."""
    xp, xq = np.array(few), np.array(many)
    interior = numpy_quantile_edges(xp, xq, bins)
    expected = np.stack([numpy_counts(xp, interior), numpy_counts(xq, interior)])
    np.testing.assert_array_equal(split_counts_bins(xp, xq, bins), expected)


@pytest.mark.parametrize("kind", KINDS)
def test_explicit_edges_give_numpys_counts(kind: str) -> None:
    """Given edges (with ±inf outer edges, one edge, edges a few ulps apart, edges at sample values, edges over
    the whole double range): `split_counts` and the estimators' counts equal numpy's."""
    rng = np.random.default_rng([SEED, 1, KINDS.index(kind)])
    x = draw(kind, 50_001, rng)
    sample_edges = np.unique(rng.choice(x, 9))
    near = np.nextafter(1.0, np.inf)
    for edges in (sample_edges, [-np.inf, *sample_edges, np.inf], [0.0], [-0.0, 1.0],
                  [1.0, near, np.nextafter(near, 2)], [-1.7e308, -1.0, 1e-300, 1.7e308], np.linspace(-3, 3, 500),
                  np.unique(rng.standard_normal(40_000))):
        edges = np.asarray(edges, dtype=np.float64)
        np.testing.assert_array_equal(split_counts(x, edges=edges), numpy_counts(x, edges[np.isfinite(edges)]))


def test_order_statistics_kernel_equals_a_sort() -> None:
    """x_(r) of two arrays pooled equals np.sort of their concatenation at any increasing ranks; a `limit` below
    what the cells holding the ranks hold returns status 1 (the caller's partition), a NaN or inf status 2."""
    rng = np.random.default_rng([SEED, 2])
    for kind in KINDS:
        a, b = draw(kind, 30_000, rng), draw(kind, 12_345, rng)
        pooled = np.sort(np.concatenate([a, b]))
        ranks = np.unique(rng.integers(0, pooled.size, 200))
        ranks = np.concatenate([[0], ranks, [pooled.size - 1]]) if ranks[0] else np.append(ranks, pooled.size - 1)
        ranks = np.unique(ranks)
        for cells in (1, 16, 4096):
            scale, used = kernels.grid_scale(pooled[100], pooled[-100], cells)
            stats, status, counts, offset, gathered = kernels.order_statistics(a, b, ranks, pooled[100], scale,
                                                                               used, pooled.size)
            assert status == 0
            np.testing.assert_array_equal(stats, pooled[ranks])
            assert counts.sum() == pooled.size
        assert kernels.order_statistics(a, b, ranks, pooled[100], scale, used, 0)[1] == 1
        for bad in (np.nan, np.inf, -np.inf):
            c = b.copy()
            c[-1] = bad
            assert kernels.order_statistics(a, c, ranks, pooled[100], scale, used, pooled.size)[1] == 2


def test_gathered_counts_fall_back_to_a_pass_when_an_edge_cell_was_not_gathered() -> None:
    """`bin_counts_gathered` given no gathered cells at all still counts the first halves exactly (a pass)."""
    rng = np.random.default_rng([SEED, 3])
    p, q = rng.standard_normal(10_001), rng.standard_normal(9_000) + 0.5
    edges = np.sort(rng.standard_normal(20))
    scale, cells = kernels.grid_scale(-3.0, 3.0, 256)
    ranks = np.array([0])
    _, _, counts, _, _ = kernels.order_statistics(p[:5000], q[:4500], ranks, -3.0, scale, cells, 10**9)
    out, finite = kernels.bin_counts_gathered(p, q, 5000, 4500, edges, -3.0, scale, counts, np.full(cells, -1),
                                              np.empty(0))
    assert finite
    np.testing.assert_array_equal(out, np.concatenate([numpy_counts(p, edges), numpy_counts(q, edges)]))


def test_float32_and_mixed_precision_samples_keep_numpys_binning() -> None:
    """Samples that are not float64 take numpy's path (the pooled quantiles in their own precision)."""
    rng = np.random.default_rng([SEED, 4])
    xp, xq = rng.standard_normal(3001).astype(np.float32), rng.standard_normal(2000)
    interior = numpy_quantile_edges(xp, xq, 64)
    np.testing.assert_array_equal(split_counts_bins(xp, xq, 64),
                                  np.stack([numpy_counts(xp, interior), numpy_counts(xq, interior)]))


def test_non_finite_samples_are_named_wherever_they_are() -> None:
    """NaN or inf anywhere (a selection half, an evaluation half, the last value; float64 samples are checked by the
    binning passes themselves) is refused, naming the sample and its first non-finite value: default and given
    bins, both estimators, `split_counts`, and a float64 sample beside a float32 one."""
    rng = np.random.default_rng([SEED, 5])
    clean = rng.standard_normal(1_000_000)
    for where in (0, 499_999, 500_000, 999_999):
        for bad in (np.nan, np.inf, -np.inf):
            x = clean.copy()
            x[where] = bad
            if where < 999_999:
                x[-1] = np.inf if bad != np.inf else np.nan  # a later offender is not the one named
            with pytest.raises(ValueError, match=rf"`samples_q` must be finite \(no NaN or inf\); got {bad!r}\."):
                estimate_renyi(clean[:10], x, alpha=2.0)
            with pytest.raises(ValueError, match="`samples_p` must be finite"):
                estimate_hockey_stick(x, clean, eps=0.5)
            with pytest.raises(ValueError, match="`samples_p` must be finite"):
                estimate_hockey_stick(x, clean, eps=0.5, bins=np.linspace(-2.0, 2.0, 9))
            with pytest.raises(ValueError, match="`samples_p` must be finite"):
                estimate_renyi(x, clean.astype(np.float32), alpha=2.0)
            with pytest.raises(ValueError, match="`samples` must be finite"):
                split_counts(x, edges=[-1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="`samples_q` must be finite"):
        estimate_renyi(clean[:10], np.array([1.0, np.nan]), alpha=2.0, bins=1)
