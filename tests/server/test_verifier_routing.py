"""Several verifiers on one endpoint: each token goes only to the verifier its shape and issuer name.

The real memgate HTTP app on 127.0.0.1, a local identity provider (tests/idp_helpers.py) that
records every token it is asked about, and locally signed JWTs.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from fastmcp import Client
from idp_helpers import CLIENT_ID, CLIENT_SECRET, refused_url, running_idp
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.manager import ACME, OperatorManager, load_tool_definitions
from memgate.server.auth_settings import HttpAuthSettings
from memgate.server.verifiers import MemgateIntrospectionVerifier, build_verifiers

JWT_ISS = "https://claude-idp.example.test"
OPAQUE_ISS = "https://okta.example.test"
GEMINI = "1234-gemini.apps.googleusercontent.com"
KEYS = make_keypair()


@pytest.fixture(scope="module")
def idp():
    with running_idp() as idp:
        yield idp


@pytest.fixture(autouse=True)
def fresh_idp(idp):
    for part in (idp.introspection, idp.tokeninfo, idp.userinfo, idp.mode):
        part.clear()
    idp.requests.clear()


def jwt_token(private=KEYS.private_pem, **overrides):
    now = int(time.time())
    claims = {"iss": JWT_ISS, "aud": "memgate", "sub": "jane", "tenant": "acme", "iat": now, "exp": now + 300}
    claims.update(overrides)
    return make_token(private, **claims)


def introspected(**overrides):
    now = int(time.time())
    return {"iss": OPAQUE_ISS, "aud": "api://memgate", "sub": "u-1", "tenant": "acme", "exp": now + 600, **overrides}


def google_token(idp, token):
    now = int(time.time())
    idp.tokeninfo[token] = {"aud": GEMINI, "sub": "1001", "exp": str(now + 600), "email": "jane@acme.example"}
    idp.userinfo[token] = {"id": "1001", "email": "jane@acme.example", "hd": "acme.example"}


def all_three(idp, introspect_url=None, **google):
    return {
        "verifier": ["jwt", "introspection", "google"],
        "issuer": JWT_ISS,
        "audience": "memgate",
        "public_key": KEYS.public_pem,
        "timeout_s": 1.0,
        "introspection": {
            "url": introspect_url or f"{idp.url}/introspect",
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "audience": "api://memgate",
            "issuer": OPAQUE_ISS,
        },
        "google": {
            "audience": GEMINI,
            "tokeninfo_url": f"{idp.url}/tokeninfo",
            "userinfo_url": f"{idp.url}/userinfo",
            **google,
        },
    }


def call(url, bearer):
    async def go():
        async with Client(f"{url}/mcp", auth=bearer) as c:
            r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
            return r.content[0].text

    return asyncio.run(go())


@pytest.mark.parametrize(
    "case",
    ["expired", "wrong_audience", "forged", "no_exp"],
)
@pytest.mark.parametrize("introspection", ["up", "down"])
def test_a_jwt_of_the_configured_issuer_is_judged_by_the_jwt_verifier_alone(
    idp, sqlite_path, two_tenants, backend, case, introspection
):
    now = int(time.time())
    bad = {
        "expired": lambda: jwt_token(exp=now - 60, iat=now - 600),
        "wrong_audience": lambda: jwt_token(aud="someone-else"),
        "forged": lambda: jwt_token(private=make_keypair().private_pem),
        "no_exp": lambda: make_token(KEYS.private_pem, iss=JWT_ISS, aud="memgate", sub="jane", tenant="acme"),
    }[case]()
    with refused_url() as dead:
        auth = all_three(idp, f"{dead}/introspect" if introspection == "down" else None)
        with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
            response = post_mcp(url, bad)
    assert response.status_code == 401, response.text  # never 503: introspection was not needed
    assert response.json()["error"] == "invalid_token"
    assert idp.requests == []  # neither introspection nor Google was asked
    assert log_rows(backend) == []


def test_each_token_reaches_only_its_own_verifier_and_is_served(idp, sqlite_path, manager, two_tenants, backend):
    idp.introspection["op-okta"] = introspected()
    google_token(idp, "ya29.gemini")
    OperatorManager(manager.backend).map_tenant("hd", "acme.example", "acme")
    with serve_memgate(memgate_settings(sqlite_path, all_three(idp))) as url:
        for bearer in (jwt_token(), "op-okta", "ya29.gemini"):
            assert "<content>0.78" in call(url, bearer)
    assert idp.calls("/introspect") == ["op-okta"]  # not the JWT, not the Google token
    assert idp.calls("/tokeninfo") == ["ya29.gemini"]  # not the Okta token
    assert [r["status"] for r in log_rows(backend)] == ["ok", "ok", "ok"]


def test_an_unknown_opaque_token_goes_to_introspection_only_and_an_unknown_issuers_jwt_nowhere(
    idp, sqlite_path, two_tenants
):
    stranger = jwt_token(iss="https://elsewhere.example.test")
    with serve_memgate(memgate_settings(sqlite_path, all_three(idp))) as url:
        assert post_mcp(url, "op-unknown").status_code == 401
        assert post_mcp(url, stranger).status_code == 401
    assert idp.requests == [("/introspect", "op-unknown")]


def test_a_jwt_of_the_introspection_issuer_goes_to_introspection_alone(idp, sqlite_path, two_tenants, backend):
    # an IdP that issues JWT access tokens and vouches for them by introspection
    other = make_keypair()
    okta_jwt = jwt_token(private=other.private_pem, iss=OPAQUE_ISS)
    idp.introspection[okta_jwt] = introspected()
    with serve_memgate(memgate_settings(sqlite_path, all_three(idp))) as url:
        assert "<content>0.78" in call(url, okta_jwt)
    assert idp.requests == [("/introspect", okta_jwt)]


def test_without_google_prefixes_opaque_tokens_go_to_introspection_then_google(idp, sqlite_path, two_tenants):
    google_token(idp, "gtoken-without-prefix")
    with serve_memgate(memgate_settings(sqlite_path, all_three(idp, token_prefixes=[]))) as url:
        assert post_mcp(url, "gtoken-without-prefix").status_code in (200, 403)  # verified; tenant decides
    assert [p for p, _ in idp.requests][:2] == ["/introspect", "/tokeninfo"]


def test_when_both_name_one_issuer_its_jwts_go_to_the_jwt_verifier_alone(idp, sqlite_path, two_tenants):
    """An IdP configured for the JWT verifier and for introspection: its JWTs are checked locally, its
    opaque tokens introspected; the JWT verifier's issuer wins, and introspection is never asked about a JWT."""
    auth = all_three(idp)
    auth["introspection"]["issuer"] = JWT_ISS
    idp.introspection["op-same-idp"] = introspected(iss=JWT_ISS)
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        assert "<content>0.78" in call(url, jwt_token())
        assert "<content>0.78" in call(url, "op-same-idp")
    assert idp.requests == [("/introspect", "op-same-idp")]


