"""The theorem registry: ``@theorem("ID")`` rules, `certify`, and what the rules say (DESIGN §5).

Order of registration (= the order of `registered_theorems` and of tie-breaking in `Certificate.best`):
the built-in rule modules, imported when `markovdp` is imported — MECH, POST (`mechanism_rules`), then
BBGG-T1.1 … T1.4 (`bbgg`) — then the rules of installed packages (entry-point group ``markovdp.theorems``:
each entry point names a module, imported once, whose ``@theorem`` decorators register its rules), then
rules defined in user code. A user rule therefore never jumps ahead of the built-in ones.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from typing import Any

from .._dispatch import note_theorems
from ..mechanisms.base import Mechanism
from .types import Bound, Certificate, NoApplicableTheorem, NotApplicable

Rule = Callable[[Any], "Bound | NotApplicable"]
_RULES: dict[str, Rule] = {}
#: The entry-point group through which installed packages contribute theorem rules.
ENTRY_POINT_GROUP = "markovdp.theorems"
_loaded_plugins = False


def theorem(theorem_id: str, *, replace: bool = False) -> Callable[[Rule], Rule]:
    """Register `rule` under a THEORY ID; ``rule(subject)`` returns a `Bound` or `NotApplicable`.

    A rule may only use a fact that has a THEORY ID; a tighter variant of a rule is a new rule with its own ID.
    Registering a taken ID is an error unless ``replace=True`` (e.g. re-running a notebook cell), which keeps
    the rule's place in the order, or unless the new rule has the taken one's module and qualified name: the same
    definition run again (a module reloaded, as dask's ``Client.upload_file`` does on the scheduler) replaces it.
    """
    if not isinstance(theorem_id, str) or not theorem_id:
        raise TypeError(f"`theorem_id` must be a non-empty THEORY ID string; got {theorem_id!r}.")

    def register(rule: Rule) -> Rule:
        if not callable(rule):
            raise TypeError(f"`@theorem({theorem_id!r})` must decorate a function; got {rule!r}.")
        taken = _RULES.get(theorem_id)
        if taken is not None and taken is not rule and not replace and _name(taken) != _name(rule):
            raise ValueError(f"`theorem_id` {theorem_id!r} is already registered "
                             f"(pass replace=True to replace it, or unregister({theorem_id!r}) first).")
        _RULES[theorem_id] = rule
        return rule

    return register


def _name(rule: Rule) -> tuple[str, str]:
    return getattr(rule, "__module__", None) or "", getattr(rule, "__qualname__", None) or repr(rule)


def unregister(theorem_id: str) -> None:
    """Remove the rule registered under `theorem_id` (ValueError listing the IDs if there is none)."""
    if theorem_id not in _RULES:
        raise ValueError(f"`theorem_id` must be a registered ID ({', '.join(_RULES)}); got {theorem_id!r}.")
    del _RULES[theorem_id]


def registered_theorems() -> tuple[str, ...]:
    """The IDs of every registered rule, in registration order."""
    load_plugins()
    return tuple(_RULES)


def registered_rules() -> dict[str, Rule]:
    """THEORY ID → its rule function, in registration order (what `certify` runs by default)."""
    load_plugins()
    return dict(_RULES)


def load_plugins() -> None:
    """Import, once, every module named in the ``markovdp.theorems`` entry-point group of installed packages."""
    global _loaded_plugins
    if _loaded_plugins:
        return
    _loaded_plugins = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        point.load()


def _summary(theorem_id: str, rule: Rule) -> str:
    """The first line of the rule's docstring, without a leading "ID:" that would repeat the ID."""
    doc = (inspect.getdoc(rule) or "").strip()
    line = doc.splitlines()[0] if doc else "(no statement)"
    return line.removeprefix(f"{theorem_id}:").strip()


def theorems() -> str:
    """A table of every registered rule: its THEORY ID and its one-line statement, in registration order."""
    ids = registered_theorems()
    width = max(map(len, ids), default=2)
    return "\n".join(f"{tid:<{width}}  {_summary(tid, _RULES[tid])}" for tid in ids)


def describe(theorem_id: str) -> str:
    """The full statement of the rule registered under `theorem_id`: its docstring and where it lives."""
    load_plugins()
    if theorem_id not in _RULES:
        raise ValueError(f"`theorem_id` must be a registered ID ({', '.join(_RULES)}); got {theorem_id!r}.")
    rule = _RULES[theorem_id]
    doc = textwrap.indent(inspect.getdoc(rule) or "(no statement)", "  ")
    return f"{theorem_id}  ({rule.__module__}.{rule.__qualname__})\n{doc}"


def _selected(rules: Iterable[str] | None) -> dict[str, Rule]:
    if rules is None:
        return dict(_RULES)
    if isinstance(rules, str):
        raise TypeError(f"`rules` must be a list of THEORY IDs, e.g. [{rules!r}]; got the string {rules!r}.")
    try:
        chosen = list(rules)
    except TypeError:
        raise TypeError(f"`rules` must be a list of THEORY IDs (or None for all); got {type(rules).__name__}."
                        ) from None
    if not chosen:
        raise ValueError("`rules` must name at least one registered ID (or be None for all); got an empty list.")
    unknown = [r for r in chosen if r not in _RULES]
    if unknown:
        raise ValueError(f"`rules` must name registered IDs ({', '.join(_RULES)}); got {unknown[0]!r}.")
    return {tid: _RULES[tid] for tid in chosen}


def _run(theorem_id: str, rule: Rule, subject: Any) -> Bound | NotApplicable:
    try:
        answer = rule(subject)
    except NotImplementedError as exc:
        return NotApplicable(theorem_id, str(exc))
    except Exception as exc:
        raise _with_id(exc, f"rule {theorem_id!r} failed on {subject!r}: {exc}") from exc
    if not isinstance(answer, (Bound, NotApplicable)):
        raise TypeError(f"rule {theorem_id!r} must return a Bound or NotApplicable; got {type(answer).__name__}.")
    if answer.theorem != theorem_id:
        raise ValueError(f"rule {theorem_id!r} returned a {type(answer).__name__} under another ID, "
                         f"{answer.theorem!r}: a rule answers under its own ID.")
    return answer


def _with_id(exc: Exception, message: str) -> Exception:
    """The same kind of error with the rule's ID in the message (a RuntimeError if the kind cannot be rebuilt)."""
    try:
        return type(exc)(message)
    except Exception:
        return RuntimeError(message)


def certify(subject: Any, require: bool = False, *, rules: Iterable[str] | None = None) -> Certificate:
    """Run every registered rule (or only the IDs in `rules`) on a mechanism or pipeline ``M >> K``.

    A rule that raises NotImplementedError is NotApplicable with that reason; any other error is re-raised
    with the rule's ID in the message. Raises `NoApplicableTheorem` (listing every reason) when `require`
    is true and nothing applies.
    """
    if not isinstance(subject, Mechanism):
        raise TypeError(f"`subject` must be a Mechanism or a pipeline `M >> K`; got {type(subject).__name__}.")
    load_plugins()
    note_theorems(_RULES)  # what a sweep task used: compared with the process that sent it (markovdp.sweeps)
    candidates = {tid: _run(tid, rule, subject) for tid, rule in _selected(rules).items()}
    cert = Certificate(subject, candidates)
    if require and not cert.bounds:
        lines = "\n".join(f"  {k}: {why}" for k, why in cert.reasons().items())
        raise NoApplicableTheorem(f"No theorem applies to {subject!r}:\n{lines}")
    return cert
