"""toolbox_memory rows: which tools exist for a caller, and enabling/disabling them.

Disabling closes the active version (valid_until = now); enabling inserts the
next version as a copy of the last. Either way the row's version changes, so a
call that listed the tool before the change is refused when it runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..backend.base import Row, Session
from ..claims.scoping import most_specific_per_key
from ..errors import InvalidArgument, NotFound
from ..identity import Identity
from ..ids import new_id
from .defaults import MEMORY_READ, MEMORY_WRITE, RETIRED_NOTES, RETIRED_SCHEMAS, notes_digest, schema_digest


@dataclass(frozen=True)
class ToolRow:
    id: str
    version: int
    tool_name: str
    tool_schema: dict[str, Any]
    usage_notes: str
    tool_handler: str
    access_policy: dict[str, Any]

    @classmethod
    def from_row(cls, row: Row) -> ToolRow:
        return cls(
            id=row["id"],
            version=row["version"],
            tool_name=row["tool_name"],
            tool_schema=_json(row["tool_schema"], "tool_schema", row["tool_name"]),
            usage_notes=row["usage_notes"],
            tool_handler=row["tool_handler"],
            access_policy=_json(row["access_policy"] or "{}", "access_policy", row["tool_name"]),
        )


def _json(text: str, column: str, tool: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"toolbox row {tool!r}: {column} is not valid JSON", field=column) from exc
    if not isinstance(value, dict):
        raise InvalidArgument(f"toolbox row {tool!r}: {column} must be a JSON object", field=column)
    return value


def active_rows(session: Session, now: str, name: str | None = None) -> list[Row]:
    rows = session.fetch_all("toolbox_active", name=name, now=now)
    return list(most_specific_per_key(rows, "tool_name").values())


#: handlers whose tools only an MCP App view calls: a host keeps them off the model's tool list
#: (toolbox/handlers, HandlerSpec.ui visibility ("app",); a test checks the two agree)
APP_ONLY_HANDLERS = frozenset({"review_candidate"})


def model_tool_rows(session: Session, now: str) -> list[Row]:
    """The active rows whose tools the model sees: a context window's tool surface lists these only."""
    return [r for r in active_rows(session, now) if r["tool_handler"] not in APP_ONLY_HANDLERS]


def all_versions(session: Session, name: str | None = None) -> list[Row]:
    return session.fetch_all("toolbox_versions", name=name)


def _tenant_wide_versions(session: Session, name: str) -> list[Row]:
    return [
        r
        for r in all_versions(session, name)
        if r["user_id"] is None and r["agent_id"] is None and r["thread_id"] is None
    ]


def set_enabled(session: Session, identity: Identity, name: str, enabled: bool, now: str) -> Row:
    """Enable or disable the tenant-wide row of `name`; returns the row now in force."""
    with session.transaction():
        versions = _tenant_wide_versions(session, name)
        if not versions:
            raise NotFound(
                f"no toolbox row named {name!r} for tenant {identity.tenant}",
                hint=f"`memgate tools list -t {identity.tenant}` shows the tenant's tools.",
            )
        latest = versions[0]
        if enabled == _is_active(latest, now):
            return latest
        if not enabled:
            session.execute("toolbox_close", id=latest["id"], now=now)
            return {**latest, "valid_until": now}
        return _insert_next_version(session, identity, latest, now)


def _is_active(row: Row, now: str) -> bool:
    live = row["valid_until"] is None or row["valid_until"] > now
    return live and row["deleted_at"] is None and row["valid_from"] <= now


def _insert_next_version(session: Session, identity: Identity, latest: Row, now: str, **changes: Any) -> Row:
    """Insert the version after `latest`: a copy of it with `changes` applied."""
    row = {k: latest[k] for k in ("tool_name", "tool_schema", "usage_notes", "tool_handler", "access_policy")}
    row.update(changes)
    row.update(
        id=new_id("tool"),
        tenant_id=identity.tenant,
        version=latest["version"] + 1,
        valid_from=now,
        source_table="toolbox_memory",
        source_id=latest["id"],
        source_version=latest["version"],
        created_by=identity.principal,
        created_at=now,
    )
    session.insert("toolbox_memory", row)
    return row


