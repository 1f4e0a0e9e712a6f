"""Helpers for the export, import and consolidation tests: a user's memory written through every path,
and a user's rows read back as the operator, whole, to compare byte for byte."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

from memory_helpers import call, seed
from PIL import Image

from memgate.manager import Identity, load_tool_definitions
from memgate.manager.retention import REGISTRY

TENANT = "shop"
#: the memory tool on the caller's own user store (the default row writes the agent's store)
USER_MEMORY_ROW = {
    "tool_name": "memory_mine",
    "tool_handler": "memory",
    "usage_notes": "The caller's own memory files.",
    "tool_schema": None,
    "access_policy": {"memory_store": {"scope": "user"}},
}


def person(user: str, thread: str | None = None) -> Identity:
    return Identity(
        tenant=TENANT, user=user, agent="helper", thread=thread or f"{user}-thread", principal=f"test:{user}"
    )


def png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (6, 4), color).save(out, "PNG")
    return out.getvalue()


def seed_shop(manager) -> dict[str, str]:
    """The tenant's tools (the user store's memory row too) and one shared document; its id."""
    row = dict(USER_MEMORY_ROW)
    row["tool_schema"] = next(t for t in load_tool_definitions() if t["tool_name"] == "memory_write")["tool_schema"]
    tenant = Identity(tenant=TENANT, principal="test:init")
    seed(manager, tenant, row)
    shared = manager.ingest_text(
        tenant, title="handbook", text="The shared refund handbook says thirty days. " * 10, source_uri="memo://shared"
    )
    manager.correct_entity(tenant, "policy:refunds", "window", "30 days")
    return {"shared_document": shared.document_id}


def write_memory(manager, tmp_path: Path, user: str, word: str, shared_document: str) -> dict[str, str]:
    """`word` through every write path, as `user` (two threads); the ids written."""
    who = person(user)
    is_error, text = call(
        manager, who, "memory_mine", command="create", path="/memories/notes.md", file_text=f"notes {word}"
    )
    assert not is_error, text
    is_error, text = call(manager, who, "search_memory", query=f"{word} plans")
    assert not is_error, text
    doc = manager.ingest_text(
        who, title=f"plan {word}", text=f"The plan {word} is ready. " * 30, source_uri=f"memo://{user}", user_id=user
    )
    is_error, text = call(manager, who, "search_memory", query=f"plan {word}")  # cites the document: mcp_call_cited
    assert not is_error and f"plan {word}" in text, text
    image_path = tmp_path / f"{user}.png"
    image_path.write_bytes(png((len(user) * 20, 40, 60)))
    image = manager.ingest_file(who, image_path, user_id=user, description=f"a photo of {word}")
    turn = manager.record_turn(
        who,
        "user",
        [
            {"type": "text", "text": f"hello {word}"},
            {"type": "image", "data": png((1, 2, len(word))), "name": "t.png", "description": f"turn {word}"},
        ],
    )
    # a second conversation, compacted: its turns, compaction event, summary and recall rows carry the
    # conversation and no thread
    other = person(user, f"{user}-other")
    manager.record_turn(other, "user", f"second thread {word}")
    for n in range(4):
        manager.record_turn(other, "assistant" if n % 2 else "user", f"turn {n} of the {word} invoice INV-{n}7")
    assert manager.compact_conversation(other, "fact_check", force=True) is not None
    manager.correct_entity(who, f"customer:{user}", "prefers", f"{word} v1", user_id=user)
    manager.correct_entity(who, f"customer:{user}", "prefers", f"{word} v2", user_id=user)
    manager.assemble_context(who, f"what is {word}?", "fact_check")
    manager.add_link(who, doc.document_id, "supports", shared_document, note=f"because {word}")
    remembered = manager.remember(who, f"hello {word}", "note", evidence=[turn["id"]])
    assert remembered.text.split()[0] in ("promoted", "pending"), remembered.text
    return {"document": doc.document_id, "image": image.image_id, "turn": turn["id"]}


def owned_rows(path: Path, tenant: str, column: str, subject: str) -> dict[str, list[str]]:
    """Every row of every registry table whose own scope `column` names `subject` (a file: its store's),
    whole but for the database's row numbers, as sorted JSON texts: to compare byte for byte."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    out = {}
    try:
        for spec in REGISTRY:
            if spec.not_exported:
                continue
            if spec.through:
                col, owner, key = spec.through
                sql = (
                    f"SELECT t.* FROM base_{spec.table} t JOIN base_{owner} o ON o.{key} = t.{col} "
                    f"WHERE t.tenant_id = ? AND o.{column} = ?"
                )
            else:
                sql = f"SELECT * FROM base_{spec.table} WHERE tenant_id = ? AND {column} = ?"
            rows = [
                {k: (v.hex() if isinstance(v, bytes) else v) for k, v in dict(r).items() if k not in spec.local}
                for r in conn.execute(sql, (tenant, subject))
            ]
            out[spec.table] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    finally:
        conn.close()
    return out


def bundle_rows(folder: Path) -> dict[str, list[dict]]:
    """Every row of a bundle, per table, as stored (binary values still encoded)."""
    out = {}
    for path in sorted((folder / "tables").glob("*.jsonl")):
        out[path.stem] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return out


def thread_rows(path: Path, tenant: str, thread: str) -> dict[str, list[str]]:
    """Every row of every registry table that thread name `thread` owns, as owned_rows reads them: its
    rows (thread_id), its conversations (thread_name) and what belongs to them (conversation_id: turns,
    compaction events, summaries, recall rows), which carry no thread."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    out = {}
    conversations = "SELECT id FROM base_conversation WHERE tenant_id = :tenant AND thread_name = :thread"
    try:
        for spec in REGISTRY:
            if spec.not_exported:
                continue
            columns = {r["name"] for r in conn.execute(f"PRAGMA table_info(base_{spec.table})")}
            if spec.through:
                col, owner, key = spec.through
                sql = (
                    f"SELECT t.* FROM base_{spec.table} t JOIN base_{owner} o ON o.{key} = t.{col} "
                    "WHERE t.tenant_id = :tenant AND o.thread_id = :thread"
                )
            else:
                terms = ["thread_name = :thread"] if spec.table == "conversation" else []
                terms += ["thread_id = :thread"] if "thread_id" in columns else []
                terms += [f"conversation_id IN ({conversations})"] if "conversation_id" in columns else []
                if not terms:
                    continue
                sql = f"SELECT * FROM base_{spec.table} WHERE tenant_id = :tenant AND ({' OR '.join(terms)})"
            rows = [
                {k: (v.hex() if isinstance(v, bytes) else v) for k, v in dict(r).items() if k not in spec.local}
                for r in conn.execute(sql, {"tenant": tenant, "thread": thread})
            ]
            out[spec.table] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    finally:
        conn.close()
    return out
