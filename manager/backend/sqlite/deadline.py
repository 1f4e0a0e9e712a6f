"""A statement's deadline on its connection: checked between VM steps, backed by a watchdog.

The progress handler ends the statement at its first check past the deadline (every
PROGRESS_STEPS VM instructions, about 0.1 ms). A watchdog thread also calls interrupt()
at the deadline, for work that runs long between two checks. Neither reaches inside one
function call: function_costs.py and the connection's limits keep each call short.

The same handler can also run a `check` every `check_every_s` (temp_space.py's meter):
when it returns True the statement ends the same way, and the caller asks the check why.

The watchdog interrupts only while its statement runs: leaving the block disarms it under
a lock before the connection is used for anything else. One watchdog thread serves every
statement of the process (a heap of deadlines): a thread started per statement cost a thread
start on every execute_query, and under load the start waited for the new thread to get the
GIL, a wait that grew with the calls in flight (docs/benchmarks.md, Load).
"""

from __future__ import annotations

import heapq
import itertools
import sqlite3
import threading
import time
from collections.abc import Callable

__all__ = ["PROGRESS_STEPS", "Deadline"]

#: VM instructions between two deadline checks (datasette uses 1000 too)
PROGRESS_STEPS = 1000


class Deadline:
    """`with Deadline(conn, timeout_s) as d:` run one statement; `d.passed` says if time ran out."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        timeout_s: float,
        check: Callable[[], bool] | None = None,
        check_every_s: float = 0.02,
    ):
        self._conn = conn
        self._timeout_s = timeout_s
        self._check = check
        self._check_every_s = check_every_s
        self._next_check = 0.0
        self._at = 0.0
        self._armed = False
        self._lock = threading.Lock()

    @property
    def passed(self) -> bool:
        return time.monotonic() > self._at

    def __enter__(self) -> Deadline:
        start = time.monotonic()
        self._at = start + self._timeout_s
        self._next_check = start + self._check_every_s
        self._conn.set_progress_handler(self._progress if self._check else self._past, PROGRESS_STEPS)
        self._armed = True
        _WATCHDOG.arm(self._at, self)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._armed = False
        self._conn.set_progress_handler(None, 0)

    def _past(self) -> int:
        return int(time.monotonic() > self._at)

    def _progress(self) -> int:
        now = time.monotonic()
        if now > self._at:
            return 1
        if now >= self._next_check and self._check is not None:
            self._next_check = now + self._check_every_s
            return int(self._check())
        return 0

    def _interrupt(self) -> None:
        with self._lock:
            if self._armed:
                self._conn.interrupt()


class _Watchdog:
    """One daemon thread that calls each armed deadline's `_interrupt` when its time comes.

    A disarmed deadline stays in the heap until its time and is then dropped unread
    (`_interrupt` does nothing once `__exit__` has disarmed it).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, at: float, deadline: Deadline) -> None:
        with self._cond:
            entry = (at, next(self._order), deadline)
            heapq.heappush(self._heap, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="memgate-query-deadlines", daemon=True)
                self._thread.start()
            elif self._heap[0] is entry:
                self._cond.notify()  # earlier than what the thread sleeps until

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                while self._heap and self._heap[0][0] <= now:
                    heapq.heappop(self._heap)[2]._interrupt()
                self._cond.wait(self._heap[0][0] - now if self._heap else None)


_WATCHDOG = _Watchdog()
