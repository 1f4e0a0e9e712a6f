"""ChatGPT's search and fetch: OpenAI's shapes, walled by tenant and user, over the real HTTP server.

The server is build_server + http_asgi_app under uvicorn on 127.0.0.1 (tests/remote_helpers.py)
with a locally signed JWT per caller, and fastmcp.Client speaks to it in both protocol eras.
Each result is checked against a JSON Schema of the shape OpenAI documents for deep research
and company knowledge (platform.openai.com/docs/mcp; developers.openai.com/apps-sdk/build/
mcp-server, "Company knowledge compatibility"): one text item holding the JSON, the same
object as structuredContent, and no field beyond the documented ones.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from backend_helpers import operator_rows, table_digest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from kb_helpers import add_chunk_from_corrected_fact, add_doc
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, serve_memgate

from memgate.manager import ACME, GLOBEX, NotVisible, RowRefused, ToolRow, load_tool_definitions, now_iso
from memgate.toolbox import check_row
from memgate.toolbox.agent_errors import NOT_VISIBLE
from memgate.toolbox.portable_schema import subset_problems

PRESET = Path(__file__).resolve().parents[2] / "config" / "toolbox.chatgpt.json"
ISS, AUD = "https://chatgpt-idp.example.test", "memgate"
KEYS = make_keypair()
QUERY = "Orion launch checklist canary"
SHARED_URL = "https://wiki.acme.example/orion/launch"
BOB = replace(ACME, user="bob", principal="test:bob")

_STRING = {"type": "string"}
#: OpenAI's search result, exactly: {"results": [{"id", "title", "url"}]}
SEARCH_SHAPE = {
    "type": "object",
    "required": ["results"],
    "additionalProperties": False,
    "properties": {
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "title", "url"],
                "additionalProperties": False,
                "properties": {"id": _STRING, "title": _STRING, "url": _STRING},
            },
        }
    },
}
#: OpenAI's fetch result, exactly: {"id", "title", "text", "url", "metadata"}, metadata string to string
FETCH_SHAPE = {
    "type": "object",
    "required": ["id", "title", "text", "url", "metadata"],
    "additionalProperties": False,
    "properties": {
        "id": _STRING,
        "title": _STRING,
        "text": _STRING,
        "url": _STRING,
        "metadata": {"type": "object", "additionalProperties": _STRING},
    },
}


def token(tenant="acme", sub="jane"):
    now = int(time.time())
    return make_token(
        KEYS.private_pem, iss=ISS, aud=AUD, sub=sub, tenant=tenant, scope="memory:read", iat=now, exp=now + 300
    )


def served(sqlite_path):
    auth = {"issuer": ISS, "audience": AUD, "public_key": KEYS.public_pem, "required_scopes": ["memory:read"]}
    return serve_memgate(memgate_settings(sqlite_path, auth))


def chunk_ids(backend, document_id):
    return [
        r["id"]
        for r in operator_rows(
            backend, "knowledge_base_chunk", "WHERE document_id = :d ORDER BY position", {"d": document_id}
        )
    ]


@pytest.fixture
def library(manager, backend, two_tenants):
    """The preset rows for acme and globex, and one matching document each for acme (shared), bob, globex."""
    for identity in (ACME, GLOBEX):
        assert manager.seed_tools(identity, load_tool_definitions(PRESET)) == ["search", "fetch"]
    docs = {
        "shared": add_doc(
            manager,
            ACME,
            "Orion launch checklist",
            "Orion launch checklist: freeze the release branch, run the canary for a day, "
            "then page the on-call before the launch.",
            uri=SHARED_URL,
        ),
        "bob": add_doc(
            manager,
            BOB,
            "Orion launch checklist (bob's draft)",
            "Bob's private Orion launch checklist: the canary runs two days.",
            user_id="bob",
        ),
        "globex": add_doc(
            manager,
            GLOBEX,
            "Orion launch checklist at globex",
            "Globex Orion launch checklist: the canary runs for a week.",
            uri="https://wiki.globex.example/orion",
        ),
    }
    return {name: (r.document_id, chunk_ids(backend, r.document_id)) for name, r in docs.items()}


def one_json_text(result):
    """The single text item's JSON, which must equal structuredContent."""
    assert [c.type for c in result.content] == ["text"]
    payload = json.loads(result.content[0].text)
    assert result.structured_content == payload
    return payload


