"""Context assembly on the demo data: refs, tiers, slices and budget arithmetic, compared by numbers."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, excluded, placed, refs

from memgate.manager import ACME, GLOBEX, ContextBudget, ContextTooSmall, InvalidArgument, NotFound, count_tokens
from memgate.manager.context.budget import charge_fixed, grant
from memgate.manager.context.candidates import Candidate
from memgate.manager.context.render import cost, record, slice_overhead
from memgate.manager.context.tiers import SliceFitter
from memgate.manager.demo.dataset import ACME_BUDGET

TOOLS = ["clarify", "execute_query", "expand", "lookup_entity", "memory", "memory_write", "remember", "search_memory"]


@pytest.fixture
def window(manager, two_tenants):
    return manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")


def test_the_fact_check_window_holds_the_current_fact_whole_and_labels_the_july_summary(window):
    m = window.manifest
    assert placed(m)["ent_acme_helios_v2"] == ("durable_facts", "full", "current")
    # version 1 is superseded: linked history is off for fact_check, so it stays a lifecycle exclusion
    assert excluded(m)["ent_acme_helios_v1"] == "lifecycle" and "ent_acme_helios_v1" not in placed(m)
    assert '<memory id="ent_acme_helios_v1"' not in window.text
    assert placed(m)["sum_acme_july"] == ("recalled_history", "full", "historical")
    [july] = [e for e in m["memories"] if e["ref"]["id"] == "sum_acme_july"]
    assert [(n["current_fact_id"], n["used"]["id"]) for n in july["annotations"]] == [
        ("ent_acme_helios_v2", "ent_acme_helios_v1")
    ]
    [v2] = [e for e in m["memories"] if e["ref"]["id"] == "ent_acme_helios_v2"]
    assert v2["required"] is True
    record = window.text.split('<memory id="sum_acme_july"')[1].split("</memory>")[0]
    assert '<annotation current_fact_id="ent_acme_helios_v2">' in record
    assert record.index("</content>") < record.index("<annotation")
    assert "<content>model:helios-rag beir_ndcg10 = 0.78" in window.text


def test_linked_history_is_opt_in_per_intent_in_the_budget(manager, two_tenants):
    """Opted in, version 1 enters only as version 2's linked history, with the relation label (never alone)."""
    assert ContextBudget.from_guideline(ACME_BUDGET).links_history("comparison")
    assert not ContextBudget.from_guideline(ACME_BUDGET).links_history("fact_check")
    manager.set_context_budget(ACME, {**ACME_BUDGET, "linked_history": {"fact_check": True}})
    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    m = window.manifest
    assert "ent_acme_helios_v1" not in excluded(m)
    assert placed(m)["ent_acme_helios_v1"] == ("durable_facts", "full", "historical")
    [v1] = [e for e in m["memories"] if e["ref"]["id"] == "ent_acme_helios_v1"]
    assert (v1["ref"]["version"], v1["link"]) == (
        1,
        {"linked_to": "ent_acme_helios_v2", "relation": "is_superseded_by", "direction": "out"},
    )
    assert (
        '<memory id="ent_acme_helios_v1" type="entity" status="historical" linked_to="ent_acme_helios_v2" '
        'relation="is_superseded_by" direction="out" version="1"'
    ) in window.text
    assert m["budget"]["linked_history"] == {"fact_check": True}
    with pytest.raises(InvalidArgument, match="context_budget.linked_history: names no intent of shares: triage"):
        manager.set_context_budget(ACME, {**ACME_BUDGET, "linked_history": {"triage": True}})


