"""The vector leg's in-process cache: each scope's embeddings as an int8 matrix, re-scored exactly.

Reading every float32 blob from SQLite on every search costs far more than the arithmetic, so
the embeddings a caller's walled session returns are kept in memory, one matrix per what the
rows were filtered on: tenant, user, agent, thread (the wall), embedding model and dimension
(the statement). Lifecycle time, collection and document are kept per row and applied on each
search, so one matrix serves every filter. A matrix is only ever filled from the caller's own
walled session, so a key never holds a row its scope could not read.

Freshness comes from the database: every chunk write bumps the tenant's change counters in the
same transaction (migration 011), and each search reads them first. A matrix built at another
`rewrites` (an update, a delete, an insert that is not an append) is rebuilt; one that only
lacks appended chunks reads those by seq and grows. So a write by any process on the file is
seen by the next search in every other process, and ingest does not cost a full reload.

Two sources share it (VectorSource): knowledge-base chunks, and conversation recall rows (turns and
summaries, base_conversation_recall), each with its own statements and change counters. Recall rows
have no thread scope, so one matrix serves all of a user's threads.

Each row is stored as int8 codes and a scale (symmetric, per row), in blocks (vector_matrix.py):
100k x 256 takes 26 MB instead of 102 MB. A search scores every row with exact integer dot
products of the codes (SimSIMD's int8 kernels; numpy when it is missing), which differ from the true cosine by at
most a bound known per row (the row's and the query's rounding errors). The best candidates
are then re-read as float32 from the database and scored exactly, together with every row
whose bound says it could still beat the `limit`-th exact score, so the result is the exact
leg's: the same rows, the same order, the same cosines.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...heap import release_free_heap
from ..base import ChunkFilters, Row
from . import kb
from .vector_matrix import DEFAULT_BLOCK_ROWS, Matrix, appended, load

try:  # exact int8 dot products in SIMD; the numpy fallback gives the same integers, slower
    import simsimd
except ImportError:  # pragma: no cover - exercised through _int8_dots_numpy in the tests
    simsimd = None

__all__ = ["DEFAULT_CACHE_BYTES", "KB", "RECALL", "ScopeKey", "VectorCache", "VectorSource", "search"]

#: the most bytes of matrices one backend keeps (least recently used go first): four scopes of 100k x 256
DEFAULT_CACHE_BYTES = 128 << 20
#: candidates re-scored exactly, at least, as a multiple of the rows asked for
_RESCORE_FACTOR = 2
#: rows scored at a time by the numpy fallback (bounds its int32 copy)
_DOTS_BLOCK = 8192
#: slack for float32 rounding in the exact scores the bound is compared with
_EPSILON = 1e-5

Fetch = Callable[..., list[Row]]


@dataclass(frozen=True)
class VectorSource:
    """A table the cache serves: its change counters, its rows after a seq, its rows by seq, and which rows
    of a matrix a search's filters keep."""

    name: str
    generation: str
    rows: str
    exact: str
    #: whether the rows carry a thread scope (a chunk may; a recall row never: one matrix per user and agent)
    threaded: bool
    visible: Callable[[Matrix, Any], np.ndarray | None]


def _recall_visible(matrix: Matrix, filters: Any) -> np.ndarray | None:
    """Recall rows the policy keeps (backend/base.py RecallFilters): the owner label is `user\x1fagent`."""
    user, agent = filters.user or "", filters.agent or ""
    if filters.any_agent:
        mask = matrix.collections.mask(lambda label: label.split("\x1f", 1)[0] == user)
    else:
        mask = matrix.collections.mask(f"{user}\x1f{agent}")
    if filters.conversation is not None:
        mask = mask & matrix.documents.mask(filters.conversation)
    return mask


#: knowledge-base chunks: lifetime, collection and document per search
KB = VectorSource("kb", "kb_generation", "kb_vector_rows", "kb_vector_exact", True, lambda m, f: m.visible(f))
#: conversation recall rows: owner (user and agent) and conversation per search
RECALL = VectorSource(
    "recall", "recall_generation", "recall_vector_rows", "recall_vector_exact", False, _recall_visible
)


@dataclass(frozen=True)
class ScopeKey:
    """What a matrix's rows were filtered on: the source, the wall's scope and the statement's model and size."""

    tenant: str
    user: str | None
    agent: str | None
    thread: str | None
    model: str
    dims: int
    source: str = "kb"


