"""The remember tool over MCP: in-process in both protocol eras, a real stdio subprocess, and HTTP with a
bearer token. jane rests memories on what her own results cited; bob sees none of them."""

from __future__ import annotations

import os
import sys
import time

import pytest
from backend_helpers import operator_rows, table_digest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from http_helpers import serve_asgi
from jwt_helpers import make_keypair, make_token
from mcp_helpers import stdio_app

from memgate.server.app import http_asgi_app, http_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = pytest.mark.anyio

ISSUER, AUDIENCE, KEYS = "https://idp.example.test", "memgate", make_keypair()

#: what two passages say together (one passage's own sentence would be a duplicate of it)
NOTE = "The August re-run of Helios RAG on BEIR found nDCG@10 of 0.78, and recall@100 stayed at 0.91."
BOTH = ["chk_acme_1_0", "chk_acme_1_1"]
RECALL = {"kind": "fact", "subject": "model:helios-rag", "predicate": "recall_at_100", "content": "0.91"}
CONFLICT = {"kind": "fact", "subject": "model:helios-rag", "predicate": "beir_ndcg10", "content": "0.81"}


def text(result) -> str:
    return result.content[0].text


async def jane_remembers(c) -> dict[str, str]:
    """jane's session: search, remember a note and a fact on what it cited, and the refusals. First lines by case."""
    # two results: an answered search shows every ranked passage, and the third (chk_acme_2_0) must stay
    # evidence jane was never given
    found = text(
        await c.call_tool("search_memory", {"query": "August re-run nDCG recall@100 BEIR retriever", "max_results": 2})
    )
    assert "chk_acme_1_0" in found and "chk_acme_1_1" in found and "chk_acme_2_0" not in found
    lines = {}
    lines["note"] = text(await c.call_tool("remember", {"content": NOTE, "evidence": BOTH}))
    lines["fact"] = text(await c.call_tool("remember", {**RECALL, "evidence": ["chk_acme_1_1"]}))
    lines["again"] = text(await c.call_tool("remember", {"content": NOTE, "evidence": BOTH}))
    lines["conflict"] = text(await c.call_tool("remember", {**CONFLICT, "evidence": ["chk_acme_1_0"]}))
    lines["never"] = text(
        await c.call_tool("remember", {"content": "Always cite the current metric.", "evidence": ["chk_acme_2_0"]})
    )
    lines["search"] = text(
        await c.call_tool("search_memory", {"query": "August re-run nDCG BEIR", "collection": "remembered"})
    )
    lines["lookup"] = text(await c.call_tool("lookup_entity", {"subject": "model:helios-rag"}))
    return lines


def check_jane(lines: dict[str, str]) -> None:
    assert lines["note"].startswith("promoted doc_") and "| rule: passed\n" in lines["note"], lines["note"]
    assert lines["fact"].startswith("promoted ent_"), lines["fact"]
    note_id = lines["note"].split()[1]
    assert lines["again"].startswith(f"duplicate {note_id} | candidate: cand_"), lines["again"]
    assert lines["conflict"].startswith("pending cand_") and "rule: conflict" in lines["conflict"].splitlines()[0]
    assert "'0.78'" in lines["conflict"]
    assert lines["never"].startswith("refused | rule: evidence\n"), lines["never"]
    assert note_id in lines["search"] and "Evidence: chk_acme_1_0" in lines["search"]
    lookup = lines["lookup"]
    assert '<memory id="ent_acme_helios_v2" type="entity" status="current"' in lookup  # still 0.78
    assert 'predicate="recall_at_100"' in lookup and "<content>0.91" in lookup


