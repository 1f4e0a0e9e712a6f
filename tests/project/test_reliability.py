"""The reliability harness in CI, reduced: isolation soak, kill -9, locked database; and the checker can fail."""

from __future__ import annotations

import pytest
from fastmcp import Client

from bench import reliability
from bench.ingest import write_files
from bench.isolation import IsolationChecker, marker
from bench.servers import demo_database, in_process_app

pytestmark = pytest.mark.anyio


@pytest.fixture
def checker(tmp_path):
    manager = demo_database(tmp_path / "checked.db")
    checked = reliability.plant_markers(manager)
    manager.close()
    return checked


def test_the_checker_flags_another_tenants_id_and_another_users_marker(checker):
    planted = "rows: 1\n| id | content |\n| ent_globex_helios_v1 | 0.55 |"
    assert checker.foreign(planted, "acme", "jane") == ["ent_globex_helios_v1"]
    assert checker.foreign(f'<memory id="x">{marker("acme", "bob")}</memory>', "acme", "jane") == [
        marker("acme", "bob")
    ]
    assert checker.foreign(f"ent_acme_bob_marker {marker('acme', 'bob')}", "acme", "bob") == []


def test_a_row_shared_by_the_tenant_is_no_leak_to_any_of_its_users(checker):
    assert checker.foreign('<memory id="ent_acme_helios_v2">0.78</memory>', "acme", "bob") == []
    assert checker.foreign("sum_acme_july", "acme", "bob") == ["sum_acme_july"]  # jane's summary


async def test_the_checker_catches_a_real_result_of_another_tenant(tmp_path):
    db = tmp_path / "leak.db"
    manager = demo_database(db)
    checker = reliability.plant_markers(manager)
    manager.close()
    app, other = in_process_app(db, "globex", "omar", "support-bot")
    async with Client(app) as client:
        result = await client.call_tool("lookup_entity", {"subject": "marker:probe"})
    other.close()
    text = result.content[0].text
    assert checker.foreign(text, "globex", "omar") == []
    assert checker.foreign(text, "acme", "jane") == ["ent_globex_omar_marker", marker("globex", "omar")]


def test_no_marker_from_the_registry_is_a_plain_word():
    checker = IsolationChecker()
    checker.plant("acme", "jane")
    assert checker.foreign("the acme jane marker", "globex", "omar") == []


async def test_a_short_soak_over_mcp_finds_no_foreign_id(tmp_path):
    result = await reliability.soak(tmp_path / "soak.db", calls=48, seed=3)
    assert result["calls"] == 48 and result["own_marker_seen"] > 0
    assert result["violations"] == []


async def test_kill_9_of_the_server_mid_memory_writes_leaves_whole_files_and_a_consistent_log(tmp_path):
    db = tmp_path / "kill.db"
    demo_database(db).close()
    result = await reliability.kill_during_memory_writes(db, writes=3)
    assert result["integrity_check"] == "ok" and result["logged_ok"] >= 3
    assert (result["torn"], result["logged_but_missing"]) == ([], [])
    assert len(result["committed_without_log_row"]) <= 1
    assert reliability.memory_writes_ok(result)


def test_kill_9_of_ingest_mid_folder_leaves_no_half_document(tmp_path):
    db = tmp_path / "ingest.db"
    demo_database(db).close()
    folder = tmp_path / "docs"
    write_files(folder, files=3, paragraphs=120)
    result = reliability.kill_during_ingest(db, folder, [1.5])
    assert result["rerun_exit"] == 0 and reliability.ingest_ok(result), result


def test_the_document_check_finds_a_half_document(tmp_path):
    import sqlite3

    db = tmp_path / "half.db"
    demo_database(db).close()
    conn = sqlite3.connect(db)
    # The guard triggers ask who is bound: as acme, no user, as the wall's functions would answer.
    conn.create_function("app_tenant", 0, lambda: "acme")
    for name in ("app_user", "app_agent", "app_thread"):
        conn.create_function(name, 0, lambda: None)
    with conn:
        conn.execute(
            "DELETE FROM base_knowledge_base_chunk WHERE id IN (SELECT id FROM base_knowledge_base_chunk "
            "WHERE tenant_id = 'acme' ORDER BY position LIMIT 1)"
        )
    conn.close()
    assert reliability.check_documents(db)["half_documents"] != []


async def test_a_locked_database_gives_the_generic_error_within_the_busy_timeout_and_logs_it(tmp_path):
    db = tmp_path / "locked.db"
    demo_database(db).close()
    result = await reliability.locked_database(db, busy_timeout_ms=500)
    assert result["is_error"] and result["generic_error"] and result["operator_log_error"]
    assert result["call_log_row"] == ["error", "DatabaseBusy"] and result["next_call_ok"]
    assert result["read_under_lock_ok"] and result["reads_logged"] == 3  # the held row was written after
    assert result["elapsed_s"] < 0.5 + 5.0  # the busy timeout, not two of them, nor a hang
