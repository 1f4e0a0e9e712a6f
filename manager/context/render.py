"""The window's text: the stable slices, then the metadata line, the other slices, the question last.

    <slice name="guidelines">
    <memory id="..." type="guideline" status="current" key="..." version="1">
    <content>...</content>
    </memory>
    </slice>
    <slice name="persona">...</slice>
    <slice name="tool_surface">...</slice>
    context window: fact_check | evaluated at: ... | budget: 3100 tokens | expand: ...
    <slice name="durable_facts">...</slice>
    ...
    <question>...</question>

Stable first, so host prompt caching works: guidelines, persona and tools are the same
bytes in every window of a caller until one of them changes, and the metadata line
(intent, evaluation time) follows them (renderer `window-2`). Manifests rendered by
`window-1` put the metadata line first; replay renders each manifest by its own
renderer version, so its hash is over the same bytes.

Rendering reads only what a manifest keeps (row versions, tier, status, annotations), so
replay renders the same bytes again. Every memory is a record of output/records.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from ..backend.base import Row
from ..output.records import StaleFact, attr, escape_body, memory_record, metadata_line
from ..tokens import count_tokens
from .forms import attributes, full_body, one_line, summary_body
from .layout import FULL, QUESTION, SLICES, STABLE, SUMMARY

__all__ = [
    "RENDERERS",
    "RENDERER_VERSION",
    "cost",
    "header",
    "question_block",
    "record",
    "slice_block",
    "window_text",
]

#: window-1: the metadata line first; window-2: the stable slices first, then the metadata line;
#: window-3: as window-2, a turn showing who said it and the day ("8 May 2023")
RENDERERS = ("window-1", "window-2", "window-3")
RENDERER_VERSION = RENDERERS[-1]
#: a linked history record's label, in the order it is shown
_LINK_LABEL = ("linked_to", "relation", "direction")
#: a window record is never clipped: tiers decide how much of it is shown
_WHOLE = 10_000_000


@lru_cache(maxsize=8192)
def cost(text: str) -> int:
    """What one line block costs in the window: its tokens and the newline joining it. Cached: a caller's
    windows render the same records (its guidelines, its recalled turns) again and again."""
    return count_tokens(text) + 1


def record(
    kind: str,
    row: Row,
    *,
    tier: str,
    status: str,
    annotations: Sequence[StaleFact] = (),
    shown_id: str | None = None,
    link: Mapping[str, str] | None = None,
    renderer: str = RENDERERS[-1],
    full_tokens: int | None = None,
) -> str:
    """One memory at `tier`, as `renderer` (a manifest's renderer_version) shows it. A pointer is only its
    id, type, status, one line and its full form's cost (`full_tokens`, when the caller has counted it);
    `expand` shows the rest (the annotations of a historical memory included). A memory that entered as
    linked history carries its `link` label (linked_to, relation, direction) at every tier."""
    shown = shown_id or row["id"]
    label = {k: link[k] for k in _LINK_LABEL} if link else {}
    if tier == FULL:
        return memory_record(
            full_body(kind, row, renderer),
            id=shown,
            type=kind,
            cell_chars=_WHOLE,
            status=status,
            **label,
            **attributes(kind, row, renderer),
            annotations=tuple(annotations),
        )
    full = full_tokens
    if full is None:
        full = cost(
            record(
                kind,
                row,
                tier=FULL,
                status=status,
                annotations=annotations,
                shown_id=shown_id,
                link=link,
                renderer=renderer,
            )
        )
    if tier == SUMMARY:
        return memory_record(
            summary_body(kind, row),
            id=shown,
            type=kind,
            cell_chars=_WHOLE,
            status=status,
            tier=tier,
            **label,
            **attributes(kind, row, renderer),
            full_tokens=full,
            annotations=tuple(annotations),
        )
    return memory_record(
        one_line(kind, row, renderer),
        id=shown,
        type=kind,
        cell_chars=_WHOLE,
        status=status,
        tier=tier,
        **label,
        full_tokens=full,
    )


def slice_block(name: str, records: Sequence[str]) -> str:
    return "\n".join([f"<slice name={attr(name)}>", *records, "</slice>"])


def slice_overhead(name: str) -> int:
    return cost(f"<slice name={attr(name)}>") + cost("</slice>")


def header(intent: str, evaluated_at: str, available: int) -> str:
    return metadata_line(
        context_window=intent,
        evaluated_at=evaluated_at,
        budget=f"{available} tokens",
        expand="call expand(memory_id) for a pointer or summary in full",
    )


def question_block(question: str) -> str:
    return f"<question>{escape_body(question)}</question>"


def window_text(head: str, blocks: dict[str, Sequence[str]], question: str, renderer: str = RENDERER_VERSION) -> str:
    """The window: `blocks` maps a slice to its records; empty slices are left out.

    `renderer` is a manifest's renderer_version (one of RENDERERS): where the metadata line goes.
    """
    if renderer not in RENDERERS:
        raise ValueError(f"unknown window renderer {renderer!r}")
    parts = [] if renderer != "window-1" else [head]
    for name in SLICES:
        if name == QUESTION:
            parts.append(question_block(question))
        elif blocks.get(name):
            parts.append(slice_block(name, blocks[name]))
        if renderer != "window-1" and name == STABLE[-1]:
            parts.append(head)
    return "\n".join(parts)
