"""The `memgate` command line."""

from __future__ import annotations

import click

from memgate import __version__

from . import (
    context_cmds,
    db_cmds,
    fact_cmds,
    ingest_cmd,
    link_cmds,
    log_cmds,
    memory_cmds,
    serve_cmd,
    tenants_cmds,
    tools_cmds,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", "-V", prog_name="memgate")
@click.option("--config", "-c", type=click.Path(dir_okay=False), envvar="MEMGATE_CONFIG",
              help="TOML settings file. Default: $MEMGATE_CONFIG, else memgate.toml in the user config dir.")
@click.option("--db", type=click.Path(dir_okay=False), metavar="PATH",
              help="SQLite database file (overrides database.path). Default: memgate.db in the user data dir.")
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


for module in (serve_cmd, db_cmds, fact_cmds, link_cmds, tools_cmds, tenants_cmds, log_cmds, memory_cmds,
               ingest_cmd, context_cmds):
    module.register(cli)


def main() -> None:
    cli(prog_name="memgate")
