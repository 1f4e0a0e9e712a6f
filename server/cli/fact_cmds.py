"""`memgate fact get|set`: read and correct canonical claims from the shell."""

from __future__ import annotations

import json

import click

from .common import friendly_errors, open_manager, operator_identity, scope_options, settings_from, tenant_option


def register(cli: click.Group) -> None:
    @cli.group("fact")
    def fact() -> None:
        """Read and correct canonical claims (entity_memory)."""

    @fact.command("get")
    @click.argument("subject")
    @click.argument("predicate", required=False)
    @tenant_option()
    @scope_options
    @click.option("--no-history", is_flag=True, help="Show only the current version.")
    @click.pass_context
    @friendly_errors
    def get(ctx, subject, predicate, tenant, user, agent, thread, no_history) -> None:
        """Show the current version of a claim and its labeled history, as an agent sees it.

        \b
        Example:
          memgate fact get model:helios-rag beir_ndcg10 --tenant acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            out = manager.lookup_entity(
                operator_identity(tenant, user, agent, thread), subject, predicate, include_history=not no_history
            )
        finally:
            manager.close()
        click.echo(out.text)

    @fact.command("set")
    @click.argument("subject")
    @click.argument("predicate")
    @click.argument("value")
    @tenant_option()
    @scope_options
    @click.option("--conditions", metavar="JSON", help='Structured conditions, e.g. \'{"dataset": "BEIR"}\'.')
    @click.option("--confidence", type=click.FloatRange(0, 1), help="Confidence between 0 and 1.")
    @click.option(
        "--expect-version",
        type=int,
        metavar="N",
        help="Refuse unless the claim is at version N now (0 = does not exist yet).",
    )
    @click.pass_context
    @friendly_errors
    def set_(
        ctx, subject, predicate, value, tenant, user, agent, thread, conditions, confidence, expect_version
    ) -> None:
        """Record a claim, or correct it: the old version is closed and the next one inserted.

        The scope options say whom the claim is for; without them it holds for the
        whole tenant.

        \b
        Example:
          memgate fact set model:helios-rag beir_ndcg10 0.81 -t acme --expect-version 2
        """
        try:
            parsed = json.loads(conditions) if conditions else None
        except ValueError as exc:
            raise click.BadParameter(f"not valid JSON: {exc}", param_hint="--conditions") from None
        if conditions and not isinstance(parsed, dict):
            raise click.BadParameter(
                f'must be a JSON object such as \'{{"dataset": "BEIR"}}\', got {conditions}', param_hint="--conditions"
            )
        manager = open_manager(settings_from(ctx))
        try:
            row = manager.correct_entity(
                operator_identity(tenant, user, agent, thread),
                subject,
                predicate,
                value,
                content_json=parsed,
                confidence=confidence,
                expected_version=expect_version,
                user_id=user,
                agent_id=agent,
                thread_id=thread,
            )
        finally:
            manager.close()
        replaced = f", replacing version {row['source_version']}" if row["source_version"] else ""
        click.echo(f"{subject} {predicate} = {value} recorded as version {row['version']}{replaced} ({row['id']})")
