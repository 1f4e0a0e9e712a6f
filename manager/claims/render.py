"""lookup_entity results: each claim's current version, then its labeled history, within the budget."""

from __future__ import annotations

from collections.abc import Mapping

from ..links.render import fit_linked
from ..links.traverse import Linked
from ..output.budget import fit_records
from ..output.records import StaleFact, memory_record, metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .entities import ClaimLookup, ClaimVersion

__all__ = ["render_claims"]


def render_claims(
    claims: list[ClaimLookup],
    *,
    subject: str,
    predicate: str | None,
    include_history: bool,
    more: bool,
    history_rows: int,
    cell_chars: int,
    max_tokens: int,
    annotations: Mapping[str, tuple[StaleFact, ...]] | None = None,
    linked: Mapping[str, list[Linked]] | None = None,
    as_of: str | None = None,
) -> ToolOutput:
    """Records current first per claim; history cut at `history_rows` and at `max_tokens`.

    `more` says the statement already cut rows at the row cap. `annotations` are the stale
    facts a version used (a claim derived from another claim's earlier version). `linked`
    (when the call asked for hops) holds each version's linked results: each follows its
    version, in the tokens the versions leave. `as_of` (when the call named a past moment) is said
    in the metadata line: the labels are those of that moment.
    """
    notes = annotations or {}
    what = f"{subject} {predicate}" if predicate else subject
    if not claims:
        text = metadata_line(entity=what, as_of=as_of, claims=0) + "\nNo claim is recorded for this subject."
        return ToolOutput(text=text, tokens=count_tokens(text), structured={"claims": []})
    versions: list[ClaimVersion] = []
    cut = more
    for claim in claims:
        versions += [claim.current] if claim.current else []
        if include_history:
            history = claim.history[:history_rows]
            cut = cut or len(claim.history) > len(history)
            versions += history

    def head_of(shown: int, more_exist: bool, tokens: int, n_linked: int | None) -> str:
        return metadata_line(
            entity=what,
            as_of=as_of,
            claims=len(claims),
            versions_shown=shown,
            linked=n_linked,
            more_exist="yes" if more_exist else "no",
            tokens=tokens,
        )

    hops = linked is not None
    reserve = count_tokens(head_of(len(versions), True, 99_999, 999 if hops else None)) + 1
    records = fit_records(versions, lambda v: _record(v, cell_chars, notes.get(v.id, ())), max_tokens, reserve=reserve)
    shown = versions[: len(records)]
    groups = [(linked or {}).get(v.id, []) for v in shown]
    left = max_tokens - reserve - sum(count_tokens(r) + 1 for r in records)
    attached = fit_linked(groups, cell_chars, left, frozenset(v.id for v in shown))
    cut = cut or len(shown) < len(versions) or any(len(a) < len(g) for a, g in zip(attached, groups))
    n_linked = sum(len(a) for a in attached)
    body = "\n".join(line for record, extra in zip(records, attached) for line in (record, *extra))
    text = with_token_count(lambda tokens: head_of(len(shown), cut, tokens, n_linked if hops else None), body)
    claims_json = [
        _as_dict(v, [item.as_json() for item in group[: len(extra)]])
        for v, group, extra in zip(shown, groups, attached)
    ]
    cited = tuple(v.id for v in shown) + tuple(
        item.id for group, extra in zip(groups, attached) for item in group[: len(extra)]
    )
    return ToolOutput(
        text=text,
        rows=len(shown),
        truncated=cut,
        tokens=count_tokens(text),
        cited_ids=cited,
        structured={"claims": claims_json},
    )


def _record(v: ClaimVersion, cell_chars: int, annotations: tuple[StaleFact, ...]) -> str:
    r = v.row
    body = r["content"]
    if r["content_json"]:
        body += f"\nconditions: {r['content_json']}"
    return memory_record(
        body,
        id=r["id"],
        type="entity",
        status=v.status,
        version=r["version"],
        subject=r["subject"],
        predicate=r["predicate"],
        confidence=r["confidence"],
        valid_from=r["valid_from"],
        valid_until=r["valid_until"],
        deleted_at=r["deleted_at"],
        replaces=r["source_id"] if r["source_table"] == "entity_memory" else None,
        cell_chars=cell_chars,
        annotations=annotations,
    )


def _as_dict(v: ClaimVersion, linked: list[dict]) -> dict:
    r = v.row
    found = {
        "id": r["id"],
        "subject": r["subject"],
        "predicate": r["predicate"],
        "version": r["version"],
        "status": v.status,
        "confidence": r["confidence"],
        "valid_from": r["valid_from"],
        "valid_until": r["valid_until"],
        "deleted_at": r["deleted_at"],
    }
    return {**found, "linked": linked} if linked else found
