"""Settings for Streamable-HTTP bearer-token auth (the `[http.auth]` table and its sub-tables)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from memgate.manager import ConfigError

_KEY_SOURCES = ("jwks_uri", "public_key", "public_key_file")
VERIFIERS = ("jwt", "introspection", "google")
GOOGLE_ISSUER = "https://accounts.google.com"


def _where(key: str) -> str:
    return f"Set it in memgate.toml [http.auth] or MEMGATE_HTTP__AUTH__{key.upper()}."


def _where_in(table: str, key: str) -> str:
    return f"Set it in memgate.toml [http.auth.{table}] or MEMGATE_HTTP__AUTH__{table.upper()}__{key.upper()}."


class IntrospectionSettings(BaseModel):
    """RFC 7662 token introspection, for IdPs that issue opaque access tokens (Okta, Entra, Keycloak)."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    client_id: str | None = None
    client_secret: SecretStr | None = None
    client_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic"
    #: required: the introspection response's `aud` must contain it (a generic endpoint answers for any API)
    audience: str | None = None
    #: when set, a response that names another `iss` is refused; also the issuer iss_sub mappings match
    issuer: str | None = None
    #: None: the same as http.auth.required_scopes
    required_scopes: list[str] | None = None


class GoogleSettings(BaseModel):
    """Google access tokens (ya29.…) as Gemini Enterprise forwards them, checked with Google's tokeninfo."""

    model_config = ConfigDict(extra="forbid")

    #: required: the OAuth client id the token was issued to (tokeninfo's `aud`)
    audience: str | None = None
    #: Google scopes every token must carry, e.g. ["openid", "email"]; a token without them gets 401
    #: (Google tokens never carry memgate's own scopes, so http.auth.required_scopes does not apply)
    required_scopes: list[str] = []
    #: only opaque tokens starting with one of these are sent to Google (its access tokens start with
    #: "ya29."), so other IdPs' tokens never reach Google; [] sends every opaque token (after introspection)
    token_prefixes: list[str] = ["ya29."]
    tokeninfo_url: str = "https://oauth2.googleapis.com/tokeninfo"
    userinfo_url: str = "https://www.googleapis.com/oauth2/v2/userinfo"


