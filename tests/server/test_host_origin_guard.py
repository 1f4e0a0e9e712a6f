"""The Host/Origin guard as documented: the server's own origin or a listed one; /health answers any Host."""

from __future__ import annotations

import asyncio
import time

import httpx2 as httpx
import pytest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.server.host_guard import normalize_origin

ISS = "https://idp.example.test"
PUBLIC = "https://memgate.example.test"
INSPECTOR = "http://localhost:6274"
KEYS = make_keypair()


def token():
    now = int(time.time())
    return make_token(
        KEYS.private_pem, iss=ISS, aud="memgate", sub="jane@acme", tenant="acme", scope="", iat=now, exp=now + 300
    )


@pytest.fixture
def url(sqlite_path, two_tenants):
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    with serve_memgate(memgate_settings(sqlite_path, auth, base_url=PUBLIC, allowed_origins=[INSPECTOR])) as url:
        yield url


def test_health_answers_a_load_balancer_or_kubelet_host_and_mcp_does_not(url):
    for host in ("10.0.3.17:8765", "memgate-7f9c.pod.cluster.local", "172.17.0.2"):
        health = httpx.get(f"{url}/health", headers={"Host": host}, timeout=10)
        assert (health.status_code, health.json()) == (200, {"status": "ok"})
        assert post_mcp(url, token(), method="tools/list", headers={"Host": host}).status_code == 421
    # /health reveals nothing else under any Host, and other paths stay guarded
    foreign = httpx.get(f"{url}/.well-known/oauth-protected-resource/mcp", headers={"Host": "10.0.3.17"}, timeout=10)
    assert foreign.status_code == 421


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:28765.evil.example",  # malformed: a port that is not a number
        "http://localhost:3000",  # loopback, another port: not this server's origin
        "http://127.0.0.1:1",
        "https://memgate.example.test.evil.example",
        "https://memgate.example.test:8443",
        "null",
        "http://user@localhost:6274",
    ],
)
def test_an_origin_that_is_neither_own_nor_listed_gets_403_before_any_tool_runs(url, backend, origin):
    response = post_mcp(url, token(), headers={"Origin": origin})
    assert response.status_code == 403, origin
    assert "access-control-allow-origin" not in response.headers
    assert log_rows(backend) == []


def test_the_servers_own_origins_and_listed_ones_are_served(url, backend):
    port = url.rsplit(":", 1)[1]
    for origin in (PUBLIC, f"{PUBLIC}:443", INSPECTOR, f"http://127.0.0.1:{port}", "HTTP://LOCALHOST:6274"):
        assert post_mcp(url, token(), method="tools/list", headers={"Origin": origin}).status_code == 200, origin
    same_via_localhost = post_mcp(
        url, token(), method="tools/list", headers={"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    )
    assert same_via_localhost.status_code == 200


def test_a_real_client_without_origin_is_served(url):
    async def go():
        async with Client(f"{url}/mcp", auth=token()) as c:
            return [t.name for t in await c.list_tools()]

    assert "lookup_entity" in asyncio.run(go())


def test_origins_are_compared_as_scheme_host_and_port():
    assert normalize_origin("https://Memgate.Example.test") == "https://memgate.example.test:443"
    assert normalize_origin("http://[::1]:8765") == "http://[::1]:8765"
    for bad in ("http://127.0.0.1:28765.evil.example", "ftp://x", "https://x/path", "https://x?q", "null", ""):
        assert normalize_origin(bad) is None, bad
