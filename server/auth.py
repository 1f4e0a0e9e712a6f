"""OAuth 2.1 resource-server auth for Streamable HTTP: verify bearer tokens, derive the Identity.

One request's way in (MemgateBearerBackend, run by starlette's AuthenticationMiddleware
on every path but /health and /.well-known/):

1. An oversized token is refused (401) without reaching any verifier.
2. The verifier the token's shape and issuer route it to (verifier_routing.py; verifiers.py:
   JWT, introspection, Google) checks the token; a failure is 401 `invalid_token`. A verifier endpoint that could not be asked while nobody
   accepted the token is 503 with Retry-After (outage.py), never 401. Accepted tokens
   are cached for at most `cache_s` and never past their expiry.
3. Required scopes are checked per verifier afterwards, so a valid token that lacks a
   scope gets 403 `insufficient_scope` (RFC 6750 §3.1), not 401.
4. The tenant gate (tenant_gate.py) decides the tenant: the claim, or the operator's
   mapping; no tenant, two, or one `memgate init` never set up is 403 and a `denied` log row.

The RFC 9728 metadata is memgate's own route, so the issuer strings appear exactly as
configured (a pydantic URL would add a trailing slash).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import anyio
from fastmcp import FastMCP
from fastmcp.server.auth import AccessToken, RemoteAuthProvider
from fastmcp.utilities.token_cache import TokenCache
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend
from mcp.server.auth.routes import build_resource_metadata_url
from pydantic import AnyHttpUrl
from starlette.authentication import AuthCredentials
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from memgate.manager import AccessDenied, BackendUnavailable, ConfigError, Identity, MemoryManager, ServerGate

from .auth_responses import AuthResponses, InsufficientScope, TokenRefused
from .auth_settings import HttpAuthSettings
from .outage import VerifierUnavailable, watch
from .tenant_gate import TenantGate
from .verifier_routing import RoutedVerifiers
from .verifiers import MemgateJWTVerifier, VerifiedToken, build_verifiers

__all__ = [
    "MCP_PATH",
    "MemgateAuthProvider",
    "MemgateJWTVerifier",
    "add_health_route",
    "build_auth",
    "identity_from_access_token",
    "resource_url",
]

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: longest claim value copied into Identity.context; longer values are dropped, not clipped
MAX_CONTEXT_VALUE = 200
_SCOPE_CLAIMS = ("scope", "scp")
#: routes that never need a token: no verifier is asked on them, even when a token is sent
_PUBLIC_PATHS = ("/health",)
_PUBLIC_PREFIXES = ("/.well-known/",)


class MemgateAuthProvider(RemoteAuthProvider):
    """RemoteAuthProvider with memgate's bearer backend, token cache and exact RFC 9728 metadata.

    FastMCP's RequireAuthMiddleware on `/mcp` checks only that a token was accepted
    (required_scopes is empty here): scopes depend on which verifier accepted the token,
    so the bearer backend checks them and answers 403 `insufficient_scope` itself.
    """

    def __init__(
        self,
        verifiers: dict[str, Any],
        settings: HttpAuthSettings,
        *,
        base_url: str,
        gate: TenantGate | None = None,
        lookups: ServerGate | None = None,
        manager: MemoryManager | None = None,
    ):
        verifier = RoutedVerifiers(verifiers, settings)
        challenge = list(settings.required_scopes)
        super().__init__(
            verifier,
            # the URLs as configured (checked, not rewritten): see _authorization_servers
            authorization_servers=_authorization_servers(settings),  # type: ignore[arg-type]
            base_url=base_url,
            resource_base_url=settings.resource_url,
            scopes_supported=challenge,
            challenge_scopes=challenge,
        )
        self.required_scopes = []
        self.settings = settings
        self.gate = gate
        self.manager = manager
        self.lookups = lookups
        self.resource = resource_url(settings, base_url)
        self._cache = TokenCache(ttl_seconds=settings.cache_s)

    async def verify_token(self, token: str) -> AccessToken | None:
        hit, cached = self._cache.get(token)
        if hit:
            return cached
        with watch() as outages:
            access = await self.token_verifier.verify_token(token)
        if access is None:
            if outages:
                log.warning("Bearer token not verified: a verifier endpoint is unreachable (%s)", outages[-1])
                raise VerifierUnavailable(outages[-1])
            return None
        if self.gate is None and not _str_claim(access.claims, self.settings.tenant_claim):
            # Without a tenant mapping only the claim can name the tenant: the token is unusable.
            log.warning(
                "Bearer token rejected for client %s: missing or empty tenant claim %r",
                access.original_client_id or access.client_id,
                self.settings.tenant_claim,
            )
            return None
        self._cache.set(token, access)
        return access

    def get_middleware(self) -> list:
        responses = AuthResponses(
            challenge_scopes=list(self.settings.required_scopes),
            resource_metadata_url=self.metadata_url(),
            retry_after_s=self.settings.retry_after_s,
        )
        return [
            Middleware(AuthenticationMiddleware, backend=MemgateBearerBackend(self), on_error=responses),
            Middleware(AuthContextMiddleware),
        ]

    def metadata_url(self) -> str:
        return str(build_resource_metadata_url(AnyHttpUrl(self.resource)))

    def get_routes(self, mcp_path: str | None = None) -> list[Route]:
        self.set_mcp_path(mcp_path)
        return [Route(urlsplit(self.metadata_url()).path, endpoint=self._metadata, methods=["GET"])]

    def supported_scopes(self) -> list[str]:
        """Configured required scopes first, then those the active toolbox rows require."""
        scopes = list(dict.fromkeys([*self.settings.required_scopes, *self.settings.introspection_scopes()]))
        if self.lookups is not None:
            scopes += [s for s in self.lookups.required_scopes() if s not in scopes]
        return scopes

    async def _metadata(self, request: Request) -> JSONResponse:
        try:
            scopes = await anyio.to_thread.run_sync(self.supported_scopes)
        except BackendUnavailable:
            log.exception("protected-resource metadata: toolbox scopes cannot be read")
            return JSONResponse(
                {"error": "temporarily_unavailable"},
                status_code=503,
                headers={"Retry-After": str(self.settings.retry_after_s)},
            )
        return JSONResponse(
            {
                "resource": self.resource,
                "authorization_servers": self.authorization_servers,
                "scopes_supported": scopes,
                "bearer_methods_supported": ["header"],
            }
        )


class MemgateBearerBackend(BearerAuthBackend):
    """The SDK's bearer backend plus memgate's order: size, verification, per-verifier scopes, tenant."""

    def __init__(self, provider: MemgateAuthProvider):
        super().__init__(provider)
        self.provider = provider

    async def authenticate(self, conn: HTTPConnection):
        path = conn.scope.get("path", "")
        if path in _PUBLIC_PATHS or path.startswith(_PUBLIC_PREFIXES):
            return None
        header = conn.headers.get("authorization") or ""
        settings = self.provider.settings
        if header[:7].lower() == "bearer " and len(header) - 7 > settings.max_token_bytes:
            log.warning(
                "Bearer token refused unread: %d bytes, more than http.auth.max_token_bytes (%d)",
                len(header) - 7,
                settings.max_token_bytes,
            )
            raise TokenRefused("The bearer token is longer than this server accepts.")
        result = await super().authenticate(conn)
        if result is None:
            return None
        _, user = result
        token = user.access_token
        verifier = token.verifier if isinstance(token, VerifiedToken) else "jwt"
        required = settings.scopes_for(verifier)
        missing = [s for s in required if s not in token.scopes]
        if missing:
            raise InsufficientScope(missing[0], required)
        if self.provider.gate is not None and isinstance(token, VerifiedToken):
            token = await self.provider.gate.admit(token, conn)
        return AuthCredentials(token.scopes), AuthenticatedUser(token)


def build_auth(
    settings: HttpAuthSettings, base_url: str, *, manager: MemoryManager | None = None
) -> MemgateAuthProvider:
    """Build the auth provider for `FastMCP(auth=...)`; `base_url` is where this server is reached.

    With `manager`, tokens without a tenant claim go through the operator's tenant mapping
    and the metadata lists the toolbox rows' scopes; without it, the claim is required.
    """
    settings.check_complete()
    public_key = settings.public_key
    if "jwt" in settings.verifier and settings.public_key_file is not None:
        try:
            public_key = settings.public_key_file.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(
                f"http.auth.public_key_file {str(settings.public_key_file)!r} cannot be read: {e.strerror}.",
                field="http.auth.public_key_file",
                hint="Point it at a PEM public key file readable by the memgate process.",
            ) from e
    try:
        verifiers = build_verifiers(settings, public_key, resource=resource_url(settings, base_url))
    except ValueError as e:
        raise ConfigError(
            f"http.auth is not usable: {e}",
            field="http.auth.algorithm",
            hint="Check algorithm and the key source in memgate.toml [http.auth].",
        ) from e
    if manager is None:
        return MemgateAuthProvider(verifiers, settings, base_url=base_url)
    lookups = ServerGate(manager.backend)
    gate = TenantGate(manager, settings, lookups)
    return MemgateAuthProvider(verifiers, settings, base_url=base_url, gate=gate, lookups=lookups, manager=manager)


def resource_url(settings: HttpAuthSettings, base_url: str) -> str:
    """This server's protected-resource URL (RFC 9728 `resource`, RFC 8707 audience): the public base + /mcp."""
    return f"{(settings.resource_url or base_url).rstrip('/')}{MCP_PATH}"


