"""What a tool argument may hold beyond its schema: valid Unicode, nested no deeper than MAX_DEPTH.

JSON lets a string carry a lone UTF-16 surrogate (`"\\ud800"`), which is no Unicode text:
it cannot be encoded as UTF-8 for the database or the log. JSON also nests without
bound, and each level costs the validators a stack frame. Over stdio, upstream's parser
refuses both and the stdio transport answers for it (server/stdio_transport.py); over
HTTP some reach the tool, so the dispatcher refuses them here. Both say it in the plain
invalid-arguments wording every other bad argument gets.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["DEEP", "MAX_DEPTH", "SURROGATE", "argument_problem"]

#: the deepest nesting a tool argument may have (memgate's tools take flat values)
MAX_DEPTH = 32
SURROGATE = "a string holds a lone UTF-16 surrogate (like \\ud800); send valid Unicode text"
DEEP = f"values are nested deeper than {MAX_DEPTH} levels"

_SURROGATES = re.compile("[\ud800-\udfff]")


def argument_problem(arguments: Any) -> tuple[str | None, str] | None:
    """(the argument's name, or None for the whole, and the reason) for the first value that breaks
    a rule above, or None when there is none."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(arguments, ())]
    while stack:
        value, path = stack.pop()
        field = path[0] if path else None
        if len(path) > MAX_DEPTH:
            return field, DEEP
        if isinstance(value, str):
            if _SURROGATES.search(value):
                return field, SURROGATE
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _SURROGATES.search(key):
                    return field, SURROGATE
                stack.append((item, (*path, str(key))))
        elif isinstance(value, list):
            stack.extend((item, (*path, str(i))) for i, item in enumerate(value))
    return None
