"""The bundle: one folder holding a scope's records, versioned, with a manifest of counts and hashes.

    manifest.json          format and version, the tenant and scope, when and by whom, per table
                           the file, its row count and sha256, the images, what is shared and
                           not included, what was left out and why
    tables/<table>.jsonl   one JSON object per row, every column (but the database's own row
                           numbers): types, versions, lifecycle, links, provenance as stored
    images/<sha256>.<ext>  image bytes, beside the rows that name them
    shared.jsonl           rows another principal shares with the scope: table, id, scope; no content

A row's binary value is `{"$b64": ...}` (an embedding), or `{"$file": "images/..."}` for an image's
bytes. The bundle's sha256 is the manifest file's: it covers every table file's hash, and the
images are named by their own sha256, so `memgate import` refuses a bundle whose files do not
match and, given the hash the export printed, one whose manifest was changed.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import InvalidArgument

__all__ = ["FORMAT", "VERSION", "BundleReader", "BundleWriter", "decode_value", "encode_value", "float32_bytes"]

FORMAT = "memgate-bundle"
VERSION = 1
MANIFEST = "manifest.json"
SHARED = "shared.jsonl"
_MIME_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


def encode_value(value: Any) -> Any:
    """A row's value as JSON: binary (a BLOB, or a vector a driver returns as an array) as base64 of
    its bytes (a vector as float32 little-endian, as SQLite stores it), so a bundle is the same
    whichever database wrote it."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b64": base64.b64encode(bytes(value)).decode("ascii")}
    if hasattr(value, "tolist") or type(value).__name__ == "array":
        return {"$b64": base64.b64encode(float32_bytes(value)).decode("ascii")}
    return value


def float32_bytes(vector: Any) -> bytes:
    """A vector (numpy, array.array, list) as float32 little-endian bytes."""
    return np.asarray(list(vector) if not hasattr(vector, "dtype") else vector, dtype="<f4").tobytes()


def decode_value(value: Any, folder: Path) -> Any:
    if isinstance(value, dict) and set(value) == {"$b64"}:
        return base64.b64decode(value["$b64"])
    if isinstance(value, dict) and set(value) == {"$file"}:
        return (folder / _inside(value["$file"])).read_bytes()
    return value


def _inside(relative: str) -> str:
    """A file name the manifest or a row gives, refused unless it stays inside the bundle."""
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts or not parts:
        raise InvalidArgument(f"bundle path {relative!r} leaves the bundle", field="bundle")
    return relative


class _HashedLines:
    """A JSONL file written a line at a time, hashed and counted as it goes."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = path.open("wb")
        self.sha = hashlib.sha256()
        self.rows = 0

    def write(self, obj: dict[str, Any]) -> None:
        line = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        self._file.write(line)
        self.sha.update(line)
        self.rows += 1

    def close(self) -> dict[str, Any]:
        self._file.close()
        return {"rows": self.rows, "sha256": self.sha.hexdigest()}


@dataclass
class BundleWriter:
    """Writes a bundle into an empty (or new) folder, a row at a time: nothing is held but the open files."""

    folder: Path
    _tables: dict[str, _HashedLines] = field(default_factory=dict)
    _shared: _HashedLines | None = None
    _images: int = 0
    _image_bytes: int = 0

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        if self.folder.exists() and (not self.folder.is_dir() or any(self.folder.iterdir())):
            raise InvalidArgument(
                f"{self.folder} exists and is not an empty folder; nothing was written",
                field="path",
                hint="Name a new folder for the bundle.",
            )
        self.folder.mkdir(parents=True, exist_ok=True)

    def row(self, table: str, row: dict[str, Any]) -> None:
        if table not in self._tables:
            self._tables[table] = _HashedLines(self.folder / "tables" / f"{table}.jsonl")
        self._tables[table].write({k: encode_value(v) for k, v in row.items()})

    def image(self, data: bytes, mime_type: str) -> dict[str, str]:
        """Store image bytes as a file named by their sha256; the row's value that names it."""
        digest = hashlib.sha256(data).hexdigest()
        name = f"images/{digest}.{_MIME_EXT.get(mime_type, 'bin')}"
        path = self.folder / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self._images += 1
            self._image_bytes += len(data)
        return {"$file": name}

    def shared(self, entry: dict[str, Any]) -> None:
        if self._shared is None:
            self._shared = _HashedLines(self.folder / SHARED)
        self._shared.write(entry)

    def close(self, head: dict[str, Any], tables: list[str]) -> tuple[dict[str, Any], str]:
        """Write the manifest (`head` plus counts and hashes; every table of `tables` listed, an empty
        one with 0 rows); returns it and the bundle's sha256."""
        listed = {}
        for table in tables:
            done = self._tables.pop(table).close() if table in self._tables else {"rows": 0, "sha256": _EMPTY}
            listed[table] = {"file": f"tables/{table}.jsonl", **done}
            if done["rows"] == 0:
                (self.folder / "tables").mkdir(exist_ok=True)
                (self.folder / "tables" / f"{table}.jsonl").write_bytes(b"")
        for leftover in self._tables.values():
            leftover.close()
        shared = self._shared.close() if self._shared is not None else {"rows": 0, "sha256": _EMPTY}
        if self._shared is None:
            (self.folder / SHARED).write_bytes(b"")
        manifest = {
            **head,
            "format": FORMAT,
            "format_version": VERSION,
            "tables": listed,
            "images": {"files": self._images, "bytes": self._image_bytes},
            "shared": {"file": SHARED, **shared},
        }
        text = json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False).encode("utf-8") + b"\n"
        (self.folder / MANIFEST).write_bytes(text)
        return manifest, hashlib.sha256(text).hexdigest()


