"""What a link can say: its relations (and their names read backwards), its provenances, its end types."""

from __future__ import annotations

from ..errors import InvalidArgument

__all__ = [
    "DEFAULT_LINKED",
    "MAX_HOPS",
    "MAX_LINKED",
    "MEMORY_TYPES",
    "PROVENANCES",
    "RELATIONS",
    "REVERSE",
    "memory_type",
    "record_type",
    "relation_from",
    "split_relation",
]

#: a link's link_type, read from its `from` end to its `to` end
RELATIONS = ("supersedes", "refines", "supports", "duplicates", "contradicts")
#: the same relation read from the `to` end: "v1 is_superseded_by v2"
REVERSE = {
    "supersedes": "is_superseded_by",
    "refines": "is_refined_by",
    "supports": "is_supported_by",
    "duplicates": "is_duplicated_by",
    "contradicts": "is_contradicted_by",
}
_FORWARD = {reverse: forward for forward, reverse in REVERSE.items()}
#: who made a link: a person or tool call, a claim's correction, a derivation pipeline
PROVENANCES = ("explicit", "correction", "extraction")
#: linkable memories: logical table -> the record type results show
MEMORY_TYPES = {
    "entity_memory": "entity",
    "workflow_memory": "workflow",
    "summarization_memory": "summary",
    "knowledge_base_document": "kb_document",
    "knowledge_base_chunk": "kb_chunk",
    "conversation_memory": "conversation",
    "image_memory": "image",
}
_BY_RECORD_TYPE = {short: table for table, short in MEMORY_TYPES.items()}
#: hops a retrieval may follow from a direct result
MAX_HOPS = 2
#: linked results per direct result: by default, and at most
DEFAULT_LINKED, MAX_LINKED = 5, 20


def split_relation(name: str) -> tuple[str, bool]:
    """(stored link_type, whether the ends swap) for a relation named either way round."""
    if name in REVERSE:
        return name, False
    if name in _FORWARD:
        return _FORWARD[name], True
    raise InvalidArgument(
        f"link type must be one of {', '.join(RELATIONS)} (or its reverse, e.g. is_superseded_by), got {name!r}",
        field="link_type",
    )


def relation_from(link_type: str, outgoing: bool) -> str:
    """The relation as the far end reads it toward the near one: outgoing from the near end, the far
    end is the link's `to` ("v1 is_superseded_by v2"); incoming, it is the `from` ("c supports v2")."""
    return REVERSE[link_type] if outgoing else link_type


def memory_type(name: str | None, field: str) -> str | None:
    """A memory type as a logical table name, from that name or its record type (entity, kb_chunk, ...)."""
    if name is None or name in MEMORY_TYPES:
        return name
    if name in _BY_RECORD_TYPE:
        return _BY_RECORD_TYPE[name]
    raise InvalidArgument(f"{field} must be one of {', '.join(_BY_RECORD_TYPE)}, got {name!r}", field=field)


def record_type(table: str) -> str:
    return MEMORY_TYPES.get(table, table)
