"""fetch's read of one knowledge-base item on every backend (manager/kb/sources.py read_item): a
document stored without its full text reads as its chunks in order, joined by a blank line; the
backend returns the row and the chunks as plain rows (on Oracle no LOB outlives the statement
that made it), the manager joins them."""

from __future__ import annotations

from kb_helpers import ACME

from memgate.manager.kb.sources import read_item

SINCE, NOW = "2026-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z"


def _document(s, doc_id: str, content: str | None, parts: dict[int, str]) -> None:
    s.insert(
        "knowledge_base_document",
        {
            "id": doc_id,
            "tenant_id": "acme",
            "collection": "c",
            "title": doc_id,
            "content": content,
            "valid_from": SINCE,
        },
    )
    for position, text in parts.items():
        s.insert(
            "knowledge_base_chunk",
            {
                "id": f"{doc_id}_{position}",
                "tenant_id": "acme",
                "document_id": doc_id,
                "collection": "c",
                "position": position,
                "content": text,
                "valid_from": SINCE,
            },
        )


def test_a_document_stored_without_its_text_reads_as_its_chunks_in_order(backend):
    with backend.session(ACME) as s:
        _document(s, "doc_parts", None, {1: "second part", 0: "first part"})
        _document(s, "doc_whole", "the stored text", {0: "a chunk of it"})
        _document(s, "doc_empty", None, {})
        parts = read_item(s, "doc_parts", NOW)
        whole = read_item(s, "doc_whole", NOW)
        empty = read_item(s, "doc_empty", NOW)
        chunk = read_item(s, "doc_parts_1", NOW)
    assert (parts["kind"], parts["content"], parts["chunk_count"]) == ("kb_document", "first part\n\nsecond part", 2)
    assert whole["content"] == "the stored text"
    assert empty["content"] is None and empty["chunk_count"] == 0
    assert (chunk["kind"], chunk["content"], chunk["position"]) == ("kb_chunk", "second part", 1)
