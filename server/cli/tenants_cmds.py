"""`memgate tenants map|ls|unmap`: which tenant a token that names none speaks for."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from .common import ManagerChoice, friendly_errors, open_manager, operator_of, settings_from, tenant_option

_KIND_HELP = """KIND is the verified attribute VALUE is compared with:

\b
  iss_sub       the token's subject (VALUE) from one issuer (--issuer)
  client_id     the OAuth client id the token was issued to
  hd            a Google Workspace hosted domain, as Google reports it
  email_domain  the domain of a verified email address
"""
# Not indented like a docstring: click dedents by the smallest indent, which _KIND_HELP's
# unindented lines would make 0, leaving the indented prose misaligned and badly wrapped.
_MAP_HELP = f"""Map KIND VALUE to a tenant (and optionally a user).

{_KIND_HELP}
Mapping the same KIND VALUE again replaces the old mapping. When several mappings
match one token they must name the same tenant; the most specific one (the order
above) supplies the user.

\b
Examples:
  memgate tenants map hd acme.example -t acme
  memgate tenants map email_domain globex.example -t globex
  memgate tenants map client_id 1234-abc.apps.googleusercontent.com -t acme
  memgate tenants map iss_sub 00u1ab2c --issuer https://acme.okta.com -t acme --user jane
"""


def register(cli: click.Group) -> None:
    @cli.group("tenants")
    def tenants() -> None:
        """Map verified token attributes to tenants, for tokens that carry no tenant claim.

        Over HTTP a token's tenant comes from its tenant claim (http.auth.tenant_claim).
        Google access tokens (Gemini Enterprise) and many IdPs' tokens carry none; these
        mappings say which tenant, and optionally which user, such a token speaks for.
        A token that matches nothing is refused (403) and logged under the tenant
        ":unmapped" with the attributes to map (`memgate log -t :unmapped --json`).
        """

    @tenants.command("map", help=_MAP_HELP)
    @click.argument("kind", type=ManagerChoice("TENANT_MAPPING_KINDS"))
    @click.argument("value")
    @tenant_option()
    @click.option("--issuer", metavar="URL", help="iss_sub only: the token issuer, exactly as in its iss.")
    @click.option("--user", "-u", metavar="ID", help="The user calls run as. Default: the token's user claim.")
    @click.option("--note", help="Free text for the operator, shown by `tenants ls`.")
    @click.pass_context
    @friendly_errors
    def map_(ctx, kind, value, tenant, issuer, user, note) -> None:
        manager = open_manager(settings_from(ctx))
        try:
            m = operator_of(manager).map_tenant(
                kind, value, tenant, issuer=issuer, user=user, note=note, created_by="cli:operator"
            )
        finally:
            manager.close()
        click.echo(f"{m.describe()} -> tenant {m.tenant}" + (f", user {m.user}" if m.user else ""))

    @tenants.command("ls")
    @tenant_option(required=False)
    @click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
    @click.pass_context
    @friendly_errors
    def ls(ctx, tenant, as_json) -> None:
        """List tenant mappings.

        \b
        Examples:
          memgate tenants ls
          memgate tenants ls -t acme --json
        """
        manager = open_manager(settings_from(ctx))
        try:
            rows = operator_of(manager).tenant_mappings(tenant)
        finally:
            manager.close()
        if as_json:
            for m in rows:
                click.echo(json.dumps(asdict(m), sort_keys=True))
            return
        click.echo(f"{'tenant':<12} {'user':<16} {'kind':<13} value")
        for m in rows:
            value = f"{m.value} (issuer {m.issuer})" if m.kind == "iss_sub" else m.value
            click.echo(f"{m.tenant:<12} {m.user or '-':<16} {m.kind:<13} {value}")
        if not rows:
            from memgate.manager import UNMAPPED_TENANT

            click.echo(
                "(no tenant mappings; tokens must carry a tenant claim. "
                f"Refused calls: `memgate log -t {UNMAPPED_TENANT} --json`)"
            )

    @tenants.command(
        "unmap",
        help=f"""Remove the mapping of KIND VALUE.

    {_KIND_HELP}
    \b
    Examples:
      memgate tenants unmap hd acme.example
      memgate tenants unmap iss_sub 00u1ab2c --issuer https://acme.okta.com
    """,
    )
    @click.argument("kind", type=ManagerChoice("TENANT_MAPPING_KINDS"))
    @click.argument("value")
    @click.option("--issuer", metavar="URL", help="iss_sub only: the token issuer.")
    @click.pass_context
    @friendly_errors
    def unmap(ctx, kind, value, issuer) -> None:
        manager = open_manager(settings_from(ctx))
        try:
            m = operator_of(manager).unmap_tenant(kind, value, issuer=issuer)
        finally:
            manager.close()
        click.echo(f"removed {m.describe()} -> tenant {m.tenant}")
