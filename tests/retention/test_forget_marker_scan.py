"""The proof of `memgate forget`: a marker written into every table the retention registry names (one
writer per table, tests/retention_helpers.py) is gone from every table, FTS5 shadow table and the
file's bytes, while another user's marker and every shared row stay, and the call log still shows
the erased user's calls with their content replaced. The tables the scan must reach come from the
registry itself, and every table of the schema is either registered or exempt for a stated reason."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from memory_helpers import seed
from retention_helpers import (
    WRITERS,
    Writing,
    file_hits,
    fts_matches,
    subject_rows,
    table_hits,
    user_memory_row,
    write_everything,
)

from memgate.manager import Identity, erase
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions
from memgate.manager.retention import REGISTRY, erased_ids

JANE_MARK = "qzjanemark7731"
BOB_MARK = "qzbobmark4417"
SHARED_MARK = "qzsharedmark5151"
TENANT = "shop"

#: tables of the schema that hold no memory content, and why erasure and expiry leave them alone
NOT_CONTENT = {
    "memgate_schema": "the applied migrations",
    "base_erasure_log": "the erasure records: subject, who asked, when, counts; no content",
    "base_erasure_row": "the keys an erasure removed (random ids), what resume and replay read",
    "base_kb_generation": "a tenant's chunk change counter",
    "base_kb_lexical_index": "which FTS5 slot a tenant's index lives in",
    "base_recall_generation": "a tenant's recall-index change counter",
    "base_portability_log": "the export and import records: scope, who asked, when, counts, bundle hash; no content",
    "base_server_secret": "the server's own keys (no tenant's content)",
    "base_tenant_mapping": "the operator's issuer-to-tenant map",
}
#: registered tables whose content columns cannot carry a marker; the subject's rows are checked instead
NO_MARKER = {
    "memory_store": "its content is its key, user:jane",
    "memory_assessment": "its note is the assessor's own words",
    "conversation": "its content is the thread's name and session key, jane-thread",
    "merge_candidate": "it names two records and a reason, no content of its own",
    "mcp_call_cited": "it names a call and a record it cited, no content of its own",
}


def person(user: str) -> Identity:
    return Identity(tenant=TENANT, user=user, agent="helper", thread=f"{user}-thread", principal=f"test:{user}")


@pytest.fixture
def shop(manager, tmp_path):
    tenant = Identity(tenant=TENANT, principal="test:init")
    seed(manager, tenant, user_memory_row())
    shared = manager.ingest_text(
        tenant, title="handbook", text=f"Shared handbook {SHARED_MARK}. " * 20, source_uri="memo://shared/handbook"
    )
    manager.correct_entity(tenant, "policy:refunds", "window", f"30 days {SHARED_MARK}")
    ids = {
        user: write_everything(Writing(manager, person(user), mark, tmp_path, shared.document_id))
        for user, mark in (("jane", JANE_MARK), ("bob", BOB_MARK))
    }
    return manager, ids


def rows_holding(path, marker: str) -> dict[str, int]:
    """table_hits without the FTS5 shadow tables, whose rows a merge ('optimize') legitimately
    regroups: what an index holds is compared by matching it (fts_matches) instead."""
    return {t: n for t, n in table_hits(path, marker).items() if not t.startswith(("base_kb_fts_", "base_recall_fts_"))}


def rows_not_of(backend, user: str) -> dict[str, list[str]]:
    """Every row of every walled table that is not `user`'s (shared, or another user's), as text."""
    out = {}
    for table in backend.tables():
        if table == "memory_file":
            where = "WHERE store_id NOT IN (SELECT id FROM base_memory_store WHERE user_id = :u)"
        else:
            where = "WHERE user_id IS NOT :u"
        out[table] = sorted(repr(sorted(r.items())) for r in operator_rows(backend, table, where, {"u": user}))
    return out


def test_every_registered_table_has_a_writer_and_no_writer_is_left_over():
    registered = {s.table for s in REGISTRY}
    assert registered - set(WRITERS) == set(), "add a writer to tests/retention_helpers.py for each new table"
    assert set(WRITERS) - registered == set(), "a writer's table left the retention registry"


def test_every_table_of_the_schema_is_registered_or_holds_no_content(shop):
    """A table added to the schema without a registry entry (or an entry removed) fails here."""
    backend = shop[0].backend
    with backend.unwalled_connection() as conn:
        found = {
            name: sql or ""
            for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        }
    fts = {n for n, sql in found.items() if "VIRTUAL TABLE" in sql.upper()}
    derived = {n for n in found if any(n == v or n.startswith(f"{v}_") for v in fts)}
    assert fts and derived >= fts  # the tenants' lexical indexes: emptied through their chunks' triggers
    registered = {backend.physical_table(s.table) for s in REGISTRY}
    unaccounted = set(found) - derived - registered - set(NOT_CONTENT)
    assert unaccounted == set(), "register these in manager/retention/registry.py, or say here why they hold no content"
    assert set(NOT_CONTENT) <= set(found), "an exemption names a table the schema no longer has"
    assert not registered & set(NOT_CONTENT)


def test_forget_user_leaves_no_trace_of_the_marker_and_keeps_the_rest(shop, sqlite_path, monkeypatch):
    manager, _ids = shop
    backend = manager.backend
    before = table_hits(sqlite_path, JANE_MARK)
    # the marker went into every registered table, or the scan proves nothing
    for spec in REGISTRY:
        assert subject_rows(backend, spec.table, "jane"), f"no row of jane's in {spec.table}"
        if spec.table not in NO_MARKER:
            assert before.get(backend.physical_table(spec.table)), f"the marker never reached {spec.table}: {before}"
    # and the recall index (its segments hold the marker's term; asked through the index, since a merged
    # segment stores a term prefix-compressed against the one before it, so its bytes need not appear)
    assert fts_matches(sqlite_path, JANE_MARK, indexes=("base_recall_fts",)) > 0
    assert fts_matches(sqlite_path, JANE_MARK) > 0 and file_hits(sqlite_path, JANE_MARK) > 0
    bob_before = rows_holding(sqlite_path, BOB_MARK)
    indexed = fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)
    jane_calls = operator_rows(backend, "mcp_call_log", "WHERE user_id = 'jane'")
    assert len(jane_calls) == 3  # the memory tool, a search naming the marker, a search citing her document
    others = rows_not_of(backend, "jane")

    invoke = cli_runner(sqlite_path, monkeypatch)
    out = invoke("forget", "-t", TENANT, "--user", "jane", "--yes").output
    assert "erased" in out and "erasure era_" in out

    # nothing of the marker anywhere: no table, no index, no byte of the file or its WAL (the
    # command's own purge: nothing here checkpoints or vacuums for it)
    assert table_hits(sqlite_path, JANE_MARK) == {}
    assert fts_matches(sqlite_path, JANE_MARK) == 0
    assert file_hits(sqlite_path, JANE_MARK) == 0
    # no row of jane's in any walled table, registered or not; the scrubbed ones keep only the marker
    scrubbed = {s.table: s.scrub for s in REGISTRY if s.action == "scrub"}
    for table in backend.tables():
        left = subject_rows(backend, table, "jane")
        if table in scrubbed:
            assert left and all(r[c] == v for r in left for c, v in scrubbed[table].items()), table
        else:
            assert left == [], f"{table} kept jane's rows"
    assert rows_holding(sqlite_path, BOB_MARK) == bob_before  # bob's own copies, every one
    # every row that is not jane's is as it was (her own copies of shared text went with her rows)
    assert rows_not_of(backend, "jane") == others
    assert (fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)) == indexed
    # the call log keeps jane's calls: who, which tool, when, how it ended; the content is a marker
    after = {r["call_id"]: r for r in operator_rows(backend, "mcp_call_log", "WHERE user_id = 'jane'")}
    assert sorted(after) == sorted(r["call_id"] for r in jane_calls)
    for r in jane_calls:
        kept = after[r["call_id"]]
        assert (kept["tool_name"], kept["status"], kept["called_at"], kept["principal"]) == (
            r["tool_name"],
            r["status"],
            r["called_at"],
            r["principal"],
        )
        assert (kept["arguments_json"], kept["result_text"], kept["argument_digest"]) == (
            '"[erased]"',
            "[erased]",
            None,
        )
    # one erasure record: who asked, when, counts; no content
    record = operator_rows(backend, "erasure_log")
    assert len(record) == 1 and record[0]["status"] == "done" and record[0]["subject"] == "jane"
    assert JANE_MARK not in str(record)
    listed = invoke("forget", "-t", TENANT, "--list").output
    assert f"{record[0]['erasure_id']} done    user=jane by cli:operator:" in listed
    # bob still finds his document, by words and by its marker
    bob = person("bob")
    assert BOB_MARK in manager.search_memory(bob, BOB_MARK).text


def test_a_link_of_another_user_to_an_erased_row_goes_with_it(shop, sqlite_path):
    """A row outside the subject's scope that points at an erased row (bob's link to jane's document,
    written by the operator path, as a row re-scoped since or an owner session could) is erased with
    it; bob's other links stay."""
    manager, ids = shop
    with manager.backend.unwalled_connection() as conn:
        install_context_functions(conn, ConnectionContext(TENANT, "bob", "helper", "bob-thread"))
        conn.execute(
            "INSERT INTO base_memory_link (id, tenant_id, user_id, from_type, from_id, link_type, to_type, to_id,"
            " note, provenance) VALUES ('lnk_bob_to_jane', ?, 'bob', 'knowledge_base_document', ?, 'supports',"
            " 'knowledge_base_document', ?, ?, 'explicit')",
            (TENANT, ids["bob"]["document"], ids["jane"]["document"], f"bob cites {BOB_MARK}"),
        )
        conn.commit()
    bobs = operator_rows(manager.backend, "memory_link", "WHERE user_id = 'bob' AND id <> 'lnk_bob_to_jane'")
    janes = operator_rows(manager.backend, "memory_link", "WHERE user_id = 'jane'")
    assert bobs and janes
    report = erase(manager.backend, TENANT, "user", "jane", requested_by="test", compact=False)
    assert operator_rows(manager.backend, "memory_link", "WHERE id = 'lnk_bob_to_jane'") == []
    assert operator_rows(manager.backend, "memory_link", "WHERE user_id = 'bob'") == bobs
    assert report.counts["memory_link"] == len(janes) + 1
    assert "lnk_bob_to_jane" in erased_ids(manager.backend, TENANT, ["lnk_bob_to_jane"])