def test_the_fact_check_window_selects_these_refs_in_these_slices(window):
    m = window.manifest
    assert refs(m, "guidelines") == [
        ("guideline_memory", "gdl_acme_citations", 1),
        ("guideline_memory", "gdl_acme_budget", 1),
    ]
    assert refs(m, "persona") == [("persona_memory", "per_acme_research", 1)]
    assert [r[0] for r in refs(m, "tool_surface")] == ["toolbox_memory"] * len(TOOLS)
    assert refs(m, "durable_facts") == [
        ("entity_memory", "ent_acme_helios_v2", 2),
        ("entity_memory", "ent_acme_helios_owner", 1),
    ]
    # chk_acme_2_0 ("Always cite the current version of a metric...") shares only stop words with the
    # question, which the lexical leg no longer matches on, and no positive cosine: it is not evidence;
    # chk_acme_1_1 (recall@100 and the retriever) is below the relevance floor for a question on nDCG@10.
    assert refs(m, "evidence") == [("knowledge_base_chunk", "chk_acme_1_0", 1)]
    assert refs(m, "recalled_history") == [("summarization_memory", "sum_acme_july", 1)]
    assert refs(m, "volatile_tail") == [
        ("conversation_memory", "cnv_acme_review_1", 1),
        ("conversation_memory", "cnv_acme_review_2", 1),
    ]  # by turn index
    assert {m_["tier"] for m_ in m["memories"]} == {"full"}
    assert "globex" not in json.dumps(m) and "ent_globex" not in window.text
    order = [
        window.text.index(f'<slice name="{s}">')
        for s in (
            "guidelines",
            "persona",
            "tool_surface",
            "durable_facts",
            "evidence",
            "recalled_history",
            "volatile_tail",
        )
    ]
    assert order == sorted(order) and window.text.rstrip().endswith(f"<question>{FACT_CHECK}</question>")


def test_the_budget_arithmetic_starts_from_3100_and_splits_the_rest_by_shares(window):
    a = window.manifest["arithmetic"]
    assert (a["usable_context"], a["reserves"]) == (5000, {"output": 400, "tool": 1000, "request_overhead": 500})
    assert a["available"] == 5000 - 400 - 1000 - 500 == 3100
    assert set(a["fixed"]) == {"guidelines", "persona", "tool_surface", "question"}
    lines = window.text.split("\n")
    for name in ("guidelines", "persona", "tool_surface"):  # each block at its o200k_base cost, and its newline
        start = lines.index(f'<slice name="{name}">')
        block = "\n".join(lines[start : lines.index("</slice>", start) + 1])
        assert a["fixed"][name] == count_tokens(block) + 1, name
    head = next(line for line in lines if line.startswith("context window: "))  # after the stable slices
    assert a["fixed"]["question"] == count_tokens(head) + 1 + count_tokens(lines[-1]) + 1  # metadata line too
    assert a["remainder"] == 3100 - sum(a["fixed"].values())
    shares = {"durable_facts": 0.40, "evidence": 0.25, "recalled_history": 0.10, "volatile_tail": 0.25}
    assert a["allowances"] == {k: math.floor(a["remainder"] * v) for k, v in shares.items()}
    assert all(a["used"][k] <= a["granted"][k] for k in shares)
    per_slice = {}
    for m in window.manifest["memories"]:
        per_slice[m["slice"]] = per_slice.get(m["slice"], 0) + m["tokens"]
    assert all(per_slice[k] < a["used"][k] for k in shares)  # the slice's own two lines are charged too
    assert a["total"] == sum(a["fixed"].values()) + sum(a["used"].values()) <= 3100
    assert window.manifest["window_tokens"] == count_tokens(window.text) <= a["total"]  # charges never undercount


def test_a_small_budget_pushes_memories_to_pointers_and_records_budget_exclusions(manager, window):
    fixed = sum(window.manifest["arithmetic"]["fixed"].values())
    manager.set_context_budget(
        ACME, {**ACME_BUDGET, "usable_context": 1900 + fixed + 400, "relevance_floor": 0}
    )  # no floor: every passage is a candidate
    small = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    m = small.manifest
    assert m["arithmetic"]["remainder"] < 450  # the new budget guideline's own text costs a few more
    tiers = {e["ref"]["id"]: e["tier"] for e in m["memories"]}
    assert tiers["ent_acme_helios_v2"] == "full"  # required: never a pointer
    assert "pointer" in tiers.values() and "budget" in excluded(m).values()
    pointer = next(e for e in m["memories"] if e["tier"] == "pointer")
    head = small.text.split(f'<memory id="{pointer["ref"]["id"]}"')[1].split(">")[0]
    assert 'tier="pointer"' in head and 'full_tokens="' in head
    assert m["arithmetic"]["total"] <= m["arithmetic"]["available"]


