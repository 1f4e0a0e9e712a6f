"""The start-up warning for ChatGPT's search and fetch rows that cite memgate:// links.

Without access_policy.public_links, a knowledge-base document that has no web address of
its own is cited as `memgate://kb/<document>#<chunk>`, which ChatGPT shows but cannot open.
That is a fine default for a private deployment and a surprise for everyone else, so
`memgate serve` names each tenant whose active search or fetch row lacks public_links.
"""

from __future__ import annotations

import json
from typing import Any

from memgate.manager import OperatorManager, now_iso

__all__ = ["CHATGPT_HANDLERS", "rows_citing_memgate_links", "warning_for"]

CHATGPT_HANDLERS = ("search", "fetch")


def rows_citing_memgate_links(operator: OperatorManager) -> list[tuple[str, str]]:
    """(tenant, tool name) of every active search or fetch row without public_links."""
    now = now_iso()
    found = []
    for tenant in operator.tenants():
        for row in operator.tool_versions(tenant):
            if row["tool_handler"] in CHATGPT_HANDLERS and _active(row, now) and not _public_links(row):
                found.append((tenant, row["tool_name"]))
    return sorted(set(found))


def warning_for(rows: list[tuple[str, str]]) -> str | None:
    if not rows:
        return None
    named = ", ".join(f"{tenant}/{tool}" for tenant, tool in rows)
    return (
        f"ChatGPT's search/fetch rows cite memgate://kb/ links, which ChatGPT cannot open ({named}); "
        "set access_policy.public_links on those rows to the base URL of your pages (docs/hosts.md, ChatGPT)"
    )


def _active(row: Any, now: str) -> bool:
    return (
        row["deleted_at"] is None
        and row["valid_from"] <= now
        and (row["valid_until"] is None or row["valid_until"] > now)
    )


def _public_links(row: Any) -> bool:
    try:
        policy = json.loads(row["access_policy"] or "{}")
    except ValueError:
        return False
    return isinstance(policy, dict) and bool(policy.get("public_links"))
