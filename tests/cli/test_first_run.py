"""A new user's first run: a real `memgate serve` process refuses to serve nothing, and says the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memgate.manager import load_tool_definitions
from memgate.server.cli import cli

README = str(Path(__file__).resolve().parents[2] / "README.md")


def _env(home, **extra) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        **extra,
    }


def _serve(home, *args, **env):
    return subprocess.run(
        [sys.executable, "-m", "memgate", *args],
        env=_env(home, **env),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_serve_on_a_new_database_refuses_to_start_and_names_the_init_command(tmp_path):
    """What config/claude_desktop_config.json launches, on a machine that never ran `memgate init`."""
    done = _serve(tmp_path, "serve", "--tenant", "acme", "--user", "jane", "--agent", "research-assistant")
    db = tmp_path / "data" / "memgate" / "memgate.db"
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Error: tenant acme is not set up in {db}. Run `memgate init --tenant acme` first.\n"


def test_serve_for_a_tenant_the_database_does_not_know_names_the_database_in_the_fix(tmp_path, sqlite_path):
    assert CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "--demo"]).exit_code == 0
    done = _serve(tmp_path, "--db", str(sqlite_path), "serve", "--tenant", "initech")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"Error: tenant initech is not set up in {sqlite_path}, whose tenants are acme, globex. "
        f"To set initech up, run `memgate --db {sqlite_path} init --tenant initech`.\n"
    )


def test_serve_with_every_tool_disabled_says_which_to_enable(tmp_path, sqlite_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).exit_code == 0
    for tool in (t["tool_name"] for t in load_tool_definitions()):
        assert runner.invoke(cli, ["--db", str(sqlite_path), "tools", "disable", tool, "-t", "acme"]).exit_code == 0
    done = _serve(tmp_path, "--db", str(sqlite_path), "serve", "--tenant", "acme")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"Error: every tool of tenant acme in {sqlite_path} is disabled")
    assert f"`memgate --db {sqlite_path} tools enable " in done.stderr


def test_serve_with_a_bad_setting_prints_one_error_and_no_traceback(tmp_path):
    done = _serve(tmp_path, "serve", "--demo", MEMGATE_SERVER__PORT="99999")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "Error: Invalid settings:\n  server.port: Input should be less than or equal to 65535, got '99999'. "
        "Fix it in memgate.toml [server] or unset MEMGATE_SERVER__PORT.\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "--demo"],
        ["init"],
        ["fact", "get", "s", "-t", "acme"],
        ["fact", "set", "s", "p", "v", "-t", "acme"],
        ["tools", "list", "-t", "acme"],
        ["tools", "enable", "memory", "-t", "acme"],
        ["log"],
        ["memory", "ls", "-t", "acme"],
        ["memory", "cat", "/memories/a.md", "-t", "acme", "-s", "global"],
        ["memory", "put", "/memories/a.md", README, "-t", "acme", "-s", "global"],
        ["memory", "rm", "/memories/a.md", "-t", "acme", "-s", "global"],
        ["memory", "expire", "--days", "1", "-t", "acme", "-s", "global"],
        ["memory", "clear", "-t", "acme", "-s", "global", "--yes"],
        ["ingest", README, "-t", "acme"],
        ["search", "q", "-t", "acme"],
    ],
)
def test_every_command_reports_a_bad_setting_as_one_error_naming_the_key_and_both_places(args, monkeypatch):
    for key in list(os.environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MEMGATE_CAPS", "max_rows=3")
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.output
    assert result.output == (
        "Error: Invalid settings:\n  caps: Input should be a valid dictionary or instance of CapsSettings, "
        "got 'max_rows=3'. Fix it in memgate.toml [caps] or unset MEMGATE_CAPS.\n"
    )


def test_doctor_reports_a_bad_setting_as_a_failed_check(monkeypatch):
    monkeypatch.setenv("MEMGATE_CAPS__MAX_ROWS", "lots")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert result.output.startswith("[FAIL] settings: Invalid settings:\n  caps.max_rows: ")


def test_the_readme_connects_a_host_by_setting_up_the_tenant_the_desktop_config_serves_first():
    import json

    root = Path(__file__).resolve().parents[2]
    section = (root / "README.md").read_text().split("## Connect a host", 1)[1].split("\n## ", 1)[0]
    first_block = section.split("```", 2)[1].strip()
    args = json.loads((root / "config" / "claude_desktop_config.json").read_text())["mcpServers"]["memgate"]["args"]
    assert first_block == f"memgate init --tenant {args[args.index('--tenant') + 1]}"
    assert section.index("```") < section.index("config/claude_desktop_config.json")


def _tenants_of(db) -> list[str]:
    from memgate.manager import DatabaseSettings, OperatorManager, open_backend

    backend = open_backend(DatabaseSettings(path=db), create=False)
    try:
        return OperatorManager(backend).tenants()
    finally:
        backend.close()


@pytest.mark.parametrize(
    "setup, named",
    [
        ([["init", "--tenant", "initech"]], "initech"),
        (
            [["init", "--tenant", "acme"], ["fact", "set", "plan:q3", "owner", "bob", "-t", "acme"]],
            "acme (without the demo's rows)",
        ),
    ],
)
def test_serve_demo_refuses_a_database_whose_tenants_are_not_the_demos(tmp_path, sqlite_path, setup, named):
    runner = CliRunner()
    for command in setup:
        assert runner.invoke(cli, ["--db", str(sqlite_path), *command]).exit_code == 0
    before = _tenants_of(sqlite_path)
    done = _serve(tmp_path, "--db", str(sqlite_path), "serve", "--demo")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"Error: {sqlite_path} has tenants that are not the demo's: {named}; ")
    assert done.stderr.rstrip().endswith("or add --force-demo to load it here.")
    assert _tenants_of(sqlite_path) == before and "globex" not in before
    if "acme" in before:
        fact = runner.invoke(cli, ["--db", str(sqlite_path), "fact", "get", "model:helios-rag", "-t", "acme"])
        assert "0.78" not in fact.output  # no demo row reached the real acme
    forced = runner.invoke(cli, ["--db", str(sqlite_path), "init", "--force-demo"])
    assert forced.exit_code == 0 and "demo data: acme, globex seeded" in forced.output


def test_serve_demo_runs_again_on_the_demos_own_database(tmp_path, sqlite_path):
    assert CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "--demo"]).exit_code == 0
    again = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "--demo"])
    assert again.exit_code == 0 and "demo data: already present" in again.output


def test_the_desktop_sample_launches_memgate_by_the_absolute_path_its_doc_explains(tmp_path):
    """A desktop app has no venv and no PATH: the sample's command is a venv's memgate by absolute path,
    and docs/hosts.md says so, with each system's default database as platformdirs lays it out."""
    from doc_helpers import doc_text
    from platformdirs.macos import MacOS
    from platformdirs.unix import Unix

    root = Path(__file__).resolve().parents[2]
    server = json.loads((root / "config" / "claude_desktop_config.json").read_text())["mcpServers"]["memgate"]
    command = Path(server["command"])
    assert command.is_absolute() and command.parts[-3:] == (".venv", "bin", "memgate")
    home = Path("/Users/jane")
    assert server["env"]["MEMGATE_DATABASE__PATH"] == str(home / "Library/Application Support/memgate/memgate.db")
    hosts = doc_text("hosts").split("## Claude Desktop and IDE agents (stdio)", 1)[1].split("\n## ", 1)[0]
    assert "absolute path" in hosts and server["command"] in hosts and "which memgate" in hosts
    assert "where memgate" in hosts and r"\.venv\Scripts\memgate.exe" in hosts
    mac = MacOS("memgate").user_data_dir.replace(str(Path.home()), "~")
    linux = Unix("memgate").user_data_dir
    assert f"`{mac}/memgate.db`" in hosts
    assert "`~/.local/share/memgate/memgate.db`" in hosts and linux.endswith("/memgate")
    assert r"`%LOCALAPPDATA%\memgate\memgate\memgate.db`" in hosts
    # launched with the sample's args on a fresh database, memgate starts and names the set-up command
    done = _serve(tmp_path, *server["args"], MEMGATE_DATABASE__PATH=str(tmp_path / "shared.db"))
    assert done.returncode == 1 and "Run `memgate --db" in done.stderr and "init --tenant acme" in done.stderr
