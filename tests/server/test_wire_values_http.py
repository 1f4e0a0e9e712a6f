"""Over real HTTP, argument values no tool may take get the plain invalid-arguments answer and are
logged as invalid: a lone surrogate, nesting deeper than 32 levels.

The lines are posted raw: a JSON escape is the only way a lone surrogate travels (clients cannot
encode one as UTF-8). The stateless (2026-07-28) endpoint parses with the stdlib and lets it reach
the tool; the legacy session endpoint's parser refuses it first (400, -32700), nothing runs.
"""

from __future__ import annotations

import json

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import pytest
from mcp_helpers import log_rows
from test_server_http import base_url, token  # noqa: F401 - base_url is a fixture

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
SURROGATE = (
    "Invalid arguments for 'query': a string holds a lone UTF-16 surrogate (like \\ud800); send valid Unicode text"
)
DEEP = "Invalid arguments for 'max_rows': values are nested deeper than 32 levels"


def _post(client: httpx.Client, url: str, headers: dict, body: dict | str) -> dict | None:
    content = body if isinstance(body, str) else json.dumps(body)
    response = client.post(url, headers=headers, content=content.encode(), timeout=30)
    assert response.status_code in (200, 202, 400), response.status_code
    text = response.text
    if "data:" in text[:50]:  # a text/event-stream answer
        text = "".join(line[5:].strip() for line in text.splitlines() if line.startswith("data:"))
    return json.loads(text) if text else None


def _call_raw(base: str, era: str, arguments_json: str) -> dict:
    url, headers = (
        f"{base}/mcp",
        {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token()}",
        },
    )
    params = {"name": "execute_query", "arguments": {"x": 0}}
    with httpx.Client() as client:
        if era == "legacy":
            init = client.post(
                url,
                headers=headers,
                timeout=30,
                content=json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": "2025-11-25",
                            "capabilities": {},
                            "clientInfo": {"name": "raw-test", "version": "1"},
                        },
                    }
                ).encode(),
            )
            headers |= {"mcp-session-id": init.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
            _post(client, url, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            headers |= {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "execute_query"}
            params["_meta"] = MODERN_META
        line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
        return _post(client, url, headers, line.replace('{"x": 0}', arguments_json))


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize(
    "arguments_json, text",
    [
        ('{"query": "SELECT \'\\ud800\'"}', SURROGATE),
        ('{"query": "SELECT 1", "max_rows": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}", DEEP),
    ],
)
def test_values_no_tool_may_take_get_invalid_arguments_over_http(
    base_url,
    backend,
    era,
    arguments_json,
    text,
):
    answer = _call_raw(base_url, era, arguments_json)
    if era == "legacy" and text == SURROGATE:
        assert answer["error"]["code"] == -32700, answer
        assert log_rows(backend, tool_name="execute_query") == []
        return
    assert answer["id"] == 7 and answer["result"]["isError"], answer
    assert answer["result"]["content"][0]["text"] == text
    [row] = log_rows(backend, tool_name="execute_query")
    assert (row["status"], row["result_text"]) == ("invalid", text)
