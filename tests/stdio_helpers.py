"""A real `memgate serve` subprocess over stdio, driven with raw JSON-RPC lines (every read bounded)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

from mcp_types import DiscoverRequest

DISCOVER = DiscoverRequest().method  # the 2026-07-28 era's first request
READ_TIMEOUT_S = 30.0  # per answer; a healthy server answers in milliseconds
MAX_LINE = 65536  # the server's line cap in these tests (server.max_request_bytes)
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class RawStdio:
    """A `memgate serve` subprocess and its stdout lines, read by a thread into a queue."""

    def __init__(self, args: list[str], home, era: str, max_line: int = MAX_LINE, env: dict[str, str] | None = None):
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "FASTMCP_CHECK_FOR_UPDATES": "off",
            "MEMGATE_SERVER__MAX_REQUEST_BYTES": str(max_line),
            **(env or {}),
        }
        self.stderr_path = home / f"stderr-{era}.txt"
        self.era = era
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memgate", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=str(home),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._next_id = 1000

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes | dict) -> None:
        data = line if isinstance(line, bytes) else json.dumps(line).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict:
        try:
            return json.loads(self.lines.get(timeout=READ_TIMEOUT_S))
        except queue.Empty:
            raise AssertionError(f"no answer within {READ_TIMEOUT_S} s") from None

    def request(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        self.send(self.message(self._next_id, method, params))
        answer = self.read()
        assert answer.get("id") == self._next_id, answer
        return answer

    def message(self, request_id, method: str, params: dict | None = None) -> dict:
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = {**MODERN_META, **params.get("_meta", {})}
        return {"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})}

    def answer(self, line: bytes, request_id) -> dict:
        """The answer to a request the server itself handles (it may overtake a later one)."""
        self.send(line)
        answer = self.read()
        assert answer.get("id") == request_id, f"an answer to something else: {answer}"
        return answer

    def answers_to(self, line: bytes | dict) -> list[dict]:
        """Everything the server sends for `line`, up to the answer to a sentinel sent after it.

        For lines the transport answers (or ignores) itself: those answers come before the
        sentinel is even read.
        """
        self.send(line)
        self._next_id += 1
        sentinel = self._next_id
        self.send(self.message(sentinel, "tools/list"))
        got = []
        while (answer := self.read()).get("id") != sentinel or "result" not in answer:
            got.append(answer)
        assert [t["name"] for t in answer["result"]["tools"]], "the server stopped serving tools"
        return got

    def open_session(self) -> None:
        """The era's opening: the initialize handshake (legacy), or discovery (2026-07-28, stateless)."""
        if self.era == "legacy":
            init = self.request(
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "1"},
                },
            )
            assert init["result"]["serverInfo"]["name"] == "memgate"
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            assert "result" in self.request(DISCOVER)

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=READ_TIMEOUT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._stderr.close()


def stdio_env(home, **extra: str) -> dict[str, str]:
    """The environment a host's launch configuration gives `memgate serve` (subprocesses inherit none)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        **extra,
    }


def serve_stdio(args: list[str], home, **env: str):
    """A fastmcp StdioTransport running `python -m memgate *args` with `env` added to its launch environment."""
    from fastmcp.client.transports import StdioTransport

    return StdioTransport(sys.executable, ["-m", "memgate", *args], env=stdio_env(home, **env), cwd=str(home))
