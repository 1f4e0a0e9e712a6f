"""Helpers for the knowledge-base tests: a manager with the fast hashing embedder, and documents."""

from __future__ import annotations

from memgate.manager import MemoryManager
from memgate.manager.identity import Identity
from memgate.manager.kb.embed import HashingEmbedder

ACME = Identity(tenant="acme", user="jane", agent="research-assistant", principal="test:acme")
GLOBEX = Identity(tenant="globex", user="omar", agent="support-bot", principal="test:globex")


def hashing_manager(backend, **kwargs) -> MemoryManager:
    return MemoryManager(backend, embedder=HashingEmbedder(256), **kwargs)


def add_doc(
    manager, identity: Identity, title: str, text: str, *, collection: str = "default", uri: str | None = None, **kwargs
):
    return manager.ingest_text(
        identity,
        title=title,
        text=text,
        collection=collection,
        source_uri=uri or f"test://{identity.tenant}/{title}",
        **kwargs,
    )


def add_chunk_from_corrected_fact(manager, content: str, chunk_id: str = "chk_acme_slide") -> str:
    """A chunk of demo document doc_acme_1 made from ent_acme_helios_v1, a claim version since corrected."""
    with manager.backend.session(ACME) as s:
        s.insert(
            "knowledge_base_chunk",
            {
                "id": chunk_id,
                "tenant_id": "acme",
                "document_id": "doc_acme_1",
                "collection": "demo",
                "position": 9,
                "content": content,
                "token_count": 12,
                "version": 1,
                "valid_from": "2026-07-20T00:00:00.000Z",
                "source_table": "entity_memory",
                "source_id": "ent_acme_helios_v1",
                "source_version": 1,
            },
        )
    return chunk_id