def test_forget_dry_run_counts_exactly_and_changes_nothing(shop, sqlite_path, monkeypatch):
    manager, _ = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    before = table_hits(sqlite_path, JANE_MARK)
    dry = invoke("forget", "-t", TENANT, "--user", "jane", "--dry-run").output
    assert "would erase" in dry
    assert table_hits(sqlite_path, JANE_MARK) == before
    assert operator_rows(manager.backend, "erasure_log") == []
    real = invoke("forget", "-t", TENANT, "--user", "jane", "--yes").output
    # the per-table counts on stdout (the progress lines on stderr say "would be erased" / "erased")
    tables = ("memory_", "knowledge", "mcp_")
    counted = lambda text: [ln.split() for ln in text.splitlines() if ln.startswith(tables) and ":" not in ln]
    assert counted(dry) == counted(real) != []


def test_forget_bad_input(shop, sqlite_path, monkeypatch):
    _manager, _ = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    # an unknown user: nothing to erase, said so, exit 0, and no erasure record
    out = invoke("forget", "-t", TENANT, "--user", "nobody", "--yes").output
    assert out.startswith("user nobody has no rows in tenant shop: nothing erased, and no erasure record written")
    assert operator_rows(_manager.backend, "erasure_log") == []
    # no --yes on a real run: refused, nothing erased
    refused = invoke("forget", "-t", TENANT, "--user", "jane", ok=False).output
    assert "erasure cannot be undone; nothing was erased" in refused
    assert table_hits(sqlite_path, JANE_MARK)
    # a tenant this database does not have: refused
    other = invoke("forget", "-t", "elsewhere", "--user", "jane", "--yes", ok=False).output
    assert "tenant elsewhere is not set up" in other
    assert table_hits(sqlite_path, JANE_MARK)
    # two subjects at once: refused
    both = invoke("forget", "-t", TENANT, "--user", "jane", "--thread", "x", "--yes", ok=False).output
    assert "exactly one subject" in both


