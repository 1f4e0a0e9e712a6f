"""search_memory results: at most `asked` chunk records, best first, within the token budget."""

from __future__ import annotations

from collections.abc import Mapping

from ..backend.base import Row
from ..links.render import fit_linked
from ..links.traverse import Linked
from ..output.budget import clip_to_fit, fit_records
from ..output.records import StaleFact, clip, escape_body, memory_record, metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .image_view import image_attributes, image_body
from .relevance import Floored
from .search import SearchHit

__all__ = ["render_hits"]


def render_hits(
    hits: list[SearchHit],
    *,
    query: str,
    collection: str | None,
    max_tokens: int,
    asked: int,
    annotations: Mapping[str, tuple[StaleFact, ...]] | None = None,
    images: Mapping[str, Row] | None = None,
    linked: Mapping[str, list[Linked]] | None = None,
    linked_more: bool = False,
    cell_chars: int = 500,
    floored: Floored | None = None,
) -> ToolOutput:
    """At most `asked` records best first, as many as fit in `max_tokens` (head included).

    `hits` may hold one more than `asked`: that extra hit only says "more exist". A record
    whose text appeared more than once says how many copies it stands for (`folded=N`). Chunk
    text is bounded by tokens here (and at ingest), not clipped at the cell limit: a
    search result is read as passages, not as table cells. `annotations` are the stale
    facts a chunk used (its provenance names a since-corrected claim version). `images` are the
    images whose descriptions are documents, by document id: a hit on one is shown as the image
    (type="image", its numbers and description, never its bytes), once however many of its
    chunks matched. `linked` (when the call asked for hops) holds each chunk's linked results,
    each clipped at `cell_chars`: they follow their chunk, in the tokens the chunks leave;
    `linked_more` says a chunk had more than max_linked_results. `floored` is what the tenant's
    relevance floor did: when it left every passage out, the metadata line says so and how close the
    best came, so a model can ask instead of answering from nothing.
    """
    notes = annotations or {}
    images = images or {}
    hits = _once_per_image(hits, images)
    more_rows = len(hits) > asked
    hits = hits[:asked]

    hops = linked is not None

    def head_of(n: int, more: bool, tokens: int, n_linked: int | None = None) -> str:
        return metadata_line(
            search=_one_line(query),
            collection=collection,
            results=n
            if not (floored and floored.nothing)
            else f"0 (no passage reaches the relevance floor; closest: {floored.closest:.2f})",
            relevance_floor=f"{floored.floor:.2f}" if floored and floored.below else None,
            linked=n_linked,
            more_exist="yes" if more else "no",
            tokens=tokens,
            budget=f"{max_tokens} tokens",
        )

    if not hits:
        body = (
            "Nothing in the knowledge base is relevant enough to show: ask the user, or search for something else."
            if floored and floored.nothing
            else "No knowledge-base chunk matches this query."
        )
        text = with_token_count(lambda tokens: head_of(0, False, tokens), body)
        return ToolOutput(text=text, tokens=count_tokens(text), structured={"results": []})
    reserve = count_tokens(head_of(len(hits), True, 99_999, 999 if hops else None)) + 1

    def build(hit: SearchHit, content: str, clipped: bool) -> str:
        image = images.get(hit.document_id)
        if image is not None:
            return _build_image(hit, image, content, clipped)
        return _build(hit, content, clipped, notes.get(hit.id, ()))

    def text_of(hit: SearchHit) -> str:
        image = images.get(hit.document_id)
        return hit.content if image is None else image["description"] or ""

    records = fit_records(
        hits,
        lambda hit: build(hit, text_of(hit), False),
        max_tokens,
        reserve=reserve,
        clip_first=lambda hit, left: clip_to_fit(text_of(hit), lambda c: build(hit, c, True), left),
    )
    shown = hits[: len(records)]
    groups = [(linked or {}).get(h.id, []) for h in shown]
    left = max_tokens - reserve - sum(count_tokens(r) + 1 for r in records)
    attached = fit_linked(groups, cell_chars, left, frozenset(_shown_id(h, images) for h in shown))
    more = (
        more_rows or linked_more or len(records) < len(hits) or any(len(a) < len(g) for a, g in zip(attached, groups))
    )
    n_linked = sum(len(a) for a in attached) if hops else None
    body = "\n".join(line for record, extra in zip(records, attached) for line in (record, *extra))
    text = with_token_count(lambda tokens: head_of(len(records), more, tokens, n_linked), body or None)
    results = [
        _with_linked(_as_dict(h, images.get(h.document_id)), group[: len(extra)])
        for h, group, extra in zip(shown, groups, attached)
    ]
    cited = tuple(_shown_id(h, images) for h in shown) + tuple(
        item.id for group, extra in zip(groups, attached) for item in group[: len(extra)]
    )
    return ToolOutput(
        text=text,
        rows=len(records),
        truncated=more,
        tokens=count_tokens(text),
        cited_ids=cited,
        structured={"results": results},
    )


