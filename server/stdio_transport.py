"""memgate's stdio transport: every request line that has an id gets exactly one JSON-RPC answer.

Upstream (mcp 2.3.0, `mcp.server.stdio.stdio_server`) parses each line with the SDK's
message adapter and hands a line it cannot parse to the session as an exception, which
logs it at DEBUG and drops it (`mcp.shared.jsonrpc_dispatcher`). So a string with a lone
surrogate, JSON nested over about 200 levels, a request with no method or with params
that are not an object got no answer at all, and the host waited forever.

Here a line that parses takes exactly upstream's path. A line that does not is read again
with the stdlib parser (which takes surrogates and about 1000 levels) to find whom to
answer and why:

- -32700 Parse error: not JSON, but an id can still be read from its text;
- -32600 Invalid Request: not a request object (no or bad method, bad jsonrpc or id), or a
  line longer than max_line_bytes (the rest of it is skipped);
- a JSON-RPC batch: MCP dropped batches (2025-06-18), so each request in it gets its own
  -32600 line with its id, which is what lets the client match the error to the request
  (an array reply is a line MCP clients cannot parse); a batch of notifications gets
  nothing, and an empty batch or one of no readable requests one error with id null;
- a request before `initialize` (the handshake era): -32600 saying the session is not
  initialised (the SDK's own answer was -32602 "Invalid request parameters"). `ping` is
  allowed before it, and a request in the 2026-07-28 envelope needs no handshake.

JSON-RPC 2.0 lets an id be a string, a number or null; MCP allows only strings and
integers. A request with another number (1.5) is refused, but its id is echoed so the
client can match the error; a boolean, object or non-finite id gets id null.
- -32602 Invalid params: params not an object, or a value a tool argument may not hold
  (toolbox/argument_values.py), in the invalid-arguments wording the dispatcher uses.

Notifications and the client's own responses are logged and never answered (JSON-RPC
forbids it). Text with no readable id is logged and not answered: answering id null to
noise can start an error storm with a peer that logs to its stdout.

While serving, fd 0 points at the null device and fd 1 at stderr, so stray reads and
prints miss the wire; upstream's helpers do that (`_claim_fd` and its diversions), and
they are private to mcp 2.3.0, which pyproject.toml pins. FastMCP opens stdio through the
name `stdio_server` in `fastmcp.server.mixins.transport`; serve_stdio() points that name
here for the run and fails loudly if FastMCP stops using it.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.server.stdio as upstream
import mcp_types as types
from fastmcp import FastMCP
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from memgate.toolbox import argument_problem, invalid_arguments

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "Handshake",
    "Triage",
    "serve_stdio",
    "stdio_streams",
    "triage",
]

log = logging.getLogger("memgate.stdio")

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_SNIFF_BYTES = 65536
# An id near the start of a line that could not be parsed: a short string or an integer.
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Triage:
    """What to do with one line: pass `message` to the server, or send `replies` (JSON-RPC error
    objects, one line each), or (neither) nothing."""

    message: SessionMessage | None = None
    replies: tuple[dict[str, Any], ...] = ()


class Handshake:
    """Whether requests may reach the server yet: in the handshake era, not before `initialize`.

    The SDK fixes a connection's era by the first request it sees: one in the 2026-07-28
    envelope (or the discover request) makes it stateless, and then every request passes; any
    other (initialize, ping) makes it the handshake era, where only initialize and ping
    may come before initialize. A request in the envelope after that passes too: the
    SDK's own answer says the connection serves the other era.
    """

    def __init__(self) -> None:
        self.era: str | None = None  # "modern" or "handshake" once a request was passed on
        self.initialised = False

    def admit(self, outcome: Triage) -> Triage:
        """`outcome`, or a refusal when it passes a request on before the session is initialised."""
        message = outcome.message.message if outcome.message is not None else None
        if self.era == "modern" or self.initialised or not isinstance(message, types.JSONRPCRequest):
            return outcome
        meta = (message.params or {}).get("_meta")
        if (isinstance(meta, dict) and _PROTOCOL_META in meta) or message.method == _DISCOVER:
            self.era = self.era or "modern"
            return outcome
        if message.method in ("initialize", "ping"):
            self.era = self.era or "handshake"
            self.initialised = message.method == "initialize"
            return outcome
        return _reply(
            message.id, INVALID_REQUEST, "Invalid Request: the session is not initialised; send initialize first"
        )


#: the key that marks a request in the 2026-07-28 envelope, which needs no initialize
_PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
_DISCOVER = types.DiscoverRequest().method


def triage(raw: bytes, *, max_line_bytes: int, complete: bool = True) -> Triage:
    """Read one stdin line (without its newline); `complete` is False when only its head was kept."""
    if not complete or len(raw) > max_line_bytes:
        return _reply(_sniff_id(raw), INVALID_REQUEST, f"Invalid Request: the message exceeds {max_line_bytes} bytes")
    text = raw.decode("utf-8", errors="replace")  # as upstream: bytes that are not UTF-8 become U+FFFD
    if not text.strip():
        return Triage()
    try:
        parsed = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:  # pydantic's ValidationError, for bad JSON and bad shape alike (upstream's catch)
        upstream_error = _first_error(exc)
    else:
        if isinstance(parsed, types.JSONRPCNotification) and b'"id"' in raw and (obj := _object(text)) is not None:
            # Upstream reads a request whose id is not a string or an integer (true, null, 1.5)
            # as a notification, which is never answered.
            return _reply(_echoable(obj), INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
        return Triage(message=SessionMessage(parsed))
    try:
        obj = json.loads(text)
    except RecursionError:
        return _reply(_sniff_id(raw), INVALID_PARAMS, invalid_arguments(None, "values are nested too deeply"))
    except ValueError as exc:
        sniffed = _sniff_id(raw)
        if sniffed is None:
            log.warning("ignored a stdin line that is not JSON (%d bytes): %s", len(raw), exc)
            return Triage()
        return _reply(sniffed, PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(obj, list):
        return _batch(obj)
    if not isinstance(obj, dict):
        return _reply(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    return _triage_object(obj, upstream_error)


_BATCH = "Invalid Request: JSON-RPC batches are not supported; send each request on its own line"


def _batch(items: list[Any]) -> Triage:
    """One error per request of a batch, with its id; nothing for its notifications (see the module docstring)."""
    replies = []
    for item in items:
        if isinstance(item, dict) and "id" in item and (echoed := _echoable(item)) is not None:
            replies.extend(_reply(echoed, INVALID_REQUEST, _BATCH).replies)
    notifications_only = items and all(isinstance(i, dict) and "id" not in i and "method" in i for i in items)
    if not replies and not notifications_only:
        return _reply(None, INVALID_REQUEST, _BATCH)
    return Triage(replies=tuple(replies))


def _triage_object(obj: dict[str, Any], upstream_error: str) -> Triage:
    method, request_id = obj.get("method"), obj.get("id")
    if "method" not in obj and ("result" in obj or "error" in obj):
        log.warning("ignored a malformed response from the client: %s", upstream_error)
        return Triage()
    if "id" not in obj and isinstance(method, str):
        log.warning("ignored a malformed notification %r: %s", method[:100], upstream_error)
        return Triage()
    usable_id = (isinstance(request_id, int) and not isinstance(request_id, bool)) or (
        isinstance(request_id, str) and not _SURROGATES.search(request_id)
    )
    answer_to = _echoable(obj)
    if obj.get("jsonrpc") != "2.0":
        return _reply(answer_to, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if not usable_id:
        return _reply(None, INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
    if "method" not in obj:
        return _reply(answer_to, INVALID_REQUEST, "Invalid Request: the request has no method")
    if not isinstance(method, str) or _SURROGATES.search(method):
        return _reply(answer_to, INVALID_REQUEST, "Invalid Request: the method must be a string")
    params = obj.get("params")
    if "params" in obj and not isinstance(params, dict):
        return _reply(answer_to, INVALID_PARAMS, "Invalid params: params must be an object")
    if problem := argument_problem(params):
        return _reply(answer_to, INVALID_PARAMS, invalid_arguments(None, problem[1]))
    return _reply(answer_to, INVALID_REQUEST, f"Invalid Request: {upstream_error}")


def _object(text: str) -> dict[str, Any] | None:
    """`text` as a JSON object that has an id, else None."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and "id" in obj else None


