"""How many worker threads the HTTP server runs blocking work in at once.

Every database step of a request (the tenant gate, the step-up check, the provider's row read,
the dispatcher's call) runs in one of anyio's worker threads, and each holds a pooled SQLite
connection while it runs. anyio allows 40 threads; the walled pool keeps 16 connections
(manager/backend/sqlite/backend.py), so past 16 calls in flight every call beyond them opened a
new connection (its schema parsed, its wall built) and closed it again, and 40 threads took
turns at one GIL. Measured with bench.load (docs/benchmarks.md, Load): the server's CPU per
call grew with the calls in flight. With as many threads as pooled connections, a call waits
for a thread in the event loop instead; the work per call stays what it is at 8 in flight.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread

#: worker threads per server process: the walled pool's idle connections
WORKER_THREADS = 16


class ThreadLimit:
    """Pure ASGI middleware: sets anyio's default thread limiter of the serving loop to `tokens`.

    The limiter is one per event loop, so it is set from inside the loop, on the lifespan
    start and (where no lifespan runs) on the first request; a check per request is one read.
    """

    def __init__(self, app: Any, tokens: int = WORKER_THREADS):
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        limiter = anyio.to_thread.current_default_thread_limiter()
        if limiter.total_tokens != self.tokens:
            limiter.total_tokens = self.tokens
        await self.app(scope, receive, send)
