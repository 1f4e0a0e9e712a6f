"""Synthetic knowledge bases for timing: real words in a Zipf-like mix, random unit-vector embeddings.

The text is drawn from a vocabulary (the Lee corpus's words when gensim is installed,
else a fixed built-in list), so FTS5 sees common and rare terms as in real text. The
embeddings are random unit vectors: right for timing (the vector leg reads and scores
every one the same way), meaningless for quality (bench/quality.py measures that).
Chunks are written through a walled session of the backend, as ingest writes them, so
the tenant wall's triggers and the lexical index are maintained as in production.
"""

from __future__ import annotations

import random
import re

import numpy as np

__all__ = ["DIM", "build_chunks", "queries", "random_unit_vectors", "vocabulary"]

DIM = 256
WORDS_PER_CHUNK = 80
_FALLBACK = [
    "pump",
    "valve",
    "sensor",
    "pressure",
    "maintenance",
    "schedule",
    "invoice",
    "customer",
    "account",
    "manager",
    "ticket",
    "escalation",
    "billing",
    "outage",
    "network",
    "latency",
    "storage",
    "backup",
    "restore",
    "region",
    "replica",
    "index",
    "query",
    "model",
    "evaluation",
    "benchmark",
    "dataset",
    "recall",
    "precision",
    "helios",
    "atlas",
    "orion",
    "vector",
    "lexical",
    "hybrid",
    "turbine",
    "bearing",
    "vibration",
    "alarm",
    "threshold",
    "firmware",
    "update",
    "rollout",
    "canary",
    "deploy",
    "incident",
    "review",
    "contract",
    "renewal",
    "discount",
    "quarter",
    "forecast",
    "revenue",
    "margin",
    "audit",
    "compliance",
    "policy",
    "retention",
]


def vocabulary() -> list[str]:
    """Real words to generate text from: the Lee background documents' vocabulary, or a small fixed list."""
    try:
        from .datasets import lee

        words = re.findall(r"[a-z]{3,}", " ".join(lee().docs.values()).lower())
        return sorted(set(words))
    except (FileNotFoundError, ImportError):
        return sorted(set(_FALLBACK))


def random_unit_vectors(n: int, rng: np.random.Generator, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def queries(words: list[str], n: int, seed: int = 7) -> list[str]:
    """n three-word queries from the more common part of the vocabulary."""
    rng = random.Random(seed)
    pool = words[: min(len(words), 3000)]
    return [" ".join(rng.sample(pool, 3)) for _ in range(n)]


def build_chunks(
    backend,
    identity,
    n: int,
    words: list[str],
    *,
    model: str,
    seed: int,
    dim: int = DIM,
    per_doc: int = 50,
    batch: int = 5000,
) -> tuple[list[str], np.ndarray]:
    """Write n generated chunks for `identity` (documents of `per_doc` chunks); returns their texts and
    embeddings, in order."""
    rng = random.Random(seed)
    weights = [1 / (r + 1) for r in range(len(words))]
    vectors = random_unit_vectors(n, np.random.default_rng(seed), dim)
    texts = [" ".join(rng.choices(words, weights, k=WORDS_PER_CHUNK)) for _ in range(n)]
    tenant = identity.tenant
    for lo in range(0, n, batch):
        with backend.session(identity) as s, s.transaction():
            for i in range(lo, min(n, lo + batch)):
                doc_id = f"doc_{tenant}_{i // per_doc}"
                if i % per_doc == 0:
                    s.insert(
                        "knowledge_base_document",
                        {
                            "id": doc_id,
                            "tenant_id": tenant,
                            "title": f"generated {i // per_doc}",
                            "source_uri": f"gen://{doc_id}",
                        },
                    )
                s.insert(
                    "knowledge_base_chunk",
                    {
                        "id": f"chk_{tenant}_{i}",
                        "tenant_id": tenant,
                        "document_id": doc_id,
                        "position": i % per_doc,
                        "content": texts[i],
                        "token_count": WORDS_PER_CHUNK,
                        "embedding": vectors[i],
                        "embedding_model": model,
                    },
                )
    return texts, vectors
