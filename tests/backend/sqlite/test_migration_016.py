"""Migration 016 on a file from before it: turns numbered per thread name become their callers' conversations."""

from __future__ import annotations

from dataclasses import replace

from backend_helpers import open_sqlite, operator_rows, sqlite_file_with

from memgate.manager import ACME, Identity, MemoryManager

T0 = "2026-08-01T10:00:00.000Z"


def _database_before_016(path) -> None:
    """A file as memgate made it before 016: jane's and bob's turns of one thread name numbered together
    (bob's was 3 after jane's 1 and 2), a compaction of jane's with its summary, a thread-less session's
    turn, and a thread-scoped tool result."""
    conn, context = sqlite_file_with(path, lambda version: version < 16)

    def event(who: Identity, id: str, kind: str, turn: int | None, content: str, session: str | None = None) -> None:
        context.bind(who)
        conn.execute(
            "INSERT INTO conversation_memory (id, tenant_id, user_id, agent_id, thread_id, session_id, event_type,"
            " role, content, content_json, turn_index, version, valid_from, created_at)"
            " VALUES (?, 'acme', ?, ?, ?, ?, ?, 'user', ?, ?, ?, 1, ?, ?)",
            (
                id,
                who.user,
                who.agent,
                who.thread,
                session,
                kind,
                content,
                '{"turns": {"first": 1, "last": 1}}' if kind == "compaction" else None,
                turn,
                T0,
                T0,
            ),
        )

    jane = replace(ACME, thread="review")
    bob = replace(ACME, user="bob", thread="review")
    event(jane, "cnv_j1", "turn", 1, "jane one")
    event(jane, "cnv_j2", "turn", 2, "jane two")
    event(bob, "cnv_b3", "turn", 3, "bob three")
    event(jane, "cnv_jc", "compaction", None, "compacted turns 1-1")
    event(jane, "tr_j", "tool_result", None, "a tool result")
    event(replace(ACME, thread=None), "cnv_s1", "turn", 1, "a session turn", session="stdio-1")
    context.bind(jane)
    conn.execute(
        "INSERT INTO summarization_memory (id, tenant_id, user_id, agent_id, thread_id, title, content,"
        " source_table, source_id, valid_from, created_at)"
        " VALUES ('sum_j', 'acme', 'jane', ?, 'review', 'Conversation turns 1-1', 'jane one',"
        " 'conversation_memory', 'cnv_jc', ?, ?)",
        (ACME.agent, T0, T0),
    )
    conn.close()


def test_old_turns_become_their_callers_conversations_and_leave_their_thread(sqlite_path):
    _database_before_016(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        backend.migrate()
        backend.check_schema()
        conversations = {
            (r["user_id"], r["thread_name"], r["session_id"]): r for r in operator_rows(backend, "conversation")
        }
        assert {k: r["next_turn"] for k, r in conversations.items()} == {
            ("jane", "review", None): 3,
            ("bob", "review", None): 4,  # its old number stays; the next one follows it
            ("jane", None, "stdio-1"): 2,
        }
        rows = {r["id"]: r for r in operator_rows(backend, "conversation_memory")}
        jane, bob = conversations[("jane", "review", None)]["id"], conversations[("bob", "review", None)]["id"]
        assert [(rows[i]["conversation_id"], rows[i]["thread_id"]) for i in ("cnv_j1", "cnv_j2", "cnv_jc")] == [
            (jane, None)
        ] * 3
        assert (rows["cnv_b3"]["conversation_id"], rows["cnv_j1"]["speaker"]) == (bob, "jane")
        assert (rows["tr_j"]["conversation_id"], rows["tr_j"]["thread_id"]) == (None, "review")  # thread-only
        (summary,) = operator_rows(backend, "summarization_memory", "WHERE id = 'sum_j'")
        assert (summary["conversation_id"], summary["thread_id"]) == (jane, None)
        # both conversations go on, each from its own counter
        manager = MemoryManager(backend)
        assert manager.record_turn(replace(ACME, user="bob", thread="review"), "user", "bob four")["turn_index"] == 4
        assert manager.record_turn(replace(ACME, thread="review"), "user", "jane three")["turn_index"] == 3
    finally:
        backend.close()
