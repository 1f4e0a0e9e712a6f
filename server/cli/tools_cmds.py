"""`memgate tools list|enable|disable`: a tenant's toolbox rows."""

from __future__ import annotations

import click

from memgate.manager import now_iso

from .common import friendly_errors, open_manager, operator_identity, settings_from, tenant_option


def _status(row: dict, now: str) -> str:
    if row["deleted_at"]:
        return "deleted"
    if row["valid_from"] > now:
        return "pending"
    if row["valid_until"] and row["valid_until"] <= now:
        return "disabled"
    return "enabled"


def register(cli: click.Group) -> None:
    @cli.group("tools")
    def tools() -> None:
        """List, enable and disable a tenant's tools (toolbox_memory rows)."""

    @tools.command("list")
    @tenant_option()
    @click.option("--all-versions", is_flag=True, help="Show every version, not just the latest per tool.")
    @click.pass_context
    @friendly_errors
    def list_(ctx, tenant, all_versions) -> None:
        """Show the tenant's tools: name, handler, version, status, scope.

        \b
        Example:
          memgate tools list --tenant acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            rows = manager.operator_tool_versions(tenant)
        finally:
            manager.close()
        now, seen = now_iso(), set()
        click.echo(f"{'tool':<20} {'handler':<15} {'version':>7}  {'status':<9} scope")
        for r in rows:
            scope = ",".join(f"{k}={r[k + '_id']}" for k in ("user", "agent", "thread") if r[k + "_id"]) or "tenant"
            key = (r["tool_name"], scope)
            if key in seen and not all_versions:
                continue
            seen.add(key)
            click.echo(f"{r['tool_name']:<20} {r['tool_handler']:<15} {r['version']:>7}  {_status(r, now):<9} {scope}")
        if not rows:
            click.echo(f"(no tools for {tenant}; run `memgate init --tenant {tenant}`)")

    for name, enabled in (("enable", True), ("disable", False)):
        _toggle(tools, name, enabled)


def _toggle(group: click.Group, name: str, enabled: bool) -> None:
    @group.command(name, help=f"""{name.capitalize()} a tool for the whole tenant.

    Takes effect on the next request of every connected client, without a restart;
    a call to a tool that was listed before the change is refused and logged.

    \b
    Example:
      memgate tools {name} lookup_entity --tenant acme
    """)
    @click.argument("tool_name")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def toggle(ctx, tool_name, tenant) -> None:
        manager = open_manager(settings_from(ctx))
        try:
            row = manager.set_tool_enabled(operator_identity(tenant), tool_name, enabled)
        finally:
            manager.close()
        click.echo(f"{tool_name} {name}d for {tenant} (version {row['version']})")
