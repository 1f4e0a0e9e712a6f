"""Telling "a verifier endpoint is down" apart from "the token is bad".

FastMCP's verifiers turn every failure into None, which the HTTP layer answers with a
401 that tells the client to throw its token away. Their HTTP clients get
OutageRecordingTransport instead: it records refused connections, timeouts, 5xx and 429
answers in the current request's watch(). When no verifier accepts a token and one of
them could not be asked, the auth provider raises VerifierUnavailable, answered 503 with
Retry-After: never a pass, never a misleading 401.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import httpx2
from starlette.authentication import AuthenticationError

_seen: ContextVar[list[str] | None] = ContextVar("memgate_verifier_outages", default=None)


class VerifierUnavailable(AuthenticationError):
    """A token could not be verified because a verifier endpoint (or the database) is unreachable."""


@contextmanager
def watch() -> Iterator[list[str]]:
    """Collect the outages of the HTTP calls made inside; they also count for any enclosing watch."""
    mine: list[str] = []
    parent = _seen.get()
    token = _seen.set(mine)
    try:
        yield mine
    finally:
        _seen.reset(token)
        if parent is not None:
            parent.extend(mine)


def _record(what: str) -> None:
    seen = _seen.get()
    if seen is not None:
        seen.append(what)


class OutageRecordingTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that notes unreachable endpoints, then behaves exactly as the one it wraps."""

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None, *, endpoints: dict[str, str] | None = None):
        self.inner = inner or httpx2.AsyncHTTPTransport()
        #: exact URL (without query) -> URL to call instead: Google's verifier hard-codes its endpoints
        self.endpoints = {k: httpx2.URL(v) for k, v in (endpoints or {}).items()}

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        target = self.endpoints.get(str(request.url.copy_with(query=None)))
        if target is not None:
            request.url = request.url.copy_with(
                scheme=target.scheme, host=target.host, port=target.port, path=target.path
            )
            request.headers["Host"] = request.url.netloc.decode("ascii")
        where = f"{request.url.scheme}://{request.url.host}{request.url.path}"
        try:
            response = await self.inner.handle_async_request(request)
        except httpx2.TransportError as exc:  # refused, DNS, TLS, every timeout
            _record(f"{where}: {type(exc).__name__}")
            raise
        if response.status_code >= 500 or response.status_code == 429:
            _record(f"{where}: HTTP {response.status_code}")
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def recording_client(timeout_s: float, endpoints: dict[str, str] | None = None) -> httpx2.AsyncClient:
    """The HTTP client every verifier gets: bounded by `timeout_s`, outages recorded."""
    return httpx2.AsyncClient(
        transport=OutageRecordingTransport(endpoints=endpoints),
        timeout=httpx2.Timeout(timeout_s),
        follow_redirects=False,
    )
