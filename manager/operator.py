"""Operator-only access: what reads or writes across tenants and scopes, outside the wall.

`MemoryManager` is what tool handlers call; every one of its methods runs in a session
bound to the caller's tenant and scope. The methods here use `backend.operator_session()`
(base tables with file-system trust, or the Oracle owner), so they live in their own class
that only the operator's CLI (server/cli/) holds: no tool handler can name one of them.
tests/project/test_layout.py keeps it so.

The HTTP server needs four of these lookups before any tenant is known (the tenant a token
speaks for, whether that tenant was ever set up, the scopes toolbox rows require for the public
metadata, the key request state is sealed with). `ServerGate` carries exactly those four and
nothing else; the server holds it, never an `OperatorManager`.
"""

from __future__ import annotations

import json

from .backend.base import Backend, Row
from .backend.retention_store import RowFilter
from .clock import now_iso
from .errors import InvalidArgument, NotFound
from .identity import Identity
from .limits import LEXICAL_MERGE_PAGES
from .registry import server_keys
from .retention.registry import spec
from .tenancy import mapping as tenant_mapping
from .tenancy.mapping import TenantChoice, TenantMapping, TokenAttributes

__all__ = ["OperatorManager", "ServerGate"]

#: the tables whose rows `memgate reembed` embeds, each in its own scope
EMBEDDED_TABLES = ("knowledge_base_chunk", "conversation_recall")
#: row keys read per statement while looking for the scopes that need embedding
_SCOPE_PAGE = 2000


class ServerGate:
    """The lookups a server makes before a tenant is known, and nothing else."""

    def __init__(self, backend: Backend):
        self._backend = backend

    def tenant_for(self, attributes: TokenAttributes, claimed: str | None) -> TenantChoice:
        """The tenant a verified token speaks for; TenantUnmapped or TenantMismatch when there is none."""
        with self._backend.operator_session() as s:
            matches = tenant_mapping.match(s, attributes)
        return tenant_mapping.choose(matches, claimed)

    def tenant_set_up(self, tenant: str) -> bool:
        """Whether `memgate init` set `tenant` up (it has toolbox rows, enabled or not)."""
        with self._backend.operator_session() as s:
            return s.fetch_one("operator_toolbox_versions", tenant=tenant, name=None) is not None

    def required_scopes(self, *, now: str | None = None) -> list[str]:
        """Every scope an active toolbox row of any tenant requires (public protected-resource metadata)."""
        with self._backend.operator_session() as s:
            return [r["scope"] for r in s.fetch_all("operator_toolbox_scopes", now=now or now_iso())]

    def request_state_key(self) -> bytes:
        """The key every server process on this database seals MCP request state with (created once)."""
        return server_keys.shared_key(self._backend, server_keys.REQUEST_STATE_KEY)


