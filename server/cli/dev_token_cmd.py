"""`memgate dev-token`: a token for trying `memgate serve --transport http` on this machine, no IdP needed."""

from __future__ import annotations

import shlex

import click

from .common import AGENT_ID, USER_ID, command_for, friendly_errors, settings_from, tenant_option

#: the MCP Inspector release tests/server/test_inspector_cli.py drives
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
_LIST_TOOLS = (
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{'
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}}}'
)


def register(cli: click.Group) -> None:
    @cli.command("dev-token")
    @tenant_option()
    @click.option("--user", "-u", required=True, type=USER_ID, metavar="ID", help="The user the token speaks for.")
    @click.option("--agent", type=AGENT_ID, metavar="ID", help="The agent claim.")
    @click.option("--thread", metavar="ID", help="The thread claim (the conversation the calls belong to).")
    @click.option(
        "--scope",
        "scopes",
        multiple=True,
        metavar="SCOPE",
        help="A scope besides http.auth.required_scopes, e.g. memory:review (repeatable).",
    )
    @click.option(
        "--ttl",
        type=click.IntRange(60, 7 * 24 * 3600),
        default=3600,
        show_default=True,
        help="Seconds the token is valid.",
    )
    @click.option("--token-only", is_flag=True, help="Print only the token.")
    @click.pass_context
    @friendly_errors
    def dev_token(ctx, tenant, user, agent, thread, scopes, ttl, token_only) -> None:
        """Sign a local token to try the HTTP transport without an identity provider (LOCAL USE ONLY).

        Makes a key pair in the user data directory (dev-issuer/, once) and prints a token for
        TENANT and USER, the command that serves HTTP, and curl and MCP Inspector lines that use
        it. `memgate serve --transport http` accepts these tokens only while [http.auth] names no
        issuer of its own and the server is bound to a loopback address; this command refuses when
        the server would be bound anywhere else. Every line but the token is a shell comment:
        `eval "$(memgate dev-token -t acme --user jane)"` sets MEMGATE_TOKEN.

        \b
        Examples:
          memgate dev-token -t acme --user jane
          memgate dev-token -t acme --user jane --agent research-assistant --scope memory:review
        """
        from memgate.manager import ConfigError

        from ..dev_issuer import DEV_ISSUER, ensure_key_pair, is_local, key_dir, sign

        settings = settings_from(ctx)
        if (why := is_local(settings)) is not None:
            raise ConfigError(
                f"memgate dev-token is for local use only, and {why}.",
                field="server.host",
                hint="Serve on 127.0.0.1 to try it, and configure [http.auth] with your identity provider "
                "for anything else (docs/hosts.md).",
            )
        auth = settings.http.auth
        if "jwt" not in auth.verifier or auth.issuer or auth.jwks_uri or auth.public_key or auth.public_key_file:
            raise ConfigError(
                "[http.auth] configures a token issuer of its own, so memgate serve would not accept a "
                "dev-token (it verifies that issuer's tokens).",
                field="http.auth.issuer",
                hint="Use a token from that issuer, or unset http.auth's issuer and key to try dev tokens.",
            )
        private_pem, _ = ensure_key_pair()
        token = sign(
            private_pem,
            tenant=tenant,
            user=user,
            agent=agent,
            thread=thread,
            scopes=list(dict.fromkeys([*auth.required_scopes, *scopes])),
            ttl_s=ttl,
            settings=settings,
        )
        if token_only:
            click.echo(token)
            return
        url = f"{(settings.server.base_url or f'http://{settings.server.host}:{settings.server.port}').rstrip('/')}/mcp"
        bearer = '"Authorization: Bearer $MEMGATE_TOKEN"'
        curl = (
            f"curl -s {url} -H {bearer} -H 'Content-Type: application/json' "
            "-H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' "
            f"-H 'Mcp-Method: tools/list' -d {shlex.quote(_LIST_TOOLS)}"
        )
        who = (
            f"tenant {tenant}, user {user}"
            + (f", agent {agent}" if agent else "")
            + (f", thread {thread}" if thread else "")
        )
        lines = [
            f"# LOCAL USE ONLY: a token of memgate's local issuer ({DEV_ISSUER}, key in {key_dir()}),",
            f"# for {who}; it expires in {ttl} s. Only a memgate serve bound to 127.0.0.1 with no",
            "# [http.auth] issuer of its own accepts it. A real deployment uses your identity provider (docs/hosts.md).",
            f"export MEMGATE_TOKEN={token}",
            "# serve HTTP (in another terminal):",
            f"#   {command_for(settings, 'serve --transport http')}",
            "# list the tools with curl:",
            f"#   {curl}",
            "# or with the MCP Inspector (Node 22):",
            f"#   npx {INSPECTOR} --cli --server-url {url} --transport http --stored-auth-only --header {bearer} "
            "--method tools/list",
        ]
        click.echo("\n".join(lines))
