"""lookup_entity results: each claim's current version, then its labeled history, within the budget."""

from __future__ import annotations

from collections.abc import Mapping

from ..output.budget import fit_records
from ..output.records import StaleFact, memory_record, metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .entities import ClaimLookup, ClaimVersion

__all__ = ["render_claims"]


def render_claims(claims: list[ClaimLookup], *, subject: str, predicate: str | None, include_history: bool,
                  more: bool, history_rows: int, cell_chars: int, max_tokens: int,
                  annotations: Mapping[str, tuple[StaleFact, ...]] | None = None) -> ToolOutput:
    """Records current first per claim; history cut at `history_rows` and at `max_tokens`.

    `more` says the statement already cut rows at the row cap. `annotations` are the stale
    facts a version used (a claim derived from another claim's earlier version).
    """
    notes = annotations or {}
    what = f"{subject} {predicate}" if predicate else subject
    if not claims:
        text = metadata_line(entity=what, claims=0) + "\nNo claim is recorded for this subject."
        return ToolOutput(text=text, tokens=count_tokens(text), structured={"claims": []})
    versions: list[ClaimVersion] = []
    cut = more
    for claim in claims:
        versions += [claim.current] if claim.current else []
        if include_history:
            history = claim.history[:history_rows]
            cut = cut or len(claim.history) > len(history)
            versions += history

    def head_of(shown: int, more_exist: bool, tokens: int) -> str:
        return metadata_line(entity=what, claims=len(claims), versions_shown=shown,
                             more_exist="yes" if more_exist else "no", tokens=tokens)

    reserve = count_tokens(head_of(len(versions), True, 99_999)) + 1
    records = fit_records(versions, lambda v: _record(v, cell_chars, notes.get(v.id, ())), max_tokens,
                          reserve=reserve)
    shown = versions[: len(records)]
    cut = cut or len(shown) < len(versions)
    text = with_token_count(lambda tokens: head_of(len(shown), cut, tokens), "\n".join(records))
    return ToolOutput(text=text, rows=len(shown), truncated=cut, tokens=count_tokens(text),
                      cited_ids=tuple(v.id for v in shown), structured={"claims": [_as_dict(v) for v in shown]})


def _record(v: ClaimVersion, cell_chars: int, annotations: tuple[StaleFact, ...]) -> str:
    r = v.row
    body = r["content"]
    if r["content_json"]:
        body += f"\nconditions: {r['content_json']}"
    return memory_record(
        body, id=r["id"], type="entity", status=v.status, version=r["version"],
        subject=r["subject"], predicate=r["predicate"], confidence=r["confidence"],
        valid_from=r["valid_from"], valid_until=r["valid_until"], deleted_at=r["deleted_at"],
        replaces=r["source_id"] if r["source_table"] == "entity_memory" else None,
        cell_chars=cell_chars, annotations=annotations)


def _as_dict(v: ClaimVersion) -> dict:
    r = v.row
    return {"id": r["id"], "subject": r["subject"], "predicate": r["predicate"], "version": r["version"],
            "status": v.status, "confidence": r["confidence"], "valid_from": r["valid_from"],
            "valid_until": r["valid_until"], "deleted_at": r["deleted_at"]}