class HttpAuthSettings(BaseModel):
    """How memgate verifies bearer tokens over HTTP, and which claims carry identity.

    Every field may be empty so that a stdio-only config validates; `check_complete()`
    (called by `build_auth`) insists on what each configured verifier needs.
    """

    model_config = ConfigDict(extra="forbid")

    #: which verifiers to try, in order: "jwt", "introspection", "google", or a list of them
    verifier: list[Literal["jwt", "introspection", "google"]] = ["jwt"]
    issuer: str | None = None
    #: audiences a JWT may carry besides this server's resource URL (RFC 8707), which is always accepted
    audience: str | list[str] | None = None
    jwks_uri: str | None = None
    public_key: str | None = None  # PEM text (or the shared secret for HS*)
    public_key_file: Path | None = None
    algorithm: str = "RS256"
    required_scopes: list[str] = []
    tenant_claim: str = "tenant"
    user_claim: str = "sub"
    agent_claim: str = "agent"
    #: the claim naming the conversation thread a token's calls belong to (windows, rounds, the wall)
    thread_claim: str = "thread"
    roles_claim: str = "roles"
    authorization_servers: list[str] = []
    resource_url: str | None = None  # public base URL advertised in RFC 9728 metadata
    #: a verified token is remembered this long at most (never past its expiry); 0 checks every request
    cache_s: int = Field(60, ge=0, le=3600)
    #: how long a verifier endpoint (introspection, tokeninfo, JWKS) may take before it counts as down
    timeout_s: float = Field(5.0, gt=0, le=60)
    #: the Retry-After a 503 carries when a verifier endpoint is down
    retry_after_s: int = Field(5, ge=1, le=3600)
    #: longer bearer tokens are refused (401) without being sent to any verifier
    max_token_bytes: int = Field(16384, ge=1024, le=1024 * 1024)
    introspection: IntrospectionSettings = Field(default_factory=IntrospectionSettings)
    google: GoogleSettings = Field(default_factory=GoogleSettings)

    @field_validator("verifier", mode="before")
    @classmethod
    def _one_or_a_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

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
        if not self.verifier or len(set(self.verifier)) != len(self.verifier):
            raise ValueError(
                f"http.auth.verifier must name each of {', '.join(VERIFIERS)} at most once and at least one, "
                f"got {self.verifier!r}."
            )
        return self

    def check_complete(self) -> None:
        """Raise ConfigError naming the first key HTTP transport needs but lacks."""
        if "jwt" in self.verifier:
            self._check_jwt()
        if "introspection" in self.verifier:
            for key in ("url", "client_id", "client_secret", "audience"):
                if not getattr(self.introspection, key):
                    raise ConfigError(
                        f'http.auth.introspection.{key} is required when http.auth.verifier includes "introspection".',
                        field=f"http.auth.introspection.{key}",
                        hint=_where_in("introspection", key),
                    )
        if "google" in self.verifier and not self.google.audience:
            raise ConfigError(
                'http.auth.google.audience is required when http.auth.verifier includes "google": '
                "the OAuth client id Gemini Enterprise signs users in with.",
                field="http.auth.google.audience",
                hint=_where_in("google", "audience"),
            )
        if not self.tenant_claim:
            raise ConfigError(
                "http.auth.tenant_claim must name the claim that carries the tenant.",
                field="http.auth.tenant_claim",
                hint=_where("tenant_claim"),
            )

    def _check_jwt(self) -> None:
        if not self.issuer:
            raise ConfigError(
                "http.auth.issuer is required for HTTP transport.",
                field="http.auth.issuer",
                hint=_where("issuer") + " To try HTTP on this machine first, see `memgate dev-token --help`.",
            )
        if not any(getattr(self, k) for k in _KEY_SOURCES):
            raise ConfigError(
                "http.auth needs a token signing key for HTTP transport: set exactly one "
                "of jwks_uri, public_key, public_key_file.",
                field="http.auth.jwks_uri",
                hint=_where("jwks_uri"),
            )

    def jwt_audiences(self, resource: str | None) -> list[str]:
        """What a JWT's `aud` may name: the configured audiences, then this server's resource URL.

        Identity providers that follow RFC 8707 (resource indicators) issue `aud` = the
        resource URL the client asked for, e.g. https://memgate.example.com/mcp.
        """
        configured = [self.audience] if isinstance(self.audience, str) else list(self.audience or [])
        return list(dict.fromkeys(a for a in [*configured, resource] if a))

    def describe(self, resource: str | None = None) -> str:
        """One line for `memgate doctor`: each verifier and what it trusts (never a secret)."""
        parts = {
            "jwt": f"jwt (issuer {self.issuer}, audience {' or '.join(self.jwt_audiences(resource))})",
            "introspection": f"introspection ({self.introspection.url}, audience {self.introspection.audience})",
            "google": f"google (audience {self.google.audience})",
        }
        return ", then ".join(parts[name] for name in self.verifier)

    def introspection_scopes(self) -> list[str]:
        scopes = self.introspection.required_scopes
        return list(self.required_scopes if scopes is None else scopes)

    def scopes_for(self, verifier: str) -> list[str]:
        """The scopes a token accepted by `verifier` must carry (403 insufficient_scope otherwise).

        Google's verifier checks its own (Google) scopes, with 401.
        """
        if verifier == "introspection":
            return self.introspection_scopes()
        if verifier == "google":
            return []
        return list(self.required_scopes)

    def default_authorization_servers(self) -> list[str]:
        """What RFC 9728 metadata names when authorization_servers is not set: the first verifier's issuer."""
        for name in self.verifier:
            issuer = {"jwt": self.issuer, "introspection": self.introspection.issuer, "google": GOOGLE_ISSUER}[name]
            if issuer:
                return [issuer]
        return []
