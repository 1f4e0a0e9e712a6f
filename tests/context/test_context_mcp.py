"""The context window over MCP: the prompt, tool rounds, expand and clarify, in both protocol eras."""

from __future__ import annotations

import hashlib
import json
import re

import mcp_types
import pytest
from backend_helpers import operator_rows
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, placed
from fastmcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import log_rows, stdio_app
from stdio_helpers import serve_stdio

from memgate.manager import ACME
from memgate.manager.demo.dataset import ACME_BUDGET

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]
TOOLS = ["clarify", "execute_query", "expand", "lookup_entity", "memory", "memory_write", "remember", "search_memory"]
SPENT = (
    "This context window's tool rounds are spent (3 of 3); answer from what the window and earlier results "
    "hold, or ask the user."
)
#: the first line of a call answered after its window's rounds are spent (not charged to the window)
NOTICE = "window: this context window's tool budget is spent (3 of 3 rounds), so this result was not charged to it"
NOT_ISSUED = (
    "That memory id was not issued to you as a pointer or summary in your current context window; "
    'expand only ids the window shows with tier="pointer" or tier="summary".'
)


@pytest.fixture
def servers(sqlite_path, two_tenants):
    """make(thread=..., user=...) -> an in-process stdio server (its own server session) on the test database."""
    made = []

    def make(thread="helios-review", user="jane"):
        mcp, manager = stdio_app(sqlite_path, user=user, thread=thread)
        made.append(manager)
        return mcp

    yield make
    for m in made:
        m.close()


def events(backend, event_type):
    return operator_rows(
        backend, "conversation_memory", "WHERE event_type = :t ORDER BY created_at, id", {"t": event_type}
    )


def manifests(backend):
    return [json.loads(r["content_json"]) for r in events(backend, "context_manifest")]


async def window(client, question=FACT_CHECK, intent="fact_check") -> str:
    r = await client.get_prompt("context_window", {"question": question, "intent": intent})
    return r.messages[0].content.text


@pytest.mark.parametrize("mode", MODES)
async def test_the_prompt_assembles_the_fact_check_window_and_records_its_manifest(servers, manager, backend, mode):
    async with Client(servers(), mode=mode) as c:
        [prompt] = [p for p in await c.list_prompts() if p.name == "context_window"]
        text = await window(c)
    assert [(a.name, a.required) for a in prompt.arguments] == [("question", True), ("intent", False)]
    [m] = manifests(backend)
    assert m["window_hash"] == hashlib.sha256(text.encode()).hexdigest()
    assert placed(m)["ent_acme_helios_v2"] == ("durable_facts", "full", "current")
    assert "ent_acme_helios_v1" not in placed(m)  # superseded; fact_check admits no linked history
    assert placed(m)["sum_acme_july"] == ("recalled_history", "full", "historical")
    assert '<annotation current_fact_id="ent_acme_helios_v2">' in text
    assert m["arithmetic"]["available"] == 3100 and m["request"]["thread"] == "helios-review"
    assert [e["memory_id"] for e in m["memories"] if e["slice"] == "tool_surface"] != []
    assert [
        line.split('"')[1] for line in text.splitlines() if line.startswith('<memory id="') and 'type="tool"' in line
    ] == TOOLS
    # the window the host received replays from its manifest, before and after a correction
    assert manager.replay_context(JANE_IN_REVIEW, m["manifest_id"]).text == text
    manager.correct_entity(ACME, "model:helios-rag", "beir_ndcg10", "0.81", expected_version=2)
    assert manager.replay_context(JANE_IN_REVIEW, m["manifest_id"]).matches


@pytest.mark.parametrize(
    "args, message",
    [
        ({"intent": "fact_check"}, "missing required argument(s): question"),
        (
            {"question": FACT_CHECK, "intent": "poem"},
            "intent must be one of comparison, fact_check, general, got 'poem'",
        ),
    ],
)
async def test_a_bad_prompt_request_gets_invalid_params_and_writes_nothing(servers, backend, args, message):
    async with Client(servers()) as c:
        with pytest.raises(MCPError, match="intent|question") as err:
            await c.get_prompt("context_window", args)
    assert err.value.error.code == -32602 and message in str(err.value)
    assert manifests(backend) == []


async def test_without_an_intent_the_prompt_assembles_the_general_window(servers, backend):
    """The demo's budget names comparison and fact_check only: general is every budget's, with its default split."""
    async with Client(servers()) as c:
        r = await c.get_prompt("context_window", {"question": "What do we know about Helios RAG?"})
    assert r.messages[0].content.text.count("context window: general |") == 1
    [m] = manifests(backend)
    assert m["intent"] == "general"
    assert m["arithmetic"]["shares"] == {
        "durable_facts": 0.3,
        "evidence": 0.35,
        "recalled_history": 0.1,
        "volatile_tail": 0.25,
    }


