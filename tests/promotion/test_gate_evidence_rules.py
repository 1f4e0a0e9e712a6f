"""The gate's evidence rules, each on its own: what a proposal may rest on, and what a duplicate may name.

Each test isolates one rule: the evidence is given and current in every other way, so only the rule
under test can refuse it (an in-place re-ingest between the gate's read and its commit, a soft-deleted
row, evidence narrower than the record's scope, another conversation's turn, a duplicate of an ended
record, no evidence at all).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest
from test_gate import AUGUST, BOTH, first_line, given

from memgate.manager import ACME
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions
from memgate.manager.clock import now_iso
from memgate.manager.promotion import review

PUMP = "memo://pump-report"


@pytest.fixture
def acme(manager, two_tenants):
    given(manager, ACME, "chk_acme_1_0", "chk_acme_1_1", "ent_acme_helios_owner")
    return manager


def _pump_report(manager, *, agent_id=None, text="The Aurora pump overheated in March; the report follows."):
    return manager.ingest_text(
        ACME,
        title="The Aurora pump overheated in March",
        text=text,
        source_uri=PUMP,
        user_id=ACME.user,
        agent_id=agent_id,
    ).document_id


def pump_and_valve(manager) -> tuple[str, str]:
    """Two of jane's documents whose titles together support CLAIM (neither restates it alone)."""
    valve = manager.ingest_text(
        ACME,
        title="The Boreas valve was replaced in April",
        text="Replaced.",
        source_uri="memo://valve",
        user_id="jane",
    )
    return _pump_report(manager), valve.document_id


CLAIM = "The Aurora pump overheated in March and the Boreas valve was replaced in April."