def _echoable(obj: dict[str, Any]) -> str | int | float | None:
    """The id an error to `obj` may carry: JSON-RPC's string or number, else None (null)."""
    request_id = obj.get("id")
    if isinstance(request_id, bool):
        return None
    if isinstance(request_id, int) or (isinstance(request_id, float) and math.isfinite(request_id)):
        return request_id
    if isinstance(request_id, str) and not _SURROGATES.search(request_id):
        return request_id
    return None


def _reply(request_id: Any, code: int, message: str) -> Triage:
    """An error answer; built as a plain object, since JSON-RPC's numeric ids (1.5) are not MCP's."""
    return Triage(replies=({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}},))


def _sniff_id(raw: bytes) -> str | int | None:
    """The id of a line that could not be parsed, from its head; None when none can be read."""
    found = _ID.search(raw[:_SNIFF_BYTES])
    if not found:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return None if isinstance(value, str) and _SURROGATES.search(value) else value


def _first_error(exc: Exception) -> str:
    lines = str(exc).splitlines()
    return (lines[1] if len(lines) > 1 else lines[0]).strip()[:300]


@asynccontextmanager
async def stdio_streams(max_line_bytes: int) -> AsyncIterator[tuple[Any, Any]]:
    """Stand-in for upstream's stdio_server(): the same streams and fd claims, with every line triaged."""
    restore_in = restore_out = None
    try:
        in_buffer, restore_in = upstream._claim_fd(0, sys.stdin, "rb", upstream._open_stdin_diversion)
        out_buffer, restore_out = upstream._claim_fd(1, sys.stdout, "wb", upstream._open_stdout_diversion)
        stdout = anyio.wrap_file(out_buffer)
        to_server, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, from_server = create_context_streams[SessionMessage](0)
        one_writer = anyio.Lock()  # error replies and server messages never interleave

        async def emit(message: SessionMessage | dict[str, Any]) -> None:
            if isinstance(message, dict):
                line = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
            else:
                line = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
            async with one_writer:
                await stdout.write(line)
                await stdout.flush()

        async def read_line(size: int) -> bytes:
            return await anyio.to_thread.run_sync(in_buffer.readline, size, abandon_on_cancel=True)

        async def skip_rest_of_line() -> None:
            while (more := await read_line(_SNIFF_BYTES)) and not more.endswith(b"\n"):
                pass

        async def reader() -> None:
            handshake = Handshake()
            async with to_server:
                while raw := await read_line(max_line_bytes + 1):
                    complete = raw.endswith(b"\n") or len(raw) <= max_line_bytes  # a last line may lack "\n"
                    if not complete:
                        await skip_rest_of_line()
                    outcome = triage(raw.rstrip(b"\r\n"), max_line_bytes=max_line_bytes, complete=complete)
                    outcome = handshake.admit(outcome)
                    if outcome.replies:
                        error = outcome.replies[0]["error"]
                        log.warning(
                            "answered a stdin line with %d JSON-RPC error(s) %s: %s",
                            len(outcome.replies),
                            error["code"],
                            error["message"][:200],
                        )
                        for reply in outcome.replies:
                            await emit(reply)
                    elif outcome.message is not None:
                        try:
                            await to_server.send(outcome.message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return

        async def writer() -> None:
            async with from_server:
                async for message in from_server:
                    await emit(message)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            yield read_stream, write_stream
    finally:
        if restore_out is not None:
            restore_out()
        if restore_in is not None:
            restore_in()


def serve_stdio(mcp: FastMCP, *, max_line_bytes: int) -> None:
    """Run `mcp` over this process's stdin and stdout through stdio_streams()."""
    import fastmcp.server.mixins.transport as fastmcp_transport

    if getattr(fastmcp_transport, "stdio_server", None) is not upstream.stdio_server:
        raise RuntimeError(
            "FastMCP no longer opens stdio through fastmcp.server.mixins.transport.stdio_server; "
            "server/stdio_transport.py must follow it before memgate can serve over stdio"
        )
    fastmcp_transport.stdio_server = functools.partial(stdio_streams, max_line_bytes)
    try:
        mcp.run(transport="stdio", show_banner=False)
    finally:
        fastmcp_transport.stdio_server = upstream.stdio_server
