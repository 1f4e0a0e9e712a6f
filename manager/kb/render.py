"""search_memory results: at most `asked` chunk records, best first, within the token budget."""

from __future__ import annotations

from collections.abc import Mapping

from ..output.budget import clip_to_fit, fit_records
from ..output.records import StaleFact, clip, escape_body, memory_record, metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .search import SearchHit

__all__ = ["render_hits"]


def render_hits(hits: list[SearchHit], *, query: str, collection: str | None, max_tokens: int,
                asked: int, annotations: Mapping[str, tuple[StaleFact, ...]] | None = None) -> ToolOutput:
    """At most `asked` records best first, as many as fit in `max_tokens` (head included).

    `hits` may hold one more than `asked`: that extra hit only says "more exist". A record
    whose text appeared more than once says how many copies it stands for (`folded=N`). Chunk
    text is bounded by tokens here (and at ingest), not clipped at the cell limit: a
    search result is read as passages, not as table cells. `annotations` are the stale
    facts a chunk used (its provenance names a since-corrected claim version).
    """
    notes = annotations or {}
    more_rows = len(hits) > asked
    hits = hits[:asked]

    def head_of(n: int, more: bool, tokens: int) -> str:
        return metadata_line(search=_one_line(query), collection=collection, results=n,
                             more_exist="yes" if more else "no", tokens=tokens, budget=f"{max_tokens} tokens")

    if not hits:
        text = with_token_count(lambda tokens: head_of(0, False, tokens), "No knowledge-base chunk matches this query.")
        return ToolOutput(text=text, tokens=count_tokens(text), structured={"results": []})
    reserve = count_tokens(head_of(len(hits), True, 99_999)) + 1
    records = fit_records(hits, lambda hit: _build(hit, hit.content, False, notes.get(hit.id, ())), max_tokens,
                          reserve=reserve,
                          clip_first=lambda hit, left: clip_to_fit(
                              hit.content, lambda c: _build(hit, c, True, notes.get(hit.id, ())), left))
    shown = hits[: len(records)]
    more = more_rows or len(records) < len(hits)
    text = with_token_count(lambda tokens: head_of(len(records), more, tokens), "\n".join(records) or None)
    return ToolOutput(text=text, rows=len(records), truncated=more,
                      tokens=count_tokens(text), cited_ids=tuple(h.id for h in shown),
                      structured={"results": [_as_dict(h) for h in shown]})


def _build(hit: SearchHit, content: str, clipped: bool, annotations: tuple[StaleFact, ...]) -> str:
    body = f"title: {_one_line(hit.title)}\n{content}"
    return memory_record(
        body, id=hit.id, type="kb_chunk", status="historical" if annotations else "evidence",
        document=hit.document_id, collection=hit.collection,
        position=hit.position, chunks=hit.chunk_count, tokens=hit.token_count, score=f"{hit.score:.4f}",
        lexical_rank=hit.lexical_rank, vector_rank=hit.vector_rank,
        cosine=None if hit.cosine is None else f"{hit.cosine:.3f}", folded=hit.folded or None,
        clipped="yes" if clipped else None, cell_chars=len(body), annotations=annotations)


def _one_line(text: str) -> str:
    return escape_body(clip(" ".join(text.split()), 120))


def _as_dict(hit: SearchHit) -> dict:
    return {"id": hit.id, "document_id": hit.document_id, "title": hit.title, "collection": hit.collection,
            "position": hit.position, "chunks": hit.chunk_count, "tokens": hit.token_count,
            "score": hit.score, "lexical_rank": hit.lexical_rank, "vector_rank": hit.vector_rank,
            "cosine": hit.cosine, "folded": hit.folded}
