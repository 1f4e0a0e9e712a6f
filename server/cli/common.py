"""Shared CLI pieces: settings from the group, opening the manager, turning errors into exits.

Light on purpose: every command module imports this one, and `memgate CMD --help` imports
only CMD's module, so nothing here imports memgate.manager or the settings at module level
(server/cli/__init__.py says why and how).
"""

from __future__ import annotations

import functools
import logging
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from memgate.manager import Identity, MemgateError, MemoryManager, OperatorManager

    from ..settings import Settings


def settings_from(ctx: click.Context, **overrides: Any) -> Settings:
    from ..settings import load_settings

    root = ctx.find_root()
    return load_settings(root.params.get("config"), **{"database.path": root.params.get("db"), **overrides})


def open_manager(settings: Settings, *, create: bool = True) -> MemoryManager:
    """The manager on the configured database (the SQLite file is created on first use), with the
    embedder `[kb] embedder` names (the default, WordLlama, loads on first use)."""
    from memgate.manager import MemoryManager, embedder_named, open_backend

    embedder = None if settings.kb.embedder == "wordllama" else embedder_named(settings.kb.embedder)
    return MemoryManager(
        open_backend(settings.database, create=create),
        settings.caps,
        settings.memory_files,
        kb=settings.kb,
        context=settings.context,
        embedder=embedder,
    )


def operator_of(manager: MemoryManager) -> OperatorManager:
    """The operator's commands across tenants and scopes, on the manager's database (CLI only:
    the server and the toolbox never hold one)."""
    from memgate.manager import OperatorManager

    return OperatorManager(manager.backend)


class IdType(click.ParamType):
    """A tenant, user or agent id, checked by the one rule of manager/identity.py."""

    def __init__(self, kind: str, *, allow_unmapped: bool = False):
        self.kind = kind
        self.name = f"{kind} id"
        self.allow_unmapped = allow_unmapped

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from memgate.manager import MemgateError, check_id

        try:
            return check_id(value, self.kind, allow_unmapped=self.allow_unmapped)
        except MemgateError as exc:
            self.fail(exc.message, param, ctx)


TENANT_ID, USER_ID, AGENT_ID = IdType("tenant"), IdType("user"), IdType("agent")
#: `memgate log` also reads the calls the HTTP tenant gate refused, logged under UNMAPPED_TENANT
LOGGED_TENANT_ID = IdType("tenant", allow_unmapped=True)


class ManagerChoice(click.Choice):
    """A click.Choice among the values of a memgate.manager constant, read when first needed (parsing
    the command line, or this command's own --help), not when its module is imported."""

    def __init__(self, constant: str, case_sensitive: bool = True):
        self.constant = constant
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        import memgate.manager

        return tuple(getattr(memgate.manager, self.constant))


def tenant_option(
    required: bool = True, *, logged: bool = False, set_up: bool = True, help: str | None = None
) -> Callable:
    """--tenant/-t: a tenant `memgate init` set up. Any other is refused once the command line has
    parsed (so a usage error is said first), before the command runs: the error lists the tenants
    the database has, the closest first ("did you mean acme?"). `set_up=False` leaves the check to
    the command (`memgate import` of a bundle may create the tenant it names)."""
    option = click.option(
        "--tenant",
        "-t",
        required=required,
        metavar="TENANT",
        type=LOGGED_TENANT_ID if logged else TENANT_ID,
        help=help or "The tenant to act for." + ("" if required else " Default: every tenant."),
    )

    def decorate(fn: Callable) -> Callable:
        fn = option(fn)

        if not set_up:
            return fn

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            check_tenant(click.get_current_context(), kwargs.get("tenant"))
            return fn(*args, **kwargs)

        return checked

    return decorate


def check_tenant(ctx: click.Context, tenant: str | None) -> None:
    """Refuse (click's one-line error, exit 1) a tenant the database has not set up; None is every tenant."""
    from memgate.manager import UNMAPPED_TENANT, MemgateError, OperatorManager, open_backend

    if tenant is None or tenant == UNMAPPED_TENANT:
        return
    try:
        settings = settings_from(ctx)
        file = settings.database.file
        if file is not None and not file.exists():
            raise unknown_tenant(settings, tenant, [])
        backend = open_backend(settings.database, create=False)
        try:
            operator = OperatorManager(backend)
            if not operator.tenant_set_up(tenant):
                raise unknown_tenant(settings, tenant, operator.tenants_set_up())
        finally:
            backend.close()
    except MemgateError as exc:
        raise click.ClickException(exc.with_hint()) from exc


