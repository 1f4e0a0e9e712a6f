"""`memgate export` reads through the wall: an export for jane never holds bob's rows, nor another
tenant's, and lists (without content) what others share with her. A scope fuzz checks the exporter
against an expectation computed from what was written, for tenants, users, agents and threads."""

from __future__ import annotations

import json
import random
import re

import pytest
from cli_helpers import cli_runner
from portability_helpers import TENANT, bundle_rows, seed_shop, write_memory

from memgate.manager import Identity, InvalidArgument, export_scope
from memgate.manager.portability.scopes import visible_from

#: a binary value in a bundle row (bundle.py): {"$b64": "..."}
B64 = re.compile(r'"\$b64":\s*"[^"]*"')


@pytest.fixture
def shop(manager, tmp_path):
    ids = seed_shop(manager)
    write_memory(manager, tmp_path, "jane", "zebra", ids["shared_document"])
    write_memory(manager, tmp_path, "bob", "okapi", ids["shared_document"])
    # the same user name in another tenant
    other = Identity(tenant="elsewhere", user="jane", agent="helper", principal="test:elsewhere")
    manager.ingest_text(other, title="walrus", text="walrus facts " * 20, source_uri="memo://w", user_id="jane")
    manager.correct_entity(other, "customer:jane", "prefers", "walrus", user_id="jane")
    return manager, ids


def test_an_export_for_jane_holds_none_of_bobs_rows_nor_another_tenants(shop, sqlite_path, tmp_path, monkeypatch):
    _manager, ids = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    result = invoke("export", "-t", TENANT, "--user", "jane", "--out", str(tmp_path / "jane"))
    # the bundle's text, without its base64 values: an embedding's bytes could spell "bob" by chance
    text = "\n".join(B64.sub("", p.read_text()) for p in (tmp_path / "jane").rglob("*.jsonl"))
    assert "zebra" in text and "okapi" not in text and "walrus" not in text and "bob" not in text
    rows = bundle_rows(tmp_path / "jane")
    for table, found in rows.items():
        for row in found:
            assert row["tenant_id"] == TENANT, (table, row)
            if table != "memory_file":
                assert row["user_id"] == "jane", (table, row)
    assert len(rows["entity_memory"]) == 2 and len(rows["image_memory"]) == 2
    # the images are files beside the rows, named by their sha256
    assert all(r["bytes"] == {"$file": f"images/{r['sha256']}.png"} for r in rows["image_memory"])
    # what the tenant shares with her is listed, not included: the handbook, the refund policy
    shared = [json.loads(line) for line in (tmp_path / "jane" / "shared.jsonl").read_text().splitlines()]
    assert ids["shared_document"] in {s["id"] for s in shared}
    assert all(s["user_id"] is None for s in shared) and "thirty days" not in text
    # progress on stderr, the record of the export beside the erasure records
    assert "entity_memory: 2 row(s)" in result.stderr
    listed = invoke("export", "-t", TENANT, "--list").output
    sha = result.output.split("bundle sha256 ")[1].split()[0]
    assert "export user=jane by cli:operator:" in listed and sha in listed and "zebra" not in listed


def test_export_refuses_a_folder_that_holds_files_and_two_subjects(shop, sqlite_path, tmp_path, monkeypatch):
    manager, _ = shop
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine")
    with pytest.raises(InvalidArgument, match="exists and is not an empty folder; nothing was written"):
        export_scope(manager.backend, TENANT, "user", "jane", tmp_path / "used", requested_by="test")
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["keep.txt"]
    invoke = cli_runner(sqlite_path, monkeypatch)
    both = invoke("export", "-t", TENANT, "--user", "jane", "--agent", "helper", "-o", "x", ok=False).output
    assert "name at most one of --user, --agent, --thread" in both


# -- the scope fuzz ---------------------------------------------------------------------------------

TENANTS, USERS, AGENTS, THREADS = ("t-one", "t-two"), ("u1", "u2", None), ("a1", "a2", None), ("x1", "x2", None)


def _write_conversation(manager, who: Identity, i: int) -> list[dict]:
    """A conversation of the session's user, agent and thread name, a turn and a summary of it, each with
    its recall row: they carry the conversation and no thread (`thread_of` is the thread they belong to)."""
    user, agent, thread = who.user, who.agent, who.thread
    conversation = {"id": f"c{i:04d}", "tenant_id": who.tenant, "user_id": user, "agent_id": agent}
    turn = {"id": f"r{i:04d}", "tenant_id": who.tenant, "user_id": user, "agent_id": agent, "thread_id": None}
    summary = {**turn, "id": f"s{i:04d}"}
    with manager.backend.session(who) as s:
        s.insert("conversation", {**conversation, "thread_name": thread, "session_id": f"session {i}"})
        s.insert(
            "conversation_memory",
            {**turn, "conversation_id": conversation["id"], "event_type": "turn", "role": "user", "content": f"t {i}"},
        )
        s.insert(
            "summarization_memory",
            {**summary, "conversation_id": conversation["id"], "title": f"summary {i}", "content": f"sum {i}"},
        )
        for row, kind in ((turn, "turn"), (summary, "summary")):
            s.insert(
                "conversation_recall",
                {
                    "id": row["id"],
                    "tenant_id": who.tenant,
                    "user_id": user,
                    "agent_id": agent,
                    "conversation_id": conversation["id"],
                    "kind": kind,
                    "said_at": "2026-01-01T00:00:00.000Z",
                    "content": f"recall {i}",
                },
            )
    rows = [
        {"table": "conversation", **conversation, "thread_id": None},
        {"table": "conversation_memory", **turn},
        {"table": "summarization_memory", **summary},
        {"table": "conversation_recall", **turn},
        {"table": "conversation_recall", **summary},
    ]
    return [{**r, "thread_of": thread} for r in rows]


