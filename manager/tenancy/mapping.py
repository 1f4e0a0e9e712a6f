"""Map a verified token's attributes to a tenant (and optionally a user).

The attributes come from a verifier the server trusts (a JWT's iss/sub, an introspection
response, Google's tokeninfo/userinfo), never from the request. A token's own tenant claim
stands unless a mapping names another tenant; then the call is refused, as it is when two
matching mappings name different tenants, or when nothing names a tenant at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from ..backend.base import Row, Session
from ..errors import InvalidArgument, NotFound, TenantMismatch, TenantUnmapped

#: the attributes a mapping can key on, most specific first: that order picks the mapped user
KINDS = ("iss_sub", "client_id", "hd", "email_domain")
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$")
_MAX_VALUE = 400
_MAX_NAME = 200


@dataclass(frozen=True)
class TokenAttributes:
    """What a verifier vouches for about a token; None where it says nothing."""

    iss: str | None = None
    sub: str | None = None
    client_id: str | None = None
    hd: str | None = None
    email_domain: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}


@dataclass(frozen=True)
class TenantMapping:
    kind: str
    issuer: str
    value: str
    tenant: str
    user: str | None = None
    note: str | None = None
    created_by: str | None = None
    created_at: str | None = None

    @classmethod
    def from_row(cls, row: Row) -> TenantMapping:
        return cls(
            kind=row["kind"],
            issuer=row["issuer"],
            value=row["value"],
            tenant=row["tenant_id"],
            user=row.get("user_id"),
            note=row.get("note"),
            created_by=row.get("created_by"),
            created_at=row.get("created_at"),
        )

    def describe(self) -> str:
        key = f"{self.issuer} {self.value}" if self.kind == "iss_sub" else self.value
        return f"{self.kind} {key}"


@dataclass(frozen=True)
class TenantChoice:
    """The tenant a call runs under, the user a mapping names (if any), and the mapping that decided."""

    tenant: str
    user: str | None = None
    mapping: TenantMapping | None = None


def choose(matches: list[TenantMapping], claimed: str | None) -> TenantChoice:
    """The tenant for a token with `claimed` (its tenant claim, or None) and these matching mappings."""
    if not matches:
        if claimed:
            return TenantChoice(tenant=claimed)
        raise TenantUnmapped("the token names no tenant and no tenant mapping matches it")
    ordered = sorted(matches, key=lambda m: KINDS.index(m.kind))
    tenants = sorted({m.tenant for m in ordered})
    if len(tenants) > 1:
        raise TenantMismatch(
            "tenant mappings that match the token name different tenants: "
            + ", ".join(f"{m.describe()} -> {m.tenant}" for m in ordered)
        )
    tenant = tenants[0]
    if claimed and claimed != tenant:
        raise TenantMismatch(
            f"the token's tenant claim {claimed!r} disagrees with the tenant mapping "
            f"{ordered[0].describe()} -> {tenant!r}"
        )
    user = next((m.user for m in ordered if m.user), None)
    return TenantChoice(tenant=tenant, user=user, mapping=ordered[0])


def match(session: Session, attributes: TokenAttributes) -> list[TenantMapping]:
    params: dict[str, Any] = {
        "iss": attributes.iss,
        "sub": attributes.sub,
        "client_id": attributes.client_id,
        "hd": _lower(attributes.hd),
        "email_domain": _lower(attributes.email_domain),
    }
    return [TenantMapping.from_row(r) for r in session.fetch_all("operator_tenant_mapping_match", **params)]


def listing(session: Session, tenant: str | None = None) -> list[TenantMapping]:
    return [TenantMapping.from_row(r) for r in session.fetch_all("operator_tenant_mapping_list", tenant=tenant)]


def put(
    session: Session,
    kind: str,
    value: str,
    tenant: str,
    *,
    issuer: str | None = None,
    user: str | None = None,
    note: str | None = None,
    created_by: str | None = None,
) -> TenantMapping:
    key = mapping_key(kind, value, issuer, tenant=tenant)
    _check_name(tenant, "tenant")
    if tenant.startswith(":"):
        raise InvalidArgument(
            f"tenant {tenant!r} may not start with ':' (names starting so are memgate's markers).", field="tenant"
        )
    if user is not None:
        _check_name(user, "user")
    session.execute(
        "operator_tenant_mapping_put",
        kind=key.kind,
        issuer=key.issuer,
        value=key.value,
        tenant=tenant,
        user_id=user,
        note=note,
        created_by=created_by,
    )
    return TenantMapping(key.kind, key.issuer, key.value, tenant, user, note, created_by)


def delete(session: Session, kind: str, value: str, issuer: str | None = None) -> TenantMapping:
    key = mapping_key(kind, value, issuer)
    rows = session.fetch_all("operator_tenant_mapping_delete", kind=key.kind, issuer=key.issuer, value=key.value)
    if not rows:
        raise NotFound(
            f"no tenant mapping for {key.describe()}.",
            field="value",
            hint="List the mappings with `memgate tenants ls`.",
        )
    return TenantMapping.from_row(rows[0])


def mapping_key(kind: str, value: str, issuer: str | None, *, tenant: str | None = None) -> TenantMapping:
    """The (kind, issuer, value) a mapping is stored under, normalised; InvalidArgument naming the field."""
    if kind not in KINDS:
        raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}, got {kind!r}.", field="kind")
    if not isinstance(value, str) or not value.strip() or len(value) > _MAX_VALUE:
        raise InvalidArgument(f"value must be 1 to {_MAX_VALUE} characters.", field="value")
    value = value.strip()
    if kind == "iss_sub":
        if not issuer or not issuer.strip():
            command = (
                f"memgate tenants map iss_sub {value.strip()} --issuer https://idp.example.com -t {tenant}"
                if tenant
                else "memgate tenants ls --json"
            )
            raise InvalidArgument(
                "an iss_sub mapping needs the token issuer as well as the subject.",
                field="issuer",
                hint=f"Name the token's iss, e.g. `{command}`.",
            )
        return TenantMapping(kind, issuer.strip(), value, "")
    if issuer:
        raise InvalidArgument(
            f"only iss_sub mappings take an issuer; a {kind} mapping matches any issuer.", field="issuer"
        )
    if kind in ("hd", "email_domain"):
        value = value.lower()
        if not _DOMAIN.match(value):
            raise InvalidArgument(f"{kind} must be a domain name such as acme.example, got {value!r}.", field="value")
    return TenantMapping(kind, "", value, "")


def _check_name(name: str, what: str) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > _MAX_NAME or name != name.strip():
        raise InvalidArgument(f"{what} must be 1 to {_MAX_NAME} characters without surrounding spaces.", field=what)


def _lower(value: str | None) -> str | None:
    return value.lower() if value else None
