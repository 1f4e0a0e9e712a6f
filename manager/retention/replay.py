"""What replay asks of erasure: which of a window's sources an erasure removed."""

from __future__ import annotations

from collections.abc import Sequence

from ..backend.base import Backend, Row


def erased_ids(backend: Backend, tenant: str, ids: Sequence[str]) -> set[str]:
    """The ids among `ids` that an erasure of `tenant` removed (operator read; ids only, no content)."""
    if not ids:
        return set()
    with backend.retention_store(tenant) as store:
        return store.erased(ids)


def erasures(backend: Backend, tenant: str, limit: int = 50) -> list[Row]:
    """The tenant's erasure records, newest first (who asked, when, whom, counts; no content)."""
    with backend.retention_store(tenant) as store:
        return store.erasures(limit)
