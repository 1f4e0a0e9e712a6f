"""A manifest as the manifest view (ui://memgate/manifest) draws it, and as compact text for the model.

The view's data is the manifest the caller's wall shows (its own windows), reshaped: each slice's
tokens in layout order (the fixed slices' costs, then what each share slice used; they sum to the
window's total), the admitted records with tier, status, tokens and the id a citation names, the
excluded ones with their rule, the supersedes chains among the records the window read, and the
request and window hashes. Nothing here reads past the manifest: a chain names only ids the
manifest itself names, so a link never shows a far end the caller's window did not read.
"""

from __future__ import annotations

from typing import Any

from ..backend.base import Session
from ..errors import NotFound
from ..identity import Identity
from ..links.store import links_touching
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import manifest as manifests
from .layout import FIXED, SLICES
from .window import WindowKey, current_window

__all__ = ["manifest_view", "view_data"]


def manifest_view(session: Session, identity: Identity, manifest_id: str | None, now: str) -> ToolOutput:
    """The caller's manifest `manifest_id` (or its current window's) as text and view data."""
    if manifest_id:
        manifest = manifests.read(session, manifest_id, identity.tenant)
    else:
        window = current_window(session, WindowKey.of(identity))
        if window is None:
            raise NotFound(
                "no context window in this thread yet",
                hint="Get the context_window prompt first, or name a manifest id.",
            )
        manifest = window.manifest
    data = view_data(manifest, links_touching(session, _ids(manifest), now))
    text = describe(data)
    return ToolOutput(
        text=text,
        rows=len(data["admitted"]) + len(data["excluded"]),
        tokens=count_tokens(text),
        cited_ids=(data["manifest_id"],),
        structured=data,
    )


def view_data(manifest: dict[str, Any], links: list[dict[str, Any]]) -> dict[str, Any]:
    a = manifest["arithmetic"]
    slices = [
        {
            "name": name,
            "tokens": int(a["fixed"][name]) if name in FIXED else int(a["used"].get(name, 0)),
            "fixed": name in FIXED,
            "allowance": None if name in FIXED else a["allowances"].get(name),
            "granted": None if name in FIXED else a["granted"].get(name),
        }
        for name in SLICES
    ]
    admitted = [
        {
            "id": m["ref"]["id"],
            "table": m["ref"]["table"],
            "version": m["ref"]["version"],
            "type": m["type"],
            "slice": m["slice"],
            "tier": m["tier"],
            "status": m["status"],
            "tokens": m["tokens"],
            "citation_id": m.get("memory_id") or m["ref"]["id"],
        }
        for m in manifest["memories"]
    ]
    excluded = [
        {
            "id": e["ref"]["id"],
            "table": e["ref"]["table"],
            "version": e["ref"]["version"],
            "type": e["type"],
            "slice": e["slice"],
            "rule": e["rule"],
            "detail": e.get("detail") or "",
        }
        for e in manifest["exclusions"]
    ]
    return {
        "view": "manifest",
        "manifest_id": manifest["manifest_id"],
        "evaluated_at": manifest["evaluated_at"],
        "intent": manifest["intent"],
        "question": manifest["request"]["question"],
        "total": int(a["total"]),
        "available": int(a["available"]),
        "usable_context": int(a["usable_context"]),
        "slices": slices,
        "admitted": admitted,
        "excluded": excluded,
        "history": chains(links, set(_ids(manifest))),
        "request_hash": manifest["request_hash"],
        "window_hash": manifest["window_hash"],
        "window_tokens": manifest["window_tokens"],
    }


def chains(links: list[dict[str, Any]], named: set[str]) -> list[dict[str, Any]]:
    """The supersedes chains among `named` ids, newest first: [{"ids": [v3, v2, v1]}]."""
    older: dict[str, str] = {}
    for link in links:
        if link["link_type"] == "supersedes" and link["from_id"] in named and link["to_id"] in named:
            older.setdefault(link["from_id"], link["to_id"])
    newer = set(older.values())
    found = []
    for head in sorted(set(older) - newer):
        ids, at = [head], head
        while at in older and older[at] not in ids and len(ids) <= len(older):
            at = older[at]
            ids.append(at)
        found.append({"relation": "supersedes", "ids": ids})
    return found


def _ids(manifest: dict[str, Any]) -> list[str]:
    return [m["ref"]["id"] for m in manifest["memories"]] + [e["ref"]["id"] for e in manifest["exclusions"]]


def describe(data: dict[str, Any]) -> str:
    """The compact text a host without MCP Apps shows: the same facts, one line each."""
    head = metadata_line(
        manifest=data["manifest_id"],
        intent=data["intent"],
        tokens=f"{data['total']} of {data['available']}",
        admitted=len(data["admitted"]),
        excluded=len(data["excluded"]),
    )
    lines = [
        head,
        "slices: " + ", ".join(f"{s['name']} {s['tokens']}" for s in data["slices"]),
        "admitted: "
        + "; ".join(f"{m['citation_id']} {m['tier']} {m['status']} {m['tokens']}t" for m in data["admitted"]),
    ]
    if data["excluded"]:
        lines.append("excluded: " + "; ".join(f"{e['id']} {e['rule']}" for e in data["excluded"]))
    if data["history"]:
        lines.append("history: " + "; ".join(" supersedes ".join(c["ids"]) for c in data["history"]))
    lines.append(f"request {data['request_hash'][:16]} window {data['window_hash'][:16]}")
    return "\n".join(lines)
