"""The limits the manager enforces: result caps, memory-file caps, chunk sizes, the token budget.

Plain, typed values. Settings (memgate.toml, MEMGATE_*) fill the first two; the budget is
read from the tenant's `context_budget` guideline on every call. Every default is defined
here once, so the CLI, the ingest path and the tools cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import InvalidArgument

__all__ = ["ROWS_CEILING", "CapsSettings", "ChunkSettings", "ContextBudget", "MemoryFileSettings"]

ROWS_CEILING = 5000


class CapsSettings(BaseModel):
    """memgate.toml [caps]: what any one result may hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_rows: int = Field(25, ge=1, description="rows shown when a call does not ask")
    max_rows: int = Field(500, ge=1, le=ROWS_CEILING, description="hard maximum rows per result")
    cell_chars: int = Field(500, ge=16, le=100_000, description="text cells are clipped here")
    history_rows: int = Field(10, ge=1, le=1000, description="versions shown by lookup_entity")
    query_timeout_s: float = Field(60.0, gt=0, le=3600, description="a query is ended after this")
    query_max_chars: int = Field(32_000, ge=100, le=1_000_000, description="longest SQL text admitted")
    result_log_chars: int = Field(16_000, ge=0, le=1_000_000,
                                  description="chars of each result kept in mcp_call_log.result_text")

    @model_validator(mode="after")
    def _default_within_max(self) -> "CapsSettings":
        if self.default_rows > self.max_rows:
            raise ValueError(f"default_rows ({self.default_rows}) must be <= max_rows ({self.max_rows})")
        return self

    def rows(self, asked: int | None) -> int:
        """The row cap for a call: what it asked for, never above max_rows."""
        return self.default_rows if asked is None else max(1, min(int(asked), self.max_rows))


class MemoryFileSettings(BaseModel):
    """memgate.toml [memory_files]: the memory tool's stores; MEMGATE_MEMORY_FILES__MAX_FILES=200 and so on."""

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


class ChunkSettings(BaseModel):
    """How ingest cuts documents: chunks of at most max_tokens o200k_base tokens, overlapping."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(300, ge=16, le=4000, description="largest chunk, in o200k_base tokens")
    overlap_tokens: int = Field(40, ge=0, le=1000, description="tokens a chunk repeats from the one before")

    @model_validator(mode="after")
    def _overlap_below_max(self) -> "ChunkSettings":
        if self.overlap_tokens >= self.max_tokens:
            raise ValueError(f"overlap_tokens ({self.overlap_tokens}) must be smaller than max_tokens "
                             f"({self.max_tokens})")
        return self


#: the token bound of one tool result when the tenant's context_budget guideline sets none
DEFAULT_RESULT_TOKENS = 2000


class ContextBudget(BaseModel):
    """The tenant's `context_budget` guideline (its content_json), typed.

    Unknown keys are kept (a newer memgate may write them) but never read here.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    max_tool_result_tokens: int = Field(DEFAULT_RESULT_TOKENS, ge=1, le=1_000_000)
    max_window_tokens: int | None = Field(None, ge=1)
    max_tool_rounds: int | None = Field(None, ge=0)

    @classmethod
    def from_guideline(cls, data: dict[str, Any] | None) -> "ContextBudget":
        """The budget a guideline's JSON describes; InvalidArgument naming the field when it is malformed."""
        try:
            return cls.model_validate(data or {})
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise InvalidArgument(f"context_budget.{field}: {err['msg']}", field=f"context_budget.{field}") from None
