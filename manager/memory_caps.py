"""Limits on memory-file stores (the `memory` tool). Plain values; settings fill them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class MemoryFileSettings(BaseModel):
    """memgate.toml [memory_files]; MEMGATE_MEMORY_FILES__MAX_FILES=200 and so on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_chars: int = Field(100_000, ge=1, le=10_000_000, description="longest file, in characters")
    max_files: int = Field(1_000, ge=1, le=1_000_000, description="most files in one store")
    max_store_chars: int | None = Field(None, ge=1, description="optional: all files of one store together")
    max_path_chars: int = Field(512, ge=32, le=4096, description="longest path, in UTF-8 bytes")

    @model_validator(mode="after")
    def _store_holds_a_file(self) -> "MemoryFileSettings":
        if self.max_store_chars is not None and self.max_store_chars < self.max_file_chars:
            raise ValueError(f"max_store_chars ({self.max_store_chars}) must be >= max_file_chars "
                             f"({self.max_file_chars})")
        return self