async def test_a_budget_too_small_for_the_guidelines_fails_naming_the_slice(servers, manager, backend):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 1950})
    async with Client(servers()) as c:
        with pytest.raises(MCPError, match="too small for the guidelines slice"):
            await window(c)
    assert manifests(backend) == []


@pytest.mark.parametrize("mode", MODES)
async def test_thirty_calls_after_one_window_are_all_answered_with_the_notice_from_the_fourth(servers, backend, mode):
    async with Client(servers(), mode=mode) as c:
        await window(c)
        results = [
            await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False) for _ in range(30)
        ]
    texts = [r.content[0].text for r in results]
    for n, (r, text) in enumerate(zip(results[:3], texts, strict=False), start=1):
        assert not r.is_error and text.startswith("tool result: tr_") and f"| round: {n} of 3 |" in text
        assert not (r.meta or {}).get("memgate/notice")
    for r, text in zip(results[3:], texts[3:], strict=True):
        first, second = text.split("\n", 2)[:2]
        assert not r.is_error and first.startswith(NOTICE) and "context_window prompt" in first
        assert second.startswith("entity: model:helios-rag")  # the plain result, whole
        assert r.meta["memgate/notice"] == first
    calls = log_rows(backend, tool_name="lookup_entity")
    assert [c["status"] for c in calls] == ["ok"] * 30
    [m] = manifests(backend)
    recorded = events(backend, "tool_result")  # only the three rounds are charged and recorded
    assert [(e["source_table"], e["source_id"], e["window_id"]) for e in recorded] == [
        ("mcp_call_log", c["call_id"], m["manifest_id"]) for c in calls[:3]
    ]
    assert [e["id"] for e in recorded] == [t.split(" | ")[0].removeprefix("tool result: ") for t in texts[:3]]
    assert sum(e["token_count"] for e in recorded) <= 1000  # the shared tool reserve
    assert all(e["thread_id"] == "helios-review" and e["user_id"] == "jane" for e in recorded)


@pytest.mark.parametrize("mode", MODES)
async def test_a_tenant_that_refuses_spent_windows_gets_one_sentence_and_no_call(servers, manager, backend, mode):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "spent_rounds": "refuse"})
    async with Client(servers(), mode=mode) as c:
        await window(c)
        results = [
            await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False) for _ in range(5)
        ]
    assert [r.is_error for r in results] == [False, False, False, True, True]
    assert results[3].content[0].text == SPENT
    calls = log_rows(backend, tool_name="lookup_entity")
    assert [c["status"] for c in calls] == ["ok", "ok", "ok", "denied", "denied"]
    assert len(events(backend, "tool_result")) == 3  # refused calls spend no rounds


async def test_a_spent_tool_reserve_ends_the_rounds(servers, manager, backend):
    manager.set_context_budget(
        ACME, {**ACME_BUDGET, "tool_reserve": 400, "usable_context": 5000 - 600, "max_rounds": 10}
    )
    async with Client(servers()) as c:
        await window(c)
        texts = [
            (await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False)).content[0].text
            for _ in range(4)
        ]
    charged = sum(e["token_count"] for e in events(backend, "tool_result"))
    assert charged <= 400
    assert any(t.startswith("window: this context window's tool budget is spent (") for t in texts)


async def test_without_a_window_a_tool_answers_as_before(servers, backend):
    async with Client(servers(thread="no-window-here")) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    assert r.content[0].text.startswith("entity: model:helios-rag beir_ndcg10 |")
    assert events(backend, "tool_result") == []


def _small_budget(manager):
    """A budget whose variable slices hold ~400 tokens: some memories become pointers. No relevance
    floor, so the report's second chunk (recall@100, weak for this question) is evidence too."""
    probe = manager.assemble_context(ACME, FACT_CHECK, "fact_check").manifest
    manager.set_context_budget(
        ACME,
        {
            **ACME_BUDGET,
            "usable_context": 1900 + sum(probe["arithmetic"]["fixed"].values()) + 400,
            "relevance_floor": 0.0,
        },
    )


