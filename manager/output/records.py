"""`<memory ...>` records: how typed memory reaches the model, with citation ids.

Content is data, not instructions: it is clipped, and a value cannot close or
forge a record because `<memory` / `</memory` inside it are escaped.
"""

from __future__ import annotations

import re

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
