"""`memgate tools list|enable|disable|add-report`: a tenant's toolbox rows."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .common import friendly_errors, open_manager, operator_identity, operator_of, settings_from, tenant_option


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
        """List, enable and disable a tenant's tools (toolbox_memory rows); add reports."""

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
        from memgate.manager import now_iso

        manager = open_manager(settings_from(ctx))
        try:
            rows = operator_of(manager).tool_versions(tenant)
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

    @tools.command("add-report")
    @click.argument("tool_name")
    @click.option(
        "--sql",
        "sql_file",
        required=True,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="The reviewed SELECT, binding the caller's values as :name.",
    )
    @click.option(
        "--schema",
        "schema_file",
        required=True,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="JSON Schema of the binds: one property per :name; its description is the tool's.",
    )
    @click.option("--notes", help="What the model reads about the tool (default: the schema's description).")
    @click.option("--max-rows", type=click.IntRange(min=1), help="Rows per call (default and ceiling: the caps).")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def add_report(ctx, tool_name, sql_file, schema_file, notes, max_rows, tenant) -> None:
        """Add a report: one reviewed SELECT handed to the model as a tool.

        The statement is admitted now, by execute_query's rules over the same reviewed
        views (a write, a second statement or an unknown view is refused, naming the
        rule), and its :name binds must be exactly the schema's properties. Calls run it
        read-only, capped and logged like execute_query; only the bind values are the
        model's, each checked against the schema. A report that exists gets a new version.

        \b
        Example:
          memgate tools add-report claims_changed_since -t acme --sql config/reports/claims_changed_since.sql --schema config/reports/claims_changed_since.json
        """
        definition = report_definition(tool_name, sql_file, schema_file, notes, max_rows)
        problem = _row_problem(definition)
        if problem:
            raise click.ClickException(f"report {tool_name!r} cannot be served: {problem}")
        manager = open_manager(settings_from(ctx))
        try:
            row = manager.put_tool(operator_identity(tenant), definition)
        finally:
            manager.close()
        click.echo(f"{tool_name} (report) added for {tenant} (version {row['version']})")


def report_definition(name: str, sql_file: Path, schema_file: Path, notes: str | None, max_rows: int | None) -> dict:
    """A report row from its files: the schema's top-level description becomes the usage notes."""
    from memgate.manager import InvalidArgument

    try:
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InvalidArgument(f"{schema_file} is not JSON: {exc}", field="--schema") from exc
    if not isinstance(schema, dict):
        raise InvalidArgument(f"{schema_file} must hold a JSON object (a JSON Schema)", field="--schema")
    described = schema.pop("description", None)
    notes = notes or described
    if not isinstance(notes, str) or not notes.strip():
        raise InvalidArgument(
            "a report needs usage notes: give --notes, or a top-level description in the schema", field="--notes"
        )
    report: dict[str, str | int] = {"sql": sql_file.read_text(encoding="utf-8").strip()}
    if max_rows is not None:
        report["max_rows"] = max_rows
    return {
        "tool_name": name,
        "tool_handler": "report",
        "usage_notes": notes,
        "tool_schema": schema,
        "access_policy": {"report": report},
    }


def _row_problem(definition: dict) -> str | None:
    """Why the toolbox would not serve this row (the same check every list runs), or None."""
    from memgate.manager import MemgateError, ToolRow
    from memgate.toolbox import check_row  # the server stack: only when a row is written

    row = ToolRow(
        id="new",
        version=1,
        tool_name=definition["tool_name"],
        tool_schema=definition["tool_schema"],
        usage_notes=definition["usage_notes"],
        tool_handler=definition["tool_handler"],
        access_policy=definition["access_policy"],
    )
    try:
        check_row(row)
    except MemgateError as exc:
        return exc.message
    return None


def _toggle(group: click.Group, name: str, enabled: bool) -> None:
    @group.command(
        name,
        help=f"""{name.capitalize()} a tool for the whole tenant.

    Takes effect on the next request of every connected client, without a restart;
    a call to a tool that was listed before the change is refused and logged.

    \b
    Example:
      memgate tools {name} lookup_entity --tenant acme
    """,
    )
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
