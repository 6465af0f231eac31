"""The `certify` rules of BBGG §4: BBGG-E1, BBGG-E2, BBGG-E2r, BBGG-E3, BBGG-T4, BBGG-T4opt, BBGG-T5, BBGG-T5opt.

Each rule returns an RDP curve and its STD-RDP2DP profile (`rdp_bound`), or `NotApplicable` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import PostProcessed
from ..mechanisms.sgd import NoisyProjSGD
from ..operators.affine_gaussian import AffineGaussianKernel
from ..operators.algebra import Chain, Power
from ..operators.gaussian import GaussianKernel
from ..operators.laplace import LaplaceKernel
from ..operators.lipschitz_gaussian import LipschitzGaussianKernel
from .coupling import iterated_gaussian_rdp, iterated_laplace_rdp, lipschitz_kernel_rdp
from .iteration import lipschitz_chain_opt_rdp, lipschitz_chain_rdp, noisy_sgd_opt_rdp, noisy_sgd_rdp
from .rdp_curves import rdp_bound
from .registry import theorem
from .shift_reduction import shift_reduction_rdp
from .types import Bound, NotApplicable

#: Relative tolerance on AᵀA = a² I for an isotropic affine kernel (BBGG-E1).
ISOTROPY_RTOL = 1e-12


def _pipeline(subject: Any, theorem_id: str, wanted: type, kernel: str) -> PostProcessed | NotApplicable:
    """`subject` as ``M >> K`` with M of the class `wanted`."""
    mechanism = wanted.__name__
    if not isinstance(subject, PostProcessed):
        return NotApplicable(theorem_id, f"{theorem_id} applies to a pipeline {mechanism} >> {kernel}.")
    if not isinstance(subject.mechanism, wanted):
        return NotApplicable(theorem_id, f"{theorem_id} needs a {mechanism}; got {type(subject.mechanism).__name__}.")
    return subject


def _curve(fn: Callable[..., Any], **params: Any) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    return lambda alpha: np.asarray(fn(alpha, **params), dtype=np.float64)


@theorem("BBGG-E1")
def e1(subject: Any) -> Bound | NotApplicable:
    """BBGG-E1: GaussianMechanism(s1) >> GaussianKernel(s2) is (alpha, alpha Delta²/(2(s1² + s2²)))-RDP (tight).

    Computed by BBGG-T2 with a translation coupling (`markovdp.guarantees.coupling.iterated_gaussian_rdp`). The
    isotropic affine kernel y = a Q x + b + N(0, s2² I) (Q orthogonal) is the same up to the invertible map
    x ↦ a Q x + b: alpha Delta²/(2(s1² + s2²/a²)), the T2 instance with a step of Lipschitz constant a (tight).
    """

    found = _pipeline(subject, "BBGG-E1", GaussianMechanism, "GaussianKernel")
    if isinstance(found, NotApplicable):
        return found
    kernel, mechanism = found.kernel, found.mechanism
    inputs = {"mechanism": mechanism, "kernel": kernel}
    if isinstance(kernel, GaussianKernel):
        params = {"sensitivity": mechanism.sensitivity, "sigma1": mechanism.sigma, "sigma2": kernel.sigma}
        return rdp_bound("BBGG-E1", {**params, **inputs}, _curve(iterated_gaussian_rdp, **params))
    if isinstance(kernel, AffineGaussianKernel):
        scale = _isotropic_scale(kernel)
        if scale is None:
            return NotApplicable("BBGG-E1", "BBGG-E1 needs an isotropic affine kernel (A = a·Q with Q orthogonal, "
                                            "noise sigma² I); the exact profile covers every A.")
        params = {"sensitivity": mechanism.sensitivity, "sigma1": mechanism.sigma, "lipschitz": scale,
                  "sigma2": kernel.sigma}
        return rdp_bound("BBGG-E1", {**params, **inputs}, _curve(lipschitz_kernel_rdp, **params))
    return NotApplicable("BBGG-E1", f"BBGG-E1 needs one GaussianKernel or an isotropic AffineGaussianKernel; "
                                    f"got {type(kernel).__name__}.")


def _isotropic_scale(kernel: Any) -> float | None:
    """a when the kernel is y = a Q x + b + N(0, sigma² I) with Q orthogonal (square A, AᵀA = a² I), else None."""
    A = np.asarray(kernel.A, dtype=np.float64)
    if kernel.sigma is None or A.shape[0] != A.shape[1]:
        return None
    gram = A.T @ A
    scale_sq = float(np.trace(gram)) / A.shape[0]
    if scale_sq == 0.0 or np.max(np.abs(gram - scale_sq * np.eye(A.shape[0]))) > ISOTROPY_RTOL * scale_sq:
        return None
    return float(np.linalg.norm(A, 2))  # the Lipschitz constant itself: never below it, however close to a·Q


@theorem("BBGG-E2")
def e2(subject: Any) -> Bound | NotApplicable:
    """BBGG-E2: LaplaceMechanism(l1) >> LaplaceKernel(l2): min over w in [v, u] of the BBGG-T2 Laplace bound.

    RDP (log g_alpha(|w − v|/l1) + log g_alpha(|u − w|/l2))/(alpha − 1), minimised over w
    (`markovdp.guarantees.coupling.iterated_laplace_rdp`); Delta / max(l1, l2) at alpha = inf (BBGG-L3).
    """

    found = _pipeline(subject, "BBGG-E2", LaplaceMechanism, "LaplaceKernel")
    if isinstance(found, NotApplicable):
        return found
    if not isinstance(found.kernel, LaplaceKernel):
        return NotApplicable("BBGG-E2", f"BBGG-E2 needs one LaplaceKernel; got {type(found.kernel).__name__}.")
    params = {"sensitivity": found.mechanism.sensitivity, "scale1": found.mechanism.scale,
              "scale2": found.kernel.scale}
    return rdp_bound("BBGG-E2", {**params, "mechanism": found.mechanism, "kernel": found.kernel},
                     _curve(iterated_laplace_rdp, **params))


@theorem("BBGG-E2r")
def e2r(subject: Any) -> Bound | NotApplicable:
    """BBGG-E2r: Gaussian or Laplace noise then r Gaussian/Laplace kernels: min over splits of the shift.

    R_alpha <= min over s_0 + … + s_r = Delta of Σ_i R_alpha(s_i + Z_i || Z_i) (BBGG-T2 with a translation coupling
    at every step, by induction); the mechanism's noise is Z_0. Any order and mix of GaussianKernel and
    LaplaceKernel (``K ** r``, ``K1 >> K2 >> …``); r = 1 is BBGG-E2 (Laplace) or BBGG-E1 (Gaussian). Solved
    by `markovdp.guarantees.shift_reduction.shift_reduction_rdp` (convex; rounded upward).
    """
    mechanism = getattr(subject, "mechanism", None)
    wanted = GaussianMechanism if isinstance(mechanism, GaussianMechanism) else LaplaceMechanism
    found = _pipeline(subject, "BBGG-E2r", wanted, "a chain of GaussianKernel/LaplaceKernel")
    if isinstance(found, NotApplicable):
        return found
    mech = found.mechanism
    noises = [("gaussian", mech.sigma, 1) if isinstance(mech, GaussianMechanism) else ("laplace", mech.scale, 1)]
    for op, count in _steps(found.kernel):
        if isinstance(op, GaussianKernel):
            noises.append(("gaussian", op.sigma, count))
        elif isinstance(op, LaplaceKernel):
            noises.append(("laplace", op.scale, count))
        else:
            return NotApplicable("BBGG-E2r", f"BBGG-E2r needs a chain of GaussianKernel and LaplaceKernel; "
                                             f"got {type(op).__name__}.")
    params = {"sensitivity": mech.sensitivity, "noises": tuple(noises)}
    return rdp_bound("BBGG-E2r", {**params, "r": sum(count for _, _, count in noises[1:]), "mechanism": mech,
                                  "kernel": found.kernel}, _curve(shift_reduction_rdp, **params))


@theorem("BBGG-E3")
def e3(subject: Any) -> Bound | NotApplicable:
    """BBGG-E3: GaussianMechanism(s1) >> LipschitzGaussianKernel(psi, L, s2) is (alpha, alpha Delta²/(2 s*²))-RDP.

    s*² = s1² + s2²/L², by BBGG-T2 (`markovdp.guarantees.coupling.lipschitz_kernel_rdp`). A projection after the
    noise is a post-processing (STD-DPI), so it is allowed when L holds on all of R^d (``lipschitz_everywhere``):
    the mechanism's outputs are not confined to W.
    Tight for every linear psi (the worst shift is the top singular vector).
    """
    found = _pipeline(subject, "BBGG-E3", GaussianMechanism, "LipschitzGaussianKernel")
    if isinstance(found, NotApplicable):
        return found
    if not isinstance(found.kernel, LipschitzGaussianKernel):
        return NotApplicable("BBGG-E3", f"BBGG-E3 needs one LipschitzGaussianKernel; "
                                        f"got {type(found.kernel).__name__}.")
    if not found.kernel.lipschitz_everywhere:
        return _unconfined("BBGG-E3", "the kernel", found.kernel.projection)
    params = {"sensitivity": found.mechanism.sensitivity, "sigma1": found.mechanism.sigma,
              "lipschitz": found.kernel.lipschitz, "sigma2": found.kernel.sigma}
    return rdp_bound("BBGG-E3", {**params, "mechanism": found.mechanism, "kernel": found.kernel},
                     _curve(lipschitz_kernel_rdp, **params))


def _unconfined(theorem_id: str, where: str, projection: Any) -> NotApplicable:
    """A LipschitzGaussianKernel with a projection Π_W may declare its L on W only (``lipschitz_everywhere=False``);
    then its inputs must lie in W, i.e. come from a step that projects onto W too — not from the Gaussian mechanism
    or from a step that projects elsewhere or not at all."""
    return NotApplicable(theorem_id, f"{where} projects onto {projection!r}, so its Lipschitz constant is declared "
                                     f"on that set only (lipschitz_everywhere=False), but its inputs are not confined "
                                     f"to it (they come from the Gaussian mechanism or a step that does not project "
                                     f"onto the same set).")


def _steps(kernel: Any) -> list[tuple[Any, int]]:
    """The kernel as (step, multiplicity) in order: chains flattened, ``K ** r`` as K r times."""

    if isinstance(kernel, Chain):
        return [step for op in kernel.operators for step in _steps(op)]
    if isinstance(kernel, Power):
        base = _steps(kernel.base)
        if len(base) == 1:  # K ** r of one kernel: one entry, however large r is
            return [(base[0][0], base[0][1] * kernel.r)]
        return base * kernel.r  # (K1 >> K2) ** r is K1 K2 K1 K2 ...: the order matters (who feeds whom)
    return [(kernel, 1)]


def _lipschitz_chain(subject: Any, theorem_id: str) -> dict[str, Any] | NotApplicable:
    """sensitivity, lipschitz (the largest L_i), sigma and r of GaussianMechanism >> r LipschitzGaussianKernels
    with one sigma."""
    found = _pipeline(subject, theorem_id, GaussianMechanism, "a chain of LipschitzGaussianKernels")
    if isinstance(found, NotApplicable):
        return found
    steps = _steps(found.kernel)
    other = [type(op).__name__ for op, _ in steps if not isinstance(op, LipschitzGaussianKernel)]
    if other:
        return NotApplicable(theorem_id, f"{theorem_id} needs a chain of LipschitzGaussianKernels; got {other[0]}.")
    confined = None  # the set W the current step's inputs lie in (None: anywhere in R^d)
    for n, (op, _) in enumerate(steps):
        if not op.lipschitz_everywhere and op.projection != confined:
            return _unconfined(theorem_id, f"kernel {n + 1} of the chain", op.projection)
        confined = op.projection
    sigmas = {float(op.sigma) for op, _ in steps}
    if len(sigmas) > 1:
        return NotApplicable(theorem_id, f"{theorem_id} needs one noise sigma for every step; got {sorted(sigmas)}.")
    # every psi_i is L-Lipschitz for the largest declared L_i, which is the common L of BBGG-T4
    return {"sensitivity": found.mechanism.sensitivity, "lipschitz": max(float(op.lipschitz) for op, _ in steps),
            "sigma": sigmas.pop(), "r": sum(count for _, count in steps)}


@theorem("BBGG-T4")
def t4(subject: Any) -> Bound | NotApplicable:
    """BBGG-T4: GaussianMechanism >> r LipschitzGaussianKernels (L = max L_i <= 1): alpha Delta² L^(r+1)/(2 r s²).

    The path starts at mu = M(D) and ends at nu = M(D'): the translation coupling gives W_inf(M(D), M(D')) =
    ||f(D) − f(D')|| <= Delta, and (3) is applied with that Delta. The mechanism's own noise is *not* used as a
    step: it would be a step with psi = identity (L = 1) and noise sigma1, while BBGG-T4 needs one noise s for
    every step, so the bound is sound but ignores sigma1 (for psi = L x the exact value has L^(2r) sigma1² added
    to the denominator of BBGG-T4opt). Each psi_i may differ. A step that projects onto W (Π_W is 1-Lipschitz, so
    W_inf never grows) needs psi_i Lipschitz where its inputs lie: on all of R^d (``lipschitz_everywhere``, e.g.
    the built-in maps), or on W when the previous step projects onto the same W.
    """
    found = _lipschitz_chain(subject, "BBGG-T4")
    if isinstance(found, NotApplicable):
        return found
    if found["lipschitz"] > 1.0:
        return NotApplicable("BBGG-T4", f"BBGG-T4 (3) needs L <= 1; got L = {found['lipschitz']!r} "
                                        f"(BBGG-T4opt holds for any L).")
    return rdp_bound("BBGG-T4", {**found, "mechanism": subject.mechanism, "kernel": subject.kernel},
                     _curve(lipschitz_chain_rdp, **found))


@theorem("BBGG-T4opt")
def t4opt(subject: Any) -> Bound | NotApplicable:
    """BBGG-T4opt: GaussianMechanism >> r LipschitzGaussianKernels (L = max L_i): alpha L² Delta²/(2 s² Σ L^(−2j)).

    BBGG-T4 (2) with optimised step sizes on the straight path from M(D) to M(D') (W_inf = Delta, the
    mechanism's noise not used, as in BBGG-T4); any L; equal to BBGG-T4 (3) at L = 1 and smaller for L < 1.
    """
    found = _lipschitz_chain(subject, "BBGG-T4opt")
    if isinstance(found, NotApplicable):
        return found
    return rdp_bound("BBGG-T4opt", {**found, "mechanism": subject.mechanism, "kernel": subject.kernel},
                     _curve(lipschitz_chain_opt_rdp, **found))


def _sgd(subject: Any, theorem_id: str) -> dict[str, Any] | NotApplicable:
    """The BBGG-T5 inputs of ``sgd.differing_at(i)``: the loss constants, eta, sigma, n and the index."""
    sgd = getattr(subject, "sgd", None)
    if not isinstance(sgd, NoisyProjSGD) or not hasattr(subject, "index"):
        return NotApplicable(theorem_id, f"{theorem_id} applies to NoisyProjSGD(...).differing_at(i).")
    loss = sgd.loss
    constants = {name: getattr(loss, name, None) for name in ("lipschitz", "smoothness", "strong_convexity")}
    missing = [name for name, value in constants.items() if value is None]
    if missing:
        return NotApplicable(theorem_id, f"{theorem_id} needs the loss's declared {', '.join(missing)}.")
    return {**constants, "eta": sgd.eta, "sigma": sgd.sigma, "n": sgd.n, "index": subject.index}


def _sgd_rule(theorem_id: str, slope: Callable[..., float], subject: Any) -> Bound | NotApplicable:
    found = _sgd(subject, theorem_id)
    if isinstance(found, NotApplicable):
        return found
    try:
        eps_i = slope(**found)
    except ValueError as exc:  # e.g. eta > 2/(smoothness + strong_convexity)
        return NotApplicable(theorem_id, f"{theorem_id} does not apply: {exc}")

    def curve(alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        alpha = np.asarray(alpha, dtype=np.float64)
        return np.zeros(alpha.shape) if eps_i == 0.0 else alpha * eps_i

    return rdp_bound(theorem_id, {**found, "eps_i": eps_i, "sgd": subject.sgd}, curve)


@theorem("BBGG-T5")
def t5(subject: Any) -> Bound | NotApplicable:
    """BBGG-T5: NoisyProjSGD differing in record i is (alpha, alpha eps_i)-RDP, eps_i from BBGG-T4 (3).

    `markovdp.guarantees.iteration.noisy_sgd_rdp` with the loss's C, beta, rho; NotApplicable when
    eta > 2/(beta + rho).
    """
    return _sgd_rule("BBGG-T5", noisy_sgd_rdp, subject)


@theorem("BBGG-T5opt")
def t5opt(subject: Any) -> Bound | NotApplicable:
    """BBGG-T5opt: NoisyProjSGD differing in record i is (alpha, alpha eps_i)-RDP, eps_i from BBGG-T4opt.

    `markovdp.guarantees.iteration.noisy_sgd_opt_rdp`; never above BBGG-T5.
    """
    return _sgd_rule("BBGG-T5opt", noisy_sgd_opt_rdp, subject)
