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

__all__ = ["INVALID_PARAMS", "INVALID_REQUEST", "PARSE_ERROR", "Triage", "serve_stdio", "triage"]

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
            view = memoryview(data)
            while view:
                view = view[os.write(self._real_out, view) :]

    def _read_in(self) -> None:
        real_in = os.fdopen(self._real_in, "rb", closefd=False)
        limit = self.max_line_bytes
        try:
            while raw := real_in.readline(limit + 1):
                complete = raw.endswith(b"\n") or len(raw) <= limit  # a last line may lack "\n"
                if not complete:
                    while (more := real_in.readline(_SNIFF_BYTES)) and not more.endswith(b"\n"):
                        pass
                line = raw.rstrip(b"\r\n")
                outcome = triage(line, max_line_bytes=limit, complete=complete)
                if outcome.reply is not None:
                    error = outcome.reply.message.error
                    log.warning("answered a stdin line with JSON-RPC error %s: %s", error.code, error.message[:200])
                    self._write(_line(outcome.reply))
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


def _line(message: SessionMessage) -> bytes:
    return message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


def serve_stdio(mcp: FastMCP, *, max_line_bytes: int) -> None:
    """Run `mcp` over this process's stdin and stdout, every line triaged first (see _Relay)."""
    with _Relay(max_line_bytes):
        mcp.run(transport="stdio", show_banner=False)
