"""`memgate log`: recent tool calls from mcp_call_log."""

from __future__ import annotations

import json

import click

from .common import ManagerChoice, friendly_errors, open_manager, operator_of, settings_from, tenant_option


def register(cli: click.Group) -> None:
    @cli.command("log")
    @tenant_option(required=False, logged=True)
    @click.option("--tool", help="Only calls to this tool.")
    @click.option("--status", type=ManagerChoice("CALL_STATUSES"), help="Only calls that ended so.")
    @click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=20, show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="One JSON object per line, with arguments and result.")
    @click.pass_context
    @friendly_errors
    def log_(ctx, tenant, tool, status, limit, as_json) -> None:
        """Show recent tool calls: who called what, how it ended, what the agent saw.

        \b
        Examples:
          memgate log --tenant acme --status denied
          memgate log --tool lookup_entity --json -n 5
        """
        manager = open_manager(settings_from(ctx))
        try:
            rows = operator_of(manager).recent_calls(tenant=tenant, tool=tool, status=status, limit=limit)
        finally:
            manager.close()
        if as_json:
            for r in rows:
                click.echo(json.dumps(r, sort_keys=True))
            return
        click.echo(
            f"{'called_at':<24} {'tenant':<10} {'tool':<16} {'status':<8} {'rows':>4} {'tokens':>6} "
            f"{'ms':>8}  principal"
        )
        for r in rows:
            click.echo(
                f"{r['called_at']:<24} {r['tenant_id']:<10} {r['tool_name']:<16} {r['status']:<8} "
                f"{r['rows_returned'] if r['rows_returned'] is not None else '-':>4} "
                f"{r['result_tokens'] if r['result_tokens'] is not None else '-':>6} "
                f"{r['duration_ms'] or 0:>8.1f}  {r['principal'] or '-'}"
            )
        if not rows:
            click.echo("(no calls recorded)")
