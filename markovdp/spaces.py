"""Measurable spaces that operators map between: finite sets {0..k-1} and Euclidean spaces R^d."""

from __future__ import annotations

from dataclasses import dataclass

from ._validation import check_int


class Space:
    """A state space. Two spaces are compatible iff they are equal."""

    size: int

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class FiniteSpace(Space):
    """The finite set {0, ..., k-1} with counting measure; samples are int64 indices."""

    k: int

    def __post_init__(self) -> None:
        check_int("k", self.k, minimum=1)

    @property
    def size(self) -> int:
        return self.k

    def describe(self) -> str:
        return f"a finite space of size {self.k}"


@dataclass(frozen=True)
class RealSpace(Space):
    """R^d with Lebesgue measure; samples have shape (n,) for d = 1 and (n, d) otherwise."""

    d: int = 1

    def __post_init__(self) -> None:
        check_int("d", self.d, minimum=1)

    @property
    def size(self) -> int:
        return self.d

    def describe(self) -> str:
        return f"R^{self.d}"


class IncompatibleSpaces(ValueError):
    """Raised when the codomain of one operator is not the domain of the next (or two laws or samples live
    on different spaces)."""


def require_compatible(left: Space, right: Space, what: str) -> None:
    """Raise `IncompatibleSpaces` naming both spaces unless `left == right`."""
    if left != right:
        raise IncompatibleSpaces(
            f"`{what}`: cannot connect {left.describe()} ({left!r}) to {right.describe()} ({right!r})."
        )
