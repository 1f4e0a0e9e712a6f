"""What a server process sets once to serve many calls at once: worker threads and the garbage collector.

Both were found by profiling `memgate serve --transport http` under bench.load at 1, 32 and 128
calls in flight (docs/benchmarks.md, Load), as costs per call that grew with the calls in flight:

- Worker threads. Every database step of a request (the tenant gate, the step-up check, the
  provider's row read, the dispatcher's call) runs in one of anyio's worker threads and holds a
  pooled SQLite connection while it runs. The threads take turns at one GIL, and SQLite's module
  lets go of it around every statement step, so each thread added is another waiter at every
  hand-over: a futex wait and a context switch. The server's kernel time per call at 32 and 128
  calls in flight, one run per thread count (load 1.1-1.8): 1 thread 0.5 ms, 2 threads 0.8 ms,
  3 threads 1.1 ms, 4 threads 1.45 ms, 8 threads 2.0 ms, 40 threads (anyio's default) 5-10 ms;
  at 1 call in flight 0.35-0.5 ms for every count. So the default is 2 (server.worker_threads)
  and a call waits for a thread in the event loop. The price: two execute_query calls running
  to their deadline (caps.query_timeout_s) hold up the others until one ends; a database locked
  by another process does not (a read answers under the lock and its log row is held,
  toolbox/call_log_writer.py).
- The garbage collector. Each generation-0 collection walks every young object, and the objects
  of the calls in flight are young, so the collector's time per call grew from 0.18 ms at 1 call
  in flight to 1.0 ms at 128. `gc.freeze()` once the app is built moves what start-up made (the
  modules, schemas and the app) out of every later collection, and a generation-0 threshold of
  7,000 instead of 700 collects a tenth as often, each time about as much: 0.02 / 0.09 / 0.29 ms
  per call. The garbage a larger threshold lets wait is at most 7,000 small objects.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import anyio.to_thread

#: worker threads per server process by default (server.worker_threads): see the module's docstring
WORKER_THREADS = 2
#: gc.set_threshold: generation 0 every 7,000 net allocations (CPython's default 700), then 20 and 20 (10, 10)
GC_THRESHOLDS = (7000, 20, 20)

_gc_tuned = False


def tune_garbage_collector() -> None:
    """Once per process, after start-up: freeze what start-up made, collect generation 0 less often."""
    global _gc_tuned
    if _gc_tuned:
        return
    _gc_tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class ServeManyCalls:
    """Pure ASGI middleware around the app: on the first message of a serving loop (the lifespan's start,
    or the first request where no lifespan runs) it sets anyio's default thread limiter of the loop to
    `threads` (the limiter is one per event loop) and tunes the collector. Later messages of the same
    loop only compare the loop: reading anyio's limiter (a RunVar, through the async-library lookup)
    on every request cost more than the check is worth."""

    def __init__(self, app: Any, threads: int = WORKER_THREADS):
        self.app = app
        self.threads = threads
        self._loop: weakref.ref[asyncio.AbstractEventLoop] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        loop = _running_asyncio_loop()
        if loop is None or self._loop is None or self._loop() is not loop:
            limiter = anyio.to_thread.current_default_thread_limiter()
            if limiter.total_tokens != self.threads:
                limiter.total_tokens = self.threads
                tune_garbage_collector()
            self._loop = weakref.ref(loop) if loop is not None else None
        await self.app(scope, receive, send)


def _running_asyncio_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # another async library (anyio on trio): check the limiter every time
        return None
