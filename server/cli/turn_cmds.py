"""`memgate turn add|ls`: a thread's turns, for applications that own the transcript, and `memgate compact`."""

from __future__ import annotations

import click

from memgate.manager import operator_turns

from .common import (
    AGENT_ID,
    USER_ID,
    friendly_errors,
    open_manager,
    operator_identity,
    require_tenant,
    settings_from,
    tenant_option,
)


def register(cli: click.Group) -> None:
    @cli.group("turn")
    def turn() -> None:
        """Record and list a thread's turns (the context window's volatile tail)."""

    @turn.command("add")
    @tenant_option()
    @click.option("--thread", required=True, metavar="ID", help="The thread the turn belongs to.")
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Whose turn it is (the thread's user).")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="The agent of the conversation.")
    @click.option("--role", type=click.Choice(["user", "assistant"]), default="user", show_default=True)
    @click.argument("text")
    @click.pass_context
    @friendly_errors
    def add(ctx, tenant, thread, user, agent, role, text) -> None:
        """Append one turn to a thread, in the scope of its user and agent.

        \b
        Examples:
          memgate turn add -t acme --thread support-4711 --user jane "My invoice is wrong"
          memgate turn add -t acme --thread support-4711 --user jane --role assistant "Which invoice?"
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            identity = operator_identity(tenant, user, agent, thread)
            require_tenant(manager, settings, identity)
            row = manager.record_turn(identity, role, text)
        finally:
            manager.close()
        click.echo(f"{row['id']} turn {row['turn_index']} of thread {thread} ({role})")

    @turn.command("ls")
    @tenant_option()
    @click.option("--thread", required=True, metavar="ID", help="The thread to list.")
    @click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=200, show_default=True)
    @click.pass_context
    @friendly_errors
    def ls(ctx, tenant, thread, limit) -> None:
        """List a thread's turns in order and its compaction summaries: one conversation per user and
        agent that used the thread name, each in order.

        \b
        Example:
          memgate turn ls -t acme --thread support-4711
        """
        manager = open_manager(settings_from(ctx), create=False)
        try:
            rows = operator_turns(manager.backend, tenant, thread, limit)
        finally:
            manager.close()
        for r in rows:
            text = " ".join((r["content"] or "").split())
            clipped = text if len(text) <= 100 else text[:99] + "…"
            index = "-" if r["turn_index"] is None else r["turn_index"]
            click.echo(f"{index:>5} {r['role']:<9} {r['user_id'] or '-':<12} {r['id']}  {clipped}")
        if not rows:
            click.echo(f"(no turns in thread {thread})")

    @cli.command("compact")
    @tenant_option()
    @click.option("--thread", required=True, metavar="ID", help="The thread to compact.")
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Whose conversation, when several use the name.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Which agent's, when several use the name.")
    @click.option(
        "--intent", default="fact_check", show_default=True, help="The intent whose tail share sizes the summary."
    )
    @click.pass_context
    @friendly_errors
    def compact(ctx, tenant, thread, user, agent, intent) -> None:
        """Summarise a thread's older turns now (all but the newest two), with the extractive summariser.

        A thread name is one conversation per user and agent that used it; with several, name the
        user (and agent) whose conversation to compact. The summary is written in that scope; the
        turns stay.

        \b
        Example:
          memgate compact -t acme --thread support-4711
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            turns = [r for r in operator_turns(manager.backend, tenant, thread) if r["kind"] == "turn"]
            owners = sorted(
                {
                    (r["user_id"], r["agent_id"])
                    for r in turns
                    if (user is None or r["user_id"] == user) and (agent is None or r["agent_id"] == agent)
                },
                key=lambda o: (o[0] or "", o[1] or ""),
            )
            if not owners:
                click.echo(
                    f"thread {thread} has no turns{' of that user and agent' if user or agent else ''}; nothing to compact"
                )
                return
            if len(owners) > 1:
                named = ", ".join(f"--user {u or '-'} --agent {a or '-'}" for u, a in owners)
                raise click.UsageError(
                    f"thread {thread} is {len(owners)} conversations ({named}): name one with --user/--agent"
                )
            owner = operator_identity(tenant, owners[0][0], owners[0][1], thread)
            row = manager.compact_conversation(owner, intent, force=True)
        finally:
            manager.close()
        if row is None:
            click.echo(f"thread {thread}: too few turns since the last compaction; nothing to compact")
            return
        click.echo(f"{row['id']} {row['title']} ({row['source_versions_json'].count('conversation_memory')} turns)")
