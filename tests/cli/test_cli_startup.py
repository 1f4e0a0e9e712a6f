"""The CLI starts without the MCP server stack: only `serve` (and row checks) import fastmcp."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from memgate.server.cli import COMMAND_MODULES, cli

SERVER_STACK = ("fastmcp", "mcp", "uvicorn", "starlette")

#: runs the real CLI main in a fresh interpreter, then prints which server-stack modules it imported
PROBE = f"""
import sys
from memgate.server.cli import main
sys.argv = ["memgate", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
print("IMPORTED", sorted(m for m in {SERVER_STACK!r} if m in sys.modules), "EXIT", code)
"""


def _imported(*args: str) -> tuple[list[str], str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
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
