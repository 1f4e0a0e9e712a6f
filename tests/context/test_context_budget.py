"""The context budget: a typed, validated guideline, versioned by policy updates."""

from __future__ import annotations

import json
import threading

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME, DEFAULT_INTENT, GLOBEX, Conflict, ContextBudget, InvalidArgument
from memgate.manager.demo.dataset import ACME_BUDGET

SHARES = {"durable_facts": 0.4, "evidence": 0.25, "recalled_history": 0.1, "volatile_tail": 0.25}


@pytest.mark.parametrize(
    "data, field, reason",
    [
        ({"usable_context": 0}, "context_budget.usable_context", "greater than or equal to 1"),
        ({"usable_context": 3000}, "context_budget.usable_context", "must exceed the reserves (3500 tokens)"),
        ({"tool_reserve": -1}, "context_budget.tool_reserve", "greater than or equal to 0"),
        ({"max_rounds": "3"}, "context_budget.max_rounds", "valid integer"),
        ({"weights": {"rerank": 1.5}}, "context_budget.weights.rerank", "less than or equal to 1"),
        ({"weights": {"rerank": 0, "confidence": 0, "recency": 0}}, "context_budget.weights", "at least one weight"),
        ({"recency_days": 0}, "context_budget.recency_days", "greater than 0"),
        (
            {"shares": {"fact_check": {**SHARES, "evidence": 0.5}}},
            "context_budget.shares.fact_check",
            "sum to at most 1, got 1.25",
        ),
        (
            {"shares": {"fact_check": {"evidence": 0.5}}},
            "context_budget.shares.fact_check.durable_facts",
            "Field required",
        ),
        ({"shares": {}}, "context_budget.shares", "at least 1 item"),
        (
            {"overflow_order": ["evidence", "durable_facts", "volatile_tail"]},
            "context_budget.overflow_order",
            "must name each of durable_facts, evidence, recalled_history, volatile_tail once",
        ),
        (
            {"overflow_order": ["evidence", "evidence", "volatile_tail", "recalled_history"]},
            "context_budget.overflow_order",
            "once",
        ),
        ({"max_window_tokens": 12000}, "context_budget.max_window_tokens", "is now usable_context"),
        ({"max_tool_rounds": 8}, "context_budget.max_tool_rounds", "is now max_rounds"),
    ],
)
def test_a_malformed_budget_is_refused_naming_the_key(data, field, reason):
    with pytest.raises(InvalidArgument, match="^context_budget") as err:
        ContextBudget.from_guideline(data)
    assert err.value.field == field
    assert reason in err.value.message


def test_the_demo_budget_leaves_3100_tokens_before_fixed_slices():
    budget = ContextBudget.from_guideline(ACME_BUDGET)
    assert (budget.usable_context, budget.output_reserve, budget.tool_reserve, budget.request_overhead_reserve) == (
        5000,
        400,
        1000,
        500,
    )
    assert budget.available == 3100
    assert budget.shares_for("fact_check").durable_facts == 0.40
    assert budget.overflow_order == ["evidence", "durable_facts", "volatile_tail", "recalled_history"]
    with pytest.raises(InvalidArgument, match="intent must be one of comparison, fact_check") as err:
        budget.shares_for("poetry")
    assert err.value.field == "intent"


def test_the_demo_seeds_the_budget_with_exactly_these_values(backend, two_tenants):
    [row] = operator_rows(backend, "guideline_memory", "WHERE tenant_id = 'acme' AND guideline_key = 'context_budget'")
    assert json.loads(row["content_json"]) == {
        "usable_context": 5000,
        "output_reserve": 400,
        "tool_reserve": 1000,
        "request_overhead_reserve": 500,
        "max_rounds": 3,
        "max_tool_result_tokens": 1000,
        "weights": {"rerank": 0.60, "confidence": 0.25, "recency": 0.15},
        "recency_days": 60,
        "shares": {
            "comparison": {"durable_facts": 0.15, "evidence": 0.60, "recalled_history": 0.05, "volatile_tail": 0.20},
            "fact_check": {"durable_facts": 0.40, "evidence": 0.25, "recalled_history": 0.10, "volatile_tail": 0.25},
        },
        "overflow_order": ["evidence", "durable_facts", "volatile_tail", "recalled_history"],
    }


def test_every_tenant_has_its_budget_under_the_same_row_id(manager, backend, two_tenants):
    rows = operator_rows(backend, "guideline_memory", "WHERE guideline_key = 'context_budget' ORDER BY tenant_id")
    assert [(r["tenant_id"], r["row_id"], r["version"]) for r in rows] == [
        ("acme", "context_context_budget", 1),
        ("globex", "context_context_budget", 1),
    ]
    assert manager.context_budget(ACME).available == 3100
    assert manager.context_budget(GLOBEX).usable_context == 4000


