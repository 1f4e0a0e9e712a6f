"""Tool rounds after a window: each tool result is charged to the window's shared tool reserve.

A round is one tool call that brings memory into the window (every tool but clarify)
after a window was assembled for the caller's thread (or server session), while that
window lasts (window.py: until the next window, or context.window_idle_s without an
event). The counter starts at 0 with each new window and counts that window's `tool_result` events, so it
lives in the database and every server process sees the same count. A round runs with
its result bounded by what the reserve has left (and by max_tool_result_tokens); its
result gets a memory id, its provenance (the mcp_call_log row) and its token count, and
is recorded as a thread event. Once max_rounds results are recorded, or the reserve is
spent, the window is spent: a call still runs, bounded by max_tool_result_tokens, and its
result says in one line (ToolOutput.notice) that the window's tool budget is spent and how
to start a new window; it is not charged or recorded, so a spent window never keeps a host
from working. A tenant whose budget says `spent_rounds: "refuse"` gets the old answer
instead: one sentence and no call. The check and the record are one transaction: of two
processes racing for the last round, one gets it (the other is answered as spent).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace

from ..backend.base import Row, Session
from ..conversations.events import write_event
from ..identity import Identity
from ..ids import new_id
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from .window import CurrentWindow, WindowKey, current_window

__all__ = ["RESULT_CAP", "Round", "Spent", "close_round", "open_round", "result_cap", "run_capped"]

#: the token bound of the result of the round running in this context (None: no round)
RESULT_CAP: ContextVar[int | None] = ContextVar("memgate_result_cap", default=None)
#: what the provenance line may cost, at most
_HEAD_TOKENS = 48
_SPENT_ROUNDS = (
    "This context window's tool rounds are spent ({used} of {max}); answer from what the window "
    "and earlier results hold, or ask the user."
)
_SPENT_RESERVE = (
    "This context window's tool budget is spent ({used} of {reserve} tokens); answer from what the "
    "window and earlier results hold, or ask the user."
)
_TOO_BIG = (
    "This result needs {tokens} tokens, more than the {left} left of this context window's tool budget; "
    "narrow the request."
)
#: the one line a call answered after its window is spent carries (ToolOutput.notice)
NOTICE = (
    "window: this context window's tool budget is spent ({why}), so this result was not charged to it; "
    "start a new window by asking the next question through the context_window prompt"
)
NOTICE_TOO_BIG = (
    "window: this result needs {tokens} tokens, more than the {left} left of this context window's tool "
    "budget, so it was not charged to it; start a new window by asking the next question through the "
    "context_window prompt"
)


@dataclass(frozen=True)
class Spent:
    """A call after its window's rounds or reserve are spent: answered with `notice`, or refused."""

    refusal: ToolOutput
    notice: str
    #: the tenant's budget says refuse (spent_rounds: "refuse")
    refuse: bool
    #: the bound of the answered call's results
    cap: int


@dataclass(frozen=True)
class Round:
    window: CurrentWindow
    number: int
    max_rounds: int
    reserve: int
    used: int
    #: the token bound of this round's result
    cap: int


def open_round(session: Session, key: WindowKey, *, now: str, idle_s: float) -> Round | Spent | None:
    """The round a call would be; Spent when none is left; None with no window.

    Rounds are counted per window: a window that ended (a newer one was assembled, or it
    idled past `idle_s`) is no window, so it never refuses a call.
    """
    window = current_window(session, key, now=now, idle_s=idle_s)
    if window is None:
        return None
    limits = window.manifest["limits"]
    spent = _spent_so_far(session, window.manifest_id)
    refusal = _refusal(spent["rounds"], spent["tokens"], limits)
    if refusal:
        return refusal
    cap = min(limits["max_tool_result_tokens"], limits["tool_reserve"] - spent["tokens"]) - _HEAD_TOKENS
    if cap <= 0:
        return _spent(
            limits,
            _SPENT_RESERVE.format(used=spent["tokens"], reserve=limits["tool_reserve"]),
            f"{spent['tokens']} of {limits['tool_reserve']} tokens",
        )
    return Round(window, spent["rounds"] + 1, limits["max_rounds"], limits["tool_reserve"], spent["tokens"], cap)


