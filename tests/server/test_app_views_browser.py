"""The MCP App views in headless Chromium, hosted by a test host page that speaks the bridge with a real
`memgate serve --transport http` subprocess on 127.0.0.1: the DOM they draw, Approve through the host, no
request of their own."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest
from app_helpers import (
    OVERREACH,
    PREFERENCE,
    REVIEW_SCOPE,
    fact_check_window,
    pending_candidate,
    remembered_memories,
    seed_apps,
)
from backend_helpers import operator_rows, table_digest
from browser_helpers import chromium, chromium_path, relay_host
from jwt_helpers import make_keypair, make_token

from bench.servers import ISSUER, serve_http

KEYS = make_keypair()
#: recorded in every frame before its own scripts run: what the page's CSP refused, if it tried anything
WATCH_CSP = """document.addEventListener("securitypolicyviolation",
  (e) => { (window.__violations = window.__violations || []).push(e.blockedURI + " " + e.violatedDirective); });"""


def token(sub="jane", scope=f"memory:read {REVIEW_SCOPE}"):
    now = int(time.time())
    claims = {"tenant": "acme", "agent": "research-assistant", "thread": "helios-review", "scope": scope}
    return make_token(KEYS.private_pem, iss=ISSUER, aud="memgate", sub=sub, iat=now, exp=now + 600, **claims)


@pytest.fixture
def memgate(sqlite_path, manager, two_tenants, tmp_path):
    """A real `memgate serve --transport http` on the demo database with the apps preset, a window, a candidate."""
    chromium_path()  # skip early, with the reason, where there is no browser
    seed_apps(manager)
    window = fact_check_window(manager)
    candidate = pending_candidate(manager)
    key_file = tmp_path / "idp.pem"
    key_file.write_text(KEYS.public_pem)
    with serve_http(sqlite_path, key_file) as (mcp_url, _pid):
        yield mcp_url, window, candidate["candidate_id"]


def open_view(context, host, tool, uri, args=None):
    page = context.new_page()
    page.goto(f"{host}/host?" + urlencode({"tool": tool, "uri": uri, "args": json.dumps(args or {})}))
    frame = page.frame_locator("#view")
    frame.locator("body[data-rendered]").wait_for()
    # the host has sized the frame to the view's height (ui/notifications/size-changed)
    height = (
        page.locator("#view")
        .element_handle()
        .content_frame()
        .evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
    )
    page.wait_for_function("h => document.getElementById('view').getBoundingClientRect().height >= h", arg=height)
    # a viewport that holds the whole view: headless Chromium leaves an out-of-process frame's part
    # below the viewport blank in a full-page screenshot
    page.set_viewport_size({"width": 900, "height": height + 60})
    return page, frame


def test_the_manifest_view_draws_slices_records_exclusions_history_and_hashes(memgate, tmp_path):
    url, window, _ = memgate
    with relay_host(url, token()) as host, chromium(tmp_path) as context:
        page, view = open_view(context, host, "show_manifest", "ui://memgate/manifest")
        bars = [int(t) for t in view.locator(".bar").evaluate_all("bs => bs.map(b => b.dataset.tokens)")]
        total = int(view.locator("#total").get_attribute("data-total"))
        assert len(bars) == 8 and sum(bars) == total == window.manifest["arithmetic"]["total"]
        assert view.locator('.bar[data-slice="durable_facts"]').get_attribute("data-tokens") == str(
            window.manifest["arithmetic"]["used"]["durable_facts"]
        )
        excluded = view.locator('#excluded tr[data-id="ent_acme_helios_v1"] td.rule')
        assert excluded.inner_text() == "lifecycle"
        admitted = view.locator('#admitted tr[data-id="ent_acme_helios_v2"]').inner_text()
        assert "full" in admitted and "current" in admitted
        assert "ent_acme_helios_v2 supersedes ent_acme_helios_v1" in view.locator("#history").inner_text()
        assert window.manifest["request_hash"] in view.locator("#request-hash").inner_text()
        assert window.manifest["window_hash"] in view.locator("#window-hash").inner_text()
        log = page.evaluate("window.hostLog")
        assert log[:2] == ["ui/initialize", "ui/notifications/initialized"] and log.count("ui/initialize") == 1
        page.screenshot(path=str(tmp_path / "manifest-view.png"), full_page=True)
    assert (tmp_path / "manifest-view.png").stat().st_size > 0


def test_approve_on_a_pending_candidate_promotes_it_through_the_host_and_the_view_updates(memgate, tmp_path, backend):
    url, _, cid = memgate
    with relay_host(url, token()) as host, chromium(tmp_path) as context:
        page, view = open_view(context, host, "show_memory", "ui://memgate/memory")
        row = view.locator(f'#candidates tr[data-id="{cid}"]')
        assert row.get_attribute("data-decision") == "pending" and row.get_attribute("data-version") == "1"
        row.locator("button.approve").click()
        view.locator(f'#candidates tr[data-id="{cid}"][data-decision="approved"]').wait_for()
        assert view.locator(f'#candidates tr[data-id="{cid}"] button').count() == 0
        page.screenshot(path=str(tmp_path / "memory-view.png"), full_page=True)
        assert "tools/call" in page.evaluate("window.hostLog")
    [decided] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (decided["decision"], decided["version"], decided["decided_by"]) == ("approved", 2, "host:jane")


def test_the_memory_view_lists_every_memory_type_and_what_a_reviewer_decides_from(
    sqlite_path, manager, two_tenants, tmp_path
):
    """Memories grouped by type with who may see them; a pending candidate's scores against their thresholds
    and the evidence it rests on (id, scope, excerpt), drawn from the page's own data, in Chromium."""
    chromium_path()
    seed_apps(manager)
    made = remembered_memories(manager)
    pending = made[OVERREACH]["candidate_id"]
    key_file = tmp_path / "idp.pem"
    key_file.write_text(KEYS.public_pem)
    with serve_http(sqlite_path, key_file) as (url, _pid):
        with relay_host(url, token()) as host, chromium(tmp_path) as context:
            page, view = open_view(context, host, "show_memory", "ui://memgate/memory")
            groups = view.locator("#memories tr.group").evaluate_all("rs => rs.map(r => r.dataset.group)")
            assert groups == ["fact", "note", "preference", "procedure"]
            assert view.locator("#types").inner_text() == "3 facts, 1 note, 1 preference, 1 procedure"
            preference = view.locator('#memories tr[data-type="preference"]')
            assert preference.get_attribute("data-id") == made[PREFERENCE]["record_id"]
            assert "user jane" in preference.inner_text()
            details = view.locator(f'#candidates tr.details[data-details-for="{pending}"]')
            supported = details.locator('.assessment[data-question="supported"]')
            assert "fail" in supported.get_attribute("class") and supported.inner_text() == "supported 0.30 ≥ 0.90 fail"
            assert details.locator('.assessment[data-question="conflict"]').inner_text() == "conflict 0.02 ≤ 0.10 pass"
            evidence = details.locator('li[data-evidence-id="chk_acme_1_0"]')
            assert evidence.locator(".visibility").inner_text() == "tenant"
            assert "found nDCG@10 of 0.78" in evidence.locator(".excerpt").inner_text()
            assert view.locator(f'#candidates tr[data-id="{pending}"] button.approve').count() == 1
            # the view alone, as docs/images/memory-view.png shows it
            page.locator("#view").screenshot(path=str(tmp_path / "memory-view.png"))
    assert (tmp_path / "memory-view.png").stat().st_size > 0


