"""A local token issuer, for trying the HTTP transport on one machine without an identity provider.

LOCAL USE ONLY. `memgate dev-token` makes an RSA key pair once, in the user data directory
(`dev-issuer/`, the private key readable by its owner only), and signs short-lived JWTs with it:
issuer DEV_ISSUER, audience DEV_AUDIENCE, a tenant, a user and the scopes asked for.
`memgate serve --transport http` verifies that issuer's tokens only when all of these hold:

- [http.auth] configures no JWT issuer and no key of its own (a real configuration always wins);
- the server is local: `server.host` is a loopback address and `server.base_url`, if set, names a
  loopback host too (a loopback server behind a public proxy is not local);
- the key pair exists (`memgate dev-token` made it).

Anywhere else the key is ignored (the server says so in its log) and `memgate dev-token` refuses
to sign. The tokens pass the same checks as any JWT (signature, expiry, tenant gate, scopes).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import platformdirs

if TYPE_CHECKING:
    from .settings import Settings

log = logging.getLogger("memgate.server.auth")

__all__ = [
    "DEV_AUDIENCE",
    "DEV_ISSUER",
    "ensure_key_pair",
    "is_local",
    "key_dir",
    "sign",
    "with_dev_issuer",
]

DEV_ISSUER = "http://127.0.0.1/memgate-dev-token"
DEV_AUDIENCE = "memgate-dev-token"
PRIVATE_KEY, PUBLIC_KEY = "private.pem", "public.pem"


def key_dir() -> Path:
    """Where the key pair lives: `dev-issuer/` in the user data directory (beside the default database)."""
    return Path(platformdirs.user_data_dir("memgate")) / "dev-issuer"


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_local(settings: Settings) -> str | None:
    """None when the HTTP server is local (loopback only); else why not, naming the setting."""
    server = settings.server
    if not _loopback(server.host):
        return f"server.host is {server.host}, not a loopback address"
    if server.base_url and not _loopback(urlsplit(server.base_url).hostname):
        return f"server.base_url is {server.base_url}, not on a loopback host"
    return None


def _configured(settings: Settings) -> bool:
    auth = settings.http.auth
    return "jwt" not in auth.verifier or bool(auth.issuer or auth.jwks_uri or auth.public_key or auth.public_key_file)


def ensure_key_pair() -> tuple[str, Path]:
    """The private key's PEM text and the public key's file, made on first use."""
    folder = key_dir()
    private, public = folder / PRIVATE_KEY, folder / PUBLIC_KEY
    if not (private.exists() and public.exists()):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        public.write_bytes(
            key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        )
    return private.read_text(encoding="utf-8"), public


def sign(
    private_pem: str,
    *,
    tenant: str,
    user: str,
    agent: str | None,
    thread: str | None,
    scopes: list[str],
    ttl_s: int,
    settings: Settings,
) -> str:
    """A JWT of the local issuer for this tenant and user, with the claims [http.auth] reads."""
    import jwt

    auth, now = settings.http.auth, int(time.time())
    claims: dict[str, object] = {
        "iss": DEV_ISSUER,
        "aud": DEV_AUDIENCE,
        "sub": user,
        auth.tenant_claim: tenant,
        "iat": now,
        "exp": now + ttl_s,
    }
    if auth.user_claim != "sub":
        claims[auth.user_claim] = user
    if agent:
        claims[auth.agent_claim] = agent
    if thread:
        claims[auth.thread_claim] = thread
    if scopes:
        claims["scope"] = " ".join(scopes)
    return jwt.encode(claims, private_pem, algorithm="RS256")


def with_dev_issuer(settings: Settings) -> Settings:
    """`settings` with the local issuer as [http.auth] when it applies (module docstring); else unchanged."""
    public = key_dir() / PUBLIC_KEY
    if _configured(settings) or not public.exists():
        return settings
    if (why := is_local(settings)) is not None:
        log.warning("memgate dev-token's local issuer is not used: %s (it serves loopback only)", why)
        return settings
    log.warning(
        "accepting tokens of memgate dev-token's local issuer (key %s): for local use only; "
        "configure [http.auth] for anything else",
        public,
    )
    auth = settings.http.auth.model_copy(
        update={"issuer": DEV_ISSUER, "audience": DEV_AUDIENCE, "public_key_file": public, "algorithm": "RS256"}
    )
    return settings.model_copy(update={"http": settings.http.model_copy(update={"auth": auth})})
