"""`memgate serve`: run the MCP server over stdio or Streamable HTTP."""

from __future__ import annotations

import logging
import os

import click

from .common import (
    AGENT_ID,
    TENANT_ID,
    USER_ID,
    friendly_errors,
    open_manager,
    require_tenant,
    settings_from,
    setup_logging,
)

log = logging.getLogger("memgate.server")


def register(cli: click.Group) -> None:
    @cli.command("serve")
    @click.option("--transport", type=click.Choice(["stdio", "http"]), help="Default: server.transport (stdio).")
    @click.option("--host", help="HTTP bind address. Default: server.host (127.0.0.1).")
    @click.option("--port", type=int, help="HTTP port. Default: server.port (8765).")
    @click.option(
        "--workers",
        type=click.IntRange(1, 64),
        help="HTTP worker processes, each with its own pool; more than one serves statelessly. Default: server.workers (1).",
    )
    @click.option("--tenant", "-t", type=TENANT_ID, help="stdio: the trusted tenant this process serves.")
    @click.option("--user", "-u", type=USER_ID, help="stdio: the trusted user.")
    @click.option("--agent", type=AGENT_ID, help="stdio: the trusted agent.")
    @click.option(
        "--demo",
        is_flag=True,
        help="Create the database if needed, load the demo data, and (stdio) serve as acme/jane. "
        "Refused on a database whose tenants are not the demo's.",
    )
    @click.option("--force-demo", is_flag=True, help="--demo even on a database whose tenants are not the demo's.")
    @click.pass_context
    @friendly_errors
    def serve(ctx: click.Context, transport, host, port, workers, tenant, user, agent, demo, force_demo) -> None:
        """Run the MCP server.

        Over stdio the identity comes from launch configuration only (--tenant or
        [stdio] in memgate.toml), and the tenant must have been set up with
        `memgate init --tenant T` (or --demo): otherwise serve refuses to start rather
        than serve no tools. Over HTTP every request needs a bearer JWT, verified
        against [http.auth]; tenant, user and agent come from its claims.

        \b
        Examples:
          memgate serve --demo
          memgate serve --tenant acme --user jane --agent research-assistant
          memgate serve --transport http --port 8765
          memgate serve --transport http --workers 2
        """
        from memgate.manager import ACME, prepare_server_heap

        demo = demo or force_demo
        if demo and not (tenant or user or agent):
            tenant, user, agent = ACME.tenant, ACME.user, ACME.agent
        overrides = {
            "server.transport": transport,
            "server.host": host,
            "server.port": port,
            "server.workers": workers,
            "stdio.tenant": tenant,
            "stdio.user": user,
            "stdio.agent": agent,
        }
        settings = settings_from(ctx, **overrides)
        os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
        # The server stack first: fastmcp installs its own log handler when imported, which
        # setup_logging then replaces, so every line has the one format.
        from .. import app  # noqa: F401

        setup_logging(settings.server.log_level)
        if demo:
            from .db_cmds import init_database

            for line in init_database(settings, [], demo=True, force_demo=force_demo):
                log.info(line)
        manager = open_manager(settings)
        try:
            manager.check_schema()
            if settings.server.transport == "stdio":
                from ..app import stdio_server
                from ..stdio_transport import serve_stdio

                require_tenant(manager, settings, settings.stdio.identity(), serving=True)
                prepare_server_heap()
                mcp = stdio_server(manager, settings)
                log.info("memgate serving %s over stdio as tenant %s", settings.database.path, settings.stdio.tenant)
                serve_stdio(mcp, max_line_bytes=settings.server.max_request_bytes)
            else:
                import uvicorn

                from ..app import uvicorn_options
                from ..http_workers import http_app

                if settings.server.workers > 1:
                    _serve_workers(ctx, settings, overrides)
                    return
                prepare_server_heap()
                asgi_app = http_app(manager, settings)
                log.info(
                    "memgate serving %s at http://%s:%s/mcp",
                    settings.database.path,
                    settings.server.host,
                    settings.server.port,
                )
                # log_config=None: uvicorn's loggers keep the one format setup_logging gave the root.
                uvicorn.run(
                    asgi_app,
                    host=settings.server.host,
                    port=settings.server.port,
                    log_level=settings.server.log_level.lower(),
                    log_config=None,
                    **uvicorn_options(settings),
                )
        finally:
            manager.close()


def _serve_workers(ctx: click.Context, settings, overrides: dict) -> None:
    """Several uvicorn worker processes; each loads these settings and opens its own pool (http_workers.py)."""
    import uvicorn

    from ..app import uvicorn_options
    from ..http_workers import FACTORY, SPEC_ENV, worker_spec

    if not settings.server.stateless:
        log.info("%d workers: serving legacy-era clients statelessly (server.stateless)", settings.server.workers)
        overrides = {**overrides, "server.stateless": True}
    root = ctx.find_root().params
    os.environ[SPEC_ENV] = worker_spec(root.get("config"), {"database.path": root.get("db"), **overrides})
    log.info(
        "memgate serving %s at http://%s:%s/mcp with %d workers",
        settings.database.path,
        settings.server.host,
        settings.server.port,
        settings.server.workers,
    )
    uvicorn.run(
        FACTORY,
        factory=True,
        workers=settings.server.workers,
        host=settings.server.host,
        port=settings.server.port,
        log_level=settings.server.log_level.lower(),
        log_config=None,
        **uvicorn_options(settings),
    )
