"""Canonical claims: lookup of the current version with labeled history, and corrections.

A correction never edits a claim: in one transaction it closes the current
version (valid_until = now), inserts the next version, whose provenance
points at the one it replaced, and links the two (next `supersedes`
previous). The base table's triggers refuse in-place edits
and a unique index on the version makes a concurrent second correction fail.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..backend.base import Row, Session
from ..errors import Conflict, InvalidArgument
from ..identity import Identity
from ..ids import new_id
from ..links.store import LinkEnd, write_link

CURRENT, SUPERSEDED, EXPIRED, DELETED, PENDING = "current", "superseded", "expired", "deleted", "pending"


@dataclass(frozen=True)
class ClaimVersion:
    row: Row
    status: str

    @property
    def id(self) -> str:
        return self.row["id"]

    @property
    def version(self) -> int:
        return self.row["version"]


@dataclass(frozen=True)
class ClaimLookup:
    subject: str
    predicate: str
    current: ClaimVersion | None
    history: list[ClaimVersion]


def next_version(table: str, latest: Row | None, identity: Identity, now: str) -> Row:
    """The lifecycle and provenance columns of the version that follows `latest` (or of a first version)."""
    return {
        "version": (latest["version"] if latest else 0) + 1,
        "valid_from": now,
        "source_table": table if latest else None,
        "source_id": latest["id"] if latest else None,
        "source_version": latest["version"] if latest else None,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }


def existing_at(rows: list[Row], now: str) -> list[Row]:
    """The versions written by `now`: what the database held then. With `now` in the past (as_of),
    a later version is left out, so the labels are those Flashback at that moment would give; a
    lifecycle column set after `now` (a version closed later) is later than `now`, so it reads
    as not set yet."""
    return [r for r in rows if r.get("created_at") is None or r["created_at"] <= now]


def label_versions(rows: list[Row], now: str) -> list[ClaimVersion]:
    """Label one claim's versions (newest first, most specific scope first) as of `now`."""
    labeled: list[ClaimVersion] = []
    have_current = False
    newest = max((r["version"] for r in rows), default=0)
    for r in rows:
        if r["deleted_at"] is not None and r["deleted_at"] <= now:
            status = DELETED
        elif r["valid_from"] > now:
            status = PENDING
        elif r["valid_until"] is not None and r["valid_until"] <= now:
            status = SUPERSEDED if r["version"] < newest else EXPIRED
        elif not have_current:
            status, have_current = CURRENT, True
        else:
            status = SUPERSEDED
        labeled.append(ClaimVersion(r, status))
    return labeled


def lookup(
    session: Session, subject: str, predicate: str | None, now: str, limit: int
) -> tuple[list[ClaimLookup], bool]:
    """Claims of `subject` (one predicate or all) in the session's scope as of `now`; True when rows were cut."""
    rows, more = session.fetch_page("entity_versions", limit, subject=subject, predicate=predicate)
    by_predicate: dict[str, list[Row]] = {}
    for r in existing_at(rows, now):
        by_predicate.setdefault(r["predicate"], []).append(r)
    found = []
    for pred, versions in by_predicate.items():
        labeled = label_versions(versions, now)
        current = next((v for v in labeled if v.status == CURRENT), None)
        found.append(ClaimLookup(subject, pred, current, [v for v in labeled if v is not current]))
    return found, more


def correct(
    session: Session,
    identity: Identity,
    *,
    subject: str,
    predicate: str,
    content: str,
    now: str,
    content_json: Any = None,
    confidence: float | None = None,
    expected_version: int | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
    thread_id: str | None = None,
    on_replaced: Callable[[Session, Row, str], None] | None = None,
) -> Row:
    """Close the latest version of the claim in this exact scope and insert the next one.

    `on_replaced(session, replaced_version, now)` runs in the same transaction after the close."""
    with session.transaction():
        return correct_in(
            session,
            identity,
            subject=subject,
            predicate=predicate,
            content=content,
            now=now,
            content_json=content_json,
            confidence=confidence,
            expected_version=expected_version,
            user_id=user_id,
            agent_id=agent_id,
            thread_id=thread_id,
            on_replaced=on_replaced,
        )


def correct_in(
    session: Session,
    identity: Identity,
    *,
    subject: str,
    predicate: str,
    content: str,
    now: str,
    content_json: Any = None,
    confidence: float | None = None,
    expected_version: int | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
    thread_id: str | None = None,
    on_replaced: Callable[[Session, Row, str], None] | None = None,
) -> Row:
    """correct() inside the caller's transaction (the promotion gate writes a fact with its links)."""
    if not subject or not predicate:
        raise InvalidArgument("subject and predicate are required", field="subject" if not subject else "predicate")
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise InvalidArgument(f"confidence must be between 0 and 1, got {confidence}", field="confidence")
    scope = {"user_id": user_id, "agent_id": agent_id, "thread_id": thread_id}
    latest = session.fetch_one("entity_latest_in_scope", subject=subject, predicate=predicate, **scope)
    have = latest["version"] if latest else 0
    if expected_version is not None and expected_version != have:
        raise Conflict(
            f"{subject} {predicate} is at version {have}, not {expected_version}; nothing was written",
            hint="Look the claim up again and correct the current version.",
        )
    if latest is not None:
        session.execute("entity_close_version", id=latest["id"], now=now)
        if on_replaced is not None:  # e.g. the promotion gate: what rests on it is reassessed, not trusted
            on_replaced(session, latest, now)
    row = {
        "id": new_id("ent"),
        "tenant_id": identity.tenant,
        **scope,
        "subject": subject,
        "predicate": predicate,
        "content": content,
        "content_json": json.dumps(content_json, sort_keys=True) if content_json is not None else None,
        "confidence": confidence,
        **next_version("entity_memory", latest, identity, now),
    }
    session.insert("entity_memory", row)
    if latest is not None:
        link_correction(session, identity, row, latest, now)
    return row


def link_correction(session: Session, identity: Identity, newer: Row, older: Row, now: str) -> Row:
    """The `supersedes` link from a claim's next version to the one it replaced (inside the correction's
    transaction: both versions are this caller's, in one scope)."""

    def end(r: Row) -> LinkEnd:
        return LinkEnd(
            {
                "memory_type": "entity_memory",
                "id": r["id"],
                "user_id": r.get("user_id"),
                "agent_id": r.get("agent_id"),
                "thread_id": r.get("thread_id"),
            }
        )

    return write_link(session, identity, end(newer), "supersedes", end(older), now=now, provenance="correction")
