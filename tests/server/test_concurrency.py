"""The serving loop runs blocking work in server.worker_threads threads, and the collector leaves
start-up's objects alone (server/concurrency.py; measured in docs/benchmarks.md, Load)."""

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

    wrapped = ServeManyCalls(app)

    async def serve() -> None:
        for _ in range(2):
            await wrapped({"type": "http"}, None, None)

    before = gc.get_threshold()
    try:
        anyio.run(serve)
        anyio.run(serve)  # a second event loop (a test's, a restart's) has a limiter of its own: it is set too
        assert seen == [WORKER_THREADS] * 4
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0, "start-up's objects were not moved out of the collections"
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
