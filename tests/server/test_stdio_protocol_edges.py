"""Protocol edges over a real `memgate serve` on stdio: a JSON-RPC batch and a request with a float id
are answered with their ids, so a client can match each error to its request; a request before
`initialize` is told the session is not initialised."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from backend_helpers import open_sqlite
from stdio_helpers import MODERN_META, RawStdio

from memgate.manager import ACME, MemoryManager, load_tool_definitions, seed_demo

BATCH = "Invalid Request: JSON-RPC batches are not supported; send each request on its own line"
NOT_INITIALISED = "Invalid Request: the session is not initialised; send initialize first"


@pytest.fixture(scope="module")
def served_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "memgate.db"
    backend = open_sqlite(path)
    manager = MemoryManager(backend)
    seed_demo(manager)
    manager.seed_tools(ACME, load_tool_definitions())
    backend.close()
    return path


def _serve(served_db, home, era: str) -> RawStdio:
    return RawStdio(["--db", str(served_db), "serve", "--tenant", "acme", "--user", "jane"], home, era)


@pytest.fixture(scope="module", params=["legacy", "modern"])
def server(request, served_db, tmp_path_factory) -> Iterator[RawStdio]:
    raw = _serve(served_db, tmp_path_factory.mktemp(request.param), request.param)
    try:
        raw.open_session()
        yield raw
    finally:
        raw.close()


def _errors(answers: list[dict]) -> list[tuple]:
    return [(a.get("id"), a["error"]["code"], a["error"]["message"]) for a in answers]


def test_each_request_of_a_batch_gets_an_error_with_its_own_id(server):
    batch = [
        server.message(31, "tools/list"),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 31}},
        server.message("thirty-two", "tools/call", {"name": "execute_query", "arguments": {"query": "SELECT 1"}}),
        server.message(33.5, "tools/list"),
    ]
    answers = server.answers_to(json.dumps(batch).encode())
    assert _errors(answers) == [(31, -32600, BATCH), ("thirty-two", -32600, BATCH), (33.5, -32600, BATCH)]


@pytest.mark.parametrize(
    "batch, expected",
    [
        (b"[]", [(None, -32600, BATCH)]),
        (b"[1, 2]", [(None, -32600, BATCH)]),
        (b'[{"jsonrpc": "2.0", "id": true, "method": "tools/list"}]', [(None, -32600, BATCH)]),
        (b'[{"jsonrpc": "2.0", "method": "notifications/initialized"}]', []),
    ],
    ids=["empty", "no-objects", "boolean-id", "notifications-only"],
)
def test_a_batch_with_no_request_to_answer_gets_one_null_error_or_nothing(server, batch, expected):
    assert _errors(server.answers_to(batch)) == expected


@pytest.mark.parametrize("request_id", [1.5, -2.25, 1e3], ids=["1.5", "-2.25", "1e3"])
def test_a_request_with_a_float_id_is_refused_with_that_id_echoed(server, request_id):
    line = json.dumps(server.message(request_id, "tools/list")).encode()
    assert _errors(server.answers_to(line)) == [
        (request_id, -32600, "Invalid Request: the id must be a string or an integer")
    ]


def test_a_request_before_initialize_is_told_the_session_is_not_initialised(served_db, tmp_path):
    raw = _serve(served_db, tmp_path, "legacy")
    try:
        raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert _errors([raw.read()]) == [(1, -32600, NOT_INITIALISED)]
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}}})
        assert _errors([raw.read()]) == [(2, -32600, NOT_INITIALISED)]
        assert raw.request("ping") == {"jsonrpc": "2.0", "id": raw._next_id, "result": {}}
        raw.open_session()  # initialize, then the same request is served
        assert [t["name"] for t in raw.request("tools/list")["result"]["tools"]]
    finally:
        raw.close()


def test_a_first_request_in_the_2026_envelope_needs_no_initialize(served_db, tmp_path):
    raw = _serve(served_db, tmp_path, "modern")
    try:
        line = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}}
        raw.send(line)
        answer = raw.read()
        assert answer["id"] == 1 and [t["name"] for t in answer["result"]["tools"]], answer
    finally:
        raw.close()
