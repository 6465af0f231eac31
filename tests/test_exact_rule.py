"""STD-Exact: the rule EXACT makes certify's best the exact privacy profile wherever `privacy_profile` applies
(never below it), with eps(delta) on the safe side; NotApplicable with the reason elsewhere (issue 14 §1)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import ndtr

import markovdp as md
from markovdp.guarantees.types import EXACT_ID, Bound
from tests.oracles import hockey_stick_bruteforce
from tests.strategies import eps_values, stochastic_matrices

#: The Gaussian mechanism of sigma 1 through the Gaussian kernel of sigma 2: N(f(D), 5) (sensitivity 1).
ISSUE_PIPELINE = md.GaussianMechanism(1.0) >> md.GaussianKernel(2.0)


def gauss_delta_mp(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The Gaussian profile of BW18 Theorem 8 at 50 digits: Phi(D/2s − eps s/D) − e^eps Phi(−D/2s − eps s/D)."""
    with mpmath.workdps(50):
        a, b = mpmath.mpf(sensitivity) / (2 * sigma), mpmath.mpf(eps) * sigma / sensitivity
        return float(mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b))


def test_the_issue_example_reports_the_exact_values_and_dp_accounting_agrees():
    cert = md.certify(ISSUE_PIPELINE)
    assert isinstance(cert.candidates[EXACT_ID], Bound)
    assert cert.delta(0.5) == pytest.approx(0.0374, abs=5e-5)
    assert cert.epsilon(1e-5) == pytest.approx(1.760, abs=5e-4)
    # the same numbers from the closed form at 50 digits (the pipeline is N(f(D), 1 + 4))
    truth = gauss_delta_mp(0.5, math.sqrt(5.0))
    assert cert.delta(0.5) == pytest.approx(truth, rel=1e-12)
    assert cert.delta(0.5) >= truth * (1 - 1e-14)
    # and independently from Google's dp_accounting (a single Gaussian PLD evaluates the same profile in closed form;
    # its eps(delta) is read off a grid of privacy losses of step 1e-5, pessimistically)
    pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    pld = pld_module.from_gaussian_mechanism(math.sqrt(5.0), sensitivity=1.0, value_discretization_interval=1e-5)
    assert cert.delta(0.5) == pytest.approx(pld.get_delta_for_epsilon(0.5), rel=1e-9)
    assert cert.epsilon(1e-5) <= pld.get_epsilon_for_delta(1e-5) <= cert.epsilon(1e-5) + 1e-4
    # the theorem BBGG-E1 reported 0.077 and 1.916 before: it is still there, with its tightness beside it
    e1 = cert.candidates["BBGG-E1"]
    assert float(e1.delta(0.5)) == pytest.approx(0.0773, abs=5e-4)
    assert e1.epsilon(1e-5) == pytest.approx(1.916, abs=1e-3)
    tightness = next(r["tightness"] for r in cert.to_dict(eps=[0.5])["rules"] if r["theorem"] == "BBGG-E1")
    assert tightness["delta"][0] == pytest.approx(truth / float(e1.delta(0.5)), rel=1e-10)


def test_epsilon_is_on_the_safe_side_and_within_a_few_ulps_of_the_inverse():
    cert = md.certify(ISSUE_PIPELINE)
    for target in (1e-12, 1e-5, 0.01, 0.1):
        found = cert.epsilon(target)
        assert float(md.privacy_profile(ISSUE_PIPELINE, found)) <= target  # safe in floats
        assert gauss_delta_mp(found, math.sqrt(5.0)) <= target * (1 + 1e-10)  # and for the 50-digit truth
        below = found * (1 - 1e-9)
        assert gauss_delta_mp(below, math.sqrt(5.0)) > target  # not loose: 1e-9 less eps fails
    assert cert.epsilon(0.0) == math.inf  # a Gaussian is never pure DP
    assert cert.epsilon(0.3) == 0.0  # above the total variation 0.177: eps = 0 suffices


