"""The worst member of a black-box class after a finite kernel, as a concrete mechanism (STD-BlackBoxExact)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_eps, fail
from ..mechanisms.base import PostProcessed
from ..mechanisms.canonical import CanonicalPairs
from ..mechanisms.finite import FiniteMechanism
from ..operators.finite import FiniteKernel
from .pair_maxima import pairs_argmax


def _is_black_box(pipeline: Any) -> bool:
    """Is `pipeline` a mechanism known only by its declared point (canonical pairs), post-processed?"""
    if not isinstance(pipeline, PostProcessed):
        return False
    try:
        return isinstance(pipeline.mechanism.dominating_pairs(), CanonicalPairs)
    except NotImplementedError:  # a mechanism without known pairs is not a declared black box
        return False


def worst_case_mechanism(pipeline: Any, eps: float) -> FiniteMechanism:
    """The (eps0, delta0)-DP mechanism whose post-processing by K attains the class's worst case at `eps`.

    STD-BlackBoxExact: for ``DeclaredDP(eps0, delta0) >> K`` (K finite, k inputs) the two rows are the laws on
    K's inputs that the maximising map t = (x0, x1, x2, x3) of the four canonical points sends P and Q to,
    ``mu = Σ_i P_i δ_{x_i}``, ``nu = Σ_i Q_i δ_{x_i}`` (a post-processing of the canonical pair, so
    (eps0, delta0)-DP); neighbours [(0, 1)]. ``privacy_profile(worst_case_mechanism(p, eps) >> p.kernel, eps)``
    equals ``privacy_profile(p, eps)``: Monte Carlo on it samples the worst member of the class.

    Raises
    ------
    TypeError
        `pipeline` is not a black box ``DeclaredDP(eps0, delta0) >> K``; `eps` not a scalar.
    ValueError
        `eps` negative or NaN (inf is allowed: the D_inf worst case).
    NotImplementedError
        K is not finite, or too large for the exact enumeration (`_black_box_kernels.MAX_WORK`).
    """
    if not _is_black_box(pipeline):
        raise fail("pipeline", "a black box post-processed by a kernel, DeclaredDP(eps, delta) >> K", pipeline,
                   TypeError)
    if not isinstance(pipeline.kernel, FiniteKernel):
        raise NotImplementedError(f"The exact worst case of a black box is known only through a finite kernel "
                                  f"(STD-BlackBoxExact); got {type(pipeline.kernel).__name__} in {pipeline!r}.")
    checked = check_eps("eps", eps, allow_inf=True)
    if np.ndim(checked) != 0:
        raise fail("eps", "a scalar", eps, TypeError)
    pairs = pipeline.dominating_pairs()
    mu, nu = pairs.inputs(pairs.tuple_of(pairs_argmax(pairs, float(checked))))
    return FiniteMechanism(np.stack([mu, nu]), neighbours=[(0, 1)])


__all__ = ["worst_case_mechanism"]
