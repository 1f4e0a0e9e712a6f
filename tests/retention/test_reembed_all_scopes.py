"""After `memgate expire`, the one `memgate reembed -t T` line it prints embeds again the cleared replies of
every user/agent scope (each as its own identity, through the wall), as the per-scope commands would,
touching no other tenant; a second run finds nothing to do. After an embedder change the same command
moves every scope's chunks and recall rows, not only the tenant-wide ones."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from backend_helpers import open_sqlite, operator_rows
from cli_helpers import cli_runner
from memory_helpers import seed

from memgate.manager import Identity
from memgate.manager.backend.retention_store import RowFilter
from memgate.manager.clock import now_iso, parse_iso, to_iso
from memgate.manager.retention.registry import spec

SHOP, OTHER = "shop", "other"
SCOPES = [("jane", "helper"), ("jane", "planner"), ("omar", "helper"), ("omar", "planner")]
TURNS = ("My sister {u} moved to Lisbon in March.", "How is she finding it?", "She loves the light.", "Lovely.")


def _converse(manager, tenant: str) -> None:
    for user, agent in SCOPES:
        who = Identity(tenant=tenant, user=user, agent=agent, thread="t1", principal=f"test:{user}")
        for n, text in enumerate(TURNS):
            manager.record_turn(who, "user" if n % 2 == 0 else "assistant", f"{text.format(u=user)} ({agent})")


def _age_first_two_turns(backend, tenant: str) -> None:
    """Date each conversation's turns 1 and 2 two days back (an operator write, each in its own scope),
    so a one-day policy expires them and their replies (turn 3) stay."""
    shape = spec("conversation_memory").shape()
    old = to_iso(parse_iso(now_iso()) - timedelta(days=2))
    with backend.retention_store(tenant) as store, store.transaction():
        rows = store.select(shape, RowFilter(), 1000, extra=("turn_index", "event_type"))
        first = [r for r in rows if r["event_type"] == "turn" and r["turn_index"] in (1, 2)]
        assert len(first) == 2 * len(SCOPES)
        store.update(shape, first, {"created_at": old})


def _recall(backend, tenant: str) -> dict[tuple, tuple]:
    """(user, agent, turn) -> (embedding, model) of the tenant's recall rows."""
    rows = operator_rows(backend, "conversation_recall", "WHERE tenant_id = :t", {"t": tenant})
    return {(r["user_id"], r["agent_id"], r["turn_index"]): (r["embedding"], r["embedding_model"]) for r in rows}


def _copy(source, target) -> None:
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def test_the_one_printed_line_embeds_every_scope_as_the_per_scope_commands_do(
    manager, sqlite_path, tmp_path, monkeypatch
):
    run = cli_runner(sqlite_path, monkeypatch)
    for tenant in (SHOP, OTHER):
        seed(manager, Identity(tenant=tenant, principal="test:init"))
        _converse(manager, tenant)
        _age_first_two_turns(manager.backend, tenant)
        run("retention", "set", "-t", tenant, "conversation_memory=1")
    run("expire", "-t", OTHER)  # the other tenant's replies lose their embeddings too, and keep them lost
    other_before = _recall(manager.backend, OTHER)
    assert [k for k, (vector, _) in other_before.items() if vector is None] == [(u, a, 3) for u, a in SCOPES]

    expired = run("expire", "-t", SHOP, "--verbose").stdout.splitlines()
    (line,) = [x for x in expired if "to embed them again" in x]
    assert line == "  to embed them again: memgate reembed -t shop"
    per_scope = [x.split("memgate ", 1)[1].split() for x in expired if "in one scope:" in x]
    assert [(c[c.index("--user") + 1], c[c.index("--agent") + 1]) for c in per_scope] == SCOPES
    cleared = _recall(manager.backend, SHOP)
    assert sorted(k for k, (vector, model) in cleared.items() if vector is None and model is None) == sorted(
        (u, a, 3) for u, a in SCOPES
    )

    twin = tmp_path / "twin.db"  # the same database, brought back one scope at a time
    _copy(sqlite_path, twin)
    twin_run = cli_runner(twin, monkeypatch)
    for command in per_scope:
        twin_run(*command)

    ran = run(*line.split("memgate ", 1)[1].split())  # the line, as printed
    assert "; 4 turn(s) and summaries embedded for recall; 4 scope(s)" in ran.stdout
    for n, (user, agent) in enumerate(SCOPES, 1):
        assert f"[{n}/4] user {user}, agent {agent}: 0 chunk(s), 1 turn(s) and summaries" in ran.stderr

    after = _recall(manager.backend, SHOP)
    assert all(vector is not None and model == manager.embedder.name for vector, model in after.values())
    assert {k: v for k, v in after.items() if cleared[k][0] is not None} == {
        k: v for k, v in cleared.items() if v[0] is not None
    }  # what had an embedding kept it
    twin_backend = open_sqlite(twin)
    try:
        assert _recall(twin_backend, SHOP) == after  # byte for byte what the per-scope commands wrote
    finally:
        twin_backend.close()
    assert _recall(manager.backend, OTHER) == other_before  # the other tenant's rows were not touched

    again = run("reembed", "-t", SHOP)
    assert again.stdout.startswith("0 chunk(s) re-embedded with ")
    assert again.stdout.rstrip().endswith("; 0 turn(s) and summaries embedded for recall; 0 scope(s)")
    assert _recall(manager.backend, SHOP) == after


