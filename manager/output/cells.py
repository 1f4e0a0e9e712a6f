"""One result cell, shaped for the model: markers for big values, clipped, escaped.

The markers say what a value is without reading or spending tokens on it:

- LOB (a declared LOB type) → `<LOB>`, never read: a backend hands over no LOB value, only
  its declared type (Oracle's cursor drops the locator unread);
- vector (declared `VECTOR` / `VECTOR(n)`, an `array.array`, a numpy array) →
  `<VECTOR(dim)>`, where dim comes from the stored value (float32 bytes: len // 4),
  not from the declaration, so a wrong declaration cannot lie about the data;
- other bytes → `<binary N bytes>` (a backend may hand over only their BinaryLength);
- NULL → the empty cell (SQL NULL and '' then look alike; tables are for reading,
  and `typeof()` in the query tells them apart when it matters).

Text is clipped at `max_chars` (the last kept character becomes `…`) and escaped so a
value cannot forge table structure: `|` → `\\|` (with any backslashes before it
doubled, so the escape cannot be undone) and every line break → the two characters
`\\n`. `<memory` is escaped as in records, so a cell cannot pass for a record either.
"""

from __future__ import annotations

import array
import json
import re

from ..backend.base import BinaryLength
from ..errors import InvalidArgument
from .records import clip, escape_body

__all__ = ["escape_text", "shape_cell"]

_VECTOR_TYPE = re.compile(r"\s*VECTOR\s*(\(.*\))?\s*", re.IGNORECASE)
_LOB_WORDS = {"LOB", "BLOB", "CLOB", "NCLOB", "BFILE"}
# CommonMark ends lines at \n, \r and \r\n; models also read VT, FF, NEL and the
# Unicode line/paragraph separators as breaks.
_LINE_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")
_PIPE = re.compile(r"(\\*)\|")


def shape_cell(value: object, declared_type: str | None = None, *, max_chars: int = 500) -> str:
    """The text a table shows for one value; see the module docstring for the rules."""
    if max_chars < 1:
        raise InvalidArgument(f"max_chars must be >= 1, got {max_chars}.", field="max_chars")
    if value is None:
        return ""
    declared = (declared_type or "").upper()
    if _VECTOR_TYPE.fullmatch(declared):
        if marker := _vector_marker(value, float32_bytes=True):
            return marker
    elif _LOB_WORDS & set(re.findall(r"[A-Z]+", declared)):
        return "<LOB>"
    if marker := _vector_marker(value, float32_bytes=False):
        return marker
    if isinstance(value, (bytes, bytearray, memoryview, BinaryLength)):
        return f"<binary {_byte_length(value)} bytes>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (dict, list, tuple)):  # e.g. an Oracle JSON column
        value = json.dumps(value, ensure_ascii=False, default=str)
    return escape_text(clip(str(value), max_chars))


def escape_text(text: str) -> str:
    """Escape `|`, line breaks and `<memory` so text stays inside one table cell."""
    text = _PIPE.sub(lambda m: m.group(1) * 2 + "\\|", text)
    return escape_body(_LINE_BREAKS.sub(r"\\n", text))


def _vector_marker(value: object, *, float32_bytes: bool) -> str | None:
    """`<VECTOR(dim)>` with dim from the value itself, or None if it is not a vector."""
    if isinstance(value, (bytes, bytearray, memoryview, BinaryLength)):
        size = _byte_length(value)
        return f"<VECTOR({size // 4})>" if float32_bytes and size % 4 == 0 else None
    if isinstance(value, array.array):
        return f"<VECTOR({len(value)})>"
    if type(value).__module__ == "numpy" and getattr(value, "ndim", 0) >= 1:
        return f"<VECTOR({int(value.size)})>"
    return None


def _byte_length(value: bytes | bytearray | memoryview | BinaryLength) -> int:
    if isinstance(value, BinaryLength):
        return value.size
    return value.nbytes if isinstance(value, memoryview) else len(value)
