"""`memgate turn add|ls|import|policy`: turns for applications that own the transcript, conversation
histories loaded in bulk, the tenant's recall policy; and `memgate compact`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .common import (
    AGENT_ID,
    USER_ID,
    ManagerChoice,
    friendly_errors,
    open_manager,
    operator_identity,
    operator_of,
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
    @click.option(
        "--at", "said_at", metavar="TIME", help="When it was said (ISO-8601, or '1:56 pm on 8 May, 2023'); default now."
    )
    @click.argument("text")
    @click.pass_context
    @friendly_errors
    def add(ctx, tenant, thread, user, agent, role, said_at, text) -> None:
        """Append one turn to a thread, in the scope of its user and agent (their conversation of that thread).

        \b
        Examples:
          memgate turn add -t acme --thread support-4711 --user jane "My invoice is wrong"
          memgate turn add -t acme --thread support-4711 --user jane --role assistant "Which invoice?"
          memgate turn add -t acme --thread trip --user jane --at 2023-05-08T13:56:00Z "We land on Friday"
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            identity = operator_identity(tenant, user, agent, thread)
            require_tenant(manager, settings, identity)
            row = manager.record_turn(identity, role, text, said_at=said_at)
        finally:
            manager.close()
        click.echo(f"{row['id']} turn {row['turn_index']} of thread {thread} ({role})")

    @turn.command("import")
    @tenant_option()
    @click.option("--user", "-u", type=USER_ID, metavar="ID", required=True, help="Whose conversations these are.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="The agent they were held with.")
    @click.option("--user-speaker", metavar="NAME", help="Which speaker is the user (default: the first).")
    @click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.pass_context
    @friendly_errors
    def import_(ctx, tenant, user, agent, user_speaker, quiet, file: Path) -> None:
        """Load conversation histories: each dated session becomes a thread of the user (and agent).

        FILE is JSON or JSONL: memgate's conversations ({"sessions": [{"thread", "time", "messages":
        [{"role" or "speaker", "text", "time"}]}]}), LoCoMo's (session_N with session_N_date_time), or a
        ChatGPT data export's conversations.json. Turns keep their times; importing the same file again
        adds nothing. Afterwards the tenant's lexical indexes are merged, as `memgate optimize` does.

        \b
        Examples:
          memgate turn import history.json -t acme --user jane --agent research-assistant
          memgate turn import conversations.json -t acme --user jane     # a ChatGPT export
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        started = time.perf_counter()
        try:
            identity = operator_identity(tenant, user, agent)
            require_tenant(manager, settings, identity)
            text = file.read_text(encoding="utf-8")
            bars: list = []

            def progress(done: int, total: int) -> None:  # the bar is made once the file is parsed
                if not bars:
                    bars.append(
                        click.progressbar(length=max(total, 1), label="importing", file=sys.stderr, hidden=quiet)
                    )
                    bars[0].__enter__()
                bars[0].update(done - bars[0].pos)

            try:
                report = manager.import_conversations(
                    identity, text, source=file.name, user_speaker=user_speaker, progress=progress
                )
            finally:
                if bars:
                    bars[0].__exit__(None, None, None)
            seconds = time.perf_counter() - started
            # a load leaves the recall index in many segments: merged now, as `memgate optimize` does
            merged = operator_of(manager).merge_lexical_indexes(tenant) if report.turns else {}
        finally:
            manager.close()
        rate = f", {report.turns / seconds:.0f} turns/s" if report.turns and seconds > 0 else ""
        click.echo(
            f"{report.turns} turn(s) in {report.sessions} session(s) imported in {seconds:.1f}s{rate}"
            + (f"; {report.skipped} already there" if report.skipped else "")
        )
        for index, what in merged.items():
            click.echo(f"{tenant} {index}: {what}")

    @turn.command("policy")
    @tenant_option()
    @click.option(
        "--recall", type=ManagerChoice("RECALL_POLICIES"), help="Set which conversations windows recall from."
    )
    @click.pass_context
    @friendly_errors
    def policy(ctx, tenant, recall) -> None:
        """Show or set the tenant's recall policy: which of a caller's conversations its windows recall.

        \b
        same_user_agent  (default) the caller's user with exactly its agent
        same_user        every conversation of the caller's user the wall shows it
        this_thread      only the current conversation

        \b
        Examples:
          memgate turn policy -t acme
          memgate turn policy -t acme --recall same_user
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            identity = operator_identity(tenant)
            require_tenant(manager, settings, identity)
            if recall:
                row = manager.set_recall_policy(identity, recall)
                click.echo(f"recall policy of {tenant}: {recall} (version {row['version']})")
                return
            current = manager.recall_policy(identity)
        finally:
            manager.close()
        click.echo(f"recall policy of {tenant}: {current.policy} (version {current.version or 'default'})")

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
    @click.option("--user", "-u", type=USER_ID, metavar="ID", help="Whose conversation, when several use the name.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="Which agent's, when several use the name.")
    @click.option("--intent", metavar="INTENT", help="The intent whose tail share sizes the summary. Default: general.")
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
        from memgate.manager import operator_turns

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
            from memgate.manager import DEFAULT_INTENT

            row = manager.compact_conversation(owner, intent or DEFAULT_INTENT, force=True)
        finally:
            manager.close()
        if row is None:
            click.echo(f"thread {thread}: too few turns since the last compaction; nothing to compact")
            return
        click.echo(f"{row['id']} {row['title']} ({row['source_versions_json'].count('conversation_memory')} turns)")
