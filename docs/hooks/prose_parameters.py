"""griffe extension: numpy-style parameter lines written as ``name : what it is`` (the house style: the type is in
the signature's annotation, the line after the colon is prose) are read as ``name`` + description, so the API
reference shows the prose as the description and the signature's annotation as the type. A line whose text after
the colon reads as a type (``x : float``, ``k : int, optional``, ``method : {"box", "plugin"}``) is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

SECTIONS = ("Parameters", "Other Parameters")
#: Text after "name : " that is a numpy type: known type words, class names, literal sets; a few words at most.
TYPE_WORD = re.compile(r"^(?:(?:float|int|str|bool|None|optional|callable|array_like|array-like|ndarray|NDArray|"
                       r"sequence|mapping|dict|list|tuple|[A-Z]\w*)\b|\{.*\})")
TYPE_CHARS = re.compile(r"^[\w.\[\]|,{}\"' ()\-]+$")
PARAMETER = re.compile(r"^(?P<indent>\s*)(?P<name>\*{0,2}[A-Za-z_]\w*(?:, \*{0,2}[A-Za-z_]\w*)*) : (?P<rest>.+)$")


def is_type(text: str) -> bool:
    return bool(TYPE_WORD.match(text)) and bool(TYPE_CHARS.match(text)) and len(text.split()) <= 8


def rewrite(docstring: str) -> str:
    """The docstring with each prose ``name : text`` line of a parameter section split into ``name`` and
    ``text`` indented under it (numpy's form for a parameter without a type)."""
    lines, out, section, base = docstring.splitlines(), [], None, None
    for n, line in enumerate(lines):
        stripped = line.strip()
        if n + 1 < len(lines) and set(lines[n + 1].strip()) == {"-"} and stripped:
            section, base = stripped, None
        match = PARAMETER.match(line) if section in SECTIONS else None
        if match and (base is None or len(match["indent"]) == base):
            base = len(match["indent"])
            if not is_type(match["rest"]):
                out += [f"{match['indent']}{match['name']}", f"{match['indent']}    {match['rest']}"]
                continue
        out.append(line)
    return "\n".join(out)


class ProseParameters(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
