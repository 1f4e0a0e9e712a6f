"""The CLI through click's runner on a real database file: exit codes and whole outputs."""

from __future__ import annotations

import json

import click
import pytest
from cli_helpers import cli_runner
from click.testing import CliRunner
from doc_helpers import doc_text

from memgate.manager import Identity
from memgate.manager.backend.sqlite.schema import known_version
from memgate.server.cli import cli


@pytest.fixture
def run(sqlite_path, monkeypatch):
    invoke = cli_runner(sqlite_path, monkeypatch)
    return lambda *args, ok=True: invoke(*args, ok=ok).output


def test_init_demo_creates_schema_tools_and_demo_and_is_idempotent(run, sqlite_path):
    from memgate.manager.registry.defaults import load_tool_definitions

    tools = ", ".join(t["tool_name"] for t in load_tool_definitions())
    first = run("init", "--demo")
    head, window = first.rsplit("demo context window: ", 1)
    assert head == (
        f"schema: version {known_version()} at {sqlite_path} (created)\n"
        f"tools for acme: {tools} added\n"
        f"tools for globex: {tools} added\n"
        "demo data: acme, globex seeded\n"
    )
    assert window.startswith("ctx_") and window.endswith(" (memgate manifest show latest -t acme)\n")
    assert run("init", "--demo") == (
        f"schema: version {known_version()} at {sqlite_path} (up to date)\n"
        "tools for acme: already present\n"
        "tools for globex: already present\n"
        "demo data: already present\n"
    )


def test_fact_get_shows_current_and_history_for_the_tenant_only(run):
    run("init", "--demo")
    acme = run("fact", "get", "model:helios-rag", "beir_ndcg10", "-t", "acme")
    assert 'status="current" version="2"' in acme and "<content>0.78" in acme and "<content>0.92" in acme
    globex = run("fact", "get", "model:helios-rag", "beir_ndcg10", "-t", "globex")
    assert "<content>0.55" in globex and "0.78" not in globex and "0.92" not in globex


def test_fact_set_corrects_and_a_stale_expected_version_fails_with_the_fix(run):
    run("init", "--demo")
    out = run("fact", "set", "model:helios-rag", "beir_ndcg10", "0.81", "-t", "acme", "--expect-version", "2")
    assert out.startswith("model:helios-rag beir_ndcg10 = 0.81 recorded as version 3, replacing version 2 (ent_")
    err = run("fact", "set", "model:helios-rag", "beir_ndcg10", "0.70", "-t", "acme", "--expect-version", "2", ok=False)
    assert err == (
        "Error: model:helios-rag beir_ndcg10 is at version 3, not 2; nothing was written. "
        "Look the claim up again and correct the current version.\n"
    )


def test_fact_set_rejects_conditions_that_are_not_json(run):
    run("init", "-t", "acme")
    out = run("fact", "set", "s", "p", "v", "-t", "acme", "--conditions", "{nope", ok=False)
    assert "Invalid value for --conditions: not valid JSON" in out


def test_tools_disable_and_enable_bump_the_version(run):
    run("init", "--demo")
    assert run("tools", "disable", "lookup_entity", "-t", "acme") == "lookup_entity disabled for acme (version 1)\n"
    listing = run("tools", "list", "-t", "acme")
    assert "lookup_entity        lookup_entity         1  disabled  tenant" in listing
    assert run("tools", "enable", "lookup_entity", "-t", "acme") == "lookup_entity enabled for acme (version 2)\n"
    assert "lookup_entity        lookup_entity         2  enabled   tenant" in run("tools", "list", "-t", "acme")
    # globex is untouched
    assert "lookup_entity        lookup_entity         1  enabled   tenant" in run("tools", "list", "-t", "globex")


def test_tools_enable_of_an_unknown_tool_says_how_to_list(run):
    run("init", "--demo")
    assert run("tools", "enable", "nope", "-t", "acme", ok=False) == (
        "Error: no toolbox row named 'nope' for tenant acme. `memgate tools list -t acme` shows the tenant's tools.\n"
    )


