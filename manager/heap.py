"""How the C heap holds a long-running server's memory: fewer malloc arenas, free pages given back.

glibc gives each new thread its own malloc arena (up to 8 per core) and keeps what a thread
frees in that thread's arena. A server builds large passing things once, in whichever thread
runs the call: tiktoken's Encoding from a 200k-entry dict (tokens.py), a vector matrix from
blocks of blobs and float copies (vector_matrix.py). Their freed memory then stays in RSS as
free heap that other threads' arenas never reuse. `limit_arenas` makes the threads share
`count` arenas (set before the server starts its threads; glibc's own MALLOC_ARENA_MAX wins when
set), and `release_free_heap` returns every whole free page of every arena to the system after
such a build (it walks the arenas: milliseconds, so only after those rare builds). Where the C
library is not glibc (musl, macOS) both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading

__all__ = ["SERVER_ARENAS", "limit_arenas", "release_free_heap"]

#: malloc arenas a server's threads share (glibc's M_ARENA_MAX): one held 6 MB less at its peak but,
#: with fastmcp 4.1.6, cost ~40% more CPU per call under load (docs/benchmarks.md, "Server memory")
SERVER_ARENAS = 2
_M_ARENA_MAX = -8  # glibc's malloc.h

_lock = threading.Lock()
_libc: list = []  # [the C library when it is glibc, else None], looked up once


def _glibc():
    with _lock:
        if not _libc:
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
                libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
            except (OSError, AttributeError):
                libc = None
            _libc.append(libc)
        return _libc[0]


def release_free_heap() -> bool:
    """Return the C heap's free pages to the system; False where the C library has no malloc_trim."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def limit_arenas(count: int = SERVER_ARENAS) -> bool:
    """Let the threads created from now on share `count` malloc arenas, unless MALLOC_ARENA_MAX says
    otherwise; False where nothing was set."""
    libc = _glibc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, count))