def test_a_budget_too_small_for_the_guidelines_fails_naming_the_slice_and_writes_nothing(manager, backend, two_tenants):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 400 + 1000 + 500 + 60})
    before = table_digest(backend)
    with pytest.raises(ContextTooSmall, match="the guidelines slice needs \\d+ tokens but only 60") as err:
        manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    assert err.value.field == "guidelines"
    assert table_digest(backend) == before


def test_an_unknown_intent_is_refused_naming_the_intents(manager, two_tenants):
    with pytest.raises(InvalidArgument, match="intent must be one of comparison, fact_check, general, got 'poem'"):
        manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "poem")


def test_every_window_writes_one_thread_scoped_manifest_event(manager, backend, window):
    [row] = operator_rows(backend, "conversation_memory", "WHERE event_type = 'context_manifest'")
    assert (row["id"], row["tenant_id"], row["user_id"], row["thread_id"]) == (
        window.manifest_id,
        "acme",
        "jane",
        "helios-review",
    )
    m = json.loads(row["content_json"])
    assert m["budget_ref"] == {"type": "guideline_memory", "row_id": "context_context_budget", "version": 1}
    assert m["intent"] == "fact_check" and m["evaluated_at"] == row["valid_from"]
    assert m["renderer_version"] == "window-3" and m["selection_version"] == "selection-2/retrieval"
    assert m["recall_ranker"] == "turns-1"
    assert m["request"] == {
        "question": FACT_CHECK,
        "intent": "fact_check",
        "tenant": "acme",
        "user": "jane",
        "agent": "research-assistant",
        "thread": "helios-review",
        "session": None,
    }
    assert (
        m["request_hash"]
        == hashlib.sha256(json.dumps(m["request"], sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    )
    assert m["window_hash"] == hashlib.sha256(window.text.encode()).hexdigest()
    assert m["change_marker"]["kind"] and len(m["change_marker"]["sha256"]) == 64
    for entry in m["memories"]:
        assert {"ref", "slice", "tier", "tokens", "status"} <= set(entry) and set(entry["ref"]) == {
            "table",
            "id",
            "version",
        }
    assert all(e["rule"] in {"lifecycle", "scope", "dedup", "conflict", "budget"} for e in m["exclusions"])
    versions = {tuple(v) for v in m["change_marker"]["versions"]}
    assert ("entity_memory", "ent_acme_helios_v1", 1) in versions  # read, then excluded: still read
    assert ("guideline_memory", "context_context_budget", 1) in versions
    assert m["limits"] == {
        "max_rounds": 3,
        "tool_reserve": 1000,
        "max_tool_result_tokens": 1000,
        "spent_rounds": "answer",
    }
    # another thread of jane's, or another user, does not see it
    assert manager.context_manifest(JANE_IN_REVIEW, window.manifest_id)["manifest_id"] == window.manifest_id
    for other in (replace(JANE_IN_REVIEW, thread="other"), replace(JANE_IN_REVIEW, user="bob")):
        with pytest.raises(NotFound, match="no context manifest"):
            manager.context_manifest(other, window.manifest_id)


def test_globex_assembles_its_own_window_from_its_own_budget(manager, two_tenants):
    m = manager.assemble_context(GLOBEX, "What is Helios RAG's nDCG@10?", "support").manifest
    assert m["arithmetic"]["available"] == 4000 - 500 - 800 - 400
    assert placed(m)["ent_globex_helios_v1"][0] == "durable_facts"
    assert not any(e["ref"]["id"].startswith(("ent_acme", "chk_acme", "sum_acme")) for e in m["memories"])


class _Reversed:
    """A reranker that prefers what the default ranks last: to show the step is pluggable."""

    name = "reversed"

    def scores(self, question, candidates):
        return [1.0 - c.retrieval for c in candidates]


def test_the_rerank_step_is_pluggable(manager, two_tenants):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "relevance_floor": 0.0})  # every ranked passage a candidate
    default = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    other = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check", reranker=_Reversed()).manifest
    assert other["selection_version"] == "selection-2/reversed"
    assert refs(default, "evidence") != refs(other, "evidence")


