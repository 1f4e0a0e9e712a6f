"""The operator log of a real `memgate serve`: one format for every logger, one line per failed call, stderr only."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from jwt_helpers import make_keypair
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio

#: LOG_FORMAT in server/cli/common.py: "%(asctime)s %(levelname)s %(name)s: %(message)s"
LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: \S")


def _env(home) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }


def _lines(text: str) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    assert [line for line in lines if not LINE.match(line)] == []
    return lines


async def test_over_stdio_every_line_has_one_format_and_a_failed_call_writes_one(tmp_path):
    log = tmp_path / "stderr.log"
    transport = StdioTransport(
        sys.executable, ["-m", "memgate", "serve", "--demo"], env=_env(tmp_path), cwd=str(tmp_path), log_file=log
    )
    async with Client(transport) as c:
        invalid = await c.call_tool("execute_query", {"query": "SELECT 1", "max_rows": 0}, raise_on_error=False)
        refused = await c.call_tool("execute_query", {"query": "SELECT * FROM mcp_call_log"}, raise_on_error=False)
    assert invalid.is_error and refused.is_error
    lines = _lines(log.read_text())
    assert any(" INFO fastmcp." in line for line in lines)  # FastMCP's own logger, in memgate's format
    calls = [line for line in lines if "to execute_query" in line or "Error calling tool" in line]
    assert len(calls) == 2, lines
    assert calls[0].endswith("to execute_query ended invalid: Input should be greater than or equal to 1")
    assert " WARNING memgate.toolbox: call " in calls[1] and "ended invalid: query refused (rule table)" in calls[1]


async def test_a_bad_intent_in_the_context_prompt_is_one_log_line_without_a_traceback(tmp_path):
    """The client gets a clean error; the host's MCP log (the server's stderr) gets one line, as for a bad call."""
    log = tmp_path / "stderr.log"
    transport = StdioTransport(
        sys.executable, ["-m", "memgate", "serve", "--demo"], env=_env(tmp_path), cwd=str(tmp_path), log_file=log
    )
    async with Client(transport) as c:
        with pytest.raises(MCPError, match="intent must be one of") as bad:
            await c.get_prompt("context_window", {"question": "How is Helios doing?", "intent": "poem"})
        with pytest.raises(MCPError, match="missing required argument"):
            await c.get_prompt("context_window", {"intent": "fact_check"})
        fine = await c.get_prompt("context_window", {"question": "How is Helios doing?"})
    assert bad.value.error.code == -32602 and fine.messages
    lines = _lines(log.read_text())  # every line in the log format: no traceback lines
    refused = [line for line in lines if "context_window" in line]
    assert len(refused) == 2, lines
    assert refused[0].endswith(
        "WARNING memgate.server: context_window prompt refused for tenant acme: "
        "intent must be one of comparison, fact_check, general, got 'poem'"
    )


def test_over_http_uvicorn_logs_in_the_same_format(sqlite_path, two_tenants, tmp_path):
    keys = make_keypair()
    key_file = tmp_path / "idp.pem"
    key_file.write_text(keys.public_pem)
    config = tmp_path / "memgate.toml"
    config.write_text(
        f'[http.auth]\nissuer = "https://idp.test"\naudience = "memgate"\npublic_key_file = "{key_file}"\n'
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgate",
            "--config",
            str(config),
            "--db",
            str(sqlite_path),
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # bounded readiness poll
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "memgate serve did not start"
                time.sleep(0.1)
        assert httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=5).status_code == 401
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert out == ""
    lines = _lines(err)
    assert any(" INFO uvicorn.error: Uvicorn running on " in line for line in lines)
    assert any(" INFO uvicorn.access: 127.0.0.1:" in line and '"GET /health HTTP/1.1" 200' in line for line in lines)
