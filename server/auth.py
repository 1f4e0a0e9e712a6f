"""OAuth 2.1 resource-server auth for Streamable HTTP: verify bearer JWTs, derive the Identity.

Authentication and authorization are split on purpose. The verifier checks the
signature, `exp`/`nbf`, `iss`, `aud` and the tenant claim; a failure there is
401 `invalid_token`. Required scopes are checked afterwards by FastMCP's
RequireAuthMiddleware, so a valid token that lacks a scope gets 403
`insufficient_scope` (RFC 6750 §3.1). A stock `JWTVerifier(required_scopes=...)`
rejects such a token itself, which the middleware can only report as 401.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.auth import AccessToken, RemoteAuthProvider, TokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier
from pydantic import AnyHttpUrl, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from memgate.manager import AccessDenied, ConfigError, Identity

from .auth_settings import HttpAuthSettings

__all__ = [
    "MemgateAuthProvider",
    "MemgateJWTVerifier",
    "add_health_route",
    "build_auth",
    "identity_from_access_token",
]

log = logging.getLogger(__name__)

#: longest claim value copied into Identity.context; longer values are dropped, not clipped
MAX_CONTEXT_VALUE = 200
#: seconds an `nbf` may lie in the future: IdP and server clocks drift a little
NBF_LEEWAY = 30
_SCOPE_CLAIMS = ("scope", "scp")


class MemgateJWTVerifier(JWTVerifier):
    """JWTVerifier that also requires `exp` and the tenant claim and honours `nbf`; no scope check."""

    def __init__(self, *, tenant_claim: str, **kwargs: Any):
        if kwargs.get("required_scopes"):
            raise ValueError("MemgateJWTVerifier leaves scopes to MemgateAuthProvider")
        super().__init__(**kwargs)
        self.tenant_claim = tenant_claim

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = await super().load_access_token(token)
        if access is None:
            return None  # JWTVerifier has logged why
        claims, client = access.claims, access.client_id
        if not isinstance(claims.get("exp"), (int, float)):
            log.warning("Bearer token rejected for client %s: no exp claim", client)
            return None
        nbf = claims.get("nbf")
        if isinstance(nbf, (int, float)) and nbf > time.time() + NBF_LEEWAY:
            log.warning("Bearer token rejected for client %s: not valid before nbf", client)
            return None
        tenant = claims.get(self.tenant_claim)
        if not isinstance(tenant, str) or not tenant:
            # Tenant is mandatory: without it no call could be scoped, so the token is unusable.
            log.warning(
                "Bearer token rejected for client %s: missing or empty tenant claim %r",
                client,
                self.tenant_claim,
            )
            return None
        return access


class MemgateAuthProvider(RemoteAuthProvider):
    """RemoteAuthProvider whose required scopes the HTTP layer enforces (403), not the verifier (401).

    FastMCP wraps `/mcp` in RequireAuthMiddleware(auth.required_scopes, ...), which
    answers 403 `insufficient_scope` for an authenticated token without a scope.
    FastMCP's own OIDCProxy(verify_id_token=True) uses the same split.
    """

    def __init__(self, token_verifier: TokenVerifier, *, required_scopes: list[str], **kwargs: Any):
        scopes = list(required_scopes)
        super().__init__(
            token_verifier, scopes_supported=scopes, challenge_scopes=scopes, **kwargs
        )
        self.required_scopes = scopes


def build_auth(settings: HttpAuthSettings, base_url: str) -> MemgateAuthProvider:
    """Build the auth provider for `FastMCP(auth=...)`; `base_url` is where this server listens."""
    settings.check_complete()
    public_key = settings.public_key
    if settings.public_key_file is not None:
        try:
            public_key = settings.public_key_file.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(
                f"http.auth.public_key_file {str(settings.public_key_file)!r} cannot be read: "
                f"{e.strerror}.",
                field="http.auth.public_key_file",
                hint="Point it at a PEM public key file readable by the memgate process.",
            ) from e
    try:
        verifier = MemgateJWTVerifier(
            tenant_claim=settings.tenant_claim,
            public_key=public_key,
            jwks_uri=settings.jwks_uri,
            issuer=settings.issuer,
            audience=settings.audience,
            algorithm=settings.algorithm,
        )
    except ValueError as e:
        raise ConfigError(
            f"http.auth is not usable: {e}",
            field="http.auth.algorithm",
            hint="Check algorithm and the key source in memgate.toml [http.auth].",
        ) from e
    return MemgateAuthProvider(
        verifier,
        required_scopes=settings.required_scopes,
        authorization_servers=_authorization_servers(settings),
        base_url=base_url,
        resource_base_url=settings.resource_url,
    )


def _authorization_servers(settings: HttpAuthSettings) -> list[AnyHttpUrl]:
    # RFC 9728 metadata needs at least one; the token issuer is the natural default.
    names = settings.authorization_servers or [settings.issuer]
    key = "authorization_servers" if settings.authorization_servers else "issuer"
    try:
        return [AnyHttpUrl(n) for n in names]
    except ValidationError as e:
        raise ConfigError(
            f"http.auth.{key} must hold http(s) URLs for the protected-resource metadata, "
            f"got {names!r}.",
            field="http.auth.authorization_servers",
            hint="Set http.auth.authorization_servers in memgate.toml [http.auth] "
            "or MEMGATE_HTTP__AUTH__AUTHORIZATION_SERVERS.",
        ) from e


def identity_from_access_token(token: AccessToken, settings: HttpAuthSettings) -> Identity:
    """The trusted Identity a verified token speaks for."""
    claims = token.claims or {}
    tenant = _str_claim(claims, settings.tenant_claim)
    if tenant is None:
        raise AccessDenied(
            f"The access token has no {settings.tenant_claim!r} claim.",
            field=settings.tenant_claim,
        )
    mapped = {settings.tenant_claim, settings.user_claim, settings.agent_claim,
              settings.roles_claim, "sub", *_SCOPE_CLAIMS}
    context = tuple(
        sorted(
            (k, v)
            for k, v in claims.items()
            if k not in mapped and isinstance(v, str) and len(v) <= MAX_CONTEXT_VALUE
        )
    )
    return Identity(
        tenant=tenant,
        user=_str_claim(claims, settings.user_claim),
        agent=_str_claim(claims, settings.agent_claim),
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
