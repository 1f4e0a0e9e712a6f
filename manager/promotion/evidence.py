"""What a proposal rests on: evidence rows the caller can read now and was given.

An id counts as evidence only when, through the caller's wall, it names a current record
(absent, deleted, ended and another user's or tenant's are the same: not there) and the caller
was given it: a tool result it received cited it (the call log, which the wall cuts to the
caller's own user, agent and thread: the rule an image id follows for expand), its current
context window holds it, or it is a turn of the caller's own conversation ("the user told me").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..backend.base import Row, Session
from ..context.window import WindowKey, current_window
from ..conversations.keys import find as find_conversation
from ..identity import Identity
from ..links.store import SCOPE_COLUMNS, LinkEnd, ends_by_id

__all__ = [
    "SCOPE_COLUMNS",
    "Evidence",
    "given_evidence",
    "own_turns",
    "record_scope",
    "told_by_user",
    "wider_than",
]


@dataclass(frozen=True)
class Evidence(LinkEnd):
    """A record the caller was given, as the gate weighs it: a link end with its version and text."""

    @property
    def version(self) -> int:
        return int(self.row["version"] or 1)

    @property
    def text(self) -> str:
        label, content = self.row.get("label") or "", self.row.get("content") or ""
        return f"{label} {content}".strip() if self.type == "entity_memory" else content or label

    @property
    def title(self) -> str | None:
        """A chunk's document title: what the passage is about when it does not say."""
        return self.row.get("label") if self.type == "knowledge_base_chunk" else None

    @property
    def is_turn(self) -> bool:
        return self.type == "conversation_memory" and self.row.get("label") == "turn"

    def ref(self, conversation_thread: str | None = None) -> dict[str, object]:
        """What the candidate records of it; a thread-bound row names its thread, and a turn the thread of
        the conversation it was said in (`conversation_thread`, the proposer's), so a reviewer reads the
        evidence in the proposer's conversation (review.py)."""
        ref: dict[str, object] = {"type": self.type, "id": self.id, "version": self.version}
        thread = self.row.get("thread_id") or (conversation_thread if self.is_turn else None)
        if thread:
            ref["thread"] = thread
        return ref

    def limits(self) -> dict[str, str | None]:
        """The scope columns that bound who may see what rests on it. A turn is the user's own words:
        only its user bounds it, so "the user told me" can become a user-scoped preference."""
        cols = ("user_id",) if self.type == "conversation_memory" else SCOPE_COLUMNS
        return {c: self.row.get(c) for c in cols}


def _current(row: Row, now: str) -> bool:
    return (
        (row["deleted_at"] is None or row["deleted_at"] > now)
        and (row["valid_until"] is None or row["valid_until"] > now)
        and row["valid_from"] <= now
    )


def given_evidence(session: Session, identity: Identity, ids: list[str], now: str) -> tuple[list[Evidence], str | None]:
    """(the evidence, None), or ([], the first id that is no record the caller was given)."""
    rows: dict[str, Row] = {}
    for r in ends_by_id(session, ids):
        if _current(r, now):
            rows.setdefault(r["id"], r)
    window = current_window(session, WindowKey.of(identity))
    in_window = {m["memory_id"] for m in window.manifest.get("memories", ())} if window else set()
    found: list[Evidence] = []
    for id in ids:
        row = rows.get(id)
        if row is None or not _issued(session, identity, row, in_window):
            return [], id
        found.append(Evidence(row))
    return found, None


def own_turns(session: Session, identity: Identity, rows: list[Row]) -> set[str]:
    """The ids among `rows` that are turns of the caller's own conversation (its user, agent and thread):
    the one place that decides it (the gate's "given" and its "the user told me" both ask here)."""
    turns = [r["id"] for r in rows if r["memory_type"] == "conversation_memory" and r.get("label") == "turn"]
    conversation = find_conversation(session, identity) if turns else None
    if conversation is None:
        return set()
    found = session.fetch_all("context_rows_conversation_memory", ids=json.dumps(turns))
    return {r["id"] for r in found if r["conversation_id"] == conversation["id"]}


def told_by_user(session: Session, identity: Identity, evidence: list[Evidence]) -> list[bool]:
    """Per evidence row: whether it is the caller's user's own turn in its own conversation ("the user told me")."""
    turns = sorted(own_turns(session, identity, [e.row for e in evidence]))
    spoken = {r["id"]: r for r in session.fetch_all("conversation_turn_roles", ids=json.dumps(turns))} if turns else {}
    return [
        e.id in spoken and spoken[e.id]["role"] == "user" and spoken[e.id]["user_id"] == identity.user for e in evidence
    ]


def _issued(session: Session, identity: Identity, row: Row, in_window: set[str]) -> bool:
    if row["id"] in in_window:
        return True
    if row["memory_type"] == "conversation_memory" and row.get("label") == "turn":
        return row["id"] in own_turns(session, identity, [row])
    return session.fetch_one("calllog_cited", id=row["id"]) is not None


def still_current(session: Session, refs: list[dict], now: str) -> bool:
    """The version check before commit: every evidence row is still the version the gate read, and current."""
    rows = {(r["memory_type"], r["id"]): r for r in ends_by_id(session, [str(r["id"]) for r in refs])}
    for ref in refs:
        row = rows.get((ref["type"], ref["id"]))
        if row is None or not _current(row, now) or int(row["version"] or 1) != ref["version"]:
            return False
    return True


def record_scope(identity: Identity, scope: str) -> dict[str, str | None]:
    """The scope columns a memory of `scope` is written with, for this caller."""
    by_scope: dict[str, dict[str, str | None]] = {
        "user": {"user_id": identity.user, "agent_id": None, "thread_id": None},
        "agent": {"user_id": None, "agent_id": identity.agent, "thread_id": None},
        "thread": {"user_id": identity.user, "agent_id": identity.agent, "thread_id": identity.thread},
        "tenant": {"user_id": None, "agent_id": None, "thread_id": None},
    }
    return by_scope[scope]


def wider_than(record: dict[str, str | None], evidence: Evidence) -> bool:
    """True when someone could read the record but not the evidence: the record leaves a column open
    (or names another value) where the evidence is bound."""
    return any(v is not None and record.get(c) != v for c, v in evidence.limits().items())
