"""A conversation is the caller's own: one thread name used by several users and agents is several
conversations, each working on every write path and sharing nothing with the others."""

from __future__ import annotations

import threading
from dataclasses import replace

import mcp_types
import pytest
from backend_helpers import open_sqlite, operator_rows
from cli_helpers import cli_runner
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, MemoryManager, load_tool_definitions

pytestmark = pytest.mark.anyio

THREAD = "helios-review"  # the demo's thread: jane with the research assistant already has turns in it
#: who may use the demo's thread name besides the demo's jane (user, agent)
CALLERS = {"jane-no-agent": ("jane", None), "bob": ("bob", "research-assistant"), "other-agent": ("jane", "reviewer")}
SESSION_ROW = {
    "tool_name": "session_notes",
    "tool_handler": "memory",
    "usage_notes": "The conversation's own notes.",
    "tool_schema": None,  # the default writable memory row's
    "access_policy": {"memory_store": {"scope": "session"}},
}


@pytest.fixture
def session_notes(manager, two_tenants):
    schema = next(t for t in load_tool_definitions() if t["tool_name"] == "memory_write")["tool_schema"]
    manager.seed_tools(ACME, [{**SESSION_ROW, "tool_schema": schema}])


def _conversations(backend, thread=THREAD) -> dict[tuple, dict]:
    rows = operator_rows(backend, "conversation", "WHERE thread_name = :t", {"t": thread})
    return {(r["user_id"], r["agent_id"]): r for r in rows}


def _turns(backend, conversation_id) -> list[dict]:
    return operator_rows(
        backend,
        "conversation_memory",
        "WHERE conversation_id = :c AND turn_index IS NOT NULL ORDER BY turn_index",
        {"c": conversation_id},
    )


def _accept(answer: str):
    async def handler(message, response_type, params, context):
        return mcp_types.ElicitResult(action="accept", content={"answer": answer})

    return handler


async def test_a_thread_name_shared_by_three_callers_works_for_each_and_shares_nothing(
    sqlite_path, manager, backend, session_notes, monkeypatch
):
    invoke = cli_runner(sqlite_path, monkeypatch)
    texts = {}
    for name, (user, agent) in CALLERS.items():
        mcp, m = stdio_app(sqlite_path, user=user, agent=agent, thread=THREAD)
        try:
            async with Client(mcp, mode="legacy", elicitation_handler=_accept(f"{name} answer")) as c:
                r = await c.get_prompt(
                    "context_window", {"question": f"What did {name} decide?", "intent": "fact_check"}
                )
                texts[name] = r.messages[0].content.text
                clarified = await c.call_tool("clarify", {"question": "Which run?"}, raise_on_error=False)
                assert not clarified.is_error, clarified.content[0].text
                wrote = await c.call_tool(
                    "session_notes",
                    {"command": "create", "path": "/memories/notes.md", "file_text": f"notes of {name}"},
                    raise_on_error=False,
                )
                assert not wrote.is_error, wrote.content[0].text
                viewed = await c.call_tool("memory", {"command": "view", "path": "/memories"}, raise_on_error=False)
        finally:
            m.close()
        args = ["turn", "add", "-t", "acme", "--thread", THREAD, "--user", user, f"{name} says hello"]
        out = invoke(*args, *(["--agent", agent] if agent else [])).output
        assert f"turn 3 of thread {THREAD} (user)" in out  # question 1, clarify answer 2, this 3
        del viewed
    owners = _conversations(backend)
    assert set(owners) == {("jane", "research-assistant"), *CALLERS.values()}
    demo_turns = _turns(backend, owners[("jane", "research-assistant")]["id"])
    assert [t["turn_index"] for t in demo_turns] == [1, 2]  # the demo's own conversation is untouched
    for name, key in CALLERS.items():
        turns = _turns(backend, owners[key]["id"])
        assert [(t["turn_index"], t["event_type"]) for t in turns] == [(1, "turn"), (2, "clarify_answer"), (3, "turn")]
        assert {(t["user_id"], t["agent_id"]) for t in turns} == {key}
        assert turns[0]["thread_id"] is None and turns[1]["thread_id"] == THREAD  # a clarify answer stays in its thread
        assert owners[key]["next_turn"] == 4
        # its window holds none of the others' words, nor the demo conversation's turns
        others = [n for n in CALLERS if n != name]
        assert all(f"What did {o} decide" not in texts[name] for o in others)
        assert "Before the review: what nDCG@10" not in texts[name]
    # one session store per caller, stamped with its user and agent, each holding its own notes only
    stores = operator_rows(backend, "memory_store", "WHERE scope = 'session'")
    assert sorted(s["store_key"] for s in stores) == sorted(
        f"session:{THREAD}/{u}/{a or '-'}" for u, a in CALLERS.values()
    )
    for s in stores:
        (f,) = operator_rows(backend, "memory_file", "WHERE store_id = :s", {"s": s["id"]})
        user, agent = s["user_id"], s["agent_id"]
        assert f["content"] == f"notes of {next(n for n, k in CALLERS.items() if k == (user, agent))}"
    # one window per caller: each manifest is its caller's, and no caller's window is another's
    manifests = operator_rows(backend, "conversation_memory", "WHERE event_type = 'context_manifest'")
    assert sorted((m["user_id"], m["agent_id"] or "") for m in manifests) == sorted(
        (u, a or "") for u, a in CALLERS.values()
    )


