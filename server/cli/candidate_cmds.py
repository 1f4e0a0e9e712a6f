"""`memgate candidates ls|show|approve|reject|reassess|policy`: the operator's review of the promotion gate.

Operator-only: these call memgate.manager.promotion_review, never a MemoryManager method a tool
could reach. Reading is unwalled, one tenant at a time; approving, rejecting and reassessing act
as each candidate's proposer, through the wall.
"""

from __future__ import annotations

import json

import click

from .common import friendly_errors, open_manager, settings_from, tenant_option

DECISIONS = ("promoted", "pending", "duplicate", "approved", "rejected")


def _line(row) -> str:
    what = f"{row['subject']} {row['predicate']} = {row['content']}" if row["kind"] == "fact" else row["content"]
    what = " ".join(what.split())
    flags = " reassess" if row["reassess"] else ""
    return (
        f"{row['id']}  {row['decision']:<9} {row['rule']:<22} {row['kind']:<10} {row['scope']:<7} "
        f"{row['user_id'] or '-'}  {what[:70]}{flags}"
    )


def register(cli: click.Group) -> None:
    @cli.group("candidates")
    def candidates() -> None:
        """Review what agents proposed with `remember` and what the promotion gate decided."""

    @candidates.command("ls")
    @tenant_option()
    @click.option("--decision", type=click.Choice(DECISIONS), help="Only candidates with this decision.")
    @click.option("--reassess", is_flag=True, help="Only candidates marked for reassessment.")
    @click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
    @click.pass_context
    @friendly_errors
    def ls(ctx, tenant, decision, reassess, limit, as_json) -> None:
        """The tenant's candidates of every user and scope, newest first.

        \b
        Example:
          memgate candidates ls -t acme --decision pending
        """
        manager = open_manager(settings_from(ctx))
        try:
            rows, more = manager_review().candidates(
                manager, tenant, decision=decision, reassess=True if reassess else None, limit=limit
            )
        finally:
            manager.close()
        for row in rows:
            click.echo(json.dumps(row, sort_keys=True) if as_json else _line(row))
        if not rows and not as_json:
            click.echo(f"No candidates for {tenant}.")
        if more and not as_json:
            click.echo(f"(more exist: --limit {limit * 2})")

    @candidates.command("show")
    @click.argument("candidate_id")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def show(ctx, candidate_id, tenant) -> None:
        """One candidate, its evidence and every assessment.

        \b
        Example:
          memgate candidates show cand_0661c7... -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            row, assessments = manager_review().candidate(manager, tenant, candidate_id)
        finally:
            manager.close()
        for key in ("id", "decision", "rule", "kind", "scope", "subject", "predicate", "content"):
            if row[key] is not None:
                click.echo(f"{key}: {row[key]}")
        click.echo(
            f"proposed by: {row['created_by']} (user {row['user_id']}, agent {row['agent_id']}) at {row['created_at']}"
        )
        evidence = ", ".join(f"{e['id']} v{e['version']}" for e in json.loads(row["evidence_json"]))
        click.echo(f"evidence: {evidence}")
        if row["record_id"]:
            click.echo(f"record: {row['record_type']} {row['record_id']}")
        if row["decided_by"]:
            click.echo(f"decided by: {row['decided_by']} at {row['decided_at']}")
        if row["reassess"]:
            click.echo("marked for reassessment: a record it rests on changed")
        click.echo(f"policy version: {row['policy_version']}")
        for a in assessments:
            p = "no answer" if a["probability"] is None else f"{a['probability']:.3f}"
            verdict = "pass" if a["passed"] else "fail"
            click.echo(
                f"assessment: {a['question']} (v{a['question_version']}) = {p} vs {a['threshold']:.2f} {verdict}"
                f" by {a['assessor']} in {a['latency_ms']:.1f} ms" + (f"; {a['note']}" if a["note"] else "")
            )

    @candidates.command("approve")
    @click.argument("candidate_id")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def approve(ctx, candidate_id, tenant) -> None:
        """Promote a pending candidate: the gate's transaction, with its version check.

        \b
        Example:
          memgate candidates approve cand_0661c7... -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            row = manager_review().approve(manager, tenant, candidate_id)
        finally:
            manager.close()
        click.echo(f"approved {row['id']}: {row['record_type']} {row['record_id']}")

    @candidates.command("reject")
    @click.argument("candidate_id")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def reject(ctx, candidate_id, tenant) -> None:
        """Reject a pending candidate; nothing is promoted.

        \b
        Example:
          memgate candidates reject cand_0661c7... -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            row = manager_review().reject(manager, tenant, candidate_id)
        finally:
            manager.close()
        click.echo(f"rejected {row['id']}")

    @candidates.command("reassess")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def reassess(ctx, tenant) -> None:
        """Mark promoted memories whose evidence changed, and run the gate again on every marked one.

        \b
        Example:
          memgate candidates reassess -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            outcomes = manager_review().reassess(manager, tenant)
        finally:
            manager.close()
        for candidate_id, outcome in outcomes:
            click.echo(f"{candidate_id}: {outcome}")
        if not outcomes:
            click.echo(f"Nothing to reassess for {tenant}.")

    @candidates.command("policy")
    @tenant_option()
    @click.option("--mode", type=click.Choice(("auto", "review", "shadow")), help="What the gate may do.")
    @click.option("--assessor", type=click.Choice(("rules", "sampling", "http")), help="Who answers the questions.")
    @click.option(
        "--set",
        "settings",
        multiple=True,
        metavar="KEY=JSON",
        help="More keys, e.g. rate_per_hour=30 or thresholds='{\"supported\": 0.95}'.",
    )
    @click.pass_context
    @friendly_errors
    def policy(ctx, tenant, mode, assessor, settings) -> None:
        """Show the tenant's promotion policy, or update it (a new version of its guideline).

        \b
        Example:
          memgate candidates policy -t acme --mode shadow
        """
        changes = {}
        if mode:
            changes["mode"] = mode
        if assessor:
            changes["assessor"] = assessor
        for item in settings:
            key, sep, value = item.partition("=")
            if not sep:
                raise click.BadParameter(f"{item!r} is not KEY=JSON", param_hint="--set")
            try:
                changes[key] = json.loads(value)
            except ValueError as exc:
                raise click.BadParameter(f"{key}: {value!r} is not JSON", param_hint="--set") from exc
        manager = open_manager(settings_from(ctx))
        try:
            review = manager_review()
            current = review.set_policy(manager, tenant, changes) if changes else review.policy(manager, tenant)
        finally:
            manager.close()
        click.echo(f"promotion policy of {tenant}, version {current.version}:")
        click.echo(json.dumps(current.to_json(), indent=2, sort_keys=True))


def manager_review():
    from memgate.manager import promotion_review

    return promotion_review
