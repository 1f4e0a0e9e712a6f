"""Helpers for the knowledge-base tests: a manager with the fast hashing embedder, and documents."""

from __future__ import annotations

from memgate.manager import MemoryManager
from memgate.manager.identity import Identity
from memgate.manager.kb.embed import HashingEmbedder

ACME = Identity(tenant="acme", user="jane", agent="research-assistant", principal="test:acme")
GLOBEX = Identity(tenant="globex", user="omar", agent="support-bot", principal="test:globex")


def hashing_manager(backend, **kwargs) -> MemoryManager:
    return MemoryManager(backend, embedder=HashingEmbedder(256), **kwargs)


def add_doc(manager, identity: Identity, title: str, text: str, *, collection: str = "default",
            uri: str | None = None, **kwargs):
    return manager.ingest_text(identity, title=title, text=text, collection=collection,
                               source_uri=uri or f"test://{identity.tenant}/{title}", **kwargs)