def test_jane_with_an_agent_is_never_in_the_window_of_jane_without_one(manager, two_tenants):
    """The wall shows jane-with-an-agent the rows jane wrote with none (agent NULL is shared); a window and
    a conversation are keyed exactly, so neither is hers."""
    alone = replace(ACME, agent=None, thread="shared-name")
    with_agent = replace(ACME, thread="shared-name")
    window = manager.assemble_context(alone, "Which benchmark did we use?", "fact_check", record_question=True)
    out = manager.run_tool_round(
        with_agent, call_id="c-1", tool_name="lookup_entity", call=lambda: manager.lookup_entity(with_agent, "x", "y")
    )
    assert "round:" not in out.text  # no window of hers: a plain call
    assert manager.record_turn(with_agent, "user", "my own first turn")["turn_index"] == 1
    assert window.manifest["request"]["agent"] is None


def test_racing_writers_of_one_conversation_take_distinct_turn_numbers(manager, sqlite_path, two_tenants):
    who = replace(ACME, thread="busy-thread")
    managers = [MemoryManager(open_sqlite(sqlite_path), embedder=manager.embedder) for _ in range(4)]
    barrier = threading.Barrier(len(managers))
    errors = []

    def write(m: MemoryManager, n: int) -> None:
        barrier.wait()
        try:
            for i in range(10):
                m.record_turn(who, "user", f"writer {n} turn {i}")
        except Exception as exc:  # pragma: no cover - the failure this test is for
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(m, n)) for n, m in enumerate(managers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for m in managers:
        m.close()
    assert errors == []
    (conversation,) = _conversations(manager.backend, "busy-thread").values()
    numbers = [t["turn_index"] for t in _turns(manager.backend, conversation["id"])]
    assert numbers == list(range(1, 41)) and conversation["next_turn"] == 41


def test_two_sessions_of_a_caller_without_a_thread_are_two_conversations(manager, two_tenants):
    here, there = (replace(ACME, thread=None, session=s) for s in ("sess-a", "sess-b"))
    manager.record_turn(here, "user", "The cabin code is 4471.")
    manager.record_turn(there, "user", "Book the ferry.")
    rows = operator_rows(manager.backend, "conversation", "WHERE session_id IN ('sess-a', 'sess-b')")
    assert sorted(r["session_id"] for r in rows) == ["sess-a", "sess-b"]
    [a] = [r for r in rows if r["session_id"] == "sess-a"]
    assert [t["content"] for t in _turns(manager.backend, a["id"])] == ["The cabin code is 4471."]
    tail = manager.assemble_context(there, "What should I book?", "fact_check").text
    assert "Book the ferry." in tail and "cabin code" not in tail.split('<slice name="recalled_history">')[0]
