"""Dispatch on types (DESIGN §4–6): the one registry shape of markovdp, on a pair of types or on one.

A rule is registered on ``(left, right)`` (`PairRegistry`: divergences, merges, pushes) or on one key
(`KindRegistry`: the fast maxima over a kind of pair set, the shift noise of a kernel), each key a class or a
kind string (a class attribute ``kind``, e.g. ``"atomic"`` for every law on finitely many atoms). Lookup walks
the method-resolution orders, most specific first, then the kinds, so a subclass inherits its parents' rules
and a new class joins a family by declaring its kind.

Rules travel with their classes. A rule keyed on a class defined outside markovdp is also written into that
class (its attribute ``CARRIED``), so a class pickled *by value* — cloudpickle, as dask ships a class defined in
a script — brings its rules along; where the class arrives, a lookup that finds nothing by identity registers
the rules the classes carry and looks again (identity first: the hit path is unchanged).

What a task used is recorded where it runs (`recording`): every lookup, described by name (``module.qualname``),
so the process that sent the task can compare it with what it would have found (`expected`).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Rule = TypeVar("Rule")
Key = type | str

#: Class attribute holding the rules keyed on a class defined outside markovdp: {(registry name, key): rule}.
CARRIED = "__markovdp_rules__"
#: Every registry by its (unique) name: where `expected` looks up a recorded lookup.
REGISTRIES: dict[str, PairRegistry[Any] | KindRegistry[Any]] = {}


def _keys(cls: type) -> Iterator[Key]:
    yield from cls.__mro__
    kind = getattr(cls, "kind", None)
    if isinstance(kind, str):
        yield kind


def describe(obj: Any) -> str:
    """A rule, class or kind by name: ``module.qualname`` (a script is ``__main__`` wherever it runs)."""
    if isinstance(obj, str):
        return f"kind {obj!r}"
    if isinstance(obj, tuple):
        return "(" + ", ".join(describe(part) for part in obj) + ")"
    module = getattr(obj, "__module__", None) or "?"
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{'__main__' if module == '__mp_main__' else module}.{name}"


@dataclass
class Used:
    """What a task used: each registry lookup (registry, the key chain of each argument) → the rule found
    (`describe`d, "" for none), and the theorem rules registered when `certify` ran (ID → `describe`d rule)."""

    lookups: dict[tuple[str, tuple[tuple[str, ...], ...]], str] = field(default_factory=dict)
    theorems: dict[str, str] = field(default_factory=dict)
    _seen: set[tuple[Any, ...]] = field(default_factory=set, repr=False)


_RECORD: contextvars.ContextVar[Used | None] = contextvars.ContextVar("markovdp_used", default=None)


@contextlib.contextmanager
def recording() -> Iterator[Used]:
    """Record, in this thread, what the code run inside uses from the registries."""
    used = Used()
    token = _RECORD.set(used)
    try:
        yield used
    finally:
        _RECORD.reset(token)


def note_theorems(rules: dict[str, Any]) -> None:
    """Record the theorem rules registered when `certify` runs (a no-op outside `recording`)."""
    used = _RECORD.get()
    if used is not None:
        used.theorems.update({tid: describe(rule) for tid, rule in rules.items()})


def _note(registry: str, classes: tuple[type, ...], rule: Any) -> None:
    used = _RECORD.get()
    if used is None or (registry, *classes) in used._seen:  # not recording, or recorded already
        return
    used._seen.add((registry, *classes))
    chains = tuple(tuple(describe(k) for k in _keys(cls)) for cls in classes)
    used.lookups[(registry, chains)] = "" if rule is None else describe(rule)


def expected(registry: str, chains: tuple[tuple[str, ...], ...]) -> str | None:
    """The rule (`describe`d, "" for none) this process finds for a lookup recorded elsewhere as key chains
    (the `describe`d MRO and kind of each argument); None if this process has no registry of that name."""
    found = REGISTRIES.get(registry)
    if found is None:
        return None
    rules = {tuple(map(describe, k if isinstance(k, tuple) else (k,))): rule for k, rule in found._rules.items()}
    for combination in itertools.product(*chains):  # left-major, most specific first, as `lookup`
        rule = rules.get(combination)
        if rule is not None:
            return describe(rule)
    return ""


def _carry(registry: str, key: Any, classes: tuple[Key, ...], rule: Any) -> None:
    """Write the rule into each class of `classes` defined outside markovdp, so it travels with the class."""
    for cls in classes:
        if isinstance(cls, type) and not cls.__module__.partition(".")[0] == "markovdp":
            carried = dict(vars(cls).get(CARRIED, {}))
            carried[(registry, key)] = rule
            with contextlib.suppress(TypeError, AttributeError):  # a built-in type cannot carry anything
                setattr(cls, CARRIED, carried)


def _carried(registry: str, classes: tuple[type, ...]) -> dict[Any, Any]:
    """The rules of `registry` that the classes (and their bases) carry."""
    found: dict[Any, Any] = {}
    for cls in classes:
        for base in cls.__mro__:
            for (name, key), rule in vars(base).get(CARRIED, {}).items():
                if name == registry:
                    found[key] = rule
    return found


class PairRegistry(Generic[Rule]):
    """Rules keyed by a pair of classes or kinds; `lookup` finds the most specific match."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[tuple[Key, Key], Rule] = {}
        REGISTRIES[name] = self

    def add(self, left: Key, right: Key, rule: Rule) -> None:
        for side, key in (("left", left), ("right", right)):
            if not isinstance(key, (type, str)):
                raise TypeError(f"`{side}` of a {self.name} rule must be a class or a kind string; got {key!r}.")
        self._rules[(left, right)] = rule
        _carry(self.name, (left, right), (left, right), rule)

    def register(self, *pairs: tuple[Key, Key]) -> Callable[[Any], Any]:
        """Decorator: register the function on each ``(left, right)`` pair."""

        def decorate(rule: Any) -> Any:
            for left, right in pairs:
                self.add(left, right, rule)
            return rule

        return decorate

    def _find(self, left: type, right: type) -> Rule | None:
        for a in _keys(left):
            for b in _keys(right):
                found = self._rules.get((a, b))
                if found is not None:
                    return found
        return None

    def lookup(self, left: type, right: type) -> Rule | None:
        """The rule for ``(left, right)``: both MROs (then kinds) walked, left-major; None if none matches.

        On a miss, the rules the two classes carry (`CARRIED`) are registered and the lookup is tried again."""
        found = self._find(left, right)
        if found is None:
            carried = {key: rule for key, rule in _carried(self.name, (left, right)).items()
                       if self._rules.get(key) is not rule}
            if carried:
                self._rules.update(carried)
                found = self._find(left, right)
        if _RECORD.get() is not None:
            _note(self.name, (left, right), found)
        return found


