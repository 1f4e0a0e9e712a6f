"""`memgate reembed`: re-embed a tenant's chunks with the embedder `[kb] embedder` names, resumably."""

from __future__ import annotations

import sys
import time

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
    @cli.command("reembed")
    @tenant_option()
    @click.option("--user", "-u", metavar="ID", type=USER_ID, help="Also the chunks only this user may find.")
    @click.option("--agent", metavar="ID", type=AGENT_ID, help="Also the chunks only this agent may find.")
    @click.option("--batch", type=click.IntRange(1, 4096), default=64, show_default=True, help="Chunks per commit.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
    @click.pass_context
    @friendly_errors
    def reembed(ctx: click.Context, tenant: str, user: str | None, agent: str | None, batch: int, quiet: bool) -> None:
        """Re-embed the tenant's chunks (and the turns recall ranks) whose vectors are not from the configured embedder.

        After changing `[kb] embedder`, the vector leg finds only chunks embedded by the new model;
        this command brings the rest over, BATCH chunks per transaction, with a progress bar. It is
        resumable: stopped part way, it starts again where it stopped. Chunks scoped to a user or an
        agent are reached with --user / --agent (the wall shows the operator only that scope).

        \b
        Examples:
          MEMGATE_KB__EMBEDDER=minilm memgate reembed --tenant acme
          memgate reembed -t acme --user jane --batch 256
        """
        settings = settings_from(ctx)
        manager = open_manager(settings)
        identity = operator_identity(tenant, user, agent)
        started = time.perf_counter()
        try:
            require_tenant(manager, settings, identity)
            progress = manager.reembed(identity, batch=batch)
            done, total = next(progress)
            with click.progressbar(
                length=max(total, 1), label=f"embedding ({manager.embedder.name})", file=sys.stderr, hidden=quiet
            ) as bar:
                for now_done, _ in progress:
                    bar.update(now_done - done)
                    done = now_done
            recalled = 0
            while step := manager.embed_recall(identity, batch=batch):  # turns and summaries recall ranks
                recalled += step
        finally:
            manager.close()
        seconds = time.perf_counter() - started
        rate = f", {done / seconds:.1f} chunk(s)/s" if done and seconds > 0 else ""
        click.echo(f"{done} chunk(s) re-embedded with {manager.embedder.name} in {seconds:.1f}s{rate}")
        if recalled:
            click.echo(f"{recalled} turn(s) and summaries embedded for recall")
