"""Entry points for the knowledge base: search, ChatGPT's search and fetch, images, ingest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..claims import stale
from ..clock import now_iso
from ..errors import ImageNotVisible, InvalidArgument, NotVisible
from ..identity import Identity
from ..kb import image_view as kb_image_view
from ..kb import images as kb_images
from ..kb import ingest as kb_ingest
from ..kb import relevance as kb_relevance
from ..kb import search as kb_search
from ..kb import sources as kb_sources
from ..kb.image_header import is_image_path
from ..kb.render import render_hits
from ..limits import ChunkSettings
from ..links import kinds as link_kinds
from ..links import traverse as link_traversal
from ..output.results import ToolOutput
from .core import ManagerCore, require_text


class KnowledgeBaseMethods(ManagerCore):
    def search_memory(
        self,
        identity: Identity,
        query: str,
        collection: str | None = None,
        max_results: int | None = None,
        *,
        num_hops: int = 0,
        max_linked_results: int = link_kinds.DEFAULT_LINKED,
        include_invalid_results: bool = False,
    ) -> ToolOutput:
        """Handler `search_memory`: hybrid retrieval over the caller's KB chunks, bounded by rows and tokens.

        `include_invalid_results` lets chunks whose lifecycle has ended be direct results
        (labelled historical; deleted ones never); with `num_hops` each chunk shown carries
        its linked memories, ranked results unchanged.
        """
        require_text(query, "query")
        link_traversal.check_bounds(num_hops, max_linked_results)
        asked = self.caps.rows(max_results if max_results is not None else kb_search.DEFAULT_RESULTS)
        budget = self.context_budget(identity)
        floored = kb_relevance.answered(
            self.search_chunks(
                identity, query, collection=collection, limit=asked + 1, include_ended=include_invalid_results
            ),
            budget.relevance_floor,
            lambda h: h.score,
        )
        hits = floored.kept
        notes, images = {}, {}
        linked, linked_more = None, False
        if hits:
            now = now_iso()
            with self.backend.session(identity, now=now) as s:
                images = kb_images.images_of_documents(s, (h.document_id for h in hits), now)
                if any(h.source for h in hits):
                    notes = stale.stale_facts(s, {h.id: [h.source] for h in hits if h.source}, now)
                if num_hops:
                    found = link_traversal.traverse(
                        s,
                        [("knowledge_base_chunk", h.id) for h in hits[:asked]],
                        now,
                        hops=num_hops,
                        limit=max_linked_results,
                    )
                    linked, linked_more = link_traversal.bounded(found, max_linked_results)
        return render_hits(
            hits,
            query=query,
            collection=collection,
            asked=asked,
            max_tokens=self._result_tokens(identity, budget),
            annotations=notes,
            images=images,
            linked=linked,
            linked_more=linked_more,
            cell_chars=self.caps.cell_chars,
            floored=floored,
        )

    def search_chunks(
        self,
        identity: Identity,
        query: str,
        *,
        collection: str | None = None,
        document_id: str | None = None,
        limit: int = 10,
        methods: tuple[str, ...] = kb_search.METHODS,
        include_ended: bool = False,
        exclude_document_id: str | None = None,
    ) -> list[kb_search.SearchHit]:
        """Ranked chunks (lexical, vector or both fused) among those the caller may see; with
        `include_ended` also those whose lifecycle has ended (never deleted ones); without the chunks of
        `exclude_document_id` (left out before fusion, so they scale no other chunk's score)."""
        require_text(query, "query")
        embedder = self.embedder
        with self.backend.session(identity) as s:
            return kb_search.search(
                s,
                embedder,
                query,
                now_iso(),
                limit=limit,
                methods=methods,
                filters=kb_search.SearchFilters(collection, document_id, include_ended, exclude_document_id),
            )

    def search_sources(self, identity: Identity, query: str, *, policy: dict[str, Any] | None = None) -> ToolOutput:
        """Handler `search` (ChatGPT): search_memory's retrieval as `{"results": [{id, title, url}]}`."""
        require_text(query, "query")
        budget = self.context_budget(identity)
        hits = self.search_chunks(identity, query, limit=self.caps.rows(kb_search.DEFAULT_RESULTS))
        hits = kb_relevance.answered(hits, budget.relevance_floor, lambda h: h.score).kept
        with self.backend.session(identity) as s:
            sources = kb_sources.document_sources(s, (h.document_id for h in hits))
        return kb_sources.render_search(
            hits,
            sources,
            public_base=(policy or {}).get("public_links"),
            max_tokens=self._result_tokens(identity, budget),
        )

    def fetch_source(self, identity: Identity, id: str, *, policy: dict[str, Any] | None = None) -> ToolOutput:
        """Handler `fetch` (ChatGPT): a chunk or document the caller can see now, by id, whoever issued it.

        No context window is asked: the wall is the authority. An id that is absent, no longer
        current or another tenant's or user's is the same NotVisible.
        """
        require_text(id, "id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            item = kb_sources.read_item(s, id, now)
            if item is None:
                raise NotVisible(f"{id!r} is no knowledge-base chunk or document this caller can see now")
            used = (
                [(item["source_table"], item["source_id"], int(item["source_version"] or 0))]
                if item["source_id"]
                else []
            )
            notes = stale.stale_facts(s, {id: used}, now) if used else {}
        return kb_sources.render_fetch(
            item,
            public_base=(policy or {}).get("public_links"),
            max_tokens=self._result_tokens(identity),
            stale=notes.get(id, ()),
        )

    def fetch_image(self, identity: Identity, image_id: str) -> ToolOutput:
        """Handler `fetch_image`: an image the caller may read now, by id, with its bytes (within the cap).

        For toolboxes without expand. Like fetch, the wall is the authority: an id that is absent,
        deleted, or another tenant's or user's is the same NotVisible.
        """
        require_text(image_id, "image_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            shown = kb_image_view.show_image(
                s,
                image_id,
                now,
                head={"fetch_image": image_id},
                asked_bytes=True,
                max_image_bytes=self.caps.max_image_bytes,
            )
        if shown is None:
            raise ImageNotVisible(f"{image_id!r} is no image this caller can see now")
        return shown

    def ingest_file(
        self,
        identity: Identity,
        path: str | Path,
        *,
        collection: str = "default",
        user_id: str | None = None,
        agent_id: str | None = None,
        settings: ChunkSettings = ChunkSettings(),
        description: str | None = None,
    ) -> kb_ingest.IngestResult:
        """Parse, chunk, embed and store one file; a no-op when it is unchanged since the last ingest.

        An image file (.png, .jpg, .jpeg, .webp, .gif) is stored with its bytes; what search finds
        is `description` (else a sidecar NAME.txt or NAME.md beside it) plus its file name.
        """
        if is_image_path(path):
            return kb_images.ingest_image(
                lambda: self.backend.session(identity),
                identity,
                path,
                self.embedder,
                now_iso(),
                collection=collection,
                user_id=user_id,
                agent_id=agent_id,
                description=description,
                settings=settings,
                max_bytes=self.kb.max_image_bytes,
            )
        if description is not None:
            raise InvalidArgument(
                f"a description is for image files only; {Path(path).name} is not one",
                field="description",
                hint="Leave --description out for text files.",
            )
        return kb_ingest.ingest_path(
            lambda: self.backend.session(identity),
            identity,
            path,
            self.embedder,
            now_iso(),
            collection=collection,
            user_id=user_id,
            agent_id=agent_id,
            settings=settings,
        )

    def ingest_text(
        self,
        identity: Identity,
        *,
        title: str,
        text: str,
        source_uri: str,
        collection: str = "default",
        mime_type: str = "text/plain",
        user_id: str | None = None,
        agent_id: str | None = None,
        settings: ChunkSettings = ChunkSettings(),
    ) -> kb_ingest.IngestResult:
        """Store already-parsed text as a document (replacing that source's earlier chunks)."""
        require_text(text, "text")
        return kb_ingest.ingest_text(
            lambda: self.backend.session(identity),
            identity,
            self.embedder,
            now_iso(),
            title=title,
            text=text,
            source_uri=source_uri,
            mime_type=mime_type,
            collection=collection,
            user_id=user_id,
            agent_id=agent_id,
            settings=settings,
        )

    def embed_missing(self, identity: Identity) -> int:
        """Embed the tenant's chunks that have no embedding from the current embedder (demo rows)."""
        with self.backend.session(identity) as s, s.transaction():
            return kb_ingest.embed_missing(s, self.embedder)

    def reembed(self, identity: Identity, batch: int = 64) -> Iterator[tuple[int, int]]:
        """Re-embed the tenant's chunks whose embedding is not from the current embedder, `batch` chunks
        per transaction; yields (done, total) after each. Resumable: a chunk stored keeps its new
        embedding, so a run stopped part way and started again does only what is left."""
        with self.backend.session(identity) as s:
            rows = kb_ingest.chunks_to_embed(s, self.embedder)
        yield 0, len(rows)
        for start in range(0, len(rows), batch):
            with self.backend.session(identity) as s, s.transaction():
                kb_ingest.embed_chunks(s, self.embedder, rows[start : start + batch])
            yield min(start + batch, len(rows)), len(rows)
