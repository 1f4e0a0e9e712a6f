"""Who is calling: the trusted identity a call runs under.

An Identity comes from the transport (verified JWT claims over HTTP, launch
configuration over stdio), never from tool arguments.

Tenant, user and agent ids follow one rule wherever they enter (CLI flags, [stdio]
settings, JWT claims, the demo): 1 to 200 characters of letters, digits and
`. _ @ : | + -`, starting with a letter or digit. That admits e-mail addresses and
identity-provider subjects (`auth0|5f7c`) and keeps out spaces, quotes, slashes and
control characters, so an id reads the same in a log line, a store key and a shell.

One tenant name breaks the rule on purpose: UNMAPPED_TENANT, under which the HTTP tenant
gate logs calls it refused before any tenant was known. Since no id may start with ":",
no real tenant can be named so; only Identity (for that log row) and the operator's
`memgate log -t :unmapped` accept it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import InvalidArgument

#: the tenant refused HTTP calls are logged under before any tenant is known
UNMAPPED_TENANT = ":unmapped"
ID_RULE = "1-200 characters of letters, digits and . _ @ : | + -, starting with a letter or digit"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@:|+-]{0,199}")


def check_id(value: object, kind: str, *, allow_unmapped: bool = False) -> str:
    """`value` if it is a valid tenant, user or agent id (`kind` names which); else InvalidArgument.

    `allow_unmapped` admits the reserved UNMAPPED_TENANT as a tenant (reading its log rows).
    """
    if isinstance(value, str) and _ID.fullmatch(value):
        return value
    if allow_unmapped and kind == "tenant" and value == UNMAPPED_TENANT:
        return value
    shown = repr(value) if not isinstance(value, str) or len(value) <= 60 else repr(value[:60]) + "..."
    raise InvalidArgument(f"{shown} is not a valid {kind} id: use {ID_RULE}.", field=kind)


@dataclass(frozen=True)
class Identity:
    tenant: str
    user: str | None = None
    agent: str | None = None
    thread: str | None = None
    principal: str | None = None
    scopes: frozenset[str] = field(default_factory=frozenset)
    roles: frozenset[str] = field(default_factory=frozenset)
    client_name: str | None = None
    client_version: str | None = None
    session: str | None = None
    #: the model the host says it runs (recorded in the call log, never trusted for access)
    model: str | None = None
    #: the tool being called and the call's id, for the database session's attributes
    #: (Oracle's V$SESSION action and client identifier); None outside a tool call
    tool: str | None = None
    call_id: str | None = None
    #: extra trusted request values (e.g. JWT claims) that `context` memory stores may key on
    context: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        check_id(self.tenant, "tenant", allow_unmapped=True)
        for kind in ("user", "agent"):
            if getattr(self, kind) is not None:
                check_id(getattr(self, kind), kind)

    def context_value(self, key: str) -> str | None:
        return dict(self.context).get(key)
