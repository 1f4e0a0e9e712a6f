"""Ingest a knowledge-base document: hash, skip when unchanged, else replace in one transaction.

A source (collection + source URI + scope) has one document row. Re-ingesting an
unchanged source is a no-op; a changed one gets its document row updated (version
bumped) and all of its chunks replaced inside one BEGIN IMMEDIATE transaction, so a
reader sees either the old chunks or the new ones, never a mix. Parsing, chunking
and embedding happen before the transaction, so the write lock is held only for
the writes; the hash is checked again under the lock in case another process
ingested the same source meanwhile.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..backend.base import Row, Session
from ..identity import Identity
from ..ids import new_id
from ..limits import ChunkSettings
from ..tokens import count_tokens
from .chunk import chunk_text
from .embed import Embedder
from .parse import SUPPORTED_EXTENSIONS, parse_file

__all__ = [
    "ChunkSettings",
    "IngestResult",
    "chunks_to_embed",
    "embed_chunks",
    "embed_missing",
    "ingest_path",
    "ingest_text",
    "source_hash",
]

NEW, UNCHANGED, REPLACED, FAILED = "new", "unchanged", "replaced", "failed"


@dataclass(frozen=True)
class IngestResult:
    """What happened to one source."""

    source: str
    status: str  # new | unchanged | replaced | failed
    document_id: str | None = None
    title: str | None = None
    chunks: int = 0
    tokens: int = 0
    reason: str | None = None
    #: the image_memory row of an image file (kb/images.py)
    image_id: str | None = None


@dataclass(frozen=True)
class _Scope:
    collection: str
    user_id: str | None
    agent_id: str | None
    thread_id: str | None


def source_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fingerprint(content_hash: str, embedder: Embedder, settings: ChunkSettings) -> dict:
    # Same bytes but another embedder or chunk size is a change: the chunks would differ.
    return {
        "content_hash": content_hash,
        "embedding_model": embedder.name,
        "chunk_max_tokens": settings.max_tokens,
        "chunk_overlap_tokens": settings.overlap_tokens,
    }


def _is_current(existing: Row | None, fingerprint: dict) -> bool:
    if existing is None or existing["deleted_at"] is not None:
        return False
    meta = json.loads(existing["metadata_json"] or "{}")
    return existing["content_hash"] == fingerprint["content_hash"] and all(
        meta.get(k) == v for k, v in fingerprint.items() if k != "content_hash"
    )


def ingest_path(
    open_session,
    identity: Identity,
    path: str | Path,
    embedder: Embedder,
    now: str,
    *,
    collection: str = "default",
    user_id: str | None = None,
    agent_id: str | None = None,
    settings: ChunkSettings = ChunkSettings(),
) -> IngestResult:
    """Ingest one file; `open_session()` gives a session bound to `identity`'s tenant."""
    path = Path(path)
    if path.suffix.lower() not in SUPPORTED_EXTENSIONS or not path.is_file():
        parse_file(path)  # raises the parser's own error: unsupported type, or no such file
    source_uri = path.resolve().as_uri()
    scope = _Scope(collection, user_id, agent_id, None)
    fingerprint = _fingerprint(source_hash(path.read_bytes()), embedder, settings)
    with open_session() as s:
        existing = _existing(s, scope, source_uri)
    if _is_current(existing, fingerprint):
        return IngestResult(str(path), UNCHANGED, existing["id"], existing["title"])
    parsed = parse_file(path)
    return _store(
        open_session,
        identity,
        embedder,
        now,
        scope,
        source_uri,
        parsed.title,
        parsed.text,
        parsed.mime,
        fingerprint,
        settings,
        str(path),
    )


def ingest_text(
    open_session,
    identity: Identity,
    embedder: Embedder,
    now: str,
    *,
    title: str,
    text: str,
    source_uri: str,
    mime_type: str = "text/plain",
    collection: str = "default",
    user_id: str | None = None,
    agent_id: str | None = None,
    settings: ChunkSettings = ChunkSettings(),
    content_hash: str | None = None,
    label: str | None = None,
    write_also: Callable[[Session, str], None] | None = None,
    thread_id: str | None = None,
) -> IngestResult:
    """Ingest text that is already parsed (benchmarks, demo data, other callers).

    `content_hash` is what makes the source unchanged (default: the text's sha256; an image's
    description document hashes the image's bytes too); `write_also(session, document_id)`
    writes more rows in the same transaction as the document (the image row, a remembered
    note's candidate and links); `thread_id` scopes the document to one thread.
    """
    scope = _Scope(collection, user_id, agent_id, thread_id)
    fingerprint = _fingerprint(content_hash or source_hash(text.encode("utf-8")), embedder, settings)
    return _store(
        open_session,
        identity,
        embedder,
        now,
        scope,
        source_uri,
        title,
        text,
        mime_type,
        fingerprint,
        settings,
        label or source_uri,
        write_also,
    )


