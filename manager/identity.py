"""Who is calling: the trusted identity a call runs under.

An Identity comes from the transport (verified JWT claims over HTTP, launch
configuration over stdio), never from tool arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    #: extra trusted request values (e.g. JWT claims) that `context` memory stores may key on
    context: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.tenant or not isinstance(self.tenant, str):
            raise ValueError("Identity.tenant must be a non-empty string")

    def context_value(self, key: str) -> str | None:
        return dict(self.context).get(key)
