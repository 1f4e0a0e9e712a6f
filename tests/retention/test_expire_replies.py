"""`memgate expire` keeps no embedding made with an expired turn's words: a turn written after the cutoff
whose previous turn expired loses the embedding that carried that turn (recall_index.embedding_text), and
`memgate reembed` gives it one of its own words."""

from __future__ import annotations

import time
from datetime import timedelta

import numpy as np
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from memory_helpers import seed

from memgate.manager import Identity, expire
from memgate.manager.clock import now_iso, parse_iso, to_iso
from memgate.server.cli.retention_cmds import reembed_lines

TENANT = "shop"


def _recall(manager) -> dict[int, dict]:
    return {r["turn_index"]: r for r in operator_rows(manager.backend, "conversation_recall", "WHERE kind = 'turn'")}


def _file(sqlite_path) -> bytes:
    """The database file and its WAL, as bytes."""
    return b"".join(p.read_bytes() for p in sqlite_path.parent.glob(sqlite_path.name + "*"))


def _vector(row) -> np.ndarray | None:
    return None if row["embedding"] is None else np.frombuffer(row["embedding"], dtype=np.float32)


def test_a_turn_whose_previous_turn_expired_is_embedded_again_from_its_own_words(manager, sqlite_path, monkeypatch):
    seed(manager, Identity(tenant=TENANT, principal="test:init"))
    jane = Identity(tenant=TENANT, user="jane", agent="helper", thread="t1", principal="test:jane")
    manager.record_turn(jane, "user", "My sister Ottilie moved to Lisbon in March.")
    manager.record_turn(jane, "assistant", "How is she finding Lisbon?")
    time.sleep(0.01)
    cutoff = now_iso()  # turns 1 and 2 were written before it, 3 and 4 after
    time.sleep(0.01)
    manager.record_turn(jane, "user", "She loves it, the light is wonderful.")
    manager.record_turn(jane, "assistant", "Lovely.")
    before = _recall(manager)
    embed = manager.embedder.embed
    own = embed([before[3]["content"]])[0]
    assert not np.allclose(_vector(before[3]), own, atol=1e-5)  # it carries turn 2's words
    assert before[3]["embedding"][:64] in _file(sqlite_path)

    cli_runner(sqlite_path, monkeypatch)("retention", "set", "-t", TENANT, "conversation_memory=1")
    lines: list[str] = []
    report = expire(manager.backend, TENANT, now=to_iso(parse_iso(cutoff) + timedelta(days=1)), progress=lines.append)
    assert report.counts["conversation_memory"] == 2
    after = _recall(manager)
    assert sorted(after) == [3, 4]
    assert after[3]["embedding"] is None and after[3]["embedding_model"] is None  # nothing of turn 2 is left
    assert np.array_equal(_vector(after[4]), _vector(before[4]))  # it replies to turn 3, which stays
    assert before[3]["embedding"][:64] not in _file(sqlite_path)  # nor in the file's free space or its WAL
    assert report.cleared == {"conversation_recall (embedded again from their own words by memgate reembed)": 1}
    assert (
        lines[-1] == "shop conversation_recall: 1 cleared, to be embedded again from their own words by memgate reembed"
    )

    label = "conversation_recall (embedded again from their own words by memgate reembed)"
    assert report.cleared_scopes == {label: [("jane", "helper")]}
    command, one_scope = reembed_lines(TENANT, report.cleared_scopes[label], verbose=True)
    assert command == "  to embed them again: memgate reembed -t shop"
    assert one_scope == "    of them, in one scope: memgate reembed -t shop --user jane --agent helper"
    ran = cli_runner(sqlite_path, monkeypatch)(*one_scope.split("memgate ", 1)[1].split())  # the line, as printed
    assert "; 1 turn(s) and summaries embedded for recall; 1 scope(s)" in ran.output
    again = _recall(manager)
    assert np.allclose(_vector(again[3]), own, atol=1e-5)
    assert again[3]["embedding_model"] == manager.embedder.name


def test_one_reembed_line_covers_every_scope_and_verbose_names_each():
    scopes = [(f"u{i}", "a") for i in range(12)] + [(None, "bot")]
    assert reembed_lines("acme", scopes) == ["  to embed them again: memgate reembed -t acme"]
    lines = reembed_lines("acme", scopes, verbose=True)
    assert lines[1] == "    of them, in one scope: memgate reembed -t acme --user u0 --agent a"
    assert len(lines) == 14 and lines[-1] == "    of them, in one scope: memgate reembed -t acme --agent bot"