def unknown_tenant(settings: Settings, tenant: str, known: list[str]) -> MemgateError:
    """The refusal of a tenant `memgate init` never set up: the tenants there are, and the closest."""
    from difflib import get_close_matches

    from memgate.manager import ConfigError

    where = settings.database.location
    init = f"`{command_for(settings, f'init --tenant {tenant}')}`"
    if not known:
        return ConfigError(f"tenant {tenant} is not set up in {where}.", field="tenant", hint=f"Run {init} first.")
    close = get_close_matches(tenant, known, n=1, cutoff=0.6)
    return ConfigError(
        f"tenant {tenant} is not set up in {where}, whose tenants are {', '.join(known)}.",
        field="tenant",
        hint=(f"Did you mean {close[0]}? " if close else "") + f"To set {tenant} up, run {init}.",
    )


def scope_options(fn: Callable) -> Callable:
    fn = click.option("--thread", metavar="ID", help="Narrow to one thread's scope.")(fn)
    fn = click.option("--agent", metavar="ID", type=AGENT_ID, help="Narrow to one agent's scope.")(fn)
    fn = click.option("--user", "-u", metavar="ID", type=USER_ID, help="Narrow to one user's scope.")(fn)
    return fn


def command_for(settings: Settings, args: str) -> str:
    """`memgate ARGS` as a command that acts on the configured database (`--db` when it is not the default)."""
    from memgate.manager import default_database_path

    path = settings.database.path
    db = "" if path == default_database_path() else f"--db {shlex.quote(str(path))} "
    return f"memgate {db}{args}"


def require_tenant(manager: MemoryManager, settings: Settings, identity: Identity, *, serving: bool = False) -> None:
    """Refuse a tenant `memgate init` never set up (no toolbox rows) and, when `serving`, one
    whose every tool is disabled: a host would see no tools and nothing would say why."""
    from memgate.manager import ConfigError

    tenant, where = identity.tenant, settings.database.location
    operator = operator_of(manager)
    versions = operator.tool_versions(tenant)
    if not versions:
        raise unknown_tenant(settings, tenant, operator.tenants_set_up())
    if serving and not manager.active_tools(identity):
        name = versions[0]["tool_name"]
        raise ConfigError(
            f"every tool of tenant {tenant} in {where} is disabled, so a host would see none.",
            field="tenant",
            hint=f"Enable one: `{command_for(settings, f'tools enable {name} -t {tenant}')}`.",
        )


def tenants_to_act_for(manager: MemoryManager, settings: Settings, tenant: str | None) -> list[str]:
    """The tenant named (refused when `memgate init` never set it up), else every tenant: the upkeep
    commands' `-t` (expire, optimize)."""
    if tenant is not None:
        require_tenant(manager, settings, operator_identity(tenant))
        return [tenant]
    return operator_of(manager).tenants()


def err_line(line: str) -> None:
    """One line on stderr: progress and per-item detail, kept apart from the summary on stdout."""
    click.echo(line, err=True)


def operator_identity(
    tenant: str, user: str | None = None, agent: str | None = None, thread: str | None = None
) -> Identity:
    """The CLI acts for a tenant on the operator's authority (file access to the database)."""
    from memgate.manager import Identity

    return Identity(tenant=tenant, user=user, agent=agent, thread=thread, principal="cli:operator")


def operator_name() -> str:
    """Who asked, as the erasure, export and consolidation records name it: cli:operator:<login>."""
    import getpass

    try:
        return f"cli:operator:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli:operator:unknown"


def friendly_errors(fn: Callable) -> Callable:
    """Turn memgate errors into `Error: ...` with the fix, exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            from memgate.manager import MemgateError

            if isinstance(exc, MemgateError):
                raise click.ClickException(exc.with_hint()) from exc
            raise

    return wrapper


#: every log line the server writes, whoever logs it
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: libraries that install their own handlers (fastmcp a rich console, uvicorn its formatter)
_LIBRARY_LOGGERS = ("fastmcp", "mcp", "uvicorn", "uvicorn.error", "uvicorn.access")


def setup_logging(level: str) -> None:
    """One format, on stderr only (on stdio, stdout is the protocol), for memgate's loggers and
    the libraries': their own handlers are removed so their records reach the root handler."""
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.INFO), format=LOG_FORMAT, force=True)
    for name in _LIBRARY_LOGGERS:
        library = logging.getLogger(name)
        for handler in library.handlers[:]:
            library.removeHandler(handler)
        library.propagate = True
        library.setLevel(logging.NOTSET)
