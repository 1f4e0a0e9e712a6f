"""Memory-tool paths: one canonical spelling under /memories, or the contract's error.

The two error texts are the anthropic SDK 2.16.0's (`_validate_path` in
module `anthropic.lib.tools._beta_builtin_memory_tool`), and so is the split between them:
a path failing `str.startswith("/memories")` gets "must start with", and every other
unsafe path gets "would escape". The SDK resolves paths on a filesystem; we have rows,
so instead of resolving we refuse anything that a filesystem, URL decoder or Unicode
normaliser downstream could read differently from how we store it. Two spellings that
look the same must be one file: a path is stored in NFC (`e` + U+0301 is the
file `é`), and a segment may not end in a space or a dot (Windows drops those, so
`notes.md.` would pass for `notes.md`).
"""

from __future__ import annotations

import re
import unicodedata

from .texts import ROOT, MemoryToolError, must_start_with_root, would_escape

__all__ = ["MemoryToolError", "is_hidden", "normalize_memory_path"]

#: NAME_MAX on Linux filesystems, in UTF-8 bytes.
MAX_SEGMENT_BYTES = 255

_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")

# Control (C0, DEL, C1), format (bidi overrides and isolates, zero-width, BOM), surrogate,
# private-use and unassigned characters, and the line/paragraph separators.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _unsafe_char(ch: str) -> bool:
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def _shown(raw: str, max_len: int) -> str:
    """The path as echoed in an error: unsafe characters escaped, very long paths clipped."""
    clipped = raw if len(raw) <= max_len else raw[:max_len] + "..."
    return "".join(ch.encode("unicode_escape").decode("ascii") if _unsafe_char(ch) else ch for ch in clipped)


def _unsafe_segment(segment: str) -> bool:
    return (
        segment.strip(".") == ""  # ".", ".." and "..." alike
        or segment.strip() == ""
        or segment.startswith("~")
        or segment.endswith((" ", "."))
        or len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES
    )


def normalize_memory_path(raw: str, *, max_len: int = 512) -> str:
    """Return the canonical path (`/memories` or `/memories/a/b.md`), or raise MemoryToolError.

    Duplicate slashes collapse, a trailing slash goes and the text is put in NFC.
    Refused: anything not under /memories, `.`/`..` segments, `~`, backslashes, `%XX`
    escapes, control and format characters, text that NFKC changes beyond NFC
    (fullwidth `．`, `／`, one-dot leader `․`), segments that end in a space or a dot,
    segments over 255 bytes and paths over `max_len` bytes. Errors echo the path as given.
    """
    if not raw.startswith(ROOT):
        raise MemoryToolError(must_start_with_root(_shown(raw, max_len)))
    escape = MemoryToolError(would_escape(_shown(raw, max_len)))
    if len(raw) > max_len or (raw != ROOT and not raw.startswith(ROOT + "/")):
        raise escape  # a length cap first keeps the checks below cheap
    if "\\" in raw or _PERCENT_ESCAPE.search(raw) or any(_unsafe_char(ch) for ch in raw):
        raise escape
    composed = unicodedata.normalize("NFC", raw)
    if unicodedata.normalize("NFKC", composed) != composed:
        raise escape
    segments = [s for s in composed[len(ROOT) :].split("/") if s]
    if any(_unsafe_segment(s) for s in segments):
        raise escape
    canonical = "/".join([ROOT, *segments])
    if len(canonical.encode("utf-8")) > max_len:
        raise escape
    return canonical


def is_hidden(path: str) -> bool:
    """True when any segment below /memories is a dot-file or dot-directory (view skips them)."""
    return any(segment.startswith(".") for segment in path[len(ROOT) :].split("/"))
