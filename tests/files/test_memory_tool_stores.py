"""Memory stores: scopes resolved from the verified identity, tenant isolation, read-only rows."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from memory_helpers import ACME_AGENT, DIR_HEADER, GLOBEX_AGENT, READ_ONLY_ROW, call, run_calls, seed, snapshot

from memgate.manager import OperatorManager
from memgate.manager.errors import AccessDenied, ConfigError, InvalidArgument, NotFound
from memgate.manager.files.stores import StoreRef, resolve_store, store_from_key, validate_store_policy
from memgate.manager.identity import Identity

SERVER_ERROR = re.compile(
    r"The memory service could not complete this call \(call id [0-9a-f-]+\)\. "
    r"The operator log has the details\."
)


def row(name: str, store: dict) -> dict:
    return {
        **READ_ONLY_ROW,
        "tool_name": name,
        "usage_notes": f"memory in {store}",
        "access_policy": {"memory_store": store},
    }


def store_keys(manager, identity: Identity) -> list[str]:
    return [r["store_key"] for r in OperatorManager(manager.backend).memory_stores(identity.tenant)]


def test_tenants_with_the_same_agent_name_never_see_each_others_files(manager, backend):
    for identity, secret in ((ACME_AGENT, "acme plans"), (GLOBEX_AGENT, "globex plans")):
        seed(manager, identity)
        assert call(manager, identity, command="create", path="/memories/secret.md", file_text=secret)[0] is False

    async def globex_pokes(s):
        return [
            await s.call(command="view", path="/memories/secret.md"),
            await s.call(command="str_replace", path="/memories/secret.md", old_str="acme", new_str="pwned"),
            await s.call(command="delete", path="/memories/nope.md"),
            await s.call(command="view", path="/memories"),
        ]

    got = run_calls(manager, GLOBEX_AGENT, globex_pokes)
    assert got[0][1].endswith("\tglobex plans")
    assert got[1] == (
        True,
        "No replacement was performed, old_str `acme` did not appear verbatim in /memories/secret.md.",
    )
    assert got[3] == (False, DIR_HEADER.format(path="/memories") + "\n4K\t/memories\n12B\t/memories/secret.md")
    assert call(manager, ACME_AGENT, command="view", path="/memories/secret.md")[1].endswith("\tacme plans")
    stores = operator_rows(backend, "memory_store", "ORDER BY tenant_id")
    assert [(r["tenant_id"], r["store_key"]) for r in stores] == [("acme", "agent:helper"), ("globex", "agent:helper")]
    assert store_keys(manager, ACME_AGENT) == ["agent:helper"]


def test_the_default_agent_store_is_keyed_on_the_agent_or_agent_default(manager):
    no_agent = Identity(tenant="acme", user="jane")
    seed(manager, no_agent)
    call(manager, no_agent, command="create", path="/memories/a.md", file_text="x")
    call(manager, ACME_AGENT, command="create", path="/memories/b.md", file_text="y")
    assert store_keys(manager, no_agent) == ["agent:default", "agent:helper"]


def test_user_scope_is_shared_by_one_users_agents_and_not_by_other_users(manager):
    seed(manager, ACME_AGENT, row("user_memory", {"scope": "user"}))
    other_agent = replace(ACME_AGENT, agent="planner")
    other_user = replace(ACME_AGENT, user="li")
    call(manager, ACME_AGENT, "user_memory", command="create", path="/memories/prefs.md", file_text="tea")
    assert call(manager, other_agent, "user_memory", command="view", path="/memories/prefs.md")[1].endswith("\ttea")
    assert call(manager, other_user, "user_memory", command="view", path="/memories/prefs.md")[0] is True
    assert store_keys(manager, ACME_AGENT) == ["user:jane"]


def test_shared_and_global_stores_span_agents_and_stay_apart_from_each_other(manager):
    seed(
        manager,
        ACME_AGENT,
        row("team", {"scope": "shared", "name": "team-notes"}),
        row("everyone", {"scope": "global"}),
    )
    planner = replace(ACME_AGENT, agent="planner", user="li")
    call(manager, ACME_AGENT, "team", command="create", path="/memories/t.md", file_text="team")
    call(manager, ACME_AGENT, "everyone", command="create", path="/memories/g.md", file_text="all")
    assert call(manager, planner, "team", command="view", path="/memories/t.md")[1].endswith("\tteam")
    assert call(manager, planner, "everyone", command="view", path="/memories/t.md")[0] is True
    assert store_keys(manager, ACME_AGENT) == ["global", "shared:team-notes"]


def test_session_scope_is_keyed_on_the_thread_its_user_and_agent_across_calls_and_clients(manager):
    seed(manager, ACME_AGENT, row("scratch", {"scope": "session"}))
    t1 = replace(ACME_AGENT, thread="thread-1")
    call(manager, t1, "scratch", command="create", path="/memories/s.md", file_text="wip")
    assert call(manager, t1, "scratch", command="view", path="/memories/s.md")[1].endswith("\twip")
    assert (
        call(manager, replace(ACME_AGENT, thread="thread-2"), "scratch", command="view", path="/memories/s.md")[0]
        is True
    )
    assert store_keys(manager, ACME_AGENT) == ["session:thread-1/jane/helper"]
    # another user on the same thread name: another store, and jane's notes are not there
    bob = replace(ACME_AGENT, user="bob", thread="thread-1")
    assert call(manager, bob, "scratch", command="view", path="/memories/s.md")[0] is True
    call(manager, bob, "scratch", command="create", path="/memories/s.md", file_text="bob's")
    assert call(manager, t1, "scratch", command="view", path="/memories/s.md")[1].endswith("\twip")


def test_context_scope_is_keyed_on_the_trusted_context_value(manager):
    seed(manager, ACME_AGENT, row("project", {"scope": "context", "name": "proj", "context_key": "project"}))
    helios = replace(ACME_AGENT, context=(("project", "helios"),))
    apollo = replace(ACME_AGENT, context=(("project", "apollo-2.0"),))
    call(manager, helios, "project", command="create", path="/memories/p.md", file_text="helios")
    call(manager, apollo, "project", command="create", path="/memories/p.md", file_text="apollo")
    assert call(manager, helios, "project", command="view", path="/memories/p.md")[1].endswith("\thelios")
    assert store_keys(manager, ACME_AGENT) == ["context:proj:project:apollo-2.0", "context:proj:project:helios"]


@pytest.mark.parametrize(
    "identity, tool",
    [
        (ACME_AGENT, "project"),  # no context value at all
        (replace(ACME_AGENT, context=(("project", "../globex"),)), "project"),
        (replace(ACME_AGENT, context=(("project", "a b"),)), "project"),
        (replace(ACME_AGENT, context=(("project", "p:x"),)), "project"),
        (replace(ACME_AGENT, context=(("project", "x" * 201),)), "project"),
        (replace(ACME_AGENT, context=(("project", "h\u00e9lios"),)), "project"),
        (replace(ACME_AGENT, user=None), "user_memory"),
    ],
)
def test_a_store_that_cannot_be_resolved_fails_as_a_server_error_before_any_read(manager, backend, identity, tool):
    seed(
        manager,
        ACME_AGENT,
        row("project", {"scope": "context", "name": "proj", "context_key": "project"}),
        row("user_memory", {"scope": "user"}),
    )
    before = snapshot(backend)
    for arguments in (
        {"command": "view", "path": "/memories"},
        {"command": "create", "path": "/memories/a.md", "file_text": "x"},
    ):
        is_error, text = call(manager, identity, tool, **arguments)
        assert is_error and SERVER_ERROR.fullmatch(text), text
    assert snapshot(backend) == before
    logged = manager.recent_calls(ACME_AGENT, tool=tool)
    assert [(r["status"], r["error_class"]) for r in logged] == [("error", "ConfigError")] * 2


def test_session_scope_without_a_thread_or_session_cannot_be_resolved():
    with pytest.raises(ConfigError, match="session scope needs a thread"):
        resolve_store(Identity(tenant="acme"), {"memory_store": {"scope": "session"}})
    assert resolve_store(Identity(tenant="acme", session="s-1"), {"memory_store": {"scope": "session"}}) == StoreRef(
        "session:s-1/-/-", "session"
    )  # no thread: the window session key picks it, with the user and agent (none here)
    jane = Identity(tenant="acme", user="jane", agent="helper", thread="t-1")
    assert resolve_store(jane, {"memory_store": {"scope": "session"}}) == StoreRef(
        "session:t-1/jane/helper", "session", user_id="jane", agent_id="helper", thread_id="t-1"
    )


def test_a_read_only_row_advertises_only_view_and_refuses_writes(manager, backend):
    seed(manager, ACME_AGENT, READ_ONLY_ROW)
    call(manager, ACME_AGENT, command="create", path="/memories/a.md", file_text="note")
    before = snapshot(backend)

    async def calls(s):
        tools = {t.name: t.input_schema for t in await s.client.list_tools()}
        return tools, [
            await s.call(command="view", path="/memories/a.md"),
            await s.call(command="create", path="/memories/b.md", file_text="x"),
            await s.call(command="delete", path="/memories/a.md"),
        ]

    tools, got = run_calls(manager, ACME_AGENT, calls, tool="memory_readonly")
    schema = tools["memory_readonly"]
    assert schema["properties"]["command"]["enum"] == ["view"]
    assert sorted(schema["properties"]) == ["command", "path", "view_range"]
    assert len(tools["memory"]["properties"]["command"]["enum"]) == 6
    assert got[0][1].endswith("\tnote")
    assert got[1] == (True, "Invalid arguments: Additional properties are not allowed ('file_text' was unexpected)")
    assert got[2] == (True, "Invalid arguments for 'command': 'delete' is not one of ['view']")
    assert snapshot(backend) == before


def test_the_manager_itself_refuses_a_command_the_policy_does_not_allow(manager):
    with pytest.raises(AccessDenied, match="^memory command 'create' is not allowed by this toolbox row$"):
        manager.memory(
            ACME_AGENT, "create", path="/memories/a.md", file_text="x", policy={"allowed_commands": ["view"]}
        )


def test_rows_with_a_malformed_memory_policy_are_not_served(manager):
    seed(
        manager,
        ACME_AGENT,
        row("bad_scope", {"scope": "planet"}),
        row("no_name", {"scope": "shared"}),
        {**READ_ONLY_ROW, "tool_name": "bad_commands", "access_policy": {"allowed_commands": ["format"]}},
    )

    async def calls(s):
        return {t.name for t in await s.client.list_tools()}

    served = run_calls(manager, ACME_AGENT, calls)
    assert "memory" in served and not served & {"bad_scope", "no_name", "bad_commands"}


@pytest.mark.parametrize(
    "spec",
    [
        "agent",
        {"scope": "planet"},
        {"scope": "shared"},
        {"scope": "shared", "name": "a b"},
        {"scope": "context", "name": "p"},
        {"scope": "agent", "name": "x"},
        {"scope": "agent", "context_key": "k"},
        {"scope": "global", "extra": 1},
    ],
)
def test_memory_store_policies_are_validated(spec):
    with pytest.raises(InvalidArgument, match=r"^access_policy\.memory_store"):
        validate_store_policy(spec)


@pytest.mark.parametrize(
    "key, ref",
    [
        ("agent:research-assistant", StoreRef("agent:research-assistant", "agent", agent_id="research-assistant")),
        ("user:jane", StoreRef("user:jane", "user", user_id="jane")),
        ("session:t-1", StoreRef("session:t-1", "session", thread_id="t-1")),  # a key from before user and agent
        (
            "session:t-1/jane/-",
            StoreRef("session:t-1/jane/-", "session", user_id="jane", thread_id="t-1"),
        ),
        ("shared:team-notes", StoreRef("shared:team-notes", "shared")),
        ("global", StoreRef("global", "global")),
        (
            "context:proj:https://example.com/project:helios",
            StoreRef("context:proj:https://example.com/project:helios", "context"),
        ),
    ],
)
def test_store_keys_parse_for_the_cli(key, ref):
    assert store_from_key(key) == ref


@pytest.mark.parametrize(
    "key",
    ["", "agent", "agent:", "planet:x", "global:x", "shared:a b", "context:p:k", "context:p:k:v w", "session:t/jane"],
)
def test_malformed_store_keys_are_refused(key):
    with pytest.raises(InvalidArgument, match=f"^{re.escape(repr(key))} is not a memory store key\\.$"):
        store_from_key(key)


def test_a_session_store_without_a_thread_lasts_the_legacy_mcp_session(manager, backend):
    seed(manager, ACME_AGENT, row("scratch", {"scope": "session"}))

    async def create_then_view(s):
        return [
            await s.call(command="create", path="/memories/s.md", file_text="wip"),
            await s.call(command="view", path="/memories/s.md"),
        ]

    created, viewed = run_calls(manager, ACME_AGENT, create_then_view, mode="legacy", tool="scratch")
    assert created == (False, "File created successfully at: /memories/s.md") and viewed[1].endswith("\twip")
    [store] = operator_rows(backend, "memory_store")
    # keyed on the MCP session id, and stamped with no thread: the wall binds threads, not session ids
    assert store["store_key"].startswith("session:") and store["thread_id"] is None
    assert (
        run_calls(
            manager, ACME_AGENT, lambda s: s.call(command="view", path="/memories/s.md"), mode="legacy", tool="scratch"
        )[0]
        is True
    )  # another MCP session: another store


@pytest.mark.parametrize(
    "key, intruder",
    [
        ("user:jane", replace(ACME_AGENT, user="li")),
        ("agent:helper", replace(ACME_AGENT, agent="planner")),
        ("session:thread-1", replace(ACME_AGENT, thread="thread-2")),
        ("session:thread-1/jane/helper", replace(ACME_AGENT, user="bob", thread="thread-1")),
    ],
)
def test_the_wall_keeps_a_store_from_a_caller_outside_its_scope_even_when_the_key_is_named(
    manager, backend, key, intruder
):
    from memgate.manager.files.commands import open_store
    from memgate.manager.limits import MemoryFileSettings

    owner = replace(ACME_AGENT, thread="thread-1")
    with open_store(backend, owner, store_from_key(key), MemoryFileSettings()) as files:
        files.put("/memories/secret.md", "owner's notes")
    before = snapshot(backend)
    # store resolution never hands the intruder this key; here it is named outright, and the wall alone holds
    with open_store(backend, intruder, store_from_key(key), MemoryFileSettings()) as files:
        assert files.list_files() == []
        with pytest.raises(NotFound, match="no file /memories/secret.md"):
            files.read("/memories/secret.md")
        assert files.clear() == 0
        with pytest.raises(AccessDenied, match="scoped to another user, agent or thread"):
            files.put("/memories/secret.md", "overwritten")
    assert snapshot(backend) == before
