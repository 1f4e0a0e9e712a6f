"""Refuse HTTP request bodies over a size limit with 413, before the MCP app reads them."""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]


class BodySizeLimit:
    """Pure ASGI middleware: Content-Length over the limit, or a streamed body that grows past it, gets 413."""

    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        seen = 0
        too_big = False
        started = False

        async def counting_receive() -> dict[str, Any]:
            nonlocal seen, too_big
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    too_big = True
                    return {"type": "http.disconnect"}  # the app stops reading; we answer below
            return message

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal started
            if too_big and not started:
                return  # the app's answer to a truncated body is replaced by the 413
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except Exception:
            if not too_big:
                raise  # only the app's reaction to the cut-off body is ours to replace
        if too_big and not started:
            await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps(
            {"error": "request_too_large", "error_description": f"request bodies are limited to {self.max_bytes} bytes"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
