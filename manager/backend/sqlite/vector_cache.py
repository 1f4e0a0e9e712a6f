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
    def of(cls, values: list[str]) -> _Labels:
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32, count=len(values))
        return cls(codes, index)

    def extended(self, values: list[str]) -> _Labels:
        index = dict(self.index)
        more = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32, count=len(values))
        return _Labels(np.concatenate([self.codes, more]), index)

    def mask(self, value: str) -> np.ndarray:
        code = self.index.get(value)
        return self.codes == code if code is not None else np.zeros(len(self.codes), dtype=bool)


@dataclass(frozen=True)
class _Times:
    """A per-row timestamp column (ISO text, which sorts as time) as ranks into its sorted distinct values."""

    ranks: np.ndarray  # -1 for NULL
    distinct: list[str]

    @classmethod
    def of(cls, values: list[str | None]) -> _Times:
        distinct = sorted({v for v in values if v is not None})
        where = {v: i for i, v in enumerate(distinct)}
        ranks = np.fromiter((where[v] if v is not None else -1 for v in values), dtype=np.int32, count=len(values))
        return cls(ranks, distinct)

    def extended(self, values: list[str | None]) -> _Times:
        distinct = sorted(set(self.distinct).union(v for v in values if v is not None))
        where = {v: i for i, v in enumerate(distinct)}
        moved = np.fromiter((where[v] for v in self.distinct), dtype=np.int32, count=len(self.distinct))
        old = np.where(self.ranks >= 0, moved[np.maximum(self.ranks, 0)] if len(moved) else -1, -1)
        more = np.fromiter((where[v] if v is not None else -1 for v in values), dtype=np.int32, count=len(values))
        return _Times(np.concatenate([old.astype(np.int32), more]), distinct)

    def at_or_before(self, now: str) -> int:
        """Rows with a rank below this hold a time <= now."""
        return bisect.bisect_right(self.distinct, now)


@dataclass(frozen=True)
class Matrix:
    """One scope's embeddings at one value of the tenant's change counters."""

    generation: int
    rewrites: int
    seqs: np.ndarray  # int64, ascending
    codes: np.ndarray  # int8 (n, dims)
    scales: np.ndarray  # float32: row ~ scale * codes
    errors: np.ndarray  # float32: |row - scale * codes|, rounded up
    norms: np.ndarray  # float32: |scale * codes|
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
        arrays = (
            self.seqs,
            self.codes,
            self.scales,
            self.errors,
            self.norms,
            self.collections.codes,
            self.documents.codes,
            self.valid_from.ranks,
            self.valid_until.ranks,
        )
        return sum(a.nbytes for a in arrays)

    def visible(self, filters: ChunkFilters) -> np.ndarray | None:
        """Which rows the filters keep at `filters.now`; None when every row is kept."""
        mask = None

        def both(m: np.ndarray) -> np.ndarray:
            return m if mask is None else mask & m

        started = self.valid_from.at_or_before(filters.now)
        if started < len(self.valid_from.distinct):
            mask = both(self.valid_from.ranks < started)
        if self.valid_until.distinct and not filters.include_ended:
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
        out[start : start + _LOAD_BLOCK] = codes[start : start + _LOAD_BLOCK].astype(np.int32) @ q
    return out


