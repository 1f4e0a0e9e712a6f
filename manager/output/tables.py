"""Query results as compact text: one metadata line, then a markdown table.

    rows: 2 | more exist: no | tokens: 37
    | id | subject |
    |---|---|
    | 1 | Ada |
    | 2 | Grace |

The metadata line uses `records.metadata_line`, like every other result. `tokens` is
the o200k_base count of the whole text, this line included, so the model knows exactly
what the result cost. With no rows the body is `(no rows)` and the metadata
line names the columns, which the missing header would otherwise hide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import InvalidArgument
from .cells import escape_text, shape_cell
from .records import clip, metadata_line, with_token_count

__all__ = ["render_table"]

_CORE_KEYS = {"rows", "more_exist", "columns", "tokens"}
#: a column named like this holds float32 embedding bytes even when declared BLOB
_EMBEDDING_COLUMN = "embedding"


def render_table(
    columns: list[str],
    rows: list[tuple],
    *,
    truncated: bool,
    declared_types: Sequence[str | None] | None = None,
    max_chars: int = 500,
    extra: Mapping[str, object] | None = None,
) -> str:
    """Metadata line plus markdown table; `truncated` means more rows exist than shown.

    `declared_types` lines up with `columns` (None where unknown). `extra` adds
    `key: value` parts to the metadata line before `tokens`.
    """
    if not columns:
        raise InvalidArgument("a result table needs at least one column.", field="columns")
    types = list(declared_types) if declared_types is not None else [None] * len(columns)
    if len(types) != len(columns):
        raise InvalidArgument(
            f"declared_types has {len(types)} entries for {len(columns)} columns.",
            field="declared_types",
        )
    types = [_effective_type(name, declared) for name, declared in zip(columns, types)]
    header = [escape_text(clip(str(name), max_chars)) for name in columns]

    if rows:
        lines = [_row(header), "|" + "---|" * len(columns)]
        for number, row in enumerate(rows, start=1):
            if len(row) != len(columns):
                raise InvalidArgument(
                    f"row {number} has {len(row)} values for {len(columns)} columns.",
                    field="rows",
                )
            lines.append(_row([shape_cell(v, t, max_chars=max_chars) for v, t in zip(row, types)]))
        body = "\n".join(lines)
    else:
        body = "(no rows)"

    parts: dict[str, object] = {
        "rows": len(rows),
        "more_exist": "yes" if truncated else "no",
        "columns": None if rows else ", ".join(header),
    }
    for key, value in (extra or {}).items():
        if key in _CORE_KEYS:
            raise InvalidArgument(f"extra cannot set {key!r}; render_table sets it.", field="extra")
        parts[key] = None if value is None else escape_text(str(value))
    return with_token_count(lambda tokens: metadata_line(**parts, tokens=tokens), body)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _effective_type(column: str, declared: str | None) -> str | None:
    # SQLite stores embeddings as float32 BLOBs; the column name is the only sign.
    if str(column).lower() == _EMBEDDING_COLUMN and "VECTOR" not in (declared or "").upper():
        return "VECTOR"
    return declared