def _authorization_servers(settings: HttpAuthSettings) -> list[str]:
    # RFC 9728 metadata needs at least one; the first verifier's issuer is the natural default.
    names = settings.authorization_servers or settings.default_authorization_servers()
    key = "authorization_servers" if settings.authorization_servers else "issuer"
    try:
        if not names:
            raise ValueError("no authorization server")
        for n in names:
            AnyHttpUrl(n)  # a validity check only: the metadata carries the string as configured
    except ValueError as e:  # pydantic's ValidationError is one
        raise ConfigError(
            f"http.auth.{key} must hold http(s) URLs for the protected-resource metadata, got {names!r}.",
            field="http.auth.authorization_servers",
            hint="Set http.auth.authorization_servers in memgate.toml [http.auth] "
            "or MEMGATE_HTTP__AUTH__AUTHORIZATION_SERVERS.",
        ) from e
    return list(names)


def identity_from_access_token(token: AccessToken, settings: HttpAuthSettings) -> Identity:
    """The trusted Identity a verified token speaks for (its tenant decided by the gate, if any)."""
    claims = token.claims or {}
    mapped = token if isinstance(token, VerifiedToken) and token.tenant else None
    tenant = mapped.tenant if mapped else _str_claim(claims, settings.tenant_claim)
    if tenant is None:
        raise AccessDenied(
            f"The access token has no {settings.tenant_claim!r} claim.",
            field=settings.tenant_claim,
        )
    user = (mapped.mapped_user if mapped else None) or _str_claim(claims, settings.user_claim)
    skipped = {
        settings.tenant_claim,
        settings.user_claim,
        settings.agent_claim,
        settings.thread_claim,
        settings.roles_claim,
        "sub",
        *_SCOPE_CLAIMS,
    }
    context = tuple(
        sorted(
            (k, v) for k, v in claims.items() if k not in skipped and isinstance(v, str) and len(v) <= MAX_CONTEXT_VALUE
        )
    )
    return Identity(
        tenant=tenant,
        user=user,
        agent=_str_claim(claims, settings.agent_claim),
        thread=_str_claim(claims, settings.thread_claim),  # an id by the tenant gate's check
        principal=_str_claim(claims, "sub"),
        scopes=frozenset(token.scopes),
        roles=_roles(claims.get(settings.roles_claim)),
        context=context,
    )


def _str_claim(claims: dict[str, Any], name: str) -> str | None:
    value = claims.get(name)
    return value if isinstance(value, str) and value else None


def _roles(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(v for v in value if isinstance(v, str) and v)
    return frozenset()


def add_health_route(mcp: FastMCP) -> None:
    """Serve GET /health → {"status": "ok"}, outside auth and revealing nothing else."""

    @mcp.custom_route("/health", methods=["GET"], include_in_schema=False)
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})