def _int8_dots_numpy(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    out = np.empty(len(codes), dtype=np.float64)
    q = query.astype(np.int32)
    for start in range(0, len(codes), _DOTS_BLOCK):
        out[start : start + _DOTS_BLOCK] = codes[start : start + _DOTS_BLOCK].astype(np.int32) @ q
    return out


def int8_dots(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Exact integer dot products of each int8 row with an int8 query, as float64."""
    if not len(codes):
        return np.zeros(0, dtype=np.float64)
    if simsimd is None:
        return _int8_dots_numpy(codes, query)
    return np.asarray(simsimd.cdist(query[None, :], codes, metric="dot", dtype="int8"), dtype=np.float64)[0]


class VectorCache:
    """Matrices by ScopeKey, least recently used dropped past `max_bytes`. Thread-safe.
    `block_rows`: rows per block of a matrix's codes, and rows read from the database at a time."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES, block_rows: int = DEFAULT_BLOCK_ROWS):
        self.max_bytes = max_bytes
        self.block_rows = block_rows
        self._entries: OrderedDict[ScopeKey, Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: ScopeKey) -> Matrix | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: ScopeKey, matrix: Matrix) -> None:
        with self._lock:
            self._entries.pop(key, None)
            if matrix.nbytes > self.max_bytes:
                return
            self._entries[key] = matrix
            while sum(m.nbytes for m in self._entries.values()) > self.max_bytes:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def forget_tenant(self, tenant: str) -> None:
        """Drop every matrix of `tenant` (after an erasure: its embeddings leave memory now, not at the
        next search's change check)."""
        with self._lock:
            for key in [k for k in self._entries if k.tenant == tenant]:
                del self._entries[key]

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(m.nbytes for m in self._entries.values())


def search(
    cache: VectorCache,
    scope: tuple[str, str | None, str | None, str | None],
    fetch_one: Fetch,
    fetch_all: Fetch,
    fetch_rows,
    query: np.ndarray,
    model: str,
    limit: int,
    filters: ChunkFilters | Any,
    source: VectorSource = KB,
) -> list[tuple[int, float]]:
    """The vector leg through the cache: up to `limit` (seq, cosine) best first, cosine > 0, exact.

    `fetch_one`/`fetch_all` run named statements on the caller's walled session; `fetch_rows`
    does too and returns the cursor (rows are read a block at a time).
    """
    dims = int(query.shape[0])
    tenant, user, agent, thread = scope
    key = ScopeKey(tenant, user, agent, thread if source.threaded else None, model=model, dims=dims, source=source.name)
    counters = fetch_one(source.generation)  # read before the rows: never stale
    generation, rewrites = int(counters["generation"]), int(counters["rewrites"])
    matrix = cache.get(key)
    if matrix is None or matrix.rewrites != rewrites:
        matrix = load(fetch_rows, generation, rewrites, model, dims, cache.block_rows, source.rows)
        cache.put(key, matrix)
        release_free_heap()  # the load's reads are free heap now; the matrix stays
    elif matrix.generation != generation:  # only appends since it was built
        matrix = appended(matrix, fetch_rows, generation, model, dims, cache.block_rows, source.rows)
        cache.put(key, matrix)
    if not len(matrix.seqs) or limit <= 0:
        return []
    mask = source.visible(matrix, filters)
    candidates = np.arange(len(matrix.seqs)) if mask is None else np.flatnonzero(mask)
    if not len(candidates):
        return []

    peak = float(np.abs(query).max())
    query_scale = peak / 127.0
    query_codes = np.clip(np.rint(query / query_scale), -127, 127).astype(np.int8)
    query_error = float(np.linalg.norm(query.astype(np.float64) - query_codes * query_scale))
    query_norm = float(np.linalg.norm(query.astype(np.float64)))

    dots = np.empty(len(matrix.seqs), dtype=np.float64)  # every row: cheaper than copying the visible ones out
    start = 0
    for block in matrix.blocks:
        dots[start : start + len(block)] = int8_dots(block, query_codes)
        start += len(block)
    if mask is None:
        approx = dots * matrix.scales * query_scale
    else:
        approx = dots[candidates] * matrix.scales[candidates] * query_scale

    first = min(len(candidates), max(_RESCORE_FACTOR * limit, limit + 32))
    top = np.argpartition(-approx, first - 1)[:first] if first < len(candidates) else np.arange(len(candidates))
    exact = _exact(fetch_all, matrix.seqs[candidates[top]], query, model, dims, source.exact)
    scored = kb.rank_by_cosine(exact, query, limit)
    # The limit-th best exact cosine so far; no row outside `top` can beat it unless its upper
    # bound reaches it (cosine > 0 is the leg's floor when fewer than `limit` rows are positive).
    threshold = scored[-1][1] if len(scored) == limit else 0.0
    # Rows that could still reach it: first by the largest bound of any row (one pass), then by their own.
    widest = float(matrix.max_error) * query_norm + float(matrix.max_norm) * query_error + _EPSILON
    chosen = np.zeros(len(candidates), dtype=bool)
    chosen[top] = True
    more = np.flatnonzero(~chosen & (approx >= threshold - widest))
    if len(more):
        rows = candidates[more]
        bound = matrix.errors[rows] * query_norm + matrix.norms[rows] * query_error + _EPSILON
        more = more[approx[more] + bound >= threshold]
    if not len(more):
        return scored
    exact += _exact(fetch_all, matrix.seqs[candidates[more]], query, model, dims, source.exact)
    return kb.rank_by_cosine(exact, query, limit)


def _exact(fetch_all: Fetch, seqs: np.ndarray, query: np.ndarray, model: str, dims: int, statement: str) -> list[Row]:
    rows = []
    for start in range(0, len(seqs), 4096):  # bounds the JSON list per statement
        part = [int(s) for s in seqs[start : start + 4096]]
        rows += fetch_all(statement, seqs=json.dumps(part), model=model, bytes=4 * dims)
    return rows
