"""A link never brings back a memory its reader could not read now: a far end that is not yet
valid (or deleted) is neither shown nor walked through, while a current one is."""

from __future__ import annotations

import pytest

from memgate.manager import ACME

SUBJECT, PREDICATE = "model:helios-rag", "beir_ndcg10"


@pytest.fixture
def summaries(manager, backend, two_tenants):
    with backend.session(ACME) as s:
        s.insert(
            "summarization_memory",
            {
                "id": "sum_future",
                "tenant_id": "acme",
                "title": "later",
                "content": "quasar not yet valid",
                "valid_from": "2099-01-01T00:00:00.000Z",
            },
        )
        s.insert(
            "summarization_memory",
            {"id": "sum_now", "tenant_id": "acme", "title": "now", "content": "pulsar current summary"},
        )
    manager.add_link(ACME, "ent_acme_helios_v2", "supports", "sum_future")
    manager.add_link(ACME, "ent_acme_helios_v2", "supports", "sum_now")


def test_a_far_end_not_yet_valid_is_not_shown_through_a_link(manager, summaries):
    text = manager.lookup_entity(ACME, SUBJECT, PREDICATE, num_hops=1).text
    assert "pulsar current summary" in text  # the traversal ran and showed the current end
    assert "quasar" not in text and "sum_future" not in text
