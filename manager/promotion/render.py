"""The answer the model reads: its first line is the decision, with the id and the rule, nothing else to parse."""

from __future__ import annotations

from ..output.results import ToolOutput
from ..tokens import count_tokens

__all__ = ["answer"]


def answer(
    decision: str,
    rule: str,
    sentence: str,
    *,
    record_id: str | None = None,
    candidate_id: str | None = None,
) -> ToolOutput:
    """`promoted ent_1 | candidate: cand_2 | rule: passed`, `pending cand_2 | rule: conflict`,
    `duplicate ent_1 | ...`, `refused | rule: deny:phone`; then one sentence."""
    head = decision + (f" {record_id}" if record_id else f" {candidate_id}" if candidate_id else "")
    if record_id and candidate_id:
        head += f" | candidate: {candidate_id}"
    text = f"{head} | rule: {rule}\n{sentence}"
    cited = tuple(i for i in (record_id, candidate_id) if i)
    return ToolOutput(
        text=text,
        rows=1 if record_id or candidate_id else 0,
        tokens=count_tokens(text),
        cited_ids=cited,
        structured={"decision": decision, "rule": rule, "record_id": record_id, "candidate_id": candidate_id},
    )
