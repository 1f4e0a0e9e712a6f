"""memgate settings: one TOML file plus MEMGATE_* environment overrides, built on demand.

Precedence, highest first: the command line's own flags (--db, --tenant, ...), the
environment (MEMGATE_CAPS__MAX_ROWS=100), the TOML file (--config, else
$MEMGATE_CONFIG, else the user config dir's memgate.toml), then defaults. Each layer is a
pydantic-settings source. A list setting takes JSON or a comma-separated list from the
environment (MEMGATE_HTTP__AUTH__REQUIRED_SCOPES=memory:read,memory:write). Unknown keys
are errors, so a misspelt key never passes silently; every error names the key, the bad
value and both places to fix it.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, get_origin

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from memgate.manager import (
    CapsSettings,
    ConfigError,
    ContextSettings,
    DatabaseSettings,
    Identity,
    KbSettings,
    MemoryFileSettings,
)

from .auth_settings import HttpAuthSettings
from .concurrency import WORKER_THREADS

APP_NAME = "memgate"
#: how long a handshake-era MCP session may sit idle before the SDK closes it (the SDK's own default)
DEFAULT_SESSION_IDLE_SECONDS = 30 * 60


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "memgate.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServerSettings(_Section):
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    #: the public base URL of the HTTP server (for OAuth metadata); default http://host:port
    base_url: str | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    #: HTTP request bodies over this are refused with 413 before the MCP app reads them, and
    #: longer stdio lines with JSON-RPC error -32600 (server/stdio_transport.py)
    max_request_bytes: int = Field(4 * 1024 * 1024, ge=1024, le=1024 * 1024 * 1024)
    #: the HTTP parser reads request heads up to this whole, so an oversized token gets an answer, not a reset
    max_header_bytes: int = Field(256 * 1024, ge=16 * 1024, le=16 * 1024 * 1024)
    #: browser origins allowed to call the HTTP server (CORS); any other Origin gets 403. No Origin is fine.
    allowed_origins: list[str] = []
    #: Host names the HTTP server answers besides loopback and base_url's host; any other Host gets 421
    allowed_hosts: list[str] = []
    #: serve legacy-era (2025-11-25) clients without server-side session state, so any replica or
    #: worker can answer any request; such clients lose server-initiated requests (elicitation falls
    #: back to "tell the model to ask"). Modern-era (2026-07-28) clients are stateless either way.
    stateless: bool = False
    #: HTTP worker processes (`memgate serve --workers N`); more than one implies stateless
    workers: int = Field(1, ge=1, le=64)
    #: handshake-era (2025-11-25) MCP sessions one principal may hold open; another gets 429
    max_sessions_per_principal: int = Field(32, ge=1, le=10000)
    #: a handshake-era session with no request in flight (an open GET stream counts) this long is
    #: closed by the SDK (set from here) and frees its slot; its Mcp-Session-Id then answers 404
    session_idle_seconds: float = Field(DEFAULT_SESSION_IDLE_SECONDS, ge=1, le=7 * 24 * 3600)
    #: calls whose database work runs at once per HTTP process (worker threads); the next waits in the
    #: event loop. More threads than this took turns at one GIL and cost more CPU per call (server/concurrency.py)
    worker_threads: int = Field(WORKER_THREADS, ge=1, le=64)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.upper() if isinstance(v, str) else v


class StdioIdentitySettings(_Section):
    """The trusted identity of a stdio server: whoever launches the process vouches for it."""

    tenant: str | None = Field(None, min_length=1, max_length=200)
    user: str | None = Field(None, min_length=1, max_length=200)
    agent: str | None = Field(None, min_length=1, max_length=200)
    thread: str | None = Field(None, min_length=1, max_length=200)
    scopes: list[str] = []
    roles: list[str] = []

    def identity(self) -> Identity:
        if not self.tenant:
            raise ConfigError(
                "stdio.tenant is not set: a stdio server needs a trusted tenant from its launch configuration.",
                field="stdio.tenant",
                hint="Pass --tenant (`memgate serve --tenant acme`), set [stdio] tenant in memgate.toml, "
                "or MEMGATE_STDIO__TENANT; `memgate serve --demo` serves the demo tenant acme.",
            )
        return Identity(
            tenant=self.tenant,
            user=self.user,
            agent=self.agent,
            thread=self.thread,
            principal=f"stdio:{self.user or self.agent or self.tenant}",
            scopes=frozenset(self.scopes),
            roles=frozenset(self.roles),
        )


class HttpSettings(_Section):
    auth: HttpAuthSettings = Field(default_factory=HttpAuthSettings)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMGATE_", env_nested_delimiter="__", extra="forbid")

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    stdio: StdioIdentitySettings = Field(default_factory=StdioIdentitySettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    caps: CapsSettings = Field(default_factory=CapsSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    memory_files: MemoryFileSettings = Field(default_factory=MemoryFileSettings)
    kb: KbSettings = Field(default_factory=KbSettings)

    @classmethod
    def settings_customise_sources(
        cls, settings_cls, init_settings, env_settings, dotenv_settings, file_secret_settings
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Highest first: the command line's flags (init kwargs), the environment, the file.
        return (
            init_settings,
            _ListFriendlyEnvSource(settings_cls),
            TomlConfigSettingsSource(settings_cls, toml_file=_toml_file.get()),
        )


#: the TOML file the Settings being built read (a source is chosen per class, not per call)
_toml_file: ContextVar[Path | None] = ContextVar("memgate_toml_file", default=None)


class _ListFriendlyEnvSource(EnvSettingsSource):
    """MEMGATE_* variables, where a list may also be written `a,b,c` instead of JSON."""

    def decode_complex_value(self, field_name: str, field: FieldInfo | None, value: Any) -> Any:
        try:
            # pydantic-settings itself passes None for a nested value, despite its annotation
            return super().decode_complex_value(field_name, field, value)  # type: ignore[arg-type]
        except ValueError:
            if field is not None and get_origin(field.annotation) in (list, tuple, set, frozenset):
                return [part.strip() for part in value.split(",") if part.strip()]
            # Not JSON: hand the text on, so validation names the key and the value.
            return value


def find_config(explicit: str | Path | None) -> Path | None:
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get("MEMGATE_CONFIG"):
        return Path(os.environ["MEMGATE_CONFIG"]).expanduser()
    candidate = default_config_path()
    return candidate if candidate.exists() else None


def load_settings(config: str | Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from the config file, the environment and explicit overrides (dotted keys)."""
    path = find_config(config)
    if path is not None and not path.is_file():
        raise ConfigError(
            f"config file {path} does not exist.", hint="Pass an existing file to --config, or unset MEMGATE_CONFIG."
        )
    flags: dict[str, Any] = {}
    for dotted, value in overrides.items():
        if value is None:
            continue
        section, key = dotted.split(".", 1)
        flags.setdefault(section, {})[key] = value
    token = _toml_file.set(path)
    try:
        settings = Settings(**flags)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}.") from None
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}.") from None
    except SettingsError as exc:
        raise ConfigError(f"Invalid settings: {exc}. Fix it in memgate.toml or the MEMGATE_* environment.") from None
    finally:
        _toml_file.reset(token)
    settings._source = path  # type: ignore[attr-defined]
    return settings


