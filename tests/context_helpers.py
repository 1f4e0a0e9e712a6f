"""Helpers for the context-window tests: the demo fact-check request, reading a manifest by refs, and a
window as the context_window prompt renders it through the real server."""

from __future__ import annotations

from dataclasses import replace

from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME

#: jane in the demo thread about the Helios numbers
JANE_IN_REVIEW = replace(ACME, thread="helios-review")
FACT_CHECK = "Is Helios RAG's nDCG@10 on BEIR really 0.92?"


def placed(manifest: dict) -> dict[str, tuple[str, str, str]]:
    """memory id -> (slice, tier, status), for every memory the window holds."""
    return {m["ref"]["id"]: (m["slice"], m["tier"], m["status"]) for m in manifest["memories"]}


def excluded(manifest: dict) -> dict[str, str]:
    """memory id -> the rule that kept it out."""
    return {e["ref"]["id"]: e["rule"] for e in manifest["exclusions"]}


def refs(manifest: dict, slice_name: str) -> list[tuple[str, str, int]]:
    return [tuple(m["ref"].values()) for m in manifest["memories"] if m["slice"] == slice_name]


def slice_text(text: str, name: str) -> str:
    """A rendered window's slice `name` (from its opening tag to its close), or "" when the window has none."""
    start = text.find(f'<slice name="{name}">')
    return text[start : text.find("</slice>", start)] if start >= 0 else ""


async def window_prompt(sqlite_path, question: str, *, thread: str, intent: str = "fact_check") -> str:
    """The context_window prompt's text for demo jane (the demo agent) in `thread`, over an in-process
    fastmcp.Client on the server `memgate serve` builds."""
    mcp, m = stdio_app(sqlite_path, user="jane", agent=ACME.agent, thread=thread)
    try:
        async with Client(mcp) as c:
            r = await c.get_prompt("context_window", {"question": question, "intent": intent})
            return r.messages[0].content.text
    finally:
        m.close()
