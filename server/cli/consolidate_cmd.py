"""`memgate consolidate`: near duplicates, stale records and notes repeating passages, proposed as
merges for review; `ls`, `approve`, `reject` review them (operator only)."""

from __future__ import annotations

import click

from .common import (
    AGENT_ID,
    USER_ID,
    ManagerChoice,
    err_line,
    friendly_errors,
    open_manager,
    operator_identity,
    operator_name,
    require_tenant,
    settings_from,
    tenant_option,
)


def register(cli: click.Group) -> None:
    @cli.group("consolidate", invoke_without_command=True)
    @tenant_option(required=False, help="The tenant to look at (ls, approve and reject take their own).")
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Only this user's records.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Only this agent's records.")
    @click.option("--thread", metavar="ID", help="Only this thread's records.")
    @click.option("--apply", "apply_", is_flag=True, help="Record the proposals for review; carry out approved ones.")
    @click.pass_context
    @friendly_errors
    def consolidate_(ctx, tenant, user, agent, thread, apply_) -> None:
        """Look again at what is stored: near-duplicate records, records a later correction made
        stale, notes that repeat a knowledge-base passage. Proposes merges (a `duplicates` or
        `supersedes` link, the older or stale record ended, never deleted) and reports counts.

        A dry run by default: it writes nothing. --apply records the proposals for review and
        carries out the merges a review approved, and nothing else.

        \b
        Examples:
          memgate consolidate -t acme
          memgate consolidate -t acme --user jane --apply
          memgate consolidate ls -t acme
          memgate consolidate approve mrg_0661... -t acme
          memgate consolidate reject mrg_0661... -t acme
        """
        from memgate.manager import ConfigError, consolidate

        if ctx.invoked_subcommand is not None:
            return
        if not tenant:
            raise ConfigError("name the tenant: -t TENANT", field="tenant")
        subjects = [(k, v) for k, v in (("user", user), ("agent", agent), ("thread", thread)) if v]
        if len(subjects) > 1:
            raise ConfigError("name at most one of --user, --agent, --thread", field="subject")
        kind, subject = subjects[0] if subjects else ("tenant", None)
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            report = consolidate(
                manager.backend,
                manager.embedder,
                tenant,
                kind,
                subject,
                apply=apply_,
                principal=operator_name(),
                progress=err_line,
            )
        finally:
            manager.close()
        for f in report.found:
            m = f.match
            scope = ", ".join(f"{k} {v}" for k, v in zip(("user", "agent", "thread"), f.triple) if v) or "tenant-wide"
            click.echo(f"{m.reason:<15} {m.source.id} {m.relation} {m.target.id}  [{scope}] {m.detail}")
        examined = ", ".join(f"{n} {family}(s)" for family, n in sorted(report.examined.items())) or "no records"
        click.echo(f"examined {examined}")
        for reason, by in sorted(report.counts().items()):
            click.echo(f"{reason}: " + ", ".join(f"{family} {n}" for family, n in sorted(by.items())))
        if not apply_:
            click.echo(f"would propose {len(report.found)} merge(s); nothing was written (--apply records them)")
            return
        click.echo(
            f"recorded {report.recorded} new proposal(s) for review ({report.proposed_before} proposed before); "
            f"carried out {report.applied} approved merge(s), {report.gone} gone (an end changed since)"
        )

    @consolidate_.command("ls")
    @tenant_option()
    @click.option("--decision", type=ManagerChoice("MERGE_DECISIONS"), help="Only merges with this decision.")
    @click.pass_context
    @friendly_errors
    def ls(ctx, tenant, decision) -> None:
        """The tenant's proposed merges and their decisions, oldest first.

        \b
        Example:
          memgate consolidate ls -t acme --decision proposed
        """
        from memgate.manager import merges

        manager = open_manager(settings_from(ctx), create=False)
        try:
            rows = merges(manager.backend, tenant, decision)
        finally:
            manager.close()
        for r in rows:
            scope = ", ".join(f"{k} {r[k + '_id']}" for k in ("user", "agent", "thread") if r[k + "_id"]) or "tenant"
            click.echo(
                f"{r['merge_id']} {r['decision']:<8} {r['reason']:<15} {r['from_id']} {r['relation']} {r['to_id']} "
                f"(ends {r['retire_id']}) [{scope}] {r['detail'] or ''}"
            )
        click.echo(f"{len(rows)} merge(s)")

    for verb, decision in (("approve", "approved"), ("reject", "rejected")):
        _review_command(consolidate_, verb, decision)


def _review_command(group: click.Group, verb: str, decision: str) -> None:
    @group.command(verb)
    @click.argument("merge_ids", nargs=-1, required=True, metavar="MERGE_ID...")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def review(ctx, merge_ids, tenant) -> None:
        from memgate.manager import decide_merge

        manager = open_manager(settings_from(ctx), create=False)
        try:
            for merge_id in merge_ids:
                row = decide_merge(manager.backend, tenant, merge_id, decision, operator_name())
                click.echo(f"{row['merge_id']} {decision}")
        finally:
            manager.close()
        if decision == "approved":
            click.echo(f"carried out at the next `memgate consolidate -t {tenant} --apply`")

    review.help = (
        f"{verb.capitalize()} proposed merges (a review's decision; --apply carries out approved ones).\n\n"
        f"\b\nExample:\n  memgate consolidate {verb} mrg_0661... -t acme"
    )
