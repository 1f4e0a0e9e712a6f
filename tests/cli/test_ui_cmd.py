"""`memgate ui -t T` over real HTTP on 127.0.0.1: the host page, the views, operator calls, and who it answers."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx2 as httpx
import pytest
from app_helpers import fact_check_window, pending_candidate
from backend_helpers import operator_rows, table_digest

#: a bounded wait for the server's first line (s)
START_TIMEOUT = 30.0


@pytest.fixture
def ui(sqlite_path, manager, two_tenants, tmp_path):
    window = fact_check_window(manager)
    cid = pending_candidate(manager)["candidate_id"]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "memgate", "--db", str(sqlite_path), "ui", "-t", "acme", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # the process prints its address once bound, then serves
        assert line.startswith("memgate ui for acme: http://127.0.0.1:"), line + proc.stderr.read()
        url = line.split()[4].rstrip("/")
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # bounded: uvicorn starts serving right after the line
            try:
                httpx.get(f"{url}/", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "memgate ui did not answer"
                time.sleep(0.05)
        yield url, window, cid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def rpc(url, method, params=None, **headers):
    return httpx.post(f"{url}/rpc", json={"method": method, "params": params or {}}, headers=headers, timeout=30)


def test_the_host_page_and_both_views_are_served(ui):
    url, window, _ = ui
    page = httpx.get(f"{url}/", timeout=10)
    assert page.status_code == 200 and "memgate ui" in page.text and 'sandbox="allow-scripts"' in page.text
    for uri in ("ui://memgate/manifest", "ui://memgate/memory"):
        [content] = rpc(url, "resources/read", {"uri": uri}).json()["result"]["contents"]
        assert content["mimeType"] == "text/html;profile=mcp-app" and content["text"].startswith("<!DOCTYPE html>")
    listed = rpc(url, "manifests").json()["result"]
    assert listed["tenant"] == "acme" and window.manifest_id in [m["id"] for m in listed["manifests"]]


def test_a_manifest_is_shown_as_its_owner_sees_it(ui):
    url, window, _ = ui
    result = rpc(url, "tools/call", {"name": "show_manifest", "arguments": {"manifest_id": window.manifest_id}})
    d = result.json()["result"]["structuredContent"]
    assert sum(s["tokens"] for s in d["slices"]) == d["total"] == window.manifest["arithmetic"]["total"]
    assert {e["id"]: e["rule"] for e in d["excluded"]}["ent_acme_helios_v1"] == "lifecycle"


def test_the_operator_reviews_any_users_candidate_at_the_version_shown(ui, backend):
    url, _, cid = ui
    view = rpc(url, "tools/call", {"name": "show_memory", "arguments": {}}).json()["result"]["structuredContent"]
    assert view["review_tool"] == "review_candidate"
    [shown] = [c for c in view["candidates"] if c["id"] == cid]
    assert (shown["decision"], shown["version"], shown["user"]) == ("pending", 1, "jane")
    stale = rpc(
        url,
        "tools/call",
        {"name": "review_candidate", "arguments": {"candidate_id": cid, "version": 3, "decision": "approve"}},
    )
    assert stale.json()["result"]["isError"] is True
    assert "not the version 3 you saw; nothing was written" in stale.json()["result"]["content"][0]["text"]
    done = rpc(
        url,
        "tools/call",
        {"name": "review_candidate", "arguments": {"candidate_id": cid, "version": 1, "decision": "approve"}},
    )
    assert done.json()["result"]["structuredContent"]["decision"] == "approved"
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (row["decision"], row["version"], row["decided_by"]) == ("approved", 2, "ui:operator")


def test_it_answers_only_its_own_host_and_origin_and_changes_nothing_otherwise(ui, backend):
    url, _, cid = ui
    before = table_digest(backend, skip=("mcp_call_log",))
    review = {"name": "review_candidate", "arguments": {"candidate_id": cid, "version": 1, "decision": "approve"}}
    assert rpc(url, "tools/call", review, host="evil.example").status_code == 421
    assert rpc(url, "tools/call", review, origin="http://evil.example").status_code == 403
    assert httpx.get(f"{url}/", headers={"host": "evil.example"}, timeout=10).status_code == 421
    unknown = rpc(url, "tools/call", {"name": "execute_query", "arguments": {"query": "SELECT 1"}}).json()["result"]
    assert unknown["isError"] is True and "serves the tools" in unknown["content"][0]["text"]
    assert table_digest(backend, skip=("mcp_call_log",)) == before


def test_the_operator_page_renders_both_views_in_chromium_and_approves(ui, tmp_path, backend):
    from browser_helpers import chromium, chromium_path

    chromium_path()
    url, window, cid = ui
    with chromium(tmp_path) as context:
        page = context.new_page()
        page.goto(f"{url}/")
        view = page.frame_locator("#view")
        view.locator('body[data-rendered="manifest"]').wait_for()
        assert view.locator('#excluded tr[data-id="ent_acme_helios_v1"] td.rule').inner_text() == "lifecycle"
        assert window.manifest_id in view.locator("#title").inner_text()
        page.click("#show-memory")
        view.locator(f'#candidates tr[data-id="{cid}"] button.approve').click()
        view.locator(f'#candidates tr[data-id="{cid}"][data-decision="approved"]').wait_for()
        page.screenshot(path=str(tmp_path / "memgate-ui.png"))
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (row["decision"], row["decided_by"]) == ("approved", "ui:operator")


def test_the_operators_memory_view_lists_every_users_memories_with_each_candidates_evidence(manager, two_tenants):
    """`memgate ui` acts for the tenant, not a user: jane's user-scoped note, preference and procedure are
    listed, and her pending candidate carries its assessments and evidence as her wall shows them."""
    from app_helpers import OVERREACH, remembered_memories

    from memgate.server.cli.ui_cmd import OperatorCalls

    made = remembered_memories(manager)
    text, view = OperatorCalls(manager, "acme").show_memory()
    assert view["types"] == {"fact": 3, "note": 1, "preference": 1, "procedure": 1}
    assert text.startswith("tenant acme: memories: 6 | candidates: 4 | pending: 1")
    [pending] = [c for c in view["candidates"] if c["id"] == made[OVERREACH]["candidate_id"]]
    assert [a["question"] for a in pending["assessments"]] == ["supported", "scope_fits", "conflict"]
    assert pending["evidence"][0]["id"] == "chk_acme_1_0" and "0.78" in pending["evidence"][0]["excerpt"]
