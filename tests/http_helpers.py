"""Run an ASGI app under a real uvicorn on a free 127.0.0.1 port, for tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

STARTUP_TIMEOUT = 10.0  # seconds; uvicorn plus a FastMCP lifespan start in well under one
SHUTDOWN_TIMEOUT = 10.0


@contextmanager
def serve_asgi(app, **options) -> Iterator[str]:
    """Serve `app` in a background thread and yield its base URL, e.g. "http://127.0.0.1:53122".

    `options` are more uvicorn.Config settings, e.g. memgate.server.app.uvicorn_options(settings).
    """
    # Bind first and hand uvicorn the socket, so no other process can take the port in between.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws="none", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("uvicorn exited during startup; see the log above")
            if time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start within {STARTUP_TIMEOUT}s")
            time.sleep(0.01)  # bounded readiness poll, not synchronisation
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(SHUTDOWN_TIMEOUT)
        sock.close()
        if thread.is_alive():
            raise RuntimeError(f"uvicorn did not stop within {SHUTDOWN_TIMEOUT}s")
