"""Diffusion mechanisms M_t^f(D) = P_t(f(D)): the query value run through a Markov semigroup for a time t.

THEORY: BBGG-S (closed under post-processing by the same semigroup: P_s ∘ M_t^f = M_{t+s}^f), BBGG-T6
(privacy through the intrinsic sensitivity Λ(t)), BBGG-BM and BBGG-C7 (Brownian and Ornstein–Uhlenbeck:
Gaussian outputs, so one Gaussian dominating pair makes every divergence exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_positive, check_range, fail
from ..diffusions.base import Semigroup, TimeSlice, check_space_points
from ..distributions import Distribution, PointMass
from ..operators.affine_gaussian import AffineGaussianKernel
from ..operators.algebra import Chain
from ..operators.base import MarkovOperator
from ..operators.identity import Identity
from ..pairs_gaussian import GaussianBallPair
from ..spaces import RealSpace, Space
from .base import L2Ball, Mechanism, PostProcessed


@dataclass(frozen=True)
class DiffusionMechanism(Mechanism):
    """M_t^f(D) = P_t(f(D)): the law of the diffusion at time t started at the query value (BBGG-S).

    `semigroup`: a `Semigroup` on R^d; `t` > 0 (at t = 0 the output is f(D) itself, which is not private);
    `sensitivity` Δ > 0: neighbours are ||f(D) − f(D')||_2 <= Δ. Samples through ``semigroup.at(t)``. Where
    P_t is an affine Gaussian kernel (Brownian, Ornstein–Uhlenbeck) the dominating pair is the Gaussian ball
    pair of that kernel, so `privacy_profile` and `renyi_profile` are exact (BBGG-BM, BBGG-C7); otherwise
    `dominating_pairs` raises NotImplementedError naming the semigroup class.
    ``M >> semigroup.at(s)`` is ``DiffusionMechanism(semigroup, t + s, sensitivity)``.
    """

    semigroup: Semigroup
    t: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.semigroup, Semigroup):
            raise fail("semigroup", "a Semigroup", type(self.semigroup).__name__, TypeError)
        if not isinstance(self.semigroup.space, RealSpace):
            raise fail("semigroup", "a semigroup on R^d", self.semigroup.space.describe())
        t = check_range("t", self.t, low=0.0, low_open=True,
                        allowed="> 0 and finite (at t = 0 the output is the query value itself, not private)")
        if t.ndim != 0:
            raise fail("t", "a scalar time > 0", self.t, TypeError)
        object.__setattr__(self, "t", float(t))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    @property
    def dim(self) -> int:
        return self.semigroup.space.size

    @property
    def neighbours(self) -> L2Ball:
        return L2Ball(self.sensitivity)

    @property
    def output_space(self) -> Space:
        return self.semigroup.space

    @property
    def kernel(self) -> MarkovOperator:
        """P_t, the operator the query value is run through."""
        return self.semigroup.at(self.t)

    def output(self, value: Any) -> Distribution:
        """P_t(value, ·) for one query value, a point of R^d (N(e^(−theta t) value, s_t² I) for OU)."""
        point = _values(value, self.dim)
        if point.ndim != (0 if self.dim == 1 else 1):
            raise fail("value", f"one point of R^{self.dim}", f"shape {point.shape}")
        return self.kernel.push(PointMass(point))

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """One draw of P_t(value_i, ·) for each query value (shape (n,) for d = 1, (n, d) otherwise)."""
        return self.kernel.sample(_values(value, self.dim), rng=rng)

    def dominating_pairs(self) -> GaussianBallPair:
        """For P_t(x) = N(A x + b, Σ): the pair N(0, Σ), N(Δ A v*, Σ) over the L2 ball (`GaussianBallPair`);
        for Brownian and OU, A = e^(−theta t) I and Σ = s_t² I, so the Mahalanobis distance is e^(−theta t) Δ / s_t.
        """
        closed = self.semigroup.kernel_at(self.t)
        if not isinstance(closed, AffineGaussianKernel):
            raise NotImplementedError(
                f"{type(self.semigroup).__name__}.at(t) is not an affine Gaussian kernel, so DiffusionMechanism "
                f"knows no exact dominating pair for it (use a certify rule such as BBGG-T6).")
        return GaussianBallPair(closed.noise_cov, closed.A, self.sensitivity)

    def __rshift__(self, kernel: object) -> Mechanism:
        """BBGG-S: ``M_t >> P.at(s)`` is ``M_{t+s}`` (also at the head of a chain); any other kernel post-processes."""
        head, rest = _split(kernel)
        if isinstance(head, TimeSlice) and head.semigroup == self.semigroup:
            merged = DiffusionMechanism(self.semigroup, self.t + head.t, self.sensitivity)
            return merged if rest is None else merged >> rest
        if isinstance(head, Identity) and head.space == self.output_space:
            return self if rest is None else self >> rest
        result: PostProcessed = super().__rshift__(kernel)
        return result


def _split(kernel: object) -> tuple[object, MarkovOperator | None]:
    """(first operator, the rest or None) of a chain; (kernel, None) for anything else."""
    if isinstance(kernel, Chain):
        ops = kernel.operators
        return ops[0], (ops[1] if len(ops) == 2 else Chain(ops[1:]))
    return kernel, None


def _values(value: ArrayLike, d: int) -> NDArray[np.float64]:
    """Query values as points of R^d; a wrong dimension is `IncompatibleSpaces` with both sizes."""
    return check_space_points("value", value, RealSpace(d))


__all__ = ["DiffusionMechanism"]
