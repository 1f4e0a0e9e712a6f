"""Settings for Streamable-HTTP bearer-token auth (the `[http.auth]` table)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from memgate.manager import ConfigError

_KEY_SOURCES = ("jwks_uri", "public_key", "public_key_file")


def _where(key: str) -> str:
    return f"Set it in memgate.toml [http.auth] or MEMGATE_HTTP__AUTH__{key.upper()}."


class HttpAuthSettings(BaseModel):
    """How memgate verifies bearer JWTs over HTTP, and which claims carry identity.

    Every field may be empty so that a stdio-only config validates; `check_complete()`
    (called by `build_auth`) insists on issuer, audience and one key source.
    """

    model_config = ConfigDict(extra="forbid")

    issuer: str | None = None
    audience: str | None = None
    jwks_uri: str | None = None
    public_key: str | None = None  # PEM text (or the shared secret for HS*)
    public_key_file: Path | None = None
    algorithm: str = "RS256"
    required_scopes: list[str] = []
    tenant_claim: str = "tenant"
    user_claim: str = "sub"
    agent_claim: str = "agent"
    roles_claim: str = "roles"
    authorization_servers: list[str] = []
    resource_url: str | None = None  # public base URL advertised in RFC 9728 metadata

    @model_validator(mode="after")
    def _at_most_one_key_source(self) -> HttpAuthSettings:
        given = [k for k in _KEY_SOURCES if getattr(self, k)]
        if len(given) > 1:
            # ValueError so pydantic reports it with the other validation errors.
            raise ValueError(
                f"http.auth sets {' and '.join(given)}; set exactly one of "
                "jwks_uri, public_key, public_key_file. Remove the others from "
                "memgate.toml [http.auth] or the MEMGATE_HTTP__AUTH__* environment."
            )
        return self

    def check_complete(self) -> None:
        """Raise ConfigError naming the first key HTTP transport needs but lacks."""
        for key in ("issuer", "audience"):
            if not getattr(self, key):
                raise ConfigError(
                    f"http.auth.{key} is required for HTTP transport.",
                    field=f"http.auth.{key}",
                    hint=_where(key),
                )
        if not any(getattr(self, k) for k in _KEY_SOURCES):
            raise ConfigError(
                "http.auth needs a token signing key for HTTP transport: set exactly one "
                "of jwks_uri, public_key, public_key_file.",
                field="http.auth.jwks_uri",
                hint=_where("jwks_uri"),
            )
        if not self.tenant_claim:
            raise ConfigError(
                "http.auth.tenant_claim must name the JWT claim that carries the tenant.",
                field="http.auth.tenant_claim",
                hint=_where("tenant_claim"),
            )
