"""Names that left a module when the layers were drawn (issue 13): a module `__getattr__` that says where they went.

A lower layer cannot import its interpreter to forward the old name (that import would point upward), so the old
path raises an ImportError naming the new home instead of Python's bare "cannot import name".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def moved_names(module: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `module`: each name of `homes` raises an ImportError naming its new home (a
    dotted path, with a hint after it where useful); any other name is the usual AttributeError."""

    def __getattr__(name: str) -> Any:
        if name in homes:
            raise ImportError(f"`{module}.{name}` moved to `{homes[name]}` (markovdp 0.2: a module that describes no "
                              f"longer imports the one that interprets); import it from there.", name=name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


__all__ = ["moved_names"]
