"""How much of a caller's own value an answer or a log line repeats.

Error texts name the value that failed (the memory tool's old_str, a tool name), which
helps with ordinary values and floods the context window, the log and memory with a
megabyte one. Past ECHO_CHARS characters only the head is repeated, and the length.
"""

from __future__ import annotations

__all__ = ["ECHO_CHARS", "clip_echo"]

#: the longest value repeated whole
ECHO_CHARS = 300


def clip_echo(value: str, limit: int = ECHO_CHARS) -> str:
    """`value` itself up to `limit` characters, else its head and its length:
    `xxxx…(10,485,760 characters)`."""
    return value if len(value) <= limit else f"{value[:limit]}…({len(value):,} characters)"
