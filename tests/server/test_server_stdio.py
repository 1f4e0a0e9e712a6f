"""A real `memgate serve` subprocess over stdio, as a desktop host or IDE launches it."""

from __future__ import annotations

import os
import sys

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_helpers import log_rows

pytestmark = pytest.mark.anyio


def _env(home) -> dict[str, str]:
    # stdio subprocesses do not inherit the parent's environment: pass what they need.
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
    }


def _serve(args, home):
    return StdioTransport(sys.executable, ["-m", "memgate", *args], env=_env(home), cwd=str(home))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_serve_over_stdio_takes_its_identity_from_the_launch_configuration(
    sqlite_path, two_tenants, backend, tmp_path, mode
):
    transport = _serve(["--db", str(sqlite_path), "serve", "--tenant", "globex", "--user", "omar"], tmp_path)
    async with Client(transport, mode=mode) as c:
        assert "lookup_entity" in [t.name for t in await c.list_tools()]
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    text = r.content[0].text
    assert "<content>0.55" in text and "0.78" not in text and "0.92" not in text
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["user_id"], row["transport"], row["status"]) == ("globex", "omar", "stdio", "ok")


async def test_serve_demo_works_on_a_fresh_machine_with_no_database_yet(tmp_path):
    """The README's first command: the default database is created in the user data dir, with demo data."""
    async with Client(_serve(["serve", "--demo"], tmp_path)) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    assert 'status="current" version="2"' in r.content[0].text
    assert (tmp_path / "data" / "memgate" / "memgate.db").exists()


async def test_serve_refuses_to_start_on_a_schema_it_does_not_know(sqlite_path, backend, tmp_path):
    import sqlite3

    with sqlite3.connect(sqlite_path) as conn:
        conn.execute("INSERT INTO memgate_schema (version) VALUES (99)")
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "memgate", "--db", str(sqlite_path), "serve", "--tenant", "acme"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        f"Error: {sqlite_path} has schema version 99, newer than this memgate knows "
        f"({backend.known_schema_version()}). "
        "Upgrade memgate, or point database.path at another file."
    )


async def test_serve_without_a_tenant_says_how_to_give_one(sqlite_path, backend, tmp_path):
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "memgate", "--db", str(sqlite_path), "serve"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert "stdio.tenant is not set" in done.stderr and "`memgate serve --tenant acme`" in done.stderr
