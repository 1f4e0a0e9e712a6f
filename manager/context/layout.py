"""The window's layout, most stable first, and which memory type fills which slice."""

from __future__ import annotations

from ..limits import SHARE_NAMES

__all__ = ["FIXED", "SLICES", "STABLE", "TYPES", "VARIABLE", "MemoryType"]

GUIDELINES, PERSONA, TOOL_SURFACE, QUESTION = "guidelines", "persona", "tool_surface", "question"
DURABLE_FACTS, EVIDENCE, RECALLED_HISTORY, VOLATILE_TAIL = SHARE_NAMES

#: every slice in the order the window shows them
SLICES = (GUIDELINES, PERSONA, TOOL_SURFACE, DURABLE_FACTS, EVIDENCE, RECALLED_HISTORY, VOLATILE_TAIL, QUESTION)
#: the same bytes in every window of a caller until a row changes: shown before the metadata line
STABLE = (GUIDELINES, PERSONA, TOOL_SURFACE)
#: charged first, at their real cost, never cut: if they do not fit, assembly fails naming the slice
FIXED = (GUIDELINES, PERSONA, TOOL_SURFACE, QUESTION)
#: split by the intent's shares
VARIABLE = SHARE_NAMES

#: record statuses in a window
CURRENT, HISTORICAL, UNVERIFIED, EVIDENCE_STATUS = "current", "historical", "unverified", "evidence"
#: tiers a memory is fitted at
FULL, SUMMARY, POINTER = "full", "summary", "pointer"


class MemoryType:
    """One memory type: its table, the slice it fills, its authority and its default status."""

    def __init__(self, name: str, table: str, slice: str, priority: int, status: str):
        self.name, self.table, self.slice, self.priority, self.status = name, table, slice, priority, status


#: by record type; `priority` is authority: it keeps the copy in dedup and breaks score ties
TYPES = {
    t.name: t
    for t in (
        MemoryType("guideline", "guideline_memory", GUIDELINES, 90, CURRENT),
        MemoryType("persona", "persona_memory", PERSONA, 80, CURRENT),
        MemoryType("tool", "toolbox_memory", TOOL_SURFACE, 70, CURRENT),
        MemoryType("entity", "entity_memory", DURABLE_FACTS, 50, CURRENT),
        MemoryType("workflow", "workflow_memory", DURABLE_FACTS, 40, CURRENT),
        MemoryType("kb_chunk", "knowledge_base_chunk", EVIDENCE, 30, EVIDENCE_STATUS),
        MemoryType("summary", "summarization_memory", RECALLED_HISTORY, 20, UNVERIFIED),
        MemoryType("conversation", "conversation_memory", RECALLED_HISTORY, 10, UNVERIFIED),
    )
}
BY_TABLE = {t.table: t for t in TYPES.values()}
