"""The limits the manager enforces: result caps, memory-file caps, chunk sizes, the token budget.

Plain, typed values. Settings (memgate.toml, MEMGATE_*) fill the first two; the budget is
read from the tenant's `context_budget` guideline on every call. Every default is defined
here once, so the CLI, the ingest path and the tools cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import InvalidArgument

__all__ = [
    "DEFAULT_RELEVANCE_FLOOR",
    "MAX_STORED_IMAGE_BYTES",
    "ROWS_CEILING",
    "SHARE_NAMES",
    "CapsSettings",
    "ChunkSettings",
    "ContextBudget",
    "ContextSettings",
    "KbSettings",
    "MemoryFileSettings",
    "RankWeights",
    "SliceShares",
]

ROWS_CEILING = 5000
#: the largest image memgate stores (ingest, a conversation turn's image part); what a result
#: may carry is the smaller caps.max_image_bytes
MAX_STORED_IMAGE_BYTES = 64 * 1024 * 1024


class CapsSettings(BaseModel):
    """memgate.toml [caps]: what any one result may hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_rows: int = Field(25, ge=1, description="rows shown when a call does not ask")
    max_rows: int = Field(500, ge=1, le=ROWS_CEILING, description="hard maximum rows per result")
    cell_chars: int = Field(500, ge=16, le=100_000, description="text cells are clipped here")
    history_rows: int = Field(10, ge=1, le=1000, description="versions shown by lookup_entity")
    query_timeout_s: float = Field(60.0, gt=0, le=3600, description="a query is ended after this")
    query_max_chars: int = Field(32_000, ge=100, le=1_000_000, description="longest SQL text admitted")
    query_temp_mb: int = Field(
        256, ge=1, le=1_000_000, description="temporary disk one execute_query query may fill (sorts, DISTINCT)"
    )
    query_temp_total_mb: int = Field(
        1024, ge=1, le=1_000_000, description="temporary disk all running queries of one server process may fill"
    )
    result_log_chars: int = Field(
        16_000, ge=0, le=1_000_000, description="chars of each result kept in mcp_call_log.result_text"
    )
    max_image_bytes: int = Field(
        5_000_000,
        ge=1,
        le=MAX_STORED_IMAGE_BYTES,
        description="largest image a result carries (expand include_bytes, fetch_image)",
    )
    elicit_timeout_s: float = Field(
        120.0, gt=0, le=3600, description="clarify waits this long for the user's answer (2025-11-25 era)"
    )
    max_memory_chars: int = Field(
        2_000, ge=16, le=4_000, description="longest memory the remember tool may propose, in characters"
    )

    @model_validator(mode="after")
    def _default_within_max(self) -> CapsSettings:
        if self.default_rows > self.max_rows:
            raise ValueError(f"default_rows ({self.default_rows}) must be <= max_rows ({self.max_rows})")
        if self.query_temp_mb > self.query_temp_total_mb:
            raise ValueError(
                f"query_temp_mb ({self.query_temp_mb}) must be <= query_temp_total_mb ({self.query_temp_total_mb})"
            )
        return self

    def rows(self, asked: int | None) -> int:
        """The row cap for a call: what it asked for, never above max_rows."""
        return self.default_rows if asked is None else max(1, min(int(asked), self.max_rows))


class KbSettings(BaseModel):
    """memgate.toml [kb]: what the knowledge base takes in; MEMGATE_KB__MAX_IMAGE_BYTES=20000000 and so on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_image_bytes: int = Field(
        10_000_000, ge=1, le=MAX_STORED_IMAGE_BYTES, description="largest image file `memgate ingest` stores"
    )
    #: which embedder vectors come from. Changing it leaves stored chunks on the old model until
    #: `memgate reembed` re-embeds them (the vector leg reads only the current model's embeddings).
    embedder: Literal["wordllama", "minilm", "hashing"] = "wordllama"


class ContextSettings(BaseModel):
    """memgate.toml [context]: how long a context window lasts after its last call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    window_idle_s: float = Field(
        300.0, gt=0, le=7 * 86400, description="a window ends after this long without a call that used it"
    )


