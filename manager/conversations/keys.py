"""Which conversation a caller is in, and its turn numbers.

A conversation is the caller's own: keyed by tenant, user, agent and thread name together, so two
users (or two agents, or a user with and without an agent) that use one thread name have two
conversations that share nothing. A caller with no thread has one conversation per window session
key (its MCP session, else its client: server/identity.py), and a caller with neither has one
conversation of its user and agent. The tenant is the wall's: a key is looked up through it.

The conversation row holds the next turn number. An append takes numbers inside its write
transaction: it reads the counter (Oracle locks the row with SELECT ... FOR UPDATE; SQLite's BEGIN
IMMEDIATE already serialises writers) and writes it back bumped, so an append reads one row
however long the conversation is, and two writers never pick one number (the unique index on
(conversation_id, turn_index) is the second wall).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backend.base import Row, Session
from ..errors import Conflict, NotFound
from ..identity import Identity
from ..ids import new_id

__all__ = ["ConversationKey", "find", "open_conversation", "take_turns"]


@dataclass(frozen=True)
class ConversationKey:
    """A conversation's key within the caller's tenant."""

    user: str | None
    agent: str | None
    #: the thread's name; None for a conversation with no thread
    thread: str | None
    #: a thread-less conversation's window session key
    session: str | None

    @classmethod
    def of(cls, identity: Identity) -> ConversationKey:
        return cls(identity.user, identity.agent, identity.thread, None if identity.thread else identity.session)

    def binds(self) -> dict[str, str | None]:
        return {"user_id": self.user, "agent_id": self.agent, "thread_name": self.thread, "session_key": self.session}


def find(session: Session, identity: Identity) -> Row | None:
    """The caller's conversation, or None when it has not said anything yet."""
    return session.fetch_one("conversation_by_key", **ConversationKey.of(identity).binds())


def open_conversation(session: Session, identity: Identity, now: str) -> Row:
    """The caller's conversation, made when it has none. Call inside a transaction."""
    row = find(session, identity)
    if row is not None:
        return row
    key = ConversationKey.of(identity)
    row = {
        "id": new_id("conv"),
        "tenant_id": identity.tenant,
        "user_id": key.user,
        "agent_id": key.agent,
        "thread_name": key.thread,
        "session_id": key.session,
        "next_turn": 1,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }
    try:
        session.insert("conversation", row)
    except Conflict:  # Oracle: another transaction made it first (SQLite's writers never race here)
        made = find(session, identity)
        if made is None:
            raise
        return made
    return row


def take_turns(session: Session, conversation_id: str, count: int = 1) -> int:
    """Reserve `count` consecutive turn numbers of a conversation; returns the first. Inside the
    append's transaction: the counter is read (locked on Oracle) and written back bumped."""
    row = session.fetch_one("conversation_next_turn", id=conversation_id)
    if row is None:
        raise NotFound(f"no conversation {conversation_id} for this caller")
    first = int(row["next_turn"])
    session.execute("conversation_set_next_turn", id=conversation_id, next_turn=first + count)
    return first
