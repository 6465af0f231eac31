"""Dominating pairs (DESIGN §4): every registered mechanism's pairs dominate every neighbouring pair of
outputs and are attained; merges and powers fold ``>>`` exactly.

The neighbouring outputs are built from `Mechanism.output` at concrete inputs — an independent path from
`dominating_pairs`. Powers are held against closed forms evaluated with mpmath.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from registry import EXACT_MECHANISMS

import markovdp as md
from markovdp.mechanisms.base import neighbour_pairs

EPS = np.array([0.0, 0.3, 1.0, 2.5])
ALPHA = np.array([1.5, 4.0])


def neighbouring_outputs(mech, rng, count=12):
    """Pairs of output laws M(x), M(x') at neighbouring inputs, by the mechanism's neighbour relation."""
    nb = mech.neighbours
    if isinstance(nb, (md.mechanisms.AllPairs, md.mechanisms.IndexPairs)):
        rows = mech.matrix
        return [(md.Categorical(rows[i]), md.Categorical(rows[j]))
                for i, j in neighbour_pairs(nb, rows.shape[0])], True
    radius = nb.sensitivity
    out = []
    for n in range(count):
        x = rng.normal()
        # the last ones sit at full distance (attained), the others strictly inside the ball
        step = radius if n >= count - 2 else radius * rng.uniform(0.05, 1.0)
        out.append((mech.output(x), mech.output(x + step * rng.choice([-1.0, 1.0]))))
    return out, False


@pytest.mark.parametrize("case", EXACT_MECHANISMS, ids=repr)
def test_pairs_dominate_every_neighbouring_pair_and_are_attained(case):
    mech = case.build()
    rng = np.random.default_rng(7)
    outputs, exhaustive = neighbouring_outputs(mech, rng)
    delta = md.privacy_profile(mech, EPS)
    rdp = md.renyi_profile(mech, ALPHA)
    seen_delta = np.max([md.hockey_stick(mu, nu, eps=EPS) for mu, nu in outputs], axis=0)
    seen_rdp = np.max([md.renyi(mu, nu, alpha=ALPHA) for mu, nu in outputs], axis=0)
    assert np.all(seen_delta <= delta * (1 + 1e-12) + 1e-15)
    assert np.all(seen_rdp <= rdp * (1 + 1e-12) + 1e-15)
    # attained: at the full distance (continuous) or by some listed pair (finite, exhaustive)
    np.testing.assert_allclose(seen_delta, delta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(seen_rdp, rdp, rtol=1e-12)
    assert mech.dominating_pairs().exhaustive == exhaustive


def test_isotropic_gaussian_pair_dominates_every_direction():
    mech = md.GaussianMechanism(0.7, sensitivity=1.5, dim=3) >> md.GaussianKernel(0.4, dim=3)
    rng = np.random.default_rng(3)
    delta = md.privacy_profile(mech, EPS)
    for _ in range(8):
        v = rng.normal(size=3)
        v *= 1.5 / np.linalg.norm(v)
        seen = md.hockey_stick(md.Normal(np.zeros(3), np.hypot(0.7, 0.4)), md.Normal(v, np.hypot(0.7, 0.4)), eps=EPS)
        np.testing.assert_allclose(seen, delta, rtol=1e-12)


def test_a_shift_pair_of_two_different_noises_is_not_pushed_through_a_gaussian_kernel():
    # Laplace noise through a Gaussian kernel is exact (STD-NormalLaplace, tests/test_noise_chains.py); a pair that
    # is not two shifts of one noise law is not
    from markovdp.pairs import push_pairs

    with pytest.raises(NotImplementedError, match="Laplace noise law"):
        push_pairs(md.GaussianKernel(1.0), md.ShiftPair(md.Laplace(0.0, 1.0), md.Laplace(1.0, 2.0)))


def test_pair_sets_reject_malformed_pairs():
    with pytest.raises(TypeError, match="`pairs` must hold"):
        md.Pairs(((md.Normal(0, 1), 3.0),))
    with pytest.raises(ValueError, match="one space"):
        md.Pairs(((md.Normal(0, 1), md.Categorical([0.5, 0.5])),))
    with pytest.raises(ValueError, match="at least one"):
        md.Pairs(())


def test_finite_power_by_repeated_squaring_matches_the_two_state_closed_form():
    """P = [[1 − a, a], [b, 1 − b]]: P^r = Π + λ^r (I − Π), λ = 1 − a − b, Π's rows (b, a)/(a + b).

    With a, b ~ 1e-9 the diagonal entries near 1 carry an absolute rounding error ~1e-16, i.e. a relative
    error ~3e-8 in 1 − λ, which r (1 − λ) = 3 amplifies to ~1e-7 in λ^r: the tolerance is 1e-6.
    """
    kernel = md.FiniteKernel([[1 - 1e-9, 1e-9], [2e-9, 1 - 2e-9]])
    r = 10**9
    result = (kernel**r).matrix
    mpmath.mp.dps = 50
    a, b = mpmath.mpf(kernel.matrix[0, 1]), mpmath.mpf(kernel.matrix[1, 0])
    lam_r = (1 - a - b) ** r
    pi = (b / (a + b), a / (a + b))
    expected = np.array([[float(pi[j] + lam_r * ((i == j) - pi[j])) for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(result, expected, rtol=1e-6)
    # and a mixing chain reaches its stationary law exactly
    fast = md.FiniteKernel([[0.75, 0.25], [0.5, 0.5]]) ** r
    np.testing.assert_allclose(fast.matrix, [[2 / 3, 1 / 3], [2 / 3, 1 / 3]], rtol=1e-14)


def test_powers_fold_compose_and_keep_nodes_that_do_not_merge():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4), size=4)
    np.testing.assert_allclose((md.FiniteKernel(P) ** 13).matrix, np.linalg.matrix_power(P, 13), rtol=1e-13)
    assert (md.GaussianKernel(0.3) ** 10**9).sigma == pytest.approx(0.3 * np.sqrt(1e9), rel=1e-14)
    lap = md.LaplaceKernel(1.0) ** 5
    assert isinstance(lap, md.operators.Power) and lap.r == 5
    assert md.Identity(md.RealSpace(1)) ** 7 == md.Identity(md.RealSpace(1))
