"""`memgate optimize`: merge each tenant's lexical indexes, a bounded step at a time (operator only)."""

from __future__ import annotations

import time

import click

from .common import (
    friendly_errors,
    open_manager,
    operator_of,
    settings_from,
    tenant_option,
    tenants_to_act_for,
)


def register(cli: click.Group) -> None:
    @cli.command("optimize")
    @tenant_option(required=False)
    @click.option(
        "--pages",
        type=click.IntRange(1, 1_000_000),
        default=500,  # manager.limits.LEXICAL_MERGE_PAGES (a literal: --help imports no Memory Manager)
        show_default=True,
        help="Leaf pages merged per write transaction (SQLite): writers wait for one step at most.",
    )
    @click.pass_context
    @friendly_errors
    def optimize(ctx: click.Context, tenant: str | None, pages: int) -> None:
        """Merge the lexical indexes so search and recall read each word in one place.

        Every captured turn and every ingest is its own transaction, and each adds a segment to the
        tenant's SQLite FTS5 index; FTS5 folds them together only now and then, so a busy index
        holds several (about 6 with the templates' merge settings), and its BM25 legs (search_memory's
        lexical leg, conversation recall) cost 1.5-1.7x what they cost on the same index merged into
        one (docs/benchmarks.md, "Lexical indexes"). This merges each tenant's chunk index and recall index into one segment,
        PAGES leaf pages per transaction, so a server writing meanwhile waits for one short step, never
        for the whole merge. It changes no row and no result, only how fast they are found; it is safe
        to stop and to run again. Run it from cron, and after a large `memgate ingest` or `memgate
        import` (`memgate turn import` merges by itself). On Oracle it optimizes the shared Oracle
        Text indexes (FULL) instead.

        \b
        Examples:
          memgate optimize                      # every tenant
          memgate optimize -t acme --pages 2000
          # cron, nightly after expire:  37 3 * * *  memgate optimize >> /var/log/memgate-optimize.log 2>&1
        """
        settings = settings_from(ctx)
        manager = open_manager(settings, create=False)
        try:
            operator = operator_of(manager)
            for t in tenants_to_act_for(manager, settings, tenant):
                started = time.perf_counter()
                done = operator.merge_lexical_indexes(t, pages)
                seconds = time.perf_counter() - started
                if not done:
                    click.echo(f"{t}: no lexical index yet (nothing indexed)")
                for index, what in done.items():
                    click.echo(f"{t} {index}: {what}")
                if done:
                    click.echo(f"{t}: merged in {seconds:.2f}s")
        finally:
            manager.close()
