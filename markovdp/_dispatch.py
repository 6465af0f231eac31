"""Dispatch on types (DESIGN §4–6): the one registry shape of markovdp, on a pair of types or on one.

A rule is registered on ``(left, right)`` (`PairRegistry`: divergences, merges, pushes) or on one key
(`KindRegistry`: the fast maxima over a kind of pair set, the shift noise of a kernel), each key a class or a
kind string (a class attribute ``kind``, e.g. ``"atomic"`` for every law on finitely many atoms). Lookup walks
the method-resolution orders, most specific first, then the kinds, so a subclass inherits its parents' rules
and a new class joins a family by declaring its kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

Rule = TypeVar("Rule")
Key = type | str


def _keys(cls: type) -> Iterator[Key]:
    yield from cls.__mro__
    kind = getattr(cls, "kind", None)
    if isinstance(kind, str):
        yield kind


class PairRegistry(Generic[Rule]):
    """Rules keyed by a pair of classes or kinds; `lookup` finds the most specific match."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[tuple[Key, Key], Rule] = {}

    def add(self, left: Key, right: Key, rule: Rule) -> None:
        for side, key in (("left", left), ("right", right)):
            if not isinstance(key, (type, str)):
                raise TypeError(f"`{side}` of a {self.name} rule must be a class or a kind string; got {key!r}.")
        self._rules[(left, right)] = rule

    def register(self, *pairs: tuple[Key, Key]) -> Callable[[Any], Any]:
        """Decorator: register the function on each ``(left, right)`` pair."""

        def decorate(rule: Any) -> Any:
            for left, right in pairs:
                self.add(left, right, rule)
            return rule

        return decorate

    def lookup(self, left: type, right: type) -> Rule | None:
        """The rule for ``(left, right)``: both MROs (then kinds) walked, left-major; None if none matches."""
        for a in _keys(left):
            for b in _keys(right):
                found = self._rules.get((a, b))
                if found is not None:
                    return found
        return None


class KindRegistry(Generic[Rule]):
    """Rules keyed by one class or kind; `lookup` finds the most specific match (the MRO, then the kind)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[Key, Rule] = {}

    def add(self, key: Key, rule: Rule) -> None:
        if not isinstance(key, (type, str)):
            raise TypeError(f"the key of a {self.name} rule must be a class or a kind string; got {key!r}.")
        self._rules[key] = rule

    def register(self, *keys: Key) -> Callable[[Any], Any]:
        """Decorator: register the function on each key."""

        def decorate(rule: Any) -> Any:
            for key in keys:
                self.add(key, rule)
            return rule

        return decorate

    def lookup(self, cls: type) -> Rule | None:
        """The rule for `cls` (its MRO walked, then its kind); None if none matches."""
        for key in _keys(cls):
            found = self._rules.get(key)
            if found is not None:
                return found
        return None


__all__ = ["KindRegistry", "PairRegistry"]
