"""The bearer-token verifiers memgate configures: JWT, RFC 7662 introspection, Google tokeninfo.

Each is FastMCP's own verifier with what memgate needs on top: JWTs must carry `exp`
and may not be dated in the future (`nbf`, `iat`); introspection responses are checked
for `aud` (a generic introspection endpoint answers for every API of the IdP), `iss`
and `nbf`; Google tokens need their profile (hosted domain, email) as well as
tokeninfo's verdict. Every verifier's HTTP client records outages (outage.py), and
every verifier returns a VerifiedToken: FastMCP's AccessToken plus which verifier
accepted it and the attributes tenant mapping may key on. Nothing here decides the
tenant; the auth provider and the tenant gate do.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from typing import Any

from fastmcp.server.auth import AccessToken
from fastmcp.server.auth.providers.google import GoogleTokenVerifier
from fastmcp.server.auth.providers.introspection import IntrospectionTokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier

from memgate.manager import TokenAttributes

from .auth_settings import GOOGLE_ISSUER, HttpAuthSettings
from .outage import recording_client, watch

__all__ = [
    "CLOCK_LEEWAY",
    "MemgateGoogleVerifier",
    "MemgateIntrospectionVerifier",
    "MemgateJWTVerifier",
    "VerifiedToken",
    "build_verifiers",
    "looks_like_jwt",
]

log = logging.getLogger("memgate.server.auth")

#: seconds an `nbf` or `iat` may lie in the future: IdP and server clocks drift a little
CLOCK_LEEWAY = 30
#: the endpoints FastMCP's GoogleTokenVerifier calls (hard-coded there)
GOOGLE_TOKENINFO = "https://oauth2.googleapis.com/tokeninfo"
GOOGLE_USERINFO = "https://www.googleapis.com/oauth2/v2/userinfo"


class VerifiedToken(AccessToken):
    """A token a memgate verifier accepted: which one, and what it vouches for.

    `tenant` and `mapped_user` are filled in by the tenant gate once the tenant is decided.
    """

    verifier: str = ""
    attributes: dict[str, str] = {}
    tenant: str | None = None
    mapped_user: str | None = None


def _verified(
    access: AccessToken, verifier: str, attributes: TokenAttributes, claims: dict[str, Any] | None = None
) -> VerifiedToken:
    data = access.model_dump()
    if claims is not None:
        data["claims"] = claims
    return VerifiedToken(**data, verifier=verifier, attributes=attributes.as_dict())


def _client(access: AccessToken) -> str:
    return access.original_client_id or access.client_id


def _text(claims: dict[str, Any], name: str) -> str | None:
    value = claims.get(name)
    return value if isinstance(value, str) and value else None


def _verified_email_domain(claims: dict[str, Any]) -> str | None:
    """The email's domain, only when the verifier says the address is verified (`true`, or Google's "true")."""
    email, verified = _text(claims, "email"), claims.get("email_verified")
    if email is None or "@" not in email or verified not in (True, "true"):
        return None
    return email.rsplit("@", 1)[1].lower() or None


def _in_future(claims: dict[str, Any], name: str) -> bool:
    value = claims.get(name)
    return isinstance(value, (int, float)) and value > time.time() + CLOCK_LEEWAY


def looks_like_jwt(token: str) -> bool:
    """Three dot-separated parts whose first is a base64url JSON header naming an `alg`."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0]:
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and "alg" in header


class MemgateJWTVerifier(JWTVerifier):
    """JWTVerifier that also requires `exp` and refuses `nbf` or `iat` in the future; no scope check."""

    def __init__(self, **kwargs: Any):
        if kwargs.get("required_scopes"):
            raise ValueError("MemgateJWTVerifier leaves scopes to MemgateAuthProvider")
        super().__init__(**kwargs)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = await super().load_access_token(token)
        if access is None:
            return None  # JWTVerifier has logged why
        claims, client = access.claims, access.client_id
        if not isinstance(claims.get("exp"), (int, float)):
            log.warning("Bearer token rejected for client %s: no exp claim", client)
            return None
        for name, meaning in (("nbf", "not valid before nbf"), ("iat", "issued in the future (iat)")):
            if _in_future(claims, name):
                log.warning("Bearer token rejected for client %s: %s", client, meaning)
                return None
        return _verified(
            access,
            "jwt",
            TokenAttributes(
                iss=_text(claims, "iss"),
                sub=_text(claims, "sub"),
                client_id=_text(claims, "client_id") or _text(claims, "azp"),
                email_domain=_verified_email_domain(claims),
            ),
        )


