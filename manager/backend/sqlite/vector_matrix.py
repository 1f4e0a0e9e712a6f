"""One scope's embeddings as the vector cache holds them: int8 codes in blocks, and per-row columns.

Each row is stored as int8 codes and a scale (symmetric, per row), with its rounding error and
code norm (vector_cache.py turns those into a bound on the error of each approximate score).
The codes live in blocks of at most `block_rows` rows that are never joined into one array:
a load fills them one block of the statement's rows at a time, so besides the finished matrix
it holds only one block's blobs, floats and float64 error terms; and an append adds blocks
(re-cutting only the last, short one) instead of copying every row into a bigger array.

The text columns a search filters on (collection, document, valid_from, valid_until) are read
a block at a time too and kept as small integer codes into their distinct values, so a load
never holds one Python string per row. A conversation recall row's two label columns are its owner
(user and agent) and its conversation (vector_cache.py RECALL).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..base import ChunkFilters

__all__ = ["DEFAULT_BLOCK_ROWS", "Matrix", "appended", "load", "quantize"]

#: rows per block of codes (8 MB at 256 dims): few enough blocks that scoring them one call each
#: costs what one call over every row does (8,192-row blocks added 0.3 ms per search at 100k)
DEFAULT_BLOCK_ROWS = 32768
#: rows read from the statement and quantized at a time: bounds the blobs, their float32 copy
#: and the float64 error terms held at once (1024 x 256 dims: 1, 1 and 2 MB)
_READ_ROWS = 1024


@dataclass(frozen=True)
class _Labels:
    """A per-row text column as small integer codes (collection, document)."""

    codes: np.ndarray
    index: dict[str, int]

    @classmethod
    def of(cls, values: list[str]) -> _Labels:
        return cls(np.zeros(0, dtype=np.int32), {}).extended(values)

    def extended(self, values: Iterable[str]) -> _Labels:
        index = dict(self.index)
        more = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32)
        return _Labels(np.concatenate([self.codes, more]), index)

    def mask(self, value: str | Callable[[str], bool]) -> np.ndarray:
        """Rows whose value is `value`, or for which `value(label)` holds."""
        if callable(value):
            codes = [code for label, code in self.index.items() if value(label)]
            return np.isin(self.codes, codes) if codes else np.zeros(len(self.codes), dtype=bool)
        code = self.index.get(value)
        return self.codes == code if code is not None else np.zeros(len(self.codes), dtype=bool)


@dataclass(frozen=True)
class _Times:
    """A per-row timestamp column (ISO text, which sorts as time) as ranks into its sorted distinct values."""

    ranks: np.ndarray  # -1 for NULL
    distinct: list[str]

    @classmethod
    def of(cls, values: list[str | None]) -> _Times:
        return cls(np.zeros(0, dtype=np.int32), []).extended(values)

    def extended(self, values: Iterable[str | None]) -> _Times:
        """These ranks followed by those of `values`, all against the union of the distinct values."""
        more = _NewTimes()
        more.add(values)
        return more.after(self)

    def joined(self, seen: dict[str, int], more: np.ndarray) -> _Times:
        """These ranks followed by `more`, ids into `seen` (-1 for NULL), ranked against the union."""
        distinct = sorted(set(self.distinct).union(seen))
        where = {v: i for i, v in enumerate(distinct)}
        moved = np.fromiter((where[v] for v in self.distinct), dtype=np.int32, count=len(self.distinct))
        new = np.fromiter((where[v] for v in seen), dtype=np.int32, count=len(seen))
        old = moved[np.maximum(self.ranks, 0)] if len(moved) else np.zeros(len(self.ranks), dtype=np.int32)
        old = np.where(self.ranks >= 0, old, -1).astype(np.int32)
        more = np.where(more >= 0, new[np.maximum(more, 0)] if len(new) else 0, -1).astype(np.int32)
        return _Times(np.concatenate([old, more]), distinct)

    def at_or_before(self, now: str) -> int:
        """Rows with a rank below this hold a time <= now."""
        return bisect.bisect_right(self.distinct, now)


class _NewTimes:
    """A timestamp column read a block at a time: ids in first-seen order, ranked once at the end
    (ranking per block sorted the distinct values again for every block: 5.6 s for 100k distinct)."""

    def __init__(self):
        self.seen: dict[str, int] = {}
        self.parts: list[np.ndarray] = []

    def add(self, values: Iterable[str | None]) -> None:
        seen = self.seen
        self.parts.append(
            np.fromiter((seen.setdefault(v, len(seen)) if v is not None else -1 for v in values), np.int32)
        )

    def after(self, start: _Times) -> _Times:
        more = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int32)
        return start.joined(self.seen, more)


@dataclass(frozen=True)
class Matrix:
    """One scope's embeddings at one value of the tenant's change counters."""

    generation: int
    rewrites: int
    seqs: np.ndarray  # int64, ascending
    blocks: tuple[np.ndarray, ...]  # int8 (<= block rows, dims) each, in seq order
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
            *self.blocks,
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
    parts = [_quantize(rows[i : i + _READ_ROWS]) for i in range(0, len(rows), _READ_ROWS)]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        parts = [_quantize(rows)]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))  # type: ignore[return-value]


def _quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), dtype=np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.clip(np.rint(rows / scales[:, None]), -127, 127).astype(np.int8)
    approx = codes.astype(np.float64) * scales[:, None].astype(np.float64)
    errors = np.linalg.norm(rows.astype(np.float64) - approx, axis=1)
    norms = np.linalg.norm(approx, axis=1)
    return codes, scales, np.nextafter(errors.astype(np.float32), np.float32(np.inf)), norms.astype(np.float32)


class _Blocks:
    """int8 rows filled into blocks of `block_rows`, each allocated once and filled in place."""

    def __init__(self, block_rows: int, dims: int):
        self.block_rows, self.dims = block_rows, dims
        self.full: list[np.ndarray] = []
        self._current = np.empty((0, dims), dtype=np.int8)
        self._filled = 0

    def add(self, codes: np.ndarray) -> None:
        while len(codes):
            if self._filled == len(self._current):
                if len(self._current):
                    self.full.append(self._current)
                self._current, self._filled = np.empty((self.block_rows, self.dims), dtype=np.int8), 0
            taken = codes[: len(self._current) - self._filled]
            self._current[self._filled : self._filled + len(taken)] = taken
            self._filled += len(taken)
            codes = codes[len(taken) :]

    def done(self) -> list[np.ndarray]:
        if self._filled == len(self._current):
            return self.full + ([self._current] if self._filled else [])
        return [*self.full, self._current[: self._filled].copy()]


@dataclass
class _Read:
    """The rows a statement returned, a block at a time: codes blocks and per-row columns."""

    seqs: list[np.ndarray]
    blocks: list[np.ndarray]
    scales: list[np.ndarray]
    errors: list[np.ndarray]
    norms: list[np.ndarray]
    collections: _Labels
    documents: _Labels
    valid_from: _Times
    valid_until: _Times

    def column(self, name: str, old: np.ndarray | None = None) -> np.ndarray:
        parts = ([] if old is None else [old]) + getattr(self, name)
        if not parts:
            return np.zeros(0, dtype=np.int64 if name == "seqs" else np.float32)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _read(
    fetch_rows, model: str, dims: int, after: int, block_rows: int, start: Matrix | None, statement: str
) -> _Read:
    empty_labels, empty_times = _Labels.of([]), _Times.of([])
    read = _Read(
        [],
        [],
        [],
        [],
        [],
        start.collections if start else empty_labels,
        start.documents if start else empty_labels,
        start.valid_from if start else empty_times,
        start.valid_until if start else empty_times,
    )
    blocks, valid_from, valid_until = _Blocks(block_rows, dims), _NewTimes(), _NewTimes()
    cursor = fetch_rows(statement, model=model, bytes=4 * dims, after=after)
    try:
        while rows := cursor.fetchmany(_READ_ROWS):
            read.seqs.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
            floats = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), dims)
            codes, scales, errors, norms = _quantize(floats)
            blocks.add(codes)
            read.scales.append(scales)
            read.errors.append(errors)
            read.norms.append(norms)
            read.collections = read.collections.extended(r[2] for r in rows)
            read.documents = read.documents.extended(r[3] for r in rows)
            valid_from.add(r[4] for r in rows)
            valid_until.add(r[5] for r in rows)
            del rows, floats
    finally:
        cursor.close()
    read.blocks = blocks.done()
    read.valid_from, read.valid_until = valid_from.after(read.valid_from), valid_until.after(read.valid_until)
    return read


def _recut(blocks: list[np.ndarray], block_rows: int) -> tuple[np.ndarray, ...]:
    """The blocks with each short one joined to the next, up to `block_rows` rows a block."""
    out: list[np.ndarray] = []
    for block in blocks:
        if out and len(out[-1]) < block_rows:
            joined = np.concatenate([out.pop(), block])
            out += [joined[i : i + block_rows].copy() for i in range(0, len(joined), block_rows)]
        else:
            out.append(block)
    return tuple(out)


def load(
    fetch_rows,
    generation: int,
    rewrites: int,
    model: str,
    dims: int,
    block_rows: int,
    statement: str = "kb_vector_rows",
) -> Matrix:
    """Build a scope's matrix from the caller's walled session (`statement`'s rows), a block at a time."""
    read = _read(fetch_rows, model, dims, 0, block_rows, None, statement)
    return Matrix(
        generation=generation,
        rewrites=rewrites,
        seqs=read.column("seqs"),
        blocks=tuple(read.blocks),
        scales=read.column("scales"),
        errors=read.column("errors"),
        norms=read.column("norms"),
        collections=read.collections,
        documents=read.documents,
        valid_from=read.valid_from,
        valid_until=read.valid_until,
    )


def appended(
    matrix: Matrix,
    fetch_rows,
    generation: int,
    model: str,
    dims: int,
    block_rows: int,
    statement: str = "kb_vector_rows",
) -> Matrix:
    """`matrix` with the rows appended since it was built (only appends happened: same `rewrites`).
    Its full blocks are shared, not copied; only a short last block is joined to the new rows."""
    after = int(matrix.seqs[-1]) if len(matrix.seqs) else 0
    read = _read(fetch_rows, model, dims, after, block_rows, matrix, statement)
    return Matrix(
        generation=generation,
        rewrites=matrix.rewrites,
        seqs=read.column("seqs", matrix.seqs),
        blocks=_recut([*matrix.blocks, *read.blocks], block_rows),
        scales=read.column("scales", matrix.scales),
        errors=read.column("errors", matrix.errors),
        norms=read.column("norms", matrix.norms),
        collections=read.collections,
        documents=read.documents,
        valid_from=read.valid_from,
        valid_until=read.valid_until,
    )
