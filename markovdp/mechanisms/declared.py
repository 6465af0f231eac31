"""A black-box mechanism known only through its declared (eps, delta)-DP guarantee (BBGG-T1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike
from .._validation import check_eps, check_probability
from ..distributions import Distribution
from .base import Declared, Mechanism
from .canonical import CanonicalPairs, canonical_rows
from .finite import FiniteMechanism


@dataclass(frozen=True)
class DeclaredDP(Mechanism):
    """Some (eps, delta)-DP mechanism, otherwise unknown; ``M >> K`` works for any kernel K.

    Its privacy profile is bounded by the canonical dominating pair (STD-DominatingPair);
    `sample`, `output` and the exact profile raise `NotImplementedError`.
    """

    eps: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_eps("eps", self.eps))
        object.__setattr__(self, "delta", check_probability("delta", self.delta))

    @property
    def neighbours(self) -> Declared:
        return Declared()

    def dominating_pairs(self) -> CanonicalPairs:
        """The canonical four-point pair (STD-DominatingPair): every (eps, delta)-DP pair is a post-processing
        of it (Kairouz–Oh–Viswanath 2015), so its divergences bound — and attain — the class's worst case."""
        return CanonicalPairs(self.eps, self.delta)

    @property
    def output_space(self) -> None:
        return None

    def output(self, value: Any) -> Distribution:
        raise NotImplementedError(f"{self!r} is a black box: it has no output law.")

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        raise NotImplementedError(f"{self!r} is a black box: it cannot be sampled (try `.witness()`).")

    def witness(self) -> FiniteMechanism:
        """The canonical four-point (eps, delta)-DP mechanism whose profile *equals* the dominating curve.

        STD-DominatingPair: rows [delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0] and its mirror,
        neighbours (0, 1). Every bound certified for ``DeclaredDP(eps, delta) >> K`` must hold for it.
        """
        P, Q = canonical_rows(self.eps, self.delta)
        # (1 - delta) / (1 + e^eps) becomes 0 past eps ~ 709.78 (e^eps overflows), where the two rows would be
        # disjoint: that witness is not representable in float64.
        if P[2] == 0.0 and self.delta < 1.0:
            raise NotImplementedError(f"The witness of {self!r} is not representable in float64 (eps up to ~709).")
        rows = np.stack([P, Q])
        return FiniteMechanism(rows, neighbours=[(0, 1)])

    def __repr__(self) -> str:
        return f"DeclaredDP(eps={self.eps!r}, delta={self.delta!r}, neighbours=Declared())"
