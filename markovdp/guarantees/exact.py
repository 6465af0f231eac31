"""Exact privacy of a mechanism or pipeline: the profile delta(eps), its inverse, and the RDP curve.

delta(eps) = max over neighbouring pairs (both directions) of E_{e^eps}(M(D) || M(D')) (THEORY: Notation).
Exact where it can be: finite mechanisms and finite pipelines (a finite sum per pair), Gaussian
mechanisms post-processed by Gaussian kernels (STD-GaussHS, STD-GaussRenyi on the merged sigma) and
Laplace mechanisms (STD-LapHS, STD-LapRenyi). Elsewhere `NotImplementedError` names the pipeline.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_eps, check_order, check_probability
from ..distributions import Categorical, Laplace, Normal
from ..mechanisms.additive import GaussianMechanism, LaplaceMechanism
from ..mechanisms.base import Mechanism, PostProcessed, neighbour_pairs
from ..mechanisms.finite import MatrixMechanism
from ..operators.finite import FiniteKernel
from ..operators.gaussian import GaussianKernel
from ..operators.identity import Identity
from .coefficients import dobrushin, ldp_epsilon
from .types import invert_profile


def finite_form(subject: Mechanism) -> tuple[NDArray[np.float64], NDArray[np.int64]] | None:
    """(rows, ordered neighbour pairs) of a finite mechanism or finite pipeline, else None."""
    if isinstance(subject, MatrixMechanism):
        return subject.matrix, neighbour_pairs(subject.neighbours, subject.matrix.shape[0])
    if isinstance(subject, PostProcessed) and isinstance(subject.mechanism, MatrixMechanism):
        if isinstance(subject.kernel, (FiniteKernel, Identity)):
            inner = subject.mechanism
            matrix = subject.matrix if isinstance(subject.kernel, FiniteKernel) else inner.matrix
            return matrix, neighbour_pairs(inner.neighbours, inner.matrix.shape[0])
    return None


def gaussian_form(subject: Mechanism) -> tuple[float, float] | None:
    """(effective sigma, L2 sensitivity) of a Gaussian mechanism, post-processed by Gaussian kernels."""
    if isinstance(subject, GaussianMechanism):
        return subject.sigma, subject.sensitivity
    if isinstance(subject, PostProcessed) and isinstance(subject.mechanism, GaussianMechanism):
        inner = subject.mechanism
        if isinstance(subject.kernel, Identity):
            return inner.sigma, inner.sensitivity
        if isinstance(subject.kernel, GaussianKernel):
            # BBGG-E1: N(f, s1²) then N(., s2²) is N(f, s1² + s2²) exactly.
            return float(np.hypot(inner.sigma, subject.kernel.sigma)), inner.sensitivity
    return None


def laplace_form(subject: Mechanism) -> tuple[float, float] | None:
    """(scale, L1 sensitivity) of a Laplace mechanism (post-processing has no closed form)."""
    if isinstance(subject, LaplaceMechanism):
        return subject.scale, subject.sensitivity
    if isinstance(subject, PostProcessed) and isinstance(subject.mechanism, LaplaceMechanism):
        if isinstance(subject.kernel, Identity):
            return subject.mechanism.scale, subject.mechanism.sensitivity
    return None


def _unsupported(subject: Any, what: str) -> NotImplementedError:
    return NotImplementedError(f"No exact method computes the {what} of {subject!r}.")


def _check_subject(subject: Any) -> Mechanism:
    if not isinstance(subject, Mechanism):
        raise TypeError(f"`mechanism` must be a Mechanism or a pipeline `M >> K`; got {type(subject).__name__}.")
    return subject


def _pairwise_hockey_stick(matrix: NDArray[np.float64], pairs: NDArray[np.int64],
                           eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n_eps, n_pairs) array of Σ_y [P_i(y) − e^eps P_j(y)]_+ (eps = inf: the D_inf mass).

    Through the exact finite sum of `divergences`, which never forms e^eps (no inf · 0 for eps > 709).
    """
    from ..divergences.exact import hockey_stick_finite

    flat = np.asarray(eps, dtype=np.float64).ravel()
    return np.stack([hockey_stick_finite(matrix[i], matrix[j], flat) for i, j in pairs], axis=1)