class MemoryFileSettings(BaseModel):
    """memgate.toml [memory_files]: the memory tool's stores; MEMGATE_MEMORY_FILES__MAX_FILES=200 and so on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_chars: int = Field(100_000, ge=1, le=10_000_000, description="longest file, in characters")
    max_files: int = Field(1_000, ge=1, le=1_000_000, description="most files in one store")
    max_store_chars: int | None = Field(None, ge=1, description="optional: all files of one store together")
    max_path_chars: int = Field(512, ge=32, le=4096, description="longest path, in UTF-8 bytes")

    @model_validator(mode="after")
    def _store_holds_a_file(self) -> MemoryFileSettings:
        if self.max_store_chars is not None and self.max_store_chars < self.max_file_chars:
            raise ValueError(
                f"max_store_chars ({self.max_store_chars}) must be >= max_file_chars ({self.max_file_chars})"
            )
        return self


class ChunkSettings(BaseModel):
    """How ingest cuts documents: chunks of at most max_tokens o200k_base tokens, overlapping."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(300, ge=16, le=4000, description="largest chunk, in o200k_base tokens")
    overlap_tokens: int = Field(40, ge=0, le=1000, description="tokens a chunk repeats from the one before")

    @model_validator(mode="after")
    def _overlap_below_max(self) -> ChunkSettings:
        if self.overlap_tokens >= self.max_tokens:
            raise ValueError(
                f"overlap_tokens ({self.overlap_tokens}) must be smaller than max_tokens ({self.max_tokens})"
            )
        return self


#: the token bound of one tool result when the tenant's context_budget guideline sets none
DEFAULT_RESULT_TOKENS = 2000
#: the calibrated relevance (kb/relevance.py) a search's best passage needs for the search to be answered
#: (a window's evidence: each passage) when the tenant's context_budget sets no relevance_floor: chosen
#: by `python3 -m bench.calibrate` on the tuning queries
DEFAULT_RELEVANCE_FLOOR = 0.33
#: leaf pages a lexical index merge (`memgate optimize`) writes per transaction: about 2 MB, tens of
#: milliseconds, so a writer waits for one step at most
LEXICAL_MERGE_PAGES = 500
#: the four variable slices of a context window, each with a share of what the fixed slices leave
SHARE_NAMES = ("durable_facts", "evidence", "recalled_history", "volatile_tail")
#: the intents whose windows admit linked history when the budget names none
DEFAULT_LINKED_HISTORY = {"comparison": True}
#: the intent of a window asked for without one (`memgate context`, the context_window prompt): an
#: everyday question ("what do we know about X", "how do I deploy"), in every budget (ContextBudget)
DEFAULT_INTENT = "general"
#: keys older budgets used, and what they are now
RENAMED_BUDGET_KEYS = {"max_window_tokens": "usable_context", "max_tool_rounds": "max_rounds"}

# strict: a guideline is JSON, and "3" is not a number of rounds
_FROZEN = ConfigDict(extra="forbid", frozen=True, strict=True)


class RankWeights(BaseModel):
    """How selection scores a memory: weights of its rerank score, confidence and recency (each 0..1)."""

    model_config = _FROZEN

    rerank: float = Field(0.60, ge=0, le=1)
    confidence: float = Field(0.25, ge=0, le=1)
    recency: float = Field(0.15, ge=0, le=1)

    @model_validator(mode="after")
    def _some_weight(self) -> RankWeights:
        if self.rerank + self.confidence + self.recency <= 0:
            raise ValueError("at least one weight must be above 0")
        return self


class SliceShares(BaseModel):
    """One intent's split of the variable part of the window; the shares sum to at most 1."""

    model_config = _FROZEN

    durable_facts: float = Field(ge=0, le=1)
    evidence: float = Field(ge=0, le=1)
    recalled_history: float = Field(ge=0, le=1)
    volatile_tail: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _sum_at_most_one(self) -> SliceShares:
        total = sum(getattr(self, n) for n in SHARE_NAMES)
        if total > 1 + 1e-9:
            raise ValueError(f"shares must sum to at most 1, got {total:g}")
        return self

    def of(self, name: str) -> float:
        return getattr(self, name)


def _general_shares() -> SliceShares:
    """The general intent's split: facts and evidence about evenly, with room for the conversation."""
    return SliceShares(durable_facts=0.30, evidence=0.35, recalled_history=0.10, volatile_tail=0.25)


def _default_shares() -> dict[str, SliceShares]:
    return {
        DEFAULT_INTENT: _general_shares(),
        "comparison": SliceShares(durable_facts=0.15, evidence=0.60, recalled_history=0.05, volatile_tail=0.20),
        "fact_check": SliceShares(durable_facts=0.40, evidence=0.25, recalled_history=0.10, volatile_tail=0.25),
    }


