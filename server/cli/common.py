"""Shared CLI pieces: settings from the group, opening the manager, turning errors into exits."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

import click

from memgate.manager import Identity, MemgateError, MemoryManager, open_backend

from ..settings import Settings, load_settings


def settings_from(ctx: click.Context, **overrides: Any) -> Settings:
    root = ctx.find_root()
    return load_settings(root.params.get("config"), **{"database.path": root.params.get("db"), **overrides})


def open_manager(settings: Settings, *, create: bool = True) -> MemoryManager:
    """The manager on the configured database (the SQLite file is created on first use)."""
    return MemoryManager(open_backend(settings.database, create=create), settings.caps, settings.memory_files)


def tenant_option(required: bool = True) -> Callable:
    return click.option("--tenant", "-t", required=required, metavar="TENANT",
                        help="The tenant to act for." + ("" if required else " Default: every tenant."))


def scope_options(fn: Callable) -> Callable:
    fn = click.option("--thread", metavar="ID", help="Narrow to one thread's scope.")(fn)
    fn = click.option("--agent", metavar="ID", help="Narrow to one agent's scope.")(fn)
    fn = click.option("--user", "-u", metavar="ID", help="Narrow to one user's scope.")(fn)
    return fn


def operator_identity(tenant: str, user: str | None = None, agent: str | None = None,
                      thread: str | None = None) -> Identity:
    """The CLI acts for a tenant on the operator's authority (file access to the database)."""
    return Identity(tenant=tenant, user=user, agent=agent, thread=thread, principal="cli:operator")


def friendly_errors(fn: Callable) -> Callable:
    """Turn memgate errors into `Error: ...` with the fix, exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemgateError as exc:
            raise click.ClickException(exc.with_hint()) from exc

    return wrapper


def setup_logging(level: str) -> None:
    # stderr only: on stdio, stdout is the protocol.
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