def test_a_document_re_ingested_in_place_while_the_gate_runs_is_not_trusted_at_its_old_version(acme, backend):
    """Re-ingesting keeps the document's id and bumps its version (no end, no delete): only the
    commit-time version comparison sees it changed."""
    pump, valve = pump_and_valve(acme)
    given(acme, ACME, pump, valve)
    review.set_policy(acme, "acme", {"assessor": "sampling"})
    edits = []

    def sampler(system, user):  # the source is re-ingested, in place, while the host's model answers
        edits.append(_pump_report(acme, text=f"The Aurora pump overheated in March, edit {len(edits)}."))
        return '{"supported": 0.99, "scope_fits": 0.99, "conflict": 0.0}'

    out = acme.remember(ACME, CLAIM, evidence=[pump, valve], sampler=sampler)
    assert edits == [pump, pump], out.text  # the same row each time: the gate read it again after the first change
    [row] = operator_rows(backend, "knowledge_base_document", "WHERE id = :d", {"d": pump})
    assert row["version"] == 3 and row["valid_until"] is None and row["deleted_at"] is None
    assert first_line(out).startswith("pending cand_") and first_line(out).endswith("rule: evidence_changed"), out.text
    assert operator_rows(backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []


def _set_now(backend, table: str, column: str, where: str, *params) -> None:
    """Set `column` (deleted_at, valid_until) to now on acme's rows of `table`: a row deleted or ended in place."""
    with backend.unwalled_connection() as conn:
        install_context_functions(conn, ConnectionContext("acme", ACME.user))
        conn.execute(f"UPDATE {backend.physical_table(table)} SET {column} = ? WHERE {where}", (now_iso(), *params))
        conn.commit()


def test_a_soft_deleted_row_is_no_evidence(acme, backend):
    """Deleted (deleted_at set, its validity still open), given earlier: refused like an absent id."""
    _set_now(backend, "knowledge_base_chunk", "deleted_at", "id = ?", "chk_acme_1_1")
    before = table_digest(backend)
    out = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert out.text == (
        "refused | rule: evidence\nrefused: 'chk_acme_1_1' is no record you were given. Nothing was written."
    )
    assert table_digest(backend) == before


def test_a_user_scoped_memory_may_not_rest_on_agent_scoped_evidence(acme, backend):
    """The user's other agents would read the memory but not its evidence: scope is checked on every
    scope column the evidence is bound by, not only its user."""
    doc = _pump_report(acme, agent_id=ACME.agent)
    given(acme, ACME, doc)
    content = "The Aurora pump overheated in March."
    out = acme.remember(ACME, content, evidence=[doc], scope="user")
    assert out.text.startswith(f"refused | rule: scope\nrefused: scope user is wider than evidence {doc}'s"), out.text
    assert operator_rows(backend, "memory_candidate") == []


def test_a_turn_of_the_users_other_conversation_is_not_what_the_user_told_me_here(acme, backend):
    """Two sessions of jane without a thread are two conversations; their turns carry no thread, so the
    wall shows one session's turns to the other. Only the caller's own conversation's turns count."""
    here, there = replace(ACME, session="sess-here"), replace(ACME, session="sess-there")
    said = acme.record_turn(there, "user", "Please report every metric with two decimals.")
    [turn] = operator_rows(backend, "conversation_memory", "WHERE id = :t", {"t": said["id"]})
    assert turn["thread_id"] is None
    acme.record_turn(here, "user", "Hello again.")
    out = acme.remember(here, "Report every metric with two decimals.", kind="preference", evidence=[said["id"]])
    assert out.text == (
        f"refused | rule: evidence\nrefused: {said['id']!r} is no record you were given. Nothing was written."
    )
    mine = acme.remember(there, "Report every metric with two decimals.", kind="preference", evidence=[said["id"]])
    assert first_line(mine).startswith("promoted doc_"), mine.text


@pytest.mark.parametrize("column", ["deleted_at", "valid_until"])
def test_a_duplicate_never_names_a_deleted_or_ended_record_so_the_note_can_be_remembered_again(acme, backend, column):
    """The earlier candidate stays promoted (nothing asked to reassess it); its record went. Naming that
    record as the duplicate would refuse the note for ever."""
    first = acme.remember(ACME, AUGUST, evidence=BOTH)
    old = first.structured["record_id"]
    assert first_line(first).startswith(f"promoted {old}"), first.text
    _set_now(backend, "knowledge_base_document", column, "id = ?", old)
    _set_now(backend, "knowledge_base_chunk", column, "document_id = ?", old)
    [cand] = operator_rows(backend, "memory_candidate", "WHERE record_id = :d", {"d": old})
    assert (cand["decision"], cand["reassess"]) == ("promoted", 0)
    again = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert first_line(again).startswith("promoted doc_") and old not in first_line(again), again.text


def test_a_proposal_without_evidence_is_refused_before_anything_is_read(acme, backend):
    before = table_digest(backend)
    for evidence in ([], ()):
        out = acme.remember(ACME, AUGUST, evidence=evidence)
        assert out.text == (
            "refused | rule: evidence\nrefused: a memory rests on evidence: the ids of records you were given. "
            "Nothing was written."
        )
    assert table_digest(backend) == before


def test_re_proposing_a_pending_fact_in_another_scope_is_a_proposal_of_its_own(acme, backend):
    conflict = {"kind": "fact", "subject": "model:helios-rag", "predicate": "beir_ndcg10", "content": "0.81"}
    first = acme.remember(ACME, evidence=["chk_acme_1_0"], **conflict)
    assert first_line(first).endswith("rule: conflict"), first.text
    other = acme.remember(ACME, evidence=["chk_acme_1_0"], scope="agent", **conflict)
    assert first_line(other) != f"pending {first.structured['candidate_id']} | rule: duplicate:pending", other.text
    assert len(operator_rows(backend, "memory_candidate")) == 2


@pytest.mark.parametrize(
    "record, proposal",
    [
        # "daily" became "weekly": the record's own words are not nearly all in the proposal
        ("Summaries are sent daily to the team.", "Summaries are sent weekly to the team."),
        # the record's words are all there, but the proposal adds a condition the embedder tells apart
        ("Summaries go to the team.", "Summaries go to the team only after legal approval."),
    ],
)
def test_a_proposal_that_changes_or_adds_to_a_record_does_not_restate_it(acme, record, proposal):
    doc = acme.ingest_text(ACME, title="Team rituals", text=record, source_uri="memo://rituals", user_id=ACME.user)
    [chunk] = [c for c in acme.search_chunks(ACME, record) if c.document_id == doc.document_id]
    given(acme, ACME, chunk.id)
    out = acme.remember(ACME, proposal, evidence=[chunk.id])
    assert not first_line(out).startswith("duplicate"), out.text


def test_a_passage_imported_from_another_tool_is_a_source_never_the_record_a_proposal_duplicates(acme):
    acme.ingest_text(
        ACME, title="notes.md", text=AUGUST, source_uri="import://notes.md", collection="imported", user_id=ACME.user
    )
    out = acme.remember(ACME, AUGUST, evidence=BOTH)
    assert first_line(out).startswith("promoted doc_"), out.text
