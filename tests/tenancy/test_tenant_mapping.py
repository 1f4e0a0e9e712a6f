"""Tenant mapping: the operator's table, the choice it makes, the CLI, and the walls that keep tools out of it."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from click.testing import CliRunner

from memgate.manager import (
    ACME,
    AccessDenied,
    BackendUnavailable,
    InvalidArgument,
    NotFound,
    OperatorManager,
    QueryRejected,
    TenantMapping,
    TenantMismatch,
    TenantUnmapped,
    TokenAttributes,
)
from memgate.manager.tenancy.mapping import choose
from memgate.server.cli import cli

ISS = "https://idp.example.test"


def m(kind, value, tenant, user=None, issuer=""):
    return TenantMapping(kind=kind, issuer=issuer, value=value, tenant=tenant, user=user)


def test_a_claim_stands_when_no_mapping_matches():
    assert choose([], "acme").tenant == "acme"


def test_no_claim_and_no_mapping_is_refused():
    with pytest.raises(TenantUnmapped, match="names no tenant and no tenant mapping matches"):
        choose([], None)


def test_the_most_specific_mapping_names_the_user():
    chosen = choose(
        [
            m("hd", "acme.example", "acme"),
            m("iss_sub", "u-1", "acme", "jane", ISS),
            m("email_domain", "acme.example", "acme", "team"),
        ],
        None,
    )
    assert (chosen.tenant, chosen.user, chosen.mapping.kind) == ("acme", "jane", "iss_sub")


def test_a_claim_that_a_mapping_contradicts_is_refused():
    with pytest.raises(TenantMismatch, match="tenant claim 'globex' disagrees with the tenant mapping"):
        choose([m("client_id", "svc", "acme")], "globex")
    assert choose([m("client_id", "svc", "acme")], "acme").tenant == "acme"


def test_two_mappings_that_disagree_are_refused():
    with pytest.raises(
        TenantMismatch, match="name different tenants: hd acme.example -> acme, email_domain acme.example -> globex"
    ):
        choose([m("email_domain", "acme.example", "globex"), m("hd", "acme.example", "acme")], None)


def test_mappings_are_found_by_each_verified_attribute(manager):
    OperatorManager(manager.backend).map_tenant("iss_sub", "u-1", "acme", issuer=ISS, user="jane")
    OperatorManager(manager.backend).map_tenant("client_id", "svc-globex", "globex")
    OperatorManager(manager.backend).map_tenant("hd", "Acme.Example", "acme")
    OperatorManager(manager.backend).map_tenant("email_domain", "initech.example", "initech")
    found = {
        "iss_sub": OperatorManager(manager.backend).tenant_for(TokenAttributes(iss=ISS, sub="u-1"), None),
        "client_id": OperatorManager(manager.backend).tenant_for(TokenAttributes(client_id="svc-globex"), None),
        "hd": OperatorManager(manager.backend).tenant_for(TokenAttributes(hd="acme.example"), None),
        "email_domain": OperatorManager(manager.backend).tenant_for(
            TokenAttributes(email_domain="INITECH.example"), None
        ),
    }
    assert {k: (c.tenant, c.user) for k, c in found.items()} == {
        "iss_sub": ("acme", "jane"),
        "client_id": ("globex", None),
        "hd": ("acme", None),
        "email_domain": ("initech", None),
    }
    # the same subject from another issuer is someone else
    with pytest.raises(TenantUnmapped, match="^the token names no tenant and no tenant mapping matches it$"):
        OperatorManager(manager.backend).tenant_for(TokenAttributes(iss="https://other.example", sub="u-1"), None)


def test_mapping_the_same_attribute_again_replaces_it_and_unmap_removes_it(manager):
    OperatorManager(manager.backend).map_tenant("hd", "acme.example", "acme")
    OperatorManager(manager.backend).map_tenant("hd", "acme.example", "globex", note="moved")
    assert [(x.tenant, x.note) for x in OperatorManager(manager.backend).tenant_mappings()] == [("globex", "moved")]
    assert OperatorManager(manager.backend).unmap_tenant("hd", "acme.example").tenant == "globex"
    with pytest.raises(NotFound, match="^no tenant mapping for hd acme.example") as err:
        OperatorManager(manager.backend).unmap_tenant("hd", "acme.example")
    assert err.value.with_hint() == (
        "no tenant mapping for hd acme.example. List the mappings with `memgate tenants ls`."
    )


@pytest.mark.parametrize(
    "kind, value, kwargs, field, message",
    [
        ("iss_sub", "u-1", {}, "issuer", "an iss_sub mapping needs the token issuer"),
        ("hd", "acme.example", {"issuer": ISS}, "issuer", "only iss_sub mappings take an issuer"),
        ("hd", "not a domain", {}, "value", "hd must be a domain name"),
        ("email_domain", "jane@acme.example", {}, "value", "email_domain must be a domain name"),
        ("tenant", "acme", {}, "kind", "kind must be one of iss_sub, client_id, hd, email_domain"),
        ("hd", "acme.example", {"tenant": ":unmapped"}, "tenant", "may not start with ':'"),
    ],
)
def test_bad_mappings_are_refused_naming_the_field(manager, kind, value, kwargs, field, message):
    tenant = kwargs.pop("tenant", "acme")
    with pytest.raises(InvalidArgument, match=message) as err:
        OperatorManager(manager.backend).map_tenant(kind, value, tenant, **kwargs)
    assert err.value.field == field
    assert OperatorManager(manager.backend).tenant_mappings() == []


def test_the_cli_maps_lists_and_unmaps(sqlite_path):
    assert CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme", "-t", "globex"]).exit_code == 0

    def run(*args, ok=True):
        result = CliRunner().invoke(cli, ["--db", str(sqlite_path), "tenants", *args])
        assert (result.exit_code == 0) == ok, result.output
        return result.output

    assert run("ls") == (
        "tenant       user             kind          value\n(no tenant mappings; tokens must "
        "carry a tenant claim. Refused calls: `memgate log -t :unmapped --json`)\n"
    )
    assert run("map", "hd", "ACME.example", "-t", "acme") == "hd acme.example -> tenant acme\n"
    assert run("map", "iss_sub", "00u1", "--issuer", ISS, "-t", "acme", "-u", "jane") == (
        f"iss_sub {ISS} 00u1 -> tenant acme, user jane\n"
    )
    assert run("ls", "-t", "acme").splitlines()[1:] == [
        "acme         -                hd            acme.example",
        f"acme         jane             iss_sub       00u1 (issuer {ISS})",
    ]
    assert run("unmap", "hd", "acme.example") == "removed hd acme.example -> tenant acme\n"
    assert (
        "Error: an iss_sub mapping needs the token issuer as well as the subject. Name the token's iss, e.g. "
        "`memgate tenants map iss_sub 00u2 --issuer https://idp.example.com -t acme`."
        in run("map", "iss_sub", "00u2", "-t", "acme", ok=False)
    )


def test_the_map_help_reads_as_prose_with_its_kinds_table():
    import re

    out = CliRunner().invoke(cli, ["tenants", "map", "--help"]).output
    prose = re.sub(r"\n\s*", " ", out)
    assert "When several mappings match one token they must name the same tenant" in prose
    assert "\n    hd            a Google Workspace hosted domain" in out
    assert "\n    memgate tenants map hd acme.example -t acme\n" in out


def test_no_walled_session_and_no_query_reaches_the_mapping_table(manager, backend, two_tenants):
    OperatorManager(manager.backend).map_tenant("client_id", "svc-secret-client", "acme", user="jane")
    assert "tenant_mapping" not in backend.tables()
    with backend.session(ACME) as s:
        with pytest.raises(AccessDenied, match="names a base table"):
            s.raw("SELECT * FROM base_tenant_mapping")
        with pytest.raises(
            BackendUnavailable, match="^the database failed to run a statement$"
        ):  # there is no tenant view of it at all
            s.raw("SELECT * FROM tenant_mapping")
    for sql in (
        "SELECT * FROM tenant_mapping",
        "SELECT * FROM base_tenant_mapping",
        "SELECT value FROM entity_memory UNION SELECT value FROM tenant_mapping",
    ):
        with pytest.raises(QueryRejected, match=r"^query refused \(rule table\): ") as err:
            manager.execute_query(ACME, sql)
        assert "svc-secret-client" not in err.value.with_hint()
    assert [r["value"] for r in operator_rows(backend, "tenant_mapping")] == ["svc-secret-client"]
