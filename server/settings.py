"""memgate settings: one TOML file plus MEMGATE_* environment overrides, built on demand.

Precedence, highest first: environment (MEMGATE_CAPS__MAX_ROWS=100), the TOML
file (--config, else $MEMGATE_CONFIG, else the user config dir's memgate.toml),
then defaults. Unknown keys are errors, so a misspelt key never passes silently.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from memgate.manager import CapsSettings, ConfigError, DatabaseSettings, Identity, MemoryFileSettings

from .auth_settings import HttpAuthSettings

APP_NAME = "memgate"


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
                hint="Pass `memgate serve --tenant T`, set [stdio] tenant in memgate.toml, "
                     "or MEMGATE_STDIO__TENANT. `memgate serve --demo` uses the demo tenant acme.")
        return Identity(tenant=self.tenant, user=self.user, agent=self.agent, thread=self.thread,
                        principal=f"stdio:{self.user or self.agent or self.tenant}",
                        scopes=frozenset(self.scopes), roles=frozenset(self.roles))


class HttpSettings(_Section):
    auth: HttpAuthSettings = Field(default_factory=HttpAuthSettings)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMGATE_", env_nested_delimiter="__", extra="forbid")

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    stdio: StdioIdentitySettings = Field(default_factory=StdioIdentitySettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    caps: CapsSettings = Field(default_factory=CapsSettings)
    memory_files: MemoryFileSettings = Field(default_factory=MemoryFileSettings)

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings) -> tuple[PydanticBaseSettingsSource, ...]:
        # The file's values arrive as init kwargs; the environment overrides them.
        return (env_settings, init_settings)


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
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist.",
                              hint="Pass an existing file to --config, or unset MEMGATE_CONFIG.") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}.") from None
    for dotted, value in overrides.items():
        if value is None:
            continue
        section, key = dotted.split(".", 1)
        data.setdefault(section, {})[key] = value
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, path)) from None
    settings._source = path  # type: ignore[attr-defined]
    return settings


def _explain(exc: ValidationError, path: Path | None) -> str:
    where = f"memgate.toml ({path})" if path else "memgate.toml"
    lines = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        key = ".".join(loc)
        section = ".".join(loc[:-1]) or loc[0]
        env = "MEMGATE_" + "__".join(p.upper() for p in loc)
        if err["type"] == "extra_forbidden":
            lines.append(f"{key} is not a memgate setting. Check its spelling in {where} [{section}] "
                         f"or the environment variable {env}.")
            continue
        got = err.get("input")
        got_text = "" if isinstance(got, dict) else f", got {got!r}"
        lines.append(f"{key}: {err['msg']}{got_text}. Fix it in {where} [{section}] or unset {env}.")
    return "Invalid settings:\n  " + "\n  ".join(lines)