def _write_random_rows(manager, rng: random.Random, n: int) -> list[dict]:
    """n rows of four tables in random tenants and scopes, each written by a session of its own scope, and
    conversations with their turns, summaries and recall rows."""
    written = []
    for i in range(n):
        tenant, user, agent, thread = rng.choice(TENANTS), rng.choice(USERS), rng.choice(AGENTS), rng.choice(THREADS)
        who = Identity(tenant=tenant, user=user, agent=agent, thread=thread, principal="test:fuzz")
        scope = {"user_id": user, "agent_id": agent, "thread_id": thread}
        table = rng.choice(
            ("entity_memory", "summarization_memory", "conversation_memory", "memory_store", "conversation")
        )
        if table == "conversation":
            written += _write_conversation(manager, who, i)
            continue
        row = {"id": f"r{i:04d}", "tenant_id": tenant, **scope}
        if table == "entity_memory":
            row |= {"subject": f"s{i}", "predicate": "p", "content": f"fact {i}"}
        elif table == "summarization_memory":
            row |= {"title": f"summary {i}", "content": f"summary text {i}"}
        elif table == "conversation_memory":
            row |= {"event_type": "turn", "role": "user", "content": f"turn {i}"}
        else:
            row |= {"store_key": f"shared:s{i}", "scope": "shared"}
        with manager.backend.session(who) as s:
            s.insert(table, row)
            if table == "memory_store":
                s.insert(
                    "memory_file",
                    {
                        "id": f"f{i:04d}",
                        "tenant_id": tenant,
                        "store_id": row["id"],
                        "path": "/memories/a.md",
                        "content": f"file {i}",
                        "size_chars": 6,
                        "size_bytes": 6,
                    },
                )
        written.append({"table": table, **row})
        if table == "memory_store":
            written.append({"table": "memory_file", "id": f"f{i:04d}", "tenant_id": tenant, **scope})
    return written


def _owns(kind: str, subject: str | None, row: dict) -> bool:
    column = {"user": "user_id", "agent": "agent_id", "thread": "thread_id"}.get(kind)
    # a conversation and what belongs to it are its thread name's
    return column is None or row[column] == subject or (kind == "thread" and row.get("thread_of") == subject)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scope_fuzz_an_export_holds_exactly_the_scopes_rows_and_lists_what_it_is_shown(manager, tmp_path, seed):
    rng = random.Random(seed)
    written = _write_random_rows(manager, rng, 160)
    scopes = [("tenant", None)] + [
        (k, v) for k, pool in (("user", USERS), ("agent", AGENTS), ("thread", THREADS)) for v in pool if v
    ]
    for n, (kind, subject) in enumerate(scopes):
        tenant = rng.choice(TENANTS)
        folder = tmp_path / f"b{n}"
        export_scope(
            manager.backend, tenant, kind, subject, folder, requested_by="test", batch=rng.choice((3, 17, 500))
        )
        got = {(t, r["id"]) for t, rows in bundle_rows(folder).items() for r in rows}
        mine = [w for w in written if w["tenant_id"] == tenant and _owns(kind, subject, w)]
        assert got == {(w["table"], w["id"]) for w in mine}, (kind, subject)
        # shared: rows not the scope's, at its level shared, that one of its own sessions is shown
        if kind != "tenant":
            column = {"user": "user_id", "agent": "agent_id", "thread": "thread_id"}[kind]
            owned = {(w["user_id"], w["agent_id"], w["thread_id"]) for w in mine}
            expected = {
                (w["table"], w["id"])
                for w in written
                if w["tenant_id"] == tenant
                and w[column] is None
                and w not in mine  # exported, not shared
                # a conversation has no thread: no row of it is shared at the thread level
                and not (kind == "thread" and w["table"] in ("conversation", "conversation_recall"))
                and visible_from((w["user_id"], w["agent_id"], w["thread_id"]), sorted(owned, key=str))
            }
            listed = {
                (s["table"], s["id"]) for s in map(json.loads, (folder / "shared.jsonl").read_text().splitlines())
            }
            assert listed == expected, (kind, subject)