class Killed(Exception):
    """Stands for kill -9 between two batches (the subprocess test kills for real)."""


def test_an_interrupted_erasure_resumes_and_keeps_what_should_stay(shop, sqlite_path):
    manager, _ids = shop
    others = rows_not_of(manager.backend, "jane")
    indexed = fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)
    expected = erase(manager.backend, TENANT, "user", "jane", requested_by="test", dry_run=True).counts
    seen = []

    def stop_after_a_few(line: str) -> None:
        seen.append(line)
        if len(seen) == 3:
            raise Killed("killed between two committed batches")

    with pytest.raises(Killed, match="killed between"):
        erase(manager.backend, TENANT, "user", "jane", requested_by="test", batch=1, progress=stop_after_a_few)
    (record,) = operator_rows(manager.backend, "erasure_log")
    assert record["status"] == "running"
    assert table_hits(sqlite_path, JANE_MARK)  # not finished
    report = erase(manager.backend, TENANT, "user", "jane", requested_by="test")
    assert report.resumed and report.erasure_id == record["erasure_id"]
    assert report.counts == expected  # what the first run erased is counted with what the second did
    assert table_hits(sqlite_path, JANE_MARK) == {}
    assert rows_not_of(manager.backend, "jane") == others
    assert (fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)) == indexed
    (done,) = operator_rows(manager.backend, "erasure_log")
    assert done["status"] == "done"


