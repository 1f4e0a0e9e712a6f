"""`memgate init` and `memgate doctor`."""

from __future__ import annotations

import click

from .common import TENANT_ID, friendly_errors, open_manager, operator_identity, operator_of, settings_from


def init_database(
    settings, tenants: list[str], demo: bool, tools_file: str | None = None, *, force_demo: bool = False
) -> list[str]:
    """Create or upgrade the schema, seed default tools for `tenants`, and the demo data. Returns report lines.

    The demo is refused, before anything is written, on a database whose tenants are not the demo's
    (another tenant, or an acme or globex without the demo's rows) unless `force_demo`."""
    from memgate.manager import (
        ACME,
        DEMO_TENANTS,
        ConfigError,
        load_tool_definitions,
        record_demo_window,
        seed_demo,
        tenants_not_the_demos,
    )

    lines = []
    where = settings.database.location
    file = settings.database.file
    existed = file is None or file.exists()
    manager = open_manager(settings)
    try:
        before, after = manager.migrate()
        if demo and not force_demo and (others := tenants_not_the_demos(manager)):
            raise ConfigError(
                f"{where} has tenants that are not the demo's: {', '.join(others)}; loading the demo would mix "
                "its rows into them, so nothing was loaded.",
                field="demo",
                hint="Run the demo on a database of its own (--db demo.db), or add --force-demo to load it here.",
            )
        state = (
            "created" if not existed or before == 0 else f"upgraded from {before}" if before < after else "up to date"
        )
        lines.append(f"schema: version {after} at {where} ({state})")
        wanted = list(
            dict.fromkeys(
                [
                    *tenants,
                    *([t.tenant for t in DEMO_TENANTS] if demo else []),
                    *([settings.stdio.tenant] if settings.stdio.tenant else []),
                ]
            )
        )
        definitions = load_tool_definitions(tools_file)
        for tenant in wanted:
            # Upgrade first: a memory row moved to view-only is what makes memory_write's seeding due.
            upgraded = manager.upgrade_default_tools(operator_identity(tenant), definitions)
            added = manager.seed_tools(operator_identity(tenant), definitions)
            lines.append(f"tools for {tenant}: " + (", ".join(added) + " added" if added else "already present"))
            if upgraded:
                lines.append(f"tools for {tenant}: {', '.join(upgraded)} upgraded to the current default tool_schema")
        if demo:
            seeded = seed_demo(manager)
            lines.append("demo data: " + (", ".join(seeded) + " seeded" if seeded else "already present"))
            if ACME.tenant in seeded:
                window = record_demo_window(manager)
                lines.append(
                    f"demo context window: {window.manifest_id} (memgate manifest show latest -t {ACME.tenant})"
                )
    finally:
        manager.close()
    return lines


def register(cli: click.Group) -> None:
    @cli.command("init")
    @click.option("--demo", is_flag=True, help="Also load the demo tenants acme and globex.")
    @click.option(
        "--force-demo", is_flag=True, help="Load the demo even into a database whose tenants are not the demo's."
    )
    @click.option(
        "--tenant",
        "-t",
        "tenants",
        multiple=True,
        metavar="TENANT",
        type=TENANT_ID,
        help="Seed the default toolbox rows for this tenant (repeatable).",
    )
    @click.option(
        "--tools-file",
        type=click.Path(exists=True, dir_okay=False),
        help="Toolbox definitions to seed instead of the shipped config/toolbox.json.",
    )
    @click.pass_context
    @friendly_errors
    def init(
        ctx: click.Context, demo: bool, force_demo: bool, tenants: tuple[str, ...], tools_file: str | None
    ) -> None:
        """Create or upgrade the database schema and seed toolbox rows.

        Safe to run again: it upgrades the schema only when this memgate knows a
        newer version, and adds only the tools and demo rows that are missing.

        \b
        Examples:
          memgate init --demo
          memgate init --tenant acme --tenant globex
          memgate --db ./team.db init -t acme
        """
        for line in init_database(
            settings_from(ctx), list(tenants), demo or force_demo, tools_file, force_demo=force_demo
        ):
            click.echo(line)

    @cli.command("doctor")
    @click.pass_context
    def doctor(ctx: click.Context) -> None:
        """Check settings, database, toolbox rows and tokenizer; say what is wrong in one screen.

        Exits 1 when something needs fixing.

        \b
        Example:
          MEMGATE_SERVER__TRANSPORT=http memgate doctor
        """
        from memgate.manager import MemgateError

        problems = 0

        def report(ok: bool | None, what: str, detail: str) -> None:
            """ok=None is a warning: worth knowing, not a failure."""
            nonlocal problems
            problems += 0 if ok is not False else 1
            click.echo(f"[{'ok' if ok else 'warn' if ok is None else 'FAIL'}] {what}: {detail}")

        try:
            settings = settings_from(ctx)
        except MemgateError as exc:
            report(False, "settings", exc.with_hint())
            raise SystemExit(1) from None
        report(True, "settings", str(getattr(settings, "_source", None) or "defaults and environment (no file)"))
        _check_database(settings, report)
        _check_transport(settings, report)
        try:
            from memgate.manager import count_tokens

            report(True, "tokenizer", f"o200k_base offline ({count_tokens('memgate doctor')} tokens for a probe)")
        except Exception as exc:
            report(False, "tokenizer", str(exc))
        if problems:
            click.echo(f"{problems} problem(s) found.")
            raise SystemExit(1)
        click.echo("All checks passed.")


