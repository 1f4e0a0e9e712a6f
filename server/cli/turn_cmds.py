"""`memgate turn add|ls`: a thread's turns, for applications that own the transcript, and `memgate compact`."""

from __future__ import annotations

import click

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
        """List a thread's turns in order, whoever wrote them, and its compaction summaries.

        \b
        Example:
          memgate turn ls -t acme --thread support-4711
        """
        from memgate.manager import operator_turns

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
    @click.option("--intent", metavar="INTENT", help="The intent whose tail share sizes the summary. Default: general.")
    @click.pass_context
    @friendly_errors
    def compact(ctx, tenant, thread, intent) -> None:
        """Summarise a thread's older turns now (all but the newest two), with the extractive summariser.

        The summary is written in the scope of the thread's user and agent; the turns stay.

        \b
        Example:
          memgate compact -t acme --thread support-4711
        """
        from memgate.manager import operator_turns

        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            turns = [r for r in operator_turns(manager.backend, tenant, thread) if r["kind"] == "turn"]
            if not turns:
                click.echo(f"thread {thread} has no turns; nothing to compact")
                return
            owner = operator_identity(tenant, turns[-1]["user_id"], turns[-1]["agent_id"], thread)
            from memgate.manager import DEFAULT_INTENT

            row = manager.compact_conversation(owner, intent or DEFAULT_INTENT, force=True)
        finally:
            manager.close()
        if row is None:
            click.echo(f"thread {thread}: too few turns since the last compaction; nothing to compact")
            return
        click.echo(f"{row['id']} {row['title']} ({row['source_versions_json'].count('conversation_memory')} turns)")