@pytest.mark.parametrize("mode", MODES)
async def test_expand_gives_an_issued_pointer_in_full_and_refuses_any_other_id(servers, manager, backend, mode):
    _small_budget(manager)
    async with Client(servers(), mode=mode) as c:
        await window(c)
        [m] = [x for x in manifests(backend) if x["request"]["thread"] == "helios-review"]
        pointer = next(e for e in m["memories"] if e["tier"] == "pointer")
        full = await c.call_tool("expand", {"memory_id": pointer["memory_id"]})
        never = await c.call_tool("expand", {"memory_id": "ent_acme_helios_v1"}, raise_on_error=False)
        full_tier = next(e for e in m["memories"] if e["tier"] == "full" and e["slice"] == "durable_facts")
        not_a_pointer = await c.call_tool("expand", {"memory_id": full_tier["memory_id"]}, raise_on_error=False)
        foreign = await c.call_tool("expand", {"memory_id": "chk_globex_1_0"}, raise_on_error=False)
    text = full.content[0].text
    assert f'<memory id="{pointer["memory_id"]}"' in text and 'tier="pointer"' not in text
    assert text.splitlines()[0].startswith("tool result: tr_")  # a tool round, charged
    assert [r.content[0].text for r in (never, not_a_pointer, foreign)] == [NOT_ISSUED] * 3
    refused = [r for r in log_rows(backend, tool_name="expand") if r["status"] == "denied"]
    assert [r["error_class"] for r in refused] == ["NotIssued"] * 3


@pytest.mark.parametrize("who", [{"thread": "another-thread"}, {"user": "bob"}])
async def test_expand_of_an_id_issued_to_another_thread_or_user_is_refused(servers, manager, backend, who):
    _small_budget(manager)
    async with Client(servers()) as c:
        await window(c)
    [m] = [x for x in manifests(backend) if x["request"]["thread"] == "helios-review"]
    pointer = next(e for e in m["memories"] if e["tier"] == "pointer")
    async with Client(servers(**who)) as c:
        r = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    assert r.is_error and r.content[0].text == NOT_ISSUED
    [row] = [r for r in log_rows(backend, tool_name="expand")]
    assert (row["status"], row["error_class"]) == ("denied", "NotIssued")


async def test_expand_of_an_issued_pointer_whose_row_is_gone_is_refused(servers, manager, backend):
    _small_budget(manager)
    async with Client(servers()) as c:
        await window(c)
        [m] = [x for x in manifests(backend) if x["request"]["thread"] == "helios-review"]
        [pointer] = [e for e in m["memories"] if e["tier"] == "pointer" and e["ref"]["id"] == "chk_acme_1_1"]
        # re-ingesting the report replaces its chunks: the issued chunk row is gone
        manager.ingest_text(
            ACME,
            title="Helios RAG evaluation report (August re-run)",
            text="Rewritten report.",
            source_uri="demo://acme/1",
            collection="demo",
        )
        r = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    assert r.is_error and r.content[0].text == NOT_ISSUED
    [row] = log_rows(backend, tool_name="expand")
    assert (row["status"], row["error_class"]) == ("denied", "NotIssued")


@pytest.mark.parametrize(
    "change", ["version = version + 1", "deleted_at = '2026-01-01T00:00:00Z'"], ids=["new-version", "deleted"]
)
async def test_expand_of_a_pointer_whose_row_changed_in_place_is_refused(servers, manager, backend, change):
    """The row is still there by id, but not the version the window issued: an operator's
    in-place edit or soft delete. expand must not open what the window never showed."""
    _small_budget(manager)
    async with Client(servers()) as c:
        await window(c)
        [m] = [x for x in manifests(backend) if x["request"]["thread"] == "helios-review"]
        pointer = next(e for e in m["memories"] if e["tier"] == "pointer")
        ref = pointer["ref"]
        with backend.session(ACME) as s, s.transaction():
            s.raw(f"UPDATE {ref['table']} SET {change} WHERE id = :id", {"id": ref["id"]})
        r = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    assert r.is_error and r.content[0].text == NOT_ISSUED
    [row] = log_rows(backend, tool_name="expand")
    assert (row["status"], row["error_class"]) == ("denied", "NotIssued")


@pytest.mark.parametrize("mode", MODES)
async def test_without_a_thread_a_window_lasts_its_stdio_server_session(servers, manager, backend, mode):
    _small_budget(manager)
    first = servers(thread=None)
    async with Client(first, mode=mode) as c:
        await window(c)
        [m] = [x for x in manifests(backend) if x["request"]["session"]]
        pointer = next(e for e in m["memories"] if e["tier"] == "pointer")
        again = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    async with Client(first, mode=mode) as c:  # a new connection to the same server process: same session
        same_process = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    async with Client(servers(thread=None), mode=mode) as c:  # another server process: another session
        other = await c.call_tool("expand", {"memory_id": pointer["memory_id"]}, raise_on_error=False)
    assert not again.is_error and not same_process.is_error
    assert other.is_error and other.content[0].text == NOT_ISSUED


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_without_elicitation_gets_the_fallback_text(servers, backend, mode):
    async with Client(servers(), mode=mode) as c:
        r = await c.call_tool("clarify", {"question": "Which benchmark?", "options": ["BEIR", "MTEB"]})
    assert r.content[0].text == (
        "This client cannot ask the user directly: ask the user in your reply: "
        "Which benchmark? Offer these options: BEIR; MTEB."
    )
    [asked] = events(backend, "clarify_request")
    assert (asked["thread_id"], asked["content"]) == ("helios-review", "Which benchmark?")


