"""As-of reads give Flashback's answer: lookup_entity and execute_query at a past moment, from versions
and validity columns, against what the database itself held at that moment (Oracle's session-level
Flashback at the SCN read then). SQLite keeps no change number, so there the comparison cannot run:
its half is skipped with the reason, and tests/claims/test_as_of.py checks the SQLite answer against
a hand-built history of a corrected fact.
"""

from __future__ import annotations

import time

import pytest

from memgate.manager import ACME, MemoryManager, NotFound, load_tool_definitions, now_iso
from memgate.manager.claims import entities

SUBJECT, PREDICATE = "model:atlas", "mrr"


def _labels(rows, now):
    return [(v.row["id"], v.status) for v in entities.label_versions(entities.existing_at(rows, now), now)]


def test_as_of_lookup_gives_flashbacks_answer_at_each_moment(backend_kind, backend):
    manager = MemoryManager(backend)
    manager.seed_tools(ACME, load_tool_definitions())
    moments = []
    for value in ("0.40", "0.45", "0.47"):
        manager.correct_entity(ACME, SUBJECT, PREDICATE, value)
        time.sleep(0.01)
        with backend.session(ACME) as s:
            moments.append((now_iso(), s.change_marker()))
        time.sleep(0.01)
    with backend.session(ACME) as s:
        try:
            with s.as_of(moments[0][1]):
                pass
        except NotFound as exc:
            pytest.skip(f"{backend_kind} keeps no change number to read as of ({exc.message}); Oracle compares")
    for at, marker in moments:
        with backend.session(ACME, now=at) as s:
            with s.as_of(marker):
                flashback = _labels(s.fetch_all("entity_versions", subject=SUBJECT, predicate=PREDICATE), at)
        out = manager.lookup_entity(ACME, SUBJECT, PREDICATE, as_of=at)
        assert [(c["id"], c["status"]) for c in out.structured["claims"]] == flashback, at
        rows = backend.run_readonly_query(
            ACME,
            f"SELECT id, status FROM entity_memory_history WHERE subject = '{SUBJECT}'",
            100,
            10.0,
            at,
        ).rows
        assert sorted(tuple(r) for r in rows) == sorted(flashback), at
