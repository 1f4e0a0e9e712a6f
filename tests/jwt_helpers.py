"""RSA keys, signed JWTs and JWKs for tests, made locally with cryptography and pyjwt."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


class KeyPair(NamedTuple):
    private_pem: str
    public_pem: str


def make_keypair() -> KeyPair:
    """A fresh 2048-bit RSA key pair as PEM text."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return KeyPair(private_pem, public_pem)


def make_token(private_key: str, *, kid: str | None = None, **claims: Any) -> str:
    """An RS256 JWT carrying exactly `claims`, signed with the PEM `private_key`."""
    headers = {"kid": kid} if kid else None
    return jwt.encode(claims, private_key, algorithm="RS256", headers=headers)


def public_jwk(public_pem: str, kid: str) -> dict[str, Any]:
    """The public key as a JWK dict with `kid`, ready for a JWKS `keys` list."""
    key = serialization.load_pem_public_key(public_pem.encode())
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key))
    return {**jwk, "kid": kid, "use": "sig", "alg": "RS256"}
