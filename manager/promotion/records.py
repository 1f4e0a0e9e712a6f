"""Where a promoted memory is written, and how one that must be reassessed stops being current.

- a `fact` is a claim in entity_memory (subject, predicate, the value as content), written by the
  same path as a correction (claims/entities.py correct_in), so lookup_entity answers it and a
  later fact of the same subject and predicate in the same scope is its next version;
- a `note`, `preference` or `procedure` is a knowledge-base document in the collection
  `remembered`, so search_memory finds it and a context window can place it as evidence; its text
  ends with the ids it rests on, so wherever it is shown its evidence is named.
Each evidence row `supports` the record (a link from the evidence to the record, read from the
record as is_supported_by), written in the same transaction.
"""

from __future__ import annotations

from ..backend.base import Row, Session
from ..claims import entities
from ..identity import Identity
from ..ids import new_id
from ..links.store import LinkEnd, write_link
from .evidence import SCOPE_COLUMNS
from .reassess import on_replaced

__all__ = ["COLLECTION", "link_end", "note_text", "note_title", "source_uri", "write_fact", "write_supports"]

#: the knowledge-base collection remembered notes, preferences and procedures live in
COLLECTION = "remembered"


def source_uri() -> str:
    """A remembered note's source: opaque, so a reader learns nothing of its candidate or its proposer (the
    candidate names the record, never the other way round)."""
    return f"memory://remembered/{new_id('mem')}"


def note_text(content: str, evidence_ids: list[str]) -> str:
    return f"{content}\n\nEvidence: {', '.join(evidence_ids)}"


def note_title(kind: str, content: str) -> str:
    first = " ".join(content.split())
    return f"{kind}: {first[:77] + '...' if len(first) > 80 else first}"


def write_fact(
    session: Session, identity: Identity, *, subject: str, predicate: str, content: str, scope: dict, now: str
) -> Row:
    """The fact as the claim's next version in exactly this scope (inside the caller's transaction)."""
    return entities.correct_in(
        session,
        identity,
        subject=subject,
        predicate=predicate,
        content=content,
        now=now,
        on_replaced=on_replaced,
        **scope,
    )


def link_end(memory_type: str, id: str, scope: dict) -> LinkEnd:
    return LinkEnd({"memory_type": memory_type, "id": id, **{c: scope.get(c) for c in SCOPE_COLUMNS}})


def write_supports(session: Session, identity: Identity, evidence: list, record: LinkEnd, now: str) -> list[Row]:
    """`evidence supports record` for each evidence row (inside the caller's transaction)."""
    return [write_link(session, identity, e, "supports", record, now=now, provenance="explicit") for e in evidence]