async def _search_and_fetch(url, mode, bearer):
    async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
        tools = {t.name: t for t in await c.list_tools()}
        found = one_json_text(await c.call_tool("search", {"query": QUERY}))
        first = one_json_text(await c.call_tool("fetch", {"id": found["results"][0]["id"]}))
        document = one_json_text(await c.call_tool("fetch", {"id": first["metadata"]["document_id"]}))
    return tools, found, first, document


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_search_and_fetch_answer_in_openais_shapes_over_http(sqlite_path, backend, library, mode):
    with served(sqlite_path) as url:
        tools, found, first, document = asyncio.run(_search_and_fetch(url, mode, token()))
    # what company knowledge checks: exactly these inputs; read-only, so ChatGPT skips confirmation
    assert tools["search"].input_schema == {
        "type": "object",
        "required": ["query"],
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 2000,
                "description": "What to look for, in natural language or keywords.",
            }
        },
    }
    assert tools["fetch"].input_schema == {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"type": "string", "minLength": 1, "maxLength": 200, "description": "An id search returned."}
        },
    }
    assert all(tools[n].annotations.read_only_hint for n in ("search", "fetch"))
    for tool in tools.values():
        assert subset_problems(tool.input_schema) == [], tool.name
    jsonschema.validate(found, SEARCH_SHAPE)
    shared_doc, [shared_chunk] = library["shared"]
    assert found["results"][0] == {"id": shared_chunk, "title": "Orion launch checklist", "url": SHARED_URL}
    for payload in (first, document):
        jsonschema.validate(payload, FETCH_SHAPE)
    assert (first["id"], first["url"], first["metadata"]["type"]) == (shared_chunk, SHARED_URL, "kb_chunk")
    assert "run the canary for a day" in first["text"] and first["metadata"]["truncated"] == "no"
    assert (document["id"], document["metadata"]["type"]) == (shared_doc, "kb_document")
    rows = log_rows(backend, tenant_id="acme")
    assert [(r["tool_name"], r["status"]) for r in rows] == [("search", "ok"), ("fetch", "ok"), ("fetch", "ok")]
    assert json.loads(rows[0]["result_text"]) == found


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_search_never_returns_another_tenants_or_users_ids(sqlite_path, library, mode):
    async def ids(url, bearer):
        async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
            payload = one_json_text(await c.call_tool("search", {"query": QUERY}))
        jsonschema.validate(payload, SEARCH_SHAPE)
        return {r["id"] for r in payload["results"]}

    with served(sqlite_path) as url:
        jane = asyncio.run(ids(url, token()))
        bob = asyncio.run(ids(url, token(sub="bob")))
        globex = asyncio.run(ids(url, token(tenant="globex", sub="omar")))
    shared, bobs, globexs = (set(library[n][1]) for n in ("shared", "bob", "globex"))
    assert shared <= jane and not jane & (bobs | globexs)
    assert shared | bobs <= bob and not bob & globexs
    assert globexs <= globex and not globex & (shared | bobs)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_fetch_of_an_id_the_caller_cannot_see_is_one_sentence_that_does_not_say_it_exists(
    sqlite_path, backend, library, mode
):
    globex_doc, [globex_chunk] = library["globex"]
    _, [bob_chunk] = library["bob"]
    asked = [globex_chunk, globex_doc, bob_chunk, "chk_no_such_passage"]
    before = table_digest(backend, skip=("mcp_call_log",))

    async def refusals(url):
        async with Client(f"{url}/mcp", auth=token(), mode=mode) as c:
            return [await c.call_tool("fetch", {"id": i}, raise_on_error=False) for i in asked]

    with served(sqlite_path) as url:
        results = asyncio.run(refusals(url))
    assert all(r.is_error for r in results)
    assert {r.content[0].text for r in results} == {NOT_VISIBLE}  # the same for a foreign id and a missing one
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    rows = log_rows(backend, tool_name="fetch")
    assert [(r["tenant_id"], r["status"], r["error_class"], r["result_text"]) for r in rows] == [
        ("acme", "denied", "NotVisible", NOT_VISIBLE)
    ] * len(asked)
    assert [json.loads(r["arguments_json"])["id"] for r in rows] == asked