def test_replay_of_a_window_that_used_an_erased_row_is_unavailable(shop, sqlite_path, monkeypatch):
    """A manifest outside the subject's scope that names an erased row (written here by the operator
    path, as a re-scoped row or an owner session could) keeps its row, loses its text, and replay says so."""
    manager, ids = shop
    bob = person("bob")
    window = manager.assemble_context(bob, "what is the plan?", "fact_check")
    jane_doc_chunk = operator_rows(
        manager.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": ids["jane"]["document"]}
    )[0]
    with manager.backend.unwalled_connection() as conn:  # the manifest now names jane's chunk
        install_context_functions(conn, ConnectionContext(TENANT, "bob", "helper", "bob-thread"))
        row = conn.execute(
            "SELECT content_json FROM base_conversation_memory WHERE id = ?", (window.manifest_id,)
        ).fetchone()
        data = json.loads(row[0])
        data["memories"].append(
            {"ref": {"table": "knowledge_base_chunk", "id": jane_doc_chunk["id"], "version": 1}, "slice": "evidence"}
        )
        conn.execute(
            "UPDATE base_conversation_memory SET content = content || ?, content_json = ? WHERE id = ?",
            (f" {JANE_MARK}", json.dumps(data), window.manifest_id),
        )
        conn.commit()
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("forget", "-t", TENANT, "--user", "jane", "--yes")
    assert table_hits(sqlite_path, JANE_MARK) == {}
    out = invoke("manifest", "replay", window.manifest_id, "-t", TENANT, ok=False).output
    assert "unavailable: a source was erased" in out


def test_forget_killed_with_sigkill_resumes_on_the_next_run(shop, sqlite_path, monkeypatch, tmp_path):
    """kill -9 of a real `memgate forget` between batches; the same command again finishes it."""
    manager, _ids = shop
    others = rows_not_of(manager.backend, "jane")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "FASTMCP_CHECK_FOR_UPDATES": "off"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgate",
            "--db",
            str(sqlite_path),
            "forget",
            "-t",
            TENANT,
            "--user",
            "jane",
            "--yes",
            "--batch",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        erased_lines, deadline = 0, time.monotonic() + 60
        while erased_lines < 5 and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            erased_lines += b" erased" in line
        assert erased_lines == 5, "the erasure ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    (record,) = operator_rows(manager.backend, "erasure_log")
    assert record["status"] == "running"
    assert table_hits(sqlite_path, JANE_MARK)
    out = cli_runner(sqlite_path, monkeypatch)("forget", "-t", TENANT, "--user", "jane", "--yes").output
    assert f"erasure {record['erasure_id']}" in out
    assert table_hits(sqlite_path, JANE_MARK) == {}
    assert file_hits(sqlite_path, JANE_MARK) == 0
    assert rows_not_of(manager.backend, "jane") == others
    (done,) = operator_rows(manager.backend, "erasure_log")
    assert done["status"] == "done" and sum(json.loads(done["counts_json"]).values()) > 5
