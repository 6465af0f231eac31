"""The theorem registry: ``@theorem("ID")`` rules and `certify` (DESIGN §5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .types import Bound, Certificate, NoApplicableTheorem, NotApplicable

Rule = Callable[[Any], "Bound | NotApplicable"]
_RULES: dict[str, Rule] = {}


def theorem(theorem_id: str) -> Callable[[Rule], Rule]:
    """Register `rule` under a THEORY ID; ``rule(pipeline)`` returns a `Bound` or `NotApplicable`.

    A rule may only use a fact that has a THEORY ID. A tighter variant of a rule is a new rule with
    its own ID. Registering an ID twice is an error.
    """
    if not isinstance(theorem_id, str) or not theorem_id:
        raise TypeError(f"`theorem_id` must be a non-empty THEORY ID string; got {theorem_id!r}.")

    def register(rule: Rule) -> Rule:
        if theorem_id in _RULES and _RULES[theorem_id] is not rule:
            raise ValueError(f"`theorem_id` {theorem_id!r} is already registered.")
        _RULES[theorem_id] = rule
        return rule

    return register


def registered_theorems() -> tuple[str, ...]:
    """The IDs of every registered rule, in registration order."""
    _load_rules()
    return tuple(_RULES)


def _load_rules() -> None:
    from . import mechanism_rules  # noqa: F401, I001  (registration order: MECH, POST, then BBGG)
    from . import bbgg  # noqa: F401


def certify(subject: Any, require: bool = False) -> Certificate:
    """Run every registered rule on a mechanism or pipeline ``M >> K``; collect each rule's answer.

    Raises `NoApplicableTheorem` (listing every reason) when `require` is true and nothing applies.
    """
    from ..mechanisms.base import Mechanism

    if not isinstance(subject, Mechanism):
        raise TypeError(f"`subject` must be a Mechanism or a pipeline `M >> K`; got {type(subject).__name__}.")
    _load_rules()
    candidates: dict[str, Bound | NotApplicable] = {}
    for theorem_id, rule in _RULES.items():
        try:
            answer = rule(subject)
        except NotImplementedError as exc:
            answer = NotApplicable(theorem_id, str(exc))
        candidates[theorem_id] = answer
    cert = Certificate(subject, candidates)
    if require and not cert.bounds:
        lines = "\n".join(f"  {k}: {why}" for k, why in cert.reasons().items())
        raise NoApplicableTheorem(f"No theorem applies to {subject!r}:\n{lines}")
    return cert
