"""The `memgate` command line.

Commands load on demand: `memgate fact get` imports the manager and not the MCP server
stack (fastmcp, mcp, uvicorn), which only `serve` and the commands that check toolbox rows
need, and `memgate --version` imports neither. `--help` loads every command to list it.
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
    "retention": "retention_cmds",
    "turn": "turn_cmds",
    "compact": "turn_cmds",
    "candidates": "candidate_cmds",
    "ui": "ui_cmd",
    "export": "portability_cmds",
    "import": "portability_cmds",
    "consolidate": "consolidate_cmd",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from their module the first time one is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

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
