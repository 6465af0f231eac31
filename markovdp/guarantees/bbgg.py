"""BBGG-T1: amplification of an (eps, delta)-DP mechanism by a uniformly mixing kernel.

Each rule maps the mechanism's own curve delta(eps) (MECH) through Theorem 1 of BBGG at every eps, with
the exact coefficient of the *whole* kernel K of ``M >> K``. Coefficients are exact only for finite
kernels; for other kernels each rule is `NotApplicable` (a later continuous bound must be an upper bound).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..mechanisms.base import PostProcessed
from ..operators.finite import FiniteKernel
from .coefficients import dobrushin, doeblin, ultra_mixing
from .mechanism_rules import mechanism_bound
from .registry import theorem
from .types import Bound, NotApplicable


def _finite_kernel(subject: Any, theorem_id: str) -> tuple[FiniteKernel, Bound] | NotApplicable:
    if not isinstance(subject, PostProcessed):
        return NotApplicable(theorem_id, "BBGG-T1 applies to a post-processed pipeline M >> K.")
    if not isinstance(subject.kernel, FiniteKernel):
        return NotApplicable(theorem_id, f"needs the exact mixing coefficient of a finite kernel; "
                                         f"got {type(subject.kernel).__name__}.")
    return subject.kernel, mechanism_bound(subject.mechanism, "MECH")


def eps_gap(eps_out: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """BBGG-T1.3/T1.4 inverted: eps' − eps <= 0 for the source eps with eps' = log(1 + gamma (e^eps − 1)),
    i.e. eps = log(1 + (e^eps' − 1)/gamma) (gamma > 0). Written as −log(e^-eps' + (1 − e^-eps')/gamma)
    so nothing overflows; it tends to log(gamma) as eps' → inf."""
    return -np.log(np.exp(-eps_out) - np.expm1(-eps_out) / gamma)


def _rule(theorem_id: str, build: Callable[[FiniteKernel, Bound], tuple[dict, Callable]]):
    def rule(subject: Any) -> Bound | NotApplicable:
        found = _finite_kernel(subject, theorem_id)
        if isinstance(found, NotApplicable):
            return found
        kernel, source = found
        built = build(kernel, source)
        if isinstance(built, NotApplicable):
            return built
        coefficients, curve = built
        inputs = {"mechanism": subject.mechanism, "kernel": kernel, **coefficients}
        return Bound(theorem_id, inputs, curve)

    rule.__name__ = rule.__qualname__ = theorem_id.replace("-", "_").replace(".", "_").lower()
    rule.__doc__ = build.__doc__
    return theorem(theorem_id)(rule)


def _t1_1(kernel: FiniteKernel, source: Bound):
    """BBGG-T1.1: K gamma-Dobrushin ⇒ delta' = gamma · delta at the same eps."""
    gamma = dobrushin(kernel)
    return {"dobrushin": gamma}, lambda eps: gamma * source.delta_curve(eps)


def _t1_2(kernel: FiniteKernel, source: Bound):
    """BBGG-T1.2: K (gamma, eps~)-Dobrushin with eps~ = log(1 + (e^eps − 1)/delta) ⇒ delta' = gamma · delta."""

    def curve(eps: NDArray[np.float64]) -> NDArray[np.float64]:
        delta = np.asarray(source.delta_curve(eps), dtype=np.float64)
        out = np.zeros_like(delta)
        for n, (e, d) in enumerate(zip(eps, delta, strict=True)):
            if d > 0:
                # eps~ = inf when e^eps − 1 overflows relative to delta: the D_inf coefficient.
                with np.errstate(over="ignore"):
                    eps_tilde = float(np.log1p(np.expm1(e) / d))
                out[n] = dobrushin(kernel, eps_tilde) * d
        return out

    return {"coefficient": "dobrushin(K, eps~(eps)) per eps"}, curve


def _t1_3(kernel: FiniteKernel, source: Bound):
    """BBGG-T1.3: K gamma-Doeblin ⇒ (eps', gamma (1 − e^(eps' − eps)(1 − delta(eps))))."""
    gamma = doeblin(kernel)

    def curve(eps_out: NDArray[np.float64]) -> NDArray[np.float64]:
        if gamma == 0.0:  # all rows equal: the output ignores the input
            return np.zeros_like(eps_out)
        gap = eps_gap(eps_out, gamma)
        delta = np.asarray(source.delta_curve(eps_out - gap), dtype=np.float64)
        with np.errstate(divide="ignore"):  # delta = 1 gives log 0 = -inf, hence delta' = gamma
            return gamma * -np.expm1(gap + np.log1p(-delta))

    return {"doeblin": gamma}, curve


def _t1_4(kernel: FiniteKernel, source: Bound):
    """BBGG-T1.4: K gamma-ultra-mixing ⇒ (eps', gamma · delta(eps) · e^(eps' − eps))."""
    gamma = ultra_mixing(kernel)
    if not np.isfinite(gamma):
        return NotApplicable("BBGG-T1.4", "K is not ultra-mixing: two rows have different supports.")

    def curve(eps_out: NDArray[np.float64]) -> NDArray[np.float64]:
        if gamma == 0.0:
            return np.zeros_like(eps_out)
        gap = eps_gap(eps_out, gamma)
        return gamma * np.asarray(source.delta_curve(eps_out - gap), dtype=np.float64) * np.exp(gap)

    return {"ultra_mixing": gamma}, curve


t1_1 = _rule("BBGG-T1.1", _t1_1)
t1_2 = _rule("BBGG-T1.2", _t1_2)
t1_3 = _rule("BBGG-T1.3", _t1_3)
t1_4 = _rule("BBGG-T1.4", _t1_4)
