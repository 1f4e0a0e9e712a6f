"""open_backend: the one place a backend is built from settings."""

from __future__ import annotations

from .base import Backend
from .settings import DatabaseSettings


def open_backend(settings: DatabaseSettings | None = None, *, create: bool = True) -> Backend:
    """The backend `settings` describe. SQLite creates its file on first use unless `create` is False;
    an Oracle schema is installed only by migrate() (`memgate init`)."""
    settings = settings or DatabaseSettings()
    if settings.backend == "sqlite":
        from .sqlite.backend import SqliteBackend

        return SqliteBackend(settings.path, create=create, busy_timeout_ms=settings.busy_timeout_ms)
    if settings.backend == "oracle":
        from .oracle.backend import OracleBackend

        return OracleBackend(settings, create=create)
    raise ValueError(f"unknown database backend {settings.backend!r}")  # the settings model forbids it