_EMPTY = hashlib.sha256(b"").hexdigest()


class BundleReader:
    """A bundle on disk: its manifest, a check of every file against it, and its rows a line at a time."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        path = self.folder / MANIFEST
        if not path.is_file():
            raise InvalidArgument(
                f"{self.folder} holds no {MANIFEST}: it is not a memgate bundle", field="bundle", hint=_FROM_EXPORT
            )
        raw = path.read_bytes()
        self.sha256 = hashlib.sha256(raw).hexdigest()
        try:
            self.manifest: dict[str, Any] = json.loads(raw)
        except ValueError:
            raise InvalidArgument(f"{path} is not JSON", field="bundle", hint=_FROM_EXPORT) from None
        if self.manifest.get("format") != FORMAT:
            raise InvalidArgument(f"{path} is not a {FORMAT} manifest", field="bundle", hint=_FROM_EXPORT)
        version = self.manifest.get("format_version")
        if version != VERSION:
            raise InvalidArgument(
                f"bundle format version {version!r}; this memgate reads version {VERSION}",
                field="bundle",
                hint="Import it with the memgate release that exported it, or a newer one.",
            )

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        return dict(self.manifest.get("tables") or {})

    def verify(self, expected_sha256: str | None = None) -> list[str]:
        """Every mismatch between the files and the manifest (empty: the bundle is whole). Reads each
        file once, a line at a time; image files must hash to their names."""
        problems = []
        if expected_sha256 is not None and expected_sha256.lower() != self.sha256:
            problems.append(f"the manifest's sha256 is {self.sha256}, not {expected_sha256}")
        entries = [(t, e) for t, e in self.tables.items()] + [("shared", self.manifest.get("shared") or {})]
        for name, entry in entries:
            file = self.folder / _inside(str(entry.get("file") or ""))
            if not file.is_file():
                problems.append(f"{name}: {entry.get('file')} is missing")
                continue
            sha, rows = hashlib.sha256(), 0
            with file.open("rb") as f:
                for line in f:
                    sha.update(line)
                    rows += 1
            if sha.hexdigest() != entry.get("sha256") or rows != entry.get("rows"):
                problems.append(
                    f"{name}: {entry.get('file')} has {rows} rows and sha256 {sha.hexdigest()[:16]}..., "
                    f"the manifest says {entry.get('rows')} and {str(entry.get('sha256'))[:16]}..."
                )
        images = self.folder / "images"
        for image in sorted(images.iterdir()) if images.is_dir() else []:
            if hashlib.sha256(image.read_bytes()).hexdigest() != image.name.split(".")[0]:
                problems.append(f"images/{image.name} does not hash to its name")
        return problems

    def rows(self, table: str) -> Iterator[dict[str, Any]]:
        """The table's rows as stored, binary values decoded (image files read as their row comes)."""
        entry = self.tables.get(table)
        if not entry:
            return
        with (self.folder / _inside(entry["file"])).open("rb") as f:
            for line in f:
                raw = json.loads(line)
                yield {k: decode_value(v, self.folder) for k, v in raw.items()}

    def keys(self, table: str, key: str) -> Iterator[str]:
        """The table's keys, a line at a time (nothing decoded but the key)."""
        entry = self.tables.get(table)
        if not entry:
            return
        with (self.folder / _inside(entry["file"])).open("rb") as f:
            for line in f:
                yield str(json.loads(line)[key])

    def shared(self) -> Iterator[dict[str, Any]]:
        entry = self.manifest.get("shared") or {}
        path = self.folder / _inside(str(entry.get("file") or SHARED))
        if path.is_file():
            with path.open("rb") as f:
                for line in f:
                    yield json.loads(line)


_FROM_EXPORT = "Point at the folder `memgate export` wrote (it holds manifest.json)."
