"""The records consolidation examines, read scope by scope through the wall.

The operator's store lists the keys and scopes of the records a tenant (or one user, agent or
thread) owns, as `memgate export` and `memgate forget` do; each scope's records are then read
whole by a session bound to exactly that scope (user, agent, thread). Only current records count:
a fact's version in force, a remembered note (a knowledge-base document of the collection
`remembered`), a passage (a chunk of any other collection but the import sources), a summary.
The claims a scope can see (its own and those shared with it) are read the same way, for stale
records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from ..backend.base import Backend, ChunkFilters, Row, Session
from ..backend.portable_rows import PortableRows
from ..backend.retention_store import RetentionStore, RowFilter
from ..kb.embed import Embedder
from ..portability.scopes import Triple, identity_for, owned_filters, triple_of, visible_from
from ..retention.registry import spec
from .detect import Claim, Item

__all__ = ["FAMILIES", "NOTES", "ScopeRecords", "claims_seen", "keys_by_scope", "passages_near", "scope_records"]

#: the tables consolidation reads, and the family each row is in
FAMILIES = {
    "entity_memory": "fact",
    "knowledge_base_document": "note",
    "knowledge_base_chunk": "passage",
    "summarization_memory": "summary",
}
#: the collection remembered notes live in (promotion/records.py), and the import sources' (evidence)
NOTES, SOURCES = "remembered", "imported"
_PAGE = 500


@dataclass
class ScopeRecords:
    triple: Triple
    items: list[Item]


def keys_by_scope(store: RetentionStore, kind: str, subject: str | None) -> dict[Triple, dict[str, list[str]]]:
    """Per scope the selection owns, per table, the keys of its rows (no content)."""
    found: dict[Triple, dict[str, list[str]]] = {}
    for table in FAMILIES:
        for where in owned_filters(spec(table), kind, subject):
            while page := store.select(spec(table).shape(), where, _PAGE):
                where = replace(where, after=str(page[-1]["row_key"]))
                for r in page:
                    found.setdefault(triple_of(r), {}).setdefault(table, []).append(str(r["row_key"]))
    return found


def _current(row: Row, now: str) -> bool:
    return (
        row["valid_from"] <= now
        and (row["valid_until"] is None or row["valid_until"] > now)
        and (row["deleted_at"] is None or row["deleted_at"] > now)
    )


def _rows(s: Session, portable, table: str, keys: list[str]) -> Iterator[Row]:
    for at in range(0, len(keys), _PAGE):
        yield from PortableRows(s, portable).by_keys(table, "id", keys[at : at + _PAGE])


def _item(table: str, row: Row) -> Item | None:
    family = FAMILIES[table]
    if table == "entity_memory":
        text = f"{row['subject']} {row['predicate']}: {row['content']}"
    elif table == "knowledge_base_document":
        if row["collection"] != NOTES:
            return None
        text = str(row["content"] or row["title"]).split("\n\nEvidence: ")[0]
    elif table == "knowledge_base_chunk":
        if row["collection"] in (NOTES, SOURCES):
            return None
        text = row["content"]
    else:
        text = row["content"]
    vector = None
    if table == "knowledge_base_chunk" and row.get("embedding") is not None:
        vector = np.frombuffer(bytes(row["embedding"]), dtype="<f4")
    return Item(
        table,
        family,
        row["id"],
        int(row["version"] or 1),
        text,
        row["created_at"],
        row.get("document_id"),
        vector,
    )


def scope_records(
    backend: Backend,
    tenant: str,
    triple: Triple,
    keys: dict[str, list[str]],
    principal: str,
    now: str,
    embedder: Embedder,
) -> ScopeRecords:
    """The scope's current records, each with an embedding (a passage's stored one when the
    configured embedder made it, else computed now)."""
    items: list[Item] = []
    models: dict[str, str | None] = {}
    with backend.session(identity_for(tenant, triple, principal), now=now) as s:
        for table, ids in keys.items():
            for row in _rows(s, backend.portable_sql, table, ids):
                if triple_of(row) != triple or not _current(row, now):
                    continue
                if (made := _item(table, row)) is not None:
                    items.append(made)
                    models[made.id] = row.get("embedding_model")
    stale_vectors = [i for i in items if i.vector is None or models.get(i.id) != embedder.name]
    if stale_vectors:
        vectors = embedder.embed([i.text for i in stale_vectors])
        fresh = {i.id: np.asarray(v, dtype=np.float32) for i, v in zip(stale_vectors, vectors)}
        items = [replace(i, vector=fresh[i.id]) if i.id in fresh else i for i in items]
    return ScopeRecords(triple, items)


def passages_near(
    backend: Backend, tenant: str, triple: Triple, note: Item, principal: str, now: str, model: str, limit: int = 32
) -> list[tuple[Item, float]]:
    """The passages the scope can see nearest a note (its own and those shared with it), found by the
    knowledge base's own two legs (the vector leg, and the lexical leg with the note's words, so a
    passage that holds the note's text is found among many notes alike), with their cosines; notes
    and import sources left out."""
    if note.vector is None:
        return []
    with backend.session(identity_for(tenant, triple, principal), now=now) as s:
        filters = ChunkFilters(now=now)
        seqs = {seq for seq, _ in s.kb_vector(note.vector, model, limit, filters)}
        seqs |= {seq for seq, _ in s.kb_lexical(note.text, limit, filters)}
        if not seqs:
            return []
        details = s.fetch_all("kb_chunk_details", seqs=json.dumps(sorted(seqs)))
        ids = [d["id"] for d in details if d["collection"] not in (NOTES, SOURCES)]
        rows = list(PortableRows(s, backend.portable_sql).by_keys("knowledge_base_chunk", "id", ids))
    found = []
    unit = note.vector / (np.linalg.norm(note.vector) or 1.0)
    for r in rows:
        item = _item("knowledge_base_chunk", r)
        if item is None or not _current(r, now):
            continue
        cosine = 0.0
        if item.vector is not None and r.get("embedding_model") == model and item.vector.shape == unit.shape:
            cosine = float(unit @ (item.vector / (np.linalg.norm(item.vector) or 1.0)))
        found.append((item, cosine))
    return sorted(found, key=lambda pair: -pair[1])


def claims_seen(
    backend: Backend,
    store: RetentionStore,
    tenant: str,
    triples: list[Triple],
    principal: str,
    now: str,
) -> dict[Triple, list[Claim]]:
    """Per scope, the corrected claims it can see: current at `now`, version 2 or later, with the
    value the correction replaced."""
    listed: dict[Triple, list[str]] = {}
    where = RowFilter()
    while page := store.select(spec("entity_memory").shape(), where, _PAGE):
        where = replace(where, after=str(page[-1]["row_key"]))
        for r in page:
            listed.setdefault(triple_of(r), []).append(str(r["row_key"]))
    seen: dict[Triple, list[Claim]] = {}
    rows_of: dict[Triple, list[Row]] = {}
    for own, ids in listed.items():
        with backend.session(identity_for(tenant, own, principal), now=now) as s:
            rows_of[own] = list(_rows(s, backend.portable_sql, "entity_memory", ids))
    by_id = {r["id"]: r for rows in rows_of.values() for r in rows}
    for triple in triples:
        claims = []
        for own, rows in rows_of.items():
            if not visible_from(own, [triple]):
                continue
            for r in rows:
                before = by_id.get(r["source_id"] or "") if r["source_table"] == "entity_memory" else None
                if int(r["version"] or 1) >= 2 and _current(r, now) and before and before["content"] != r["content"]:
                    claims.append(
                        Claim(
                            r["id"],
                            int(r["version"]),
                            r["subject"],
                            r["predicate"],
                            r["content"],
                            before["content"],
                            r["valid_from"],
                        )
                    )
        seen[triple] = claims
    return seen
