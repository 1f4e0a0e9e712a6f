"""The record of each export and import, kept where the erasure records are (an operator table).

Who asked, when, which tenant and scope, the counts per table and the bundle's sha256; never a
row's content. `memgate export --list` shows them beside `memgate forget --list`'s erasures.
"""

from __future__ import annotations

import json

from ..backend.base import Backend, Row
from ..backend.retention_store import RetentionStore
from ..clock import now_iso
from ..ids import new_id

__all__ = ["record", "records"]


def record(
    store: RetentionStore,
    *,
    action: str,
    kind: str,
    subject: str | None,
    requested_by: str,
    counts: dict[str, int],
    sha256: str,
    source_tenant: str | None = None,
) -> str:
    """Write one record in the store's tenant (its own transaction); its id."""
    record_id = new_id("port")
    with store.transaction():
        store.session.execute(
            "portability_record",
            record=record_id,
            tenant=store.tenant,
            action=action,
            kind=kind,
            subject=subject,
            requested_by=requested_by,
            counts=json.dumps(counts, sort_keys=True),
            sha256=sha256,
            source_tenant=source_tenant,
            now=now_iso(),
        )
    return record_id


def records(backend: Backend, tenant: str, limit: int = 50) -> list[Row]:
    """The tenant's export and import records, newest first."""
    with backend.retention_store(tenant) as store:
        rows, _ = store.session.fetch_page("portability_records", limit, tenant=tenant)
        return rows
