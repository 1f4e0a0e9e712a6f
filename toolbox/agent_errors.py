"""What the model is told when a call fails: one generic sentence per error class.

No SQL, schema names, driver text or stack reaches the model. Invalid
arguments may name the field. The detail goes to the operator log.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from memgate.manager import (
    AccessDenied,
    CandidateNotVisible,
    Conflict,
    ImageNotShown,
    ImageNotVisible,
    InvalidArgument,
    NotFound,
    NotIssued,
    NotVisible,
    OwnCandidate,
    QueryRejected,
    QueryTimeout,
    clip_echo,
)

DENIED = "This tool is not available to you, or this call is not allowed for your identity."
UNAVAILABLE_TOOL = "This tool is no longer available. List the tools again."
TIMEOUT = "The call took longer than its time limit and was stopped. Narrow the request and try again."
CONFLICT = "Another writer changed this record first; nothing was written. Read it again and retry."
NOT_FOUND = "Nothing matching that request exists for you."
NOT_ISSUED = (
    "That memory id was not issued to you as a pointer or summary in your current context window; "
    'expand only ids the window shows with tier="pointer" or tier="summary".'
)

NOT_VISIBLE = "There is no document or passage with that id for you; fetch ids that search returned."
IMAGE_NOT_SHOWN = (
    "That image id was not shown to you by an earlier result, or the image is gone; expand image ids "
    "that search_memory returned."
)
CANDIDATE_NOT_VISIBLE = (
    "There is no candidate with that id for you; nothing was written. Review candidates show_memory lists."
)
OWN_CANDIDATE = "You proposed this candidate yourself; a different reviewer must approve it. Nothing was written."
IMAGE_NOT_VISIBLE = "There is no image with that id for you; use image ids that search_memory returned."


def unknown_tool(name: str) -> str:
    """For a name that never was a tool for this caller (UNAVAILABLE_TOOL is for one that was)."""
    return f"There is no tool named {clip_echo(name)}."


def agent_message(exc: BaseException, call_id: str) -> str:
    if isinstance(exc, QueryRejected):
        return f"The query was rejected: {exc.message}"
    if isinstance(exc, InvalidArgument):
        return invalid_arguments(exc.field, exc.message)
    if isinstance(exc, ImageNotShown):
        return IMAGE_NOT_SHOWN
    if isinstance(exc, ImageNotVisible):
        return IMAGE_NOT_VISIBLE
    if isinstance(exc, NotIssued):
        return NOT_ISSUED
    if isinstance(exc, CandidateNotVisible):
        return CANDIDATE_NOT_VISIBLE
    if isinstance(exc, OwnCandidate):
        return OWN_CANDIDATE
    if isinstance(exc, NotVisible):
        return NOT_VISIBLE
    if isinstance(exc, AccessDenied):
        return DENIED
    if isinstance(exc, QueryTimeout):
        return TIMEOUT
    if isinstance(exc, Conflict):
        return CONFLICT
    if isinstance(exc, NotFound):
        return NOT_FOUND
    return f"The memory service could not complete this call (call id {call_id}). The operator log has the details."


def invalid_arguments(field: str | None, reason: str) -> str:
    where = f" for '{field}'" if field else ""
    return f"Invalid arguments{where}: {reason}"


def did_you_mean(unexpected: list[str], schema: dict[str, Any], given: dict[str, Any]) -> str:
    """ " (did you mean 'query'?)" for an argument name the schema does not know, when exactly one of
    its properties is meant: the one close in spelling, else the one required property not given
    (`sql` for execute_query's `query`). Empty when that is not one name."""
    if len(unexpected) != 1:
        return ""
    properties = [p for p in schema.get("properties", {}) if p not in given]
    close = get_close_matches(unexpected[0], properties, n=2, cutoff=0.6)
    missing = [p for p in schema.get("required", []) if p not in given]
    meant = close if close else missing
    return f" (did you mean {meant[0]!r}?)" if len(meant) == 1 else ""