def run_capped(rnd: Round | Spent, call: Callable[[], ToolOutput]) -> ToolOutput:
    """Run the tool with its results bounded by the round's cap."""
    token = RESULT_CAP.set(rnd.cap)
    try:
        return call()
    finally:
        RESULT_CAP.reset(token)


def result_cap() -> int | None:
    return RESULT_CAP.get()


def answered(spent: Spent, output: ToolOutput) -> ToolOutput:
    """A call run after its window was spent: its result, not charged, with the window's notice."""
    return replace(output, notice=spent.notice)


def close_round(
    session: Session, identity: Identity, rnd: Round, *, call_id: str, tool_name: str, output: ToolOutput, now: str
) -> ToolOutput:
    """Charge and record the result (one transaction, re-checked), and show it with its memory id."""
    if output.is_error:
        return output  # an error brings no memory: not a round
    with session.transaction():
        spent = _spent_so_far(session, rnd.window.manifest_id)
        limits = rnd.window.manifest["limits"]
        refusal = _refusal(spent["rounds"], spent["tokens"], limits)
        if refusal:  # another call took the last round meanwhile
            return refusal.refusal if refusal.refuse else answered(refusal, output)
        number = spent["rounds"] + 1
        event_id = new_id("tr")
        head = _head(event_id, number, rnd.max_rounds, count_tokens(output.text), spent["tokens"], rnd.reserve)
        text = output.text if output.wire_format else f"{head}\n{output.text}"
        # an image a result carries costs the model tokens too (its estimate, manager/kb/image_view.py)
        charge = count_tokens(text) + sum(i.tokens for i in output.images)
        left = rnd.reserve - spent["tokens"]
        if charge > left:
            too_big = _spent(
                limits,
                _TOO_BIG.format(tokens=charge, left=left),
                notice=NOTICE_TOO_BIG.format(tokens=charge, left=left),
            )
            return too_big.refusal if too_big.refuse else answered(too_big, output)
        write_event(
            session,
            identity,
            prefix="tr",
            id=event_id,
            event_type="tool_result",
            role="tool",
            content=text,
            now=now,
            window_id=rnd.window.manifest_id,
            tokens=charge,
            data={"tool": tool_name, "round": number, "status": output.status, "cited_ids": list(output.cited_ids)},
            source=("mcp_call_log", call_id, None),
        )
    return replace(output, text=text, tokens=charge, cited_ids=(event_id, *output.cited_ids))


def _spent_so_far(session: Session, window_id: str) -> Row:
    """The rounds a window has had and the tokens they were charged (a count: always one row)."""
    row = session.fetch_one("context_window_rounds", window=window_id)
    return row if row is not None else {"rounds": 0, "tokens": 0}


def _head(event_id: str, number: int, max_rounds: int, tokens: int, used: int, reserve: int) -> str:
    return metadata_line(
        tool_result=event_id,
        round=f"{number} of {max_rounds}",
        tokens=tokens,
        tool_reserve_used_before=f"{used} of {reserve}",
    )


def _refusal(rounds: int, tokens: int, limits: dict) -> Spent | None:
    if rounds >= limits["max_rounds"]:
        return _spent(
            limits,
            _SPENT_ROUNDS.format(used=rounds, max=limits["max_rounds"]),
            f"{rounds} of {limits['max_rounds']} rounds",
        )
    if tokens >= limits["tool_reserve"]:
        return _spent(
            limits,
            _SPENT_RESERVE.format(used=tokens, reserve=limits["tool_reserve"]),
            f"{tokens} of {limits['tool_reserve']} tokens",
        )
    return None


def _spent(limits: dict, sentence: str, why: str = "", *, notice: str | None = None) -> Spent:
    """A spent window's answer, as the manifest's limits say (windows recorded before the setting answer)."""
    return Spent(
        _denied(sentence),
        notice or NOTICE.format(why=why),
        limits.get("spent_rounds") == "refuse",
        limits["max_tool_result_tokens"],
    )


def _denied(sentence: str) -> ToolOutput:
    return ToolOutput(text=sentence, tokens=count_tokens(sentence), is_error=True, status="denied")