def test_pure_dp_epsilon_of_a_finite_pipeline_is_rounded_up_exactly():
    pipeline = md.RandomizedResponse(3, 1.0) >> md.FiniteKernel([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    exact = md.certify(pipeline).candidates[EXACT_ID]
    rows = pipeline.matrix
    eps0 = exact.epsilon(0.0)
    truth = max(mpmath.log(mpmath.mpf(rows[a, y]) / mpmath.mpf(rows[b, y]))
                for a in range(3) for b in range(3) for y in range(3))
    assert eps0 >= truth and eps0 == pytest.approx(float(truth), rel=1e-14)
    assert float(exact.delta(eps0)) == 0.0


def test_renyi_curve_is_the_exact_renyi_profile():
    alpha = np.array([1.5, 2.0, 8.0, 64.0])
    cert = md.certify(ISSUE_PIPELINE)
    np.testing.assert_array_equal(cert.candidates[EXACT_ID].renyi(alpha), md.renyi_profile(ISSUE_PIPELINE, alpha))
    np.testing.assert_allclose(cert.renyi(alpha), alpha / (2 * 5.0), rtol=1e-12)  # STD-GaussRenyi, variance 5


def test_not_applicable_where_no_exact_method_exists_with_the_reason():
    subject = md.DeclaredDP(1.0, 0.0) >> md.GaussianKernel(1.0)
    with pytest.raises(NotImplementedError) as info:
        md.privacy_profile(subject, 1.0)
    cert = md.certify(subject)
    reason = cert.reasons()[EXACT_ID]
    assert reason == str(info.value) and "No exact method computes the privacy profile" in reason
    assert cert.exact is None


def test_exact_is_registered_last_among_the_built_in_rules_so_an_attaining_theorem_wins_the_tie():
    built_in = [t for t in md.guarantees.registered_theorems() if not t.startswith(("USER", "TEST"))]
    assert built_in[-1] == EXACT_ID
    # a bare Gaussian: MECH is its exact curve too, and wins the tie; EXACT gives the same values
    cert = md.certify(md.GaussianMechanism(1.0))
    assert cert.best(eps=1.0).theorem == "MECH"
    assert float(cert.candidates[EXACT_ID].delta(1.0)) == float(cert.candidates["MECH"].delta(1.0))


# ------------------------------------------------------------------ property: best == exact wherever it applies
KERNELS = {
    "gauss": lambda s: md.GaussianKernel(s),
    "laplace": lambda s: md.LaplaceKernel(s),
    "affine": lambda s: md.AffineGaussianKernel(1.5, -0.2, s),
    "identity": lambda s: md.Identity(md.RealSpace(1)),
}
MECHANISMS = {
    "gauss": lambda s: md.GaussianMechanism(s),
    "laplace": lambda s: md.LaplaceMechanism(s),
}


@st.composite
def real_pipelines(draw):
    """M >> K1 >> ... >> Kn (n = 0..3) from the library's additive mechanisms and real kernels (some without an
    exact profile: those must be NotApplicable with privacy_profile's reason)."""
    scale = st.floats(0.05, 20.0)
    mech = MECHANISMS[draw(st.sampled_from(sorted(MECHANISMS)))](draw(scale))
    kernels = [KERNELS[draw(st.sampled_from(sorted(KERNELS)))](draw(scale)) for _ in range(draw(st.integers(0, 3)))]
    power = draw(st.integers(1, 3))
    subject = mech
    for kernel in kernels:
        subject = subject >> kernel
    if kernels and power > 1:
        subject = mech >> (kernels[0] ** power)
    return subject


@st.composite
def finite_pipelines(draw):
    """A finite mechanism (randomized response or a random matrix) through 0..2 random finite kernels, or a
    DeclaredDP black box through one (STD-BlackBoxExact)."""
    k = draw(st.integers(2, 5))
    kind = draw(st.sampled_from(["rr", "matrix", "declared"]))
    if kind == "rr":
        mech = md.RandomizedResponse(k, draw(st.floats(0.05, 5.0)))
    elif kind == "matrix":
        mech = md.FiniteMechanism(draw(stochastic_matrices(rows=k, cols=k)))
    else:
        mech = md.DeclaredDP(draw(st.floats(0.05, 3.0)), draw(st.sampled_from([0.0, 1e-3, 0.1])))
    subject = mech
    for _ in range(draw(st.integers(1 if kind == "declared" else 0, 2))):
        subject = subject >> md.FiniteKernel(draw(stochastic_matrices(rows=k, cols=k)))
    return subject


def _check_best_is_exact(subject, eps: float) -> None:
    cert = md.certify(subject)
    try:
        exact = float(md.privacy_profile(subject, eps))
    except NotImplementedError as exc:
        assert cert.reasons()[EXACT_ID] == str(exc)
        return
    exact_bound = cert.candidates[EXACT_ID]
    assert float(exact_bound.delta(eps)) == exact  # the rule's curve is the exact profile itself
    # never looser than the exact value and never below it: the certificate is the exact profile itself, even where
    # a theorem that attains it (BBGG-T1.2 on finite pipelines, MECH on a bare mechanism) lands an ulp lower in its
    # own arithmetic
    assert float(cert.delta(eps)) == exact
    for delta in (1e-6, 0.05):
        found = exact_bound.epsilon(delta)
        if math.isinf(found):  # no eps reaches delta: the D_inf mass exceeds it
            assert float(md.privacy_profile(subject, math.inf)) > delta
        else:
            assert float(md.privacy_profile(subject, found)) <= delta  # safe side in floats
        assert cert.epsilon(delta) == found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=real_pipelines(), eps=st.floats(0.0, 8.0))
def test_best_is_the_exact_value_on_real_pipelines(subject, eps):
    _check_best_is_exact(subject, eps)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=finite_pipelines(), eps=eps_values)
