"""Replay says "matches" only when the rebuilt window's sha256 is the manifest's window_hash.

A row version a window read is changed in place on the base table (as a write that bypassed
versioning would): every id is still there, so nothing is missing, and only the digest
comparison can tell the rebuilt window from the one the model saw.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions


@pytest.fixture
def window(manager, two_tenants):
    return manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")


def _change_in_place(sqlite_path, summary_id: str) -> None:
    who = JANE_IN_REVIEW
    conn = sqlite3.connect(sqlite_path, isolation_level=None)
    install_context_functions(
        conn, ConnectionContext(tenant=who.tenant, user=who.user, agent=who.agent, thread=who.thread)
    )
    with closing(conn):
        changed = conn.execute(
            "UPDATE base_summarization_memory SET content = content || ' (edited in place)' WHERE id = ?",
            (summary_id,),
        )
        assert changed.rowcount == 1


def test_a_row_changed_in_place_since_the_window_does_not_replay_as_matching(manager, sqlite_path, window):
    [summary] = [m for m in window.manifest["memories"] if m["ref"]["table"] == "summarization_memory"]
    assert summary["tier"] == "full"  # its content is in the window, so the edit changes the text
    _change_in_place(sqlite_path, summary["ref"]["id"])
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert r.missing == [] and "(edited in place)" in r.text
    assert r.window_hash != window.manifest["window_hash"]
    assert not r.matches


def test_an_unchanged_window_still_replays_as_matching(manager, window):
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert r.matches and r.window_hash == window.manifest["window_hash"]
