"""Step-up: a tool the token lacks a scope for is not listed, and calling it is a 403 insufficient_scope challenge."""

from __future__ import annotations

import asyncio
import json
import time

import httpx2
import pytest
from backend_helpers import table_digest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp.shared.exceptions import MCPError
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.manager import ACME, load_tool_definitions

ISS = "https://idp.example.test"
PUBLIC = "https://memgate.example.test"
KEYS = make_keypair()
ARGS = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}


def token(scope, **claims):
    now = int(time.time())
    return make_token(
        KEYS.private_pem,
        iss=ISS,
        aud="memgate",
        sub="jane@acme",
        tenant="acme",
        scope=scope,
        iat=now,
        exp=now + 300,
        **claims,
    )


@pytest.fixture
def url(sqlite_path, manager, two_tenants):
    lookup = next(d for d in load_tool_definitions() if d["tool_name"] == "lookup_entity")
    admin = dict(lookup, tool_name="lookup_entity_admin", access_policy={"required_scopes": ["memory:admin"]})
    auditor = dict(lookup, tool_name="lookup_entity_audit", access_policy={"required_roles": ["auditor"]})
    manager.seed_tools(ACME, [admin, auditor])
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem, "required_scopes": ["memory:read"]}
    with serve_memgate(memgate_settings(sqlite_path, auth, base_url=PUBLIC)) as url:
        yield url


def names(url, bearer, mode):
    async def go():
        async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
            return [t.name for t in await c.list_tools()]

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_tool_the_token_cannot_call_is_not_listed(url, mode):
    assert "lookup_entity_admin" not in names(url, token("memory:read"), mode)
    assert "lookup_entity" in names(url, token("memory:read"), mode)
    assert "lookup_entity_admin" in names(url, token("memory:read memory:admin"), mode)


def test_calling_it_is_a_403_step_up_challenge_naming_the_scopes_and_nothing_runs(url, backend):
    before = table_digest(backend, skip=("mcp_call_log",))
    response = post_mcp(url, token("memory:read"), name="lookup_entity_admin", arguments=ARGS)
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="memory:read memory:admin"' in challenge
    assert f'resource_metadata="{PUBLIC}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert response.json()["error"] == "insufficient_scope"
    assert "<content>0.78" not in response.text
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"], row["error_class"]) == (
        "lookup_entity_admin",
        "denied",
        "InsufficientScope",
    )
    assert json.loads(row["arguments_json"]) == ARGS and row["argument_digest"]  # what was asked, as any call


def test_only_a_tool_call_is_challenged_not_another_method_naming_the_tool(url, backend):
    """prompts/get and resources/read carry a `name` or `uri` too; a prompt named like a scoped tool is
    the prompt layer's to answer, never a step-up challenge."""
    response = post_mcp(
        url,
        token("memory:read"),
        method="prompts/get",
        params={"name": "lookup_entity_admin"},
        headers={"Mcp-Name": "lookup_entity_admin"},
    )
    assert response.status_code != 403 and "Unknown prompt" in response.json()["error"]["message"], response.text
    assert "insufficient_scope" not in response.headers.get("www-authenticate", "")
    assert [r["status"] for r in log_rows(backend)] == []


def test_an_mcp_name_header_naming_another_tool_does_not_stand_in_for_the_body(url, backend):
    """A modern-era call's Mcp-Name header is the client's say-so: the step-up check judges the tool the
    body calls, so a header naming a tool the token may call does not let a scoped one through."""
    before = table_digest(backend, skip=("mcp_call_log",))
    response = post_mcp(
        url, token("memory:read"), name="lookup_entity_admin", arguments=ARGS, headers={"Mcp-Name": "lookup_entity"}
    )
    assert response.status_code == 403 and 'scope="memory:read memory:admin"' in response.headers["www-authenticate"]
    assert "<content>0.78" not in response.text
    assert table_digest(backend, skip=("mcp_call_log",)) == before


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_real_client_gets_the_challenge_and_succeeds_once_the_scope_is_granted(url, backend, mode):
    async def call(bearer):
        async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
            r = await c.call_tool("lookup_entity_admin", ARGS)
            return r.content[0].text

    with pytest.raises(MCPError, match="^Server returned an error response$"):
        asyncio.run(call(token("memory:read")))
    assert "<content>0.78" in asyncio.run(call(token("memory:read memory:admin")))
    assert [r["status"] for r in log_rows(backend)] == ["denied", "ok"]


def test_a_legacy_json_rpc_body_is_read_and_replayed_unchanged(url):
    """Tools the token may call still work through the body-reading middleware, in the handshake era."""

    async def go():
        async with Client(f"{url}/mcp", auth=token("memory:read"), mode="legacy") as c:
            return (await c.call_tool("lookup_entity", ARGS)).content[0].text

    assert "<content>0.78" in asyncio.run(go())


def test_a_row_needing_a_role_is_hidden_and_its_call_refused_in_one_sentence_not_challenged(url, backend):
    assert "lookup_entity_audit" not in names(url, token("memory:read"), "auto")
    assert "lookup_entity_audit" in names(url, token("memory:read", roles=["auditor"]), "auto")
    response = post_mcp(url, token("memory:read"), name="lookup_entity_audit", arguments=ARGS)
    assert response.status_code == 200  # a role cannot be granted by authorizing again: no challenge
    assert "not available to you" in response.text and "<content>0.78" not in response.text
    assert [r["status"] for r in log_rows(backend)] == ["denied"]


def test_only_a_post_to_the_mcp_endpoint_is_read_for_a_challenge(url, backend):
    """The same tools/call body sent elsewhere (another path, or not a POST) is never read as a call:
    whatever answers there answers, and no step-up is logged."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "lookup_entity_admin", "arguments": ARGS},
    }
    bearer = {"Authorization": f"Bearer {token('memory:read')}", "Content-Type": "application/json"}
    elsewhere = httpx2.post(f"{url}/not-the-mcp-endpoint", json=body, headers=bearer, timeout=30)
    assert elsewhere.status_code != 403, elsewhere.text
    assert "insufficient_scope" not in elsewhere.headers.get("www-authenticate", "")
    assert [r["status"] for r in log_rows(backend)] == []