def test_unused_share_passes_on_in_overflow_order():
    budget = ContextBudget.from_guideline(
        {**ACME_BUDGET, "overflow_order": ["volatile_tail", "evidence", "durable_facts", "recalled_history"]}
    )
    plan = charge_fixed(
        budget, "fact_check", {"guidelines": 100, "persona": 50, "tool_surface": 200, "question": 50}, "acme"
    )
    assert plan.remainder == 3100 - 400
    wants = {"durable_facts": 10, "evidence": 5000, "recalled_history": 0, "volatile_tail": 700}
    grant(plan, lambda name, tokens: min(tokens, wants[name]))
    # durable_facts leaves 1070 of its 1080 and recalled_history all its 270: the tail (first in
    # overflow_order) takes what it needs, evidence (next) the rest
    assert plan.allowances == {"durable_facts": 1080, "evidence": 675, "recalled_history": 270, "volatile_tail": 675}
    assert plan.used == {"durable_facts": 10, "evidence": 2700 - 10 - 700, "recalled_history": 0, "volatile_tail": 700}
    assert sum(plan.used.values()) == plan.remainder


def test_a_required_fact_gets_its_room_from_unused_share(manager, two_tenants):
    no_facts = {"durable_facts": 0.0, "evidence": 0.25, "recalled_history": 0.10, "volatile_tail": 0.25}
    manager.set_context_budget(ACME, {**ACME_BUDGET, "shares": {**ACME_BUDGET["shares"], "fact_check": no_facts}})
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert m["arithmetic"]["allowances"]["durable_facts"] == 0
    assert placed(m)["ent_acme_helios_v2"] == ("durable_facts", "full", "current")
    assert placed(m)["sum_acme_july"][2] == "historical"


def test_a_required_fact_that_cannot_fit_fails_naming_its_slice_and_writes_nothing(manager, backend, window):
    fixed = sum(window.manifest["arithmetic"]["fixed"].values())
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 1900 + fixed + 40})
    before = table_digest(backend)
    with pytest.raises(
        ContextTooSmall, match="the durable_facts slice cannot hold the current fact ent_acme_helios_v2"
    ) as err:
        manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    assert err.value.field == "durable_facts"
    assert table_digest(backend) == before


def test_a_memory_is_fitted_whole_else_as_its_stored_summary_else_as_a_pointer(backend, two_tenants):
    with backend.session(ACME) as s:
        [row] = s.fetch_all("context_rows_workflow_memory", ids=json.dumps(["wfl_acme_eval"]))
    runbook = Candidate("workflow", "durable_facts", row)
    forms = {tier: record("workflow", row, tier=tier, status="current") for tier in ("full", "summary", "pointer")}
    costs = {tier: cost(text) for tier, text in forms.items()}
    assert costs["full"] > costs["summary"] > costs["pointer"]
    assert "steps: 1. freeze qrels" in forms["full"] and "steps:" not in forms["summary"]
    assert f'tier="pointer" full_tokens="{costs["full"]}"' in forms["pointer"]
    assert "<content>Re-run a retrieval evaluation</content>" in forms["pointer"]  # its one line
    fitter = SliceFitter({"durable_facts": [runbook]}, budget=ContextBudget.from_guideline(ACME_BUDGET), tenant="acme")
    opening = slice_overhead("durable_facts")
    for allowance, tier in (
        (opening + costs["full"], "full"),
        (opening + costs["full"] - 1, "summary"),
        (opening + costs["summary"] - 1, "pointer"),
        (opening + costs["pointer"] - 1, None),
    ):
        assert fitter.fill("durable_facts", allowance) == (opening + costs[tier] if tier else 0)
        fitted = fitter.fitted["durable_facts"]
        assert [p.tier for p in fitted.placed] == ([tier] if tier else [])
        assert [c.id for c, _ in fitted.dropped] == ([] if tier else ["wfl_acme_eval"])  # a budget exclusion