def upgrade_defaults(session: Session, identity: Identity, definitions: list[dict[str, Any]], now: str) -> list[str]:
    """Give the tenant-wide rows still holding a tool_schema or usage_notes an earlier memgate seeded
    (never edited since) the current default's, as their next version; edited parts and the policy stay."""
    upgraded = []
    with session.transaction():
        for d in definitions:
            name = d["tool_name"]
            if name not in RETIRED_SCHEMAS and name not in RETIRED_NOTES:
                continue
            versions = _tenant_wide_versions(session, name)
            latest = versions[0] if versions else None
            if latest is None or not _is_active(latest, now):
                continue
            changes = {}
            if _stored_schema_digest(latest) in RETIRED_SCHEMAS.get(name, ()):
                changes["tool_schema"] = json.dumps(d["tool_schema"], sort_keys=True)
            if notes_digest(latest["usage_notes"] or "") in RETIRED_NOTES.get(name, ()):
                changes["usage_notes"] = d["usage_notes"].strip()
            if not changes:
                continue
            session.execute("toolbox_close", id=latest["id"], now=now)
            _insert_next_version(session, identity, latest, now, **changes)
            upgraded.append(name)
    return upgraded


def _stored_schema_digest(row: Row) -> str | None:
    try:
        schema = json.loads(row["tool_schema"])
    except (TypeError, ValueError):
        return None  # a broken row is the operator's to fix; doctor says why it is refused
    return schema_digest(schema) if isinstance(schema, dict) else None


def put(session: Session, identity: Identity, definition: dict[str, Any], now: str) -> Row:
    """Write `definition` as the tenant-wide row of its name: version 1, or the next version."""
    with session.transaction():
        versions = _tenant_wide_versions(session, definition["tool_name"])
        if not versions:
            return _insert_first_version(session, identity, definition, now, "memgate tools")
        latest = versions[0]
        if _is_active(latest, now):
            session.execute("toolbox_close", id=latest["id"], now=now)
        return _insert_next_version(session, identity, latest, now, **_columns(definition))


def seed(session: Session, identity: Identity, definitions: list[dict[str, Any]], now: str) -> list[str]:
    """Insert the tenant-wide rows whose tool_name the tenant does not have yet.

    `memory_write` is seeded with the tenant's `memory` row in mind: not at all when that row
    already offers its commands (a tenant on the one-tool contract), else with that row's
    store, so both tools see one /memories.
    """
    added = []
    with session.transaction():
        for d in definitions:
            if _tenant_wide_versions(session, d["tool_name"]):
                continue
            if d["tool_name"] == MEMORY_WRITE and d["tool_handler"] == "memory":
                memory = _memory_rows(session, now, MEMORY_READ)
                wanted = _offered_commands(d["tool_schema"], d.get("access_policy", {}))
                if any(_covers(_offered_commands(schema, policy), wanted) for schema, policy in memory):
                    continue
                store = next((p["memory_store"] for _, p in memory if isinstance(p.get("memory_store"), dict)), None)
                if store is not None:
                    d = {**d, "access_policy": {**d.get("access_policy", {}), "memory_store": store}}
            _insert_first_version(session, identity, d, now, "memgate init")
            added.append(d["tool_name"])
    return added


def _memory_rows(session: Session, now: str, name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool_schema, access_policy) of the tenant's active tenant-wide memory-handler row `name`."""
    found = []
    for r in all_versions(session, name):
        if r["tool_handler"] != "memory" or not _is_active(r, now) or r["user_id"] or r["agent_id"] or r["thread_id"]:
            continue
        try:
            schema, policy = json.loads(r["tool_schema"]), json.loads(r["access_policy"] or "{}")
        except (TypeError, ValueError):
            continue
        if isinstance(schema, dict) and isinstance(policy, dict):
            found.append((schema, policy))
    return found


def _offered_commands(schema: dict[str, Any], policy: dict[str, Any]) -> frozenset[str] | None:
    """The memory commands a row offers (its schema's enum, cut by allowed_commands); None: all of them."""
    command = schema.get("properties", {}).get("command", {})
    offered = frozenset(command["enum"]) if isinstance(command, dict) and "enum" in command else None
    allowed = policy.get("allowed_commands")
    if isinstance(allowed, list):
        offered = frozenset(allowed) if offered is None else offered & frozenset(allowed)
    return offered


def _covers(offered: frozenset[str] | None, wanted: frozenset[str] | None) -> bool:
    if offered is None:
        return True
    return wanted is not None and wanted <= offered


def _columns(d: dict[str, Any]) -> dict[str, Any]:
    """A tool definition (config/toolbox.json's form) as the row's columns."""
    return {
        "tool_name": d["tool_name"],
        "tool_schema": json.dumps(d["tool_schema"], sort_keys=True),
        "usage_notes": d["usage_notes"].strip(),
        "tool_handler": d["tool_handler"],
        "access_policy": json.dumps(d.get("access_policy", {}), sort_keys=True),
    }


def _insert_first_version(session: Session, identity: Identity, d: dict[str, Any], now: str, creator: str) -> Row:
    row = {
        **_columns(d),
        "id": new_id("tool"),
        "tenant_id": identity.tenant,
        "version": 1,
        "valid_from": now,
        "created_by": identity.principal or creator,
        "created_at": now,
    }
    session.insert("toolbox_memory", row)
    return row
