"""`memgate forget`, `memgate expire`, `memgate retention show|set`: retention and erasure (operator only)."""

from __future__ import annotations

import json

import click

from .common import (
    AGENT_ID,
    USER_ID,
    err_line,
    friendly_errors,
    open_manager,
    operator_identity,
    operator_name,
    require_tenant,
    settings_from,
    tenant_option,
    tenants_to_act_for,
)


def reembed_lines(tenant: str, scopes: list[tuple[str | None, str | None]], verbose: bool = False) -> list[str]:
    """The `memgate reembed` command that embeds cleared rows again, in every scope that holds them (it
    acts as each scope's identity in turn); with `verbose`, under it the one-scope command of each."""
    lines = [f"  to embed them again: memgate reembed -t {tenant}"]
    if verbose:
        for user, agent in scopes:
            scope = (f" --user {user}" if user else "") + (f" --agent {agent}" if agent else "")
            lines.append(f"    of them, in one scope: memgate reembed -t {tenant}{scope}")
    return lines


def register(cli: click.Group) -> None:
    @cli.command("forget")
    @tenant_option()
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Erase this user's content.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Erase this agent's content.")
    @click.option("--thread", metavar="ID", help="Erase this thread's content.")
    @click.option("--dry-run", is_flag=True, help="Count what would be erased; change nothing.")
    @click.option("--yes", is_flag=True, help="Erase for real (required unless --dry-run).")
    @click.option(
        "--batch", type=click.IntRange(1, 100_000), default=500, show_default=True, help="Rows per transaction."
    )
    @click.option("--no-vacuum", is_flag=True, help="SQLite: skip the VACUUM that rewrites the file after erasing.")
    @click.option("--list", "list_", is_flag=True, help="List the tenant's erasure records instead.")
    @click.option(
        "--record-empty",
        is_flag=True,
        help="Write an erasure record even when the subject has no rows (to record the request itself).",
    )
    @click.pass_context
    @friendly_errors
    def forget(ctx, tenant, user, agent, thread, dry_run, yes, batch, no_vacuum, list_, record_empty) -> None:
        """Erase one user's, agent's or thread's content everywhere memgate copied it.

        Base rows, every version, the lexical index, embeddings, image bytes, links and manifests
        that name them, memory files of their stores; call-log rows keep who called what, with the
        arguments and result replaced by "[erased]". Writes one erasure record (counts, no content).
        An interrupted run is finished by running the same command again. A subject with no rows
        (a mistyped id, often) is said so, and no record is written unless --record-empty asks.

        \b
        Examples:
          memgate forget -t acme --user jane --dry-run
          memgate forget -t acme --user jane --yes
          memgate forget -t acme --list
        """
        from memgate.manager import ConfigError, erase, erasures

        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            if list_:
                for r in erasures(manager.backend, tenant):
                    click.echo(
                        f"{r['erasure_id']} {r['status']:<7} {r['subject_kind']}={r['subject']} by {r['requested_by']} "
                        f"{r['started_at']} .. {r['finished_at'] or '-'} {r['counts_json']}"
                    )
                return
            subjects = [(k, v) for k, v in (("user", user), ("agent", agent), ("thread", thread)) if v]
            if len(subjects) != 1:
                raise ConfigError("name exactly one subject: --user, --agent or --thread", field="subject")
            if not dry_run and not yes:
                raise ConfigError(
                    "erasure cannot be undone; nothing was erased",
                    field="yes",
                    hint="Look first with --dry-run, then add --yes.",
                )
            kind, subject = subjects[0]
            report = erase(
                manager.backend,
                tenant,
                kind,
                subject,
                requested_by=operator_name(),
                dry_run=dry_run,
                batch=batch,
                compact=not no_vacuum,
                progress=err_line,
                record_empty=record_empty,
            )
        finally:
            manager.close()
        none = f"{kind} {subject} has no rows in tenant {tenant}"
        if not dry_run and not report.erasure_id:
            click.echo(f"{none}: nothing erased, and no erasure record written (--record-empty writes one).")
            return
        verb = "would erase" if dry_run else "erased"
        for table, n in sorted(report.counts.items()):
            click.echo(f"{table:<34} {n:>8}")
        click.echo(
            f"{verb} {report.total} row(s) of {kind} {subject} in tenant {tenant}"
            + ("" if dry_run else f" (erasure {report.erasure_id})")
        )
        for key, value in report.purge.items():
            click.echo(f"{key}: {value}")
        if dry_run and not report.total:
            click.echo(f"({none}: check the id; a real run writes no erasure record unless --record-empty)")

    @cli.command("expire")
    @tenant_option(required=False)
    @click.option("--dry-run", is_flag=True, help="Count what would expire; change nothing.")
    @click.option(
        "--batch", type=click.IntRange(1, 100_000), default=500, show_default=True, help="Rows per transaction."
    )
    @click.option("--vacuum", is_flag=True, help="SQLite: rewrite the file afterwards (drops freed text too).")
    @click.option(
        "--verbose", "-v", is_flag=True, help="Also name each user/agent scope whose embeddings were cleared."
    )
    @click.pass_context
    @friendly_errors
    def expire_(ctx, tenant, dry_run, batch, vacuum, verbose) -> None:
        """Apply each tenant's retention policy: delete what is older than its memory type keeps.

        A reply that stays while the turn it replies to expires loses its embedding (it carried that
        turn's words); under their count, one line says how to embed them again from their own words,
        in every user/agent scope at once: `memgate reembed -t TENANT`. --verbose also names each
        scope, with the command that embeds that scope alone.

        \b
        Examples:
          memgate expire --dry-run
          memgate expire -t acme
          memgate expire -t acme --verbose
          # cron, nightly:  17 3 * * *  memgate expire >> /var/log/memgate-expire.log 2>&1
        """
        from memgate.manager import expire

        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            for t in tenants_to_act_for(manager, settings, tenant):
                report = expire(manager.backend, t, dry_run=dry_run, batch=batch, compact=vacuum, progress=err_line)
                verb = "would expire" if dry_run else "expired"
                for label, n in sorted(report.counts.items()):
                    click.echo(f"{t} {label:<44} {n:>8}")
                for label, n in sorted(report.cleared.items()):
                    click.echo(f"{t} {label}: {n} cleared")
                    for line in reembed_lines(t, report.cleared_scopes.get(label, []), verbose):
                        click.echo(line)
                click.echo(f"{t}: {verb} {report.total} row(s)")
        finally:
            manager.close()

    @cli.group("retention")
    def retention() -> None:
        """Show or set a tenant's retention policy (days per memory type, or keep)."""

    @retention.command("show")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def show(ctx, tenant) -> None:
        """The tenant's retention per memory type, and where each rule comes from.

        \b
        Example:
          memgate retention show -t acme
        """
        from memgate.manager import load_policy

        manager = open_manager(settings_from(ctx), create=False)
        try:
            policy = load_policy(manager.backend, tenant)
        finally:
            manager.close()
        for memory_type, days in policy.days.items():
            shown = "keep" if days is None else f"{days} days"
            click.echo(f"{memory_type:<22} {shown:<10} ({policy.source[memory_type]})")

    @retention.command("set")
    @tenant_option()
    @click.argument("rules", nargs=-1, required=True, metavar="TYPE=DAYS|keep ...")
    @click.pass_context
    @friendly_errors
    def set_(ctx, tenant, rules) -> None:
        """Set rules of the tenant's policy, e.g. conversation_memory=30 mcp_call_log=keep.

        \b
        Examples:
          memgate retention set -t acme conversation_memory=30 context_manifest=30
        """
        from memgate.manager import ConfigError, set_retention

        parsed = {}
        for rule in rules:
            memory_type, sep, value = rule.partition("=")
            if not sep:
                raise ConfigError(f"{rule!r} is not TYPE=DAYS or TYPE=keep", field="rules")
            parsed[memory_type.strip()] = value.strip()
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            stored = set_retention(manager.backend, tenant, parsed, principal="cli:operator")
        finally:
            manager.close()
        click.echo(json.dumps(stored, sort_keys=True))
