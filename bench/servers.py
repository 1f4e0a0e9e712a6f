"""The memgate a benchmark drives: a demo database, the in-process app, a real `memgate serve` subprocess."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
logging.getLogger("httpx2").setLevel(logging.WARNING)  # one INFO line per HTTP request otherwise

from memgate.manager import DEMO_TENANTS, load_tool_definitions, seed_demo
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

__all__ = [
    "AUDIENCE",
    "ISSUER",
    "child_pids",
    "demo_database",
    "in_process_app",
    "memgate_command",
    "serve_http",
    "server_env",
    "stdio_transport",
]

ISSUER = "https://idp.bench.invalid"
AUDIENCE = "memgate"


def demo_database(path: Path):
    """A SQLite file with the demo tenants (acme, globex) and their default tools; returns a manager on it."""
    settings = load_settings(None, **{"database.path": str(path)})
    manager = open_manager(settings)
    seed_demo(manager)
    for identity in DEMO_TENANTS:
        manager.seed_tools(identity, load_tool_definitions())
    return manager


def in_process_app(
    path: Path, tenant: str = "acme", user: str = "jane", agent: str | None = "research-assistant", **overrides
):
    """The FastMCP server `memgate serve --tenant ...` runs, for an in-process fastmcp.Client; and its manager.
    `overrides` are more dotted settings, e.g. `**{"database.busy_timeout_ms": 1000}`."""
    from memgate.server.app import stdio_server

    settings = load_settings(
        None,
        **{"database.path": str(path), "stdio.tenant": tenant, "stdio.user": user, "stdio.agent": agent, **overrides},
    )
    manager = open_manager(settings)
    return stdio_server(manager, settings), manager


def memgate_command() -> list[str]:
    return [sys.executable, "-m", "memgate"]


def server_env(**settings: str) -> dict[str, str]:
    """The environment for a memgate subprocess: this one without MEMGATE_*, plus `settings` (MEMGATE_ names)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    env["FASTMCP_CHECK_FOR_UPDATES"] = "off"
    env.update(settings)
    return env


def stdio_transport(db: Path, log_file: Path, *, tenant: str, user: str, agent: str | None = None):
    """A fastmcp transport that starts a real `memgate serve` stdio subprocess; its stderr goes to `log_file`."""
    from fastmcp.client.transports import StdioTransport

    command = memgate_command()
    args = [*command[1:], "--db", str(db), "serve", "--tenant", tenant, "--user", user]
    return StdioTransport(
        command=command[0],
        args=args + (["--agent", agent] if agent else []),
        env=server_env(MEMGATE_SERVER__LOG_LEVEL="WARNING"),
        log_file=log_file,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve_http(
    db: Path, public_key_file: Path, *, startup_s: float = 60.0, args: Sequence[str] = ()
) -> Iterator[tuple[str, int]]:
    """A real `memgate serve --transport http` on 127.0.0.1 checking JWTs against `public_key_file`, with
    more `args` (e.g. "--workers", "2"); yields (MCP URL, server pid) and stops it (SIGTERM, then SIGKILL)."""
    import httpx2 as httpx

    port = _free_port()
    env = server_env(
        MEMGATE_HTTP__AUTH__ISSUER=ISSUER,
        MEMGATE_HTTP__AUTH__AUDIENCE=AUDIENCE,
        MEMGATE_HTTP__AUTH__PUBLIC_KEY_FILE=str(public_key_file),
        MEMGATE_SERVER__LOG_LEVEL="WARNING",
    )
    proc = subprocess.Popen(
        [
            *memgate_command(),
            "--db",
            str(db),
            "serve",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *args,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"memgate serve exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}"
                )
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"memgate serve did not answer /health within {startup_s}s")
            time.sleep(0.1)  # bounded readiness poll
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def child_pids(parent: int) -> list[int]:
    """Direct children of `parent`, from /proc (the stdio client starts the server for us)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                pids.append(int(entry.name))
    return pids
