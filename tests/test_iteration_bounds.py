"""BBGG-T4 (path form (2) and closed form (3)), BBGG-T4opt, BBGG-T5, BBGG-T5opt and the non-strongly-convex
reference, against independent computations: the exact RDP of the linear chain psi(x) = L x (a Gaussian
formula written here: from point masses a Delta apart, the output is N(L^r x, s² Σ_j L^(2j))), mpmath at
extreme parameters, and BBGG-T5 against BBGG-T4 with Delta = 2 eta C, noise eta sigma, L² = 1 − 2 eta beta rho /
(beta + rho), r = n − i.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

import markovdp.guarantees.coupling_rules  # noqa: F401  (registers the rules until the lead imports them)
from markovdp.guarantees.iteration import (
    lipschitz_chain_opt_rdp,
    lipschitz_chain_rdp,
    lipschitz_path_rdp,
    noisy_sgd_convex_rdp,
    noisy_sgd_opt_rdp,
    noisy_sgd_rdp,
)

CHAINS = [(0.1, 1), (0.1, 7), (0.5, 2), (0.5, 5), (0.9, 30), (1.0, 1), (1.0, 12), (1.3, 4), (2.0, 20)]


def linear_chain_exact(alpha, delta, lip, sigma, r):
    """R_alpha between the r-step chains x ↦ L x + N(0, s²) started at point masses Delta apart:
    N(L^r x, s² Σ_{j<r} L^(2j)) each, so alpha (L^r Delta)² / (2 s² Σ_j L^(2j)) (STD-GaussRenyi), by a loop."""
    variance = sum(sigma**2 * lip ** (2 * j) for j in range(r))
    return alpha * (lip**r * delta) ** 2 / (2.0 * variance)


@pytest.mark.parametrize(("lip", "r"), CHAINS)
def test_bbgg_t4opt_equals_the_exact_rdp_of_the_linear_chain(lip, r):
    """BBGG-T4opt is tight for psi = L x: it equals the exact RDP of the linear chain (1e-10)."""
    for alpha, delta, sigma in [(2.0, 1.0, 1.0), (10.0, 0.3, 0.05), (1.5, 4.0, 3.0)]:
        assert lipschitz_chain_opt_rdp(alpha, sensitivity=delta, lipschitz=lip, sigma=sigma, r=r) == pytest.approx(
            linear_chain_exact(alpha, delta, lip, sigma, r), rel=1e-10)


@pytest.mark.parametrize(("lip", "r"), [c for c in CHAINS if c[0] <= 1.0])
def test_bbgg_t4opt_is_below_the_closed_form_strictly_for_contractions(lip, r):
    """BBGG-T4opt <= BBGG-T4 (3); equal at L = 1 or r = 1, strictly smaller for L < 1 and r >= 2."""
    opt = lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=lip, sigma=1.0, r=r)
    closed = lipschitz_chain_rdp(2.0, sensitivity=1.0, lipschitz=lip, sigma=1.0, r=r)
    if lip == 1.0 or r == 1:
        assert opt == pytest.approx(closed, rel=1e-12)
    else:
        assert opt < closed * (1 - 1e-9)


def test_bbgg_t4opt_is_about_a_quarter_of_the_closed_form_at_half_lipschitz_five_steps():
    """THEORY: BBGG-T4opt is about 0.23 of BBGG-T4 (3) at L = 0.5, r = 5: Σ_{j<5} 4^j = 341, so the ratio is
    L² / (341 L^6 / 5) = 80/341."""
    ratio = (lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=5)
             / lipschitz_chain_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=5))
    assert ratio == pytest.approx(80.0 / 341.0, rel=1e-12)
    assert 0.22 < ratio < 0.24


@pytest.mark.parametrize(("lip", "r"), [(0.1, 1000), (0.5, 1000), (0.9, 1000), (0.999, 10**6), (1.0 + 1e-9, 1000),
                                        (1.1, 1000), (3.0, 1000), (1.0 - 1e-12, 50)])
def test_bbgg_t4opt_is_finite_and_accurate_at_extreme_chains(lip, r):
    """No overflow or warning for small L with large r: against 60-digit mpmath
    (alpha L² Delta² / (2 s² Σ_{j<r} L^(−2j))), to 1e-11, or to the smallest normal when the value underflows."""
    with mp.workdps(60):
        big_l = mp.mpf(lip)
        total = (1 - big_l ** (-2 * r)) / (1 - big_l ** (-2)) if lip != 1 else mp.mpf(r)
        expected = float(2 * big_l**2 / (2 * total))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=lip, sigma=1.0, r=r)
    assert math.isfinite(value)
    assert value == pytest.approx(expected, rel=1e-11, abs=2.3e-308)
    if lip <= 1.0:
        assert lipschitz_chain_rdp(2.0, sensitivity=1.0, lipschitz=lip, sigma=1.0, r=r) >= value


@pytest.mark.parametrize(("lip", "r"), [(0.3, 1), (0.3, 6), (0.8, 10), (1.0, 7), (1.5, 5)])
def test_bbgg_t4_path_form_and_its_relaxations(lip, r):
    """BBGG-T4 (2) on straight paths, Σ a_i = Delta: steps a_i ∝ L^(−2(r−i)) give BBGG-T4opt exactly; steps
    a_i ∝ L^(−(r−i)) are what (3) relaxes by AM-GM, so they are <= (3), with equality at L = 1 (equal steps)."""
    delta, sigma, alpha = 1.7, 0.6, 3.0
    i = np.arange(1, r + 1)
    opt_steps = lip ** (-2.0 * (r - i))
    opt_steps *= delta / opt_steps.sum()
    path = lipschitz_path_rdp(alpha, opt_steps, lipschitz=lip, sigma=sigma)
    # (2) written out term by term
    direct = alpha * lip**2 / (2 * sigma**2) * sum(lip ** (2 * (r - k)) * a**2 for k, a in zip(i, opt_steps,
                                                                                               strict=True))
    assert path == pytest.approx(direct, rel=1e-12)
    assert path == pytest.approx(lipschitz_chain_opt_rdp(alpha, sensitivity=delta, lipschitz=lip, sigma=sigma, r=r),
                                 rel=1e-12)
    if lip <= 1.0:
        amgm_steps = lip ** (-1.0 * (r - i))
        amgm_steps *= delta / amgm_steps.sum()
        amgm = lipschitz_path_rdp(alpha, amgm_steps, lipschitz=lip, sigma=sigma)
        closed = lipschitz_chain_rdp(alpha, sensitivity=delta, lipschitz=lip, sigma=sigma, r=r)
        assert amgm <= closed * (1 + 1e-12)
        if lip == 1.0:
            equal = lipschitz_path_rdp(alpha, np.full(r, delta / r), lipschitz=lip, sigma=sigma)
            assert equal == pytest.approx(closed, rel=1e-12) and amgm == pytest.approx(closed, rel=1e-12)
    # any other split of Delta is no better than the optimum
    rng = np.random.default_rng(r)
    for _ in range(20):
        steps = rng.dirichlet(np.ones(r)) * delta
        assert lipschitz_path_rdp(alpha, steps, lipschitz=lip, sigma=sigma) >= path * (1 - 1e-12)


def test_bbgg_t4_edge_cases_and_bad_input():
    """L = 0 forgets the start (0, also at alpha = inf); zero distances give 0; bad input names the parameter."""
    assert lipschitz_chain_opt_rdp(np.inf, sensitivity=1.0, lipschitz=0.0, sigma=1.0, r=3) == 0.0
    assert lipschitz_chain_rdp(np.array([2.0, np.inf]), sensitivity=1.0, lipschitz=1.0, sigma=1.0, r=2).tolist() \
        == [0.5, math.inf]
    assert lipschitz_path_rdp(5.0, [0.0, 0.0], lipschitz=0.7, sigma=1.0) == 0.0
    assert lipschitz_path_rdp(2.0, [1.0], lipschitz=0.5, sigma=1.0) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="`lipschitz` must be <= 1"):
        lipschitz_chain_rdp(2.0, sensitivity=1.0, lipschitz=1.5, sigma=1.0, r=2)
    with pytest.raises(ValueError, match="`r` must be an integer >= 1"):
        lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=0)
    with pytest.raises(TypeError, match="`r` must be an integer"):
        lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=2.5)
    with pytest.raises(ValueError, match="`distances` must be >= 0"):
        lipschitz_path_rdp(2.0, [1.0, -1.0], lipschitz=0.5, sigma=1.0)
    with pytest.raises(ValueError, match="`distances` must be a non-empty"):
        lipschitz_path_rdp(2.0, [], lipschitz=0.5, sigma=1.0)
    with pytest.raises(ValueError, match="`sigma` must be > 0"):
        lipschitz_chain_opt_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=-1.0, r=2)
    with pytest.raises(ValueError, match="`alpha` must be in"):
        lipschitz_chain_opt_rdp(0.5, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=2)


# ---------------------------------------------------------------------------------------------------- BBGG-T5

SGD = [dict(lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, eta=1.0, sigma=1.0, n=10),
       dict(lipschitz=0.3, smoothness=4.0, strong_convexity=0.1, eta=0.2, sigma=2.5, n=50),
       dict(lipschitz=2.0, smoothness=2.0, strong_convexity=2.0, eta=0.5, sigma=0.1, n=5),  # L = 0
       dict(lipschitz=1.0, smoothness=3.0, strong_convexity=0.0, eta=0.6, sigma=1.0, n=8)]  # not strongly convex


@pytest.mark.parametrize("params", SGD)
def test_bbgg_t5_is_bbgg_t4_with_the_sgd_parameters(params):
    """BBGG-T5 (and T5opt) equal BBGG-T4 (3) (and T4opt) with Delta = 2 eta C, noise eta sigma,
    L² = 1 − 2 eta beta rho/(beta + rho), r = n − i, divided by alpha; eps_n = 2 C²/sigma²."""
    c, beta, rho, eta, sigma, n = (params[k] for k in ("lipschitz", "smoothness", "strong_convexity", "eta",
                                                       "sigma", "n"))
    lip = math.sqrt(1.0 - 2.0 * eta * beta * rho / (beta + rho))
    for index in range(1, n + 1):
        eps = noisy_sgd_rdp(**params, index=index)
        opt = noisy_sgd_opt_rdp(**params, index=index)
        if index == n:
            assert eps == opt == pytest.approx(2.0 * c**2 / sigma**2, rel=1e-14)
            continue
        chain = dict(sensitivity=2.0 * eta * c, lipschitz=lip, sigma=eta * sigma, r=n - index)
        assert eps == pytest.approx(lipschitz_chain_rdp(2.0, **chain) / 2.0, rel=1e-12, abs=1e-300)
        assert opt == pytest.approx(lipschitz_chain_opt_rdp(2.0, **chain) / 2.0, rel=1e-12, abs=1e-300)
        assert opt <= eps * (1 + 1e-12)
        # the formula of THEORY, term by term
        literal = 2 * c**2 / ((n - index) * sigma**2) * (1 - 2 * eta * beta * rho / (beta + rho)) ** (
            (n - index + 1) / 2)
        assert eps == pytest.approx(literal, rel=1e-12, abs=1e-300)


def test_noisy_sgd_convex_reference_uses_the_constant_two():
    """The non-strongly-convex reference: eps_i = 2 C²/((n − i) sigma²), eps_n = 2 C²/sigma² (BBGG-T5 at rho = 0)."""
    for index in range(1, 7):
        ref = noisy_sgd_convex_rdp(lipschitz=1.5, smoothness=2.0, eta=1.0, sigma=0.7, n=6, index=index)
        assert ref == pytest.approx(2 * 1.5**2 / (max(6 - index, 1) * 0.7**2), rel=1e-14)
    with pytest.raises(ValueError, match="`eta` must be <= 2/\\(smoothness \\+ strong_convexity\\) = 1"):
        noisy_sgd_convex_rdp(lipschitz=1.0, smoothness=2.0, eta=1.5, sigma=1.0, n=3, index=1)


def test_noisy_sgd_rdp_bad_input_names_the_parameter_and_the_limit():
    good = dict(lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, eta=1.0, sigma=1.0, n=10, index=3)
    with pytest.raises(ValueError, match=r"`eta` must be <= 2/\(smoothness \+ strong_convexity\) = 1.33333"):
        noisy_sgd_rdp(**{**good, "eta": 1.4})
    noisy_sgd_rdp(**{**good, "eta": 2.0 / 1.5})  # the limit itself is allowed
    for index in (0, 11):
        with pytest.raises(ValueError, match="`index` must be an integer"):
            noisy_sgd_rdp(**{**good, "index": index})
    with pytest.raises(TypeError, match="`index` must be an integer"):
        noisy_sgd_opt_rdp(**{**good, "index": 2.0})
    with pytest.raises(ValueError, match="`strong_convexity` must be in \\[0, smoothness = 1\\]"):
        noisy_sgd_rdp(**{**good, "strong_convexity": 2.0})
    for name in ("lipschitz", "smoothness", "eta", "sigma"):
        with pytest.raises(ValueError, match=f"`{name}` must be > 0"):
            noisy_sgd_rdp(**{**good, name: -1.0})
    with pytest.raises(ValueError, match="`sigma` must be a number, not NaN"):
        noisy_sgd_rdp(**{**good, "sigma": math.nan})
    with pytest.raises(ValueError, match="`n` must be an integer >= 1"):
        noisy_sgd_rdp(**{**good, "n": 0, "index": 1})


# ------------------------------------------------------------------------------------------------- the rules

def test_bbgg_t4_rules_on_chains_and_powers_of_lipschitz_kernels():
    """BBGG-T4 / BBGG-T4opt rules: r from chains and powers; sound against the exact RDP of the linear chain
    including the mechanism's noise (alpha (L^r Delta)² / (2 (L^(2r) s1² + s² Σ_j L^(2j)))), which they ignore;
    L = the largest L_i; T4 NotApplicable for L > 1, both for mixed sigmas or other kernels."""
    import markovdp as md
    from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel
    from markovdp.operators.maps import linear_map, tanh_map

    lin = LipschitzGaussianKernel(*linear_map(0.5), 0.8)
    other = LipschitzGaussianKernel(*tanh_map(0.5), 0.8)
    mech = md.GaussianMechanism(0.6, sensitivity=1.5)
    for pipeline, r in [(mech >> lin ** 4, 4), (mech >> lin >> other >> lin ** 3, 5), (mech >> lin, 1)]:
        cert = md.certify(pipeline, rules=["BBGG-T4", "BBGG-T4opt"])
        t4, opt = cert.candidates["BBGG-T4"], cert.candidates["BBGG-T4opt"]
        assert t4.inputs["r"] == opt.inputs["r"] == r
        variance = 0.5 ** (2 * r) * 0.6**2 + sum(0.8**2 * 0.5 ** (2 * j) for j in range(r))
        exact = 3.0 * (0.5**r * 1.5) ** 2 / (2 * variance)
        if r == 4:
            assert opt.renyi(3.0) == pytest.approx(linear_chain_exact(3.0, 1.5, 0.5, 0.8, 4), rel=1e-10)
        assert exact <= opt.renyi(3.0) <= t4.renyi(3.0) * (1 + 1e-12)
    expanding = LipschitzGaussianKernel(*linear_map(1.5), 0.8)
    cert = md.certify(md.GaussianMechanism(1.0) >> expanding ** 3, rules=["BBGG-T4", "BBGG-T4opt"])
    assert "L <= 1" in cert.reasons()["BBGG-T4"] and cert.candidates["BBGG-T4opt"].inputs["lipschitz"] == 1.5
    mixed = LipschitzGaussianKernel(*linear_map(0.5), 0.9)
    assert "one noise sigma" in md.certify(mech >> lin >> mixed, rules=["BBGG-T4opt"]).reasons()["BBGG-T4opt"]
    steeper = md.certify(mech >> lin >> LipschitzGaussianKernel(*tanh_map(0.7), 0.8), rules=["BBGG-T4"])
    assert steeper.candidates["BBGG-T4"].inputs["lipschitz"] == 0.7
    with_gauss = md.certify(mech >> lin >> md.GaussianKernel(1.0), rules=["BBGG-T4"]).reasons()["BBGG-T4"]
    assert "GaussianKernel" in with_gauss


def test_bbgg_t4_and_e3_rules_need_the_inputs_of_each_step_where_its_lipschitz_constant_is_declared():
    """BBGG-T4 needs psi_i Lipschitz where its inputs lie. A user map with a projection Π_W declares L on W only
    (``lipschitz_everywhere=False``): a step reading inputs from all of R^d (the mechanism's, or an unprojected
    step's) makes BBGG-E3, BBGG-T4 and BBGG-T4opt NotApplicable, naming the kernel; after a step projecting onto
    the same W it is accepted. Built-in maps hold on all of R^d, so their projected steps are always accepted."""
    from numba import njit

    import markovdp as md
    from markovdp.operators.lipschitz_gaussian import LipschitzGaussianKernel
    from markovdp.operators.maps import linear_map

    @njit
    def half(x):
        return 0.5 * x

    W = md.operators.Ball(1, 2.0)
    free = LipschitzGaussianKernel(*linear_map(0.5), 0.8)
    on_w = LipschitzGaussianKernel(half, 0.5, 0.8, projection=W)
    assert not on_w.lipschitz_everywhere and free.lipschitz_everywhere
    mech = md.GaussianMechanism(0.6)
    rules = ["BBGG-E3", "BBGG-T4", "BBGG-T4opt"]
    reasons = md.certify(mech >> on_w, rules=rules).reasons()
    assert set(reasons) == set(rules) and all("declared on that set only" in why for why in reasons.values())
    assert "kernel 1 of the chain" in md.certify(mech >> on_w ** 3, rules=["BBGG-T4"]).reasons()["BBGG-T4"]
    later = md.certify(mech >> free >> on_w ** 3 >> free, rules=["BBGG-T4opt"]).reasons()["BBGG-T4opt"]
    assert "kernel 2 of the chain" in later
    # confined: the first step projects onto W with a map Lipschitz everywhere, the next ones read inputs in W
    first = LipschitzGaussianKernel(*linear_map(0.5), 0.8, projection=W)
    assert first.lipschitz_everywhere
    cert = md.certify(mech >> first >> on_w ** 3, rules=["BBGG-T4", "BBGG-T4opt"])
    assert not cert.reasons() and cert.renyi(2.0) < float(md.renyi_profile(mech, 2.0))
    declared = LipschitzGaussianKernel(half, 0.5, 0.8, projection=W, lipschitz_everywhere=True)
    assert not md.certify(mech >> declared ** 3, rules=["BBGG-T4"]).reasons()