def _existing(s: Session, scope: _Scope, source_uri: str) -> Row | None:
    return s.fetch_one(
        "kb_document_by_source",
        collection=scope.collection,
        source_uri=source_uri,
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        thread_id=scope.thread_id,
    )


def _store(
    open_session,
    identity: Identity,
    embedder: Embedder,
    now: str,
    scope: _Scope,
    source_uri: str,
    title: str,
    text: str,
    mime_type: str,
    fingerprint: dict,
    settings: ChunkSettings,
    label: str,
    write_also: Callable[[Session, str], None] | None = None,
) -> IngestResult:
    chunks = chunk_text(text, max_tokens=settings.max_tokens, overlap_tokens=settings.overlap_tokens)
    vectors = embedder.embed([c.text for c in chunks])
    doc_tokens = count_tokens(text)
    meta = json.dumps({k: v for k, v in fingerprint.items() if k != "content_hash"}, sort_keys=True)
    with open_session() as s, s.transaction():
        existing = _existing(s, scope, source_uri)
        if _is_current(existing, fingerprint):  # another process got here first
            return IngestResult(label, UNCHANGED, existing["id"], existing["title"])
        if existing is None:
            doc_id, status = new_id("doc"), NEW
            s.insert(
                "knowledge_base_document",
                {
                    "id": doc_id,
                    "tenant_id": identity.tenant,
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "thread_id": scope.thread_id,
                    "collection": scope.collection,
                    "title": title,
                    "source_uri": source_uri,
                    "mime_type": mime_type,
                    "content_hash": fingerprint["content_hash"],
                    "token_count": doc_tokens,
                    "content": text,
                    "metadata_json": meta,
                    "version": 1,
                    "valid_from": now,
                    "created_by": identity.principal or identity.user,
                    "created_at": now,
                },
            )
        else:
            doc_id, status = existing["id"], REPLACED
            s.execute(
                "kb_document_replace",
                id=doc_id,
                title=title,
                mime_type=mime_type,
                content_hash=fingerprint["content_hash"],
                token_count=doc_tokens,
                content=text,
                metadata_json=meta,
                now=now,
            )
            s.execute("kb_chunks_delete_for_document", document_id=doc_id)
        s.insert_many(
            "knowledge_base_chunk",
            [
                {
                    "id": new_id("chk"),
                    "tenant_id": identity.tenant,
                    "user_id": scope.user_id,
                    "agent_id": scope.agent_id,
                    "thread_id": scope.thread_id,
                    "document_id": doc_id,
                    "collection": scope.collection,
                    "position": chunk.position,
                    "content": chunk.text,
                    "token_count": chunk.token_count,
                    "char_start": chunk.char_start,
                    "char_end": chunk.char_end,
                    "embedding": vector,
                    "embedding_model": embedder.name,
                    "version": 1,
                    "valid_from": now,
                    "created_by": identity.principal or identity.user,
                    "created_at": now,
                }
                for chunk, vector in zip(chunks, vectors)
            ],
        )
        if write_also is not None:
            write_also(s, doc_id)
    return IngestResult(label, status, doc_id, title, len(chunks), sum(c.token_count for c in chunks))


def chunks_to_embed(s: Session, embedder: Embedder) -> list[dict]:
    """The session tenant's chunks with no embedding from `embedder` (seq, id, content), by seq."""
    return s.fetch_all("kb_chunks_without_embedding", model=embedder.name)


def embed_chunks(s: Session, embedder: Embedder, rows: list[dict]) -> None:
    """Embed `rows` (from chunks_to_embed) and store each vector with its model's name."""
    for row, vector in zip(rows, embedder.embed([r["content"] for r in rows]), strict=True):
        s.execute("kb_chunk_set_embedding", seq=row["seq"], embedding=vector, model=embedder.name)


def embed_missing(s: Session, embedder: Embedder, batch: int = 256) -> int:
    """Embed the session tenant's chunks that lack an embedding from `embedder`; returns how many."""
    rows = s.fetch_all("kb_chunks_without_embedding", model=embedder.name)
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch]
        for row, vector in zip(part, embedder.embed([r["content"] for r in part])):
            s.execute("kb_chunk_set_embedding", seq=row["seq"], embedding=vector, model=embedder.name)
    return len(rows)
