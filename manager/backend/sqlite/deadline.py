"""A statement's deadline on its connection: checked between VM steps, backed by a watchdog.

The progress handler ends the statement at its first check past the deadline (every
PROGRESS_STEPS VM instructions, about 0.1 ms). A watchdog thread also calls interrupt()
at the deadline, for work that runs long between two checks. Neither reaches inside one
function call: function_costs.py and the connection's limits keep each call short.

The same handler can also run a `check` every `check_every_s` (temp_space.py's meter):
when it returns True the statement ends the same way, and the caller asks the check why.

The watchdog interrupts only while its statement runs: leaving the block disarms it under
a lock before the connection is used for anything else.
"""

from __future__ import annotations

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
        self._watchdog: threading.Timer | None = None

    @property
    def passed(self) -> bool:
        return time.monotonic() > self._at

    def __enter__(self) -> Deadline:
        start = time.monotonic()
        self._at = start + self._timeout_s
        self._next_check = start + self._check_every_s
        self._conn.set_progress_handler(self._progress if self._check else self._past, PROGRESS_STEPS)
        self._armed = True
        self._watchdog = threading.Timer(self._timeout_s, self._interrupt)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._armed = False
        if self._watchdog is not None:
            self._watchdog.cancel()
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
