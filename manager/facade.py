"""The Memory Manager facade: the single entry point to memory.

Every public method takes the caller's trusted Identity, checks out a session bound
to that identity's tenant context, does one job through one capability folder, and
returns. Methods that serve a tool return a ToolOutput: compact text, capped, cited,
and saying when more exists. The manager knows nothing of MCP.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

from .backend.base import Backend, Row
from .claims import entities, guidelines
from .claims.entities import ClaimLookup
from .claims.render import render_claims
from .clock import now_iso
from .errors import InvalidArgument
from .files.commands import MemoryFiles, open_store
from .files.stores import resolve_store, store_from_key
from .identity import Identity
from .kb import ingest as kb_ingest
from .kb import search as kb_search
from .kb.embed import Embedder, default_embedder
from .kb.render import render_hits
from .limits import CapsSettings, ChunkSettings, ContextBudget, MemoryFileSettings
from .output.results import ToolOutput
from .query import execute as query_run
from .registry import calllog
from .registry import toolbox as toolbox_rows
from .registry.calllog import CallRecord
from .tenancy import mapping as tenant_mapping
from .tenancy.mapping import TenantChoice, TenantMapping, TokenAttributes


class MemoryManager:
    def __init__(self, backend: Backend, caps: CapsSettings | None = None,
                 memory_files: MemoryFileSettings | None = None, *, embedder: Embedder | None = None):
        self.backend = backend
        self.caps = caps or CapsSettings()
        self.memory_files = memory_files or MemoryFileSettings()
        self._embedder = embedder  # None: the default embedder, loaded on first use

    # -- schema and lifecycle --------------------------------------------
    def migrate(self) -> tuple[int, int]:
        return self.backend.migrate()

    def check_schema(self) -> None:
        self.backend.check_schema()

    def describe(self) -> dict[str, Any]:
        return self.backend.describe()

    def close(self) -> None:
        self.backend.close()

    # -- entity claims -----------------------------------------------------
    def lookup_claims(self, identity: Identity, subject: str, predicate: str | None = None,
                      *, now: str | None = None) -> tuple[list[ClaimLookup], bool]:
        with self.backend.session(identity) as s:
            return entities.lookup(s, subject, predicate, now or now_iso(), self.caps.max_rows)

    def lookup_entity(self, identity: Identity, subject: str, predicate: str | None = None,
                      include_history: bool = True) -> ToolOutput:
        """Handler `lookup_entity`: the current version of a claim and its labeled history."""
        _require_text(subject, "subject")
        claims, more = self.lookup_claims(identity, subject, predicate)
        return render_claims(claims, subject=subject, predicate=predicate, include_history=include_history,
                             more=more, history_rows=self.caps.history_rows, cell_chars=self.caps.cell_chars,
                             max_tokens=self.context_budget(identity).max_tool_result_tokens)

    def correct_entity(self, identity: Identity, subject: str, predicate: str, content: str, *,
                       content_json: Any = None, confidence: float | None = None,
                       expected_version: int | None = None, user_id: str | None = None,
                       agent_id: str | None = None, thread_id: str | None = None) -> Row:
        """Record a claim, or its next version if one exists (never an in-place edit)."""
        _require_text(content, "content")
        if content_json is not None and not isinstance(content_json, dict):
            raise InvalidArgument(f"conditions must be a JSON object, got {type(content_json).__name__}: "
                                  f"{content_json!r:.80}", field="content_json")
        with self.backend.session(identity) as s:
            return entities.correct(
                s, identity, subject=subject, predicate=predicate, content=content, now=now_iso(),
                content_json=content_json, confidence=confidence, expected_version=expected_version,
                user_id=user_id, agent_id=agent_id, thread_id=thread_id)

    # -- guidelines and persona -------------------------------------------
    def guidelines(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_guidelines(s, now_iso(), key)

    def context_budget(self, identity: Identity) -> ContextBudget:
        """The tenant's `context_budget` guideline, typed (defaults when it has none)."""
        row = self.guidelines(identity, "context_budget").get("context_budget")
        return ContextBudget.from_guideline(guidelines.guideline_json(row))

    def personas(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_personas(s, now_iso(), key)

    # -- toolbox rows ------------------------------------------------------
    def active_tools(self, identity: Identity, name: str | None = None) -> list[Row]:
        with self.backend.session(identity) as s:
            return toolbox_rows.active_rows(s, now_iso(), name)

    def operator_tool_versions(self, tenant: str, name: str | None = None) -> list[Row]:
        """Every version of every toolbox row of `tenant`, whatever its scope (operator CLI only)."""
        with self.backend.operator_session() as s:
            return s.fetch_all("operator_toolbox_versions", tenant=tenant, name=name)

    def set_tool_enabled(self, identity: Identity, name: str, enabled: bool) -> Row:
        with self.backend.session(identity) as s:
            return toolbox_rows.set_enabled(s, identity, name, enabled, now_iso())

    def seed_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        with self.backend.session(identity) as s:
            return toolbox_rows.seed(s, identity, definitions, now_iso())

    def upgrade_default_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        """Move rows still on a schema an earlier release seeded to the current default; returns their names."""
        with self.backend.session(identity) as s:
            return toolbox_rows.upgrade_defaults(s, identity, definitions, now_iso())

    # -- execute_query -----------------------------------------------------
    def execute_query(self, identity: Identity, query: str, max_rows: int | None = None) -> ToolOutput:
        """Handler `execute_query`: one read-only SELECT over the reviewed views of the caller's current rows."""
        return query_run.execute_query(self.backend, self.caps, identity, query, max_rows, now_iso())

    def query_views_help(self) -> str:
        """The reviewed views and their columns, read from the catalog: execute_query's description."""
        return query_run.describe_views(self.backend.query_catalog(), self.backend.query_dialect, self.caps)

    # -- memory files ------------------------------------------------------
    def memory(self, identity: Identity, command: str, *, policy: dict[str, Any] | None = None,
               **params: Any) -> ToolOutput:
        """Handler `memory`: one memory-tool command on the store the row's policy selects.

        The store is resolved before any read, so an unresolvable one fails the call as a
        server error (ConfigError) instead of showing the model an empty /memories.
        """
        store = resolve_store(identity, policy)
        allowed = (policy or {}).get("allowed_commands")
        with self.backend.session(identity) as s:
            return MemoryFiles(s, identity, store, self.memory_files, now_iso()).run(command, params, allowed)

    def operator_memory_stores(self, tenant: str) -> list[Row]:
        """Every memory store of `tenant`, whatever its scope, with file counts (operator CLI only)."""
        with self.backend.operator_session() as s:
            return s.fetch_all("operator_memory_store_list", tenant=tenant)

    def memory_store_files(self, identity: Identity, store_key: str) -> AbstractContextManager[MemoryFiles]:
        """Operator access to one store by key: `with manager.memory_store_files(op, "global") as files:`.

        The session acts as the store's owner, the scope its key names (user:jane acts as
        jane, agent:NAME as that agent, session:THREAD in that thread), because the wall
        shows a store and its files only in that scope.
        """
        store = store_from_key(store_key)
        owner = replace(identity, user=store.user_id, agent=store.agent_id, thread=store.thread_id)
        return open_store(self.backend, owner, store, self.memory_files)

    # -- knowledge base search and ingestion --------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.backend.database_embedder() or default_embedder()
        return self._embedder

    def search_memory(self, identity: Identity, query: str, collection: str | None = None,
                      max_results: int | None = None) -> ToolOutput:
        """Handler `search_memory`: hybrid retrieval over the caller's KB chunks, bounded by rows and tokens."""
        _require_text(query, "query")
        asked = self.caps.rows(max_results if max_results is not None else kb_search.DEFAULT_RESULTS)
        hits = self.search_chunks(identity, query, collection=collection, limit=asked + 1)
        return render_hits(hits, query=query, collection=collection, asked=asked,
                           max_tokens=self.context_budget(identity).max_tool_result_tokens)

    def search_chunks(self, identity: Identity, query: str, *, collection: str | None = None,
                      document_id: str | None = None, limit: int = 10,
                      methods: tuple[str, ...] = kb_search.METHODS) -> list[kb_search.SearchHit]:
        """Ranked chunks (lexical, vector or both fused) among those the caller may see."""
        _require_text(query, "query")
        embedder = self.embedder
        with self.backend.session(identity) as s:
            return kb_search.search(s, embedder, query, now_iso(), limit=limit, methods=methods,
                                    filters=kb_search.SearchFilters(collection, document_id))

    def ingest_file(self, identity: Identity, path: str | Path, *, collection: str = "default",
                    user_id: str | None = None, agent_id: str | None = None,
                    settings: ChunkSettings = ChunkSettings()) -> kb_ingest.IngestResult:
        """Parse, chunk, embed and store one file; a no-op when it is unchanged since the last ingest."""
        return kb_ingest.ingest_path(lambda: self.backend.session(identity), identity, path, self.embedder,
                                     now_iso(), collection=collection, user_id=user_id, agent_id=agent_id,
                                     settings=settings)

    def ingest_text(self, identity: Identity, *, title: str, text: str, source_uri: str,
                    collection: str = "default", mime_type: str = "text/plain",
                    user_id: str | None = None, agent_id: str | None = None,
                    settings: ChunkSettings = ChunkSettings()) -> kb_ingest.IngestResult:
        """Store already-parsed text as a document (replacing that source's earlier chunks)."""
        _require_text(text, "text")
        return kb_ingest.ingest_text(lambda: self.backend.session(identity), identity, self.embedder,
                                     now_iso(), title=title, text=text, source_uri=source_uri,
                                     mime_type=mime_type, collection=collection, user_id=user_id,
                                     agent_id=agent_id, settings=settings)

    def embed_missing(self, identity: Identity) -> int:
        """Embed the tenant's chunks that have no embedding from the current embedder (demo rows)."""
        with self.backend.session(identity) as s, s.transaction():
            return kb_ingest.embed_missing(s, self.embedder)

    # -- call log ----------------------------------------------------------
    def log_call(self, identity: Identity, record: CallRecord) -> None:
        """Write the call's mcp_call_log row in its own session, after the call's own work."""
        with self.backend.session(identity) as s:
            calllog.write(s, identity, record, self.caps.result_log_chars)

    def recent_calls(self, identity: Identity, *, tool: str | None = None, status: str | None = None,
                     limit: int = 20) -> list[Row]:
        with self.backend.session(identity) as s:
            rows, _ = s.fetch_page("calllog_recent", limit, tool=tool, status=status)
            return rows

    def operator_recent_calls(self, *, tenant: str | None = None, tool: str | None = None,
                              status: str | None = None, limit: int = 20) -> list[Row]:
        """Across tenants: for the operator's CLI only, never reachable from a tool."""
        with self.backend.operator_session() as s:
            rows, _ = s.fetch_page("operator_calllog_recent", limit, tenant=tenant, tool=tool, status=status)
            return rows

    def operator_tenants(self) -> list[str]:
        with self.backend.operator_session() as s:
            return [r["tenant_id"] for r in s.fetch_all("operator_tenants")]

    def operator_required_scopes(self, *, now: str | None = None) -> list[str]:
        """Every scope an active toolbox row of any tenant requires (public protected-resource metadata)."""
        with self.backend.operator_session() as s:
            return [r["scope"] for r in s.fetch_all("operator_toolbox_scopes", now=now or now_iso())]

    # -- tenant mapping (operator path: the tenant is not known yet) ------------
    def operator_tenant_for(self, attributes: TokenAttributes, claimed: str | None) -> TenantChoice:
        """The tenant a verified token speaks for; TenantUnmapped or TenantMismatch when there is none."""
        with self.backend.operator_session() as s:
            matches = tenant_mapping.match(s, attributes)
        return tenant_mapping.choose(matches, claimed)

    def operator_map_tenant(self, kind: str, value: str, tenant: str, *, issuer: str | None = None,
                            user: str | None = None, note: str | None = None,
                            created_by: str | None = None) -> TenantMapping:
        """Add (or replace) the mapping of one verified attribute to a tenant and optional user."""
        with self.backend.operator_session() as s:
            return tenant_mapping.put(s, kind, value, tenant, issuer=issuer, user=user, note=note,
                                      created_by=created_by)

    def operator_unmap_tenant(self, kind: str, value: str, *, issuer: str | None = None) -> TenantMapping:
        with self.backend.operator_session() as s:
            return tenant_mapping.delete(s, kind, value, issuer)

    def operator_tenant_mappings(self, tenant: str | None = None) -> list[TenantMapping]:
        with self.backend.operator_session() as s:
            return tenant_mapping.listing(s, tenant)


def _require_text(value: Any, field: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a non-empty string", field=field)