async def bob_sees_nothing(c) -> None:
    search = text(await c.call_tool("search_memory", {"query": "August re-run nDCG BEIR", "collection": "remembered"}))
    assert "results: 0" in search
    assert "claims: 0" in text(
        await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "recall_at_100"})
    )
    assert "rows: 0" in text(await c.call_tool("execute_query", {"query": "SELECT id FROM memory_candidate"}))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_jane_remembers_over_mcp_and_her_next_window_holds_it_with_its_evidence(
    sqlite_path, two_tenants, backend, mode
):
    app, manager = stdio_app(sqlite_path, thread="helios-review")
    try:
        async with Client(app, mode=mode) as c:
            lines = await jane_remembers(c)
            window = await c.get_prompt(
                "context_window",
                {"question": "What did the August re-run find for nDCG@10 on BEIR?", "intent": "fact_check"},
            )
            decisions = text(
                await c.call_tool(
                    "execute_query", {"query": "SELECT decision, rule FROM memory_candidate ORDER BY created_at"}
                )
            )
    finally:
        manager.close()
    check_jane(lines)
    shown = "\n".join(m.content.text for m in window.messages)
    assert lines["note"].split()[1] in shown or "Evidence: chk_acme_1_0" in shown, shown[:2000]
    assert "Evidence: chk_acme_1_0" in shown
    for decision in ("promoted", "duplicate", "pending"):
        assert decision in decisions
    bob_app, bob_manager = stdio_app(sqlite_path, user="bob")
    try:
        async with Client(bob_app, mode=mode) as c:
            await bob_sees_nothing(c)
    finally:
        bob_manager.close()
    assessed = operator_rows(backend, "memory_assessment")
    assert len(assessed) == 6 and {r["assessor"] for r in assessed} == {"rules"}  # the note and the fact


async def test_bad_input_gets_one_line_and_changes_nothing(sqlite_path, two_tenants, backend):
    app, manager = stdio_app(sqlite_path)
    try:
        async with Client(app) as c:
            await c.call_tool("search_memory", {"query": "August re-run nDCG"})
            before = table_digest(backend, skip=("mcp_call_log",))
            answers = [
                await c.call_tool("remember", args, raise_on_error=False)
                for args in (
                    {"content": NOTE, "kind": "rumour", "evidence": ["chk_acme_1_0"]},
                    {"content": NOTE, "scope": "galaxy", "evidence": ["chk_acme_1_0"]},
                    {"content": "x" * 2001, "evidence": ["chk_acme_1_0"]},
                    {"content": "0.5", "kind": "fact", "predicate": "beir_ndcg10", "evidence": ["chk_acme_1_0"]},
                    {"content": NOTE, "evidence": ["chk_globex_1_0"]},
                )
            ]
    finally:
        manager.close()
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    said = [text(a) for a in answers]
    assert [a.is_error for a in answers] == [True, True, True, True, False]
    assert all("\n" not in s for s in said[:4]), said
    assert "'rumour' is not one of ['note', 'preference', 'procedure', 'fact']" in said[0]
    assert "'galaxy' is not one of ['user', 'agent', 'thread']" in said[1]
    assert "content is 2001 characters; a memory holds at most 2000" in said[2]
    assert "subject is missing" in said[3]
    assert said[4].startswith("refused | rule: evidence\n")


def _env(home) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
    }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_a_stdio_subprocess(sqlite_path, two_tenants, tmp_path, mode):
    def serve(user):
        args = ["-m", "memgate", "--db", str(sqlite_path), "serve", "--tenant", "acme", "--user", user]
        return StdioTransport(sys.executable, args, env=_env(tmp_path), cwd=str(tmp_path))

    async with Client(serve("jane"), mode=mode) as c:
        check_jane(await jane_remembers(c))
    async with Client(serve("bob"), mode=mode) as c:
        await bob_sees_nothing(c)


def token(sub: str = "jane@acme") -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "tenant": "acme", "agent": "research-assistant"}
    return make_token(KEYS.private_pem, **claims, scope="memory:read", iat=now, exp=now + 300)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_http_with_a_bearer_token(sqlite_path, two_tenants, mode):
    settings = load_settings(None, **{"database.path": str(sqlite_path), "server.transport": "http"})
    auth = settings.http.auth.model_copy(
        update={
            "issuer": ISSUER,
            "audience": AUDIENCE,
            "public_key": KEYS.public_pem,
            "required_scopes": ["memory:read"],
        }
    )
    settings = settings.model_copy(update={"http": settings.http.model_copy(update={"auth": auth})})
    manager = open_manager(settings)
    try:
        with serve_asgi(http_asgi_app(http_server(manager, settings), settings)) as url:
            async with Client(f"{url}/mcp", auth=token(), mode=mode) as c:
                check_jane(await jane_remembers(c))
            async with Client(f"{url}/mcp", auth=token(sub="bob@acme"), mode=mode) as c:
                await bob_sees_nothing(c)
    finally:
        manager.close()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sampling_assessor_asks_the_hosts_model_in_the_legacy_era_and_falls_back_in_the_modern(
    sqlite_path, two_tenants, backend, manager, mode
):
    from memgate.manager import promotion_review

    promotion_review.set_policy(manager, "acme", {"assessor": "sampling"})
    asked = []

    async def host_model(messages, params, context):
        asked.append((params.system_prompt, messages[0].content.text))
        return '{"supported": 0.97, "scope_fits": 0.95, "conflict": 0.02}'

    app, served = stdio_app(sqlite_path)
    try:
        async with Client(app, mode=mode, sampling_handler=host_model) as c:
            await c.call_tool("search_memory", {"query": "August re-run nDCG recall@100 BEIR retriever"})
            # the rules would hold this back (its words are not the evidence's); the host's model does not
            out = text(
                await c.call_tool(
                    "remember", {"content": "Helios held up well in August.", "evidence": ["chk_acme_1_0"]}
                )
            )
    finally:
        served.close()
    assessors = {r["assessor"] for r in operator_rows(backend, "memory_assessment")}
    if mode == "legacy":
        assert out.startswith("promoted doc_"), out
        assert assessors == {"sampling"} and len(asked) == 1
        system, user = asked[0]
        assert '"supported"' in system and "Evidence 1: The August re-run" in user
    else:
        assert out.startswith("pending cand_") and "no sampling on this connection" in out, out
        assert assessors == {"rules"} and asked == []