# -- the manager methods behind them (real SQLite, no transport) -------------------------------


def test_a_link_is_the_web_source_else_the_rows_public_base_else_memgate(manager, two_tenants):
    demo = manager.search_sources(ACME, "helios ndcg")  # demo documents come from demo://, not the web
    assert demo.structured["results"]
    assert all(r["url"] == f"memgate://kb/doc_acme_1#{r['id']}" for r in demo.structured["results"])
    policy = {"public_links": "https://kb.acme.example/memgate/"}
    assert (
        json.loads(manager.fetch_source(ACME, "chk_acme_1_1", policy=policy).text)["url"]
        == "https://kb.acme.example/memgate/doc_acme_1#chk_acme_1_1"
    )
    assert (
        manager.fetch_source(ACME, "doc_acme_1", policy=policy).structured["url"]
        == "https://kb.acme.example/memgate/doc_acme_1"
    )


@pytest.mark.parametrize("base", ["kb.acme.example/docs", "ftp://kb.acme.example/", "https://kb.acme.example/?d=", 7])
def test_a_row_with_a_public_links_value_that_is_no_web_base_url_is_not_served(base):
    search = next(d for d in load_tool_definitions(PRESET) if d["tool_name"] == "search")
    row = ToolRow(
        id="tool_test",
        version=1,
        tool_name="search",
        tool_schema=search["tool_schema"],
        usage_notes=search["usage_notes"],
        tool_handler="search",
        access_policy={**search["access_policy"], "public_links": base},
    )
    with pytest.raises(RowRefused, match="access_policy.public_links must be an http or https base URL"):
        check_row(row)


def test_fetch_clips_a_long_document_to_the_result_budget_and_says_so(manager, two_tenants):
    text = " ".join(f"Orion step {n}: check the canary dashboard and note the error budget." for n in range(600))
    doc = add_doc(manager, ACME, "Orion runbook", text)
    out = manager.fetch_source(ACME, doc.document_id)
    payload = json.loads(out.text)
    jsonschema.validate(payload, FETCH_SHAPE)
    assert out.tokens <= manager.context_budget(ACME).max_tool_result_tokens < doc.tokens
    assert payload["metadata"]["truncated"] == "yes" and out.truncated
    assert text.startswith(payload["text"].rstrip("…")) and payload["text"].endswith("…")


def test_fetch_marks_a_passage_made_from_a_corrected_fact_historical(manager, two_tenants):
    slide = add_chunk_from_corrected_fact(manager, "Slide: Helios reached 0.92 nDCG@10.")
    metadata = manager.fetch_source(ACME, slide).structured["metadata"]
    assert metadata["status"] == "historical"
    assert "model:helios-rag beir_ndcg10 = 0.78" in metadata["current_facts"]
    assert "ent_acme_helios_v2" in metadata["current_facts"]
    assert "status" not in manager.fetch_source(ACME, "chk_acme_1_0").structured["metadata"]


def test_a_deleted_document_is_not_visible_to_fetch(manager, two_tenants):
    with manager.backend.session(ACME) as s:
        s.raw("UPDATE knowledge_base_document SET deleted_at = :t WHERE id = 'doc_acme_1'", {"t": now_iso()})
    for item in ("doc_acme_1", "chk_acme_1_0"):
        with pytest.raises(NotVisible, match="no knowledge-base chunk or document this caller can see now"):
            manager.fetch_source(ACME, item)


def test_inside_a_context_window_the_json_is_recorded_as_a_round_without_a_provenance_line(manager, two_tenants):
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    out = manager.run_tool_round(
        JANE_IN_REVIEW,
        call_id=str(uuid.uuid4()),
        tool_name="search",
        call=lambda: manager.search_sources(JANE_IN_REVIEW, "helios ndcg"),
    )
    jsonschema.validate(json.loads(out.text), SEARCH_SHAPE)
    assert out.cited_ids[0].startswith("tr_")
    [event] = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'")
    assert event["content"] == out.text and json.loads(event["content_json"])["round"] == 1
