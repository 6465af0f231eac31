"""The BBGG-T5 step-size condition eta <= 2/(beta + rho) at the last float (issue 13 §3).

fl(2/(beta + rho)) is above the real limit for about half of all (beta, rho); there the theorem does not apply
(past the limit the gradient step's contraction is no longer 1 − 2 eta beta rho/(beta + rho)), and before the fix
`noisy_sgd_rdp` accepted it and, for beta = rho, answered 0. The reference is exact rational arithmetic on the
float inputs (`fractions`), and mpmath at 50 digits for the value of eps_i.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp, mpf

import markovdp as md
from markovdp.guarantees.iteration import noisy_sgd_convex_rdp, noisy_sgd_opt_rdp, noisy_sgd_rdp
from markovdp.mechanisms.losses import LogisticLoss
from markovdp.mechanisms.sgd import NoisyProjSGD

mp.dps = 50
BALL = md.operators.Ball(2, 1.0)


def within_limit(eta: float, beta: float, rho: float) -> bool:
    return Fraction(eta) * (Fraction(beta) + Fraction(rho)) <= 2


def mp_eps(c, beta, rho, eta, sigma, n, index) -> mpf:
    """BBGG-T5 as printed (THEORY), at 50 digits from the float inputs."""
    r = n - index
    base = 2 * mpf(c) ** 2 / mpf(sigma) ** 2
    if r == 0:
        return base
    l2 = 1 - 2 * mpf(eta) * mpf(beta) * mpf(rho) / (mpf(beta) + mpf(rho))
    return base / r * l2 ** (mpf(r + 1) / 2)


def test_the_float_nearest_the_limit_is_accepted_exactly_when_it_does_not_exceed_it():
    """For 2000 random (beta, rho), a quarter with beta = rho: eta = fl(2/(beta + rho)) and the next float up.
    Each SGD function accepts eta iff eta (beta + rho) <= 2 exactly, else a ValueError names `eta`, the limit
    and the largest float step (which is accepted); an accepted eta gives eps_i within 1e-12 of mpmath, never 0
    unless L² is exactly 0."""
    rng = np.random.default_rng(4)
    accepted = refused = 0
    for case in range(2000):
        beta = float(np.exp(rng.uniform(-3, 3)))
        rho = beta if case % 4 == 0 else float(rng.uniform(0, 1)) * beta
        limit = 2.0 / (beta + rho)
        for eta in (limit, float(np.nextafter(limit, np.inf))):
            params = dict(lipschitz=1.3, smoothness=beta, strong_convexity=rho, eta=eta, sigma=0.7, n=12, index=4)
            if within_limit(eta, beta, rho):
                accepted += 1
                got = noisy_sgd_rdp(**params)
                want = mp_eps(1.3, beta, rho, eta, 0.7, 12, 4)
                assert abs(mpf(got) - want) <= 1e-12 * want, case
                assert got > 0 or want == 0
                assert noisy_sgd_opt_rdp(**params) > 0 or want == 0
                continue
            refused += 1
            with pytest.raises(ValueError, match=r"`eta` must be <= 2/\(smoothness \+ strong_convexity\) = .*"
                                                 r"BBGG-T5.*the largest float step is ") as info:
                noisy_sgd_rdp(**params)
            with pytest.raises(ValueError, match="`eta`"):
                noisy_sgd_opt_rdp(**params)
            largest = float(str(info.value).split("the largest float step is ")[1].split(";")[0])
            assert within_limit(largest, beta, rho)
            assert not within_limit(float(np.nextafter(largest, np.inf)), beta, rho)
            noisy_sgd_rdp(**{**params, "eta": largest})
    assert accepted > 1000 and refused > 1000


def test_at_the_exact_limit_with_beta_equal_to_rho_the_contraction_is_zero():
    """beta = rho = 1, eta = 1: L² = 1 − 2 eta beta rho/(beta + rho) = 0 exactly, so eps_i = 0 for i < n (the
    gradient step forgets x) — the only place the answer may be 0."""
    params = dict(lipschitz=1.0, smoothness=1.0, strong_convexity=1.0, eta=1.0, sigma=1.0, n=5, index=2)
    assert noisy_sgd_rdp(**params) == 0.0 == noisy_sgd_opt_rdp(**params)
    assert noisy_sgd_rdp(**{**params, "eta": float(np.nextafter(1.0, 0.0))}) > 0.0


def entry_points(loss, eta: float) -> list:
    """Each SGD entry point at step `eta` for `loss`'s constants: its value, or the ValueError it raised."""
    beta, rho = loss.smoothness, loss.strong_convexity
    params = dict(lipschitz=1.0, smoothness=beta, eta=eta, sigma=1.0, n=3, index=1)
    calls = [lambda: NoisyProjSGD(loss, eta, 1.0, BALL, np.zeros(2), n=3),
             lambda: noisy_sgd_rdp(**params, strong_convexity=rho),
             lambda: noisy_sgd_opt_rdp(**params, strong_convexity=rho)]
    if rho == 0.0:
        calls.append(lambda: noisy_sgd_convex_rdp(**params))
    out = []
    for call in calls:
        try:
            out.append(call())
        except ValueError as exc:
            out.append(exc)
    return out


def test_every_sgd_entry_point_draws_the_line_at_the_same_float():
    """noisy_sgd_rdp, noisy_sgd_opt_rdp, noisy_sgd_convex_rdp (rho = 0) and the NoisyProjSGD constructor accept
    and refuse the same steps: the logistic loss's beta = R²/4 + lambda, rho = lambda."""
    rng = np.random.default_rng(9)
    for case in range(200):
        lam = 0.0 if case % 5 == 0 else float(rng.uniform(0.0, 2.0))
        loss = LogisticLoss(BALL, regularization=lam, data_bound=float(rng.uniform(0.5, 3)))
        beta, rho = loss.smoothness, loss.strong_convexity
        limit = 2.0 / (beta + rho)
        for eta in (float(np.nextafter(limit, 0.0)), limit, float(np.nextafter(limit, np.inf))):
            for result in entry_points(loss, eta):
                if within_limit(eta, beta, rho):
                    assert not isinstance(result, ValueError), result
                else:
                    assert isinstance(result, ValueError) and "`eta` must be <= 2/" in str(result)
