"""Compaction: a long thread's older raw turns become summaries (never of a summary) the window's tail carries."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner

from memgate.manager import ACME, Conflict, count_tokens, erase
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions
from memgate.manager.clock import now_iso
from memgate.manager.context import assemble
from memgate.manager.conversations import compaction

THREAD = "long-thread"
TAIL = '<slice name="volatile_tail">'


def jane(thread=THREAD):
    return replace(ACME, thread=thread)


def long_thread(manager, n=40, thread=THREAD):
    who = jane(thread)
    for i in range(1, n + 1):
        role = "user" if i % 2 else "assistant"
        manager.record_turn(who, role, f"Turn {i} talks about batch size {i * 8} and warmup step {i * 100}. " * 4)
    return who


def conversation_of(manager, thread=THREAD, user="jane"):
    (row,) = operator_rows(
        manager.backend, "conversation", "WHERE thread_name = :t AND user_id = :u", {"t": thread, "u": user}
    )
    return row["id"]


def tail_of(text: str) -> str:
    start = text.find(TAIL)
    return text[start : text.find("</slice>", start)] if start >= 0 else ""


def test_a_long_thread_is_compacted_and_the_summary_tier_carries_it_within_budget(two_tenants, manager):
    who = long_thread(manager)
    budget = manager.context_budget(who)
    share = int(budget.available * budget.shares_for("fact_check").volatile_tail)
    conversation = conversation_of(manager)
    turns = operator_rows(manager.backend, "conversation_memory", "WHERE conversation_id = :c", {"c": conversation})
    assert sum(count_tokens(f"{t['role']}: {t['content']}") for t in turns) > share  # over its tail share
    window = manager.assemble_context(who, "What batch size did we settle on?", "fact_check", record_question=True)
    (summary,) = operator_rows(
        manager.backend, "summarization_memory", "WHERE conversation_id = :c", {"c": conversation}
    )
    (event,) = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'compaction'")
    record = json.loads(event["content_json"])
    # the record: turn range, source ids and versions, summariser, hashes
    assert record["turns"]["first"] == 1 and record["turns"]["last"] < 40
    assert [s["id"] for s in record["sources"]] == [
        t["id"] for t in sorted(turns, key=lambda t: t["turn_index"]) if t["turn_index"] <= record["turns"]["last"]
    ]
    assert record["summariser"] == compaction.EXTRACTIVE and record["sha256"] == compaction.sha256(summary["content"])
    # the conversation's, not the thread's: no thread_id, so the user's other threads may recall it
    assert (summary["user_id"], summary["agent_id"], summary["thread_id"], summary["conversation_id"]) == (
        ACME.user,
        ACME.agent,
        None,
        conversation,
    )
    assert summary["source_id"] == event["id"] and count_tokens(summary["content"]) <= share // 2 + 1
    # the window's tail: the summary first, then only the turns after its range, within the tail share
    tail = tail_of(window.text)
    assert f'id="{summary["id"]}"' in tail
    assert f"Turn {record['turns']['last'] + 1} talks" in tail and "Turn 3 talks" not in tail.split("</memory>", 1)[1]
    placed = [m for m in window.manifest["memories"] if m["slice"] == "volatile_tail"]
    assert sum(m["tokens"] for m in placed) <= window.manifest["arithmetic"]["used"]["volatile_tail"] <= share * 2
    # the raw turns stay
    assert len(operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'turn'")) >= 40


def test_each_compaction_summarises_raw_turns_never_a_summary(two_tenants, manager):
    who = long_thread(manager)
    first = manager.compact_conversation(who, "fact_check")
    assert first is not None and first["title"].startswith("Conversation turns 1-")
    assert manager.compact_conversation(who, "fact_check") is None  # what is left fits the share
    long_thread(manager, n=30)  # the thread goes on
    second = manager.compact_conversation(who, "fact_check")
    last_of_first = int(first["title"].rsplit("-", 1)[1])
    assert second["title"].startswith(f"Conversation turns {last_of_first + 1}-")  # the turns after the first
    sources = json.loads(second["source_versions_json"])
    assert {s["table"] for s in sources} == {"conversation_memory"}  # raw turns only, never the first summary
    (event,) = operator_rows(manager.backend, "conversation_memory", "WHERE id = :i", {"i": second["source_id"]})
    assert first["content"] not in json.dumps(json.loads(event["content_json"]))


def test_sampling_summary_is_used_when_the_tenant_allows_and_bounded(two_tenants, manager):
    who = long_thread(manager)
    seen = []

    def sampler(text, system, max_tokens):
        seen.append((text, system, max_tokens))
        return "The user and the assistant discussed batch sizes and warmup steps."

    row = manager.compact_conversation(who, "fact_check", sampler=sampler)
    (text, system, max_tokens) = seen[0]
    assert "add no facts" in system and str(max_tokens) in system and "[1] jane: Turn 1" in text
    (event,) = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'compaction'")
    assert json.loads(event["content_json"])["summariser"] == "sampling"
    # every identifier, amount and date the turns hold is kept verbatim: the ones the sample dropped follow it
    assert row["content"].startswith("The user and the assistant")
    assert "\nVerbatim: " in row["content"] and "batch size" not in row["content"].split("Verbatim:")[1]
    # a summary over the bound falls back to the extractive one
    long_thread(manager, n=30)
    manager.compact_conversation(who, "fact_check", sampler=lambda *a: "word " * 5000)
    kinds = [
        json.loads(e["content_json"])["summariser"]
        for e in operator_rows(
            manager.backend, "conversation_memory", "WHERE event_type = 'compaction' ORDER BY created_at"
        )
    ]
    assert kinds == ["sampling", compaction.EXTRACTIVE]


def test_compact_cli_and_turn_cli(two_tenants, manager, sqlite_path, monkeypatch):
    invoke = cli_runner(sqlite_path, monkeypatch)
    for i in range(5):
        out = invoke("turn", "add", "-t", "acme", "--thread", "cli-thread", "--user", "jane", f"question {i}").output
        assert f"turn {i + 1} of thread cli-thread (user)" in out
    out = invoke("compact", "-t", "acme", "--thread", "cli-thread").output
    assert "Conversation turns 1-3 (3 turns)" in out
    listed = invoke("turn", "ls", "-t", "acme", "--thread", "cli-thread").output.splitlines()
    assert [ln.split()[1] for ln in listed] == ["user", "user", "user", "summary", "user", "user"]
    assert "nothing to compact" in invoke("compact", "-t", "acme", "--thread", "no-such-thread").output


def test_a_summary_is_erased_with_its_turns(two_tenants, manager):
    who = long_thread(manager)
    row = manager.compact_conversation(who, "fact_check")
    other = long_thread(manager, n=20, thread="other-thread")
    kept = manager.compact_conversation(other, "fact_check", force=True)
    report = erase(manager.backend, "acme", "thread", THREAD, requested_by="test")
    assert report.counts["summarization_memory"] == 1
    assert operator_rows(manager.backend, "summarization_memory", "WHERE id = :i", {"i": row["id"]}) == []
    assert operator_rows(manager.backend, "summarization_memory", "WHERE id = :i", {"i": kept["id"]})


def test_a_summary_never_crosses_a_wall(two_tenants, manager):
    long_thread(manager)
    manager.compact_conversation(jane(), "fact_check")
    bob = replace(ACME, user="bob", thread=THREAD)
    window = manager.assemble_context(bob, "What batch size did we settle on?", "fact_check")
    assert "Conversation turns" not in window.text and "batch size 8" not in window.text
    assert manager.compact_conversation(bob, "fact_check", force=True) is None  # bob has no turns there


@pytest.mark.parametrize("words", [30, 4])
def test_the_extractive_summary_is_deterministic(two_tenants, manager, words):
    who = long_thread(manager, n=6)
    with manager.backend.session(who) as s:
        budget = manager.context_budget(who)
        planned = compaction.plan(s, who, budget, "fact_check", force=True)
    assert compaction.extractive(planned) == compaction.extractive(planned)


def test_a_tenant_that_chooses_extractive_never_samples(two_tenants, manager):
    from memgate.manager.claims import guidelines
    from memgate.manager.identity import Identity

    tenant = Identity(tenant="acme", principal="test")
    with manager.backend.session(tenant) as s:
        guidelines.update_guideline(
            s,
            tenant,
            row_id="compaction",
            key="compaction",
            content="Summaries without a model.",
            now=compaction_now(),
            content_json={"summariser": "extractive"},
        )
    who = long_thread(manager)
    called = []
    manager.compact_conversation(who, "fact_check", sampler=lambda *a: called.append(a) or "sampled")
    assert called == []
    (event,) = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'compaction'")
    assert json.loads(event["content_json"])["summariser"] == compaction.EXTRACTIVE


def compaction_now():
    from memgate.manager import now_iso

    return now_iso()


def test_constraint_recovery_after_five_compaction_cycles(two_tenants, manager):
    """The article's dashboard number on small data: a pinned constraint (a guideline, never summarised)
    and every identifier, amount and date the turns held, exact after five compaction cycles."""
    from memgate.manager.claims import guidelines

    pinned = "Never refund more than $500 without a manager's approval."
    tenant = replace(ACME, user=None, agent=None, principal="test")
    with manager.backend.session(tenant) as s:
        guidelines.update_guideline(
            s, tenant, row_id="refund_limit", key="refund_limit", content=pinned, now=compaction_now()
        )
    identifiers: dict[str, list[str]] = {}
    for c in range(3):
        who = jane(f"case-thread-{c}")
        for cycle in range(5):
            for n in range(4):
                case = f"CASE-{c}{cycle}{n}-77"
                filler = "the customer called again about the refund asked for last week and after a long look " * 2
                # the identifiers come after the first 30 words: only the verbatim rule keeps them
                text = f"So {filler} we approved {case} for ${120 + cycle * 10 + n}.00 on 8 May 202{cycle}."
                identifiers.setdefault(who.thread, []).append(case)
                manager.record_turn(who, "user" if n % 2 == 0 else "assistant", text)
            assert manager.compact_conversation(who, "fact_check", force=True) is not None
    recovered = total = 0
    for thread, cases in identifiers.items():
        conversation = conversation_of(manager, thread)
        summaries = operator_rows(
            manager.backend, "summarization_memory", "WHERE conversation_id = :c", {"c": conversation}
        )
        assert len(summaries) == 5
        assert all("summarization" not in s["source_versions_json"] for s in summaries)  # raw turns only
        text = "\n".join(s["content"] for s in summaries)
        assert pinned not in text  # a guideline is never a summariser's input
        window = manager.assemble_context(jane(thread), "Which refunds were approved?", "fact_check")
        assert pinned in window.text.split("</slice>", 1)[0]  # whole, in the guidelines slice
        # each case is in a summary, or (the newest turns, never compacted) raw in the window's tail
        total += len(cases)
        recovered += sum(case in text or case in tail_of(window.text) for case in cases)
    assert recovered == total


def test_a_conversation_under_its_tail_share_is_not_compacted(two_tenants, manager):
    """Its raw turns cost more than half the tail share (what a compaction would leave raw) but less than
    the share: neither the window nor `compact` summarises them; forced, it does."""
    who = jane("short-thread")
    budget = manager.context_budget(who)
    share = int(budget.available * budget.shares_for("fact_check").volatile_tail)
    stored, n = 0, 0
    while stored < share * 2 // 3:
        n += 1
        text = f"Turn {n} is about learning rate {n / 1000} and seed {n * 7}."
        manager.record_turn(who, "user" if n % 2 else "assistant", text)
        stored += count_tokens(f"{'User' if n % 2 else 'Assistant'}: {text}")
    conversation = conversation_of(manager, "short-thread")
    turns = operator_rows(manager.backend, "conversation_memory", "WHERE conversation_id = :c", {"c": conversation})
    cost = sum(int(t["token_count"] or 0) or count_tokens(f"{t['role']}: {t['content']}") for t in turns)
    assert share // 2 < cost <= share, (cost, share)
    manager.assemble_context(who, "Which learning rate did we use?", "fact_check", record_question=True)
    assert manager.compact_conversation(who, "fact_check") is None
    summaries = "WHERE conversation_id = :c"
    assert operator_rows(manager.backend, "summarization_memory", summaries, {"c": conversation}) == []
    assert operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'compaction'") == []
    assert manager.compact_conversation(who, "fact_check", force=True) is not None


def _planned(manager, who):
    """What `compact --force` would summarise now, read in its own session (the first half of a compaction)."""
    now = now_iso()
    with manager.backend.session(who, now=now) as s:
        budget, _ = assemble.budget_of(s, now)
        return compaction.plan(s, who, budget, "fact_check", force=True)


def _write(manager, who, planned):
    now = now_iso()
    with manager.backend.session(who, now=now) as s, s.transaction():
        return compaction.write(s, who, planned, "a summary", compaction.EXTRACTIVE, now)


def test_a_compaction_planned_before_another_one_wrote_writes_nothing(two_tenants, manager):
    who = long_thread(manager, n=8)
    planned = _planned(manager, who)
    assert manager.compact_conversation(who, "fact_check", force=True) is not None  # another one, meanwhile
    conversation = conversation_of(manager)
    before = operator_rows(manager.backend, "summarization_memory", "WHERE conversation_id = :c", {"c": conversation})
    with pytest.raises(Conflict, match="compacted meanwhile"):
        _write(manager, who, planned)
    after = operator_rows(manager.backend, "summarization_memory", "WHERE conversation_id = :c", {"c": conversation})
    assert after == before and len(after) == 1


def test_a_turn_that_changed_while_it_was_summarised_stops_the_compaction(two_tenants, manager):
    who = long_thread(manager, n=8)
    planned = _planned(manager, who)
    with manager.backend.unwalled_connection() as conn:
        install_context_functions(conn, ConnectionContext("acme", ACME.user, ACME.agent))
        conn.execute(
            f"UPDATE {manager.backend.physical_table('conversation_memory')} SET version = version + 1 WHERE id = ?",
            (planned.turns[0]["id"],),
        )
        conn.commit()
    with pytest.raises(Conflict, match="a turn changed"):
        _write(manager, who, planned)
    conversation = conversation_of(manager)
    assert (
        operator_rows(manager.backend, "summarization_memory", "WHERE conversation_id = :c", {"c": conversation}) == []
    )
