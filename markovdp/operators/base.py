"""The Markov operator: a kernel K: X → P(Y) (THEORY: Notation)."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._dispatch import PairRegistry
from .._random import RNGLike
from .._validation import check_points, check_states
from ..distributions import Distribution
from ..spaces import FiniteSpace, IncompatibleSpaces, Space, require_compatible  # noqa: F401 (their old home)

if TYPE_CHECKING:
    from ..pairs import PairSet


def check_inputs(space: Space, x: ArrayLike) -> NDArray[Any]:
    """Inputs of an operator on `space`: states of a finite space, points of R^d (shape (n,) or (n, d))."""
    if isinstance(space, FiniteSpace):
        return check_states("x", x, space.k)
    return check_points("x", x, space.size)


#: merge rules: (left type, right type) → ``rule(left, right)``, the single operator equal to ``left >> right``
#: or None. Registered beside each kernel class (DESIGN §5); `compose` and ``K ** r`` fold them.
MERGES: PairRegistry[Any] = PairRegistry("merge")


class MarkovOperator(abc.ABC):
    """A Markov kernel K: X → P(Y). ``K1 >> K2`` is first K1, then K2 (finite: P1 @ P2).

    THEORY: Notation. Concrete operators are frozen and validated at construction.
    """

    @property
    @abc.abstractmethod
    def domain(self) -> Space: ...

    @property
    @abc.abstractmethod
    def codomain(self) -> Space: ...

    @abc.abstractmethod
    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """One draw y_i ~ K(x_i) for each input x_i (vectorised over the leading axis)."""

    def log_density(self, x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """log k(x, y) w.r.t. the codomain's base measure."""
        raise NotImplementedError(f"{type(self).__name__} has no closed-form density.")

    def push(self, mu: Distribution) -> Distribution:
        """The exact law mu K, where it is closed-form (`IncompatibleSpaces` if mu is not on the domain)."""
        require_compatible(mu.space, self.domain, "mu >> K")
        raise NotImplementedError(f"The law of {mu!r} >> {self!r} has no closed form.")

    def push_pairs(self, pairs: PairSet) -> PairSet:
        """The dominating pairs of ``M >> self`` from M's pairs, where pushing them stays exact (`pairs.push_pairs`)."""
        from ..pairs import push_pairs

        return push_pairs(self, pairs)

    def __rshift__(self, other: object) -> MarkovOperator:
        from .algebra import compose

        if not isinstance(other, MarkovOperator):
            return NotImplemented  # e.g. `K >> M`: the mechanism's `__rrshift__` explains
        return compose(self, other)

    def __rrshift__(self, mu: object) -> Distribution:
        """``mu >> K``: the law mu K of y ~ K(x), x ~ mu (`push`)."""
        if not isinstance(mu, Distribution):
            return NotImplemented
        return self.push(mu)

    def __pow__(self, r: int) -> MarkovOperator:
        from .algebra import power

        return power(self, r)
