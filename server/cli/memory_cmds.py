"""`memgate memory ls|cat|put|rm|expire|clear`: the memory tool's files, per store, for the operator."""

from __future__ import annotations

import click

from .common import friendly_errors, open_manager, operator_identity, operator_of, settings_from, tenant_option

STORE_HELP = (
    "The memory store, by key: agent:NAME (agent:default when the identity names no agent), "
    "user:NAME, session:THREAD, shared:NAME, global, or context:NAME:KEY:VALUE."
)


def store_option(required: bool = True):
    return click.option(
        "--store",
        "-s",
        "store",
        required=required,
        metavar="KEY",
        help=STORE_HELP + ("" if required else " Omit it to list the tenant's stores."),
    )


def register(cli: click.Group) -> None:
    @cli.group("memory")
    def memory() -> None:
        """Read and manage memory-tool files (/memories/...), one store at a time.

        \b
        Examples:
          memgate memory ls -t acme
          memgate memory ls -t acme -s agent:research-assistant
          memgate memory cat /memories/progress.md -t acme -s agent:research-assistant
        """

    @memory.command("ls")
    @click.argument("path", default="/memories")
    @tenant_option()
    @store_option(required=False)
    @click.pass_context
    @friendly_errors
    def ls(ctx, path, tenant, store) -> None:
        """List a store's files at or below PATH (every level), or the tenant's stores.

        \b
        Examples:
          memgate memory ls -t acme
          memgate memory ls /memories/projects -t acme -s shared:team-notes
        """
        manager = open_manager(settings_from(ctx))
        try:
            op = operator_identity(tenant)
            if store is None:
                rows = operator_of(manager).memory_stores(tenant)
                for r in rows:
                    click.echo(
                        f"{r['store_key']}\t{r['files']} files\t{r['chars']} chars\tlast write {r['updated_at'] or '-'}"
                    )
                click.echo(f"{len(rows)} store(s) for tenant {tenant}")
                return
            with manager.memory_store_files(op, store) as files:
                rows = files.list_files(path)
        finally:
            manager.close()
        for r in rows:
            click.echo(f"{r['size_chars']:>9}  {r['updated_at']}  v{r['version']:<3} {r['path']}")
        click.echo(f"{len(rows)} file(s), {sum(r['size_chars'] for r in rows)} chars in {store}")

    @memory.command("cat")
    @click.argument("path")
    @tenant_option()
    @store_option()
    @click.pass_context
    @friendly_errors
    def cat(ctx, path, tenant, store) -> None:
        """Print a file's content as stored (no line numbers).

        \b
        Example:
          memgate memory cat /memories/progress.md -t acme -s agent:research-assistant > progress.md
        """
        manager = open_manager(settings_from(ctx))
        try:
            with manager.memory_store_files(operator_identity(tenant), store) as files:
                row = files.read(path)
        finally:
            manager.close()
        click.echo(row["content"], nl=False)

    @memory.command("put")
    @click.argument("path")
    @click.argument("source", type=click.File("r", encoding="utf-8"), default="-")
    @tenant_option()
    @store_option()
    @click.pass_context
    @friendly_errors
    def put(ctx, path, source, tenant, store) -> None:
        """Write a file from SOURCE (default: stdin), creating or overwriting it; the caps apply.

        \b
        Examples:
          memgate memory put /memories/team/conventions.md conventions.md -t acme -s shared:team-notes
          echo "- ship on Fridays: no" | memgate memory put /memories/rules.md -t acme -s global
        """
        text = source.read()
        manager = open_manager(settings_from(ctx))
        try:
            with manager.memory_store_files(operator_identity(tenant), store) as files:
                what = files.put(path, text)
        finally:
            manager.close()
        click.echo(f"{path} {what} in {store} ({len(text)} chars)")

    @memory.command("rm")
    @click.argument("path")
    @tenant_option()
    @store_option()
    @click.pass_context
    @friendly_errors
    def rm(ctx, path, tenant, store) -> None:
        """Delete a file, or a directory and everything below it.

        \b
        Example:
          memgate memory rm /memories/old-project -t acme -s agent:research-assistant
        """
        manager = open_manager(settings_from(ctx))
        try:
            with manager.memory_store_files(operator_identity(tenant), store) as files:
                count = files.remove(path)
        finally:
            manager.close()
        click.echo(f"Successfully deleted {path} ({count} file(s)) from {store}")

    @memory.command("expire")
    @click.option(
        "--days",
        type=click.FloatRange(min=0, min_open=True),
        required=True,
        metavar="N",
        help="Delete files not written for more than N days.",
    )
    @tenant_option()
    @store_option()
    @click.pass_context
    @friendly_errors
    def expire(ctx, days, tenant, store) -> None:
        """Delete the store's files that nobody has written for N days.

        \b
        Example:
          memgate memory expire --days 90 -t acme -s session:thread-42
        """
        from memgate.manager import days_ago_iso

        manager = open_manager(settings_from(ctx))
        try:
            with manager.memory_store_files(operator_identity(tenant), store) as files:
                gone = files.expire(days_ago_iso(days))
        finally:
            manager.close()
        for path in gone:
            click.echo(f"deleted {path}")
        click.echo(f"{len(gone)} file(s) older than {days:g} days deleted from {store}")

    @memory.command("clear")
    @tenant_option()
    @store_option()
    @click.confirmation_option(prompt="Delete every file of this memory store?", help="Do not ask for confirmation.")
    @click.pass_context
    @friendly_errors
    def clear(ctx, tenant, store) -> None:
        """Delete every file of one store, and the store itself.

        \b
        Example:
          memgate memory clear -t acme -s agent:research-assistant --yes
        """
        manager = open_manager(settings_from(ctx))
        try:
            with manager.memory_store_files(operator_identity(tenant), store) as files:
                count = files.clear()
        finally:
            manager.close()
        click.echo(f"All memory cleared: {count} file(s) deleted from {store}")