@pytest.mark.parametrize("reply, decision", [("replace", "promoted"), ("keep", "pending"), (None, "pending")])
async def test_in_the_legacy_era_the_user_is_asked_once_whether_a_conflicting_fact_replaces_the_current(
    sqlite_path, two_tenants, backend, reply, decision
):
    import mcp_types

    asked = []

    async def user(message, response_type, params, context):
        asked.append(message)
        if reply is None:
            return mcp_types.ElicitResult(action="decline")
        return {next(iter(params.requested_schema["properties"])): reply}

    app, served = stdio_app(sqlite_path)
    try:
        async with Client(app, mode="legacy", elicitation_handler=user) as c:
            await c.call_tool("search_memory", {"query": "August re-run nDCG recall@100 BEIR retriever"})
            out = text(await c.call_tool("remember", {**CONFLICT, "evidence": ["chk_acme_1_0"]}))
            lookup = text(
                await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
            )
    finally:
        served.close()
    assert asked == ["Replace model:helios-rag beir_ndcg10 = '0.78' with '0.81'?"]
    assert out.startswith(f"{decision} "), out
    if decision == "promoted":
        assert "rule: conflict:confirmed" in out.splitlines()[0]
        assert lookup.index("<content>0.81") < lookup.index("<content>0.78")  # jane's own value is in force for her
        [link] = [
            r
            for r in operator_rows(backend, "memory_link")
            if r["to_id"] == "ent_acme_helios_v2" and r["user_id"] == "jane"
        ]
        assert (link["link_type"], link["provenance"]) == ("supersedes", "correction")
    else:
        assert "rule: conflict" in out and '<memory id="ent_acme_helios_v2" type="entity" status="current"' in lookup


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_bob_with_the_review_scope_cannot_approve_his_own_candidate_over_stdio(
    sqlite_path, manager, two_tenants, backend, tmp_path, mode
):
    from app_helpers import APPS_HOST, REVIEW_SCOPE, seed_apps
    from fastmcp.exceptions import ToolError

    seed_apps(manager)
    args = ["-m", "memgate", "--db", str(sqlite_path), "serve", "--tenant", "acme", "--user", "bob"]
    args += ["--agent", "research-assistant"]
    env = {**_env(tmp_path), "MEMGATE_STDIO__SCOPES": f'["{REVIEW_SCOPE}"]'}
    transport = StdioTransport(sys.executable, args, env=env, cwd=str(tmp_path))
    async with Client(transport, mode=mode, extensions=APPS_HOST) as c:
        await c.call_tool("search_memory", {"query": "August re-run nDCG recall BEIR"})
        proposed = text(
            await c.call_tool(
                "remember",
                {
                    "content": "Helios RAG scored 0.95 on BEIR in August.",
                    "evidence": ["chk_acme_1_0"],
                    "scope": "agent",
                },
            )
        )
        assert proposed.startswith("pending cand_"), proposed
        cid = proposed.split()[1]
        assert "review_candidate" in {t.name for t in await c.list_tools()}
        before = table_digest(backend, skip=("mcp_call_log",))
        with pytest.raises(ToolError, match="You proposed this candidate yourself"):
            await c.call_tool("review_candidate", {"candidate_id": cid, "version": 1, "decision": "approve"})
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (row["decision"], row["version"]) == ("pending", 1)
