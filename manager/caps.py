"""Limits the manager enforces on every result. Plain values; settings fill them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

ROWS_CEILING = 5000


class CapsSettings(BaseModel):
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
