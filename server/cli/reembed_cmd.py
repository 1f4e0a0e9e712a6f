"""`memgate reembed`: re-embed a tenant's chunks and recall rows with the embedder `[kb] embedder` names,
every user/agent scope of the tenant in turn (each through the wall, as its own identity), resumably."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from .common import (
    AGENT_ID,
    USER_ID,
    err_line,
    friendly_errors,
    open_manager,
    operator_identity,
    operator_of,
    require_tenant,
    settings_from,
    tenant_option,
)

if TYPE_CHECKING:
    from memgate.manager import Identity


def scope_name(identity: Identity) -> str:
    """`user jane, agent helper` (the scope's own columns), or `tenant-wide` for the shared rows."""
    named = (("user", identity.user), ("agent", identity.agent), ("thread", identity.thread))
    return ", ".join(f"{k} {v}" for k, v in named if v) or "tenant-wide"


def register(cli: click.Group) -> None:
    @cli.command("reembed")
    @tenant_option()
    @click.option(
        "--user", "-u", metavar="ID", type=USER_ID, help="Only what this user sees (one scope, not every scope)."
    )
    @click.option(
        "--agent", metavar="ID", type=AGENT_ID, help="Only what this agent sees (one scope, not every scope)."
    )
    @click.option("--batch", type=click.IntRange(1, 4096), default=64, show_default=True, help="Chunks per commit.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress bar and no line per scope.")
    @click.pass_context
    @friendly_errors
    def reembed(ctx: click.Context, tenant: str, user: str | None, agent: str | None, batch: int, quiet: bool) -> None:
        """Re-embed the tenant's chunks (and the turns recall ranks) whose vectors are not from the configured embedder.

        After changing `[kb] embedder`, the vector leg finds only rows embedded by the new model;
        after `memgate expire`, replies whose turn expired have no embedding. This command brings
        them over, BATCH chunks per transaction, in every user/agent scope of the tenant: rows are
        walled by user, agent and thread, so it finds the scopes that hold such rows (keys and scope
        columns, the operator's read `memgate expire` makes) and embeds each as that scope's own
        identity, through the wall, with a progress bar and a line per scope on stderr and one
        summary line on stdout. It is resumable: stopped part way, the next run finds only the
        scopes and rows still left; with nothing left it does nothing. --user / --agent embed one
        identity's view only (that scope and the rows it shares).

        \b
        Examples:
          memgate reembed -t acme                  # every scope, e.g. the line `memgate expire` prints
          MEMGATE_KB__EMBEDDER=minilm memgate reembed --tenant acme
          memgate reembed -t acme --user jane --agent helper --batch 256   # that one scope
        """
        settings = settings_from(ctx)
        manager = open_manager(settings)
        started = time.perf_counter()
        chunks = recalled = 0
        try:
            require_tenant(manager, settings, operator_identity(tenant))
            if user or agent:
                scopes = [operator_identity(tenant, user, agent)]
            else:
                scopes = operator_of(manager).scopes_to_embed(tenant, manager.embedder.name)
            for n, identity in enumerate(scopes, 1):
                progress = manager.reembed(identity, batch=batch)
                done, total = next(progress)
                label = f"embedding ({manager.embedder.name}) {scope_name(identity)}"
                with click.progressbar(length=max(total, 1), label=label, file=sys.stderr, hidden=quiet) as bar:
                    for now_done, _ in progress:
                        bar.update(now_done - done)
                        done = now_done
                turns = 0
                while step := manager.embed_recall(identity, batch=batch):  # turns and summaries recall ranks
                    turns += step
                chunks, recalled = chunks + done, recalled + turns
                if not quiet:
                    err_line(
                        f"[{n}/{len(scopes)}] {scope_name(identity)}: {done} chunk(s), {turns} turn(s) and summaries"
                    )
        finally:
            manager.close()
        seconds = time.perf_counter() - started
        rate = f", {chunks / seconds:.1f} chunk(s)/s" if chunks and seconds > 0 else ""
        click.echo(
            f"{chunks} chunk(s) re-embedded with {manager.embedder.name} in {seconds:.1f}s{rate}; "
            f"{recalled} turn(s) and summaries embedded for recall; {len(scopes)} scope(s)"
        )