#: settings memgate once read, and what took their place
RETIRED_SETTINGS = {
    "caps.search_min_cosine": "ChatGPT's search now keeps what reaches the tenant's relevance floor, like "
    "search_memory (`memgate budget set -t TENANT relevance_floor=0.33`; docs/tools.md).",
}


def _explain(exc: ValidationError, path: Path | None) -> str:
    where = f"memgate.toml ({path})" if path else "memgate.toml"
    lines = []
    for err in exc.errors():
        # a list item's index is not part of the key a user writes
        loc = [str(p) for p in err["loc"] if not isinstance(p, int)]
        key = ".".join(loc)
        section = ".".join(loc[:-1]) or loc[0]
        env = "MEMGATE_" + "__".join(p.upper() for p in loc)
        if err["type"] == "extra_forbidden" and key in RETIRED_SETTINGS:
            lines.append(f"{key} is no longer a memgate setting: {RETIRED_SETTINGS[key]} Remove it from {where}.")
            continue
        if err["type"] == "extra_forbidden":
            lines.append(
                f"{key} is not a memgate setting. Check its spelling in {where} [{section}] "
                f"or the environment variable {env}."
            )
            continue
        got = err.get("input")
        got_text = "" if isinstance(got, dict) else f", got {got!r}"
        lines.append(f"{key}: {err['msg']}{got_text}. Fix it in {where} [{section}] or unset {env}.")
    return "Invalid settings:\n  " + "\n  ".join(lines)
