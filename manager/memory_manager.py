"""The Memory Manager: the single entry point to memory.

Every public method takes the caller's trusted Identity, checks out a session
bound to that identity's tenant context, does one job, and returns. Methods that
serve a tool return a ToolOutput: compact text, capped, cited, and saying when
more exists. The manager knows nothing of MCP.
"""

from __future__ import annotations

from typing import Any

from . import calllog, entities, guidelines, toolbox_store
from .backend.base import Backend, Row
from .caps import CapsSettings
from .calllog import CallRecord
from .clock import now_iso
from .entities import ClaimLookup
from .errors import InvalidArgument
from .identity import Identity
from .memory_caps import MemoryFileSettings
from .memory_files import MemoryFiles
from .memory_stores import resolve_store, store_from_key
from .records import memory_record, metadata_line
from .results import ToolOutput
from .tokens import count_tokens


class MemoryManager:
    def __init__(self, backend: Backend, caps: CapsSettings | None = None,
                 memory_files: MemoryFileSettings | None = None):
        self.backend = backend
        self.caps = caps or CapsSettings()
        self.memory_files = memory_files or MemoryFileSettings()

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
            return entities.lookup(s, identity, subject, predicate, now or now_iso(), self.caps.max_rows)

    def lookup_entity(self, identity: Identity, subject: str, predicate: str | None = None,
                      include_history: bool = True) -> ToolOutput:
        """Handler `lookup_entity`: the current version of a claim and its labeled history."""
        _require_text(subject, "subject")
        claims, more = self.lookup_claims(identity, subject, predicate)
        if not claims:
            what = f"{subject} {predicate}" if predicate else subject
            text = metadata_line(entity=what, claims=0) + "\nNo claim is recorded for this subject."
            return ToolOutput(text=text, tokens=count_tokens(text))
        records, cited, shown, history_cut = [], [], 0, more
        for claim in claims:
            versions = ([claim.current] if claim.current else [])
            if include_history:
                history = claim.history[: self.caps.history_rows]
                history_cut = history_cut or len(claim.history) > len(history)
                versions += history
            for v in versions:
                records.append(self._claim_record(v))
                cited.append(v.id)
                shown += 1
        body = "\n".join(records)
        head = metadata_line(
            entity=f"{subject} {predicate}" if predicate else subject,
            claims=len(claims), versions_shown=shown,
            more_exist="yes" if history_cut else "no", tokens=count_tokens(body))
        text = f"{head}\n{body}"
        return ToolOutput(text=text, rows=shown, truncated=history_cut,
                          tokens=count_tokens(text), cited_ids=tuple(cited))

    def _claim_record(self, v: entities.ClaimVersion) -> str:
        r = v.row
        body = r["content"]
        if r["content_json"]:
            body += f"\nconditions: {r['content_json']}"
        return memory_record(
            body, id=r["id"], type="entity", status=v.status, version=r["version"],
            subject=r["subject"], predicate=r["predicate"], confidence=r["confidence"],
            valid_from=r["valid_from"], valid_until=r["valid_until"], deleted_at=r["deleted_at"],
            replaces=r["source_id"] if r["source_table"] == "entity_memory" else None,
            cell_chars=self.caps.cell_chars)

    def correct_entity(self, identity: Identity, subject: str, predicate: str, content: str, *,
                       content_json: Any = None, confidence: float | None = None,
                       expected_version: int | None = None, user_id: str | None = None,
                       agent_id: str | None = None, thread_id: str | None = None) -> Row:
        """Record a claim, or its next version if one exists (never an in-place edit)."""
        _require_text(content, "content")
        with self.backend.session(identity) as s:
            return entities.correct(
                s, identity, subject=subject, predicate=predicate, content=content, now=now_iso(),
                content_json=content_json, confidence=confidence, expected_version=expected_version,
                user_id=user_id, agent_id=agent_id, thread_id=thread_id)

    # -- guidelines and persona -------------------------------------------
    def guidelines(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_guidelines(s, identity, now_iso(), key)

    def context_budget(self, identity: Identity) -> dict[str, Any]:
        return guidelines.guideline_json(self.guidelines(identity, "context_budget").get("context_budget")) or {}

    def personas(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_personas(s, identity, now_iso(), key)

    # -- toolbox rows ------------------------------------------------------
    def active_tools(self, identity: Identity, name: str | None = None) -> list[Row]:
        with self.backend.session(identity) as s:
            return toolbox_store.active_rows(s, identity, now_iso(), name)

    def tool_versions(self, identity: Identity, name: str | None = None) -> list[Row]:
        with self.backend.session(identity) as s:
            return toolbox_store.all_versions(s, name)

    def set_tool_enabled(self, identity: Identity, name: str, enabled: bool) -> Row:
        with self.backend.session(identity) as s:
            return toolbox_store.set_enabled(s, identity, name, enabled, now_iso())

    def seed_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        with self.backend.session(identity) as s:
            return toolbox_store.seed(s, identity, definitions, now_iso())

    # -- execute_query (issue 4): methods go here ---------------------------

    # -- memory files (issue 5): methods go here ----------------------------
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

    def memory_stores(self, identity: Identity) -> list[Row]:
        """The tenant's memory stores with file counts (operator CLI)."""
        with self.backend.session(identity) as s:
            return s.fetch_all("memory_store_list")

    def memory_store_files(self, identity: Identity, store_key: str) -> Any:
        """Operator access to one store by key (`agent:research-assistant`): use as a context manager."""
        return _StoreAdmin(self, identity, store_key)

    # -- knowledge base search and ingestion (issue 6): methods go here ----

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


class _StoreAdmin:
    """`with manager.memory_store_files(identity, key) as files:` gives a MemoryFiles on one session."""

    def __init__(self, manager: MemoryManager, identity: Identity, store_key: str):
        self._store = store_from_key(store_key)
        self._manager, self._identity = manager, identity
        self._session: Any = None

    def __enter__(self) -> MemoryFiles:
        self._session = self._manager.backend.session(self._identity)
        s = self._session.__enter__()
        return MemoryFiles(s, self._identity, self._store, self._manager.memory_files, now_iso())

    def __exit__(self, *exc: Any) -> None:
        self._session.__exit__(*exc)


def _require_text(value: Any, field: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a non-empty string", field=field)


