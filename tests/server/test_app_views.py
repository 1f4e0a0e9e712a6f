"""The MCP App views: ui:// resources, tools linked to them, structuredContent, and hosts without Apps."""

from __future__ import annotations

import re

import pytest
from app_helpers import APPS_HOST, REVIEW_SCOPE, fact_check_window, pending_candidate, seed_apps
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, refs
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, load_tool_definitions
from memgate.manager.context.manifest_view import describe
from memgate.manager.registry.toolbox import APP_ONLY_HANDLERS
from memgate.server.app_views import UI_EXTENSION_ID, UI_MIME_TYPE
from memgate.toolbox.handlers import HANDLERS

VIEWS = {"ui://memgate/manifest", "ui://memgate/memory"}
EMPTY_CSP = {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}


@pytest.fixture
def app(sqlite_path, manager, two_tenants):
    seed_apps(manager)
    app, served = stdio_app(sqlite_path, thread="helios-review", **{"stdio.scopes": [REVIEW_SCOPE]})
    yield app
    served.close()


@pytest.mark.anyio
async def test_both_views_are_ui_resources_with_no_external_origin(app):
    async with Client(app) as c:
        listed = {str(r.uri): r for r in await c.list_resources()}
        for uri in VIEWS:
            assert listed[uri].mime_type == UI_MIME_TYPE
            assert listed[uri].meta["ui"]["csp"] == EMPTY_CSP
            [content] = await c.read_resource(uri)
            assert content.mime_type == UI_MIME_TYPE and content.meta["ui"]["csp"] == EMPTY_CSP
            html = content.text
            assert html.startswith("<!DOCTYPE html>") and "/*memgate:" not in html
            # self-contained: nothing loaded from anywhere, no request of its own
            assert not re.search(r"\b(src|href|action)\s*=", html)
            assert "http://" not in html and "https://" not in html
            assert "fetch(" not in html and "XMLHttpRequest" not in html and "WebSocket" not in html
            assert "connect-src 'none'" in html


@pytest.mark.anyio
async def test_the_server_advertises_the_ui_extension_it_serves(app):
    # the 2026-07-28 era; the SDK strips capabilities.extensions from a 2025-11-25 handshake, so a
    # host of that era finds the views by the tools' _meta.ui, as the spec's discovery allows
    async with Client(app) as c:
        assert await c.list_tools()
        assert c.server_capabilities.extensions[UI_EXTENSION_ID] == {"mimeTypes": [UI_MIME_TYPE]}


@pytest.mark.anyio
async def test_preset_tools_link_their_view_and_the_review_tool_is_app_only(app):
    async with Client(app, extensions=APPS_HOST) as c:
        tools = {t.name: t for t in await c.list_tools()}
    for name, uri in (("show_manifest", "ui://memgate/manifest"), ("show_memory", "ui://memgate/memory")):
        assert tools[name].meta["ui"] == {"resourceUri": uri, "visibility": ["model", "app"]}
        assert tools[name].meta["ui/resourceUri"] == uri
        assert tools[name].output_schema is not None
    assert tools["review_candidate"].meta["ui"] == {"resourceUri": "ui://memgate/memory", "visibility": ["app"]}
    assert tools["review_candidate"].annotations.read_only_hint is False
    # the default rows link to no view: what every host saw before is unchanged
    defaults = {d["tool_name"] for d in load_tool_definitions()}
    assert defaults <= set(tools)
    assert all("ui" not in (tools[n].meta or {}) for n in defaults)


@pytest.mark.anyio
async def test_show_manifest_carries_the_view_data_the_page_draws(app):
    async with Client(app) as c:
        await c.get_prompt("context_window", {"question": FACT_CHECK, "intent": "fact_check"})
        result = await c.call_tool("show_manifest", {})
    d = result.structured_content
    assert d["view"] == "manifest"
    assert sum(s["tokens"] for s in d["slices"]) == d["total"]
    assert d["slices"][0]["name"] == "guidelines" and d["slices"][-1]["name"] == "question"
    assert {e["id"]: e["rule"] for e in d["excluded"]}["ent_acme_helios_v1"] == "lifecycle"
    admitted = {m["id"]: m for m in d["admitted"]}
    assert (admitted["ent_acme_helios_v2"]["tier"], admitted["ent_acme_helios_v2"]["status"]) == ("full", "current")
    assert admitted["ent_acme_helios_v2"]["citation_id"] == "ent_acme_helios_v2"
    assert {"relation": "supersedes", "ids": ["ent_acme_helios_v2", "ent_acme_helios_v1"]} in d["history"]
    assert len(d["request_hash"]) == 64 and len(d["window_hash"]) == 64
    assert result.content[0].text == describe(d)


