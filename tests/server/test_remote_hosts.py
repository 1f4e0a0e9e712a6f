"""Remote hosts as they connect: opaque tokens (RFC 7662), Google tokens (Gemini), several verifiers, outages.

Every test runs the real memgate HTTP app under uvicorn on 127.0.0.1 against a real local
identity provider (tests/idp_helpers.py), and checks what a refused caller gets back and
that nothing was served: no result text, no rows changed, only the `denied` log row a
tenant-mapping refusal must leave.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from backend_helpers import table_digest
from fastmcp import Client
from idp_helpers import CLIENT_ID, CLIENT_SECRET, refused_url, running_idp
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.manager import UNMAPPED_TENANT, MemoryManager, OperatorManager

OPAQUE_ISS = "https://idp.example.test"
OPAQUE_AUD = "api://memgate"
JWT_ISS = "https://claude-idp.example.test"
JWT_AUD = "memgate"
GEMINI_CLIENT = "1234-gemini.apps.googleusercontent.com"
KEYS = make_keypair()
ACME_VALUE, GLOBEX_VALUE = "<content>0.78", "<content>0.55"


@pytest.fixture(scope="module")
def idp():
    with running_idp() as idp:
        yield idp


@pytest.fixture(autouse=True)
def fresh_idp(idp):
    """Each test starts with no tokens, no revocations, healthy endpoints and an empty request log."""
    for part in (idp.introspection, idp.tokeninfo, idp.userinfo, idp.mode):
        part.clear()
    idp.revoked.clear()
    idp.requests.clear()


def opaque(**overrides):
    now = int(time.time())
    base = {
        "iss": OPAQUE_ISS,
        "aud": [OPAQUE_AUD, "other-api"],
        "sub": "u-42",
        "client_id": "svc-okta",
        "scope": "memory:read",
        "exp": now + 600,
        "iat": now,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def jwt_token(**overrides):
    now = int(time.time())
    claims = {
        "iss": JWT_ISS,
        "aud": JWT_AUD,
        "sub": "jane@acme",
        "tenant": "acme",
        "scope": "memory:read",
        "iat": now,
        "exp": now + 300,
    }
    claims.update(overrides)
    return make_token(KEYS.private_pem, **{k: v for k, v in claims.items() if v is not None})


def google_user(
    token, *, sub="1001", email="jane@acme.example", verified="true", hd="acme.example", aud=GEMINI_CLIENT, idp=None
):
    now = int(time.time())
    idp.tokeninfo[token] = {
        "azp": aud,
        "aud": aud,
        "sub": sub,
        "scope": "openid https://www.googleapis.com/auth/userinfo.email",
        "exp": str(now + 3600),
        "email": email,
        "email_verified": verified,
        "access_type": "online",
    }
    idp.userinfo[token] = {
        "id": sub,
        "email": email,
        "verified_email": verified == "true",
        "name": "Jane",
        **({"hd": hd} if hd else {}),
    }


def introspection_auth(idp, **overrides):
    section = {
        "url": f"{idp.url}/introspect",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "audience": OPAQUE_AUD,
        "issuer": OPAQUE_ISS,
    }
    section.update(overrides)
    return {"verifier": "introspection", "required_scopes": ["memory:read"], "timeout_s": 1.0, "introspection": section}


def google_auth(idp, **overrides):
    section = {
        "audience": GEMINI_CLIENT,
        "tokeninfo_url": f"{idp.url}/tokeninfo",
        "userinfo_url": f"{idp.url}/userinfo",
    }
    section.update(overrides)
    return {"verifier": "google", "timeout_s": 1.0, "google": section}


def jwt_auth():
    return {"issuer": JWT_ISS, "audience": JWT_AUD, "public_key": KEYS.public_pem, "required_scopes": ["memory:read"]}


def call_text(url, token, mode="auto", tool="lookup_entity", arguments=None):
    async def call():
        async with Client(f"{url}/mcp", auth=token, mode=mode) as c:
            r = await c.call_tool(tool, arguments or {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
            return r.content[0].text

    return asyncio.run(call())


def assert_nothing_served(response, backend, before, status, error):
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert ACME_VALUE.strip() not in response.text and GLOBEX_VALUE.strip() not in response.text
    assert table_digest(backend, skip=("mcp_call_log",)) == before


# -- RFC 7662 introspection -------------------------------------------------------------------


@pytest.fixture
def mapped(manager, two_tenants):
    """acme and globex with their demo data; iss+sub u-42 and OAuth client svc-acme-app map to acme."""
    OperatorManager(manager.backend).map_tenant("iss_sub", "u-42", "acme", issuer=OPAQUE_ISS, user="jane")
    OperatorManager(manager.backend).map_tenant("client_id", "svc-acme-app", "acme")
    return manager


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_valid_opaque_token_maps_to_its_tenant_and_calls_a_tool(idp, sqlite_path, mapped, backend, mode):
    idp.introspection["op-jane"] = opaque()
    with serve_memgate(memgate_settings(sqlite_path, introspection_auth(idp))) as url:
        text = call_text(url, "op-jane", mode)
    assert ACME_VALUE in text and GLOBEX_VALUE not in text
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["user_id"], row["principal"], row["status"]) == ("acme", "jane", "u-42", "ok")
    assert set(idp.calls("/introspect")) == {"op-jane"}


def test_a_tenant_claim_in_an_introspection_response_needs_no_mapping(idp, sqlite_path, mapped, backend):
    idp.introspection["op-globex"] = opaque(sub="omar", client_id="svc-globex", tenant="globex")
    with serve_memgate(memgate_settings(sqlite_path, introspection_auth(idp))) as url:
        text = call_text(url, "op-globex")
    assert GLOBEX_VALUE in text and ACME_VALUE not in text
    assert [r["tenant_id"] for r in log_rows(backend)] == ["globex"]


@pytest.mark.parametrize(
    "case, status, error",
    [
        ("unknown", 401, "invalid_token"),
        ("expired", 401, "invalid_token"),
        ("revoked", 401, "invalid_token"),
        ("wrong_audience", 401, "invalid_token"),
        ("no_audience", 401, "invalid_token"),
        ("wrong_issuer", 401, "invalid_token"),
        ("without_scope", 403, "insufficient_scope"),
        ("unmapped", 403, "tenant_not_mapped"),
        ("claim_disagrees_with_mapping", 403, "tenant_mismatch"),
        ("tenant_never_set_up", 403, "tenant_not_set_up"),
    ],
)
def test_refused_opaque_tokens_get_401_or_403_and_nothing_is_served(
    idp, sqlite_path, mapped, backend, case, status, error
):
    now = int(time.time())
    idp.introspection.update(
        {
            "op-expired": opaque(exp=now - 5, iat=now - 600),
            "op-revoked": opaque(),
            "op-wrong_audience": opaque(aud="api://someone-else"),
            "op-no_audience": opaque(aud=None),
            "op-wrong_issuer": opaque(iss="https://evil.example"),
            "op-without_scope": opaque(scope="memory:write"),
            "op-unmapped": opaque(sub="stranger", client_id="svc-unknown"),
            "op-claim_disagrees_with_mapping": opaque(tenant="globex"),
            "op-tenant_never_set_up": opaque(sub="omar", client_id="svc-initech", tenant="initech"),
        }
    )
    idp.revoked.add("op-revoked")
    before = table_digest(backend, skip=("mcp_call_log",))
    with serve_memgate(memgate_settings(sqlite_path, introspection_auth(idp))) as url:
        response = post_mcp(url, f"op-{case}")
    assert_nothing_served(response, backend, before, status, error)
    assert idp.calls("/introspect") == [f"op-{case}"]
    rows = log_rows(backend)
    if status == 401 or error == "insufficient_scope":
        assert rows == []
        return
    [row] = rows  # a tenant refusal is logged once, under the marker tenant, with what to map
    assert (row["tenant_id"], row["status"], row["tool_name"], row["transport"]) == (
        UNMAPPED_TENANT,
        "denied",
        "lookup_entity",
        "streamable-http",
    )
    assert (
        row["error_class"]
        == {
            "tenant_not_mapped": "TenantUnmapped",
            "tenant_mismatch": "TenantMismatch",
            "tenant_not_set_up": "TenantNotSetUp",
        }[error]
    )
    assert response.json()["error_description"] == row["result_text"]
    assert response.json()["error_description"].count(".") == 1  # one sentence
    assert '"iss": "https://idp.example.test"' in row["arguments_json"]
    if error == "tenant_not_set_up":  # what the operator reads to tell a typo from a tenant to set up
        assert '"tenant_claim": "initech"' in row["arguments_json"]


@pytest.mark.parametrize("outage", ["refused", "http_500", "too_slow"])
def test_an_introspection_endpoint_that_is_down_gives_503_and_no_data(idp, sqlite_path, mapped, backend, outage):
    idp.introspection["op-jane"] = opaque()
    before = table_digest(backend, skip=("mcp_call_log",))
    with refused_url() as dead:
        auth = introspection_auth(idp, **({"url": f"{dead}/introspect"} if outage == "refused" else {}))
        idp.mode["/introspect"] = {"http_500": "500", "too_slow": "slow"}.get(outage, "")
        with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
            started = time.monotonic()
            response = post_mcp(url, "op-jane")
            took = time.monotonic() - started
    assert_nothing_served(response, backend, before, 503, "temporarily_unavailable")
    assert response.headers["retry-after"] == "5"
    assert took < 2.5  # bounded by http.auth.timeout_s (1 s here), not by the endpoint
    assert log_rows(backend) == []


def test_verified_tokens_are_cached_for_cache_s_and_revocation_shows_without_a_cache(idp, sqlite_path, mapped):
    idp.introspection["op-jane"] = opaque()
    with serve_memgate(memgate_settings(sqlite_path, {**introspection_auth(idp), "cache_s": 60})) as url:
        assert [post_mcp(url, "op-jane").status_code for _ in range(3)] == [200, 200, 200]
    assert idp.calls("/introspect") == ["op-jane"]
    idp.requests.clear()
    with serve_memgate(memgate_settings(sqlite_path, {**introspection_auth(idp), "cache_s": 0})) as url:
        first = post_mcp(url, "op-jane").status_code
        idp.revoked.add("op-jane")
        second = post_mcp(url, "op-jane").status_code
    assert (first, second) == (200, 401)
    assert idp.calls("/introspect") == ["op-jane", "op-jane"]


def test_a_cached_token_is_not_kept_past_its_expiry(idp, sqlite_path, mapped):
    with serve_memgate(memgate_settings(sqlite_path, {**introspection_auth(idp), "cache_s": 60})) as url:
        expires = int(time.time()) + 2
        idp.introspection["op-short"] = opaque(exp=expires)
        assert post_mcp(url, "op-short").status_code == 200
        while time.time() <= expires + 0.05:  # bounded: at most about two seconds
            time.sleep(0.05)
        assert post_mcp(url, "op-short").status_code == 401
    assert idp.calls("/introspect") == ["op-short", "op-short"]


# -- Google access tokens (Gemini Enterprise) ---------------------------------------------------


@pytest.fixture
def google_mapped(manager, two_tenants):
    OperatorManager(manager.backend).map_tenant("hd", "acme.example", "acme")
    OperatorManager(manager.backend).map_tenant("email_domain", "globex.example", "globex", user="omar")
    return manager


def test_a_google_token_maps_by_hosted_domain_and_calls_a_tool(idp, sqlite_path, google_mapped, backend):
    google_user("ya29.jane", idp=idp)
    with serve_memgate(memgate_settings(sqlite_path, google_auth(idp))) as url:
        text = call_text(url, "ya29.jane")
    assert ACME_VALUE in text and GLOBEX_VALUE not in text
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["user_id"], row["principal"]) == ("acme", "1001", "1001")
    assert set(idp.calls("/tokeninfo")) == {"ya29.jane"}


def test_a_google_token_maps_by_verified_email_domain_to_the_mapped_user(idp, sqlite_path, google_mapped, backend):
    google_user("ya29.omar", sub="2002", email="omar@globex.example", hd=None, idp=idp)
    with serve_memgate(memgate_settings(sqlite_path, google_auth(idp))) as url:
        text = call_text(url, "ya29.omar")
    assert GLOBEX_VALUE in text and ACME_VALUE not in text
    assert [(r["tenant_id"], r["user_id"]) for r in log_rows(backend)] == [("globex", "omar")]


@pytest.mark.parametrize(
    "case, status, error",
    [
        ("unknown", 401, "invalid_token"),
        ("wrong_audience", 401, "invalid_token"),
        ("personal_account", 403, "tenant_not_mapped"),
        ("unverified_email", 403, "tenant_not_mapped"),
    ],
)
def test_refused_google_tokens_get_401_or_403_and_nothing_is_served(
    idp, sqlite_path, google_mapped, backend, case, status, error
):
    google_user("ya29.wrong_audience", aud="someone-elses-client.apps.googleusercontent.com", idp=idp)
    google_user("ya29.personal_account", email="jane@gmail.com", hd=None, idp=idp)
    google_user("ya29.unverified_email", email="eve@globex.example", verified="false", hd=None, idp=idp)
    before = table_digest(backend, skip=("mcp_call_log",))
    with serve_memgate(memgate_settings(sqlite_path, google_auth(idp))) as url:
        response = post_mcp(url, f"ya29.{case}")
    assert_nothing_served(response, backend, before, status, error)
    assert [r["tenant_id"] for r in log_rows(backend)] == ([UNMAPPED_TENANT] if status == 403 else [])


@pytest.mark.parametrize("outage", ["tokeninfo_500", "userinfo_500", "refused"])
def test_a_google_endpoint_that_is_down_gives_503_and_no_data(idp, sqlite_path, google_mapped, backend, outage):
    google_user("ya29.jane", idp=idp)
    before = table_digest(backend, skip=("mcp_call_log",))
    with refused_url() as dead:
        auth = google_auth(idp, **({"tokeninfo_url": f"{dead}/tokeninfo"} if outage == "refused" else {}))
        if outage != "refused":
            idp.mode["/" + outage.split("_")[0]] = "500"
        with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
            response = post_mcp(url, "ya29.jane")
    assert_nothing_served(response, backend, before, 503, "temporarily_unavailable")
    assert log_rows(backend) == []


# -- several verifiers on one endpoint ---------------------------------------------------------


def test_jwts_and_google_tokens_share_one_endpoint_and_a_jwt_never_reaches_google(
    idp, sqlite_path, google_mapped, backend
):
    google_user("ya29.jane", idp=idp)
    auth = {**jwt_auth(), **google_auth(idp), "verifier": ["jwt", "google"]}
    expired = jwt_token(exp=int(time.time()) - 60, iat=int(time.time()) - 600)
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        assert ACME_VALUE in call_text(url, jwt_token())
        assert ACME_VALUE in call_text(url, "ya29.jane")
        assert post_mcp(url, expired).status_code == 401
    assert [(r["tenant_id"], r["principal"]) for r in log_rows(backend)] == [("acme", "jane@acme"), ("acme", "1001")]
    assert all(t == "ya29.jane" for t in idp.calls("/tokeninfo"))


def test_with_several_verifiers_an_outage_is_still_503_not_401(idp, sqlite_path, mapped, backend):
    with refused_url() as dead:
        auth = {
            **jwt_auth(),
            **introspection_auth(idp, url=f"{dead}/introspect"),
            "verifier": ["jwt", "introspection"],
            "required_scopes": ["memory:read"],
        }
        with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
            opaque_response = post_mcp(url, "op-jane")
            jwt_response = post_mcp(url, jwt_token())
    assert (opaque_response.status_code, opaque_response.headers["retry-after"]) == (503, "5")
    assert jwt_response.status_code == 200  # the JWT verifier accepted it; the dead endpoint was not needed
    assert [r["tenant_id"] for r in log_rows(backend)] == ["acme"]


# -- JWT clock checks and oversized tokens -----------------------------------------------------


@pytest.mark.parametrize("iat_offset, status", [(3600, 401), (10, 200)], ids=["an_hour_ahead", "within_leeway"])
def test_a_jwt_issued_in_the_future_is_refused_beyond_a_small_leeway(
    sqlite_path, two_tenants, backend, iat_offset, status
):
    token = jwt_token(iat=int(time.time()) + iat_offset, exp=int(time.time()) + 7200)
    with serve_memgate(memgate_settings(sqlite_path, jwt_auth())) as url:
        response = post_mcp(url, token)
    assert response.status_code == status
    assert len(log_rows(backend)) == (1 if status == 200 else 0)


def test_a_100_kb_bearer_token_gets_401_with_a_body_not_a_reset(idp, sqlite_path, mapped, backend):
    """Sent in small pieces, as a real network delivers it: uvicorn's default 16 KiB head limit reset these."""
    import socket

    auth = {**jwt_auth(), **introspection_auth(idp), "verifier": ["jwt", "introspection"]}
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        port = int(url.rsplit(":", 1)[1])
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}'
        head = (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            b"Mcp-Method: tools/list\r\nAuthorization: Bearer "
            + b"a" * 100_000
            + b"\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\nConnection: close\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            request = head + body
            for i in range(0, len(request), 4096):
                sock.sendall(request[i : i + 4096])
                time.sleep(0.001)
            answer = b""
            while chunk := sock.recv(65536):  # bounded by the socket timeout and Connection: close
                answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 401 Unauthorized"
    assert b'"error": "invalid_token"' in rest and b"longer than this server accepts" in rest
    assert idp.calls("/introspect") == []  # never sent to a verifier
    assert log_rows(backend) == []


def test_a_token_within_the_size_limit_still_reaches_the_verifiers(idp, sqlite_path, mapped):
    long_token = "op-" + "x" * 12_000
    idp.introspection[long_token] = opaque()
    with serve_memgate(memgate_settings(sqlite_path, introspection_auth(idp))) as url:
        assert post_mcp(url, long_token).status_code == 200


# -- origin protection and CORS -----------------------------------------------------------------

INSPECTOR = "https://inspector.example.test"


@pytest.fixture
def origin_url(sqlite_path, two_tenants):
    settings = memgate_settings(
        sqlite_path, jwt_auth(), allowed_origins=[INSPECTOR], base_url="https://memgate.example.test"
    )
    with serve_memgate(settings) as url:
        yield url


def test_a_foreign_origin_gets_403_and_no_tool_runs(origin_url, backend):
    response = post_mcp(origin_url, jwt_token(), headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert ACME_VALUE.strip() not in response.text
    assert log_rows(backend) == []


def test_no_origin_and_a_listed_origin_are_served_and_only_the_listed_one_gets_cors(origin_url, backend):
    plain = post_mcp(origin_url, jwt_token())
    listed = post_mcp(origin_url, jwt_token(), headers={"Origin": INSPECTOR})
    assert (plain.status_code, listed.status_code) == (200, 200)
    assert "access-control-allow-origin" not in plain.headers
    assert listed.headers["access-control-allow-origin"] == INSPECTOR
    assert len(log_rows(backend)) == 2


@pytest.mark.parametrize("origin, status", [(INSPECTOR, 200), ("https://evil.example", 403)])
def test_a_cors_preflight_is_answered_only_for_a_listed_origin(origin_url, origin, status):
    import httpx2 as httpx

    response = httpx.options(
        f"{origin_url}/mcp",
        timeout=10,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    assert response.status_code == status
    assert response.headers.get("access-control-allow-origin") == (origin if status == 200 else None)


def test_a_rebinding_host_gets_421_and_the_public_host_is_answered(origin_url):
    assert post_mcp(origin_url, jwt_token(), headers={"Host": "evil.example"}).status_code == 421
    assert post_mcp(origin_url, jwt_token(), headers={"Host": "memgate.example.test"}).status_code == 200


# -- RFC 9728 metadata --------------------------------------------------------------------------


@pytest.mark.parametrize("issuer", ["https://claude-idp.example.test", "https://IdP.Example.test:8443/realms/acme"])
def test_metadata_names_the_issuer_byte_for_byte_the_public_resource_and_the_rows_scopes(
    sqlite_path, manager, two_tenants, issuer
):
    import httpx2 as httpx

    from memgate.manager import ACME, load_tool_definitions

    admin = dict(
        load_tool_definitions()[0],
        tool_name="lookup_entity_admin",
        access_policy={"required_scopes": ["memory:admin", "memory:read"]},
    )
    manager.seed_tools(ACME, [admin])
    auth = {**jwt_auth(), "issuer": issuer}
    with serve_memgate(memgate_settings(sqlite_path, auth, base_url="https://memgate.example.test/")) as url:
        response = httpx.get(f"{url}/.well-known/oauth-protected-resource/mcp", timeout=10)
        challenge = post_mcp(url, None).headers["www-authenticate"]
    assert response.status_code == 200
    assert f'"authorization_servers":["{issuer}"]'.encode() in response.content
    assert response.json() == {
        "resource": "https://memgate.example.test/mcp",
        "authorization_servers": [issuer],
        "scopes_supported": ["memory:read", "memory:admin"],
        "bearer_methods_supported": ["header"],
    }
    assert 'resource_metadata="https://memgate.example.test/.well-known/oauth-protected-resource/mcp"' in challenge


def test_metadata_needs_no_token_and_asks_no_verifier(idp, sqlite_path, mapped):
    import httpx2 as httpx

    auth = introspection_auth(idp, issuer="https://idp.example.test/oauth2/default")
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        response = httpx.get(
            f"{url}/.well-known/oauth-protected-resource/mcp",
            timeout=10,
            headers={"Authorization": "Bearer op-anything"},
        )
        health = httpx.get(f"{url}/health", timeout=10, headers={"Authorization": "Bearer op-anything"})
    assert response.json()["authorization_servers"] == ["https://idp.example.test/oauth2/default"]
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert idp.calls("/introspect") == []


def test_an_unmapped_call_is_listed_by_memgate_log(idp, sqlite_path, mapped):
    from click.testing import CliRunner

    from memgate.server.cli import cli

    idp.introspection["op-stranger"] = opaque(sub="stranger", client_id="svc-unknown")
    with serve_memgate(memgate_settings(sqlite_path, introspection_auth(idp))) as url:
        assert post_mcp(url, "op-stranger").status_code == 403
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "log", "-t", UNMAPPED_TENANT, "--json"]).output
    assert '\\"sub\\": \\"stranger\\"' in out and '\\"client_id\\": \\"svc-unknown\\"' in out
    assert isinstance(mapped, MemoryManager)
