"""Writes each call's mcp_call_log row, and holds the rows the database cannot take now.

A row the database cannot take (another writer held the lock past the busy timeout) is held
in memory, said at ERROR in the operator log, and written before a later call's row. Held rows
die with the process: each one's call id, tool and status are in the operator log line that
held it.

While rows are held, one call at a time tries to write them (and its own); the calls that come
meanwhile hold their rows at once. Without that, every call spent a whole busy timeout in a
worker thread on a lock another call was already waiting for, and with few worker threads
(server.worker_threads) a database locked by another process queued every call behind those
waits, readers included. The first call after the lock goes writes every held row.
"""

from __future__ import annotations

import logging
import threading
from collections import deque

from memgate.manager import CallRecord, DatabaseBusy, Identity, MemoryManager

log = logging.getLogger("memgate.toolbox")

#: call-log rows held while the database cannot take them; past this the oldest is dropped, CRITICAL
HELD_ROWS_LIMIT = 1000


class CallLogWriter:
    def __init__(self, manager: MemoryManager):
        self.manager = manager
        self._held: deque[tuple[Identity, CallRecord]] = deque()
        self._lock = threading.Lock()
        #: a call is writing the held rows (and waiting for the database while it is locked)
        self._flushing = False

    def write(self, identity: Identity, record: CallRecord) -> None:
        """Write the row (held rows first), or hold it; never raises: the call's outcome stands."""
        with self._lock:
            another_waits = bool(self._held) and self._flushing
            flushing = bool(self._held) and not another_waits
            if flushing:
                self._flushing = True
        if another_waits:
            self.hold(identity, record, "another call is waiting for the database to write the held rows")
            return
        try:
            self._write(identity, record)
        except DatabaseBusy as exc:
            self.hold(identity, record, exc.message)
        except Exception:  # a lost log row must be loud
            log.critical("could not write mcp_call_log row for call %s", record.call_id, exc_info=True)
        finally:
            if flushing:
                with self._lock:
                    self._flushing = False

    def _write(self, identity: Identity, record: CallRecord) -> None:
        """Held rows first, oldest first, then this one; DatabaseBusy when the database still cannot."""
        while True:
            with self._lock:
                if not self._held:
                    break
                held_identity, held = self._held.popleft()
            try:
                self.manager.log_call(held_identity, held)
            except DatabaseBusy:
                with self._lock:
                    self._held.appendleft((held_identity, held))
                raise
            except Exception:
                log.critical(
                    "could not write held mcp_call_log row for call %s; it is lost", held.call_id, exc_info=True
                )
            else:
                log.warning(
                    "wrote held mcp_call_log row for call %s (%s, %s)", held.call_id, held.tool_name, held.status
                )
        self.manager.log_call(identity, record)

    def hold(self, identity: Identity, record: CallRecord, why: str) -> None:
        with self._lock:
            self._held.append((identity, record))
            dropped = self._held.popleft() if len(self._held) > HELD_ROWS_LIMIT else None
        log.error(
            "mcp_call_log row for call %s (%s, %s, tenant %s) is held until the database takes writes: %s",
            record.call_id,
            record.tool_name,
            record.status,
            identity.tenant,
            why,
        )
        if dropped is not None:
            log.critical(
                "more than %d mcp_call_log rows held: the row for call %s (%s, %s) is lost",
                HELD_ROWS_LIMIT,
                dropped[1].call_id,
                dropped[1].tool_name,
                dropped[1].status,
            )