def test_an_introspected_token_of_another_issuer_or_not_yet_valid_is_refused(idp, sqlite_path, two_tenants, backend):
    """Introspection's own answer is checked too: `iss` when it names one, `nbf` when given."""
    now = int(time.time())
    idp.introspection["op-foreign"] = introspected(iss="https://elsewhere.example.test")
    idp.introspection["op-early"] = introspected(nbf=now + 600)
    idp.introspection["op-fine"] = introspected(nbf=now - 60)
    with serve_memgate(memgate_settings(sqlite_path, all_three(idp))) as url:
        for refused in ("op-foreign", "op-early"):
            response = post_mcp(url, refused)
            assert response.status_code == 401 and response.json()["error"] == "invalid_token", refused
        assert "<content>0.78" in call(url, "op-fine")
    assert [r["status"] for r in log_rows(backend)] == ["ok"]


def test_the_google_verifier_never_sends_a_jwt_to_google(idp):
    """Routing keeps JWTs from Google; the verifier itself refuses one unasked as well."""
    verifiers = build_verifiers(HttpAuthSettings(**all_three(idp)), KEYS.public_pem)
    assert asyncio.run(verifiers["google"].verify_token(jwt_token())) is None
    assert idp.requests == []


def test_an_introspection_verifier_cannot_be_built_without_an_audience(idp):
    """A generic introspection endpoint answers `active` for every API of the IdP: the audience is what
    makes the answer about memgate, so the verifier refuses to exist without one (settings say so first)."""
    with pytest.raises(ValueError, match="needs an audience"):
        MemgateIntrospectionVerifier(
            introspection_url=f"{idp.url}/introspect",
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            audience=None,
            issuer=OPAQUE_ISS,
        )


def test_a_step_up_challenge_names_the_scopes_of_the_verifier_that_accepted_the_token(
    idp, sqlite_path, manager, two_tenants, backend
):
    """An introspected token lacking a row's scope is challenged for introspection's required scopes and
    the row's, not the JWT verifier's."""
    lookup = next(d for d in load_tool_definitions() if d["tool_name"] == "lookup_entity")
    manager.seed_tools(ACME, [dict(lookup, tool_name="lookup_admin", access_policy={"required_scopes": ["mem:admin"]})])
    auth = all_three(idp)
    auth["required_scopes"] = ["memory:read"]
    auth["introspection"]["required_scopes"] = ["okta.memory"]
    idp.introspection["op-okta"] = introspected(scope="okta.memory")
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        response = post_mcp(url, "op-okta", name="lookup_admin")
    assert response.status_code == 403
    assert 'scope="okta.memory mem:admin"' in response.headers["www-authenticate"]
