"""Export a user, erase them, import into a fresh database: their memory comes back byte for byte.

Then the import's own promises: idempotent, refusing a bundle that does not match its manifest,
never overwriting a newer version, ids mapped for another tenant.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace

import pytest
from backend_helpers import open_sqlite, operator_rows
from cli_helpers import cli_runner
from portability_helpers import TENANT, bundle_rows, owned_rows, person, seed_shop, thread_rows, write_memory

from memgate.manager import InvalidArgument, MemoryManager, export_scope, import_bundle


@pytest.fixture
def shop(manager, tmp_path):
    ids = seed_shop(manager)
    jane = write_memory(manager, tmp_path, "jane", "zebra", ids["shared_document"])
    write_memory(manager, tmp_path, "bob", "okapi", ids["shared_document"])
    return manager, jane


def test_export_forget_import_restores_the_user_byte_for_byte(shop, sqlite_path, tmp_path, monkeypatch):
    _manager, _ = shop
    before = owned_rows(sqlite_path, TENANT, "user_id", "jane")
    # every table the user writes to is in the comparison, or it proves little
    assert {t for t, rows in before.items() if rows} >= {
        "memory_store",
        "memory_file",
        "knowledge_base_document",
        "knowledge_base_chunk",
        "image_memory",
        "conversation",
        "conversation_memory",
        "summarization_memory",
        "conversation_recall",
        "entity_memory",
        "memory_link",
        "memory_candidate",
        "mcp_call_log",
        "mcp_call_cited",
    }, before
    invoke = cli_runner(sqlite_path, monkeypatch)
    out = invoke("export", "-t", TENANT, "--user", "jane", "--out", str(tmp_path / "jane")).output
    sha = re.search(r"bundle sha256 ([0-9a-f]{64})", out).group(1)
    invoke("forget", "-t", TENANT, "--user", "jane", "--yes")
    assert not any(owned_rows(sqlite_path, TENANT, "user_id", "jane").get(t) for t in ("entity_memory", "image_memory"))

    fresh = tmp_path / "fresh.db"
    again = cli_runner(fresh, monkeypatch)
    again("init")
    imported = again("import", str(tmp_path / "jane"), "--sha256", sha).output
    assert "0 refused" in imported and "0 kept" in imported, imported
    assert owned_rows(fresh, TENANT, "user_id", "jane") == before
    # and the user finds it again through the tools: her document, her claim's history
    back = MemoryManager(open_sqlite(fresh))
    try:
        assert "zebra" in back.search_memory(person("jane"), "plan zebra").text
        claims, _ = back.lookup_claims(person("jane"), "customer:jane", "prefers")
        assert [(v.row["content"], v.status) for v in [claims[0].current, *claims[0].history]] == [
            ("zebra v2", "current"),
            ("zebra v1", "superseded"),
        ]
        # and recall finds her imported turns and summary from a new conversation
        recalled = back.recall_conversations(person("jane", "a-new-thread"), "zebra invoice INV-37", limit=20)
        assert {r.candidate.kind for r in recalled} == {"turn", "summary"}, recalled
        assert any("INV-37" in r.candidate.text for r in recalled if r.candidate.kind == "turn"), recalled
    finally:
        back.close()
    # running it again changes nothing
    second = again("import", str(tmp_path / "jane")).output
    assert re.search(r": 0 inserted, \d+ unchanged, 0 updated, 0 kept, 0 refused", second), second


def test_a_thread_comes_back_with_its_conversations_turns_summaries_and_recall(
    shop, sqlite_path, tmp_path, monkeypatch
):
    """A conversation's turns, compaction events, summaries and recall rows carry the conversation and
    no thread: an export of the thread takes them with its conversations, as `forget --thread` erases them."""
    before = thread_rows(sqlite_path, TENANT, "jane-other")
    assert {t for t, rows in before.items() if rows} >= {
        "conversation",
        "conversation_memory",
        "summarization_memory",
        "conversation_recall",
    }, before
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("export", "-t", TENANT, "--thread", "jane-other", "--out", str(tmp_path / "thread"))
    # nothing of bob's, nor of jane's other conversation
    conversations = {r["id"] for r in bundle_rows(tmp_path / "thread")["conversation"]}
    for table, rows in bundle_rows(tmp_path / "thread").items():
        for r in rows:
            assert r.get("user_id") in ("jane", None), (table, r)
            assert r.get("thread_id") in ("jane-other", None), (table, r)
            if "conversation_id" in r:
                assert r["conversation_id"] in conversations, (table, r)
    invoke("forget", "-t", TENANT, "--thread", "jane-other", "--yes")
    assert not any(thread_rows(sqlite_path, TENANT, "jane-other").values())

    fresh = tmp_path / "fresh.db"
    again = cli_runner(fresh, monkeypatch)
    again("init")
    imported = again("import", str(tmp_path / "thread")).output
    assert "0 refused" in imported and "0 kept" in imported, imported
    assert thread_rows(fresh, TENANT, "jane-other") == before
    back = MemoryManager(open_sqlite(fresh))
    try:  # recall finds the imported turns from another conversation of hers
        recalled = back.recall_conversations(person("jane", "a-new-thread"), "zebra invoice INV-37", limit=20)
        assert any("INV-37" in r.candidate.text for r in recalled if r.candidate.kind == "turn"), recalled
    finally:
        back.close()


def test_a_bundle_that_does_not_match_its_manifest_is_refused_and_nothing_changes(shop, sqlite_path, tmp_path):
    manager, _ = shop
    folder = tmp_path / "jane"
    report = export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
    fresh = open_sqlite(tmp_path / "fresh.db")
    fresh.migrate()
    try:
        # one character of one row changed
        path = folder / "tables" / "entity_memory.jsonl"
        path.write_text(path.read_text().replace("zebra v2", "zebra v3"))
        with pytest.raises(InvalidArgument, match=r"does not match its manifest.*entity_memory.*has 2 rows and sha256"):
            import_bundle(fresh, folder, requested_by="test")
        assert not any(operator_rows(fresh, t) for t in fresh.tables())
        # an image file changed
        shutil.rmtree(folder)
        export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
        image = next((folder / "images").iterdir())
        image.write_bytes(image.read_bytes() + b"x")
        with pytest.raises(InvalidArgument, match="does not hash to its name"):
            import_bundle(fresh, folder, requested_by="test")
        # the manifest is whole but not the one the export printed
        shutil.rmtree(folder)
        export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
        with pytest.raises(InvalidArgument, match=f"not {report.sha256}"):
            import_bundle(fresh, folder, requested_by="test", expected_sha256=report.sha256)
        assert not any(operator_rows(fresh, t) for t in fresh.tables())
    finally:
        fresh.close()


def test_import_never_overwrites_a_newer_version(shop, tmp_path):
    manager, jane = shop
    folder = tmp_path / "jane"
    export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
    # after the export: jane's document is replaced (its next version) and her claim corrected again
    manager.ingest_text(
        person("jane"), title="plan zebra", text="A newer plan. " * 30, source_uri="memo://jane", user_id="jane"
    )
    manager.correct_entity(person("jane"), "customer:jane", "prefers", "zebra v3", user_id="jane")
    [doc] = operator_rows(manager.backend, "knowledge_base_document", "WHERE id = :id", {"id": jane["document"]})
    assert doc["version"] == 2
    report = import_bundle(manager.backend, folder, requested_by="test")
    assert report.counts["knowledge_base_document"]["kept"] == 1
    [after] = operator_rows(manager.backend, "knowledge_base_document", "WHERE id = :id", {"id": jane["document"]})
    assert after == doc
    # the claim's version 2, closed by the correction after the export, stays closed
    closed = operator_rows(manager.backend, "entity_memory", "WHERE content = 'zebra v2'")
    assert closed[0]["valid_until"] is not None
    assert report.total("updated") == 0 and report.total("refused") == 0


def test_an_older_database_takes_the_bundles_newer_versions_and_ended_lifecycles(shop, sqlite_path, tmp_path):
    manager, _jane = shop
    old = tmp_path / "old"
    export_scope(manager.backend, TENANT, "user", "jane", old, requested_by="test")
    manager.ingest_text(
        person("jane"), title="plan zebra", text="A newer plan. " * 30, source_uri="memo://jane", user_id="jane"
    )
    manager.correct_entity(person("jane"), "customer:jane", "prefers", "zebra v3", user_id="jane")
    new = tmp_path / "new"
    export_scope(manager.backend, TENANT, "user", "jane", new, requested_by="test")
    fresh = open_sqlite(tmp_path / "fresh.db")
    fresh.migrate()
    try:
        import_bundle(fresh, old, requested_by="test")
        report = import_bundle(fresh, new, requested_by="test")
        assert report.counts["knowledge_base_document"]["updated"] == 1
        assert report.counts["entity_memory"] == {**report.counts["entity_memory"], "updated": 1, "inserted": 1}
        assert (
            owned_rows(tmp_path / "fresh.db", TENANT, "user_id", "jane")["entity_memory"]
            == owned_rows(sqlite_path, TENANT, "user_id", "jane")["entity_memory"]
        )
    finally:
        fresh.close()


def test_into_another_tenant_ids_are_mapped_and_the_source_is_untouched(shop, tmp_path):
    manager, jane = shop
    folder = tmp_path / "jane"
    export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
    before = _tenant_rows(manager.backend, TENANT)
    report = import_bundle(manager.backend, folder, requested_by="test", tenant="shop-staging")
    assert report.mapped > 20 and report.total("refused") == 0 and report.total("inserted") > 20
    staging = operator_rows(
        manager.backend, "knowledge_base_document", "WHERE tenant_id = 'shop-staging' AND title = 'plan zebra'"
    )
    assert len(staging) == 1 and staging[0]["id"] != jane["document"] and staging[0]["id"].startswith("doc_")
    chunks = operator_rows(manager.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": staging[0]["id"]})
    assert chunks and {c["tenant_id"] for c in chunks} == {"shop-staging"}
    links = operator_rows(manager.backend, "memory_link", "WHERE tenant_id = 'shop-staging'")
    assert staging[0]["id"] in {link["from_id"] for link in links}
    # ids inside JSON columns are mapped too: the candidate's evidence names the staging turn
    [candidate] = operator_rows(manager.backend, "memory_candidate", "WHERE tenant_id = 'shop-staging'")
    [turn] = operator_rows(
        manager.backend, "conversation_memory", "WHERE tenant_id = 'shop-staging' AND content LIKE 'hello zebra%'"
    )
    assert [r["id"] for r in json.loads(candidate["evidence_json"])] == [turn["id"]] != [jane["turn"]]
    # the tenant's own search finds the imported document by its words
    assert "zebra" in manager.search_memory(replace(person("jane"), tenant="shop-staging"), "plan zebra").text
    again = import_bundle(manager.backend, folder, requested_by="test", tenant="shop-staging")
    assert again.total("inserted") == 0 and again.total("unchanged") == report.total("inserted")
    # the source tenant's rows are as they were: the import wrote only shop-staging's
    assert _tenant_rows(manager.backend, TENANT) == before


def _tenant_rows(backend, tenant):
    return {
        t: sorted(
            json.dumps(r, sort_keys=True, default=str) for r in operator_rows(backend, t) if r["tenant_id"] == tenant
        )
        for t in backend.tables()
    }


def test_into_the_database_she_was_erased_from_only_the_erased_call_log_rows_stay_as_they_are(
    shop, sqlite_path, tmp_path, monkeypatch
):
    manager, _ = shop
    before = owned_rows(sqlite_path, TENANT, "user_id", "jane")
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("export", "-t", TENANT, "--user", "jane", "--out", str(tmp_path / "jane"))
    invoke("forget", "-t", TENANT, "--user", "jane", "--yes")
    dry = invoke("import", str(tmp_path / "jane"), "--dry-run").output
    assert "would import into tenant shop from shop:" in dry
    assert owned_rows(sqlite_path, TENANT, "user_id", "jane")["entity_memory"] == []
    report = import_bundle(manager.backend, tmp_path / "jane", requested_by="test")
    calls = len(before["mcp_call_log"])
    assert report.counts["mcp_call_log"]["kept"] == calls and report.total("refused") == 0
    after = owned_rows(sqlite_path, TENANT, "user_id", "jane")
    assert {t: rows for t, rows in after.items() if t != "mcp_call_log"} == {
        t: rows for t, rows in before.items() if t != "mcp_call_log"
    }
    assert all('"result_text": "[erased]"' in row for row in after["mcp_call_log"])


def test_a_row_the_target_refuses_is_counted_and_named_and_the_rest_still_imports(shop, tmp_path):
    """The target already holds jane's memory store under another id (its store key is unique): that
    row is refused, named in the report, and every other row of the bundle is imported."""
    manager, _jane = shop
    folder = tmp_path / "jane"
    export_scope(manager.backend, TENANT, "user", "jane", folder, requested_by="test")
    fresh = open_sqlite(tmp_path / "fresh.db")
    fresh.migrate()
    try:
        target = MemoryManager(fresh)
        with target.memory_store_files(person("jane"), "user:jane") as files:
            files.put("/memories/theirs.md", "the target's own note")
        report = import_bundle(fresh, folder, requested_by="test")
        assert report.counts["memory_store"]["refused"] == 1, report.counts
        assert any(r.startswith("memory_store ") for r in report.refusals), report.refusals
        assert (
            report.counts["entity_memory"]["inserted"] >= 1
            and report.counts["knowledge_base_document"]["inserted"] >= 1
        )
    finally:
        fresh.close()
