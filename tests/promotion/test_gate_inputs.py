"""What the gate takes as input before it judges anything: the tenant's rate, the scope a caller can
name, and a thread-scoped proposal recorded with its thread."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest
from test_gate import AUGUST, BOTH, first_line, given

from memgate.manager import ACME, InvalidArgument
from memgate.manager.promotion import review


@pytest.fixture
def acme(manager, two_tenants):
    given(manager, ACME, "chk_acme_1_0", "chk_acme_1_1")
    return manager


@pytest.mark.parametrize("rate", [0, -3, True, 1.5, "5"])
def test_a_rate_cap_is_a_whole_number_of_one_or_more(acme, rate):
    before = review.policy(acme, "acme")
    with pytest.raises(InvalidArgument, match=r"^rate_per_hour must be a whole number >= 1") as caught:
        review.set_policy(acme, "acme", {"rate_per_hour": rate})
    assert caught.value.field == "rate_per_hour"
    assert review.policy(acme, "acme") == before


@pytest.mark.parametrize(
    "who, scope, message",
    [
        (ACME, "thread", "scope thread needs a caller with a thread; this one has none"),
        (replace(ACME, agent=None), "agent", "scope agent needs a caller with an agent; this one has none"),
        (replace(ACME, user=None), "user", "scope user needs a caller with a user; this one has none"),
    ],
)
def test_a_scope_needs_the_caller_to_have_it(acme, backend, who, scope, message):
    before = table_digest(backend)
    with pytest.raises(InvalidArgument, match=f"^{message}$") as caught:
        acme.remember(who, AUGUST, evidence=BOTH, scope=scope)
    assert caught.value.field == "scope"
    assert table_digest(backend) == before


def test_a_thread_scoped_proposal_is_recorded_with_its_thread(acme, backend):
    who = replace(ACME, thread="t-scoped")
    given(acme, who, *BOTH)
    out = acme.remember(who, AUGUST, evidence=BOTH, scope="thread")
    assert first_line(out).startswith("promoted doc_"), out.text
    [cand] = operator_rows(backend, "memory_candidate", "WHERE id = :c", {"c": out.structured["candidate_id"]})
    assert (cand["user_id"], cand["agent_id"], cand["thread_id"], cand["scope"]) == (
        ACME.user,
        ACME.agent,
        "t-scoped",
        "thread",
    )
    [doc] = operator_rows(backend, "knowledge_base_document", "WHERE id = :d", {"d": out.structured["record_id"]})
    assert doc["thread_id"] == "t-scoped"
    assert "results: 0" in acme.search_memory(ACME, "August re-run nDCG BEIR", collection="remembered").text
