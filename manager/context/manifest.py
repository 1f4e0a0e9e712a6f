"""The manifest: exactly what a window holds and leaves out, written as a thread event.

One `context_manifest` row in conversation_memory per assembled window, stamped with
the caller's user, agent and thread (so the wall shows it to that caller only) and the
server session when there is no thread. Its content is the window text; its
content_json is the manifest:

- manifest_id, evaluated_at (the assembly's one timestamp), intent;
- change_marker: what the database held when it was read: on every backend the row versions
  read, every one, and their sha256, with the backend's own `kind` (Session.change_marker;
  Oracle adds the SCN, SQLite has no change number);
- renderer_version, selection_version (with the reranker's name);
- budget_ref (guideline_memory, row id, version) of the budget used, and its values;
- arithmetic: reserves, available, fixed slice costs, remainder, allowances, what
  overflow granted, what each slice used;
- request and request_hash (sha256 of the canonical JSON of the request), window_hash
  (sha256 of the text) and window_tokens;
- memories: ref (table, id, version), type, slice, tier, tokens, status, score and any
  stale-fact annotation; exclusions: ref, type, slice, rule, detail;
- limits for what follows the window: max_rounds, tool_reserve, max_tool_result_tokens.
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Session
from ..conversations.hashing import canonical, sha256
from ..conversations.turns import request_of
from ..errors import NotFound
from ..identity import Identity
from ..output.records import StaleFact

__all__ = ["canonical", "note_json", "note_of", "read", "ref_json", "request_of", "sha256", "write"]

EVENT = "context_manifest"


def ref_json(ref: tuple[str, str, int]) -> dict[str, Any]:
    return {"table": ref[0], "id": ref[1], "version": ref[2]}


def note_json(note: StaleFact) -> dict[str, Any]:
    return {
        "current_fact_id": note.current_fact_id,
        "current": note.current,
        "used": ref_json(note.used) if note.used else None,
    }


def note_of(data: dict[str, Any]) -> StaleFact:
    used = data.get("used")
    return StaleFact(
        data["current_fact_id"], data["current"], (used["table"], used["id"], used["version"]) if used else None
    )


def write(session: Session, identity: Identity, manifest: dict[str, Any], text: str, tokens: int) -> None:
    session.insert(
        "conversation_memory",
        {
            "id": manifest["manifest_id"],
            "tenant_id": identity.tenant,
            "user_id": identity.user,
            "agent_id": identity.agent,
            "thread_id": identity.thread,
            "session_id": None if identity.thread else identity.session,
            "window_id": manifest["manifest_id"],
            "event_type": EVENT,
            "role": "system",
            "content": text,
            "content_json": canonical(manifest),
            "token_count": tokens,
            "version": 1,
            "valid_from": manifest["evaluated_at"],
            "created_by": identity.principal or identity.user,
            "created_at": manifest["evaluated_at"],
        },
    )


def read(session: Session, manifest_id: str, tenant: str) -> dict[str, Any]:
    """A manifest the caller (of `tenant`) may see, by id; NotFound otherwise (another user's is not there)."""
    rows = session.fetch_all("context_rows_conversation_memory", ids=json.dumps([manifest_id]))
    row = next((r for r in rows if r["event_type"] == EVENT), None)
    if row is None:
        raise NotFound(
            f"no context manifest {manifest_id} for this caller",
            hint=f"List the tenant's manifests with `memgate manifest ls -t {tenant}`.",
        )
    return json.loads(row["content_json"])
