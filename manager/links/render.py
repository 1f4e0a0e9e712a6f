"""Linked results as records: after the direct result they hang from, labelled with relation and direction.

    <memory id="ent_acme_helios_v1" type="entity" status="historical" linked_to="ent_acme_helios_v2"
     relation="is_superseded_by" direction="out" hop="1">

reads "ent_acme_helios_v1 is_superseded_by ent_acme_helios_v2"; `direction` says which way the
stored link points (out: from linked_to to this memory). A memory a result already shows in
full is named, not repeated. Fitting to the token budget is output/budget.py's.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backend.base import Row
from ..output.budget import fit_attached
from ..output.records import memory_record, metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .traverse import Linked

__all__ = ["SHOWN_ABOVE", "fit_linked", "linked_record", "written"]

SHOWN_ABOVE = "(also a direct result of this call)"


def linked_record(item: Linked, cell_chars: int, shown: frozenset[str] = frozenset()) -> str:
    row = item.row
    if item.id in shown:
        body = SHOWN_ABOVE
    elif row["memory_type"] == "entity_memory":
        body = f"{row['label']} = {row['content']}"
    else:
        label, content = row["label"], row["content"]
        body = "\n".join(str(p) for p in (label, content if content != label else None) if p)
    return memory_record(
        body,
        id=item.id,
        type=item.type,
        status=item.status,
        linked_to=item.parent,
        relation=item.relation,
        direction=item.direction,
        hop=item.hop,
        cell_chars=cell_chars,
    )


def fit_linked(
    groups: Sequence[Sequence[Linked]], cell_chars: int, tokens_left: int, shown: frozenset[str] = frozenset()
) -> list[list[str]]:
    """Each direct result's linked records, in order, as many as `tokens_left` allows."""
    return fit_attached(groups, lambda item: linked_record(item, cell_chars, shown), tokens_left)


def written(row: Row, created: bool) -> ToolOutput:
    """link_memory's answer: the link as stored, and whether it was already there."""
    line = f"{row['from_id']} {row['link_type']} {row['to_id']}"
    new = "yes" if created else "no (already linked)"
    text = with_token_count(lambda tokens: metadata_line(link=row["id"], new=new, tokens=tokens), line)
    return ToolOutput(
        text=text,
        rows=1,
        tokens=count_tokens(text),
        cited_ids=(row["from_id"], row["to_id"]),
        structured={
            "link": {k: row[k] for k in ("id", "from_type", "from_id", "link_type", "to_type", "to_id", "provenance")},
            "created": created,
        },
    )
