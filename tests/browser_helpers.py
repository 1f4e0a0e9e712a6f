"""Headless Chromium for the MCP App view tests, and the test host's relay to a real memgate server.

Chromium is Debian's (`.ci/run` installs the `chromium` package when it is missing); Playwright
(the PyPI wheel, which ships its driver) drives it, launched with that executable and a fresh
profile, never with a browser Playwright would download. Where no Chromium is installed the
tests skip, saying so.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from app_helpers import APPS_HOST
from fastmcp import Client
from http_helpers import serve_asgi
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

HOST_PAGE = Path(__file__).resolve().parent / "server" / "app_host.html"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: a bounded wait for the page to render (ms)
RENDER_TIMEOUT_MS = 20_000


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium package; it could not here)")
    return path


@contextmanager
def chromium(tmp_path: Path) -> Iterator:
    """A fresh Chromium profile under tmp_path, as a Playwright browser context."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=chromium_path(),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 900, "height": 800},
        )
        context.set_default_timeout(RENDER_TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@contextmanager
def relay_host(mcp_url: str, bearer: str) -> Iterator[str]:
    """The test host page and its /rpc relay on 127.0.0.1; each /rpc is one MCP request to memgate at `mcp_url`."""

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE.read_text(encoding="utf-8"))

    async def rpc(request: Request) -> JSONResponse:
        body = await request.json()
        method, params = body["method"], body.get("params") or {}
        async with Client(mcp_url, auth=bearer, extensions=APPS_HOST) as c:  # the test host renders MCP Apps
            if method == "tools/list":
                result = await c.list_tools_mcp()
            elif method == "resources/read":
                result = await c.read_resource_mcp(params["uri"])
            elif method == "tools/call":
                result = await c.call_tool_mcp(params["name"], params.get("arguments") or {})
            else:
                return JSONResponse({"error": {"code": -32601, "message": f"{method} is not relayed"}})
        return JSONResponse({"result": result.model_dump(by_alias=True, exclude_none=True, mode="json")})

    app = Starlette(routes=[Route("/host", page), Route("/rpc", rpc, methods=["POST"])])
    with serve_asgi(app) as url:
        yield url