@pytest.mark.anyio
async def test_a_host_without_apps_gets_the_same_text_and_the_same_default_results(app, manager):
    """A host that declares no MCP Apps support sees exactly what a host with it sees, minus the drawing."""
    window = fact_check_window(manager)

    async def run(**client):
        async with Client(app, **client) as c:
            shown = await c.call_tool("show_manifest", {"manifest_id": window.manifest_id})
            looked = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
            return shown, looked

    plain_shown, plain_lookup = await run()
    apps_shown, apps_lookup = await run(extensions=APPS_HOST)
    assert plain_shown.content[0].text == apps_shown.content[0].text == describe(plain_shown.structured_content)
    assert plain_shown.structured_content == apps_shown.structured_content
    # in a window, a default tool's result is a tool round: its first line counts the round, the rest is equal
    assert plain_lookup.content[0].text.split("\n", 1)[1] == apps_lookup.content[0].text.split("\n", 1)[1]
    assert plain_lookup.structured_content is None and apps_lookup.structured_content is None


@pytest.mark.anyio
async def test_show_memory_offers_the_review_tool_only_to_a_caller_who_may_call_it(sqlite_path, manager, two_tenants):
    seed_apps(manager)
    pending_candidate(manager, ACME)
    for scopes, host, offered in (
        ([REVIEW_SCOPE], APPS_HOST, "review_candidate"),
        ([REVIEW_SCOPE], None, None),  # a host that renders no view has no buttons to offer
        ([], APPS_HOST, None),
    ):
        app, served = stdio_app(sqlite_path, **{"stdio.scopes": scopes})
        try:
            async with Client(app, extensions=host) as c:
                result = await c.call_tool("show_memory", {})
        finally:
            served.close()
        d = result.structured_content
        assert d["review_tool"] == offered
        assert [c["decision"] for c in d["candidates"]] == ["pending"]
        assert any(m["id"] == "ent_acme_helios_v1" and m["status"] == "superseded" for m in d["memories"])


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_review_tool_is_offered_only_to_a_host_that_renders_mcp_apps(sqlite_path, manager, two_tenants, mode):
    seed_apps(manager)
    cid = pending_candidate(manager, ACME)["candidate_id"]
    app, served = stdio_app(sqlite_path, **{"stdio.scopes": [REVIEW_SCOPE]})
    try:
        async with Client(app, mode=mode) as c:
            listed = {t.name for t in await c.list_tools()}
            called = await c.call_tool(
                "review_candidate", {"candidate_id": cid, "version": 1, "decision": "reject"}, raise_on_error=False
            )
        async with Client(app, mode=mode, extensions=APPS_HOST) as c:
            listed_in_a_view = {t.name for t in await c.list_tools()}
    finally:
        served.close()
    assert "show_memory" in listed and "review_candidate" not in listed
    assert called.is_error and called.content[0].text == "This tool is no longer available. List the tools again."
    assert "review_candidate" in listed_in_a_view
    [row] = [r for r in manager.recent_calls(ACME, tool="review_candidate")]
    assert row["status"] == "denied"  # the refused call is logged like any other


def test_a_windows_tool_surface_leaves_out_the_app_only_review_tool(manager, two_tenants):
    """The model never sees review_candidate on its tool list, so its context window does not list it either."""
    seed_apps(manager)
    rows = {r["tool_name"]: r["id"] for r in manager.active_tools(JANE_IN_REVIEW)}
    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    listed = {ref[1] for ref in refs(window.manifest, "tool_surface")}
    assert rows["show_manifest"] in listed and rows["show_memory"] in listed
    assert rows["review_candidate"] not in listed and "review_candidate" not in window.text


def test_the_managers_app_only_handlers_are_those_a_host_keeps_off_the_models_list():
    app_only = {name for name, spec in HANDLERS.items() if spec.ui is not None and "model" not in spec.ui.visibility}
    assert app_only == APP_ONLY_HANDLERS == {"review_candidate"}
