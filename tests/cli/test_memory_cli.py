"""`memgate memory ls|cat|put|rm|expire|clear`: per store, for one tenant, on the operator's authority."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from memory_helpers import ACME_AGENT, CONTRACT, GLOBEX_AGENT, call, seed

from memgate.manager.registry.defaults import load_tool_definitions
from memgate.server.cli import cli

STORE = "agent:helper"


@pytest.fixture
def memgate(sqlite_path, monkeypatch):
    monkeypatch.delenv("MEMGATE_CONFIG", raising=False)
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        # the tenants every command here names are set up, as the CLI requires (after the test's own seeding)
        assert runner.invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme", "-t", "globex"]).exit_code == 0
        return runner.invoke(cli, ["--db", str(sqlite_path), "memory", *args], input=input)

    return run


def test_put_ls_cat_rm_round_trip_and_the_agent_sees_the_files(memgate, manager):
    seed(manager, ACME_AGENT)
    put = memgate("put", "/memories/team/rules.md", "-t", "acme", "-s", STORE, input="no Friday deploys\n")
    assert put.exit_code == 0, put.output
    assert put.output == "/memories/team/rules.md created in agent:helper (18 chars)\n"
    assert memgate("put", "/memories/team/rules.md", "-t", "acme", "-s", STORE, input="v2\n").output == (
        "/memories/team/rules.md updated in agent:helper (3 chars)\n"
    )
    assert call(manager, ACME_AGENT, command="view", path="/memories/team/rules.md")[1].endswith("\tv2\n     2\t")

    cat = memgate("cat", "/memories/team/rules.md", "-t", "acme", "-s", STORE)
    assert (cat.exit_code, cat.output) == (0, "v2\n")
    listing = memgate("ls", "-t", "acme", "-s", STORE).output.splitlines()
    size, _updated, version, path = listing[0].split()
    assert (size, version, path) == ("3", "v2", "/memories/team/rules.md")
    assert listing[1] == "1 file(s), 3 chars in agent:helper"
    stores = memgate("ls", "-t", "acme").output.splitlines()
    assert (
        stores[0].startswith("agent:helper\t1 files\t3 chars\tlast write 20")
        and stores[1] == "1 store(s) for tenant acme"
    )

    rm = memgate("rm", "/memories/team", "-t", "acme", "-s", STORE)
    assert rm.output == "Successfully deleted /memories/team (1 file(s)) from agent:helper\n"
    assert memgate("ls", "-t", "acme", "-s", STORE).output == "0 file(s), 0 chars in agent:helper\n"


def test_the_cli_works_per_tenant_and_never_crosses_over(memgate, manager):
    seed(manager, GLOBEX_AGENT)
    call(manager, GLOBEX_AGENT, command="create", path="/memories/secret.md", file_text="globex")
    got = memgate("cat", "/memories/secret.md", "-t", "acme", "-s", STORE)
    assert got.exit_code == 1
    assert got.output == (
        "Error: no file /memories/secret.md in store agent:helper. "
        "`memgate memory ls -t acme --store agent:helper` lists its files.\n"
    )
    assert memgate("cat", "/memories/secret.md", "-t", "globex", "-s", STORE).output == "globex"


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("cat", "/memories/../etc/passwd", "-t", "acme", "-s", STORE),
            "Error: Path /memories/../etc/passwd would escape /memories directory\n",
        ),
        (("rm", "/memories", "-t", "acme", "-s", STORE), "Error: Cannot delete the /memories directory itself\n"),
        (("rm", "/memories/none", "-t", "acme", "-s", STORE), "Error: The path /memories/none does not exist\n"),
        (
            ("ls", "-t", "acme", "-s", "planet:x"),
            "Error: 'planet:x' is not a memory store key. Use agent:NAME, user:NAME, session:THREAD/USER/AGENT, shared:NAME, "
            "global, or context:NAME:KEY:VALUE.\n",
        ),
    ],
)
def test_cli_errors_are_one_line_with_the_fix(memgate, args, message):
    got = memgate(*args)
    assert (got.exit_code, got.output) == (1, message)


def test_put_respects_the_caps(memgate, monkeypatch):
    monkeypatch.setenv("MEMGATE_MEMORY_FILES__MAX_FILE_CHARS", "10")
    got = memgate("put", "/memories/big.md", "-t", "acme", "-s", "global", input="x" * 11)
    assert got.exit_code == 1 and "it would hold 11 characters, over the limit of 10" in got.output
    assert memgate("ls", "-t", "acme").output == "0 store(s) for tenant acme\n"


def test_expire_deletes_only_files_not_written_for_n_days(memgate, manager, backend):
    seed(manager, ACME_AGENT)
    for path in ("/memories/old.md", "/memories/new.md"):
        call(manager, ACME_AGENT, command="create", path=path, file_text="x")
    with backend.session(ACME_AGENT) as s:
        s.raw("UPDATE memory_file SET updated_at = '2020-01-01T00:00:00.000Z' WHERE path = ?", ("/memories/old.md",))
    got = memgate("expire", "--days", "30", "-t", "acme", "-s", STORE)
    assert got.output == "deleted /memories/old.md\n1 file(s) older than 30 days deleted from agent:helper\n"
    assert memgate("ls", "-t", "acme", "-s", STORE).output.splitlines()[-1] == "1 file(s), 1 chars in agent:helper"


def test_clear_asks_first_then_deletes_the_store(memgate, manager):
    seed(manager, ACME_AGENT)
    call(manager, ACME_AGENT, command="create", path="/memories/a.md", file_text="x")
    refused = memgate("clear", "-t", "acme", "-s", STORE, input="n\n")
    assert refused.exit_code == 1 and memgate("ls", "-t", "acme").output.startswith("agent:helper\t1 files")
    got = memgate("clear", "-t", "acme", "-s", STORE, "--yes")
    assert got.output == "All memory cleared: 1 file(s) deleted from agent:helper\n"
    assert memgate("ls", "-t", "acme").output == "0 store(s) for tenant acme\n"
    assert call(manager, ACME_AGENT, command="view", path="/memories")[1].endswith("\n4K\t/memories")


@pytest.mark.parametrize("command", ["ls", "cat", "put", "rm", "expire", "clear"])
def test_every_memory_command_has_help_with_an_example(memgate, command):
    got = memgate(command, "--help")
    assert got.exit_code == 0 and "memgate memory " + command in got.output and "--store" in got.output


def test_ls_lists_every_store_of_the_tenant_and_cat_put_act_as_the_stores_owner(memgate, manager):
    from dataclasses import replace

    user_row = {
        "tool_name": "user_memory",
        "tool_handler": "memory",
        "usage_notes": "Your notes.",
        "tool_schema": next(t for t in load_tool_definitions(CONTRACT) if t["tool_name"] == "memory")["tool_schema"],
        "access_policy": {"memory_store": {"scope": "user"}},
    }
    seed(manager, ACME_AGENT, user_row)
    call(manager, ACME_AGENT, "user_memory", command="create", path="/memories/jane.md", file_text="jane's")
    call(
        manager,
        replace(ACME_AGENT, user="li", agent="planner"),
        command="create",
        path="/memories/p.md",
        file_text="planner's",
    )
    stores = [line.split("\t")[0] for line in memgate("ls", "-t", "acme").output.splitlines()]
    assert stores == ["agent:planner", "user:jane", "2 store(s) for tenant acme"]
    assert memgate("cat", "/memories/jane.md", "-t", "acme", "-s", "user:jane").output == "jane's"
    assert memgate("cat", "/memories/p.md", "-t", "acme", "-s", "agent:planner").output == "planner's"
    put = memgate("put", "/memories/from-ops.md", "-t", "acme", "-s", "user:jane", input="from the operator")
    assert put.exit_code == 0, put.output
    assert call(manager, ACME_AGENT, "user_memory", command="view", path="/memories/from-ops.md")[1].endswith(
        "\tfrom the operator"
    )
    assert (
        call(manager, replace(ACME_AGENT, user="li"), "user_memory", command="view", path="/memories/from-ops.md")[0]
        is True
    )
