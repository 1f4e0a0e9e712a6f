"""The vector leg's in-process cache: each scope's embeddings as an int8 matrix, re-scored exactly.

Reading every float32 blob from SQLite on every search costs far more than the arithmetic, so
the embeddings a caller's walled session returns are kept in memory, one matrix per what the
rows were filtered on: tenant, user, agent, thread (the wall), embedding model and dimension
(the statement). Lifecycle time, collection and document are kept per row and applied on each
search, so one matrix serves every filter. A matrix is only ever filled from the caller's own
walled session, so a key never holds a row its scope could not read.

Freshness comes from the database: every chunk write bumps the tenant's change counter in the
same transaction (migration 011), and each search reads it first; a matrix built at another
number is rebuilt. So a write by any process on the file is seen by the next search in every
other process.

Each row is stored as int8 codes and a scale (symmetric, per row): 100k x 256 takes 26 MB
instead of 102 MB. A search scores every row with exact integer dot products of the codes
(SimSIMD's int8 kernels; numpy when it is missing), which differ from the true cosine by at
most a bound known per row (the row's and the query's rounding errors). The best candidates
are then re-read as float32 from the database and scored exactly, together with every row
whose bound says it could still beat the `limit`-th exact score, so the result is the exact
leg's: the same rows, the same order, the same cosines.
"""

from __future__ import annotations

import bisect
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..base import ChunkFilters, Row
from . import kb

try:  # exact int8 dot products in SIMD; the numpy fallback gives the same integers, slower
    import simsimd
except ImportError:  # pragma: no cover - exercised through _int8_dots_numpy in the tests
    simsimd = None

__all__ = ["DEFAULT_CACHE_BYTES", "ScopeKey", "VectorCache", "search"]

#: the most bytes of matrices one backend keeps (least recently used go first): four scopes of 100k x 256
DEFAULT_CACHE_BYTES = 128 << 20
#: candidates re-scored exactly, at least, as a multiple of the rows asked for
_RESCORE_FACTOR = 2
#: rows quantized at a time while loading (bounds the float32 held at once)
_LOAD_BLOCK = 8192
#: slack for float32 rounding in the exact scores the bound is compared with
_EPSILON = 1e-5

Fetch = Callable[..., list[Row]]


@dataclass(frozen=True)
class ScopeKey:
    """What a matrix's rows were filtered on: the wall's scope and the statement's model and size."""

    tenant: str
    user: str | None
    agent: str | None
    thread: str | None
    model: str
    dims: int


@dataclass(frozen=True)
class _Labels:
    """A per-row text column as small integer codes (collection, document)."""

    codes: np.ndarray
    index: dict[str, int]

    @classmethod
    def of(cls, values: list[str]) -> "_Labels":
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32, count=len(values))
        return cls(codes, index)

    def mask(self, value: str) -> np.ndarray:
        code = self.index.get(value)
        return self.codes == code if code is not None else np.zeros(len(self.codes), dtype=bool)


@dataclass(frozen=True)
class _Times:
    """A per-row timestamp column (ISO text, which sorts as time) as ranks into its sorted distinct values."""

    ranks: np.ndarray  # -1 for NULL
    distinct: list[str]

    @classmethod
    def of(cls, values: list[str | None]) -> "_Times":
        distinct = sorted({v for v in values if v is not None})
        where = {v: i for i, v in enumerate(distinct)}
        ranks = np.fromiter((where[v] if v is not None else -1 for v in values), dtype=np.int32, count=len(values))
        return cls(ranks, distinct)

    def at_or_before(self, now: str) -> int:
        """Rows with a rank below this hold a time <= now."""
        return bisect.bisect_right(self.distinct, now)


@dataclass(frozen=True)
class Matrix:
    """One scope's embeddings at one change-counter value."""

    generation: int
    seqs: np.ndarray        # int64, ascending
    codes: np.ndarray       # int8 (n, dims)
    scales: np.ndarray      # float32: row ~ scale * codes
    errors: np.ndarray      # float32: |row - scale * codes|, rounded up
    norms: np.ndarray       # float32: |scale * codes|
    collections: _Labels
    documents: _Labels
    valid_from: _Times
    valid_until: _Times

    @cached_property
    def max_error(self) -> float:
        return float(self.errors.max()) if len(self.errors) else 0.0

    @cached_property
    def max_norm(self) -> float:
        return float(self.norms.max()) if len(self.norms) else 0.0

    @property
    def nbytes(self) -> int:
        arrays = (self.seqs, self.codes, self.scales, self.errors, self.norms, self.collections.codes,
                  self.documents.codes, self.valid_from.ranks, self.valid_until.ranks)
        return sum(a.nbytes for a in arrays)

    def visible(self, filters: ChunkFilters) -> np.ndarray | None:
        """Which rows the filters keep at `filters.now`; None when every row is kept."""
        mask = None

        def both(m: np.ndarray) -> np.ndarray:
            return m if mask is None else mask & m

        started = self.valid_from.at_or_before(filters.now)
        if started < len(self.valid_from.distinct):
            mask = both(self.valid_from.ranks < started)
        if self.valid_until.distinct:
            ended = self.valid_until.at_or_before(filters.now)
            mask = both((self.valid_until.ranks < 0) | (self.valid_until.ranks >= ended))
        if filters.collection is not None:
            mask = both(self.collections.mask(filters.collection))
        if filters.document_id is not None:
            mask = both(self.documents.mask(filters.document_id))
        return mask


def quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """int8 codes, scales, rounding errors (rounded up) and code norms of float32 rows."""
    rows = np.asarray(rows, dtype=np.float32)
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), dtype=np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.clip(np.rint(rows / scales[:, None]), -127, 127).astype(np.int8)
    approx = codes.astype(np.float64) * scales[:, None].astype(np.float64)
    errors = np.linalg.norm(rows.astype(np.float64) - approx, axis=1)
    norms = np.linalg.norm(approx, axis=1)
    return codes, scales, np.nextafter(errors.astype(np.float32), np.float32(np.inf)), norms.astype(np.float32)


def _int8_dots_numpy(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    out = np.empty(len(codes), dtype=np.float64)
    q = query.astype(np.int32)
    for start in range(0, len(codes), _LOAD_BLOCK):
        out[start:start + _LOAD_BLOCK] = codes[start:start + _LOAD_BLOCK].astype(np.int32) @ q
    return out


def int8_dots(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Exact integer dot products of each int8 row with an int8 query, as float64."""
    if not len(codes):
        return np.zeros(0, dtype=np.float64)
    if simsimd is None:
        return _int8_dots_numpy(codes, query)
    return np.asarray(simsimd.cdist(query[None, :], codes, metric="dot", dtype="int8"), dtype=np.float64)[0]


def load(fetch_rows, generation: int, model: str, dims: int) -> Matrix:
    """Build a scope's matrix from the caller's walled session, a block of rows at a time."""
    seqs: list[int] = []
    collections: list[str] = []
    documents: list[str] = []
    starts: list[str] = []
    ends: list[str | None] = []
    parts: list[tuple[np.ndarray, ...]] = []
    cursor = fetch_rows("kb_vector_rows", model=model, bytes=4 * dims)
    while block := cursor.fetchmany(_LOAD_BLOCK):
        seqs += [r[0] for r in block]
        collections += [r[2] for r in block]
        documents += [r[3] for r in block]
        starts += [r[4] for r in block]
        ends += [r[5] for r in block]
        floats = np.frombuffer(b"".join(r[1] for r in block), dtype="<f4").reshape(len(block), dims)
        parts.append(quantize(floats))
    cursor.close()

    def joined(i: int, dtype, shape) -> np.ndarray:
        return np.concatenate([p[i] for p in parts]) if parts else np.zeros(shape, dtype=dtype)

    return Matrix(generation=generation, seqs=np.asarray(seqs, dtype=np.int64),
                  codes=joined(0, np.int8, (0, dims)), scales=joined(1, np.float32, 0),
                  errors=joined(2, np.float32, 0), norms=joined(3, np.float32, 0),
                  collections=_Labels.of(collections), documents=_Labels.of(documents),
                  valid_from=_Times.of(starts), valid_until=_Times.of(ends))


class VectorCache:
    """Matrices by ScopeKey, least recently used dropped past `max_bytes`. Thread-safe."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[ScopeKey, Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: ScopeKey, generation: int) -> Matrix | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.generation != generation:
                return None
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

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(m.nbytes for m in self._entries.values())


def search(cache: VectorCache, scope: tuple[str, str | None, str | None, str | None], fetch_one: Fetch,
           fetch_all: Fetch, fetch_rows, query: np.ndarray, model: str, limit: int,
           filters: ChunkFilters) -> list[tuple[int, float]]:
    """The vector leg through the cache: up to `limit` (seq, cosine) best first, cosine > 0, exact.

    `fetch_one`/`fetch_all` run named statements on the caller's walled session; `fetch_rows`
    does too and returns the cursor (rows are read a block at a time).
    """
    dims = int(query.shape[0])
    key = ScopeKey(*scope, model=model, dims=dims)
    generation = int(fetch_one("kb_generation")["generation"])  # read before the rows: never stale
    matrix = cache.get(key, generation)
    if matrix is None:
        matrix = load(fetch_rows, generation, model, dims)
        cache.put(key, matrix)
    if not len(matrix.seqs) or limit <= 0:
        return []
    mask = matrix.visible(filters)
    candidates = np.arange(len(matrix.seqs)) if mask is None else np.flatnonzero(mask)
    if not len(candidates):
        return []

    peak = float(np.abs(query).max())
    query_scale = peak / 127.0
    query_codes = np.clip(np.rint(query / query_scale), -127, 127).astype(np.int8)
    query_error = float(np.linalg.norm(query.astype(np.float64) - query_codes * query_scale))
    query_norm = float(np.linalg.norm(query.astype(np.float64)))

    dots = int8_dots(matrix.codes, query_codes)  # every row: cheaper than copying the visible ones out
    if mask is None:
        approx = dots * matrix.scales * query_scale
    else:
        approx = dots[candidates] * matrix.scales[candidates] * query_scale

    first = min(len(candidates), max(_RESCORE_FACTOR * limit, limit + 32))
    top = np.argpartition(-approx, first - 1)[:first] if first < len(candidates) else np.arange(len(candidates))
    exact = _exact(fetch_all, matrix.seqs[candidates[top]], query, model, dims)
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
    exact += _exact(fetch_all, matrix.seqs[candidates[more]], query, model, dims)
    return kb.rank_by_cosine(exact, query, limit)


def _exact(fetch_all: Fetch, seqs: np.ndarray, query: np.ndarray, model: str, dims: int) -> list[Row]:
    rows = []
    for start in range(0, len(seqs), 4096):  # bounds the JSON list per statement
        part = [int(s) for s in seqs[start:start + 4096]]
        rows += fetch_all("kb_vector_exact", seqs=json.dumps(part), model=model, bytes=4 * dims)
    return rows
