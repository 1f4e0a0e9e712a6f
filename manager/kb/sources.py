"""search and fetch in the shapes ChatGPT's deep research and company knowledge read.

`search` is `{"results": [{"id", "title", "url"}]}` and `fetch` is `{"id", "title", "text",
"url", "metadata"}` (metadata values are strings), each sent as JSON text and as
structuredContent. The results are knowledge-base chunks (search) and a chunk or a whole
document (fetch), read through the caller's wall and bounded by the result token budget:
search drops its lowest-ranked results to fit, fetch clips `text` and says so in metadata.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..backend.base import Row, Session
from ..output.budget import clip_to_fit
from ..output.records import STALE_FACT_TEXT, StaleFact, clip
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .links import source_link
from .search import SearchHit

__all__ = ["CHUNK", "DOCUMENT", "document_sources", "read_item", "render_fetch", "render_search"]

CHUNK, DOCUMENT = "kb_chunk", "kb_document"
_TITLE_CHARS = 200


def document_sources(session: Session, document_ids: Iterable[str]) -> dict[str, str | None]:
    """Each document's source_uri, for its citation link."""
    ids = sorted(set(document_ids))
    if not ids:
        return {}
    return {r["id"]: r["source_uri"] for r in session.fetch_all("kb_document_sources", ids=json.dumps(ids))}


def read_item(session: Session, item_id: str, now: str) -> Row | None:
    """The current chunk or document `item_id` as the caller sees it, or None (absent and hidden alike).

    A document stored without its full text reads as its chunks in order, joined by a blank line
    (None when it has none); the join is here so neither backend builds a large text in SQL."""
    item = session.fetch_one("kb_source_item", id=item_id, now=now)
    if item is not None and item["kind"] == DOCUMENT and item["content"] is None:
        parts = [r["content"] for r in session.fetch_all("kb_document_chunk_texts", id=item_id)]
        item = {**item, "content": "\n\n".join(parts) if parts else None}
    return item


def render_search(
    hits: list[SearchHit], sources: Mapping[str, str | None], *, public_base: str | None, max_tokens: int
) -> ToolOutput:
    results = [
        {
            "id": h.id,
            "title": _title(h.title, h.position, h.chunk_count),
            "url": source_link(h.document_id, sources.get(h.document_id), chunk_id=h.id, public_base=public_base),
        }
        for h in hits
    ]
    while results and count_tokens(_json({"results": results})) > max_tokens:
        results.pop()
    payload = {"results": results}
    text = _json(payload)
    return ToolOutput(
        text=text,
        rows=len(results),
        truncated=len(results) < len(hits),
        tokens=count_tokens(text),
        cited_ids=tuple(r["id"] for r in results),
        structured=payload,
        wire_format=True,
    )


def render_fetch(
    item: Row, *, public_base: str | None, max_tokens: int, stale: tuple[StaleFact, ...] = ()
) -> ToolOutput:
    chunk = item["kind"] == CHUNK
    text = str(item["content"] or "")
    metadata = {
        "type": item["kind"],
        "document_id": item["document_id"],
        "collection": item["collection"],
        "tokens": str(item["token_count"] if item["token_count"] is not None else count_tokens(text)),
        "valid_from": item["valid_from"],
    }
    if chunk:
        metadata["position"] = f"{item['position'] + 1} of {item['chunk_count']}"
    else:
        metadata["chunks"] = str(item["chunk_count"])
    if stale:  # the passage was made from a claim version since corrected (claims/stale.py)
        metadata["status"] = "historical"
        metadata["current_facts"] = " ".join(f"{STALE_FACT_TEXT}{n.current} (id {n.current_fact_id})." for n in stale)
    base = {
        "id": item["id"],
        "title": _title(item["title"], item["position"], item["chunk_count"]) if chunk else _title(item["title"]),
        "url": source_link(
            item["document_id"], item["source_uri"], chunk_id=item["id"] if chunk else None, public_base=public_base
        ),
    }

    def build(body: str, truncated: bool) -> dict[str, Any]:
        return {**base, "text": body, "metadata": {**metadata, "truncated": "yes" if truncated else "no"}}

    payload = build(text, False)
    if count_tokens(_json(payload)) > max_tokens:
        fitted = clip_to_fit(text, lambda body: _json(build(body, True)), max_tokens)
        payload = json.loads(fitted) if fitted is not None else build("", True)
    out = _json(payload)
    return ToolOutput(
        text=out,
        rows=1,
        truncated=payload["metadata"]["truncated"] == "yes",
        tokens=count_tokens(out),
        cited_ids=(item["id"],),
        structured=payload,
        wire_format=True,
    )


def _title(title: str, position: int | None = None, chunks: int | None = None) -> str:
    line = clip(" ".join(str(title).split()), _TITLE_CHARS)
    return f"{line} (part {position + 1} of {chunks})" if position is not None and (chunks or 0) > 1 else line


def _json(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
