"""Replay of a window whose dependency the caller may no longer see: reported, not rebuilt."""

from __future__ import annotations

from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager.backend.sqlite import schema


def test_a_dependency_moved_out_of_the_callers_scope_is_reported_as_not_authorized(manager, backend, two_tenants):
    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    # an operator re-scopes the July summary to another user (the wall's guards stop any caller doing it)
    with backend.unwalled_connection() as conn:
        conn.execute("DROP TRIGGER base_summarization_memory__scope_update")
        conn.execute("DROP TRIGGER base_summarization_memory__tenant_update")
        conn.execute("UPDATE base_summarization_memory SET user_id = 'li' WHERE id = 'sum_acme_july'")
        conn.execute("BEGIN IMMEDIATE")
        schema.rebuild_tenant_wall(conn)
        conn.execute("COMMIT")
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert not r.matches and r.text is None
    assert [(m.ref["id"], m.reason) for m in r.missing] == [("sum_acme_july", "not authorized")]