def test_a_policy_update_retires_the_old_version_and_inserts_the_next(manager, backend, two_tenants):
    row = manager.set_context_budget(ACME, {**ACME_BUDGET, "max_rounds": 2}, expected_version=1)
    assert (row["row_id"], row["version"], row["source_id"]) == ("context_context_budget", 2, "gdl_acme_budget")
    versions = operator_rows(
        backend, "guideline_memory", "WHERE tenant_id = 'acme' AND row_id = 'context_context_budget' ORDER BY version"
    )
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[0]["valid_until"] == versions[1]["valid_from"]  # retired when the next began
    assert versions[1]["valid_until"] is None
    assert manager.context_budget(ACME).max_rounds == 2
    assert manager.context_budget(GLOBEX).max_rounds == 4  # the other tenant's row of the same id is untouched


def test_a_stale_or_invalid_policy_update_writes_nothing(manager, backend, two_tenants):
    before = table_digest(backend)
    with pytest.raises(Conflict, match="at version 1, not 3"):
        manager.set_context_budget(ACME, ACME_BUDGET, expected_version=3)
    with pytest.raises(InvalidArgument, match="context_budget.shares.fact_check: shares must sum"):
        manager.set_context_budget(ACME, {**ACME_BUDGET, "shares": {"fact_check": {**SHARES, "evidence": 0.9}}})
    assert table_digest(backend) == before


def test_two_concurrent_updates_of_one_version_cannot_both_commit(manager, backend, two_tenants):
    results: list[object] = []
    barrier = threading.Barrier(2)

    def update(rounds: int) -> None:
        barrier.wait()
        try:
            results.append(
                manager.set_context_budget(ACME, {**ACME_BUDGET, "max_rounds": rounds}, expected_version=1)["version"]
            )
        except Conflict as exc:
            results.append(exc)

    threads = [threading.Thread(target=update, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(map(type, results), key=str) == sorted([int, Conflict], key=str)
    versions = operator_rows(
        backend, "guideline_memory", "WHERE tenant_id = 'acme' AND row_id = 'context_context_budget'"
    )
    assert sorted(v["version"] for v in versions) == [1, 2]


def test_every_budget_has_the_general_intent_and_a_new_tenants_default_names_it():
    default = ContextBudget()
    assert DEFAULT_INTENT == "general" and default.intents[0] == "general"
    general = default.shares_for("general")
    assert (general.durable_facts, general.evidence, general.recalled_history, general.volatile_tail) == (
        0.30,
        0.35,
        0.10,
        0.25,
    )
    # a budget stored before the intent existed (the demo's names comparison and fact_check only) gets
    # the same default split; one that names it keeps its own
    assert ContextBudget.from_guideline(ACME_BUDGET).shares_for("general") == general
    own = {**ACME_BUDGET, "shares": {**ACME_BUDGET["shares"], "general": SHARES}}
    assert ContextBudget.from_guideline(own).shares_for("general").durable_facts == 0.4
    assert "general" in ContextBudget.from_guideline(ACME_BUDGET).to_json()["shares"]


def test_a_stored_budget_without_general_is_not_rewritten_and_its_windows_replay(manager, backend, two_tenants):
    before = table_digest(backend, tables=["guideline_memory"])
    window = manager.assemble_context(ACME, "What do we know about Helios RAG?", DEFAULT_INTENT)
    assert window.manifest["intent"] == "general" and window.manifest["budget_ref"]["version"] == 1
    assert table_digest(backend, tables=["guideline_memory"]) == before
    assert manager.replay_context(ACME, window.manifest_id).matches


def test_an_operator_adds_an_intent_with_budget_set_and_a_window_uses_it(sqlite_path, monkeypatch, two_tenants):
    from cli_helpers import cli_runner

    run = cli_runner(sqlite_path, monkeypatch)
    howto = '{"durable_facts": 0.2, "evidence": 0.5, "recalled_history": 0.1, "volatile_tail": 0.2}'
    assert "version 2" in run("budget", "set", "-t", "acme", f"shares.howto={howto}").output
    shown = json.loads(run("budget", "show", "-t", "acme").output)
    assert list(shown["shares"]) == ["comparison", "fact_check", "general", "howto"]
    out = run("context", "How do I deploy Helios?", "-t", "acme", "-i", "howto").stderr
    assert "tokens" in out
    default = run("context", "What do we know about Helios RAG?", "-t", "acme").stdout
    assert "context window: general |" in default