def test_best_is_the_exact_value_on_finite_pipelines(subject, eps):
    _check_best_is_exact(subject, eps)


@pytest.mark.parametrize("e", [0.0, 0.3, 1.0, 2.5])
def test_best_is_the_brute_force_profile_of_a_finite_pipeline(e):
    """Against an oracle that never uses the library: every event of every ordered row pair."""
    k4 = 0.6 * np.eye(4) + 0.1
    pipeline = md.RandomizedResponse(4, 1.5) >> md.FiniteKernel(k4) >> md.FiniteKernel(k4)
    rows = md.RandomizedResponse(4, 1.5).matrix @ k4 @ k4
    truth = max(hockey_stick_bruteforce(rows[a], rows[b], e) for a in range(4) for b in range(4) if a != b)
    assert float(md.certify(pipeline).delta(e)) == pytest.approx(truth, rel=1e-12, abs=1e-15)


def test_gaussian_chain_matches_the_closed_form_over_scales():
    """N(f(D), s1²) through Gaussian kernels of s2, s3: the Gaussian profile of the total variance, at 50 digits."""
    for s1, s2, s3 in [(0.3, 1.0, 2.0), (1.0, 0.1, 0.1), (5.0, 3.0, 0.5)]:
        pipeline = md.GaussianMechanism(s1) >> md.GaussianKernel(s2) >> md.GaussianKernel(s3)
        total = math.sqrt(s1**2 + s2**2 + s3**2)
        for e in (0.1, 1.0, 3.0):
            truth = gauss_delta_mp(e, total)
            best = float(md.certify(pipeline).delta(e))
            assert best == pytest.approx(truth, rel=1e-10)
    # scipy's ndtr form of the same profile at one point, as a second, float-level reference
    e, s = 1.0, math.sqrt(5.0)
    assert float(md.certify(ISSUE_PIPELINE).delta(e)) == pytest.approx(
        ndtr(1 / (2 * s) - e * s) - math.exp(e) * ndtr(-1 / (2 * s) - e * s), rel=1e-9)


def _registry_pipelines():
    """Every mechanism of tests/registry.py through every operator of it (and every pair of operators) that fits
    its output space: the pipelines the library can build from its registered cases."""
    from markovdp.spaces import IncompatibleSpaces
    from tests.registry import MECHANISMS as MECHANISM_CASES
    from tests.registry import OPERATORS as OPERATOR_CASES

    built = []
    for mech in MECHANISM_CASES:
        built.append((mech.name, mech.build))
        for first in OPERATOR_CASES:
            for second in (None, *OPERATOR_CASES):
                name = f"{mech.name} >> {first.name}" + (f" >> {second.name}" if second else "")

                def build(mech=mech, first=first, second=second):
                    subject = mech.build() >> first.build()
                    return subject >> second.build() if second is not None else subject

                try:
                    build()
                except (IncompatibleSpaces, ValueError, TypeError):
                    continue
                built.append((name, build))
    return built


REGISTRY_PIPELINES = _registry_pipelines()


def test_the_registry_builds_pipelines_with_and_without_an_exact_profile():
    known = 0
    for _, build in REGISTRY_PIPELINES:
        try:
            md.privacy_profile(build(), 1.0)
            known += 1
        except NotImplementedError:
            pass
    assert known >= 20 and len(REGISTRY_PIPELINES) - known >= 10  # both kinds are exercised


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(REGISTRY_PIPELINES) - 1), eps=eps_values)
def test_best_is_the_exact_value_on_every_registry_pipeline(index, eps):
    _check_best_is_exact(REGISTRY_PIPELINES[index][1](), eps)
