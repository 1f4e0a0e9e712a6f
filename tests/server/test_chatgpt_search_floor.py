"""ChatGPT's search can return nothing: the tenant's relevance floor, and a start-up warning about memgate:// citations.

The real HTTP server on 127.0.0.1 with the ChatGPT preset rows (config/toolbox.chatgpt.json),
fastmcp.Client in both eras, locally signed JWTs.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from kb_helpers import add_doc
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, serve_memgate

from memgate.manager import ACME, GLOBEX, OperatorManager, load_tool_definitions
from memgate.server.cli.citation_links import rows_citing_memgate_links

PRESET = Path(__file__).resolve().parents[2] / "config" / "toolbox.chatgpt.json"
ISS = "https://chatgpt-idp.example.test"
KEYS = make_keypair()
UNRELATED = "zebra migration patterns across the serengeti"


def token():
    now = int(time.time())
    return make_token(KEYS.private_pem, iss=ISS, aud="memgate", sub="jane", tenant="acme", iat=now, exp=now + 300)


@pytest.fixture
def preset(manager, two_tenants):
    manager.seed_tools(ACME, load_tool_definitions(PRESET))
    add_doc(
        manager,
        ACME,
        "Orion launch checklist",
        "Orion launch checklist: freeze the release branch, run the canary for a day, then page the on-call.",
        uri="https://wiki.acme.example/orion/launch",
    )
    return manager


def searched(sqlite_path, queries, mode="auto", floor=None, manager=None):
    settings = memgate_settings(sqlite_path, {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem})
    if floor is not None:  # the tenant's relevance floor, in its context budget
        manager.set_context_budget(ACME, {**manager.context_budget(ACME).to_json(), "relevance_floor": floor})

    async def go(url):
        async with Client(f"{url}/mcp", auth=token(), mode=mode) as c:
            out = []
            for q in queries:
                r = await c.call_tool("search", {"query": q})
                assert r.structured_content == json.loads(r.content[0].text)
                out.append(r.structured_content["results"])
            return out

    with serve_memgate(settings) as url:
        return asyncio.run(go(url))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_query_that_matches_nothing_returns_no_results(sqlite_path, backend, preset, mode):
    unrelated, related, paraphrase = searched(
        sqlite_path, [UNRELATED, "Orion launch checklist canary", "steps before shipping a new version"], mode
    )
    assert unrelated == []
    assert related and related[0]["url"] == "https://wiki.acme.example/orion/launch"
    [row] = [r for r in log_rows(backend) if r["arguments_json"] and UNRELATED in r["arguments_json"]]
    assert (row["status"], row["rows_returned"], json.loads(row["result_text"])) == ("ok", 0, {"results": []})
    assert isinstance(paraphrase, list)


def test_the_floor_is_what_leaves_unrelated_passages_out(sqlite_path, preset):
    [without_floor] = searched(sqlite_path, [UNRELATED], floor=0.0, manager=preset)
    assert without_floor  # rank fusion alone ranks whatever there is


def test_a_rare_shared_word_is_enough_and_common_words_are_not(sqlite_path, preset):
    matched, common_only = searched(sqlite_path, ["orion checklist", "what is the plan for this"])
    assert matched[0]["url"] == "https://wiki.acme.example/orion/launch"  # answered: the rest follow by rank
    assert common_only == []


def test_the_floor_is_the_tenants_relevance_floor(sqlite_path, preset):
    query = "Orion launch checklist canary"
    best = preset.search_chunks(ACME, query)[0].score  # the query's relevance: its first passage's score
    assert 0 < best < 1
    [admitted] = searched(sqlite_path, [query], floor=best, manager=preset)
    [refused] = searched(sqlite_path, [query], floor=(best + 1) / 2, manager=preset)
    assert admitted and refused == []


def test_chatgpt_rows_without_public_links_are_named_and_rows_with_them_are_not(manager, preset):
    assert rows_citing_memgate_links(OperatorManager(manager.backend)) == [("acme", "fetch"), ("acme", "search")]
    linked = [
        dict(d, access_policy={**d["access_policy"], "public_links": "https://kb.globex.example/"})
        for d in load_tool_definitions(PRESET)
    ]
    manager.seed_tools(GLOBEX, linked)
    assert rows_citing_memgate_links(OperatorManager(manager.backend)) == [("acme", "fetch"), ("acme", "search")]


def test_memgate_serve_warns_at_start_when_the_chatgpt_preset_cites_memgate_links(sqlite_path, preset, tmp_path):
    key_file = tmp_path / "idp.pem"
    key_file.write_text(KEYS.public_pem)
    config = tmp_path / "memgate.toml"
    config.write_text(f'[http.auth]\nissuer = "{ISS}"\npublic_key_file = "{key_file}"\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "FASTMCP_CHECK_FOR_UPDATES": "off"}
    args = ["--config", str(config), "--db", str(sqlite_path), "serve", "--transport", "http", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memgate", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # bounded readiness poll
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
                break
            except httpx.TransportError:
                assert proc.poll() is None
                assert time.monotonic() < deadline, "memgate serve did not start in 30 s"
                time.sleep(0.1)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=10)[0].decode()
    assert (
        "ChatGPT's search/fetch rows cite memgate://kb/ links, which ChatGPT cannot open (acme/fetch, acme/search)"
        in output
    )
