"""The Host and Origin guard of the HTTP server (the transport spec's DNS-rebinding defence).

memgate's own rule, replacing FastMCP's guard, which treats any loopback origin on any
port as same-origin (and accepts malformed origins such as `http://127.0.0.1:1.evil.example`
by parsing only their host):

- Host: loopback names, base_url's host, the bind host and server.allowed_hosts (ports
  ignored); anything else is 421. `/health` is exempt: it reveals nothing, and load
  balancers and kubelets probe it by the replica's address.
- Origin: none is fine (not a browser). Otherwise it must be exactly the server's own
  origin (base_url's, or the scheme and Host the request came to) or one listed in
  server.allowed_origins, compared as scheme, host and port; anything else, malformed
  origins included, is 403.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from ipaddress import ip_address
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("memgate.server.http")

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: paths answered whatever the Host: they reveal nothing
HOST_EXEMPT_PATHS = ("/health",)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_origin(origin: str) -> str | None:
    """`scheme://host:port` in lower case with the default port made explicit; None when malformed."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def host_name(host: str) -> str:
    """The Host header's name without port or IPv6 brackets, in lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ip_address(name).is_loopback
    except ValueError:
        return False


class HostOriginGuard:
    """ASGI middleware: 421 for a foreign Host, 403 for a foreign or malformed Origin (see the module doc)."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str], origins: Iterable[str], own_origins: Iterable[str]):
        self.app = app
        self.hosts = {host_name(h) for h in hosts}
        listed = [*origins, *own_origins]
        self.origins = {o for o in map(normalize_origin, listed) if o}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in HOST_EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        name = host_name(host)
        if not name or not (_is_loopback(name) or name in self.hosts):
            log.warning("request refused (421): Host %r is not this server's", host[:200])
            await Response("Misdirected Request", status_code=421)(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin, scope, host):
            log.warning("request refused (403): Origin %r is neither this server's nor listed", origin[:200])
            await Response("Forbidden Origin", status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _origin_allowed(self, origin: str, scope: Scope, host: str) -> bool:
        normalized = normalize_origin(origin)
        if normalized is None:
            return False
        return normalized in self.origins or normalized == normalize_origin(f"{scope.get('scheme', 'http')}://{host}")
