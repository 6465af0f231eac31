"""Mixing coefficients of finite kernels (BBGG-D1, BBGG-F1, AAC-eta, AAC-T1) against brute force."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
import pytest
from oracles import (
    coefficient_bruteforce,
    doeblin_bruteforce,
    hockey_stick_bruteforce,
    ultra_mixing_bruteforce,
)

from markovdp.guarantees import coefficients
from markovdp.guarantees.coefficients import dobrushin, doeblin, ldp_epsilon, ultra_mixing

EPS_GRID = [0.0, 0.3, 1.0, 5.0, 50.0, math.inf]
DELTA_GRID = [0.0, 1e-9, 1e-3, 0.05, 0.3, 0.9, 1.0]
TOL = 1e-12


def _normalised(rows: np.ndarray) -> np.ndarray:
    return rows / rows.sum(axis=1, keepdims=True)


def randomized_response(k: int, eps: float) -> np.ndarray:
    """k-ary RR: e^eps/(e^eps + k − 1) on the diagonal, 1/(e^eps + k − 1) elsewhere."""
    e = math.exp(eps)
    out = np.full((k, k), 1.0 / (e + k - 1))
    np.fill_diagonal(out, e / (e + k - 1))
    return out


def _kernels() -> list[np.ndarray]:
    """Random kernels, 2..6 states: dense, sparse rows, near-deterministic rows, repeated rows; fixed seed."""
    rng = np.random.default_rng(20240601)
    cases = [np.eye(2), np.eye(4), np.full((3, 4), 0.25), np.array([[1.0, 0.0], [1.0, 0.0]]),
             np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]), randomized_response(3, 1.0), np.ones((1, 3)) / 3]
    for n in range(36):
        k, m = (int(v) for v in rng.integers(2, 7, size=2))
        kind = n % 4
        rows = rng.random((k, m)) ** 2
        if kind == 1:  # sparse: zeros, every row keeps at least one outcome
            rows[rng.random((k, m)) < 0.4] = 0.0
            rows[np.arange(k), rng.integers(0, m, size=k)] += rng.random(k) + 0.1
        elif kind == 2:  # near-deterministic rows
            rows = np.full((k, m), 1e-9)
            rows[np.arange(k), rng.integers(0, m, size=k)] = 1.0
        elif kind == 3:  # identical rows next to distinct ones
            rows[1:] = rows[0] if rng.random() < 0.5 else rows[1:]
            rows[-1] = rows[0]
        cases.append(_normalised(rows))
    return cases


KERNELS = _kernels()
IDS = [f"K{n}-{K.shape[0]}x{K.shape[1]}" for n, K in enumerate(KERNELS)]


# ----------------------------------------------------------------------------------------- BBGG-D1 / AAC-eta


@pytest.mark.parametrize("eps", EPS_GRID)
def test_bbgg_d1_dobrushin_matches_bruteforce(eps: float) -> None:
    for K in KERNELS:
        assert dobrushin(K, eps) == pytest.approx(coefficient_bruteforce(K, eps), abs=TOL), K


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_bbgg_d1_dobrushin_eps0_is_tv_coefficient(K: np.ndarray) -> None:
    tv = max(0.5 * np.abs(K[i] - K[j]).sum() for i in range(len(K)) for j in range(len(K)))
    assert dobrushin(K) == pytest.approx(tv, abs=TOL)
    assert dobrushin(K, 0.0) == dobrushin(K)


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_bbgg_d1_dobrushin_inf_is_mass_off_support(K: np.ndarray) -> None:
    # D_inf(p||q) = p(supp p \ supp q) (THEORY: Notation, gamma -> inf).
    expect = max(K[i][K[j] == 0].sum() for i in range(len(K)) for j in range(len(K)))
    assert dobrushin(K, math.inf) == pytest.approx(expect, abs=TOL)
    assert dobrushin(K, 800.0) == dobrushin(K, math.inf)  # e^800 b > 1 for every positive double b


def test_bbgg_d1_dobrushin_where_exp_eps_overflows() -> None:
    # e^720 overflows float64; the subnormal entry keeps the finite-eps value away from the D_inf one.
    tiny = 1e-315
    K = np.array([[0.5, 0.5], [1.0 - tiny, tiny]])
    expect = 0.5 - math.exp(720.0 + math.log(tiny))  # E_{e^720}(K[0]||K[1]) = [0.5 − e^720 tiny]_+
    assert dobrushin(K, 720.0) == pytest.approx(expect, rel=1e-13)
    assert dobrushin(K, math.inf) == 0.0


def test_bbgg_d1_dobrushin_single_row_and_identity() -> None:
    one = np.array([[0.2, 0.8]])
    assert [dobrushin(one, e) for e in EPS_GRID] == [0.0] * len(EPS_GRID)
    assert doeblin(one) == 0.0 and ultra_mixing(one) == 0.0 and ldp_epsilon(one) == 0.0
    assert [dobrushin(np.eye(5), e) for e in EPS_GRID] == [1.0] * len(EPS_GRID)


@pytest.mark.parametrize("eps", [0.0, 1.0, math.inf])
@pytest.mark.parametrize("threads", [False, True])
def test_aac_eta_dobrushin_larger_kernels_match_pairwise_hockey_stick(
    eps: float, threads: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both kernels (serial, and parallel forced at any size) against the pairwise definition.
    monkeypatch.setattr(coefficients, "_PARALLEL_MIN_WORK", 0 if threads else 2**62)
    rng = np.random.default_rng(7)
    K = rng.random((80, 7)) ** 3
    K[rng.random(K.shape) < 0.2] = 0.0
    K[:, 0] += 1e-3
    K = _normalised(K)
    gamma = math.exp(eps) if math.isfinite(eps) else math.inf
    a, b = K[:, None, :], K[None, :, :]
    if math.isfinite(gamma):
        pairwise = np.maximum(a - gamma * b, 0.0).sum(-1)
    else:
        pairwise = np.where(b == 0, a, 0.0).sum(-1)
    assert dobrushin(K, eps) == pytest.approx(pairwise.max(), abs=TOL)
    # spot-check the hockey-stick sup-over-events definition on the maximising pair
    i, j = np.unravel_index(pairwise.argmax(), pairwise.shape)
    assert pairwise.max() == pytest.approx(hockey_stick_bruteforce(K[i], K[j], eps), abs=TOL)


def test_aac_eta_dobrushin_parallel_equals_serial_bitwise(monkeypatch: pytest.MonkeyPatch) -> None:
    # From a worker thread the serial kernel runs; from the main thread the parallel one: same bits.
    monkeypatch.setattr(coefficients, "_PARALLEL_MIN_WORK", 0)
    rng = np.random.default_rng(11)
    K = _normalised(rng.random((151, 40)))
    main = [dobrushin(K, e) for e in (0.0, 0.5, math.inf)]
    seen: list[float] = []
    worker = threading.Thread(target=lambda: seen.extend(dobrushin(K, e) for e in (0.0, 0.5, math.inf)))
    worker.start()
    worker.join()
    assert seen == main


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_bbgg_d1_3_doeblin_matches_bruteforce(K: np.ndarray) -> None:
    assert doeblin(K) == pytest.approx(doeblin_bruteforce(K), abs=TOL)


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_bbgg_d1_4_ultra_mixing_matches_bruteforce(K: np.ndarray) -> None:
    expect = ultra_mixing_bruteforce(K)
    got = ultra_mixing(K)
    if math.isinf(expect):
        assert got == math.inf
    else:
        assert got == pytest.approx(expect, abs=TOL)


def test_bbgg_d1_4_ultra_mixing_different_supports_is_inf() -> None:
    assert ultra_mixing(np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25]])) == math.inf
    assert ultra_mixing(np.eye(3)) == math.inf
    # a column that is zero in every row does not break the common support
    assert ultra_mixing(np.array([[0.5, 0.0, 0.5], [0.25, 0.0, 0.75]])) == pytest.approx(0.5, abs=TOL)


# ----------------------------------------------------------------------------------------- BBGG-F1


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_bbgg_f1_implication_order(K: np.ndarray) -> None:
    # gamma-ultra-mixing ⇒ gamma-Doeblin ⇒ gamma-Dobrushin ⇒ (gamma, eps)-Dobrushin: smallest gammas ordered.
    chain = [ultra_mixing(K), doeblin(K), dobrushin(K)] + [dobrushin(K, e) for e in EPS_GRID[1:]]
    for upper, lower in zip(chain[:-1], chain[1:], strict=True):
        assert upper >= lower - TOL, chain


# ----------------------------------------------------------------------------------------- AAC-T1


@pytest.mark.parametrize("delta", DELTA_GRID)
def test_aac_t1_ldp_epsilon_is_smallest_eps_with_coefficient_below_delta(delta: float) -> None:
    for K in KERNELS:
        eps = ldp_epsilon(K, delta)
        if eps == math.inf:  # no eps works: even the D_inf coefficient exceeds delta
            assert dobrushin(K, math.inf) > delta
            continue
        assert dobrushin(K, eps) <= delta, (K, eps)  # exact, no tolerance (documented guarantee)
        if eps > 0:
            assert dobrushin(K, max(eps - 1e-9, 0.0)) > delta, (K, eps)


@pytest.mark.parametrize("K", KERNELS, ids=IDS)
def test_aac_t1_ldp_epsilon_inverts_dobrushin(K: np.ndarray) -> None:
    for eps in (0.3, 1.0, 5.0):
        delta = dobrushin(K, eps)
        assert ldp_epsilon(K, delta) <= eps + 1e-11


@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 3.0, 8.0])
def test_aac_t1_ldp_epsilon_randomized_response_closed_form(k: int, eps: float) -> None:
    K = randomized_response(k, eps)
    assert ldp_epsilon(K) == pytest.approx(eps, rel=1e-14, abs=1e-14)
    assert dobrushin(K, ldp_epsilon(K)) == 0.0
    # delta > 0 needs less eps; delta >= TV coefficient needs none
    assert ldp_epsilon(K, 1e-3) < ldp_epsilon(K)
    assert ldp_epsilon(K, dobrushin(K)) == 0.0


def test_aac_t1_ldp_epsilon_pure_closed_form() -> None:
    K = np.array([[0.5, 0.3, 0.2], [0.25, 0.25, 0.5]])
    expect = max(math.log(0.5 / 0.25), math.log(0.3 / 0.25), math.log(0.5 / 0.2))
    assert ldp_epsilon(K) == pytest.approx(expect, rel=1e-14)
    assert ldp_epsilon(np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25]])) == math.inf
    assert ldp_epsilon(np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25]]), 0.25) < math.inf
    assert ldp_epsilon(np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25]]), 0.2) == math.inf


def test_aac_t1_ldp_epsilon_flat_stretch_returns_its_start() -> None:
    # delta equal to the D_inf coefficient: dobrushin(K, eps) = delta on [eps*, inf); the answer is eps*.
    K = np.array([[0.5, 0.3, 0.2], [0.8, 0.2, 0.0]])
    delta = dobrushin(K, math.inf)  # 0.2: row 0's mass where row 1 is zero
    eps = ldp_epsilon(K, delta)
    # E_g(K0||K1) = [0.3 − 0.2 g]_+ + 0.2 reaches 0.2 at g = 1.5;
    # E_g(K1||K0) = [0.8 − 0.5 g]_+ <= 0.2 from g = 1.2.
    eps_star = math.log(1.5)
    assert eps == pytest.approx(eps_star, abs=1e-11)
    assert dobrushin(K, eps) <= delta < dobrushin(K, eps - 1e-9)


# ----------------------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class _WithMatrix:
    matrix: np.ndarray


def test_bbgg_d1_accepts_objects_with_matrix() -> None:
    K = KERNELS[10]
    for wrapped in (_WithMatrix(K), K.tolist()):
        assert dobrushin(wrapped, 1.0) == dobrushin(K, 1.0)
        assert doeblin(wrapped) == doeblin(K)
        assert ultra_mixing(wrapped) == ultra_mixing(K)
        assert ldp_epsilon(wrapped, 0.1) == ldp_epsilon(K, 0.1)
    from markovdp.operators.finite import FiniteKernel

    assert dobrushin(FiniteKernel(K), 1.0) == dobrushin(K, 1.0)


def test_bbgg_d1_results_are_python_floats() -> None:
    K = KERNELS[12]
    values = [dobrushin(K), dobrushin(K, np.float64(1.0)), doeblin(K), ultra_mixing(K), ldp_epsilon(K),
              ldp_epsilon(K, 0.01)]
    assert all(type(v) is float for v in values)


def test_bbgg_d1_continuous_kernel_not_implemented() -> None:
    class GaussianKernel:  # stands for any MarkovOperator without a finite matrix
        def sample(self, x, *, rng=None):
            return x

    for func in (dobrushin, doeblin, ultra_mixing, ldp_epsilon):
        with pytest.raises(NotImplementedError, match="exact only for finite kernels; got GaussianKernel"):
            func(GaussianKernel())


@pytest.mark.parametrize("eps, match", [(math.nan, "`eps`.*NaN"), (-1.0, "`eps` must be >= 0; got -1.0"),
                                        (-math.inf, "`eps` must be >= 0")])
def test_bad_eps_raises(eps: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        dobrushin(np.eye(2), eps)


def test_bad_eps_array_raises_type_error() -> None:
    with pytest.raises(TypeError, match="`eps` must be a scalar"):
        dobrushin(np.eye(2), [0.0, 1.0])


@pytest.mark.parametrize("delta", [1.5, -0.1, math.nan])
def test_bad_delta_raises(delta: float) -> None:
    with pytest.raises(ValueError, match="`delta` must be"):
        ldp_epsilon(np.eye(2), delta)


@pytest.mark.parametrize("func", [dobrushin, doeblin, ultra_mixing, ldp_epsilon])
@pytest.mark.parametrize("bad", [[[0.5, 0.6], [0.5, 0.5]], [[1.5, -0.5], [0.5, 0.5]], [0.5, 0.5],
                                 [[np.nan, 1.0], [0.5, 0.5]]])
def test_bad_matrix_raises(func, bad) -> None:
    with pytest.raises(ValueError, match="`K` must be"):
        func(bad)
