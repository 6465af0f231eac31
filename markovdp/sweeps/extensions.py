"""Extensions on workers: a sweep task reports what it used from the registries; the sending process compares.

Each chunk runs inside `markovdp._dispatch.recording` and returns, beside its rows, the theorem rules its
`certify` calls ran (ID → ``module.function``) and every registry lookup it made (registry, the classes by name →
the rule found). `ExtensionCheck` compares both with this process: a theorem rule or a registration that this
process has and the workers lack (or have in another version) is a `MissingExtension` naming it, never a result.
A task that cannot import a module where it runs is one too. How to ship extensions: docs/extending.md.
"""

from __future__ import annotations

import io
import sys
import types
from collections.abc import Mapping
from typing import Any

from .._dispatch import describe, expected
from ..guarantees.registry import ENTRY_POINT_GROUP, registered_rules

__all__ = ["ExtensionCheck", "MissingExtension", "modules_needed", "not_importable", "unimportable"]

HOW = ("Every worker must register what this process registers, and nothing else. Ship the module that registers "
       "a rule to every worker — `client.upload_file(path)` (or dask's `UploadFile` worker plugin) on a dask cluster — "
       f"or install it on every worker as a package, its rules named in the entry-point group {ENTRY_POINT_GROUP!r}; "
       "a rule made in a script (`__main__`) never reaches a worker: move it into a module and ship that. A rule "
       "only the workers have: import its module here too, or restart the workers (docs/extending.md).")


class MissingExtension(RuntimeError):
    """The workers lack a theorem rule or a registration that this process has (`markovdp validate`: exit 2)."""


def _origin(described: str) -> str:
    return f"{described}, defined in the script" if described.startswith("__main__.") else described


class ExtensionCheck:
    """What the tasks of one sweep may use: this process's theorem rules and registries (read at each check)."""

    def __init__(self, scenario: Any) -> None:
        self.scenario = scenario
        self._checked: set[Any] = set()

    def __call__(self, used: tuple[dict[Any, str], dict[str, str]]) -> None:
        """Raise `MissingExtension` naming every difference between what a task used and this process."""
        lookups, theorems = used
        problems = self._theorems(theorems) if theorems else []
        for (registry, chains), found in lookups.items():
            if (registry, chains, found) in self._checked:
                continue
            here = expected(registry, chains)
            keys = ", ".join(chain[0] for chain in chains)
            if here is None or here == found:
                self._checked.add((registry, chains, found))
            elif not found:
                problems.append(f"no {registry} rule for ({keys}) is registered on the workers; this process uses "
                                f"{_origin(here)}")
            elif not here:
                problems.append(f"the workers use the {registry} rule {found} for ({keys}), which this process "
                                f"does not have")
            else:
                problems.append(f"the workers use the {registry} rule {found} for ({keys}); this process uses "
                                f"{_origin(here)}")
        if problems:
            lines = "\n".join(f"  - {p}" for p in problems)
            raise MissingExtension(f"scenario {self.scenario.name!r}: the workers lack what this process uses "
                                   f"(their results would not be the ones asked for):\n{lines}\n{HOW}")

    def _theorems(self, theirs: dict[str, str]) -> list[str]:
        ours = {tid: describe(rule) for tid, rule in registered_rules().items()}
        if ours == theirs:
            return []
        problems = [f"theorem rule {tid!r} ({_origin(rule)}) is not registered on the workers"
                    for tid, rule in ours.items() if tid not in theirs]
        problems += [f"theorem rule {tid!r} is {theirs[tid]} on the workers but {rule} here"
                     for tid, rule in ours.items() if tid in theirs and theirs[tid] != rule]
        problems += [f"the workers run theorem rule {tid!r} ({rule}), which this process does not have"
                     for tid, rule in theirs.items() if tid not in ours]
        return problems


def unimportable(exc: ModuleNotFoundError, scenario: Any) -> MissingExtension:
    """A task that could not import a module where it ran, as a `MissingExtension` naming the module (and the
    rules of this process that it defines)."""
    name = exc.name or str(exc)
    module = sys.modules.get(name)
    defined = [tid for tid, rule in registered_rules().items() if getattr(rule, "__module__", None) == name]
    where = f" ({getattr(module, '__file__', None) or 'not a file'})" if module is not None else ""
    rules = f", which registers theorem rule(s) {', '.join(map(repr, defined))}" if defined else ""
    return MissingExtension(f"scenario {scenario.name!r}: the workers cannot import module {name!r}{where}{rules}.\n"
                            f"{HOW}")


def modules_needed(obj: Any) -> set[str]:
    """The top-level modules that unpickling `obj` imports: those of the functions and classes cloudpickle
    pickles by reference (a script's and a function's own definitions travel by value)."""
    import cloudpickle

    found: set[str] = set()
    by_value = set(cloudpickle.list_registry_pickle_by_value())

    class Recorder(cloudpickle.Pickler):
        def reducer_override(self, o: Any) -> Any:
            if isinstance(o, (type, types.FunctionType, types.BuiltinFunctionType)):
                module = getattr(o, "__module__", None) or ""
                if module not in ("__main__", "__mp_main__", "builtins") and module not in by_value \
                        and "<locals>" not in getattr(o, "__qualname__", ""):
                    found.add(module.partition(".")[0])
            return super().reducer_override(o)

    Recorder(io.BytesIO(), protocol=5).dump(obj)
    return found


def not_importable(missing: Mapping[str, list[str]], scenario: Any) -> MissingExtension:
    """Modules that places of a cluster cannot import (module → where), as a `MissingExtension` naming them and
    the rules of this process that they register."""
    lines = []
    for name, places in sorted(missing.items()):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        defined = [tid for tid, rule in registered_rules().items()
                   if (getattr(rule, "__module__", None) or "").partition(".")[0] == name]
        lines.append(f"  - module {name!r}{f' ({path})' if path else ''} cannot be imported on {', '.join(places)}"
                     + (f"; it registers theorem rule(s) {', '.join(map(repr, defined))}" if defined else ""))
    return MissingExtension(f"scenario {scenario.name!r} needs modules that the cluster does not have:\n"
                            + "\n".join(lines) + f"\n{HOW}")
