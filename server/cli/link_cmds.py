"""`memgate link add|ls|rm`: typed links between memories, from the shell."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .common import (
    ManagerChoice,
    friendly_errors,
    open_manager,
    operator_identity,
    scope_options,
    settings_from,
    tenant_option,
)

if TYPE_CHECKING:
    from memgate.manager import MemoryManager

_TYPES = click.Choice(["entity", "workflow", "summary", "kb_document", "kb_chunk", "conversation", "image"])


def register(cli: click.Group) -> None:
    @cli.group("link")
    def link() -> None:
        """Link memories: supersedes, refines, supports, duplicates, contradicts.

        A link reads from its first memory to its second ("ent_v2 supersedes ent_v1");
        backwards the names are is_superseded_by, is_refined_by, is_supported_by,
        is_duplicated_by and is_contradicted_by. Both memories must be visible in the
        scope the options give (the tenant only, or --user jane for jane's memories);
        search_memory and lookup_entity follow links when called with num_hops.

        \b
        Examples:
          memgate link ls ent_acme_helios_v2 -t acme
          memgate link add chk_acme_1_1 supports ent_acme_helios_v2 -t acme
        """

    @link.command("add")
    @click.argument("from_id", metavar="FROM")
    @click.argument("link_type", metavar="TYPE", type=ManagerChoice("LINK_RELATIONS"))
    @click.argument("to_id", metavar="TO")
    @tenant_option()
    @scope_options
    @click.option("--from-type", type=_TYPES, help="FROM's memory type, when its id names several.")
    @click.option("--to-type", type=_TYPES, help="TO's memory type, when its id names several.")
    @click.option("--note", help="Why the link holds, in a sentence.")
    @click.pass_context
    @friendly_errors
    def add(ctx, from_id, link_type, to_id, tenant, user, agent, thread, from_type, to_type, note) -> None:
        """Link memory FROM to memory TO with TYPE (both must be visible in the scope given).

        TYPE is one of supersedes, refines, supports, duplicates, contradicts, or one of
        their reverse names (is_superseded_by ...), which stores the link the other way round.
        Adding a link that is there already changes nothing.

        \b
        Examples:
          memgate link add chk_acme_1_1 supports ent_acme_helios_v2 -t acme
          memgate link add ent_acme_helios_v2 is_supported_by chk_acme_1_1 -t acme
        """
        with _manager(ctx) as manager:
            row, created = manager.add_link(
                operator_identity(tenant, user, agent, thread),
                from_id,
                link_type,
                to_id,
                from_type=from_type,
                to_type=to_type,
                note=note,
            )
        state = "linked" if created else "already linked"
        click.echo(f"{state}: {row['from_id']} {row['link_type']} {row['to_id']} ({row['id']})")

    @link.command("ls")
    @click.argument("memory_id", metavar="ID")
    @tenant_option()
    @scope_options
    @click.option("--type", "memory_type", type=_TYPES, help="ID's memory type, when its id names several.")
    @click.pass_context
    @friendly_errors
    def ls(ctx, memory_id, tenant, user, agent, thread, memory_type) -> None:
        """List the live links of memory ID whose other end is visible in the scope given.

        Each line reads with ID as subject: "ID supersedes OTHER", "ID is_supported_by OTHER".

        \b
        Example:
          memgate link ls ent_acme_helios_v2 -t acme
          memgate link ls sum_acme_july -t acme --user jane
        """
        with _manager(ctx) as manager:
            views = manager.memory_links(
                operator_identity(tenant, user, agent, thread), memory_id, memory_type=memory_type
            )
        if not views:
            click.echo(f"{memory_id} has no links visible in this scope.")
        for v in views:
            click.echo(
                f"{v.link['id']}  {memory_id} {v.relation} {v.far['id']}  ({v.link['provenance']}, "
                f"since {v.link['valid_from']})"
            )

    @link.command("rm")
    @click.argument("ends", nargs=-1, required=True, metavar="LINK_ID | FROM TYPE TO")
    @tenant_option()
    @scope_options
    @click.pass_context
    @friendly_errors
    def rm(ctx, ends, tenant, user, agent, thread) -> None:
        """Remove a link, by its id or by its two memories and type (the row stays, marked deleted).

        \b
        Examples:
          memgate link rm chk_acme_1_0 supports ent_acme_helios_v2 -t acme
        """
        if len(ends) not in (1, 3):
            raise click.UsageError(
                "give a link id (lnk_...) or FROM TYPE TO, e.g. "
                "`memgate link rm chk_acme_1_0 supports ent_acme_helios_v2 -t acme`"
            )
        identity = operator_identity(tenant, user, agent, thread)
        with _manager(ctx) as manager:
            link_id = ends[0] if len(ends) == 1 else manager.find_link(identity, *ends)["id"]
            row = manager.remove_link(identity, link_id)
        click.echo(f"removed: {row['from_id']} {row['link_type']} {row['to_id']} ({row['id']})")


class _manager:
    """The manager for one command, closed on the way out."""

    def __init__(self, ctx: click.Context):
        self._ctx = ctx

    def __enter__(self) -> MemoryManager:
        self._manager = open_manager(settings_from(self._ctx))
        return self._manager

    def __exit__(self, *exc) -> None:
        self._manager.close()
