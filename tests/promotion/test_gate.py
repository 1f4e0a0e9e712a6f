"""The promotion gate through MemoryManager.remember: code checks first, the rules assessor, one transaction.

Evidence is "given" the way a tool result gives it: an ok mcp_call_log row of the caller that cited
the id (what the dispatcher writes after search_memory or lookup_entity).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME, GLOBEX, Identity, InvalidArgument
from memgate.manager.clock import now_iso
from memgate.manager.promotion import review
from memgate.manager.registry.calllog import CallRecord

BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")
#: what two passages say together (each alone would be a duplicate of its passage)
AUGUST = "The August re-run of Helios RAG on BEIR found nDCG@10 of 0.78, and recall@100 stayed at 0.91."
BOTH = ["chk_acme_1_0", "chk_acme_1_1"]
OWNED = "Helios RAG is owned by Jane; its August re-run found nDCG@10 of 0.78."


def given(manager, identity, *ids):
    """A tool result the caller received cited `ids` (each call its own id: two within one millisecond
    citing the same first id would otherwise collide on the log's unique call_id)."""
    manager.log_call(
        identity,
        CallRecord(
            call_id=f"call_{ids[0]}_{uuid.uuid4().hex}",
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
    out = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert first_line(out).startswith("promoted doc_") and first_line(out).endswith("| rule: passed"), out.text
    doc = out.structured["record_id"]
    hits = acme.search_memory(ACME, "August re-run nDCG BEIR", collection="remembered")
    assert doc in hits.text and "Evidence: chk_acme_1_0" in hits.text
    assert "results: 0" in acme.search_memory(BOB, "August re-run nDCG BEIR", collection="remembered").text
    links = acme.memory_links(ACME, doc)
    assert sorted((v.relation, v.far["id"]) for v in links) == [
        ("is_supported_by", "chk_acme_1_0"),
        ("is_supported_by", "chk_acme_1_1"),
    ]


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
    first = acme.remember(ACME, AUGUST, evidence=BOTH)
    before = table_digest(backend, ["knowledge_base_document", "knowledge_base_chunk", "memory_link"])
    again = acme.remember(ACME, f"  {AUGUST.lower()} ", evidence=BOTH)
    assert first_line(again).startswith(f"duplicate {first.structured['record_id']} | candidate: cand_"), again.text
    assert table_digest(backend, ["knowledge_base_document", "knowledge_base_chunk", "memory_link"]) == before
    same = acme.remember(
        ACME, "0.78", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    assert first_line(same).startswith("duplicate ent_acme_helios_v2"), same.text


@pytest.mark.parametrize(
    "content, kwargs, record",
    [
        # a passage of the knowledge base, in other words and another order
        ("On BEIR, the Helios RAG evaluation's August re-run found an nDCG@10 of 0.78.", {}, "chk_acme_1_0"),
        # a fact, as a note
        ("Helios RAG's nDCG@10 on BEIR is 0.78.", {"evidence": ["ent_acme_helios_v2"]}, "ent_acme_helios_v2"),
        # a fact, under another spelling of its predicate
        ("0.78", {"kind": "fact", "subject": "model:helios-rag", "predicate": "ndcg10_beir"}, "ent_acme_helios_v2"),
    ],
)
def test_a_restatement_in_other_words_is_a_duplicate_naming_the_record(acme, backend, content, kwargs, record):
    given(acme, ACME, "ent_acme_helios_v2")
    out = acme.remember(ACME, content, **{"evidence": ["chk_acme_1_0"], **kwargs})
    assert first_line(out).startswith(f"duplicate {record} | candidate: cand_"), out.text
    assert operator_rows(backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []


def test_re_proposing_a_pending_candidate_attaches_to_it_and_writes_no_second_row(acme, backend):
    conflict = {"kind": "fact", "subject": "model:helios-rag", "predicate": "beir_ndcg10", "content": "0.81"}
    first = acme.remember(ACME, evidence=["chk_acme_1_0"], **conflict)
    cid = first.structured["candidate_id"]
    again = acme.remember(ACME, evidence=["chk_acme_1_0", "chk_acme_1_1"], **conflict)
    assert first_line(again) == f"pending {cid} | rule: duplicate:pending", again.text
    [row] = operator_rows(backend, "memory_candidate")
    assert (row["id"], row["version"]) == (cid, 2)
    assert [r["id"] for r in json.loads(row["evidence_json"])] == ["chk_acme_1_0", "chk_acme_1_1"]


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
    jane_doc = acme.remember(ACME, AUGUST, evidence=BOTH).structured["record_id"]
    given(acme, BOB, jane_doc)
    out = acme.remember(BOB, "The August re-run found 0.78 and 0.91.", evidence=[jane_doc])
    assert first_line(out) == "refused | rule: evidence"


def test_a_scope_wider_than_the_evidence_is_refused(acme):
    jane_doc = acme.remember(ACME, AUGUST, evidence=BOTH).structured["record_id"]
    given(acme, ACME, jane_doc)
    policy = {"remember": {"scopes": ["user", "tenant"]}}
    out = acme.remember(
        ACME, "Helios RAG in August: 0.78 and 0.91.", evidence=[jane_doc], scope="tenant", policy=policy
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
    out = acme.remember(ACME, content, evidence=BOTH)
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
        ({"content": "model:\x00x is 0.78"}, r"^content contains a NUL character"),
        ({"kind": "fact", "subject": "model:\x00x", "predicate": "p"}, r"^subject contains a NUL character"),
        ({"kind": "fact", "subject": "model:x", "predicate": "p\x00"}, r"^predicate contains a NUL character"),
    ],
)
def test_bad_input_is_one_clear_error_and_changes_nothing(acme, backend, kwargs, message):
    before = table_digest(backend)
    args = {"content": AUGUST, "evidence": BOTH, **kwargs}
    with pytest.raises(InvalidArgument, match=message):
        acme.remember(ACME, **args)
    assert table_digest(backend) == before


def test_a_flood_past_the_rate_cap_is_refused_saying_so_and_decides_nothing(acme, backend):
    assert review.policy(acme, "acme").rate_per_hour == 20  # a few an hour, not a flood
    review.set_policy(acme, "acme", {"rate_per_hour": 2})
    for n in range(2):
        acme.remember(ACME, f"Note {n} on the August re-run nDCG@10 0.78.", evidence=BOTH)
    before = table_digest(backend)
    out = acme.remember(ACME, "Third note on the August re-run nDCG@10 0.78.", evidence=BOTH)
    assert first_line(out) == "refused | rule: rate"
    assert "refused by the rate cap, not judged" in out.text and "rate_per_hour" in out.text
    assert table_digest(backend) == before  # no candidate: the cap decided nothing


def test_an_over_broad_claim_from_one_case_is_held_back_and_every_assessment_is_kept(acme, backend):
    out = acme.remember(
        ACME, "Helios RAG always scores 0.78 on every benchmark for every customer.", evidence=["chk_acme_1_0"]
    )
    assert first_line(out).startswith("pending cand_") and "rule: assessment:" in first_line(out), out.text
    rows = operator_rows(backend, "memory_assessment", "WHERE candidate_id = :c", {"c": out.structured["candidate_id"]})
    assert sorted(r["question"] for r in rows) == ["conflict", "scope_fits", "supported"]
    assert {(r["assessor"], r["question_version"], r["policy_version"]) for r in rows} == {("rules", 1, 0)}


def test_every_decision_is_queryable_by_its_proposer_and_by_no_one_else(acme):
    acme.remember(ACME, AUGUST, evidence=BOTH)
    acme.remember(
        ACME, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    mine = acme.execute_query(ACME, "SELECT decision, rule FROM memory_candidate ORDER BY decision")
    assert "promoted" in mine.text and "conflict" in mine.text
    assert "rows: 0" in acme.execute_query(BOB, "SELECT decision FROM memory_candidate").text
    assert "rows: 0" in acme.execute_query(GLOBEX, "SELECT decision FROM memory_candidate").text


def test_review_mode_holds_and_shadow_mode_records_without_promoting(acme, backend):
    review.set_policy(acme, "acme", {"mode": "review"})
    held = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert first_line(held).endswith("rule: review")
    review.set_policy(acme, "acme", {"mode": "shadow"})
    shadow = acme.remember(
        ACME, "0.91", kind="fact", subject="model:helios-rag", predicate="recall_at_100", evidence=["chk_acme_1_1"]
    )
    assert first_line(shadow).endswith("rule: shadow:promoted")
    assert operator_rows(backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []
    rows = operator_rows(backend, "memory_assessment")
    assert {r["policy_version"] for r in rows} == {1, 2}  # the two policy versions that decided


def test_an_evidence_row_that_changes_while_the_gate_runs_is_checked_again_not_trusted(acme, backend):
    review.set_policy(acme, "acme", {"assessor": "sampling"})

    def sampler(system, user):  # the owner fact is corrected while the host's model answers
        acme.correct_entity(ACME, "model:helios-rag", "owner", "jane and bob")
        return '{"supported": 0.99, "scope_fits": 0.99, "conflict": 0.0}'

    out = acme.remember(ACME, OWNED, evidence=["ent_acme_helios_owner", "chk_acme_1_0"], sampler=sampler)
    assert first_line(out) == "refused | rule: evidence", out.text  # the version it rested on is gone
    assert operator_rows(backend, "memory_candidate") == []


def test_sampling_falls_back_to_the_rules_and_says_so(acme):
    review.set_policy(acme, "acme", {"assessor": "sampling"})
    out = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert first_line(out).startswith("promoted ") and "no sampling on this connection" in out.text


def test_correcting_the_evidence_ends_what_rests_on_it_until_reassessed(acme, backend):
    fact = acme.remember(ACME, OWNED, evidence=["ent_acme_helios_owner", "chk_acme_1_0"])
    assert first_line(fact).startswith("promoted doc_"), fact.text
    acme.correct_entity(ACME, "model:helios-rag", "owner", "bob")
    [cand] = operator_rows(backend, "memory_candidate")
    assert cand["reassess"] == 1
    assert "results: 0" in acme.search_memory(ACME, "Helios RAG is owned by Jane", collection="remembered").text
    outcomes = review.reassess(acme, "acme")
    assert outcomes == [(cand["id"], "pending: supported fails against the evidence as it is now")]


def test_an_id_in_the_callers_current_window_counts_as_given(manager, two_tenants):
    from context_helpers import FACT_CHECK, JANE_IN_REVIEW

    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    assert "chk_acme_1_0" in window.text
    fact = {"kind": "fact", "subject": "model:helios-rag", "predicate": "beir_ndcg10_august", "content": "0.78"}
    out = manager.remember(JANE_IN_REVIEW, evidence=["chk_acme_1_0"], **fact)
    assert first_line(out).startswith("promoted ent_"), out.text
    elsewhere = manager.remember(replace(JANE_IN_REVIEW, thread="other"), evidence=["chk_acme_1_0"], **fact)
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


def test_no_reader_sees_the_proposers_candidate_id_or_principal_through_a_promoted_note(acme, backend):
    out = acme.remember(ACME, AUGUST, evidence=BOTH, scope="agent")
    assert first_line(out).startswith("promoted doc_"), out.text
    doc, cid = out.structured["record_id"], out.structured["candidate_id"]
    [row] = operator_rows(backend, "knowledge_base_document", "WHERE id = :id", {"id": doc})
    given(acme, BOB, doc)
    seen = acme.search_memory(BOB, "August re-run nDCG BEIR recall", collection="remembered").text
    seen += acme.fetch_source(BOB, doc).text  # the source link a citation shows
    for table in ("knowledge_base_document", "knowledge_base_chunk"):
        seen += acme.execute_query(BOB, f"SELECT * FROM {table} WHERE collection = 'remembered'").text
    assert doc in seen
    for secret in (cid, ACME.principal, "cand_"):
        assert secret not in seen, secret
    assert row["source_uri"].startswith("memory://remembered/mem_") and cid not in row["source_uri"]


def test_the_user_prefers_x_rests_on_the_users_own_turn_asking_for_x_and_on_no_one_elses(manager, two_tenants):
    from context_helpers import JANE_IN_REVIEW

    said = manager.record_turn(JANE_IN_REVIEW, "assistant", "I can send you the report as a PDF instead of HTML.")
    out = manager.remember(JANE_IN_REVIEW, "Jane wants the report as a PDF.", "preference", evidence=[said["id"]])
    assert first_line(out).startswith("pending cand_"), out.text  # the assistant's offer is not her asking
    asked = manager.record_turn(JANE_IN_REVIEW, "user", "Please give me weekly summaries instead of daily ones.")
    flipped = manager.remember(JANE_IN_REVIEW, "Jane prefers daily summaries.", "preference", evidence=[asked["id"]])
    assert first_line(flipped).startswith("pending cand_"), flipped.text
    out = manager.remember(JANE_IN_REVIEW, "Jane prefers weekly summaries.", "preference", evidence=[asked["id"]])
    assert first_line(out).startswith("promoted doc_"), out.text