def _with_linked(found: dict, linked: list[Linked]) -> dict:
    return {**found, "linked": [item.as_json() for item in linked]} if linked else found


def _once_per_image(hits: list[SearchHit], images: Mapping[str, Row]) -> list[SearchHit]:
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.document_id in images:
            if hit.document_id in seen:
                continue
            seen.add(hit.document_id)
        kept.append(hit)
    return kept


def _shown_id(hit: SearchHit, images: Mapping[str, Row]) -> str:
    image = images.get(hit.document_id)
    return hit.id if image is None else image["id"]


def _build_image(hit: SearchHit, image: Row, description: str, clipped: bool) -> str:
    body = image_body(image, description)
    return memory_record(
        body,
        id=image["id"],
        type="image",
        status="evidence",
        document=hit.document_id,
        collection=hit.collection,
        **image_attributes(image),
        score=f"{hit.score:.4f}",
        lexical_rank=hit.lexical_rank,
        vector_rank=hit.vector_rank,
        cosine=None if hit.cosine is None else f"{hit.cosine:.3f}",
        clipped="yes" if clipped else None,
        cell_chars=len(body),
    )


def _build(hit: SearchHit, content: str, clipped: bool, annotations: tuple[StaleFact, ...]) -> str:
    body = f"title: {_one_line(hit.title)}\n{content}"
    return memory_record(
        body,
        id=hit.id,
        type="kb_chunk",
        status="historical" if annotations or hit.ended else "evidence",
        document=hit.document_id,
        collection=hit.collection,
        position=hit.position,
        chunks=hit.chunk_count,
        tokens=hit.token_count,
        score=f"{hit.score:.4f}",
        lexical_rank=hit.lexical_rank,
        vector_rank=hit.vector_rank,
        cosine=None if hit.cosine is None else f"{hit.cosine:.3f}",
        folded=hit.folded or None,
        clipped="yes" if clipped else None,
        cell_chars=len(body),
        annotations=annotations,
    )


def _one_line(text: str) -> str:
    return escape_body(clip(" ".join(text.split()), 120))


def _as_dict(hit: SearchHit, image: Row | None = None) -> dict:
    if image is not None:
        return {
            "id": image["id"],
            "type": "image",
            "document_id": hit.document_id,
            "title": image["title"],
            "collection": hit.collection,
            "mime_type": image["mime_type"],
            "width": image["width"],
            "height": image["height"],
            "bytes": image["byte_size"],
            "score": hit.score,
            "lexical_rank": hit.lexical_rank,
            "vector_rank": hit.vector_rank,
            "cosine": hit.cosine,
        }
    return {
        "id": hit.id,
        "document_id": hit.document_id,
        "title": hit.title,
        "collection": hit.collection,
        "position": hit.position,
        "chunks": hit.chunk_count,
        "tokens": hit.token_count,
        "score": hit.score,
        "lexical_rank": hit.lexical_rank,
        "vector_rank": hit.vector_rank,
        "cosine": hit.cosine,
        "folded": hit.folded,
    }
