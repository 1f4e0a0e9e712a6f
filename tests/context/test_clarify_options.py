"""A clarify answer must be one of the options the user was offered, when there were options.

The answer comes back from the client; an answer outside the offered options is refused,
naming the field, and nothing is recorded (no clarify_answer event in the thread).
"""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows, table_digest
from context_helpers import JANE_IN_REVIEW

from memgate.manager import InvalidArgument

QUESTION = "Which benchmark should the comparison use?"
OPTIONS = ["BEIR", "MTEB"]


def _answers(backend) -> list[dict]:
    return operator_rows(backend, "conversation_memory", "WHERE event_type = 'clarify_answer'")


def test_an_answer_outside_the_offered_options_is_refused_and_not_recorded(manager, backend, two_tenants):
    before = table_digest(backend)
    with pytest.raises(InvalidArgument, match="^the user's answer 'GLUE' is not one of the options$") as err:
        manager.clarify(JANE_IN_REVIEW, QUESTION, OPTIONS, action="accept", answer="GLUE")
    assert err.value.field == "answer"
    assert table_digest(backend) == before and _answers(backend) == []


def test_an_offered_option_is_recorded_as_the_users_answer(manager, backend, two_tenants):
    out = manager.clarify(JANE_IN_REVIEW, QUESTION, OPTIONS, action="accept", answer="MTEB")
    [row] = _answers(backend)
    assert row["content"] == "MTEB" and "MTEB" in out.text


def test_without_options_any_answer_is_the_users_answer(manager, backend, two_tenants):
    manager.clarify(JANE_IN_REVIEW, QUESTION, None, action="accept", answer="GLUE")
    assert [r["content"] for r in _answers(backend)] == ["GLUE"]
