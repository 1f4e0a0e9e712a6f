"""The toolbox rows a request has already read, so a later step of the same request does not read them again.

Over HTTP a tools/call reads its row three times: the step-up check (server/step_up.py) reads
it for the scopes it requires, FastMCP asks the provider for the tool, and the dispatcher
re-reads it when the call runs. The first two are one request's reads a few hundred
microseconds apart, each with its own worker-thread hop; the step-up check hands its rows to
the provider through a context variable, so the provider's read becomes that one. The
dispatcher's re-read stays a read of its own, in the call's hop: it is the check that refuses
a row disabled or changed since.

The rows are kept for the rest of the request only (the context variable is reset when the
step-up middleware returns; a legacy-era session runs its handlers in the session's own task,
which never sees it, and reads as before), and only for the same tenant, user, agent, thread
and tool name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from memgate.manager import Identity

Row = dict[str, Any]

_Key = tuple[str, str | None, str | None, str | None, str]
_READ: ContextVar[tuple[_Key, list[Row]] | None] = ContextVar("memgate_request_rows", default=None)


def _key(identity: Identity, name: str) -> _Key:
    # The wall's scope: what the row read was filtered on.
    return (identity.tenant, identity.user, identity.agent, identity.thread, name)


@contextmanager
def rows_read(identity: Identity, name: str, rows: list[Row]) -> Iterator[None]:
    """For the rest of this block (this request), `rows` are the active rows named `name` for `identity`."""
    token = _READ.set((_key(identity, name), rows))
    try:
        yield
    finally:
        _READ.reset(token)


def rows_already_read(identity: Identity, name: str) -> list[Row] | None:
    """The rows this request read for the same caller and name, or None when it read none."""
    read = _READ.get()
    if read is None or read[0] != _key(identity, name):
        return None
    return read[1]
