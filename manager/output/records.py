"""`<memory ...>` records: how typed memory reaches the model, with citation ids.

One format everywhere (lookup_entity, search_memory, expand, the context window):

    <memory id="ent_acme_helios_v2" type="entity" status="current" version="2">
    <content>0.78</content>
    <annotation current_fact_id="...">This memory used an earlier fact. Current canonical fact: ...</annotation>
    </memory>

Attribute values are quoted, with `&`, `"`, `<` and `>` written as entities and line
breaks as spaces, so a value cannot end its attribute or the tag. Content is data, not
instructions: it is clipped, and a value cannot close or forge a record, its content,
an annotation or a window's structure, because those tags inside it are escaped
(`<memory` becomes `<\\memory`). An annotation is memgate's note about a record
(a stale fact and its correction), kept apart from the record's own content.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..tokens import count_tokens

__all__ = [
    "STALE_FACT_TEXT",
    "StaleFact",
    "attr",
    "clip",
    "escape_body",
    "memory_record",
    "metadata_line",
    "with_token_count",
]

_ATTR_CHARS = 200
_ATTR_ENTITIES = {"&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;"}
_ATTR_SPECIAL = re.compile(r'[&"<>]')
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
#: tags memgate writes around memory; the same names inside a value are escaped
_STRUCTURE_TAG = re.compile(r"<(/?)(memory|content|annotation|slice|question|context_window)", flags=re.IGNORECASE)
STALE_FACT_TEXT = "This memory used an earlier fact. Current canonical fact: "


def attr(value: object) -> str:
    """A quoted attribute value (quotes included): entities for & " < >, no line breaks, clipped."""
    text = _CONTROL.sub(" ", clip(str(value), _ATTR_CHARS))
    return '"' + _ATTR_SPECIAL.sub(lambda m: _ATTR_ENTITIES[m.group()], text) + '"'


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def escape_body(text: str) -> str:
    return _STRUCTURE_TAG.sub(r"<\\\1\2", text)


@dataclass(frozen=True)
class StaleFact:
    """A record used an earlier version of a claim; `current` says what the claim holds now."""

    #: the id of the claim's current version
    current_fact_id: str
    #: one line naming the current value: "model:helios-rag beir_ndcg10 = 0.78 (version 2)"
    current: str
    #: the version the record used, as (table, id, version)
    used: tuple[str, str, int] | None = None

    def render(self) -> str:
        text = escape_body(clip(" ".join(self.current.split()), 400))
        return f"<annotation current_fact_id={attr(self.current_fact_id)}>{STALE_FACT_TEXT}{text}</annotation>"


def memory_record(
    body: str, *, id: str, type: str, cell_chars: int, annotations: tuple[StaleFact, ...] = (), **attrs: object
) -> str:
    """One record; attributes with value None are left out, annotations follow the content."""
    head = " ".join(
        [f"id={attr(id)}", f"type={attr(type)}"] + [f"{k}={attr(v)}" for k, v in attrs.items() if v is not None]
    )
    lines = [f"<memory {head}>", f"<content>{escape_body(clip(body, cell_chars))}</content>"]
    lines += [a.render() for a in annotations]
    lines.append("</memory>")
    return "\n".join(lines)


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
