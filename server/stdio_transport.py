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
- -32600 Invalid Request: not a request object (no or bad method, bad jsonrpc or id, a
  batch), or a line longer than max_line_bytes (the rest of it is skipped);
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

__all__ = ["INVALID_PARAMS", "INVALID_REQUEST", "PARSE_ERROR", "Triage", "serve_stdio", "stdio_streams", "triage"]

log = logging.getLogger("memgate.stdio")

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_SNIFF_BYTES = 65536
# An id near the start of a line that could not be parsed: a short string or an integer.
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Triage:
    """What to do with one line: pass `message` to the server, or send `reply`, or (both None) neither."""

    message: SessionMessage | None = None
    reply: SessionMessage | None = None


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
        if isinstance(parsed, types.JSONRPCNotification) and b'"id"' in raw and _has_id(text):
            # Upstream reads a request whose id is not a string or an integer (true, null, 1.5)
            # as a notification, which is never answered.
            return _reply(None, INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
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
    if not isinstance(obj, dict):
        what = "JSON-RPC batches are not supported" if isinstance(obj, list) else "a message must be a JSON object"
        return _reply(None, INVALID_REQUEST, f"Invalid Request: {what}")
    return _triage_object(obj, upstream_error)


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
    answer_to = request_id if usable_id else None
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


def _has_id(text: str) -> bool:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and "id" in obj


def _reply(request_id: Any, code: int, message: str) -> Triage:
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    return Triage(reply=SessionMessage(error))


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

        async def emit(message: SessionMessage) -> None:
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
            async with to_server:
                while raw := await read_line(max_line_bytes + 1):
                    complete = raw.endswith(b"\n") or len(raw) <= max_line_bytes  # a last line may lack "\n"
                    if not complete:
                        await skip_rest_of_line()
                    outcome = triage(raw.rstrip(b"\r\n"), max_line_bytes=max_line_bytes, complete=complete)
                    if outcome.reply is not None:
                        log.warning(
                            "answered a stdin line with JSON-RPC error %s: %s",
                            outcome.reply.message.error.code,
                            outcome.reply.message.error.message[:200],
                        )
                        await emit(outcome.reply)
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
