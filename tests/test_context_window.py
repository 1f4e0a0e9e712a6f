"""Context assembly on the demo data: refs, tiers, slices and budget arithmetic, compared by numbers."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, excluded, placed, refs

from memgate.manager import ACME, GLOBEX, ContextTooSmall, InvalidArgument, NotFound, count_tokens
from memgate.manager.demo.dataset import ACME_BUDGET

TOOLS = ["clarify", "execute_query", "expand", "lookup_entity", "memory", "search_memory"]


@pytest.fixture
def window(manager, two_tenants):
    return manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")


def test_the_fact_check_window_holds_the_current_fact_whole_and_labels_the_july_summary(window):
    m = window.manifest
    assert placed(m)["ent_acme_helios_v2"] == ("durable_facts", "full", "current")
    # version 1 enters only as version 2's linked history, with the relation label (never alone)
    assert "ent_acme_helios_v1" not in excluded(m)
    assert placed(m)["ent_acme_helios_v1"] == ("durable_facts", "full", "historical")
    [v1] = [e for e in m["memories"] if e["ref"]["id"] == "ent_acme_helios_v1"]
    assert (v1["ref"]["version"], v1["link"]) == (1, {"linked_to": "ent_acme_helios_v2",
                                                      "relation": "is_superseded_by", "direction": "out"})
    assert ('<memory id="ent_acme_helios_v1" type="entity" status="historical" linked_to="ent_acme_helios_v2" '
            'relation="is_superseded_by" direction="out" version="1"') in window.text
    assert placed(m)["sum_acme_july"] == ("recalled_history", "full", "historical")
    [july] = [e for e in m["memories"] if e["ref"]["id"] == "sum_acme_july"]
    assert [(n["current_fact_id"], n["used"]["id"]) for n in july["annotations"]] == [
        ("ent_acme_helios_v2", "ent_acme_helios_v1")]
    [v2] = [e for e in m["memories"] if e["ref"]["id"] == "ent_acme_helios_v2"]
    assert v2["required"] is True
    record = window.text.split('<memory id="sum_acme_july"')[1].split("</memory>")[0]
    assert '<annotation current_fact_id="ent_acme_helios_v2">' in record
    assert record.index("</content>") < record.index("<annotation")
    assert "<content>model:helios-rag beir_ndcg10 = 0.78" in window.text


def test_the_fact_check_window_selects_these_refs_in_these_slices(window):
    m = window.manifest
    assert refs(m, "guidelines") == [("guideline_memory", "gdl_acme_citations", 1),
                                     ("guideline_memory", "gdl_acme_budget", 1)]
    assert refs(m, "persona") == [("persona_memory", "per_acme_research", 1)]
    assert [r[0] for r in refs(m, "tool_surface")] == ["toolbox_memory"] * len(TOOLS)
    assert refs(m, "durable_facts") == [("entity_memory", "ent_acme_helios_v2", 2),
                                        ("entity_memory", "ent_acme_helios_v1", 1),
                                        ("entity_memory", "ent_acme_helios_owner", 1)]
    assert refs(m, "evidence") == [("knowledge_base_chunk", "chk_acme_1_0", 1),
                                   ("knowledge_base_chunk", "chk_acme_1_1", 1),
                                   ("knowledge_base_chunk", "chk_acme_2_0", 1)]
    assert refs(m, "recalled_history") == [("summarization_memory", "sum_acme_july", 1)]
    assert refs(m, "volatile_tail") == [("conversation_memory", "cnv_acme_review_1", 1),
                                        ("conversation_memory", "cnv_acme_review_2", 1)]  # by turn index
    assert {m_["tier"] for m_ in m["memories"]} == {"full"}
    assert "globex" not in json.dumps(m) and "ent_globex" not in window.text
    order = [window.text.index(f'<slice name="{s}">') for s in
             ("guidelines", "persona", "tool_surface", "durable_facts", "evidence", "recalled_history",
              "volatile_tail")]
    assert order == sorted(order) and window.text.rstrip().endswith(f"<question>{FACT_CHECK}</question>")


def test_the_budget_arithmetic_starts_from_3100_and_splits_the_rest_by_shares(window):
    a = window.manifest["arithmetic"]
    assert (a["usable_context"], a["reserves"]) == (5000, {"output": 400, "tool": 1000, "request_overhead": 500})
    assert a["available"] == 5000 - 400 - 1000 - 500 == 3100
    assert set(a["fixed"]) == {"guidelines", "persona", "tool_surface", "question"}
    assert all(cost > 0 for cost in a["fixed"].values())
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
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 1900 + fixed + 400})
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


def test_a_budget_too_small_for_the_guidelines_fails_naming_the_slice_and_writes_nothing(
        manager, backend, two_tenants):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 400 + 1000 + 500 + 60})
    before = table_digest(backend)
    with pytest.raises(ContextTooSmall, match="the guidelines slice needs \\d+ tokens but only 60") as err:
        manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    assert err.value.field == "guidelines"
    assert table_digest(backend) == before


def test_an_unknown_intent_is_refused_naming_the_intents(manager, two_tenants):
    with pytest.raises(InvalidArgument, match="intent must be one of comparison, fact_check, got 'poem'"):
        manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "poem")


def test_every_window_writes_one_thread_scoped_manifest_event(manager, backend, window):
    [row] = operator_rows(backend, "conversation_memory", "WHERE event_type = 'context_manifest'")
    assert (row["id"], row["tenant_id"], row["user_id"], row["thread_id"]) == (
        window.manifest_id, "acme", "jane", "helios-review")
    m = json.loads(row["content_json"])
    assert m["budget_ref"] == {"type": "guideline_memory", "row_id": "context_context_budget", "version": 1}
    assert m["intent"] == "fact_check" and m["evaluated_at"] == row["valid_from"]
    assert m["renderer_version"] == "window-1" and m["selection_version"] == "selection-1/retrieval"
    assert len(m["request_hash"]) == 64 and len(m["window_hash"]) == 64
    versions = {tuple(v) for v in m["change_marker"]["versions"]}
    assert ("entity_memory", "ent_acme_helios_v1", 1) in versions  # read, then excluded: still read
    assert ("guideline_memory", "context_context_budget", 1) in versions
    assert m["limits"] == {"max_rounds": 3, "tool_reserve": 1000, "max_tool_result_tokens": 1000}
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
    default = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    other = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check", reranker=_Reversed()).manifest
    assert other["selection_version"] == "selection-1/reversed"
    assert refs(default, "evidence") != refs(other, "evidence")