def worst_pair(mechanism: Mechanism, eps: float) -> tuple[int, int]:
    """The neighbouring pair (i, j) of a finite mechanism/pipeline attaining the profile at `eps`."""
    form = finite_form(_check_subject(mechanism))
    if form is None:
        raise _unsupported(mechanism, "worst neighbouring pair")
    matrix, pairs = form
    e = np.atleast_1d(np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64))
    values = _pairwise_hockey_stick(matrix, pairs, e)[0]
    i, j = pairs[int(np.argmax(values))]
    return int(i), int(j)


def privacy_profile(mechanism: Mechanism, eps: ArrayLike) -> float | NDArray[np.float64]:
    """Exact delta(eps) = max over neighbours (both directions) of E_{e^eps}(M(D) || M(D')).

    THEORY: Notation; STD-GaussHS, STD-LapHS; AAC-eta for finite local-DP mechanisms. `eps` in nats
    (broadcast over arrays; eps = inf gives the D_inf mass). Raises NotImplementedError naming the
    pipeline where no exact method exists.
    """
    from ..divergences.exact import hockey_stick

    subject = _check_subject(mechanism)
    eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    flat = np.atleast_1d(eps_arr).ravel()
    form = finite_form(subject)
    if form is not None:
        matrix, pairs = form
        if pairs.shape[0] == matrix.shape[0] * (matrix.shape[0] - 1):  # all pairs: numba coefficient
            values = np.array([dobrushin(matrix, e) for e in flat])
        else:
            values = _pairwise_hockey_stick(matrix, pairs, flat).max(axis=1)
    elif (g := gaussian_form(subject)) is not None:
        sigma, sens = g
        values = np.atleast_1d(hockey_stick(Normal(0.0, sigma), Normal(sens, sigma), eps=flat))
    elif (lap := laplace_form(subject)) is not None:
        scale, sens = lap
        values = np.atleast_1d(hockey_stick(Laplace(0.0, scale), Laplace(sens, scale), eps=flat))
    else:
        raise _unsupported(subject, "privacy profile")
    values = np.clip(values, 0.0, 1.0).reshape(eps_arr.shape)
    return float(values) if eps_arr.ndim == 0 else values


def privacy_epsilon(mechanism: Mechanism, delta: float) -> float:
    """The smallest eps with privacy_profile(M, eps) <= delta (inf if none): the inverse profile.

    Finite local-DP mechanisms use `ldp_epsilon` (AAC-T1: closed form at delta = 0, 1e-12 otherwise).
    """
    subject = _check_subject(mechanism)
    target = float(check_probability("delta", delta))
    form = finite_form(subject)
    if form is not None:
        matrix, pairs = form
        if pairs.shape[0] == matrix.shape[0] * (matrix.shape[0] - 1):
            return ldp_epsilon(matrix, target)
    if target == 0.0:
        # Pure DP: delta(eps) = 0 iff eps >= R_inf = log ess sup of the likelihood ratio (THEORY: Notation).
        # Read it from the exact R_inf, never from a profile that merely underflowed to 0 (Gaussian: inf).
        return float(renyi_profile(subject, np.inf))
    return invert_profile(lambda e: float(privacy_profile(subject, e)), target)


def renyi_profile(mechanism: Mechanism, alpha: ArrayLike) -> float | NDArray[np.float64]:
    """Exact RDP curve eps(alpha) = max over neighbours of R_alpha(M(D) || M(D')), alpha in (1, inf].

    THEORY: Notation; STD-GaussRenyi, STD-LapRenyi, BBGG-E1 (Gaussian then Gaussian kernel is exact).
    """
    from ..divergences.exact import renyi

    subject = _check_subject(mechanism)
    alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    flat = np.atleast_1d(alpha_arr).ravel()
    form = finite_form(subject)
    if form is not None:
        matrix, pairs = form
        values = np.full(flat.shape, 0.0)
        for i, j in pairs:
            values = np.maximum(values, np.atleast_1d(
                renyi(Categorical(matrix[i]), Categorical(matrix[j]), alpha=flat)))
    elif (g := gaussian_form(subject)) is not None:
        sigma, sens = g
        values = np.atleast_1d(renyi(Normal(0.0, sigma), Normal(sens, sigma), alpha=flat))
    elif (lap := laplace_form(subject)) is not None:
        scale, sens = lap
        values = np.atleast_1d(renyi(Laplace(0.0, scale), Laplace(sens, scale), alpha=flat))
    else:
        raise _unsupported(subject, "Rényi profile")
    values = values.reshape(alpha_arr.shape)
    return float(values) if alpha_arr.ndim == 0 else values