class ContextBudget(BaseModel):
    """The tenant's `context_budget` guideline (its content_json), typed and validated.

    `usable_context` is the model's window as far as memgate may plan it; the three
    reserves are held back for the model's answer, the tool rounds after the window and
    the host's own request overhead. What is left is charged first with the fixed slices,
    then split by the intent's `shares`; unused share passes on in `overflow_order`.
    Unknown keys are kept (a newer memgate may write them) but never read here; the two
    keys older budgets used are refused with their new names.

    Every budget has the intent DEFAULT_INTENT, the one a window asked for without an intent
    gets: a budget whose `shares` do not name it (one stored before it existed, or written
    without it) gets its default split. Naming it in `shares` sets its own.
    """

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    usable_context: int = Field(8000, ge=1, le=10_000_000)
    output_reserve: int = Field(1000, ge=0)
    tool_reserve: int = Field(2000, ge=0)
    request_overhead_reserve: int = Field(500, ge=0)
    max_rounds: int = Field(4, ge=0, le=1000)
    max_tool_result_tokens: int = Field(DEFAULT_RESULT_TOKENS, ge=1, le=1_000_000)
    #: a search whose best passage's calibrated relevance is below this shows nothing (search_memory,
    #: ChatGPT's search); a window's evidence keeps only passages that reach it; 0 shows every one
    relevance_floor: float = Field(DEFAULT_RELEVANCE_FLOOR, ge=0, le=1)
    weights: RankWeights = Field(default_factory=RankWeights)
    recency_days: float = Field(60, gt=0, le=100_000)
    shares: dict[str, SliceShares] = Field(default_factory=_default_shares, min_length=1)
    overflow_order: list[str] = Field(
        default_factory=lambda: ["evidence", "durable_facts", "volatile_tail", "recalled_history"]
    )
    #: per intent, whether its windows admit linked history (an ended version beside the memory
    #: linked to it); an intent not named is off. None: DEFAULT_LINKED_HISTORY.
    linked_history: dict[str, bool] | None = None
    #: what a tool call gets once its window's tool rounds or reserve are spent: "answer" (None, the
    #: default: the call runs, not charged, with a one-line notice) or "refuse" (one sentence, no call)
    spent_rounds: Literal["answer", "refuse"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _refuse_renamed_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for old, new in RENAMED_BUDGET_KEYS.items():
                if old in data:
                    raise _KeyError(old, f"is now {new}: rename the key")
            shares = data.get("shares")
            if isinstance(shares, dict) and shares and DEFAULT_INTENT not in shares:
                data = {**data, "shares": {**shares, DEFAULT_INTENT: _general_shares()}}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> ContextBudget:
        if sorted(self.overflow_order) != sorted(SHARE_NAMES):
            raise _KeyError(
                "overflow_order", f"must name each of {', '.join(SHARE_NAMES)} once, got {list(self.overflow_order)}"
            )
        unknown = sorted(set(self.linked_history or {}) - set(self.shares))
        if unknown:
            raise _KeyError("linked_history", f"names no intent of shares: {', '.join(unknown)}")
        if self.available <= 0:
            raise _KeyError(
                "usable_context", f"must exceed the reserves ({self.reserved} tokens), got {self.usable_context}"
            )
        return self

    @property
    def reserved(self) -> int:
        return self.output_reserve + self.tool_reserve + self.request_overhead_reserve

    @property
    def available(self) -> int:
        """Tokens for the window itself: usable_context less the three reserves."""
        return self.usable_context - self.reserved

    @property
    def intents(self) -> tuple[str, ...]:
        return tuple(self.shares)

    def shares_for(self, intent: str) -> SliceShares:
        try:
            return self.shares[intent]
        except KeyError:
            raise InvalidArgument(
                f"intent must be one of {', '.join(self.shares)}, got {intent!r}", field="intent"
            ) from None

    def links_history(self, intent: str) -> bool:
        """Whether `intent`'s windows admit linked history (opt-in; a fact check wants current facts)."""
        chosen = DEFAULT_LINKED_HISTORY if self.linked_history is None else self.linked_history
        return chosen.get(intent, False)

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        if data.get("linked_history") is None:  # unset: the default applies, and `budget set` can add to it
            data.pop("linked_history", None)
        if data.get("spent_rounds") is None:
            data.pop("spent_rounds", None)
        return data

    @classmethod
    def from_guideline(cls, data: dict[str, Any] | None) -> ContextBudget:
        """The budget a guideline's JSON describes; InvalidArgument naming the field when it is malformed."""
        try:
            return cls.model_validate(data or {})
        except ValidationError as exc:
            err = exc.errors()[0]
            ctx_error = (err.get("ctx") or {}).get("error")
            if isinstance(ctx_error, _KeyError):
                field, msg = ctx_error.field, ctx_error.reason
            else:
                field = ".".join(str(p) for p in err["loc"])
                msg = err["msg"].removeprefix("Value error, ")
            name = f"context_budget.{field}" if field else "context_budget"
            raise InvalidArgument(f"{name}: {msg}", field=name) from None


class _KeyError(ValueError):
    """A budget error that belongs to one key, though the check looks at several."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field} {reason}")
        self.field, self.reason = field, reason
