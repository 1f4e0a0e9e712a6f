"""`<memory ...>` records: how typed memory reaches the model, with citation ids.

Content is data, not instructions: it is clipped, and a value cannot close or
forge a record because `<memory` / `</memory` inside it are escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..tokens import count_tokens

_ATTR_SAFE = re.compile(r"[^A-Za-z0-9_.:@+\-]")


def attr(value: object) -> str:
    return _ATTR_SAFE.sub("_", str(value))[:120]


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def escape_body(text: str) -> str:
    return re.sub(r"<(/?)memory", r"<\\\1memory", text, flags=re.IGNORECASE)


def memory_record(body: str, *, id: str, type: str, cell_chars: int, **attrs: object) -> str:
    """One record; attributes with value None are left out."""
    head = " ".join([f"id={attr(id)}", f"type={attr(type)}"]
                    + [f"{k}={attr(v)}" for k, v in attrs.items() if v is not None])
    return f"<memory {head}>\n{escape_body(clip(body, cell_chars))}\n</memory>"


def metadata_line(**parts: object) -> str:
    """`key: value | key: value`, skipping None; the first line of every result."""
    return " | ".join(f"{k.replace('_', ' ')}: {v}" for k, v in parts.items() if v is not None)


def with_token_count(head_of: Callable[[int], str], body: str | None) -> str:
    """`head_of(tokens)`, then `body` on the next lines, where `tokens` is the o200k_base count of
    the whole text, metadata line included.

    The count depends on the figure only through its number of digits (o200k_base splits digits
    into groups of three), so counting again with the last count settles within a few rounds.
    """
    tokens = 0
    for _ in range(8):
        text = head_of(tokens) if body is None else f"{head_of(tokens)}\n{body}"
        counted = count_tokens(text)
        if counted == tokens:
            return text
        tokens = counted
    raise RuntimeError(f"the token count of a result did not settle: {text[:120]!r}")
