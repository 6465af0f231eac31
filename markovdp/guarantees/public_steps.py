"""BBGG-PublicSteps: how many public steps after NoisyProjSGD bring a per-index RDP bound below a target.

Appending m steps on public records (the same noisy projected update, the records equal in both datasets) to n
private steps gives record i the bound of BBGG-T5 / BBGG-T5opt with r = n − i + m subsequent steps. With
A = 2 C²/sigma² and q = L² = 1 − 2 eta beta rho/(beta + rho) in (0, 1) (strongly convex), the bound at r >= 1 is

- BBGG-T5: (A/r) q^((r+1)/2) <= target  ⇔  r e^(c r) >= (A/target) e^(−c), c = ln(1/L) = −ln(q)/2, so
  r* = W_0(c A e^(−c) / target) / c (W_0 the principal Lambert W), ~ ln(1/target)/ln(1/L) as target → 0;
- BBGG-T5opt: A (1 − q)/(q^(−r) − 1) <= target  ⇔  r* = ln(1 + A (1 − q)/target) / ln(1/q), ~ ln(1/target) /
  (2 ln(1/L)): half the steps of T5 (T5's L^(r+1) is the AM-GM relaxation of T5opt's L^(2r));

and m = max(0, ⌈r*⌉ − (n − i)) (at least 1 when i = n and A > target). Both fall like log(1/target); without
strong convexity (q = 1) both are A/r and r* = A/target grows like 1/target. `public_steps_needed` returns the
least m for which the library's own bound (`noisy_sgd_rdp`, `noisy_sgd_opt_rdp`, with their upward rounding) is
<= target, by an integer search bracketed by the closed form (`closed_form_steps`); the two agree up to the
rounding at the boundary (tests/test_public_steps.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .._validation import check_choice, check_int, check_positive, fail
from .iteration import noisy_sgd_opt_rdp, noisy_sgd_rdp

#: The per-index bounds that public steps improve, by THEORY ID.
RULES: dict[str, Callable[..., float]] = {"BBGG-T5": noisy_sgd_rdp, "BBGG-T5opt": noisy_sgd_opt_rdp}
#: Beyond this many public steps the search stops (ValueError naming `target`).
MAX_PUBLIC_STEPS = 2**62


def _lambert_w_of_exp(log_y: float) -> float:
    """W_0(e^log_y) for real log_y, without overflow: Newton on w + ln w = log_y (for w > 0) from a start
    above the root (w_0 = log_y for log_y > 1, else e^log_y), where the iteration decreases monotonically."""
    if log_y < 1.0:
        from scipy.special import lambertw

        return float(lambertw(math.exp(log_y)).real)
    w = log_y
    for _ in range(100):
        step = (w + math.log(w) - log_y) / (1.0 + 1.0 / w)
        w -= step
        if abs(step) <= 4e-16 * w:
            break
    return w


def closed_form_steps(target: float, base: float, contraction_sq: float, theorem_id: str) -> float:
    """r*: the real number of subsequent steps at which the bound equals `target` (module docstring).

    `base` = A = 2 C²/sigma² (> target), `contraction_sq` = q = L² in [0, 1]. The least integer r with bound
    <= target is ⌈r*⌉ (up to rounding at the boundary), and at least 1."""
    if contraction_sq == 0.0:
        return 1.0  # the bound is 0 from r = 1 on
    if contraction_sq == 1.0:
        return base / target  # A / r <= target
    log_inv_q = -math.log(contraction_sq)
    if theorem_id == "BBGG-T5":
        c = 0.5 * log_inv_q
        return _lambert_w_of_exp(math.log(c) + math.log(base) - c - math.log(target)) / c
    ratio_log = math.log(base) + math.log1p(-contraction_sq) - math.log(target)  # ln(A (1 − q)/target)
    grown = math.log1p(math.exp(ratio_log)) if ratio_log < 700.0 else ratio_log  # ln(1 + e^ratio_log)
    return grown / log_inv_q


def public_steps_needed(target: float, *, lipschitz: float, smoothness: float, strong_convexity: float, eta: float,
                        sigma: float, n: int, index: int, theorem_id: str = "BBGG-T5opt") -> int:
    """The least m >= 0 of public steps after n private NoisyProjSGD steps with eps_i(n − i + m) <= target.

    THEORY: BBGG-PublicSteps (with BBGG-T5 or BBGG-T5opt, `theorem_id`). eps_i is the per-index RDP slope of
    record `index` (R_alpha <= alpha · eps_i, nats), computed by `noisy_sgd_rdp` / `noisy_sgd_opt_rdp` with
    n + m records; `target` > 0 is compared with it. Strongly convex (rho > 0): m ~ ln(1/target)/ln(1/L)
    (T5) or ln(1/target)/(2 ln(1/L)) (T5opt), L² = 1 − 2 eta beta rho/(beta + rho); convex (rho = 0):
    m ~ 2 C²/(sigma² target). Found by an exact integer search over the library's bound, bracketed by
    `closed_form_steps`.

    Raises
    ------
    ValueError, TypeError naming the parameter (as `noisy_sgd_rdp`; `target` > 0 and finite; a target that
    needs more than `MAX_PUBLIC_STEPS` steps names `target`).
    """
    goal = check_positive("target", target)
    rule = check_choice("theorem_id", theorem_id, tuple(RULES))
    bound = RULES[rule]
    n = check_int("n", n, minimum=1)
    constants = {"lipschitz": lipschitz, "smoothness": smoothness, "strong_convexity": strong_convexity,
                 "eta": eta, "sigma": sigma}

    def eps(m: int) -> float:
        return bound(**constants, n=n + m, index=index)

    if eps(0) <= goal:  # also validates every input
        return 0
    base = bound(**constants, n=index, index=index)  # r = 0: 2 C²/sigma²
    beta, rho = float(smoothness), float(strong_convexity)
    q = min(1.0, max(0.0, 1.0 - 2.0 * float(eta) * beta * rho / (beta + rho)))
    guess = closed_form_steps(goal, base, q, rule) - (n - index)
    if not guess < MAX_PUBLIC_STEPS:
        raise fail("target", f"reachable within {MAX_PUBLIC_STEPS} public steps (here about {guess:.3g})", goal)
    hi = max(1, math.ceil(guess))
    while eps(hi) > goal:  # the closed form rounds: widen until the library's bound is met
        hi *= 2
        if hi > MAX_PUBLIC_STEPS:
            raise fail("target", f"reachable within {MAX_PUBLIC_STEPS} public steps", goal)
    lo = max(0, min(hi - 1, math.floor(guess) - 1))
    if lo > 0 and eps(lo) <= goal:
        lo = 0
    while hi - lo > 1:  # eps(lo) > goal >= eps(hi); the bound is non-increasing in m
        mid = (lo + hi) // 2
        if eps(mid) <= goal:
            hi = mid
        else:
            lo = mid
    return hi


__all__ = ["MAX_PUBLIC_STEPS", "RULES", "closed_form_steps", "public_steps_needed"]
