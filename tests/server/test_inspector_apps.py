"""The MCP Inspector's CLI (a client nobody here wrote) against a real `memgate serve` with the apps preset:
it lists the ui:// view resources, reads one, sees the tools' _meta.ui, and reads a manifest's view data.

Uses test_inspector_cli's install (pinned, into pytest's cache; skipped with the reason without node and npm).
"""

from __future__ import annotations

import json

import pytest
from app_helpers import APPS_PRESET
from click.testing import CliRunner
from test_inspector_cli import inspector, run_inspector, stdio_target  # noqa: F401 - the fixture by name

from memgate.manager import ACME
from memgate.server.app_views import UI_MIME_TYPE
from memgate.server.cli import cli
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = [pytest.mark.inspector]


@pytest.fixture(scope="module")
def apps_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("inspected-apps") / "memgate.db"
    for args in (["init", "--demo"], ["init", "--tenant", "acme", "--tools-file", str(APPS_PRESET)]):
        result = CliRunner().invoke(cli, ["--db", str(path), *args])
        assert result.exit_code == 0, result.output
    manager = open_manager(load_settings(None, **{"database.path": str(path)}))
    try:  # a window of the identity `serve --demo` serves (acme, jane, research-assistant)
        window = manager.assemble_context(ACME, "Is Helios RAG's nDCG@10 on BEIR really 0.92?", "fact_check")
    finally:
        manager.close()
    return path, window


def test_the_inspector_lists_the_views_and_reads_a_manifest_from_memgate_serve(inspector, apps_db, tmp_path):
    db, window = apps_db
    target = stdio_target(db)
    code, listed = run_inspector(inspector, target, "--method", "resources/list", home=tmp_path)
    assert code == 0, listed
    views = {r["uri"]: r for r in listed["result"]["resources"] if r["uri"].startswith("ui://")}
    assert set(views) == {"ui://memgate/manifest", "ui://memgate/memory"}
    assert all(r["mimeType"] == UI_MIME_TYPE for r in views.values())

    code, read = run_inspector(
        inspector, target, "--method", "resources/read", "--uri", "ui://memgate/manifest", home=tmp_path
    )
    assert code == 0, read
    [content] = read["result"]["contents"]
    assert content["mimeType"] == UI_MIME_TYPE and content["text"].startswith("<!DOCTYPE html>")
    assert content["_meta"]["ui"]["csp"]["connectDomains"] == []

    code, tools = run_inspector(inspector, target, "--method", "tools/list", home=tmp_path)
    assert code == 0, tools
    [show] = [t for t in tools["result"]["tools"] if t["name"] == "show_manifest"]
    assert show["_meta"]["ui"]["resourceUri"] == "ui://memgate/manifest"

    code, shown = run_inspector(
        inspector,
        target,
        "--method",
        "tools/call",
        "--tool-name",
        "show_manifest",
        "--tool-args-json",
        json.dumps({"manifest_id": window.manifest_id}),
        home=tmp_path,
    )
    assert code == 0 and shown["result"]["isError"] is False, shown
    data = shown["result"]["structuredContent"]
    assert data["manifest_id"] == window.manifest_id
    assert sum(s["tokens"] for s in data["slices"]) == data["total"]
    assert {e["id"]: e["rule"] for e in data["excluded"]}["ent_acme_helios_v1"] == "lifecycle"
    assert shown["result"]["content"][0]["text"].startswith(f"manifest: {window.manifest_id} | intent: fact_check")
