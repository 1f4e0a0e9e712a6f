"""`memgate export`, `memgate import`: a scope's memory to a bundle and back (operator only)."""

from __future__ import annotations

import click

from .common import (
    AGENT_ID,
    USER_ID,
    check_tenant,
    err_line,
    friendly_errors,
    open_manager,
    operator_identity,
    operator_name,
    require_tenant,
    settings_from,
    tenant_option,
)

#: what --from takes: memgate.manager's IMPORT_SOURCES, spelled out so `memgate import --help` imports no
#: manager (tests/cli/test_cli_startup.py checks the two agree)
IMPORT_SOURCES = ("bundle", "mcp-memory", "basic-memory", "jsonl")


def register(cli: click.Group) -> None:
    @cli.command("export")
    @tenant_option()
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Export this user's memory.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Export this agent's memory.")
    @click.option("--thread", metavar="ID", help="Export this thread's memory.")
    @click.option("--out", "-o", type=click.Path(file_okay=False), metavar="FOLDER", help="A new or empty folder.")
    @click.option(
        "--batch", type=click.IntRange(1, 100_000), default=500, show_default=True, help="Rows read at a time."
    )
    @click.option("--list", "list_", is_flag=True, help="List the tenant's export and import records instead.")
    @click.pass_context
    @friendly_errors
    def export_(ctx, tenant, user, agent, thread, out, batch, list_) -> None:
        """Write every record a tenant, or one user, agent or thread in it, owns to a bundle.

        The bundle is a folder: manifest.json (counts and sha256 of every file), one JSONL file per
        table (every version, lifecycle, links, provenance, candidates and assessments), images as
        files, and shared.jsonl (what others share with the scope: listed, not included). Each row
        is read through the tenant wall in its own scope. The export is recorded (--list).

        \b
        Examples:
          memgate export -t acme --user jane --out ./jane-2026-12-05
          memgate export -t acme --out ./acme-full
          memgate export -t acme --list
        """
        from memgate.manager import ConfigError, export_scope, portability_records

        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            if list_:
                for r in portability_records(manager.backend, tenant):
                    who = f"{r['scope_kind']}={r['subject']}" if r["subject"] else r["scope_kind"]
                    source = f" from {r['source_tenant']}" if r["source_tenant"] else ""
                    click.echo(
                        f"{r['record_id']} {r['action']:<6} {who}{source} by {r['requested_by']} {r['recorded_at']} "
                        f"sha256 {r['bundle_sha256']} {r['counts_json']}"
                    )
                return
            subjects = [(k, v) for k, v in (("user", user), ("agent", agent), ("thread", thread)) if v]
            if len(subjects) > 1:
                raise ConfigError("name at most one of --user, --agent, --thread", field="subject")
            if not out:
                raise ConfigError("name the bundle's folder with --out", field="out")
            kind, subject = subjects[0] if subjects else ("tenant", None)
            report = export_scope(
                manager.backend,
                tenant,
                kind,
                subject,
                out,
                requested_by=operator_name(),
                batch=batch,
                progress=err_line,
            )
        finally:
            manager.close()
        for table, n in report.counts.items():
            click.echo(f"{table:<34} {n:>8}")
        for table, why in report.left_out.items():
            click.echo(f"{table:<34} left out: {why}")
        who = "tenant" if kind == "tenant" else f"{kind} {subject}"
        click.echo(
            f"exported {report.total} row(s) and {report.images} image file(s) of {who} in tenant {tenant} "
            f"to {report.path}; {report.shared} shared row(s) listed, not included"
        )
        click.echo(f"bundle sha256 {report.sha256} (export {report.record_id})")

    @cli.command("import")
    @click.argument("path", type=click.Path(exists=True))
    @tenant_option(
        required=False,
        set_up=False,
        help="Into this tenant (a bundle: default its own tenant; --from: required).",
    )
    @click.option(
        "--from",
        "fmt",
        type=click.Choice(IMPORT_SOURCES),
        default="bundle",
        show_default=True,
        help="What PATH is: a memgate bundle, or another tool's memories (each proposed to the promotion gate).",
    )
    @click.option(
        "--user", "-u", type=USER_ID, metavar="ID", help="Another tool's memories: propose them for this user."
    )
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Another tool's memories: propose them for this agent.")
    @click.option("--sha256", "expected", metavar="HEX", help="Refuse the bundle unless its sha256 is this one.")
    @click.option("--dry-run", is_flag=True, help="Say what would be imported or proposed; change nothing.")
    @click.option(
        "--batch", type=click.IntRange(1, 100_000), default=500, show_default=True, help="Rows per transaction."
    )
    @click.option(
        "--new-tenant", is_flag=True, help="A bundle into a tenant not set up here yet (else -t must be set up)."
    )
    @click.pass_context
    @friendly_errors
    def import_(ctx, path, tenant, fmt, user, agent, expected, dry_run, batch, new_tenant) -> None:
        """Import a bundle `memgate export` wrote, or another tool's memories (--from).

        A bundle is checked first, whole: a file that does not match the manifest refuses it. Then
        each row is written in its own scope through the tenant wall: inserted when new, left when
        the same (running it twice changes nothing), updated only to a newer version, never over
        one. Into another tenant (-t) the ids are mapped (the same way every time); a tenant not set
        up here yet is refused as a likely typo unless --new-tenant says it is meant (a tenant's
        bundle brings its toolbox rows).

        Another tool's file (--from mcp-memory | basic-memory | jsonl) is stored as a source
        document of the importing scope (-t, and --user or --agent), and each memory in it is a
        proposal to the promotion gate resting on it: the gate's checks and the tenant's policy
        decide, and what it holds back waits in `memgate candidates`.

        \b
        Examples:
          memgate import ./jane-2026-12-05 --dry-run
          memgate import ./jane-2026-12-05 --sha256 3f2a...
          memgate import ./acme-full -t acme-staging --new-tenant
          memgate import memory.jsonl --from mcp-memory -t acme --user jane --dry-run
          memgate import ./notes --from basic-memory -t acme --agent research-assistant
          memgate import mem0-export.jsonl --from jsonl -t acme
        """
        from memgate.manager import ConfigError, import_bundle

        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        if fmt != "bundle":
            try:
                _propose(manager, settings, fmt, path, tenant, user, agent, dry_run)
            finally:
                manager.close()
            return
        if user or agent:
            raise ConfigError("--user and --agent choose the scope of another tool's memories (--from)", field="user")
        if tenant and not new_tenant:
            check_tenant(ctx, tenant)
        try:
            report = import_bundle(
                manager.backend,
                path,
                requested_by=operator_name(),
                tenant=tenant,
                expected_sha256=expected,
                batch=batch,
                dry_run=dry_run,
                progress=err_line,
            )
        finally:
            manager.close()
        outcomes = ("inserted", "unchanged", "updated", "kept", "refused")
        for table, counts in report.counts.items():
            click.echo(f"{table:<34} " + " ".join(f"{o} {counts[o]}" for o in outcomes if counts[o]))
        for line in report.refusals:
            click.echo(f"refused: {line}")
        for table, why in report.left_out.items():
            click.echo(f"{table:<34} not in the bundle: {why}")
        verb = "would import" if dry_run else "imported"
        click.echo(
            f"{verb} into tenant {report.tenant} from {report.source_tenant}: "
            + ", ".join(f"{report.total(o)} {o}" for o in outcomes)
            + (f"; {report.mapped} id(s) mapped for the new tenant" if report.mapped else "")
        )
        click.echo(f"bundle sha256 {report.sha256}" + (f" (import {report.record_id})" if report.record_id else ""))


def _propose(manager, settings, fmt, path, tenant, user, agent, dry_run) -> None:
    from memgate.manager import ConfigError, propose_file

    if not tenant:
        raise ConfigError("name the tenant to propose the memories to: -t TENANT", field="tenant")
    require_tenant(manager, settings, operator_identity(tenant))
    report = propose_file(
        manager, tenant, fmt, path, user=user, agent=agent, dry_run=dry_run, say=click.echo if dry_run else err_line
    )
    for line in report.skipped:
        click.echo(f"skipped {line}")
    if dry_run:
        click.echo(
            f"would propose {report.proposed} memor{'y' if report.proposed == 1 else 'ies'} from {path}; nothing was stored"
        )
        return
    for name, document in report.documents.items():
        click.echo(f"source {name}: stored as {document} (collection imported)")
    for rule, n in sorted(report.rules.items()):
        click.echo(f"held back or refused by rule {rule}: {n}")
    click.echo(
        f"proposed {report.proposed} memor{'y' if report.proposed == 1 else 'ies'} from {path}: "
        + ", ".join(f"{n} {d}" for d, n in report.decisions.items())
        + f" ({report.per_second:.0f} proposals/s); review what waits: memgate candidates ls -t {tenant} --decision pending"
    )
