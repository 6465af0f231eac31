"""DiffusionMechanism M_t^f(D) = P_t(f(D)) (BBGG-S): exact privacy of the Brownian (BBGG-BM) and OU (BBGG-C7)
mechanisms through their dominating pair, the closure M_t >> P_s = M_{t+s}, and bad input.

Independent checks: STD-GaussHS written here with scipy.stats.norm (log space) at the effective distance
e^(−theta t) Δ / s_t with s_t² from quadrature of the Itô isometry; the BBGG-C7 / BBGG-BM formulas written
inline; the divergence registry on the actual output laws at neighbouring values in random directions; the
unmerged pipeline `PostProcessed(M_t, P.at(s))` (pairs pushed through the kernel) against the merged M_{t+s};
Monte Carlo moments of the sampled output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import markovdp as md
from markovdp.diffusions import BrownianSemigroup, OrnsteinUhlenbeckSemigroup, Semigroup
from markovdp.mechanisms.base import L2Ball, PostProcessed
from markovdp.mechanisms.diffusion import DiffusionMechanism
from markovdp.spaces import IncompatibleSpaces, RealSpace

OU = OrnsteinUhlenbeckSemigroup
EPS = np.array([0.0, 0.1, 0.5, 1.0, 3.0, 10.0, 50.0])
ALPHAS = np.array([1.01, 1.5, 2.0, 8.0, 64.0, 1e3])


def effective_distance(P, t, delta):
    """e^(−theta t) Δ / s_t with s_t² = ∫_0^t 2 rho² e^(−2 theta (t − u)) du by quadrature."""
    theta, rho = getattr(P, "theta", 0.0), getattr(P, "rho", 1.0)
    var = integrate.quad(lambda u: 2 * rho**2 * math.exp(-2 * theta * (t - u)), 0, t, epsabs=0, epsrel=1e-13)[0]
    return math.exp(-theta * t) * delta / math.sqrt(var)


def gauss_hs(D, eps):
    """STD-GaussHS: Φ(D/2 − eps/D) − e^eps Φ(−D/2 − eps/D), as exp(log Φ(a)) (1 − exp(eps + log Φ(b) − log Φ(a)))."""
    a, b = D / 2 - eps / D, -D / 2 - eps / D
    la, lb = stats.norm.logcdf(a), stats.norm.logcdf(b)
    return np.exp(la) * -np.expm1(eps + lb - la)


CASES = [(BrownianSemigroup(1), 0.5, 1.0), (BrownianSemigroup(3), 2.0, 0.7), (OU(0.7, 1.3), 0.4, 1.0),
         (OU(2.0, 0.5, dim=3), 1.5, 2.0), (OU(0.1, 3.0, dim=2), 1e-3, 0.5)]


@pytest.mark.parametrize(("P", "t", "delta"), CASES, ids=repr)
def test_privacy_profile_is_std_gauss_hs(P, t, delta):
    M = DiffusionMechanism(P, t, delta)
    want = gauss_hs(effective_distance(P, t, delta), EPS)
    got = md.privacy_profile(M, EPS)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)
    assert np.all(np.isfinite(got))


@pytest.mark.parametrize(("P", "t", "delta"), CASES, ids=repr)
def test_renyi_profile_is_alpha_lambda(P, t, delta):
    """BBGG-C7: alpha theta Δ²/(2 rho² (e^(2 theta t) − 1)); BBGG-BM: alpha Δ²/(4t); to 1e-10."""
    M = DiffusionMechanism(P, t, delta)
    if isinstance(P, OU):
        lam = P.theta * delta**2 / (2 * P.rho**2 * (math.exp(2 * P.theta * t) - 1))
    else:
        lam = delta**2 / (4 * t)
    np.testing.assert_allclose(md.renyi_profile(M, ALPHAS), ALPHAS * lam, rtol=1e-10)
    assert P.intrinsic_sensitivity(delta, t) == pytest.approx(lam, rel=1e-12)
    assert md.renyi_profile(M, np.inf) == math.inf


@settings(max_examples=300)
@given(theta=st.floats(1e-3, 10.0), rho=st.floats(1e-2, 10.0), t=st.floats(1e-3, 10.0),
       delta=st.floats(1e-2, 10.0), alpha=st.floats(1.001, 1e3))
def test_renyi_profile_equals_intrinsic_sensitivity(theta, rho, t, delta, alpha):
    """BBGG-C7 is tight: renyi_profile(M_t) = alpha Λ(t) over the parameter box."""
    P = OU(theta, rho)
    got = md.renyi_profile(DiffusionMechanism(P, t, delta), alpha)
    assert got == pytest.approx(alpha * P.intrinsic_sensitivity(delta, t), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(("P", "t", "delta"), CASES[:4], ids=repr)
def test_pair_matches_the_output_laws(P, t, delta):
    """The dominating pair's divergences equal those of the actual outputs at f(D) − f(D') = Δ u, for random
    unit u and base points (isotropy), and a shorter difference gives less."""
    M = DiffusionMechanism(P, t, delta)
    rng = np.random.default_rng(5)
    d = P.space.size
    for _ in range(3):
        x = rng.normal(size=d)
        u = rng.normal(size=d)
        u /= np.linalg.norm(u)
        point = (lambda v: float(v[0])) if d == 1 else (lambda v: v)
        mu, nu = M.output(point(x)), M.output(point(x + delta * u))
        np.testing.assert_allclose(md.hockey_stick(mu, nu, eps=EPS[:5]), md.privacy_profile(M, EPS[:5]), rtol=1e-9)
        assert md.renyi(mu, nu, alpha=3.0) == pytest.approx(md.renyi_profile(M, 3.0), rel=1e-10)
        short = M.output(point(x + 0.5 * delta * u))
        assert md.renyi(mu, short, alpha=3.0) < md.renyi_profile(M, 3.0)


@pytest.mark.parametrize(("P", "t", "delta"), CASES[:4], ids=repr)
def test_output_and_samples(P, t, delta):
    M = DiffusionMechanism(P, t, delta)
    d = P.space.size
    value = 0.3 if d == 1 else np.linspace(-1, 1, d)
    law = M.output(value)
    assert law == P.at(t).push(md.PointMass(value))
    n = 50_000
    y = M.sample(np.broadcast_to(value, (n, d)) if d > 1 else np.full(n, value), rng=9).reshape(n, d)
    sd = np.sqrt(np.diag(law.cov))
    np.testing.assert_array_less(np.abs(y.mean(axis=0) - np.atleast_1d(law.mean)), 5 * sd / math.sqrt(n))
    assert M.neighbours == L2Ball(delta) and M.output_space == RealSpace(d)


def test_extreme_parameters_stay_finite():
    """Tiny and huge times: finite profiles (delta <= 1, RDP >= 0), never NaN."""
    for P, t in [(OU(1.0, 1.0), 1e-9), (OU(1.0, 1.0), 200.0), (OU(5.0, 1e-3), 1.0), (BrownianSemigroup(2), 1e-9)]:
        M = DiffusionMechanism(P, t, 1.0)
        delta = md.privacy_profile(M, EPS)
        rdp = md.renyi_profile(M, ALPHAS)
        assert np.all(np.isfinite(delta)) and np.all((delta >= 0) & (delta <= 1))
        assert np.all(np.isfinite(rdp)) and np.all(rdp >= 0)
        np.testing.assert_allclose(rdp, ALPHAS * P.intrinsic_sensitivity(1.0, t), rtol=1e-9, atol=1e-300)


# --------------------------------------------------------------------------------------------- closure (BBGG-S)


@pytest.mark.parametrize(("P", "t", "delta"), CASES[:4], ids=repr)
def test_closure_under_the_semigroup(P, t, delta):
    """P_s ∘ M_t = M_{t+s}: ``>>`` returns the DiffusionMechanism at t + s, whose exact privacy equals that of
    the unmerged pipeline (M_t's pairs pushed through P_s's kernel)."""
    M, s = DiffusionMechanism(P, t, delta), 0.3
    merged = M >> P.at(s)
    assert type(merged) is DiffusionMechanism and merged == DiffusionMechanism(P, t + s, delta)
    unmerged = PostProcessed(M, P.at(s))
    np.testing.assert_allclose(md.privacy_profile(unmerged, EPS), md.privacy_profile(merged, EPS), rtol=1e-9)
    np.testing.assert_allclose(md.renyi_profile(unmerged, ALPHAS), md.renyi_profile(merged, ALPHAS), rtol=1e-10)
    assert M >> P.at(0) == M
    gk = md.GaussianKernel(0.5, P.space.size)
    chained = M >> (P.at(s) >> gk)
    assert isinstance(chained, PostProcessed) and chained.mechanism == merged and chained.kernel == gk


def test_closure_in_law():
    """Sampling M_t then P_s against M_{t+s} (Monte Carlo moments)."""
    P, n = OU(1.5, 0.8, dim=2), 100_000
    values = np.broadcast_to([1.0, -2.0], (n, 2))
    two = P.at(0.4).sample(DiffusionMechanism(P, 0.6, 1.0).sample(values, rng=1), rng=2)
    one = DiffusionMechanism(P, 1.0, 1.0).sample(values, rng=3)
    se = np.sqrt((two.var(axis=0) + one.var(axis=0)) / n)
    np.testing.assert_array_less(np.abs(two.mean(axis=0) - one.mean(axis=0)), 5 * se)
    np.testing.assert_array_less(np.abs(two.var(axis=0) - one.var(axis=0)), 5 * one.var(axis=0) * math.sqrt(4 / n))


def test_other_kernels_post_process():
    M = DiffusionMechanism(OU(1.0, 1.0), 1.0)
    other = OU(2.0, 1.0).at(0.5)
    assert isinstance(M >> other, PostProcessed) and (M >> other).kernel == other
    assert isinstance(M >> BrownianSemigroup(1).at(0.5), PostProcessed)
    with pytest.raises(TypeError, match="post-process"):
        M >> md.GaussianMechanism(1.0)


def test_gaussian_mechanism_then_a_slice_is_exact():
    """N(f, sigma²) then OU for t: N(a f, a² sigma² + s_t²), the effective distance a Δ / sqrt(a² sigma² + s_t²)."""
    P, t, sigma = OU(0.7, 1.3), 0.5, 0.8
    a = math.exp(-P.theta * t)
    var = effective_distance(P, t, 1.0) ** -2 * a**2  # s_t² from quadrature
    pipeline = md.GaussianMechanism(sigma, sensitivity=1.0) >> P.at(t)
    want = gauss_hs(a / math.sqrt(a**2 * sigma**2 + var), EPS)
    np.testing.assert_allclose(md.privacy_profile(pipeline, EPS), want, rtol=1e-9)


# --------------------------------------------------------------------------------------------- no closed form


class SampledBrownian(Semigroup):
    """Brownian motion known only through its sampler: no closed-form kernel (a stand-in for an SDE semigroup)."""

    space = RealSpace(2)

    def sample_at(self, t, x, rng):
        return x + math.sqrt(2 * t) * rng.standard_normal(np.shape(x))

    def __eq__(self, other):
        return isinstance(other, SampledBrownian)

    def __hash__(self):
        return 0


def test_semigroup_without_closed_form():
    """DiffusionMechanism constructs and samples through ``semigroup.at(t).sample``; exact privacy says why not."""
    P = SampledBrownian()
    M = DiffusionMechanism(P, 0.5, 1.0)
    y = M.sample(np.zeros((20_000, 2)), rng=0)
    assert y.shape == (20_000, 2)
    np.testing.assert_allclose(y.var(axis=0), 1.0, atol=5 * math.sqrt(2 / 20_000))
    with pytest.raises(NotImplementedError, match="SampledBrownian"):
        M.dominating_pairs()
    with pytest.raises(NotImplementedError, match="SampledBrownian"):
        md.privacy_profile(M, 1.0)
    with pytest.raises(NotImplementedError, match="SampledBrownian"):
        md.privacy_profile(md.GaussianMechanism(1.0, dim=2) >> P.at(0.5), 1.0)
    assert M >> P.at(0.25) == DiffusionMechanism(P, 0.75, 1.0)


# --------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("build", "name"), [
    (lambda: DiffusionMechanism(OU(1.0, 1.0), 0.0), "t"), (lambda: DiffusionMechanism(OU(1.0, 1.0), -1.0), "t"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), math.nan), "t"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), math.inf), "t"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), [1.0, 2.0]), "t"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), 1.0, 0.0), "sensitivity"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), 1.0, -2.0), "sensitivity"),
    (lambda: DiffusionMechanism("OU", 1.0), "semigroup"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0, dim=2), 1.0).output(np.zeros((2, 2))), "value"),
    (lambda: DiffusionMechanism(OU(1.0, 1.0), 1.0).sample([math.nan]), "value"),
])
def test_bad_input_names_the_parameter(build, name):
    with pytest.raises((ValueError, TypeError), match=f"`{name}`"):
        build()


def test_zero_time_message_says_why():
    with pytest.raises(ValueError, match="not private"):
        DiffusionMechanism(BrownianSemigroup(1), 0.0)


def test_dimension_mismatch_is_incompatible_spaces():
    M = DiffusionMechanism(OU(1.0, 1.0, dim=3), 1.0)
    with pytest.raises(IncompatibleSpaces, match="R\\^2.*R\\^3"):
        M.output([1.0, 2.0])
    with pytest.raises(IncompatibleSpaces, match="R\\^2.*R\\^3"):
        M.sample(np.zeros((4, 2)))
    with pytest.raises(IncompatibleSpaces):
        M >> md.GaussianKernel(1.0, 2)


def test_a_sensitivity_beyond_the_float_range_gives_infinite_rdp_not_an_overflow():
    """Δ = 1e160: (Δ/s)² overflows; the exact pair's Rényi divergence and every certify rule answer inf."""
    mechanism = DiffusionMechanism(OrnsteinUhlenbeckSemigroup(1.0, 1.0), 1.0, 1e160)
    assert md.certify(mechanism).renyi(2.0) == math.inf
    np.testing.assert_array_equal(md.renyi_profile(mechanism, [2.0, math.inf]), [math.inf, math.inf])