class KindRegistry(Generic[Rule]):
    """Rules keyed by one class or kind; `lookup` finds the most specific match (the MRO, then the kind)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[Key, Rule] = {}
        REGISTRIES[name] = self

    def add(self, key: Key, rule: Rule) -> None:
        if not isinstance(key, (type, str)):
            raise TypeError(f"the key of a {self.name} rule must be a class or a kind string; got {key!r}.")
        self._rules[key] = rule
        _carry(self.name, key, (key,), rule)

    def register(self, *keys: Key) -> Callable[[Any], Any]:
        """Decorator: register the function on each key."""

        def decorate(rule: Any) -> Any:
            for key in keys:
                self.add(key, rule)
            return rule

        return decorate

    def _find(self, cls: type) -> Rule | None:
        for key in _keys(cls):
            found = self._rules.get(key)
            if found is not None:
                return found
        return None

    def lookup(self, cls: type) -> Rule | None:
        """The rule for `cls` (its MRO walked, then its kind); None if none matches.

        On a miss, the rules the class carries (`CARRIED`) are registered and the lookup is tried again."""
        found = self._find(cls)
        if found is None:
            carried = {key: rule for key, rule in _carried(self.name, (cls,)).items()
                       if self._rules.get(key) is not rule}
            if carried:
                self._rules.update(carried)
                found = self._find(cls)
        if _RECORD.get() is not None:
            _note(self.name, (cls,), found)
        return found


__all__ = ["CARRIED", "REGISTRIES", "KindRegistry", "PairRegistry", "Used", "describe", "expected", "note_theorems",
           "recording"]