class OperatorManager(ServerGate):
    """The operator's commands across tenants and scopes (the `memgate` CLI only)."""

    # -- upkeep -----------------------------------------------------------------------------------
    def merge_lexical_indexes(self, tenant: str, pages: int = LEXICAL_MERGE_PAGES) -> dict[str, str]:
        """Merge the tenant's lexical indexes (`memgate optimize`): index -> what was done."""
        if pages < 1:
            raise InvalidArgument(f"pages must be at least 1, got {pages}", field="pages")
        return self._backend.merge_lexical_indexes(tenant, pages)

    # -- tenants and tenant mapping (the tenant is not known yet) -----------------------------
    def tenants(self) -> list[str]:
        with self._backend.operator_session() as s:
            return [r["tenant_id"] for r in s.fetch_all("operator_tenants")]

    def tenants_set_up(self) -> list[str]:
        """The tenants `memgate init` set up (those with toolbox rows), sorted."""
        return [t for t in self.tenants() if self.tenant_set_up(t)]

    def map_tenant(
        self,
        kind: str,
        value: str,
        tenant: str,
        *,
        issuer: str | None = None,
        user: str | None = None,
        note: str | None = None,
        created_by: str | None = None,
    ) -> TenantMapping:
        """Add (or replace) the mapping of one verified attribute to a tenant and optional user."""
        with self._backend.operator_session() as s:
            return tenant_mapping.put(
                s, kind, value, tenant, issuer=issuer, user=user, note=note, created_by=created_by
            )

    def unmap_tenant(self, kind: str, value: str, *, issuer: str | None = None) -> TenantMapping:
        with self._backend.operator_session() as s:
            return tenant_mapping.delete(s, kind, value, issuer)

    def tenant_mappings(self, tenant: str | None = None) -> list[TenantMapping]:
        with self._backend.operator_session() as s:
            return tenant_mapping.listing(s, tenant)

    # -- one tenant's rows, whatever their scope ------------------------------------------------
    def recent_calls(
        self, *, tenant: str | None = None, tool: str | None = None, status: str | None = None, limit: int = 20
    ) -> list[Row]:
        """mcp_call_log rows across tenants (or of one), newest first."""
        with self._backend.operator_session() as s:
            rows, _ = s.fetch_page("operator_calllog_recent", limit, tenant=tenant, tool=tool, status=status)
            return rows

    def tool_versions(self, tenant: str, name: str | None = None) -> list[Row]:
        """Every version of every toolbox row of `tenant`, whatever its scope."""
        with self._backend.operator_session() as s:
            return s.fetch_all("operator_toolbox_versions", tenant=tenant, name=name)

    def memory_stores(self, tenant: str) -> list[Row]:
        """Every memory store of `tenant`, whatever its scope, with file counts."""
        with self._backend.operator_session() as s:
            return s.fetch_all("operator_memory_store_list", tenant=tenant)

    def context_manifests(self, tenant: str, limit: int = 20) -> list[Row]:
        """The tenant's latest manifests, whoever assembled them."""
        with self._backend.operator_session() as s:
            rows, _ = s.fetch_page("operator_context_manifests", limit, tenant=tenant)
            return rows

    def context_owner(self, tenant: str, manifest_id: str) -> Identity:
        """The identity a manifest was assembled for, to show or replay it in that scope."""
        with self._backend.operator_session() as s:
            row = s.fetch_one("operator_context_manifest", tenant=tenant, id=manifest_id)
        if row is None:
            raise NotFound(
                f"tenant {tenant} has no context manifest {manifest_id}",
                hint=f"List them with `memgate manifest ls -t {tenant}`.",
            )
        return Identity(
            tenant=tenant,
            user=row["user_id"],
            agent=row["agent_id"],
            thread=row["thread_id"],
            session=row["session_id"],
            principal="cli:operator",
        )

    def scopes_to_embed(self, tenant: str, model: str) -> list[Identity]:
        """One identity per (user, agent, thread) scope of `tenant` holding chunks or recall rows with no
        embedding of `model`, the shared scope first: `memgate reembed` embeds each scope as that
        identity, through the wall. It reads what `memgate expire` reads (the retention store, the
        tenant's rows whatever their scope), row keys and scope columns only, never content."""
        found: set[tuple[str | None, str | None, str | None]] = set()
        with self._backend.retention_store(tenant) as store:
            for table in EMBEDDED_TABLES:
                after: str | None = None
                shape = spec(table).shape()
                # the wall's statements (kb_chunks_without_embedding, recall_unembedded) read the same rows:
                # the embedding and its model are written together and cleared together
                while rows := store.select(
                    shape, RowFilter(not_equals=(("embedding_model", model),), after=after), _SCOPE_PAGE
                ):
                    found.update((r["user_id"], r["agent_id"], r["thread_id"]) for r in rows)
                    after = str(rows[-1]["row_key"])
        ordered = sorted(found, key=lambda scope: [(v is not None, v or "") for v in scope])
        return [Identity(tenant=tenant, user=u, agent=a, thread=t, principal="cli:operator") for u, a, t in ordered]


def rows_in_tenant(backend: Backend, tenant: str, ids: list[str]) -> dict[str, Row]:
    """Which of `ids` are rows of `tenant` at all, whatever their scope: replay's one operator read,
    telling a dependency that is gone ("deleted") from one the caller's wall now hides
    ("not authorized"). It returns ids and lifecycle columns, never a row's content."""
    with backend.operator_session() as s:
        return {r["id"]: r for r in s.fetch_all("operator_context_rows", tenant=tenant, ids=json.dumps(ids))}
