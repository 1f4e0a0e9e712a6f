"""A local identity provider for HTTP tests: RFC 7662 introspection and Google tokeninfo/userinfo look-alikes.

Served by tests/http_helpers.py serve_asgi (uvicorn in a thread on 127.0.0.1). Tokens are
plain dict entries the test controls; `mode` makes an endpoint fail the ways real ones
do (500, too slow); `requests` records every call so tests can count what was asked.
The real endpoints answer unsigned JSON over TLS; these answer the same JSON over HTTP.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from http_helpers import serve_asgi
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

CLIENT_ID = "memgate-rs"
CLIENT_SECRET = "s3cret-for-tests"
#: longer than the verifier timeout the tests configure
SLOW_S = 3.0


@dataclass
class FakeIdP:
    #: opaque token -> the introspection response for it (without "active")
    introspection: dict[str, dict[str, Any]] = field(default_factory=dict)
    revoked: set[str] = field(default_factory=set)
    #: Google access token -> tokeninfo JSON; token -> userinfo JSON
    tokeninfo: dict[str, dict[str, Any]] = field(default_factory=dict)
    userinfo: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: endpoint path -> "500" or "slow"; absent means healthy
    mode: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""

    def calls(self, path: str) -> list[str]:
        """The tokens sent to `path`, in order."""
        return [token for p, token in self.requests if p == path]

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/introspect", self._introspect, methods=["POST"]),
                Route("/tokeninfo", self._tokeninfo, methods=["GET"]),
                Route("/userinfo", self._userinfo, methods=["GET"]),
            ]
        )

    async def _failure(self, path: str) -> JSONResponse | None:
        mode = self.mode.get(path)
        if mode == "500":
            return JSONResponse({"error": "server_error"}, status_code=500)
        if mode == "slow":
            await asyncio.sleep(SLOW_S)
        return None

    async def _introspect(self, request: Request) -> JSONResponse:
        form = dict(await request.form())
        token = str(form.get("token", ""))
        self.requests.append(("/introspect", token))
        expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if request.headers.get("authorization") != expected:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if (failed := await self._failure("/introspect")) is not None:
            return failed
        if token in self.revoked or token not in self.introspection:
            return JSONResponse({"active": False})
        return JSONResponse({"active": True, **self.introspection[token]})

    async def _tokeninfo(self, request: Request) -> JSONResponse:
        token = _bearer(request)
        self.requests.append(("/tokeninfo", token))
        if (failed := await self._failure("/tokeninfo")) is not None:
            return failed
        if token not in self.tokeninfo:
            return JSONResponse({"error": "invalid_token", "error_description": "Invalid Value"}, status_code=400)
        info = dict(self.tokeninfo[token])
        info.setdefault("expires_in", str(max(0, int(info.get("exp", 0)) - int(time.time()))))
        return JSONResponse(info)

    async def _userinfo(self, request: Request) -> JSONResponse:
        token = _bearer(request)
        self.requests.append(("/userinfo", token))
        if (failed := await self._failure("/userinfo")) is not None:
            return failed
        if token not in self.userinfo:
            return JSONResponse(
                {"error": {"code": 401, "message": "Request had invalid credentials."}}, status_code=401
            )
        return JSONResponse(self.userinfo[token])


def _bearer(request: Request) -> str:
    value = request.headers.get("authorization", "")
    return value[7:] if value.lower().startswith("bearer ") else ""


@contextmanager
def running_idp() -> Iterator[FakeIdP]:
    idp = FakeIdP()
    with serve_asgi(idp.app()) as url:
        idp.url = url
        yield idp


@contextmanager
def refused_url() -> Iterator[str]:
    """A 127.0.0.1 URL whose port is bound but not listening: every connection is refused at once."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()