class MemgateIntrospectionVerifier(IntrospectionTokenVerifier):
    """RFC 7662 introspection with a mandatory audience, and `iss` and `nbf` checked when present."""

    def __init__(self, *, issuer: str | None, **kwargs: Any):
        if not kwargs.get("audience"):
            raise ValueError("MemgateIntrospectionVerifier needs an audience")
        super().__init__(**kwargs)
        self.issuer = issuer

    async def verify_token(self, token: str) -> AccessToken | None:
        access = await super().verify_token(token)  # active, exp, aud and scopes checked there
        if access is None:
            return None
        claims, client = access.claims, access.client_id
        iss = claims.get("iss")
        if self.issuer and iss is not None and iss != self.issuer:
            log.warning("Introspected token rejected for client %s: issuer %r is not %r", client, iss, self.issuer)
            return None
        if _in_future(claims, "nbf"):
            log.warning("Introspected token rejected for client %s: not valid before nbf", client)
            return None
        return _verified(
            access,
            "introspection",
            TokenAttributes(
                iss=self.issuer or _text(claims, "iss") or self.introspection_url,
                sub=_text(claims, "sub"),
                client_id=_text(claims, "client_id"),
                email_domain=_verified_email_domain(claims),
            ),
        )


class MemgateGoogleVerifier(GoogleTokenVerifier):
    """Google's tokeninfo check (audience mandatory), plus the profile: hosted domain and verified email.

    A JWT is never sent to Google: when JWTs and Google tokens share an endpoint, a JWT
    the JWT verifier refused is not Google's to judge. When tokeninfo accepts a token
    but its profile cannot be fetched (userinfo down), the token is not accepted either,
    so the hosted domain is never guessed; the outage makes the answer a 503.
    """

    async def verify_token(self, token: str) -> AccessToken | None:
        if looks_like_jwt(token):
            return None
        with watch() as outages:
            access = await super().verify_token(token)
        if access is None or outages:
            return None
        claims = dict(access.claims)
        profile = claims.get("google_user_data") or {}
        hd = profile.get("hd") if isinstance(profile, dict) else None
        claims.update(
            iss=GOOGLE_ISSUER,
            email_verified=claims.get("email_verified") in (True, "true"),
            hd=hd if isinstance(hd, str) and hd else None,
        )
        return _verified(
            access,
            "google",
            TokenAttributes(
                iss=GOOGLE_ISSUER,
                sub=_text(claims, "sub"),
                client_id=_text(claims, "aud"),
                hd=claims["hd"],
                email_domain=_verified_email_domain(claims),
            ),
            claims=claims,
        )


def build_verifiers(
    settings: HttpAuthSettings, public_key: str | None, *, resource: str | None = None
) -> dict[str, Any]:
    """The configured verifiers by name, in the order they are tried.

    A JWT's audience may be any configured one or `resource`, this server's resource URL (RFC 8707).
    """
    timeout = settings.timeout_s
    built: dict[str, Any] = {}
    for name in settings.verifier:
        if name == "jwt":
            built[name] = MemgateJWTVerifier(
                public_key=public_key,
                jwks_uri=settings.jwks_uri,
                issuer=settings.issuer,
                audience=settings.jwt_audiences(resource),
                algorithm=settings.algorithm,
                http_client=recording_client(timeout) if settings.jwks_uri else None,
            )
        elif name == "introspection":
            s = settings.introspection
            built[name] = MemgateIntrospectionVerifier(
                introspection_url=s.url,
                client_id=s.client_id,
                client_secret=s.client_secret.get_secret_value() if s.client_secret else "",
                client_auth_method=s.client_auth_method,
                audience=s.audience,
                issuer=s.issuer,
                http_client=recording_client(timeout),
            )
        else:
            g = settings.google
            endpoints = {
                k: v for k, v in ((GOOGLE_TOKENINFO, g.tokeninfo_url), (GOOGLE_USERINFO, g.userinfo_url)) if k != v
            }
            built[name] = MemgateGoogleVerifier(
                audience=g.audience,
                required_scopes=g.required_scopes or None,
                http_client=recording_client(timeout, endpoints),
            )
    return built
