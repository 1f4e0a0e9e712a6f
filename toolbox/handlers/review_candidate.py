"""The `review_candidate` handler: approve or reject one of the caller's own pending candidates.

Called by the memory view's buttons through the host (never by a request of the page's own),
bound to the candidate's id and the version the page showed; the gate's transaction reads the
version again (manager/promotion/review.py). The row is an app-only tool (`_meta.ui.visibility`
["app"]: a host keeps it off the model's tool list, so the agent cannot approve its own
proposals) and its preset requires the scope `memory:review`: a token without it gets 403
insufficient_scope over HTTP, and show_memory offers no buttons.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .spec import AppUi, HandlerSpec, StrictArgs

RESOURCE_URI = "ui://memgate/memory"


class ReviewArgs(StrictArgs):
    candidate_id: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=1)
    decision: Literal["approve", "reject"]


def review_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """It writes (a record, the decision); deciding twice is refused, not repeated."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "view": {"const": "decision"},
        "candidate_id": {"type": "string"},
        "decision": {"type": "string"},
        "rule": {"type": "string"},
        "version": {"type": "integer"},
        "record_id": {"type": ["string", "null"]},
    },
    "required": ["view", "candidate_id", "decision", "rule", "version"],
}

SPEC = HandlerSpec(
    "review_candidate",
    "review_candidate",
    ReviewArgs,
    charged=False,
    hints=review_hints,
    output_schema=OUTPUT_SCHEMA,
    ui=AppUi(RESOURCE_URI, ("app",)),
)
