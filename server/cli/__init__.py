"""The `memgate` command line.

Commands load on demand, so `memgate --help` and `memgate CMD --help` answer at once and a
command pays only for what it uses: `memgate fact get` imports the manager and not the MCP
server stack (fastmcp, mcp, uvicorn), which only `serve` and the commands that check toolbox
rows need, and `memgate --version` imports neither.

Adding a command (tests/cli/test_cli_startup.py holds every command to this):

1. Write it in a module of this package whose `register(cli)` defines it (`@cli.command(...)`
   or `@cli.group(...)`), and list it in COMMAND_MODULES (name -> module) and COMMAND_HELP
   (name -> the first line of its docstring, which `memgate --help` shows without importing
   the module).
2. At module level import only click, the standard library and `.common` (itself light).
   Import what the command needs when it runs, inside the function, e.g.

       def export(ctx, tenant):
           \"\"\"Export a tenant's memory as JSON lines.\"\"\"
           from memgate.manager import export_tenant    # here, not at the top of the module

   `memgate CMD --help` imports CMD's module, and memgate.manager costs about 0.4 s to import
   (docs/benchmarks.md, "CLI start-up"): a module-level import puts that on its --help.
3. A choice among a manager constant's values is `ManagerChoice("NAME")` (read when parsed or
   shown); a tenant is `tenant_option()`, which also refuses a tenant the database does not have.
"""

from __future__ import annotations

import importlib

import click

from memgate import __version__

#: each top-level command and its module in this package (the module's register() adds it)
COMMAND_MODULES = {
    "serve": "serve_cmd",
    "init": "db_cmds",
    "doctor": "db_cmds",
    "fact": "fact_cmds",
    "link": "link_cmds",
    "tools": "tools_cmds",
    "tenants": "tenants_cmds",
    "log": "log_cmds",
    "memory": "memory_cmds",
    "ingest": "ingest_cmd",
    "search": "ingest_cmd",
    "reembed": "reembed_cmd",
    "context": "context_cmds",
    "manifest": "context_cmds",
    "budget": "context_cmds",
    "forget": "retention_cmds",
    "expire": "retention_cmds",
    "optimize": "optimize_cmd",
    "retention": "retention_cmds",
    "turn": "turn_cmds",
    "compact": "turn_cmds",
    "candidates": "candidate_cmds",
    "ui": "ui_cmd",
    "export": "portability_cmds",
    "import": "portability_cmds",
    "consolidate": "consolidate_cmd",
    "dev-token": "dev_token_cmd",
}


#: what `memgate --help` lists for each command, without importing its module: the first line
#: of the command's docstring (click shortens it to the terminal's width)
COMMAND_HELP = {
    "serve": "Run the MCP server.",
    "init": "Create or upgrade the database schema and seed toolbox rows.",
    "doctor": "Check settings, database, toolbox rows and tokenizer; say what is wrong in one screen.",
    "fact": "Read and correct canonical claims (entity_memory).",
    "link": "Link memories: supersedes, refines, supports, duplicates, contradicts.",
    "tools": "List, enable and disable a tenant's tools (toolbox_memory rows); add reports.",
    "tenants": "Map verified token attributes to tenants, for tokens that carry no tenant claim.",
    "log": "Show recent tool calls: who called what, how it ended, what the agent saw.",
    "memory": "Read and manage memory-tool files (/memories/...), one store at a time.",
    "ingest": "Add .txt, .md, .html, .pdf and image files (or folders of them) to a tenant's knowledge base.",
    "search": "Search a tenant's knowledge base as the search_memory tool does, and show what the agent would see.",
    "reembed": "Re-embed the tenant's chunks (and the turns recall ranks) whose vectors are not from the configured embedder.",
    "context": "Assemble the context window an agent would get for QUESTION, and record its manifest.",
    "manifest": "Context manifests: what each assembled window held, left out and why.",
    "budget": "The tenant's context budget (the context_budget guideline).",
    "forget": "Erase one user's, agent's or thread's content everywhere memgate copied it.",
    "expire": "Apply each tenant's retention policy: delete what is older than its memory type keeps.",
    "optimize": "Merge the lexical indexes so search and recall read each word in one place.",
    "retention": "Show or set a tenant's retention policy (days per memory type, or keep).",
    "turn": "Record and list a thread's turns (the context window's volatile tail).",
    "compact": "Summarise a thread's older turns now (all but the newest two), with the extractive summariser.",
    "candidates": "Review what agents proposed with `remember` and what the promotion gate decided.",
    "ui": "Browse a tenant's context manifests and review its memory candidates in a browser.",
    "export": "Write every record a tenant, or one user, agent or thread in it, owns to a bundle.",
    "import": "Import a bundle `memgate export` wrote, or another tool's memories (--from).",
    "consolidate": (
        "Look again at what is stored: near-duplicate records, records a later correction made stale, "
        "notes that repeat a knowledge-base passage."
    ),
    "dev-token": "Sign a local token to try the HTTP transport without an identity provider (LOCAL USE ONLY).",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from their module the first time one is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from COMMAND_HELP: `memgate --help` imports no command module."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in COMMAND_HELP:
                rows.append((name, click.Command(name, help=COMMAND_HELP[name]).get_short_help_str(limit)))
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(f"{__name__}.{module}").register(self)
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", "-V", prog_name="memgate")
@click.option(
    "--config",
    "-c",
    type=click.Path(dir_okay=False),
    envvar="MEMGATE_CONFIG",
    help="TOML settings file. Default: $MEMGATE_CONFIG, else memgate.toml in the user config dir.",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    metavar="PATH",
    help="SQLite database file (overrides database.path). Default: memgate.db in the user data dir.",
)
def cli(config: str | None, db: str | None) -> None:
    """memgate: an MCP server in front of a multi-tenant memory store for AI agents.

    \b
    Start here:
      memgate serve --demo                 stdio server on the embedded database, demo data
      memgate serve --transport http       Streamable HTTP at http://127.0.0.1:8765/mcp (JWT auth)
      memgate doctor                       what is wrong, in one screen
      memgate fact get model:helios-rag -t acme
      memgate log -t acme                  what the agent did and saw
      memgate context "Is Helios RAG's nDCG@10 really 0.92?" -t acme --intent fact_check

    Settings come from memgate.toml and MEMGATE_* environment variables
    (e.g. MEMGATE_CAPS__MAX_ROWS=100); see config/memgate.example.toml.
    """


def main() -> None:
    cli(prog_name="memgate")
