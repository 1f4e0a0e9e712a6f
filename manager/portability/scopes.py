"""Which rows a scope owns, which it is shown, and the identity that reads a row through the wall.

A scope is a tenant, or one user, agent or thread inside it. It owns the rows whose own scope
column names it (user_id = 'jane'), in every agent and thread, and the rows that belong to one of
those (a conversation's turns, summaries and recall rows, by conversation_id): exactly the rows
`memgate forget` erases for the same subject, so an export followed by an erasure and an import restores what was
erased. Rows shared at that level (user_id NULL) belong to someone else (the tenant, an agent);
those the scope can read are listed in the bundle, not included.

Every row's content is read, and every imported row written, by a session bound to that row's own
(user, agent, thread): the wall then decides what exists, as for any tool call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..backend.base import Row
from ..backend.retention_store import RowFilter
from ..errors import InvalidArgument
from ..identity import Identity
from ..retention.registry import REGISTRY, TableSpec

__all__ = [
    "KINDS",
    "SUBJECT_COLUMNS",
    "Triple",
    "by_triple",
    "check_scope",
    "exported_specs",
    "identity_for",
    "owned_filters",
    "triple_of",
    "visible_from",
]

KINDS = ("tenant", "user", "agent", "thread")
SUBJECT_COLUMNS = {"user": "user_id", "agent": "agent_id", "thread": "thread_id"}
SCOPE_COLUMNS = ("user_id", "agent_id", "thread_id")
#: reference columns that name the row a record belongs to (its key is `id`): a record of a row the scope
#: owns moves with it (a turn of a conversation of the thread, which carries no thread of its own)
OWNERS = {"conversation_id": "conversation"}
#: (user_id, agent_id, thread_id) of one row; None is shared at that level
Triple = tuple[str | None, str | None, str | None]


def check_scope(kind: str, subject: str | None) -> None:
    if kind not in KINDS:
        raise InvalidArgument(f"scope must be one of {', '.join(KINDS)}, got {kind!r}", field="scope")
    if kind != "tenant" and not subject:
        raise InvalidArgument(f"name the {kind} to export", field=kind)


def exported_specs() -> list[TableSpec]:
    """The registry's tables that move, owners first (a store before its files, a document before
    its chunks): the registry lists them in erasure order, dependents first, so this is reversed."""
    return [s for s in reversed(REGISTRY) if not s.not_exported]


def owned_filters(spec: TableSpec, kind: str, subject: str | None) -> list[RowFilter]:
    """The rows of `spec` the scope owns, as filters that select no row twice: those whose column for the
    subject names it (every row of the tenant for a tenant; a conversation's thread is its thread_name),
    then those that belong to a row it owns (OWNERS: a turn, summary or recall row of a conversation of
    the thread, which carries the conversation and no thread), as `memgate forget` erases them by
    reference. Empty when no column of the table names such a subject and nothing it belongs to does."""
    if kind == "tenant":
        return [RowFilter()]
    filters = []
    column = spec.subject_column(kind, SUBJECT_COLUMNS[kind])
    if column is not None:
        filters.append(RowFilter(subject=(column, str(subject))))
    for reference in spec.references:
        owner = OWNERS.get(reference)
        owner_column = None if owner is None else owner_spec(owner).subject_column(kind, SUBJECT_COLUMNS[kind])
        if owner is None or owner_column is None:
            continue
        # the rows the first filter took are not taken again
        skip = () if column is None else ((column, str(subject)),)
        filters.append(RowFilter(owned_by=(reference, owner, "id", owner_column, str(subject)), not_equals=skip))
    return filters


def owner_spec(table: str) -> TableSpec:
    return next(s for s in REGISTRY if s.table == table)


def triple_of(row: Row) -> Triple:
    return (row.get("user_id"), row.get("agent_id"), row.get("thread_id"))


def by_triple(rows: Iterable[Row]) -> dict[Triple, list[Row]]:
    groups: dict[Triple, list[Row]] = {}
    for r in rows:
        groups.setdefault(triple_of(r), []).append(r)
    return groups


def identity_for(tenant: str, triple: Triple, principal: str) -> Identity:
    """The identity whose wall shows exactly the rows of `triple` and those shared with it."""
    user, agent, thread = triple
    return Identity(tenant=tenant, user=user, agent=agent, thread=thread, principal=principal)


def visible_from(row: Triple, owned: Sequence[Triple]) -> bool:
    """Whether a row of scope `row` is shown to a session bound to one of the `owned` triples (each
    level NULL, or that triple's value): the wall's own rule, applied to a listing of ids."""
    return any(all(v is None or v == o for v, o in zip(row, mine)) for mine in owned)