def int8_dots(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Exact integer dot products of each int8 row with an int8 query, as float64."""
    if not len(codes):
        return np.zeros(0, dtype=np.float64)
    if simsimd is None:
        return _int8_dots_numpy(codes, query)
    return np.asarray(simsimd.cdist(query[None, :], codes, metric="dot", dtype="int8"), dtype=np.float64)[0]


@dataclass
class _Rows:
    """Rows read for a matrix, quantized a block at a time."""

    seqs: list[int]
    collections: list[str]
    documents: list[str]
    starts: list[str]
    ends: list[str | None]
    parts: list[tuple[np.ndarray, ...]]

    def joined(self, i: int, dtype, shape) -> np.ndarray:
        return np.concatenate([p[i] for p in self.parts]) if self.parts else np.zeros(shape, dtype=dtype)


def _read(fetch_rows, model: str, dims: int, after: int) -> _Rows:
    rows = _Rows([], [], [], [], [], [])
    cursor = fetch_rows("kb_vector_rows", model=model, bytes=4 * dims, after=after)
    while block := cursor.fetchmany(_LOAD_BLOCK):
        rows.seqs += [r[0] for r in block]
        rows.collections += [r[2] for r in block]
        rows.documents += [r[3] for r in block]
        rows.starts += [r[4] for r in block]
        rows.ends += [r[5] for r in block]
        floats = np.frombuffer(b"".join(r[1] for r in block), dtype="<f4").reshape(len(block), dims)
        rows.parts.append(quantize(floats))
    cursor.close()
    return rows


def load(fetch_rows, generation: int, rewrites: int, model: str, dims: int) -> Matrix:
    """Build a scope's matrix from the caller's walled session, a block of rows at a time."""
    rows = _read(fetch_rows, model, dims, 0)
    return Matrix(
        generation=generation,
        rewrites=rewrites,
        seqs=np.asarray(rows.seqs, dtype=np.int64),
        codes=rows.joined(0, np.int8, (0, dims)),
        scales=rows.joined(1, np.float32, 0),
        errors=rows.joined(2, np.float32, 0),
        norms=rows.joined(3, np.float32, 0),
        collections=_Labels.of(rows.collections),
        documents=_Labels.of(rows.documents),
        valid_from=_Times.of(rows.starts),
        valid_until=_Times.of(rows.ends),
    )


def appended(matrix: Matrix, fetch_rows, generation: int, model: str, dims: int) -> Matrix:
    """`matrix` with the chunks appended since it was built (only appends happened: same `rewrites`)."""
    after = int(matrix.seqs[-1]) if len(matrix.seqs) else 0
    rows = _read(fetch_rows, model, dims, after)

    def grown(old: np.ndarray, i: int, dtype, shape) -> np.ndarray:
        return np.concatenate([old, rows.joined(i, dtype, shape)]) if rows.parts else old

    return Matrix(
        generation=generation,
        rewrites=matrix.rewrites,
        seqs=np.concatenate([matrix.seqs, np.asarray(rows.seqs, dtype=np.int64)]),
        codes=grown(matrix.codes, 0, np.int8, (0, dims)),
        scales=grown(matrix.scales, 1, np.float32, 0),
        errors=grown(matrix.errors, 2, np.float32, 0),
        norms=grown(matrix.norms, 3, np.float32, 0),
        collections=matrix.collections.extended(rows.collections),
        documents=matrix.documents.extended(rows.documents),
        valid_from=matrix.valid_from.extended(rows.starts),
        valid_until=matrix.valid_until.extended(rows.ends),
    )


class VectorCache:
    """Matrices by ScopeKey, least recently used dropped past `max_bytes`. Thread-safe."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES):
        self.max_bytes = max_bytes
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
    filters: ChunkFilters,
) -> list[tuple[int, float]]:
    """The vector leg through the cache: up to `limit` (seq, cosine) best first, cosine > 0, exact.

    `fetch_one`/`fetch_all` run named statements on the caller's walled session; `fetch_rows`
    does too and returns the cursor (rows are read a block at a time).
    """
    dims = int(query.shape[0])
    key = ScopeKey(*scope, model=model, dims=dims)
    counters = fetch_one("kb_generation")  # read before the rows: never stale
    generation, rewrites = int(counters["generation"]), int(counters["rewrites"])
    matrix = cache.get(key)
    if matrix is None or matrix.rewrites != rewrites:
        matrix = load(fetch_rows, generation, rewrites, model, dims)
        cache.put(key, matrix)
    elif matrix.generation != generation:  # only appends since it was built
        matrix = appended(matrix, fetch_rows, generation, model, dims)
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
        part = [int(s) for s in seqs[start : start + 4096]]
        rows += fetch_all("kb_vector_exact", seqs=json.dumps(part), model=model, bytes=4 * dims)
    return rows
