"""Two replicas on one database, as behind a load balancer without sticky sessions.

A legacy-era (2025-11-25) client initialises on replica A and then sends every other call to
replica B. With server.stateless both answer each call; without it, B has never heard of A's
session and answers 404, which is why a stateful deployment needs sticky sessions.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import pytest
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, serve_memgate

from bench.servers import ISSUER, child_pids, demo_database, serve_http

LEGACY = "2025-11-25"
KEYS = make_keypair()
AUTH = {"issuer": ISSUER, "audience": "memgate", "public_key": KEYS.public_pem}


def _token() -> str:
    now = int(time.time())
    return make_token(
        KEYS.private_pem,
        iss=ISSUER,
        aud="memgate",
        sub="jane",
        tenant="acme",
        agent="research-assistant",
        iat=now,
        exp=now + 300,
    )


def _post(url: str, body: dict, session: str | None, *, version: str | None = LEGACY) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {_token()}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if version:
        headers["MCP-Protocol-Version"] = version
    if session:
        headers["Mcp-Session-Id"] = session
    return httpx.post(f"{url}/mcp", headers=headers, json=body, timeout=15)


def _result(response: httpx.Response) -> dict:
    """The JSON-RPC message of a JSON or single-event SSE answer."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def _initialize(url: str) -> str | None:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "lb-client", "version": "1"}},
    }
    response = _post(url, body, None, version=None)
    assert response.status_code == 200, response.text
    assert _result(response)["result"]["protocolVersion"] == LEGACY
    session = response.headers.get("mcp-session-id")
    done = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert done.status_code == 202, done.text
    return session


def _lookup(url: str, session: str | None, call_id: int) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": "lookup_entity", "arguments": {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}},
    }
    return _post(url, body, session)


def _replicas(sqlite_path, *, stateless: bool, stack: ExitStack) -> tuple[str, str]:
    settings = memgate_settings(sqlite_path, AUTH, stateless=stateless)
    return stack.enter_context(serve_memgate(settings)), stack.enter_context(serve_memgate(settings))


def test_a_stateless_pair_serves_a_legacy_client_on_either_replica(sqlite_path, backend, two_tenants):
    with ExitStack() as stack:
        a, b = _replicas(sqlite_path, stateless=True, stack=stack)
        session = _initialize(a)
        for call_id, url in enumerate([b, a, b, a, b, a], start=1):
            response = _lookup(url, session, call_id)
            assert response.status_code == 200, (url, response.text)
            message = _result(response)
            assert message["id"] == call_id and not message["result"].get("isError"), message
            assert "0.78" in message["result"]["content"][0]["text"]
    rows = [r for r in log_rows(backend) if r["tool_name"] == "lookup_entity"]
    assert [r["status"] for r in rows] == ["ok"] * 6


def test_without_stateless_the_other_replica_does_not_know_the_session(sqlite_path, backend, two_tenants):
    with ExitStack() as stack:
        a, b = _replicas(sqlite_path, stateless=False, stack=stack)
        session = _initialize(a)
        assert session, "a stateful replica names its session"
        assert _lookup(a, session, 1).status_code == 200
        assert _lookup(b, session, 2).status_code == 404


@pytest.mark.parametrize("stateless", [True, False])
def test_a_modern_client_needs_no_session_on_either_replica(sqlite_path, backend, two_tenants, stateless):
    from remote_helpers import post_mcp

    with ExitStack() as stack:
        a, b = _replicas(sqlite_path, stateless=stateless, stack=stack)
        for url in (a, b, a):
            response = post_mcp(url, _token())
            assert response.status_code == 200 and "0.78" in response.text


def test_serve_with_two_workers_answers_both_eras_from_separate_processes(tmp_path):
    db = tmp_path / "memgate.db"
    demo_database(db)
    key_file = tmp_path / "public.pem"
    key_file.write_text(KEYS.public_pem)
    with serve_http(db, key_file, args=["--workers", "2"]) as (url, pid):
        base = url.removesuffix("/mcp")
        deadline = time.monotonic() + 30
        while len(child_pids(pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # bounded: uvicorn starts its workers after it binds
        assert len(child_pids(pid)) >= 2, "uvicorn should run two worker processes"
        from remote_helpers import post_mcp

        for _ in range(6):
            response = post_mcp(base, _token())
            assert response.status_code == 200 and "0.78" in response.text, response.text
        session = _initialize(base)
        for call_id in range(1, 7):  # each post is a new connection, which the kernel may give either worker
            response = _lookup(base, session, call_id)
            assert response.status_code == 200 and "0.78" in response.text, response.text