def test_log_is_empty_at_first_and_json_is_one_object_per_line(run, manager, two_tenants):
    from memgate.manager import CallRecord

    assert "(no calls recorded)" in run("log")
    acme, globex = two_tenants
    manager.log_call(
        acme,
        CallRecord(
            call_id="c1",
            called_at="2026-12-01T00:00:00.000Z",
            tool_name="lookup_entity",
            status="ok",
            arguments={"subject": "x"},
        ),
    )
    manager.log_call(
        globex,
        CallRecord(call_id="c2", called_at="2026-12-01T00:00:01.000Z", tool_name="lookup_entity", status="denied"),
    )
    lines = run("log", "--json").splitlines()
    assert [json.loads(l)["call_id"] for l in lines] == ["c2", "c1"]
    only_acme = [json.loads(l) for l in run("log", "--json", "-t", "acme").splitlines()]
    assert [(r["tenant_id"], r["arguments_json"]) for r in only_acme] == [("acme", '{"subject": "x"}')]
    assert [json.loads(l)["call_id"] for l in run("log", "--json", "--status", "denied").splitlines()] == ["c2"]


def test_doctor_reports_each_check_and_fails_on_a_missing_database(run, sqlite_path):
    out = run("doctor", ok=False)
    assert f"[FAIL] database: {sqlite_path} does not exist." in out
    run("init", "--demo")
    out = run("doctor", "--help")
    assert "say what is wrong in one" in out


def test_doctor_passes_on_an_initialised_database_with_a_stdio_tenant(run, monkeypatch):
    run("init", "--demo")
    monkeypatch.setenv("MEMGATE_STDIO__TENANT", "acme")
    out = run("doctor")
    assert "[ok] tenants: acme, globex" in out
    assert "[ok] tools of acme: " in out and " served" in out
    assert out.endswith("All checks passed.\n")


def test_every_command_has_help_with_an_example_and_a_readme_mention():

    readme = doc_text("operations")

    def walk(group, prefix):
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            yield f"{prefix} {name}", cmd
            if hasattr(cmd, "commands"):
                yield from walk(cmd, f"{prefix} {name}")

    for path, cmd in walk(cli, "memgate"):
        out = CliRunner().invoke(cli, [*path.split()[1:], "--help"]).output
        assert cmd.help, path
        top = " ".join(path.split()[:2])
        assert top in readme, f"{top} is not in docs/operations.md"
        if not hasattr(cmd, "commands"):
            assert "Example" in out, f"{path} --help has no example"


def test_fact_set_with_a_user_writes_that_users_row_and_only_that_user_sees_it(run):
    run("init", "--demo")
    out = run("fact", "set", "model:helios-rag", "beir_ndcg10", "0.80", "-t", "acme", "--user", "jane")
    assert out.startswith("model:helios-rag beir_ndcg10 = 0.80 recorded as version 1 (ent_")
    jane = run("fact", "get", "model:helios-rag", "beir_ndcg10", "-t", "acme", "--user", "jane")
    assert jane.index('status="current" version="1"') < jane.index(
        "<content>0.80"
    )  # jane's own claim is in force for her
    for other in (("--user", "bob"), ()):
        seen = run("fact", "get", "model:helios-rag", "beir_ndcg10", "-t", "acme", *other)
        assert "0.80" not in seen and 'status="current" version="2"' in seen, other
    agent = run("fact", "set", "model:helios-rag", "owner", "li", "-t", "acme", "--agent", "planner")
    assert "recorded as version 1" in agent
    assert "<content>li</content>" in run(
        "fact", "get", "model:helios-rag", "owner", "-t", "acme", "--agent", "planner"
    )
    assert "<content>li</content>" not in run(
        "fact", "get", "model:helios-rag", "owner", "-t", "acme", "--agent", "other"
    )


def test_tools_list_shows_rows_of_every_scope(run, backend):
    import json

    run("init", "-t", "acme")
    with backend.session(Identity(tenant="acme", user="jane")) as s:
        row = s.raw("SELECT * FROM toolbox_memory WHERE tool_name = 'lookup_entity'")[0]
        s.insert(
            "toolbox_memory",
            {**row, "id": "tool_jane", "user_id": "jane", "tool_schema": json.dumps(json.loads(row["tool_schema"]))},
        )
    listed = [line.split() for line in run("tools", "list", "-t", "acme").splitlines()[1:]]
    assert ["lookup_entity", "lookup_entity", "1", "enabled", "tenant"] in listed
    assert ["lookup_entity", "lookup_entity", "1", "enabled", "user=jane"] in listed
