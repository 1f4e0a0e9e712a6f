"""The CLI starts without the MCP server stack: only `serve` (and row checks) import fastmcp; `memgate
--help` and each command's --help import no Memory Manager (server/cli/__init__.py: the lazy pattern)."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from memgate.server.cli import COMMAND_HELP, COMMAND_MODULES, cli

SERVER_STACK = ("fastmcp", "mcp", "uvicorn", "starlette")
#: the Memory Manager and what only it pulls in (settings, pydantic, numpy, sqlglot)
MANAGER = ("memgate.manager", "memgate.server.settings", "pydantic", "numpy", "sqlglot")
#: commands whose own --help lists values the manager defines (log: the call statuses), so it imports it
HELP_LISTS_MANAGER_VALUES = {"log"}

#: runs the real CLI main in a fresh interpreter, then prints which of the watched modules it imported
PROBE = """
import sys
watched = sys.argv[1].split(",")
from memgate.server.cli import main
sys.argv = ["memgate", *sys.argv[2:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
print("IMPORTED", sorted(m for m in watched if m in sys.modules), "EXIT", code)
"""


def _imported(*args: str, watched: tuple[str, ...] = SERVER_STACK) -> tuple[list[str], str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(watched), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "FASTMCP_CHECK_FOR_UPDATES": "off"},
    )
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("IMPORTED")][-1]
    return eval(line.split(" ", 1)[1].rsplit(" EXIT", 1)[0]), out.stdout


def test_version_imports_no_server_stack():
    imported, out = _imported("--version")
    assert imported == [] and "memgate, version" in out


def test_fact_get_reads_the_claim_without_importing_the_server_stack(tmp_path):
    db = tmp_path / "m.db"
    subprocess.run(
        [sys.executable, "-m", "memgate", "--db", str(db), "init", "--demo"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    imported, out = _imported("--db", str(db), "fact", "get", "model:helios-rag", "beir_ndcg10", "-t", "acme")
    assert imported == [] and "<content>0.78" in out


def test_serve_help_loads_the_serve_command_only_when_asked():
    imported, out = _imported("serve", "--help")
    assert "--transport" in out and "EXIT 0" in out
    assert "fastmcp" not in imported  # the server stack loads when serve runs, not for its help


@pytest.mark.parametrize("name", sorted(COMMAND_MODULES))
def test_every_lazily_listed_command_is_the_one_its_module_registers(name):
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    assert command is not None and command.name == name


def test_the_modules_register_no_command_the_list_leaves_out():
    import importlib

    group = click.Group()
    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(f"memgate.server.cli.{module}").register(group)
    assert sorted(group.commands) == sorted(COMMAND_MODULES)


def test_memgate_help_imports_neither_the_manager_nor_any_command_module():
    modules = tuple(f"memgate.server.cli.{m}" for m in sorted(set(COMMAND_MODULES.values())))
    imported, out = _imported("--help", watched=MANAGER + SERVER_STACK + modules + ("memgate.server.cli.common",))
    assert "EXIT 0" in out and "Commands:" in out and "serve " in out
    assert imported == []


@pytest.mark.parametrize("name", sorted(set(COMMAND_MODULES) - HELP_LISTS_MANAGER_VALUES))
def test_each_commands_help_imports_no_manager(name):
    imported, out = _imported(name, "--help", watched=MANAGER + SERVER_STACK)
    assert "EXIT 0" in out and "Usage: memgate " in out
    assert imported == [], f"`memgate {name} --help` imports {imported}: import them inside the command"


def test_the_help_table_lists_every_command_by_the_first_line_of_its_docstring():
    ctx = click.Context(cli)
    assert sorted(COMMAND_HELP) == sorted(COMMAND_MODULES)
    for name, shown in COMMAND_HELP.items():
        assert cli.get_command(ctx, name).get_short_help_str(1000) == shown, name


def test_ingest_help_shows_the_chunkers_own_defaults():
    from memgate.manager import ChunkSettings
    from memgate.server.cli.ingest_cmd import CHUNK_DEFAULTS_SHOWN

    assert CHUNK_DEFAULTS_SHOWN == ChunkSettings().model_dump()


def test_the_import_sources_the_cli_spells_out_are_the_managers():
    """`memgate import --from` lists its choices without importing the manager: they must be its own."""
    from memgate.manager import IMPORT_SOURCES
    from memgate.server.cli import portability_cmds

    assert portability_cmds.IMPORT_SOURCES == IMPORT_SOURCES