def _answering(reply):
    asked = []

    async def handler(message, response_type, params, context):
        asked.append(message)
        if reply is None:
            return mcp_types.ElicitResult(action="decline")
        field = next(iter(params.requested_schema["properties"]))
        return {field: reply}

    return handler, asked


@pytest.mark.parametrize("mode", MODES)
async def test_clarify_asks_by_elicitation_and_keeps_the_answer_in_the_thread(servers, manager, backend, mode):
    handler, asked = _answering("BEIR")
    async with Client(servers(), mode=mode, elicitation_handler=handler) as c:
        await window(c)
        r = await c.call_tool("clarify", {"question": "Which benchmark?", "options": ["BEIR", "MTEB"]})
    assert asked == ["Which benchmark?"]
    assert "<content>BEIR</content>" in r.content[0].text
    [answer] = events(backend, "clarify_answer")
    assert (answer["thread_id"], answer["role"], answer["content"], answer["turn_index"]) == (
        "helios-review",
        "user",
        "BEIR",
        4,
    )  # after the demo thread's two turns and the window's question (recorded by the prompt)
    assert json.loads(answer["content_json"])["action"] == "accept"
    assert events(backend, "tool_result") == []  # clarify is not a tool round
    calls = log_rows(backend, tool_name="clarify")
    assert [c["status"] for c in calls] == ["ok"] * (2 if mode == "auto" else 1)  # modern: two legs
    nxt = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert placed(nxt)[answer["id"]][0] == "volatile_tail"


@pytest.mark.parametrize("mode", MODES)
async def test_a_declined_question_is_kept_as_declined(servers, backend, mode):
    handler, _ = _answering(None)
    async with Client(servers(), mode=mode, elicitation_handler=handler) as c:
        r = await c.call_tool("clarify", {"question": "Which benchmark?"})
    assert r.content[0].text.startswith("The user declined the question")
    [answer] = events(backend, "clarify_answer")
    assert answer["content"] == "(the user declined to answer) Which benchmark?"
    assert json.loads(answer["content_json"])["action"] == "decline"


@pytest.mark.parametrize("mode", MODES)
async def test_a_real_stdio_server_keeps_its_window_across_requests_without_a_thread(
    sqlite_path, manager, backend, tmp_path, two_tenants, mode
):
    _small_budget(manager)
    transport = serve_stdio(
        ["--db", str(sqlite_path), "serve", "--tenant", "acme", "--user", "jane", "--agent", "research-assistant"],
        tmp_path,
    )
    async with Client(transport, mode=mode) as c:
        text = await window(c)
        pointer = re.search(r'^<memory id="([^"]+)"[^>\n]* tier="pointer"', text, re.MULTILINE).group(1)
        full = await c.call_tool("expand", {"memory_id": pointer}, raise_on_error=False)
        rounds = [
            await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False) for _ in range(3)
        ]
    assert not full.is_error
    assert f'<memory id="{pointer}"' in full.content[0].text
    assert [r.is_error for r in rounds] == [False, False, False]  # expand was round 1 of 3
    assert rounds[2].content[0].text.startswith(NOTICE)  # answered, not charged
    sessions = {r["session_id"] for r in log_rows(backend, tenant_id="acme")}
    assert len(sessions) == 1 and next(iter(sessions)).startswith("stdio-")


@pytest.mark.parametrize("mode", MODES)
async def test_an_off_topic_question_gets_no_evidence_in_its_window(servers, backend, mode):
    """The knowledge base holds nothing about it: its nearest passages stay below the relevance floor."""
    async with Client(servers(), mode=mode) as c:
        off = await window(c, "best pizza dough hydration ratio", "comparison")
        on = await window(c, FACT_CHECK)
    assert '<slice name="evidence">' not in off and 'type="kb_chunk"' not in off
    assert '<slice name="evidence">' in on and "chk_acme_1_0" in on
    first = [m for m in manifests(backend) if m["request"]["question"] == "best pizza dough hydration ratio"]
    assert [e for e in first[0]["memories"] if e["ref"]["table"] == "knowledge_base_chunk"] == []
