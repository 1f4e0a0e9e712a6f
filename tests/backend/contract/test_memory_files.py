"""The memory tool's files on every backend: each command round-trips, an empty file stays empty,
a stale writer is refused, and another tenant or agent never sees the files."""

from __future__ import annotations

from backend_helpers import operator_rows

from memgate.manager import Identity

JANE = Identity(tenant="acme", user="jane", agent="helper", principal="test:jane")
OTHER_AGENT = Identity(tenant="acme", user="jane", agent="other", principal="test:jane")
GLOBEX = Identity(tenant="globex", user="omar", agent="helper", principal="test:omar")


def _run(manager, who, command, **params):
    out = manager.memory(who, command, **params)
    return out.is_error, out.text


def test_every_command_round_trips(manager):
    assert _run(manager, JANE, "create", path="/memories/notes.md", file_text="one\ntwo\n")[0] is False
    assert _run(manager, JANE, "str_replace", path="/memories/notes.md", old_str="two", new_str="deux")[0] is False
    assert _run(manager, JANE, "insert", path="/memories/notes.md", insert_line=0, insert_text="zero")[0] is False
    assert _run(manager, JANE, "rename", old_path="/memories/notes.md", new_path="/memories/kept/notes.md")[0] is False
    error, text = _run(manager, JANE, "view", path="/memories/kept/notes.md")
    assert not error and "zero" in text and "deux" in text and "two" not in text
    error, listing = _run(manager, JANE, "view", path="/memories")
    assert not error and "kept/notes.md" in listing
    assert _run(manager, JANE, "delete", path="/memories/kept")[0] is False
    assert _run(manager, JANE, "view", path="/memories/kept/notes.md")[0] is True


def test_an_empty_file_is_empty_not_missing(manager):
    assert _run(manager, JANE, "create", path="/memories/empty.md", file_text="")[0] is False
    error, text = _run(manager, JANE, "view", path="/memories/empty.md")
    assert not error and "does not exist" not in text
    assert _run(manager, JANE, "str_replace", path="/memories/empty.md", old_str="x", new_str="y")[0] is True
    assert _run(manager, JANE, "insert", path="/memories/empty.md", insert_line=0, insert_text="now")[0] is False
    assert "now" in _run(manager, JANE, "view", path="/memories/empty.md")[1]


def test_another_tenant_or_agent_sees_none_of_the_files(manager, backend):
    _run(manager, JANE, "create", path="/memories/secret.md", file_text="jane's secret")
    for other in (OTHER_AGENT, GLOBEX):
        error, text = _run(manager, other, "view", path="/memories/secret.md")
        assert error and "secret" not in text.replace("/memories/secret.md", "")
        with backend.session(other) as s:
            assert s.raw("SELECT id FROM memory_file") == []
    assert len(operator_rows(backend, "memory_file")) == 1


def test_a_write_against_a_stale_version_changes_nothing(manager, backend):
    _run(manager, JANE, "create", path="/memories/cas.md", file_text="v1")
    [row] = operator_rows(backend, "memory_file")
    with backend.session(JANE) as s:
        s.execute(
            "memory_file_update",
            id=row["id"],
            version=row["version"] + 1,
            content="lost",
            size_chars=4,
            size_bytes=4,
            updated_by="test",
            now="2026-09-01T00:00:00.000Z",
        )
    assert [r["content"] for r in operator_rows(backend, "memory_file")] == ["v1"]
