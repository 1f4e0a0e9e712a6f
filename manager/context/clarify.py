"""clarify answers as thread events: what the user answered, declined or was never asked.

An answer (or a decline, or a cancel) is a `clarify_answer` event with its conversation's next
turn number, so the next window's volatile tail holds it; it keeps its thread (a clarify answer is
for the thread it was asked in, never recalled in another). When the client cannot ask the
user, or the user did not answer in time (`timeout`: the 2025-11-25 era's wait past
caps.elicit_timeout_s), the question is kept as a `clarify_request` event and the model
is told to ask the user in its reply; a timeout's call-log row has status `timeout`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backend.base import Session
from ..conversations.events import write_event
from ..conversations.keys import open_conversation, take_turns
from ..errors import InvalidArgument
from ..identity import Identity
from ..output.records import memory_record, metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .window import WindowKey, current_window

__all__ = ["ACTIONS", "record_clarification"]

ACCEPT, DECLINE, CANCEL, FALLBACK, TIMEOUT = "accept", "decline", "cancel", "fallback", "timeout"
ACTIONS = (ACCEPT, DECLINE, CANCEL, FALLBACK, TIMEOUT)
_PAST = {DECLINE: "declined", CANCEL: "chose not"}
_MAX_ANSWER = 2000


def record_clarification(
    session: Session,
    identity: Identity,
    *,
    question: str,
    options: Sequence[str] | None,
    action: str,
    answer: str | None,
    now: str,
    idle_s: float | None = None,
) -> ToolOutput:
    if action not in ACTIONS:
        raise InvalidArgument(f"action must be one of {', '.join(ACTIONS)}, got {action!r}", field="action")
    if action == ACCEPT:
        answer = _checked(answer, options)
    key = WindowKey.of(identity)
    data = {"question": question, "options": list(options) if options else None, "action": action, "answer": answer}
    with session.transaction():
        window = current_window(session, key, now=now, idle_s=idle_s)
        window_id = window.manifest_id if window else None
        if action in (FALLBACK, TIMEOUT):
            event = write_event(
                session,
                identity,
                prefix="clr",
                event_type="clarify_request",
                role="assistant",
                content=question,
                now=now,
                data=data,
                window_id=window_id,
            )
        else:
            content = answer if action == ACCEPT and answer else f"(the user {_PAST[action]} to answer) {question}"
            conversation = open_conversation(session, identity, now)
            event = write_event(
                session,
                identity,
                prefix="clr",
                event_type="clarify_answer",
                role="user",
                content=content,
                turn_index=take_turns(session, conversation["id"]),
                conversation_id=conversation["id"],
                speaker=identity.user or "user",
                now=now,
                data=data,
                window_id=window_id,
            )
    return _output(event, question, options, action, answer)


def _checked(answer: str | None, options: Sequence[str] | None) -> str:
    if answer is not None and not isinstance(answer, str):
        raise InvalidArgument("the user's answer is not text", field="answer")
    if not answer or not answer.strip():
        raise InvalidArgument("the user's answer is empty", field="answer")
    if len(answer) > _MAX_ANSWER:
        raise InvalidArgument(f"the user's answer is longer than {_MAX_ANSWER} characters", field="answer")
    if options and answer not in options:
        raise InvalidArgument(f"the user's answer {answer!r} is not one of the options", field="answer")
    return answer


def _output(event: dict, question: str, options: Sequence[str] | None, action: str, answer: str | None) -> ToolOutput:
    if action == ACCEPT:
        body = memory_record(
            answer or "",
            id=event["id"],
            type="clarify_answer",
            status="unverified",
            cell_chars=_MAX_ANSWER,
            turn=event["turn_index"],
        )
        text = f"{metadata_line(clarify='answered', question=' '.join(question.split())[:200])}\n{body}"
    elif action in (FALLBACK, TIMEOUT):
        choices = f" Offer these options: {'; '.join(options)}." if options else ""
        why = "This client cannot ask the user directly" if action == FALLBACK else "The user did not answer in time"
        text = f"{why}: ask the user in your reply: {' '.join(question.split())}{choices}"
    else:
        text = (
            f"The user {'declined' if action == DECLINE else 'dismissed'} the question; do not ask it again "
            "now: answer with what you have and say what is missing."
        )
    return ToolOutput(
        text=text,
        rows=1 if action == ACCEPT else 0,
        tokens=count_tokens(text),
        cited_ids=(event["id"],),
        status="timeout" if action == TIMEOUT else "ok",
    )
