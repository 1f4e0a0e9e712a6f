"""The real memgate HTTP app under uvicorn on 127.0.0.1: JWT identity, tenancy, one log row per call."""

from __future__ import annotations

import time

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import pytest
from backend_helpers import table_digest
from fastmcp import Client
from http_helpers import serve_asgi
from jwt_helpers import make_keypair, make_token
from mcp.shared.exceptions import MCPError
from mcp_helpers import log_rows

from memgate.server.app import http_asgi_app, http_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = pytest.mark.anyio

ISSUER = "https://idp.example.test"
AUDIENCE = "memgate"
KEYS = make_keypair()


def claims(**overrides):
    now = int(time.time())
    base = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "jane@acme",
        "tenant": "acme",
        "agent": "research-assistant",
        "scope": "memory:read",
        "iat": now,
        "exp": now + 300,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def token(**overrides) -> str:
    return make_token(KEYS.private_pem, **claims(**overrides))


@pytest.fixture
def base_url(sqlite_path, two_tenants):
    settings = load_settings(None, **{"database.path": str(sqlite_path), "server.transport": "http"})
    settings = settings.model_copy(
        update={
            "http": settings.http.model_copy(
                update={
                    "auth": settings.http.auth.model_copy(
                        update={
                            "issuer": ISSUER,
                            "audience": AUDIENCE,
                            "public_key": KEYS.public_pem,
                            "required_scopes": ["memory:read"],
                        }
                    )
                }
            )
        }
    )
    manager = open_manager(settings)
    mcp = http_server(manager, settings)
    with serve_asgi(http_asgi_app(mcp, settings)) as url:
        yield url
    manager.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_valid_token_calls_tools_as_the_tenant_in_its_claims(base_url, backend, mode):
    async with Client(f"{base_url}/mcp", auth=token(), mode=mode) as c:
        assert "lookup_entity" in [t.name for t in await c.list_tools()]
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    assert "<content>0.78" in r.content[0].text
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["principal"], row["agent_id"], row["transport"], row["status"]) == (
        "acme",
        "jane@acme",
        "research-assistant",
        "streamable-http",
        "ok",
    )


async def test_a_globex_token_never_sees_acme_data(base_url, backend):
    async with Client(f"{base_url}/mcp", auth=token(tenant="globex", sub="omar@globex")) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
        resources = [str(x.uri) for x in await c.list_resources()]
    text = r.content[0].text
    assert "<content>0.55" in text and "0.78" not in text and "0.92" not in text and "ent_acme" not in text
    assert "memgate://persona/default" in resources
    assert {r["tenant_id"] for r in log_rows(backend)} == {"globex"}


@pytest.mark.parametrize(
    "claim", [{"tenant": "bad tenant!"}, {"sub": "jane acme"}, {"agent": "../x"}, {"thread": "t" * 201}]
)
async def test_a_token_whose_ids_break_the_id_rule_gets_403_and_a_logged_denial(base_url, backend, claim):
    before = table_digest(backend, skip=("mcp_call_log",))
    response = httpx.post(
        f"{base_url}/mcp",
        headers={
            "Authorization": f"Bearer {token(**claim)}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        timeout=10,
    )
    assert response.status_code == 403
    assert response.json() == {
        "error": "invalid_identity",
        "error_description": (
            "This token's tenant, user, agent or thread claim is not a valid memgate id, so the request is refused; "
            "ask the memgate operator to check which claims carry them."
        ),
    }
    [row] = log_rows(backend)
    assert (row["tenant_id"], row["status"], row["error_class"]) == (":unmapped", "denied", "InvalidArgument")
    assert table_digest(backend, skip=("mcp_call_log",)) == before


@pytest.mark.parametrize("case", ["forged", "expired", "wrong_audience", "wrong_issuer"])
async def test_bad_tokens_get_401_and_no_tool_runs(base_url, backend, case):
    bad = {
        "forged": make_token(make_keypair().private_pem, **claims()),
        "expired": token(exp=int(time.time()) - 60, iat=int(time.time()) - 600),
        "wrong_audience": token(aud="someone-else"),
        "wrong_issuer": token(iss="https://evil.example"),
    }[case]
    response = httpx.post(
        f"{base_url}/mcp",
        headers={
            "Authorization": f"Bearer {bad}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "lookup_entity",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "lookup_entity", "arguments": {"subject": "model:helios-rag"}},
        },
        timeout=10,
    )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    with pytest.raises(MCPError, match="^Server returned an error response$"):
        async with Client(f"{base_url}/mcp", auth=bad) as c:
            await c.call_tool("lookup_entity", {"subject": "model:helios-rag"})
    assert log_rows(backend) == []


async def test_a_valid_token_without_the_required_scope_gets_403_insufficient_scope(base_url, backend):
    response = httpx.post(
        f"{base_url}/mcp",
        headers={
            "Authorization": f"Bearer {token(scope='other')}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/list",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        timeout=10,
    )
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert log_rows(backend) == []


@pytest.mark.parametrize("chunked", [False, True])
def test_an_oversized_request_body_gets_413_and_no_tool_runs(base_url, backend, chunked):
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lookup_entity", '
        b'"arguments": {"subject": "' + b"x" * (5 * 1024 * 1024) + b'"}}}'
    )
    content = iter([body[i : i + 65536] for i in range(0, len(body), 65536)]) if chunked else body
    response = httpx.post(
        f"{base_url}/mcp",
        content=content,
        timeout=30,
        headers={
            "Authorization": f"Bearer {token()}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "lookup_entity",
        },
    )
    assert response.status_code == 413
    assert response.json()["error"] == "request_too_large"
    assert log_rows(backend) == []


def test_health_reveals_nothing_and_needs_no_token(base_url):
    response = httpx.get(f"{base_url}/health", timeout=10)
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_protected_resource_metadata_is_served(base_url):
    response = httpx.get(f"{base_url}/.well-known/oauth-protected-resource/mcp", timeout=10)
    assert response.status_code == 200
    assert response.json()["scopes_supported"] == ["memory:read"]


def test_memgate_serve_transport_http_starts_uvicorn_and_answers_health(sqlite_path, two_tenants, tmp_path):
    """The CLI path: `memgate serve --transport http` with [http.auth] from a TOML file."""
    import os
    import socket
    import subprocess
    import sys

    key_file = tmp_path / "idp.pem"
    key_file.write_text(KEYS.public_pem)
    config = tmp_path / "memgate.toml"
    config.write_text(f'[http.auth]\nissuer = "{ISSUER}"\naudience = "{AUDIENCE}"\npublic_key_file = "{key_file}"\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "FASTMCP_CHECK_FOR_UPDATES": "off"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgate",
            "--config",
            str(config),
            "--db",
            str(sqlite_path),
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # bounded readiness poll
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.monotonic() < deadline, "memgate serve did not start in 30 s"
                time.sleep(0.1)
        assert response.json() == {"status": "ok"}
        denied = httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=5)
        assert denied.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_body_declared_over_the_limit_is_refused_before_it_is_sent(base_url, backend):
    """The declared Content-Length alone is enough: the server answers 413 without waiting for a body
    it would only throw away (the head is all this client ever sends)."""
    import socket

    host, port = base_url.removeprefix("http://").split(":")
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token()}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: lookup_entity\r\n"
        f"Content-Length: {64 * 1024 * 1024}\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        answer = sock.recv(4096).decode(errors="replace")
    assert answer.startswith("HTTP/1.1 413"), answer[:200]
    assert log_rows(backend) == []
