"""The memory view's review tool over real HTTP: who may approve from a host, and the wall around it."""

from __future__ import annotations

import asyncio
import time

import pytest
from app_helpers import APPS_HOST, REVIEW_SCOPE, pending_candidate, seed_apps
from backend_helpers import operator_rows, table_digest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from jwt_helpers import make_keypair, make_token
from remote_helpers import memgate_settings, post_mcp, serve_memgate

ISS = "https://idp.example.test"
KEYS = make_keypair()


def token(sub, scope, tenant="acme"):
    now = int(time.time())
    return make_token(
        KEYS.private_pem,
        iss=ISS,
        aud="memgate",
        sub=sub,
        tenant=tenant,
        agent="research-assistant",
        thread="helios-review",
        scope=scope,
        iat=now,
        exp=now + 300,
    )


@pytest.fixture
def served(sqlite_path, manager, two_tenants):
    seed_apps(manager)
    cid = pending_candidate(manager)["candidate_id"]
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        yield url, cid


def call(url, bearer, name, arguments, mode="auto"):
    """One tool call from a host that renders MCP Apps (the memory view's buttons run in one)."""

    async def go():
        async with Client(f"{url}/mcp", auth=bearer, extensions=APPS_HOST, mode=mode) as c:
            return await c.call_tool(name, arguments)

    return asyncio.run(go())


def test_a_token_without_the_review_scope_gets_403_and_no_buttons(served, backend):
    url, cid = served
    plain = token("jane", "memory:read")
    assert call(url, plain, "show_memory", {}).structured_content["review_tool"] is None
    before = table_digest(backend, skip=("mcp_call_log",))
    response = post_mcp(
        url, plain, name="review_candidate", arguments={"candidate_id": cid, "version": 1, "decision": "approve"}
    )
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert REVIEW_SCOPE in response.headers["www-authenticate"]
    assert table_digest(backend, skip=("mcp_call_log",)) == before


def test_a_reviewer_token_approves_a_candidate_at_the_version_shown(served, backend):
    url, cid = served
    reviewer = token("jane", f"memory:read {REVIEW_SCOPE}")
    view = call(url, reviewer, "show_memory", {}).structured_content
    assert view["review_tool"] == "review_candidate"
    [shown] = [c for c in view["candidates"] if c["id"] == cid]
    result = call(
        url, reviewer, "review_candidate", {"candidate_id": cid, "version": shown["version"], "decision": "approve"}
    )
    assert result.structured_content["decision"] == "approved"
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (row["decision"], row["version"], row["decided_by"]) == ("approved", 2, "host:jane")
    with pytest.raises(ToolError, match="Another writer changed this record first; nothing was written"):
        call(url, reviewer, "review_candidate", {"candidate_id": cid, "version": 1, "decision": "reject"})


@pytest.mark.parametrize(("sub", "tenant"), [("bob", "acme"), ("jane", "globex")])
def test_another_users_or_tenants_candidate_is_one_clear_error_and_nothing_changes(served, backend, sub, tenant):
    url, cid = served
    before = table_digest(backend, skip=("mcp_call_log",))
    other = token(sub, f"memory:read {REVIEW_SCOPE}", tenant=tenant)
    with pytest.raises(ToolError, match="There is no candidate with that id for you; nothing was written"):
        call(url, other, "review_candidate", {"candidate_id": cid, "version": 1, "decision": "approve"})
    assert call(url, other, "show_memory", {}).structured_content["candidates"] == []
    assert table_digest(backend, skip=("mcp_call_log",)) == before


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_bob_with_the_review_scope_cannot_approve_his_own_candidate(served, backend, mode):
    url, _ = served
    bob = token("bob", f"memory:read {REVIEW_SCOPE}")
    found = call(url, bob, "search_memory", {"query": "August re-run nDCG recall BEIR"}, mode)
    assert "chk_acme_1_0" in found.content[0].text
    proposed = (
        call(
            url,
            bob,
            "remember",
            {"content": "Helios RAG scored 0.95 on BEIR in August.", "evidence": ["chk_acme_1_0"], "scope": "agent"},
            mode,
        )
        .content[0]
        .text
    )
    assert proposed.startswith("pending cand_"), proposed
    cid = proposed.split()[1]
    before = table_digest(backend, skip=("mcp_call_log",))
    with pytest.raises(ToolError, match="You proposed this candidate yourself; a different reviewer must approve it"):
        call(url, bob, "review_candidate", {"candidate_id": cid, "version": 1, "decision": "approve"}, mode)
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    jane = token("jane", "memory:read")
    jane_sees = call(url, jane, "search_memory", {"query": "Helios RAG 0.95 BEIR", "collection": "remembered"}, mode)
    assert "results: 0" in jane_sees.content[0].text
