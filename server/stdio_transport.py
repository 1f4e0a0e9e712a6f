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
- -32602 Invalid params: params not an object, or a value a tool argument may not hold
  (toolbox/argument_values.py), in the invalid-arguments wording the dispatcher uses;
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

Notifications and the client's own responses are logged and never answered (JSON-RPC
forbids it). Text with no readable id is logged and not answered: answering id null to
noise can start an error storm with a peer that logs to its stdout.

How it hooks in, through public API only: serve_stdio() points fd 0 and fd 1 at two pipes
and calls FastMCP's own `run(transport="stdio")`, which serves those pipes exactly as it
would a terminal (mcp's stdio_server still diverts fd 0 to the null device and fd 1 to
stderr while it serves, so stray reads and prints miss the wire). Two threads relay the
real stdin and stdout through them (_Relay). Nothing of FastMCP's or mcp's is patched or
imported privately, so both are version ranges in pyproject.toml, and
tests/server/test_stdio_transport.py proves the behaviour on whichever versions are installed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import math
import os
import re
import select
import sys
import threading
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from fastmcp import FastMCP
from mcp.shared.message import SessionMessage

from memgate.toolbox import argument_problem, invalid_arguments

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "Handshake",
    "Triage",
    "serve_stdio",
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
    replies: list[dict[str, Any]] = []
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


class _Relay:
    """Sits between the process's real stdin/stdout and FastMCP's own stdio transport.

    fd 0 and fd 1 are pointed at two pipes before FastMCP starts, so FastMCP (and mcp's
    stdio_server under it) serve exactly as they would on a terminal, through public API
    only. One thread reads the real stdin line by line and triages each line: a line that
    parses goes into the stdin pipe unchanged, a line that does not is answered here. A
    second thread copies FastMCP's output from the stdout pipe to the real stdout. Both
    write whole lines under one lock, so an error reply never splits a server message.
    """

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._lock = threading.Lock()
        self._stop_r, self._stop_w = os.pipe()

    def __enter__(self) -> _Relay:
        sys.stdout.flush()
        self._real_in = _dup_private(0)
        self._real_out = _dup_private(1)
        to_server_r, self._to_server = os.pipe()
        self._from_server, from_server_w = os.pipe()
        os.dup2(to_server_r, 0)
        os.dup2(from_server_w, 1)
        os.close(to_server_r)
        os.close(from_server_w)
        self._copier = threading.Thread(target=self._copy_out, name="memgate-stdout", daemon=True)
        self._copier.start()
        threading.Thread(target=self._read_in, name="memgate-stdin", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        os.write(self._stop_w, b"x")  # the copier drains what the server wrote, then stops
        self._copier.join(timeout=5)
        os.dup2(self._real_in, 0)
        os.dup2(self._real_out, 1)

    def _write(self, data: bytes) -> None:
        with self._lock:
            _write_all(self._real_out, data)

    def _read_in(self) -> None:
        real_in = os.fdopen(self._real_in, "rb", closefd=False)
        limit = self.max_line_bytes
        handshake = Handshake()
        try:
            while raw := real_in.readline(limit + 1):
                complete = raw.endswith(b"\n") or len(raw) <= limit  # a last line may lack "\n"
                if not complete:
                    while (more := real_in.readline(_SNIFF_BYTES)) and not more.endswith(b"\n"):
                        pass
                line = raw.rstrip(b"\r\n")
                outcome = handshake.admit(triage(line, max_line_bytes=limit, complete=complete))
                if outcome.replies:
                    error = outcome.replies[0]["error"]
                    log.warning(
                        "answered a stdin line with %d JSON-RPC error(s) %s: %s",
                        len(outcome.replies),
                        error["code"],
                        error["message"][:200],
                    )
                    self._write(b"".join(_line(reply) for reply in outcome.replies))
                elif outcome.message is not None:
                    _write_all(self._to_server, line + b"\n")
        except OSError as exc:  # the server went away: nothing left to feed
            log.info("stopped reading stdin: %s", exc)
        finally:
            os.close(self._to_server)  # the server reads end of input and shuts down

    def _copy_out(self) -> None:
        fds = [self._from_server, self._stop_r]
        while True:
            ready, _, _ = select.select(fds, [], [])
            if self._from_server in ready:
                chunk = os.read(self._from_server, 65536)
                if chunk:
                    self._write(chunk)
                    continue
                return
            if self._stop_r in ready:
                os.set_blocking(self._from_server, False)
                with contextlib.suppress(BlockingIOError):
                    while chunk := os.read(self._from_server, 65536):
                        self._write(chunk)
                return


def _dup_private(fd: int) -> int:
    """A close-on-exec duplicate of fd above the standard range (children never inherit the wire)."""
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _line(reply: dict[str, Any]) -> bytes:
    """One error answer as a line (a plain object: JSON-RPC's numeric ids, like 1.5, are not MCP's)."""
    return json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n"


def serve_stdio(mcp: FastMCP, *, max_line_bytes: int) -> None:
    """Run `mcp` over this process's stdin and stdout, every line triaged first (see _Relay)."""
    with _Relay(max_line_bytes):
        mcp.run(transport="stdio", show_banner=False)
