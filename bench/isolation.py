"""The isolation checker: does a result carry an id or marker that belongs to another tenant or user?

Every id in the database (each table's `id`, with its tenant and, where it has one, its
user) and every planted marker (MARKER_<tenant>_<user>) is registered with its owner. A
result text is split into id-shaped tokens; a token owned only by other tenants, or only
by other users of the caller's tenant, is a leak. A row shared by a tenant's users (no
user_id) belongs to every user of that tenant.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

__all__ = ["IsolationChecker", "Owner", "marker"]

_TOKEN = re.compile(r"[A-Za-z0-9_.@|+-]+")


def marker(tenant: str, user: str) -> str:
    """A string only (tenant, user)'s rows carry, planted in their claims, documents and memory files."""
    return f"MARKER_{tenant}_{user}".replace("-", "_")


@dataclass(frozen=True)
class Owner:
    tenant: str
    #: None: shared by every user of the tenant
    user: str | None = None

    def visible_to(self, tenant: str, user: str | None) -> bool:
        return self.tenant == tenant and (self.user is None or self.user == user)


class IsolationChecker:
    def __init__(self) -> None:
        self.owners: dict[str, set[Owner]] = defaultdict(set)

    def own(self, token: str, owner: Owner) -> None:
        self.owners[token].add(owner)

    def plant(self, tenant: str, user: str) -> str:
        token = marker(tenant, user)
        self.own(token, Owner(tenant, user))
        return token

    @classmethod
    def from_database(cls, backend, users: dict[str, list[str]]) -> IsolationChecker:
        """Every table's ids with their owners, read as the operator; and a marker per (tenant, user) in `users`."""
        checker = cls()
        with backend.operator_session() as s:
            for table in backend.tables():
                physical = backend.physical_table(table)
                columns = {r["name"] for r in s.raw(f"SELECT name FROM pragma_table_info('{physical}')")}
                if not {"id", "tenant_id"} <= columns:
                    continue
                user = "user_id" if "user_id" in columns else "NULL"
                for row in s.raw(f"SELECT id, tenant_id, {user} AS user_id FROM {physical}"):
                    checker.own(str(row["id"]), Owner(row["tenant_id"], row["user_id"]))
        for tenant, names in users.items():
            for name in names:
                checker.plant(tenant, name)
        return checker

    def foreign(self, text: str, tenant: str, user: str | None) -> list[str]:
        """The tokens of `text` that only other tenants or other users may see, in order of appearance."""
        found = []
        for token in dict.fromkeys(_TOKEN.findall(text or "")):
            owners = self.owners.get(token)
            if owners and not any(o.visible_to(tenant, user) for o in owners):
                found.append(token)
        return found