def test_after_an_embedder_change_every_scopes_chunks_and_turns_move(sqlite_path, tmp_path, monkeypatch):
    run = cli_runner(sqlite_path, monkeypatch)
    for tenant in (SHOP, OTHER):
        run("init", "-t", tenant)
    docs = {"shared.md": (), "jane.md": ("--user", "jane"), "bot.md": ("--agent", "bot")}
    for name, scope in docs.items():
        (tmp_path / name).write_text(f"Kumquats of {name} ripen in winter.")
        for tenant in (SHOP, OTHER):
            run("ingest", str(tmp_path / name), "-t", tenant, *scope, "-q")
    for user, agent in SCOPES[:2]:
        run("turn", "add", "-t", SHOP, "--thread", "t1", "--user", user, "--agent", agent, "We land on Friday")
    backend = open_sqlite(sqlite_path)
    try:
        old = operator_rows(backend, "knowledge_base_chunk", "WHERE tenant_id = :t", {"t": OTHER})

        monkeypatch.setenv("MEMGATE_KB__EMBEDDER", "hashing")
        moved = run("reembed", "-t", SHOP)
        assert moved.stdout.startswith("3 chunk(s) re-embedded with hashing-256 in ")
        assert "; 2 turn(s) and summaries embedded for recall; 5 scope(s)" in moved.stdout
        scopes = [x.split("] ", 1)[1] for x in moved.stderr.splitlines() if x.startswith("[")]
        assert scopes == [
            "tenant-wide: 1 chunk(s), 0 turn(s) and summaries",
            "agent bot: 1 chunk(s), 0 turn(s) and summaries",
            "user jane: 1 chunk(s), 0 turn(s) and summaries",
            "user jane, agent helper: 0 chunk(s), 1 turn(s) and summaries",
            "user jane, agent planner: 0 chunk(s), 1 turn(s) and summaries",
        ]
        for table in ("knowledge_base_chunk", "conversation_recall"):
            rows = operator_rows(backend, table, "WHERE tenant_id = :t", {"t": SHOP})
            assert rows and {r["embedding_model"] for r in rows} == {"hashing-256"}, table
        assert operator_rows(backend, "knowledge_base_chunk", "WHERE tenant_id = :t", {"t": OTHER}) == old

        mine = run("reembed", "-t", OTHER, "--user", "jane")  # one identity: jane's and the shared chunks
        assert mine.stdout.startswith("2 chunk(s) re-embedded with hashing-256 in ")
        assert mine.stdout.rstrip().endswith("; 1 scope(s)")
        left = operator_rows(backend, "knowledge_base_chunk", "WHERE tenant_id = :t", {"t": OTHER})
        assert sorted(r["agent_id"] or "" for r in left if r["embedding_model"] != "hashing-256") == ["bot"]
        assert run("reembed", "-t", SHOP, "-q").stdout.rstrip().endswith("; 0 scope(s)")
    finally:
        backend.close()
