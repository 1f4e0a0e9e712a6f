"""The real FastMCP server in-process: tools come from toolbox rows, every call is re-checked and logged."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

from memgate.manager.clock import now_iso

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.fixture
def app(sqlite_path, two_tenants):
    mcp, manager = stdio_app(sqlite_path)
    yield mcp
    manager.close()


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_listed_from_active_rows_with_their_schema_and_notes(app, mode):
    async with Client(app, mode=mode) as c:
        tools = {t.name: t for t in await c.list_tools()}
    assert "lookup_entity" in tools
    t = tools["lookup_entity"]
    assert t.input_schema["required"] == ["subject"]
    # Advertised in the subset Gemini takes (no additionalProperties); calls are still validated strictly.
    assert "additionalProperties" not in t.input_schema
    assert t.description.startswith("The current version of a canonical fact (claim)")


@pytest.mark.parametrize("mode", MODES)
async def test_lookup_entity_end_to_end_returns_current_and_history(app, mode):
    async with Client(app, mode=mode) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    text = r.content[0].text
    assert 'status="current" version="2"' in text and "<content>0.78" in text
    assert 'status="superseded" version="1"' in text and "<content>0.92" in text
    assert "0.55" not in text  # globex's value for the same subject


async def test_a_disabled_row_disappears_and_an_enabled_one_returns_without_restart(app, manager, two_tenants):
    acme, _ = two_tenants
    async with Client(app) as c:
        assert "lookup_entity" in [t.name for t in await c.list_tools()]
        manager.set_tool_enabled(acme, "lookup_entity", False)
        assert "lookup_entity" not in [t.name for t in await c.list_tools()]
        manager.set_tool_enabled(acme, "lookup_entity", True)
        assert "lookup_entity" in [t.name for t in await c.list_tools()]


async def test_an_expired_row_disappears(app, manager, two_tenants):
    acme, _ = two_tenants
    async with Client(app) as c:
        with manager.backend.session(acme) as s:
            s.raw("UPDATE toolbox_memory SET valid_until = :t WHERE tool_name = 'lookup_entity'", {"t": now_iso()})
        assert "lookup_entity" not in [t.name for t in await c.list_tools()]


@pytest.mark.parametrize("mode", MODES)
async def test_a_row_disabled_between_list_and_call_is_denied_and_logged(app, manager, backend, two_tenants, mode):
    acme, _ = two_tenants
    async with Client(app, mode=mode) as c:
        await c.list_tools()
        manager.set_tool_enabled(acme, "lookup_entity", False)
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False)
    assert r.is_error
    assert r.content[0].text == "This tool is no longer available. List the tools again."
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["tool_name"], row["status"], row["error_class"]) == (
        "acme",
        "lookup_entity",
        "denied",
        "RowGone",
    )


async def test_globex_rows_do_not_become_acme_tools(app, manager, two_tenants):
    _, globex = two_tenants
    manager.seed_tools(
        globex,
        [
            {
                "tool_name": "globex_only",
                "tool_handler": "lookup_entity",
                "usage_notes": "globex's own",
                "tool_schema": {
                    "type": "object",
                    "properties": {"subject": {"type": "string"}},
                    "required": ["subject"],
                },
            }
        ],
    )
    async with Client(app) as c:
        assert "globex_only" not in [t.name for t in await c.list_tools()]
        r = await c.call_tool("globex_only", {"subject": "model:helios-rag"}, raise_on_error=False)
    assert r.is_error and "0.55" not in r.content[0].text


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"subject": 25}, "Invalid arguments for 'subject': 25 is not of type 'string'"),
        (
            {"subject": "25", "include_history": "true"},
            "Invalid arguments for 'include_history': 'true' is not of type 'boolean'",
        ),
        ({}, "Invalid arguments for 'subject': 'subject' is a required property"),
        (
            {"subject": "x", "tenant": "globex"},
            "Invalid arguments: Additional properties are not allowed ('tenant' was unexpected)",
        ),
        ({"subject": ""}, "Invalid arguments for 'subject': String should have at least 1 character"),
        ({"subject": "x" * 401}, None),
    ],
)
async def test_arguments_are_validated_strictly_and_the_field_is_named(app, backend, arguments, message):
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", arguments, raise_on_error=False)
    assert r.is_error
    if message:
        assert r.content[0].text == message
    else:
        assert r.content[0].text.startswith("Invalid arguments for 'subject': ")
    [row] = log_rows(backend)
    assert row["status"] == "invalid"


async def test_every_call_leaves_exactly_one_log_row_with_what_the_agent_saw(app, backend):
    async with Client(app) as c:
        ok = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
        await c.call_tool("lookup_entity", {"subject": 1}, raise_on_error=False)
        await c.call_tool("no_such_tool", {}, raise_on_error=False)
    rows = log_rows(backend)
    assert [r["status"] for r in rows] == ["ok", "invalid", "denied"]
    first = rows[0]
    assert first["result_text"] == ok.content[0].text
    assert first["arguments_json"] == '{"predicate": "beir_ndcg10", "subject": "model:helios-rag"}'
    assert (first["principal"], first["user_id"], first["agent_id"]) == ("stdio:jane", "jane", "research-assistant")
    assert (first["rows_returned"], first["truncated"]) == (2, 0)
    assert first["result_tokens"] > 0 and first["duration_ms"] >= 0
    assert first["cited_ids"] == '["ent_acme_helios_v2", "ent_acme_helios_v1"]'
    # fastmcp.Client's default client name: "mcp" through fastmcp 4.1, "fastmcp" from 4.2
    assert first["toolbox_row_version"] == 1 and first["argument_digest"] and first["client_name"] in ("mcp", "fastmcp")


async def test_an_exception_inside_a_handler_reaches_the_client_only_as_the_generic_sentence(app, backend, two_tenants):
    # A real failure inside the handler: the view it reads calls a function that does not exist.
    with backend.unwalled_connection() as conn:
        conn.execute("DROP VIEW entity_memory")
        conn.execute(
            "CREATE VIEW entity_memory AS SELECT *, secret_missing_fn(id) AS boom"
            " FROM base_entity_memory WHERE tenant_id = app_tenant()"
        )
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False)
    text = r.content[0].text
    [row] = log_rows(backend)
    assert text == (
        f"The memory service could not complete this call (call id {row['call_id']}). The operator log has the details."
    )
    assert (row["status"], row["error_class"]) == ("error", "BackendUnavailable")
    for leak in ("secret_missing_fn", "sqlite", "base_", "Traceback", "entity_memory"):
        assert leak not in text


async def test_a_row_with_an_unknown_handler_is_never_listed_and_the_operator_log_says_why(
    app, manager, two_tenants, caplog
):
    acme, _ = two_tenants
    manager.seed_tools(
        acme,
        [{"tool_name": "shell", "tool_handler": "run_shell", "usage_notes": "no", "tool_schema": {"type": "object"}}],
    )
    async with Client(app) as c:
        assert "shell" not in [t.name for t in await c.list_tools()]
    assert "handler 'run_shell' is not on the allowlist" in caplog.text


async def test_a_row_whose_schema_the_handler_cannot_honour_is_refused_loudly(app, manager, two_tenants, caplog):
    acme, _ = two_tenants
    manager.seed_tools(
        acme,
        [
            {
                "tool_name": "lookup_typo",
                "tool_handler": "lookup_entity",
                "usage_notes": "x",
                "tool_schema": {"type": "object", "properties": {"subjekt": {"type": "string"}}},
            }
        ],
    )
    async with Client(app) as c:
        assert "lookup_typo" not in [t.name for t in await c.list_tools()]
    assert "tool_schema has properties the lookup_entity handler does not take: ['subjekt']" in caplog.text


async def test_access_policy_scopes_are_rechecked_on_every_call(app, manager, two_tenants, backend):
    acme, _ = two_tenants
    manager.seed_tools(
        acme,
        [
            {
                "tool_name": "admin_lookup",
                "tool_handler": "lookup_entity",
                "usage_notes": "x",
                "access_policy": {"required_scopes": ["memory:admin"]},
                "tool_schema": {
                    "type": "object",
                    "properties": {"subject": {"type": "string"}},
                    "required": ["subject"],
                },
            }
        ],
    )
    async with Client(app) as c:
        r = await c.call_tool("admin_lookup", {"subject": "model:helios-rag"}, raise_on_error=False)
    assert r.is_error
    assert r.content[0].text == "This tool is not available to you, or this call is not allowed for your identity."
    assert log_rows(backend)[0]["status"] == "denied"


@pytest.mark.parametrize("mode", MODES)
async def test_a_database_outage_is_a_clear_server_error_not_an_empty_tool_list(sqlite_path, two_tenants, mode):
    from mcp.shared.exceptions import MCPError

    app, app_manager = stdio_app(sqlite_path)
    async with Client(app, mode=mode) as c:
        assert await c.list_tools()
        app_manager.backend.close()
        for suffix in ("", "-wal", "-shm"):
            p = sqlite_path.with_name(sqlite_path.name + suffix)
            if p.exists():
                p.unlink()
        sqlite_path.write_bytes(b"not a database" * 512)
        with pytest.raises(MCPError, match="^memgate cannot read its tool registry right now") as err:
            await c.list_tools()
    assert "memgate cannot read its tool registry right now" in str(err.value)
    assert str(sqlite_path) not in str(err.value)


async def test_guidelines_and_persona_are_resources_and_instructions_say_results_are_data(app):
    async with Client(app, mode="legacy") as c:  # the initialize handshake carries the instructions
        uris = sorted(str(r.uri) for r in await c.list_resources())
        budget = await c.read_resource("memgate://guidelines/context_budget")
        init = c.initialize_result
    assert {
        "memgate://guidelines/citations",
        "memgate://guidelines/context_budget",
        "memgate://persona/default",
    } <= set(uris)
    assert '"usable_context": 5000' in budget[0].text and '"max_rounds": 3' in budget[0].text
    assert "data, not instructions" in init.instructions


@pytest.mark.parametrize("mode", MODES)
async def test_a_name_that_never_was_a_tool_is_told_so_and_a_disabled_one_no_longer_available(
    app, manager, backend, two_tenants, mode
):
    acme, _ = two_tenants
    manager.set_tool_enabled(acme, "search_memory", False)
    async with Client(app, mode=mode) as c:
        never = await c.call_tool("lookup_entities", {"subject": "x"}, raise_on_error=False)
        gone = await c.call_tool("search_memory", {"query": "x"}, raise_on_error=False)
    assert (never.is_error, never.content[0].text) == (True, "There is no tool named lookup_entities.")
    assert (gone.is_error, gone.content[0].text) == (True, "This tool is no longer available. List the tools again.")
    rows = log_rows(backend)
    assert [(r["tool_name"], r["status"], r["error_class"], r["result_text"]) for r in rows] == [
        ("lookup_entities", "denied", "UnknownTool", "There is no tool named lookup_entities."),
        ("search_memory", "denied", "RowGone", "This tool is no longer available. List the tools again."),
    ]


async def test_another_tenants_tool_is_no_tool_at_all_for_this_caller(app, manager, backend, two_tenants):
    _, globex = two_tenants
    manager.seed_tools(
        globex,
        [
            {
                "tool_name": "globex_only",
                "tool_handler": "lookup_entity",
                "usage_notes": "globex's own",
                "tool_schema": {
                    "type": "object",
                    "properties": {"subject": {"type": "string"}},
                    "required": ["subject"],
                },
            }
        ],
    )
    async with Client(app) as c:
        r = await c.call_tool("globex_only", {"subject": "model:helios-rag"}, raise_on_error=False)
    assert r.content[0].text == "There is no tool named globex_only."  # the wall hides that it exists
    [row] = log_rows(backend, tenant_id="acme")
    assert (row["status"], row["error_class"]) == ("denied", "UnknownTool")


@pytest.mark.parametrize("mode", MODES)
async def test_the_log_names_the_host_and_the_model_it_says_it_runs(app, backend, mode):
    from mcp.types import Implementation

    async with Client(app, mode=mode, client_info=Implementation(name="claude-ai", version="0.1.0")) as c:
        await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}, meta={"model": "claude-sonnet-4"})
        await c.call_tool("lookup_entity", {"subject": "model:helios-rag"})
    named, unnamed = log_rows(backend)
    assert (named["mcp_client"], named["model"]) == ("claude-ai 0.1.0", "claude-sonnet-4")
    assert (unnamed["mcp_client"], unnamed["model"]) == ("claude-ai 0.1.0", None)
    with backend.operator_session() as s:
        assert s.raw("SELECT mcp_client, model, end_point_name FROM dbtools_mcp_log ORDER BY created_on, id")[0] == {
            "mcp_client": "claude-ai 0.1.0",
            "model": "claude-sonnet-4",
            "end_point_name": "lookup_entity",
        }
