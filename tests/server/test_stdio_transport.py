"""A real `memgate serve` over stdio, fed raw JSON-RPC lines: every request line with an id gets exactly
one answer, in both protocol eras, and the server stays up.

After each line the test sends a sentinel tools/list and reads until the sentinel's answer (every
read bounded), so it sees exactly what the line itself got: one error, or nothing for lines that
must not be answered (notifications, noise with no id).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from backend_helpers import open_sqlite
from mcp_helpers import log_rows
from stdio_helpers import MAX_LINE, MODERN_META, READ_TIMEOUT_S, RawStdio

from memgate.manager import ACME, GLOBEX, MemoryManager, load_tool_definitions, seed_demo


@pytest.fixture(scope="module")
def served_db(tmp_path_factory):
    """The demo tenants and tools in one database for the module's servers (each test stands alone)."""
    path = tmp_path_factory.mktemp("stdio") / "memgate.db"
    backend = open_sqlite(path)
    manager = MemoryManager(backend)
    seed_demo(manager)
    for identity in (ACME, GLOBEX):
        manager.seed_tools(identity, load_tool_definitions())
    backend.close()
    return path


@pytest.fixture(scope="module", params=["legacy", "modern"])
def server(request, served_db, tmp_path_factory) -> Iterator[RawStdio]:
    raw = RawStdio(
        ["--db", str(served_db), "serve", "--tenant", "acme", "--user", "jane"],
        tmp_path_factory.mktemp(request.param),
        request.param,
    )
    try:
        raw.open_session()
        yield raw
    finally:
        raw.close()


def _call(raw: RawStdio, request_id, arguments_json: str, name: str = "execute_query") -> bytes:
    """A tools/call line with `arguments_json` spliced in as written (so JSON escapes stay escapes)."""
    line = json.dumps(raw.message(request_id, "tools/call", {"name": name, "arguments": {"x": 0}}))
    return line.replace('{"x": 0}', arguments_json).encode()


def _error(answers: list[dict], request_id, code: int) -> str:
    assert len(answers) == 1, answers
    [answer] = answers
    assert (answer.get("id"), answer.get("error", {}).get("code")) == (request_id, code), answer
    return answer["error"]["message"]


def test_a_lone_surrogate_in_an_argument_gets_invalid_arguments(server):
    message = _error(server.answers_to(_call(server, 11, '{"query": "SELECT \'\\ud800\'"}')), 11, -32602)
    assert (
        message == "Invalid arguments: a string holds a lone UTF-16 surrogate (like \\ud800); send valid Unicode text"
    )


def test_an_argument_nested_400_levels_deep_gets_invalid_arguments(server):
    nested = '{"a": ' * 400 + "1" + "}" * 400
    message = _error(server.answers_to(_call(server, "deep", f'{{"query": {nested}}}')), "deep", -32602)
    assert message == "Invalid arguments: values are nested deeper than 32 levels"


@pytest.mark.parametrize(
    "line, request_id, code, message",
    [
        (b'{"jsonrpc": "2.0", "id": 12}', 12, -32600, "Invalid Request: the request has no method"),
        (b'{"jsonrpc": "2.0", "id": 13, "method": 42}', 13, -32600, "Invalid Request: the method must be a string"),
        (
            b'{"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": "nope"}',
            14,
            -32602,
            "Invalid params: params must be an object",
        ),
        (b'{"id": 15, "method": "tools/list"}', 15, -32600, 'Invalid Request: "jsonrpc" must be "2.0"'),
        (
            b'{"jsonrpc": "2.0", "id": true, "method": "tools/list"}',
            None,
            -32600,
            "Invalid Request: the id must be a string or an integer",
        ),
        (b'{"jsonrpc": "2.0", "id": 16, "method": "tools/list", ', 16, -32700, None),
        (
            b'[{"jsonrpc": "2.0", "id": 17, "method": "tools/list"}]',
            17,
            -32600,
            "Invalid Request: JSON-RPC batches are not supported; send each request on its own line",
        ),
        (
            b'{"jsonrpc": "2.0", "id": 18, "method": "tools/call", "params": {"name": "\\udc00", "arguments": {}}}',
            18,
            -32602,
            "Invalid arguments: a string holds a lone UTF-16 surrogate (like \\ud800); send valid Unicode text",
        ),
        (
            b'{"jsonrpc": "2.0", "id": 19, "method": "tools/list", "params": {"x": "' + b"y" * MAX_LINE + b'"}}',
            19,
            -32600,
            f"Invalid Request: the message exceeds {MAX_LINE} bytes",
        ),
    ],
)
def test_a_malformed_request_gets_exactly_one_error(server, line, request_id, code, message):
    got = _error(server.answers_to(line), request_id, code)
    assert message is None or got == message


@pytest.mark.parametrize(
    "line",
    [
        b"this is not json",
        b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "nope"}',
        b'{"jsonrpc": "2.0", "id": 20, "result": "nope", "extra": {"a": "\\ud800"}}',
        b"",
    ],
)
def test_notifications_responses_and_noise_get_no_answer(server, line):
    assert server.answers_to(line) == []


def test_valid_calls_still_work_around_bad_lines(server, served_db):
    backend = open_sqlite(served_db)
    logged_before = len(log_rows(backend, tool_name="execute_query", status="ok"))
    server.answers_to(b'{"jsonrpc": "2.0", "id": 21}')
    answer = server.answer(_call(server, 22, '{"query": "SELECT \'caf\\u00e9\' AS w"}'), 22)
    assert answer["id"] == 22 and answer["result"]["content"][0]["text"].endswith("| w |\n|---|\n| café |")
    meta = b', "_meta": ' + json.dumps(MODERN_META).encode() if server.era == "modern" else b""
    not_utf8 = (
        b'{"jsonrpc": "2.0", "id": 23, "method": "tools/call", "params": {"name": "execute_query", '
        b'"arguments": {"query": "SELECT \'\xff\' AS b"}' + meta + b"}}"
    )
    answer = server.answer(not_utf8, 23)  # read as U+FFFD, as upstream reads it
    assert answer["id"] == 23 and answer["result"]["content"][0]["text"].endswith("| \ufffd |")
    assert len(log_rows(backend, tool_name="execute_query", status="ok")) == logged_before + 2
    backend.close()


def test_a_megabyte_tool_name_is_answered_and_logged_clipped(sqlite_path, two_tenants, tmp_path):
    raw = RawStdio(
        ["--db", str(sqlite_path), "serve", "--tenant", "acme"], tmp_path, "legacy", max_line=4 * 1024 * 1024
    )  # the default cap: the megabyte reaches the server
    try:
        raw.open_session()
        answer = raw.answer(_call(raw, 30, "{}", name="n" * 1_000_000), 30)
    finally:
        raw.close()
    assert answer["id"] == 30 and answer["result"]["isError"]
    assert answer["result"]["content"][0]["text"] == f"There is no tool named {'n' * 98}…(1,000,000 characters)."
    assert raw.stderr_path.stat().st_size < 20_000


def test_a_server_with_no_input_left_exits(sqlite_path, two_tenants, tmp_path):
    raw = RawStdio(["--db", str(sqlite_path), "serve", "--tenant", "acme"], tmp_path, "legacy")
    started = time.monotonic()
    raw.close()
    assert raw.proc.returncode == 0 and time.monotonic() - started < READ_TIMEOUT_S
