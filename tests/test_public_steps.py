"""BBGG-PublicSteps: the least number of public steps after NoisyProjSGD for a per-index RDP target.

The integer search is checked against a brute-force loop over m (the library's T5/T5opt bounds evaluated at
n + m records until the target is met) and against the closed form (Lambert W for T5, a logarithm for T5opt) on
500 random instances, and the growth in log(1/target) (strongly convex) and 1/target (convex) is checked against
the derivation's slopes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from markovdp.guarantees.iteration import noisy_sgd_opt_rdp, noisy_sgd_rdp
from markovdp.guarantees.public_steps import closed_form_steps, public_steps_needed

BOUNDS = {"BBGG-T5": noisy_sgd_rdp, "BBGG-T5opt": noisy_sgd_opt_rdp}


def brute_force(target, theorem_id, limit=100, **kw):
    """m = 0, 1, 2, … until the bound with n + m records is <= target (None past `limit`)."""
    n = kw.pop("n")
    for m in range(limit):
        if BOUNDS[theorem_id](**kw, n=n + m) <= target:
            return m
    return None


def random_instance(rng):
    beta = float(rng.uniform(0.5, 3.0))
    rho = float(beta * rng.choice([0.0, rng.uniform(0.05, 1.0)], p=[0.05, 0.95]))
    eta = float(rng.uniform(0.05, 1.0) * 2.0 / (beta + rho))
    n = int(rng.integers(1, 30))
    kw = {"lipschitz": float(rng.uniform(0.2, 3.0)), "smoothness": beta, "strong_convexity": rho, "eta": eta,
          "sigma": float(rng.uniform(0.3, 3.0)), "n": n, "index": int(rng.integers(1, n + 1))}
    return kw, float(10 ** rng.uniform(-4, 0.5)), str(rng.choice(list(BOUNDS)))


def test_the_search_is_the_brute_force_loop_and_the_closed_form_on_500_instances():
    rng = np.random.default_rng(20240615)
    checked = 0
    for _ in range(500):
        kw, target, theorem_id = random_instance(rng)
        m = public_steps_needed(target, **kw, theorem_id=theorem_id)
        bound = BOUNDS[theorem_id]
        args = {k: v for k, v in kw.items() if k != "n"}
        assert bound(**args, n=kw["n"] + m) <= target
        if m > 0:
            assert bound(**args, n=kw["n"] + m - 1) > target
        expected = brute_force(target, theorem_id, **dict(kw))
        if expected is not None:
            assert m == expected
            checked += 1
        base = bound(**{**args, "index": kw["index"]}, n=kw["index"])  # r = 0: 2 C² / sigma²
        if base > target:  # the closed form: ⌈r*⌉ subsequent steps (at least 1), up to rounding at the boundary
            beta, rho = kw["smoothness"], kw["strong_convexity"]
            q = 1.0 - 2.0 * kw["eta"] * beta * rho / (beta + rho)
            r_star = closed_form_steps(target, base, q, theorem_id)
            closed = max(0, max(1, math.ceil(r_star)) - (kw["n"] - kw["index"]))
            if closed != m:  # only where r* is an integer up to rounding
                assert abs(r_star - round(r_star)) < 1e-9 * max(1.0, r_star), (kw, target, theorem_id, r_star, m)
    assert checked > 400


@pytest.mark.parametrize("theorem_id", ["BBGG-T5", "BBGG-T5opt"])
def test_public_steps_grow_like_log_one_over_target_with_the_derived_slope(theorem_id):
    kw = {"lipschitz": 1.0, "smoothness": 1.0, "strong_convexity": 1.0, "eta": 0.5, "sigma": 1.0, "n": 50,
          "index": 50}
    q = 0.5  # L² = 1 − 2 · 0.5 · 1 · 1 / 2
    slope = 1.0 / (-math.log(q) / (2.0 if theorem_id == "BBGG-T5" else 1.0))  # per unit of ln(1/target)
    low, high = 1e-3, 1e-3 * math.exp(-300.0)
    grown = public_steps_needed(high, **kw, theorem_id=theorem_id) - public_steps_needed(low, **kw,
                                                                                        theorem_id=theorem_id)
    # T5: r* = (ℓ − ln ℓ + O(ln ℓ / ℓ))/c, so 300 nats more cost (300 − ln((ℓ + 300)/ℓ))/c: within 3 % of 300/c
    assert grown == pytest.approx(300.0 * slope, rel=0.03)


def test_without_strong_convexity_public_steps_grow_like_one_over_target():
    kw = {"lipschitz": 1.0, "smoothness": 1.0, "strong_convexity": 0.0, "eta": 1.0, "sigma": 1.0, "n": 10,
          "index": 10}
    for target in (1e-2, 1e-4):  # eps = 2 C² / (r sigma²): r* = 2 / target exactly
        assert public_steps_needed(target, **kw, theorem_id="BBGG-T5") == round(2.0 / target)


def test_enough_steps_already_need_none_and_a_full_contraction_needs_one():
    kw = {"lipschitz": 1.0, "smoothness": 1.0, "eta": 1.0, "sigma": 1.0, "n": 10}
    assert public_steps_needed(1.0, **kw, strong_convexity=0.5, index=1) == 0
    assert public_steps_needed(1e-300, **kw, strong_convexity=1.0, index=10) == 1  # eta = 2/(beta + rho): L = 0


@pytest.mark.parametrize(("kwargs", "error", "name"), [
    ({"target": 0.0}, ValueError, "target"), ({"target": math.nan}, ValueError, "target"),
    ({"theorem_id": "BBGG-T4"}, ValueError, "theorem_id"), ({"index": 11}, ValueError, "index"),
    ({"eta": 3.0}, ValueError, "eta")])
def test_bad_inputs_name_the_parameter(kwargs, error, name):
    args = {"target": 0.1, "lipschitz": 1.0, "smoothness": 1.0, "strong_convexity": 0.5, "eta": 0.5, "sigma": 1.0,
            "n": 10, "index": 3} | kwargs
    with pytest.raises(error, match=f"`{name}` must be"):
        public_steps_needed(args.pop("target"), **args)


def test_the_scenario_bounds_record_i_with_n_minus_i_plus_m_steps_and_stays_above_the_exact_delta():
    from markovdp.guarantees.registry import certify
    from markovdp.validation.catalogue_public_steps import (
        BBGG_PUBLIC_STEPS,
        ETA,
        N_PRIVATE,
        SIGMA,
        public_steps_subject,
    )

    constants = {"lipschitz": 2.0, "smoothness": 1.0, "strong_convexity": 1.0, "eta": ETA, "sigma": SIGMA}
    previous = math.inf
    for m in (0, 1, 3, 8, 15):  # the full grid's m at index 5
        point = {"m": m, "index": 5, "eps": 0.5}
        cert = certify(public_steps_subject(**point), rules=["BBGG-T5", "BBGG-T5opt"])
        for theorem_id, bound in BOUNDS.items():  # the rules' RDP is alpha · eps_i with n + m records
            want = 4.0 * bound(**constants, n=N_PRIVATE + m, index=5)
            assert float(cert.candidates[theorem_id].renyi(4.0)) == pytest.approx(want, rel=1e-12)
        values = BBGG_PUBLIC_STEPS.evaluate(point)
        assert values["exact"] <= values["bound"] <= previous
        previous = values["bound"]
