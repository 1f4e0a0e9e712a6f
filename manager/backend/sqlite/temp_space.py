"""The temporary disk execute_query's SQLite queries hold, and the two caps on it.

A query that sorts or de-duplicates many rows (ORDER BY, GROUP BY, DISTINCT,
count(DISTINCT ...), a materialised subquery) makes SQLite spill to unnamed temp files
(`etilqs_*` in SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp or /tmp), unlinked as soon as
they are opened and freed when the statement ends. Unbounded, one call filled the disk at
about 330 MB/s until its deadline, and a full disk breaks every tenant's writes.

The mechanism: the deadline's progress handler (deadline.py) calls `TempMeter.over()`
every CHECK_EVERY_S while the statement runs. It lists the process's open SQLite temp
files (/proc/self/fd: an unlinked file is still there, with its size), claims for its
query each one that appeared since the query started and no other query claimed, and
stops the query when its own files pass `query_bytes`, or when all of them (every
query's, and any other connection's) pass `total_bytes` while it holds some.
Between two checks a query writes at most a few MB (measured: see docs/operations.md).
A check lists the files only when the query's thread wrote something since the last one
(`wchar` in /proc/thread-self/io): the connection is read-only, so all it writes is
temp files, and a query that spills nothing costs one small read per check.

Why not SQLite's other controls:
- `PRAGMA temp_store=MEMORY` moves the spill into the heap (measured +530 MB RSS in 3 s
  for count(DISTINCT ...)): a full disk becomes an out-of-memory kill.
- `temp.max_page_count` bounds the temp schema (the reviewed TEMP views), not the
  sorter's files or a DISTINCT's ephemeral table, which have pagers of their own.
- A temp directory with a quota: SQLite reads its temp directory once per process, so it
  cannot be one per query.

Attribution: the kernel does not say which thread opened a file, so when several queries
spill at once, a file is its first claimer's. Each query still stops at the process
total; a file claimed by a query that ended is claimed again by the next check that sees
it. Where /proc/self/fd does not exist (not Linux), nothing is measured and the caps do
not hold; `available` says so, and the backend logs it once.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CHECK_EVERY_S", "TEMP_FILE_PREFIX", "TempCaps", "TempLedger", "TempMeter", "ledger", "thread_written"]

#: seconds between two looks at the temp files while a query runs
CHECK_EVERY_S = 0.02
#: how SQLite's unix VFS names its temp files (os_unix.c, unixGetTempname)
TEMP_FILE_PREFIX = "etilqs_"
MB = 1024 * 1024
_THREAD_IO = "/proc/thread-self/io"
_OWN_FDS = Path("/proc/self/fd")


def thread_written() -> int | None:
    """Bytes the calling thread has written (write and pwrite calls), or None where Linux does not say."""
    try:
        with open(_THREAD_IO, "rb") as io:
            for line in io:
                if line.startswith(b"wchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


@dataclass(frozen=True, slots=True)
class TempCaps:
    """caps.query_temp_mb and caps.query_temp_total_mb, in bytes."""

    query_bytes: int = 256 * MB
    total_bytes: int = 1024 * MB


@dataclass(frozen=True, slots=True)
class TempStop:
    """Why a query was stopped: which cap (`query` or `total`), its size, and the figures seen."""

    cap: str
    cap_bytes: int
    query_bytes: int
    total_bytes: int

    @property
    def cap_mb(self) -> int:
        return self.cap_bytes // MB


class TempLedger:
    """The process's SQLite temp files and which running query claimed each (one per process)."""

    def __init__(self, fd_dir: Path = _OWN_FDS):
        self._fd_dir = fd_dir
        self._lock = threading.Lock()
        self._claims: dict[tuple[int, int], TempMeter] = {}
        self.available = fd_dir.is_dir()

    def files(self) -> dict[tuple[int, int], int]:
        """Every open SQLite temp file of the process: (device, inode) -> size in bytes."""
        found: dict[tuple[int, int], int] = {}
        if not self.available:
            return found
        try:
            fds = os.listdir(self._fd_dir)
        except OSError:
            return found
        own = self._fd_dir == _OWN_FDS
        for fd in fds:
            path = self._fd_dir / fd
            try:
                # The process's own descriptors: one fstat each, and only an unlinked regular file
                # (nlink 0: SQLite unlinks its temp files as it opens them) is looked at by name.
                # Reading every link by name cost 1.5 ms at 180 descriptors (a server with 128
                # calls in flight holds that many sockets), on every execute_query.
                st = os.fstat(int(fd)) if own else os.stat(path)
                if own and (st.st_nlink or not stat.S_ISREG(st.st_mode)):
                    continue
                if not os.path.basename(os.readlink(path)).startswith(TEMP_FILE_PREFIX):
                    continue
            except (OSError, ValueError):  # closed meanwhile
                continue
            found[(st.st_dev, st.st_ino)] = st.st_size
        return found

    def meter(self, caps: TempCaps) -> TempMeter:
        """A meter for one query; use it as a context manager around the statement."""
        return TempMeter(self, caps)

    def _account(self, meter: TempMeter) -> tuple[int, int]:
        """Claim what is new and unclaimed for `meter`; its bytes and the process's."""
        files = self.files()
        with self._lock:
            for key in list(self._claims):
                if key not in files:
                    del self._claims[key]
            mine = 0
            for key, size in files.items():
                if key in meter.before:
                    continue
                owner = self._claims.setdefault(key, meter)
                if owner is meter:
                    mine += size
        return mine, sum(files.values())

    def _release(self, meter: TempMeter) -> None:
        with self._lock:
            for key in [k for k, m in self._claims.items() if m is meter]:
                del self._claims[key]


@dataclass(eq=False)
class TempMeter:
    """One query's temp files against its caps; `stopped` says why it was stopped, if it was."""

    ledger: TempLedger
    caps: TempCaps
    before: frozenset[tuple[int, int]] = frozenset()
    stopped: TempStop | None = None
    peak_bytes: int = 0  # the most this query was seen to hold
    checks: int = field(default=0)
    scans: int = field(default=0)  # checks that listed the files
    _written: int | None = None

    def __enter__(self) -> TempMeter:
        # files open before the query started are another connection's, never this one's
        self.before = frozenset(self.ledger.files())
        self._written = thread_written()
        return self

    def __exit__(self, *exc: object) -> None:
        self.ledger._release(self)

    def over(self) -> bool:
        """True when the query passed a cap (and `stopped` says which); called between VM steps."""
        self.checks += 1
        written = thread_written()
        if written is not None and written == self._written:
            return False  # nothing written since the last look: this query's files did not grow
        self._written = written
        self.scans += 1
        mine, total = self.ledger._account(self)
        self.peak_bytes = max(self.peak_bytes, mine)
        if mine > self.caps.query_bytes:
            self.stopped = TempStop("query", self.caps.query_bytes, mine, total)
        elif mine and total > self.caps.total_bytes:
            self.stopped = TempStop("total", self.caps.total_bytes, mine, total)
        return self.stopped is not None


#: the process's ledger: the total cap is across every query of this server process
ledger = TempLedger()
