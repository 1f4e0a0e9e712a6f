"""The serving loop runs blocking work in as many threads as the walled pool keeps connections, and the
collector leaves start-up's objects alone (server/concurrency.py; measured in docs/benchmarks.md, Load)."""

from __future__ import annotations

import gc

import anyio
import anyio.to_thread

from memgate.server import concurrency
from memgate.server.concurrency import GC_THRESHOLDS, WORKER_THREADS, ServeManyCalls


def test_the_serving_loop_gets_the_thread_limit_and_the_collector_its_thresholds(monkeypatch):
    monkeypatch.setattr(concurrency, "_gc_tuned", False)  # another test's server may have tuned this process
    seen: list[float] = []

    async def app(scope, receive, send):
        seen.append(anyio.to_thread.current_default_thread_limiter().total_tokens)

    async def serve() -> None:
        wrapped = ServeManyCalls(app)
        for _ in range(2):
            await wrapped({"type": "http"}, None, None)

    before = gc.get_threshold()
    try:
        anyio.run(serve)
        assert seen == [WORKER_THREADS, WORKER_THREADS]
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0, "start-up's objects were not moved out of the collections"
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
