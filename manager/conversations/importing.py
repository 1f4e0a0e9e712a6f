"""`memgate turn import`: conversation histories loaded as turns, each session a thread of its own.

Formats read (`parse`):

- memgate's own, JSON or JSONL (one conversation per line): a conversation is
  `{"id": ..., "sessions": [{"thread": ..., "time": ..., "messages": [...]}]}` and a message
  `{"role": "user"|"assistant", "speaker": ..., "text"|"content": ..., "time": ...}`. A JSON file
  holds one conversation, a list of them, or `{"conversations": [...]}`.
- LoCoMo's (public benchmark): `speaker_a`, `speaker_b`, `session_N` (turns of speaker, text,
  dia_id) and `session_N_date_time` ("1:56 pm on 8 May, 2023"), alone or under `conversation`.
- A ChatGPT data export's conversations.json: a list of `{"title", "create_time", "mapping",
  "current_node"}`; each conversation is one thread, its messages the path to the current node.

Each session is one thread of the importing user and agent (named by the file, else
`<conversation id>-s<N>`), its turns dated by the message's time, else the session's, else now. A
message's role is its own; a message with only a speaker is the user's when the speaker is the
conversation's first speaker (or the one named by `user_speaker`), else the assistant's; the speaker's
name is kept as the turn's speaker.

Idempotent: a turn's id is derived from the tenant, user, agent, thread, its position and its text, so
importing the same file again finds every turn already there and adds nothing. A session is written
in one transaction with its recall index rows, embedded in one batch (the speed: docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..backend.base import Backend
from ..clock import now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..kb.embed import Embedder
from ..tokens import count_tokens
from .dates import said_at
from .keys import open_conversation, take_turns
from .recall_index import index_turns

__all__ = ["Message", "Session", "TurnImportReport", "import_sessions", "parse"]

_LOCOMO_SESSION = re.compile(r"^session_(\d+)$")
_THREAD = re.compile(r"[^A-Za-z0-9._@:|+-]+")


@dataclass(frozen=True)
class Message:
    role: str
    speaker: str | None
    text: str
    time: str | None
    #: the message's own id in its source (LoCoMo's dia_id, a ChatGPT node id), kept in content_json
    ref: str | None = None


@dataclass(frozen=True)
class Session:
    """One dated session of a conversation: a thread of its own."""

    thread: str
    time: str | None
    messages: tuple[Message, ...]


@dataclass
class TurnImportReport:
    sessions: int = 0
    turns: int = 0
    #: turns already there (an earlier import of the same file)
    skipped: int = 0
    threads: list[str] = field(default_factory=list)


def parse(text: str, *, source: str = "file", user_speaker: str | None = None) -> list[Session]:
    """The sessions a JSON or JSONL file holds, in order; InvalidArgument naming what does not fit."""
    stripped = text.strip()
    if not stripped:
        raise InvalidArgument(f"{source} is empty", field="file")
    try:
        data: Any = json.loads(stripped)
    except ValueError:
        data = _jsonl(stripped, source)
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    conversations = data if isinstance(data, list) else [data]
    sessions: list[Session] = []
    for n, conversation in enumerate(conversations, start=1):
        if not isinstance(conversation, dict):
            raise InvalidArgument(f"{source}: conversation {n} is not an object", field="file")
        sessions += list(_conversation(conversation, n, user_speaker))
    return sessions


def _jsonl(text: str, source: str) -> list[Any]:
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                raise InvalidArgument(f"{source} line {n} is not JSON", field="file") from None
    return out


def _conversation(c: dict[str, Any], n: int, user_speaker: str | None) -> Iterator[Session]:
    if isinstance(c.get("conversation"), dict) and "speaker_a" in c["conversation"]:
        c = {**c["conversation"], "id": c.get("sample_id") or c.get("id")}
    if "mapping" in c:
        yield _chatgpt(c, n)
    elif "speaker_a" in c:
        yield from _locomo(c, n, user_speaker)
    elif isinstance(c.get("sessions"), list):
        yield from _memgate(c, n, user_speaker)
    else:
        raise InvalidArgument(
            f"conversation {n} has neither sessions, LoCoMo's session_N nor a ChatGPT export's mapping", field="file"
        )


def _name(conversation_id: Any, n: int) -> str:
    return _THREAD.sub("-", str(conversation_id or f"conversation-{n}")).strip("-.")[:150] or f"conversation-{n}"


def _role(message: dict[str, Any], first_speaker: str | None, user_speaker: str | None) -> str:
    role = message.get("role")
    if role in ("user", "assistant"):
        return role
    if role is not None:
        raise InvalidArgument(f"a message's role must be user or assistant, got {role!r}", field="role")
    speaker = message.get("speaker")
    return "user" if speaker == (user_speaker or first_speaker) else "assistant"


def _memgate(c: dict[str, Any], n: int, user_speaker: str | None) -> Iterator[Session]:
    name = _name(c.get("id"), n)
    first = next((m.get("speaker") for s in c["sessions"] for m in s.get("messages") or () if m.get("speaker")), None)
    for k, s in enumerate(c["sessions"], start=1):
        messages = []
        for m in s.get("messages") or ():
            text = m.get("text", m.get("content"))
            if not isinstance(text, str) or not text.strip():
                raise InvalidArgument(f"conversation {n} session {k}: a message has no text", field="text")
            ref = m.get("id")
            messages.append(
                Message(
                    _role(m, first, user_speaker),
                    m.get("speaker"),
                    text,
                    _time(m.get("time")),
                    str(ref) if ref is not None else None,
                )
            )
        yield Session(str(s.get("thread") or f"{name}-s{k}"), _time(s.get("time")), tuple(messages))


def _locomo(c: dict[str, Any], n: int, user_speaker: str | None) -> Iterator[Session]:
    name = _name(c.get("id") or c.get("sample_id"), n)
    numbers = sorted(int(m.group(1)) for k in c if (m := _LOCOMO_SESSION.match(k)) and isinstance(c[k], list))
    for k in numbers:
        messages = []
        for m in c[f"session_{k}"]:
            text = m.get("text") or ""
            if m.get("blip_caption"):  # a shared photo: its caption is what was shown
                text = f"{text} [shares a photo: {m['blip_caption']}]".strip()
            if text:
                role = _role(m, c["speaker_a"], user_speaker)
                messages.append(Message(role, m.get("speaker"), text, None, m.get("dia_id")))
        yield Session(f"{name}-s{k}", _time(c.get(f"session_{k}_date_time")), tuple(messages))


def _chatgpt(c: dict[str, Any], n: int) -> Session:
    mapping = c.get("mapping") or {}
    node, path = c.get("current_node"), []
    while node and node in mapping:
        path.append((node, mapping[node]))
        node = mapping[node].get("parent")
    messages = []
    for node_id, item in reversed(path):
        m = item.get("message") or {}
        role = (m.get("author") or {}).get("role")
        parts = (m.get("content") or {}).get("parts") or []
        text = "\n".join(p for p in parts if isinstance(p, str)).strip()
        if role in ("user", "assistant") and text:
            messages.append(Message(role, None, text, _time(m.get("create_time")), str(node_id)))
    return Session(
        f"chatgpt-{_name(c.get('id') or c.get('conversation_id'), n)}", _time(c.get("create_time")), tuple(messages)
    )


def _time(value: Any) -> str | None:
    return None if value in (None, "") else said_at(value)


def _turn_id(identity: Identity, thread: str, position: int, text: str) -> str:
    key = "\x00".join((identity.tenant, identity.user or "", identity.agent or "", thread, str(position), text))
    return "cnv_i" + hashlib.sha256(key.encode()).hexdigest()[:24]


def import_sessions(
    backend: Backend,
    embedder: Embedder,
    identity: Identity,
    sessions: Sequence[Session],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> TurnImportReport:
    """Write each session as a thread of `identity`'s user and agent, a session per transaction; turns
    already there are skipped. `progress(messages done, messages in all)` is called after each session."""
    report = TurnImportReport()
    now = now_iso()
    total, done = sum(len(s.messages) for s in sessions), 0
    for s in sessions:
        who = replace(identity, thread=s.thread)
        ids = [_turn_id(who, s.thread, i, m.text) for i, m in enumerate(s.messages)]
        with backend.session(who, now=now) as db, db.transaction():
            have = {r["id"] for r in db.fetch_all("context_rows_conversation_memory", ids=json.dumps(ids))}
            new = [(i, m) for i, m in zip(ids, s.messages, strict=True) if i not in have]
            if new:
                conversation = open_conversation(db, who, now)
                first = take_turns(db, conversation["id"], len(new))
                rows = [
                    _row(who, conversation["id"], first + k, turn_id, m, m.time or s.time or now, now)
                    for k, (turn_id, m) in enumerate(new)
                ]
                db.insert_many("conversation_memory", rows)
                index_turns(db, embedder, rows, now)
        report.sessions += 1
        report.turns += len(new)
        report.skipped += len(s.messages) - len(new)
        report.threads.append(s.thread)
        done += len(s.messages)
        if progress:
            progress(done, total)
    return report


def _row(
    who: Identity, conversation_id: str, index: int, turn_id: str, m: Message, when: str, now: str
) -> dict[str, Any]:
    return {
        "id": turn_id,
        "tenant_id": who.tenant,
        "user_id": who.user,
        "agent_id": who.agent,
        "thread_id": None,
        "session_id": None,
        "conversation_id": conversation_id,
        "window_id": None,
        "event_type": "turn",
        "role": m.role,
        "speaker": m.speaker or ((who.user if m.role == "user" else who.agent) or m.role),
        "content": m.text,
        "content_json": json.dumps({"via": "import", **({"ref": m.ref} if m.ref else {})}),
        "turn_index": index,
        "token_count": count_tokens(m.text),
        "version": 1,
        "valid_from": min(when, now),
        "source_table": None,
        "source_id": None,
        "source_version": None,
        "created_by": who.principal or who.user,
        "created_at": now,
    }
