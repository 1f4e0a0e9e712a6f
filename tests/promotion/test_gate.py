"""The promotion gate through MemoryManager.remember: code checks first, the rules assessor, one transaction.

Evidence is "given" the way a tool result gives it: an ok mcp_call_log row of the caller that cited
the id (what the dispatcher writes after search_memory or lookup_entity).
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME, GLOBEX, Identity, InvalidArgument
from memgate.manager.clock import now_iso
from memgate.manager.promotion import review
from memgate.manager.registry.calllog import CallRecord

BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")
AUGUST = "The August re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78."


def given(manager, identity, *ids):
    """A tool result the caller received cited `ids`."""
    manager.log_call(
        identity,
        CallRecord(
            call_id=f"call_{ids[0]}_{now_iso()}",
            called_at=now_iso(),
            tool_name="search_memory",
            status="ok",
            cited_ids=ids,
        ),
    )


def first_line(out) -> str:
    return out.text.splitlines()[0]


@pytest.fixture
def acme(manager, two_tenants):
    given(manager, ACME, "chk_acme_1_0", "chk_acme_1_1", "ent_acme_helios_owner")
    return manager


def test_a_supported_note_is_promoted_searchable_by_jane_only_and_supported_by_its_evidence(acme):
    out = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"])
    assert first_line(out).startswith("promoted doc_") and first_line(out).endswith("| rule: passed"), out.text
    doc = out.structured["record_id"]
    hits = acme.search_memory(ACME, "August re-run nDCG BEIR", collection="remembered")
    assert doc in hits.text and "Evidence: chk_acme_1_0" in hits.text
    assert "results: 0" in acme.search_memory(BOB, "August re-run nDCG BEIR", collection="remembered").text
    [link] = [v for v in acme.memory_links(ACME, doc)]
    assert (link.relation, link.far["id"]) == ("is_supported_by", "chk_acme_1_0")


def test_a_fact_is_promoted_where_lookup_entity_finds_it(acme):
    out = acme.remember(
        ACME, "0.91", kind="fact", subject="model:helios-rag", predicate="recall_at_100", evidence=["chk_acme_1_1"]
    )
    assert first_line(out).startswith("promoted ent_"), out.text
    assert "<content>0.91" in acme.lookup_entity(ACME, "model:helios-rag", "recall_at_100").text
    assert "claims: 0" in acme.lookup_entity(BOB, "model:helios-rag", "recall_at_100").text


def test_a_contradiction_of_the_current_value_is_pending_and_lookup_still_answers_it(acme, backend):
    out = acme.remember(
        ACME, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    assert first_line(out).startswith("pending cand_") and first_line(out).endswith("rule: conflict"), out.text
    assert "'0.78'" in out.text
    assert (
        '<memory id="ent_acme_helios_v2" type="entity" status="current"'
        in acme.lookup_entity(ACME, "model:helios-rag", "beir_ndcg10").text
    )
    [link] = operator_rows(backend, "memory_link", "WHERE link_type = 'contradicts' AND from_type = 'memory_candidate'")
    assert (link["from_id"], link["to_id"]) == (out.structured["candidate_id"], "ent_acme_helios_v2")


def test_an_exact_duplicate_writes_no_memory(acme, backend):
    first = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"])
    before = table_digest(backend, ["knowledge_base_document", "knowledge_base_chunk", "memory_link"])
    again = acme.remember(
        ACME,
        "  the august re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78. ",
        evidence=["chk_acme_1_0"],
    )
    assert first_line(again).startswith(f"duplicate {first.structured['record_id']} | candidate: cand_"), again.text
    assert table_digest(backend, ["knowledge_base_document", "knowledge_base_chunk", "memory_link"]) == before
    same = acme.remember(
        ACME, "0.78", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    assert first_line(same).startswith("duplicate ent_acme_helios_v2"), same.text


def test_an_id_never_issued_to_the_caller_is_refused_like_one_that_does_not_exist(acme, backend):
    before = table_digest(backend)
    never = acme.remember(ACME, "Always cite the current version of a metric.", evidence=["chk_acme_2_0"])
    other_tenant = acme.remember(ACME, "Globex evaluates on tickets.", evidence=["chk_globex_1_0"])
    absent = acme.remember(ACME, "Something.", evidence=["chk_nope"])
    for out, id in ((never, "chk_acme_2_0"), (other_tenant, "chk_globex_1_0"), (absent, "chk_nope")):
        assert (
            out.text == f"refused | rule: evidence\nrefused: {id!r} is no record you were given. Nothing was written."
        )
    assert table_digest(backend) == before


def test_bob_cannot_rest_a_memory_on_janes_user_scoped_record(acme):
    jane_doc = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"]).structured["record_id"]
    given(acme, BOB, jane_doc)
    out = acme.remember(BOB, "The August re-run found 0.78.", evidence=[jane_doc])
    assert first_line(out) == "refused | rule: evidence"


def test_a_scope_wider_than_the_evidence_is_refused(acme):
    jane_doc = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"]).structured["record_id"]
    given(acme, ACME, jane_doc)
    policy = {"remember": {"scopes": ["user", "tenant"]}}
    out = acme.remember(
        ACME,
        "The August re-run of Helios RAG on BEIR: nDCG@10 0.78.",
        evidence=[jane_doc],
        scope="tenant",
        policy=policy,
    )
    assert out.text.startswith("refused | rule: scope\nrefused: scope tenant is wider than evidence doc_"), out.text
    denied = acme.remember(
        ACME, "The August re-run of Helios RAG on BEIR: nDCG@10 0.78.", evidence=["chk_acme_1_0"], scope="tenant"
    )
    assert first_line(denied) == "refused | rule: scope"


@pytest.mark.parametrize(
    "content, rule",
    [
        ("Reach jane at +1 415 555 0100 about the August re-run.", "deny:phone"),
        ("Mail jane@example.com about the August re-run.", "deny:email"),
        ("The August re-run was paid with 4111 1111 1111 1111.", "deny:card"),
    ],
)
def test_a_deny_pattern_refuses_naming_the_rule_and_keeps_nothing(acme, backend, content, rule):
    before = table_digest(backend)
    out = acme.remember(ACME, content, evidence=["chk_acme_1_0"])
    assert first_line(out) == f"refused | rule: {rule}"
    assert table_digest(backend) == before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"kind": "rumour"}, r"^kind must be one of note, fact, preference, procedure, got 'rumour'$"),
        ({"scope": "galaxy"}, r"^scope must be one of user, agent, thread, tenant, got 'galaxy'$"),
        ({"content": "x" * 2001}, r"^content is 2001 characters; a memory holds at most 2000$"),
        (
            {"kind": "fact", "predicate": "beir_ndcg10"},
            r"^a fact needs a subject and a predicate .*subject is missing$",
        ),
        ({"content": "   "}, r"^content must be a non-empty string"),
    ],
)
def test_bad_input_is_one_clear_error_and_changes_nothing(acme, backend, kwargs, message):
    before = table_digest(backend)
    args = {"content": AUGUST, "evidence": ["chk_acme_1_0"], **kwargs}
    with pytest.raises(InvalidArgument, match=message):
        acme.remember(ACME, **args)
    assert table_digest(backend) == before


def test_a_flood_past_the_rate_cap_is_refused(acme):
    review.set_policy(acme, "acme", {"rate_per_hour": 2})
    for n in range(2):
        acme.remember(ACME, f"Note {n} on the August re-run nDCG@10 0.78.", evidence=["chk_acme_1_0"])
    out = acme.remember(ACME, "Third note on the August re-run nDCG@10 0.78.", evidence=["chk_acme_1_0"])
    assert first_line(out) == "refused | rule: rate"


def test_an_over_broad_claim_from_one_case_is_held_back_and_every_assessment_is_kept(acme, backend):
    out = acme.remember(
        ACME, "Helios RAG always scores 0.78 on every benchmark for every customer.", evidence=["chk_acme_1_0"]
    )
    assert first_line(out).startswith("pending cand_") and "rule: assessment:" in first_line(out), out.text
    rows = operator_rows(backend, "memory_assessment", "WHERE candidate_id = :c", {"c": out.structured["candidate_id"]})
    assert sorted(r["question"] for r in rows) == ["conflict", "scope_fits", "supported"]
    assert {(r["assessor"], r["question_version"], r["policy_version"]) for r in rows} == {("rules", 1, 0)}


def test_every_decision_is_queryable_by_its_proposer_and_by_no_one_else(acme):
    acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"])
    acme.remember(
        ACME, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    mine = acme.execute_query(ACME, "SELECT decision, rule FROM memory_candidate ORDER BY decision")
    assert "promoted" in mine.text and "conflict" in mine.text
    assert "rows: 0" in acme.execute_query(BOB, "SELECT decision FROM memory_candidate").text
    assert "rows: 0" in acme.execute_query(GLOBEX, "SELECT decision FROM memory_candidate").text


def test_review_mode_holds_and_shadow_mode_records_without_promoting(acme, backend):
    review.set_policy(acme, "acme", {"mode": "review"})
    held = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"])
    assert first_line(held).endswith("rule: review")
    review.set_policy(acme, "acme", {"mode": "shadow"})
    shadow = acme.remember(ACME, "Recall@100 stayed at 0.91.", evidence=["chk_acme_1_1"])
    assert first_line(shadow).endswith("rule: shadow:promoted")
    assert operator_rows(backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []
    rows = operator_rows(backend, "memory_assessment")
    assert {r["policy_version"] for r in rows} == {1, 2}  # the two policy versions that decided


def test_an_evidence_row_that_changes_while_the_gate_runs_is_checked_again_not_trusted(acme, backend):
    review.set_policy(acme, "acme", {"assessor": "sampling"})

    def sampler(system, user):  # the owner fact is corrected while the host's model answers
        acme.correct_entity(ACME, "model:helios-rag", "owner", "jane and bob")
        return '{"supported": 0.99, "scope_fits": 0.99, "conflict": 0.0}'

    out = acme.remember(
        ACME, "The owner of model helios-rag is jane.", evidence=["ent_acme_helios_owner"], sampler=sampler
    )
    assert first_line(out) == "refused | rule: evidence", out.text  # the version it rested on is gone
    assert operator_rows(backend, "memory_candidate") == []


def test_sampling_falls_back_to_the_rules_and_says_so(acme):
    review.set_policy(acme, "acme", {"assessor": "sampling"})
    out = acme.remember(ACME, AUGUST, evidence=["chk_acme_1_0"])
    assert first_line(out).startswith("promoted ") and "no sampling on this connection" in out.text


class _Assessment(BaseHTTPRequestHandler):
    answer = b'{"supported": 0.95, "scope_fits": 0.93, "conflict": 0.01}'

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert set(body) == {"candidate", "evidence", "questions", "question_version"}
        self.send_response(200)
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, *args):
        pass


def test_the_http_assessor_decides_and_an_unreachable_one_leaves_it_pending(acme):
    server = HTTPServer(("127.0.0.1", 0), _Assessment)
    thread = threading.Thread(target=server.handle_request, daemon=True)
    thread.start()
    review.set_policy(
        acme,
        "acme",
        {"assessor": "http", "http": {"url": f"http://127.0.0.1:{server.server_port}/assess", "timeout_s": 5}},
    )
    out = acme.remember(ACME, "Helios RAG fuses BM25 and dense vectors.", evidence=["chk_acme_1_1"])
    thread.join(10)
    server.server_close()
    assert first_line(out).startswith("promoted "), out.text
    gone = acme.remember(ACME, "Recall@100 stayed at 0.91.", evidence=["chk_acme_1_1"])
    assert first_line(gone).endswith("rule: no_answer") and "assessment service unavailable" in gone.text


def test_correcting_the_evidence_ends_what_rests_on_it_until_reassessed(acme, backend):
    fact = acme.remember(ACME, "The owner of model helios-rag is jane.", evidence=["ent_acme_helios_owner"])
    assert first_line(fact).startswith("promoted doc_")
    acme.correct_entity(ACME, "model:helios-rag", "owner", "bob")
    [cand] = operator_rows(backend, "memory_candidate")
    assert cand["reassess"] == 1
    assert "results: 0" in acme.search_memory(ACME, "jane owns the Helios RAG model", collection="remembered").text
    outcomes = review.reassess(acme, "acme")
    assert outcomes == [(cand["id"], "pending: supported fails against the evidence as it is now")]


def test_an_id_in_the_callers_current_window_counts_as_given(manager, two_tenants):
    from context_helpers import FACT_CHECK, JANE_IN_REVIEW

    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    assert "chk_acme_1_0" in window.text
    out = manager.remember(JANE_IN_REVIEW, AUGUST, evidence=["chk_acme_1_0"])
    assert first_line(out).startswith("promoted doc_"), out.text
    elsewhere = manager.remember(replace(JANE_IN_REVIEW, thread="other"), AUGUST + " Again.", evidence=["chk_acme_1_0"])
    assert first_line(elsewhere) == "refused | rule: evidence"  # another thread's window issued nothing there


def test_a_turn_of_the_callers_own_thread_is_evidence_for_a_user_scoped_preference(manager, two_tenants, backend):
    from context_helpers import JANE_IN_REVIEW

    turn = manager.record_turn(JANE_IN_REVIEW, "user", "Please report every metric with two decimals.")
    out = manager.remember(
        JANE_IN_REVIEW, "Report every metric with two decimals.", kind="preference", evidence=[turn["id"]]
    )
    assert first_line(out).startswith("promoted doc_"), out.text
    [doc] = operator_rows(backend, "knowledge_base_document", "WHERE id = :id", {"id": out.structured["record_id"]})
    assert (doc["user_id"], doc["agent_id"], doc["thread_id"], doc["collection"]) == ("jane", None, None, "remembered")
    other_thread = manager.remember(
        replace(JANE_IN_REVIEW, thread="t-2"), "jane wants two decimals.", evidence=[turn["id"]]
    )
    assert first_line(other_thread) == "refused | rule: evidence"