def test_another_users_candidate_named_from_the_page_is_a_clear_error_and_changes_nothing(memgate, tmp_path, backend):
    url, _, cid = memgate
    before = table_digest(backend, skip=("mcp_call_log",))
    with relay_host(url, token(sub="bob")) as host, chromium(tmp_path) as context:
        page, view = open_view(context, host, "show_memory", "ui://memgate/memory")
        assert view.locator("#candidates tbody tr").count() == 0  # bob's wall shows none of jane's
        frame = page.locator("#view").element_handle().content_frame()
        refused = frame.evaluate(
            """(cid) => Bridge.callTool("review_candidate", {candidate_id: cid, version: 1, decision: "approve"})
                 .then(() => "approved", (e) => e.message)""",
            cid,
        )
    assert (
        refused
        == "There is no candidate with that id for you; nothing was written. Review candidates show_memory lists."
    )
    assert table_digest(backend, skip=("mcp_call_log",)) == before


def test_the_views_make_no_network_request_of_their_own(memgate, tmp_path):
    url, _, _ = memgate
    with relay_host(url, token()) as host, chromium(tmp_path) as context:
        context.add_init_script(WATCH_CSP)
        requests = []
        context.on("request", lambda r: requests.append((r.url, r.frame.parent_frame is not None)))
        for tool, uri in (("show_manifest", "ui://memgate/manifest"), ("show_memory", "ui://memgate/memory")):
            page, _ = open_view(context, host, tool, uri)
            frame = page.locator("#view").element_handle().content_frame()
            assert frame.evaluate("window.__violations || []") == []
            page.close()
    from_views = [u for u, in_frame in requests if in_frame and not u.startswith("about:")]
    assert from_views == [], f"the view requested {from_views}"
    paths = {u.removeprefix(host).split("?")[0] for u, _ in requests}
    assert paths <= {"/host", "/rpc"}, paths
