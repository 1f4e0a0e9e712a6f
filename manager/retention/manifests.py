"""Manifests and pointer maps that name erased rows, outside the subject's scope.

A window's manifest is stamped with its caller's scope, which is never wider than the rows it
read, so the subject's manifests are erased with the subject's rows. A manifest of another scope
that names an erased row (written by an operator path, or a row re-scoped since) would still
carry what it showed: its window text and its request are replaced by a note, its row stays, and
replay says "unavailable: a source was erased".
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..backend.retention_store import RetentionStore, RowFilter, TableShape
from .registry import ERASED

__all__ = ["ERASED_MANIFEST", "named_ids", "scrub_naming_erased"]

#: content_json of a manifest whose sources were erased
ERASED_MANIFEST = {"erased": "unavailable: a source was erased"}
_SHAPE = TableShape("conversation_memory", "id")


def named_ids(manifest: dict[str, Any]) -> list[str]:
    """Every row id a manifest names: what the window held and what it left out."""
    ids = []
    for group in ("memories", "exclusions"):
        for entry in manifest.get(group) or ():
            ref = entry.get("ref") or {}
            if ref.get("id"):
                ids.append(str(ref["id"]))
    return ids


def scrub_naming_erased(store: RetentionStore, erasure: str, batch: int) -> int:
    """Scrub the tenant's remaining manifests that name a row erasure `erasure` removed; how many."""
    scrubbed, after = 0, None
    where = RowFilter(equals=(("event_type", "context_manifest"),), unscrubbed=("content", ERASED))
    while True:
        page = store.select(_SHAPE, replace(where, after=after), batch, extra=("content_json",))
        if not page:
            return scrubbed
        after = str(page[-1]["row_key"])
        named = {r["row_key"]: named_ids(_json(r["content_json"])) for r in page}
        erased = store.erased(sorted({i for ids in named.values() for i in ids}))
        hit = [r for r in page if erased.intersection(named[r["row_key"]])]
        if hit:
            with store.transaction():
                for r in hit:
                    body = dict(ERASED_MANIFEST, manifest_id=r["row_key"])
                    store.update(_SHAPE, [r], {"content": ERASED, "content_json": json.dumps(body, sort_keys=True)})
            scrubbed += len(hit)


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
