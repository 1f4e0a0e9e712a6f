"""The proof of `memgate forget`: a marker written through every write path is gone from every table,
FTS5 shadow table and the file's bytes, while another user's marker and every shared row stay, and
the call log still shows the erased user's calls with their content replaced."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from memory_helpers import call, seed
from PIL import Image
from PIL.PngImagePlugin import PngInfo
from retention_helpers import file_hits, fts_matches, table_hits

from memgate.manager import Identity, erase
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions

JANE_MARK = "qzjanemark7731"
BOB_MARK = "qzbobmark4417"
SHARED_MARK = "qzsharedmark5151"
TENANT = "shop"

#: the memory tool on the caller's own user store (the default row writes the agent's store)
USER_MEMORY_ROW = {
    "tool_name": "memory_mine",
    "tool_handler": "memory",
    "usage_notes": "The caller's own memory files.",
    "tool_schema": None,  # filled from the default memory row
    "access_policy": {"memory_store": {"scope": "user"}},
}


def png_with_text(text: str) -> bytes:
    """A PNG whose bytes carry `text` (a tEXt chunk): image bytes hold content too."""
    info = PngInfo()
    info.add_text("Comment", text)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 20, 30)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


def person(user: str) -> Identity:
    return Identity(tenant=TENANT, user=user, agent="helper", thread=f"{user}-thread", principal=f"test:{user}")


def write_everything(manager, tmp_path, user: str, marker: str, shared_doc: str) -> dict[str, str]:
    """`marker` through every write path memgate has, as `user`; the ids written."""
    who = person(user)
    # a memory file, through the MCP memory tool (its arguments and result land in the call log)
    is_error, text = call(
        manager,
        who,
        "memory_mine",
        command="create",
        path="/memories/notes.md",
        file_text=f"remember {marker} for later",
    )
    assert not is_error, text
    # tool arguments: a search that names the marker
    is_error, text = call(manager, who, "search_memory", query=f"{marker} plans")
    assert not is_error, text
    # ingest: a document of the user's (chunks, the FTS5 index, embeddings)
    doc = manager.ingest_text(
        who,
        title=f"plan {marker}",
        text=f"The plan {marker} is ready. " * 20,
        source_uri=f"memo://{user}/plan",
        user_id=user,
    )
    # an image with a description, its bytes carrying the marker too
    path = tmp_path / f"{user}.png"
    path.write_bytes(png_with_text(f"exif {marker}"))
    image = manager.ingest_file(who, path, user_id=user, description=f"a photo of {marker}")
    # a turn with text and an image part (stored with the turn, described)
    turn = manager.record_turn(
        who,
        "user",
        [
            {"type": "text", "text": f"hello {marker}"},
            {
                "type": "image",
                "data": png_with_text(f"turn {marker}"),
                "name": "t.png",
                "description": f"turn image {marker}",
            },
        ],
    )
    # a claim scoped to the user
    manager.correct_entity(who, f"customer:{user}", "note", f"prefers {marker}", user_id=user)
    # a context window: the question, the window text and its manifest
    manager.assemble_context(who, f"what is {marker}?", "fact_check")
    # a link with a note, from the user's document to the shared one
    manager.add_link(who, doc.document_id, "supports", shared_doc, note=f"because {marker}")
    # remember: a note resting on the user's own turn (memory_candidate, memory_assessment, the
    # promoted record and its supports link)
    remembered = manager.remember(who, f"hello {marker}", "note", evidence=[turn["id"]])
    assert remembered.text.split()[0] in ("promoted", "pending"), remembered.text
    return {"document": doc.document_id, "image": image.image_id, "turn": turn["id"]}


@pytest.fixture
def shop(manager, tmp_path):
    tenant = Identity(tenant=TENANT, principal="test:init")
    row = dict(USER_MEMORY_ROW)
    from memgate.manager import load_tool_definitions

    row["tool_schema"] = next(t for t in load_tool_definitions() if t["tool_name"] == "memory_write")["tool_schema"]
    seed(manager, tenant, row)
    shared = manager.ingest_text(
        tenant, title="handbook", text=f"Shared handbook {SHARED_MARK}. " * 20, source_uri="memo://shared/handbook"
    )
    manager.correct_entity(tenant, "policy:refunds", "window", f"30 days {SHARED_MARK}")
    ids = {
        "jane": write_everything(manager, tmp_path, "jane", JANE_MARK, shared.document_id),
        "bob": write_everything(manager, tmp_path, "bob", BOB_MARK, shared.document_id),
    }
    return manager, ids


def rows_holding(path, marker: str) -> dict[str, int]:
    """table_hits without the FTS5 shadow tables, whose rows a merge ('optimize') legitimately
    regroups: what an index holds is compared by matching it (fts_matches) instead."""
    return {t: n for t, n in table_hits(path, marker).items() if not t.startswith("base_kb_fts_")}


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


def _checkpoint(path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def test_forget_user_leaves_no_trace_of_the_marker_and_keeps_the_rest(shop, sqlite_path, monkeypatch):
    manager, _ids = shop
    _checkpoint(sqlite_path)
    before = table_hits(sqlite_path, JANE_MARK)
    # the marker went everywhere the scan must look, or the scan proves nothing
    for table in (
        "base_memory_file",
        "base_mcp_call_log",
        "base_knowledge_base_document",
        "base_knowledge_base_chunk",
        "base_image_memory",
        "base_conversation_memory",
        "base_entity_memory",
        "base_memory_link",
    ):
        assert before.get(table), f"the marker never reached {table}: {before}"
    assert fts_matches(sqlite_path, JANE_MARK) > 0 and file_hits(sqlite_path, JANE_MARK) > 0
    bob_before = rows_holding(sqlite_path, BOB_MARK)
    indexed = fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)
    jane_calls = operator_rows(manager.backend, "mcp_call_log", "WHERE user_id = 'jane'")
    assert len(jane_calls) == 2
    others = rows_not_of(manager.backend, "jane")

    invoke = cli_runner(sqlite_path, monkeypatch)
    out = invoke("forget", "-t", TENANT, "--user", "jane", "--yes").output
    assert "erased" in out and "erasure era_" in out
    _checkpoint(sqlite_path)

    assert table_hits(sqlite_path, JANE_MARK) == {}
    assert fts_matches(sqlite_path, JANE_MARK) == 0
    assert file_hits(sqlite_path, JANE_MARK) == 0
    assert rows_holding(sqlite_path, BOB_MARK) == bob_before  # bob's own copies, every one
    # every row that is not jane's is as it was (her own copies of shared text went with her rows)
    assert rows_not_of(manager.backend, "jane") == others
    assert (fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)) == indexed
    # the call log keeps jane's calls: who, which tool, when, how it ended; the content is a marker
    after = {r["call_id"]: r for r in operator_rows(manager.backend, "mcp_call_log", "WHERE user_id = 'jane'")}
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
    record = operator_rows(manager.backend, "erasure_log")
    assert len(record) == 1 and record[0]["status"] == "done" and record[0]["subject"] == "jane"
    assert JANE_MARK not in str(record)
    listed = invoke("forget", "-t", TENANT, "--list").output
    assert f"{record[0]['erasure_id']} done    user=jane by cli:operator:" in listed
    # bob still finds his document, by words and by its marker
    bob = person("bob")
    assert BOB_MARK in manager.search_memory(bob, BOB_MARK).text


def test_forget_dry_run_counts_exactly_and_changes_nothing(shop, sqlite_path, monkeypatch):
    manager, _ = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    _checkpoint(sqlite_path)
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
    indexed = fts_matches(sqlite_path, BOB_MARK), fts_matches(sqlite_path, SHARED_MARK)
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
    _checkpoint(sqlite_path)
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
    _checkpoint(sqlite_path)
    assert table_hits(sqlite_path, JANE_MARK) == {}
    assert file_hits(sqlite_path, JANE_MARK) == 0
    assert rows_not_of(manager.backend, "jane") == others
    (done,) = operator_rows(manager.backend, "erasure_log")
    assert done["status"] == "done" and sum(json.loads(done["counts_json"]).values()) > 5
