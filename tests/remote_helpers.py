"""The real memgate HTTP server for remote-host tests: settings, uvicorn on 127.0.0.1, raw MCP posts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
from http_helpers import serve_asgi

from memgate.server.app import http_asgi_app, http_server, uvicorn_options
from memgate.server.auth_settings import HttpAuthSettings
from memgate.server.cli.common import open_manager
from memgate.server.settings import Settings, load_settings

MODERN = "2026-07-28"


def memgate_settings(sqlite_path, auth: dict[str, Any], **server: Any) -> Settings:
    """HTTP settings on `sqlite_path` with `[http.auth]` = `auth` (validated) and `[server]` overrides."""
    base = load_settings(None, **{"database.path": str(sqlite_path), "server.transport": "http"})
    return base.model_copy(
        update={
            "http": base.http.model_copy(update={"auth": HttpAuthSettings.model_validate(auth)}),
            "server": base.server.model_validate({**base.server.model_dump(), **server}),
        }
    )


@contextmanager
def serve_memgate(settings: Settings) -> Iterator[str]:
    """build_server + http_asgi_app under uvicorn with memgate's own uvicorn options; yields the base URL."""
    manager = open_manager(settings)
    try:
        with serve_asgi(http_asgi_app(http_server(manager, settings), settings), **uvicorn_options(settings)) as url:
            yield url
    finally:
        manager.close()


def post_mcp(
    url: str,
    token: str | None,
    *,
    method: str = "tools/call",
    name: str = "lookup_entity",
    arguments: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
) -> httpx.Response:
    """One raw stateless (2026-07-28) MCP request; tools/call of `name` by default (`params` for another method)."""
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    built: dict[str, Any] = {}
    if method == "tools/call":
        sent["Mcp-Name"] = name
        built = {
            "name": name,
            "arguments": arguments
            if arguments is not None
            else {"subject": "model:helios-rag", "predicate": "beir_ndcg10"},
        }
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent.update(headers or {})
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {
            **built,
            **(params or {}),
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    return httpx.post(f"{url}/mcp", headers=sent, json=body, timeout=15)
