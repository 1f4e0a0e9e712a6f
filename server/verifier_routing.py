"""Which verifier judges a bearer token: chosen by the token's shape and issuer, never by trying all.

With several verifiers on one endpoint, trying each in turn sends tokens where they do
not belong (a JWT memgate already refused, to an introspection endpoint; an Okta token,
to Google) and lets an outage of one verifier turn another's clear 401 into a 503. The
route, in this order:

1. A JWT (three base64url parts, a header with `alg`) whose `iss` is http.auth.issuer
   goes to the JWT verifier alone; one whose `iss` is http.auth.introspection.issuer goes
   to introspection alone. Expired, wrong audience, bad signature: 401 from that verifier,
   no other is asked.
2. A JWT of another issuer goes to introspection only when introspection has no issuer
   configured (its endpoint may vouch for any token of its IdP); else it is refused unasked.
3. An opaque token that starts with one of http.auth.google.token_prefixes (Google access
   tokens start with `ya29.`) goes to Google alone; any other opaque token goes to
   introspection alone. With token_prefixes empty, every opaque token goes to
   introspection and then Google, in the order http.auth.verifier lists them.

A token with no route is refused (401) without any verifier being asked.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import Any

from fastmcp.server.auth import AccessToken, TokenVerifier

from .auth_settings import HttpAuthSettings
from .verifiers import looks_like_jwt

__all__ = ["RoutedVerifiers", "unverified_issuer"]

log = logging.getLogger("memgate.server.auth")


def unverified_issuer(token: str) -> str | None:
    """The `iss` a JWT claims, read without checking anything: only to choose who checks it."""
    try:
        part = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (IndexError, binascii.Error, ValueError, UnicodeDecodeError):
        return None
    iss = claims.get("iss") if isinstance(claims, dict) else None
    return iss if isinstance(iss, str) else None


class RoutedVerifiers(TokenVerifier):
    """The configured verifiers behind one `verify_token`, each token routed as the module says."""

    def __init__(self, verifiers: dict[str, Any], settings: HttpAuthSettings):
        super().__init__()
        self.verifiers = verifiers
        self.settings = settings
        self.issuers: dict[str, str] = {}
        if "jwt" in verifiers and settings.issuer:
            self.issuers[settings.issuer] = "jwt"
        if "introspection" in verifiers and settings.introspection.issuer:
            self.issuers.setdefault(settings.introspection.issuer, "introspection")

    def route(self, token: str) -> list[str]:
        """The names of the verifiers that may judge `token`, in the order they are asked."""
        if looks_like_jwt(token):
            named = self.issuers.get(unverified_issuer(token) or "")
            if named is not None:
                return [named]
            open_introspection = "introspection" in self.verifiers and not self.settings.introspection.issuer
            return ["introspection"] if open_introspection else []
        prefixes = tuple(self.settings.google.token_prefixes)
        if "google" in self.verifiers and prefixes:
            return ["google"] if token.startswith(prefixes) else [n for n in self.verifiers if n == "introspection"]
        return [n for n in self.verifiers if n in ("introspection", "google")]

    async def verify_token(self, token: str) -> AccessToken | None:
        names = self.route(token)
        if not names:
            log.warning(
                "Bearer token refused unasked: %s no configured verifier judges",
                f"a JWT from issuer {unverified_issuer(token)!r}" if looks_like_jwt(token) else "an opaque token",
            )
            return None
        for name in names:
            access = await self.verifiers[name].verify_token(token)
            if access is not None:
                return access
        return None