def _check_database(settings, report) -> None:
    from memgate.manager import MemgateError, ToolRow

    file, where = settings.database.file, settings.database.location
    if file is not None and not file.exists():
        report(False, "database", f"{file} does not exist. Run `memgate init --demo` (or serve creates it).")
        return
    manager = open_manager(settings, create=False)
    try:
        try:
            manager.check_schema()
        except MemgateError as exc:  # an unreachable database says so here, in one line
            report(False, "database", exc.with_hint())
            return
        info = manager.describe()
        report(True, "database", f"{where} (schema {info['schema_version']}, {info['summary']})")
        _check_install(manager, report)
        tenants = operator_of(manager).tenants()
        report(
            bool(tenants),
            "tenants",
            ", ".join(tenants)
            if tenants
            else "none. Set one up: `memgate init --tenant acme` (or `memgate init --demo`).",
        )
        for tenant in tenants:
            rows = manager.active_tools(operator_identity(tenant))
            from memgate.toolbox import check_row  # the server stack: only when a doctor checks rows

            refused = []
            for raw in rows:
                try:
                    check_row(ToolRow.from_row(raw))
                except MemgateError as exc:
                    refused.append(f"{raw['tool_name']} ({exc})")
            served = len(rows) - len(refused)
            report(
                not refused,
                f"tools of {tenant}",
                f"{served} served" + (f"; refused: {'; '.join(refused)}" if refused else ""),
            )
    finally:
        manager.close()


def _check_install(manager, report) -> None:
    """What the install made (Oracle: packages VALID, VPD policies, the text index, the contexts),
    each failing check with its fix; nothing on SQLite, whose schema check says it all."""
    from memgate.manager import MemgateError

    try:
        checks = manager.install_checks()
    except MemgateError as exc:  # e.g. the owner's password is not in the environment
        report(None, "install checks", f"not run: {exc.with_hint()}")
        return
    for check in checks:
        report(check.ok, check.name, f"{check.detail} Fix: {check.fix}" if check.fix and not check.ok else check.detail)


def _check_transport(settings, report) -> None:
    from memgate.manager import MemgateError

    if settings.server.transport == "stdio":
        tenant = settings.stdio.tenant
        report(
            True if tenant else None,
            "stdio identity",
            f"tenant {tenant}, user {settings.stdio.user}, agent {settings.stdio.agent}"
            if tenant
            else "no [stdio] tenant; `memgate serve` needs --tenant (or --demo)",
        )
        return
    try:
        from memgate.server.dev_issuer import with_dev_issuer

        settings = with_dev_issuer(settings)
        settings.http.auth.check_complete()
        from memgate.server.app import public_base_url
        from memgate.server.auth import resource_url

        resource = resource_url(settings.http.auth, public_base_url(settings.server))
        report(True, "http auth", settings.http.auth.describe(resource))
    except MemgateError as exc:
        report(False, "http auth", exc.with_hint())
