"""memgate.toml [database]: which backend, and where it lives."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator

APP_NAME = "memgate"


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "memgate.db"


class DatabaseSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["sqlite"] = "sqlite"
    path: Path = Field(default_factory=default_database_path)
    busy_timeout_ms: int = Field(5000, ge=0, le=600_000)

    @field_validator("path")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser()
