"""Image memory: an image's bytes in image_memory, its description searchable as a document.

An image file's bytes, MIME type, width, height, size and sha256 go into one image_memory
row; the text search finds is the caller's description plus the file name, ingested as an
ordinary knowledge-base document (mime type the image's) in the same transaction as the
image row, so search, its wall and its ranking are the knowledge base's own. An image with
no description is stored and not searchable. Re-ingesting the same bytes (and the same
description, or none) is a no-op; new bytes or a new description make the next version.

The bytes are read back by one statement only (image_bytes.sql), after the size was checked.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..backend.base import Row, Session
from ..errors import InvalidArgument, NotFound
from ..identity import Identity
from ..ids import new_id
from ..limits import MAX_STORED_IMAGE_BYTES, ChunkSettings
from . import ingest as kb_ingest
from .embed import Embedder
from .image_header import ImageHeader, read_header

__all__ = [
    "MESSAGE_COLLECTION",
    "NOT_SEARCHABLE",
    "ImageBytes",
    "image_bytes",
    "image_meta",
    "images_of_documents",
    "ingest_image",
    "is_image_id",
    "sidecar_description",
    "sidecar_paths",
    "store_image",
]

NOT_SEARCHABLE = "not searchable: no description"
#: the collection of images a conversation turn carried (they are not searchable)
MESSAGE_COLLECTION = "conversation"
_ID_PREFIX = "img"
#: sidecar names tried next to photo.png, in order
_SIDECARS = ("{name}.txt", "{name}.md", "{stem}.txt", "{stem}.md")


@dataclass(frozen=True)
class ImageBytes:
    """An image as it will be stored: checked header, bytes and their sha256."""

    name: str
    header: ImageHeader
    data: bytes
    sha256: str

    @classmethod
    def of(cls, name: str, data: bytes, field: str = "path", max_bytes: int = MAX_STORED_IMAGE_BYTES) -> ImageBytes:
        """The image `name` holds; InvalidArgument naming its size past `max_bytes` (kb.max_image_bytes
        at ingest), or when its header does not parse or claims too many pixels (image_header.py)."""
        if len(data) > max_bytes:
            raise InvalidArgument(
                f"{name} is {len(data):,} bytes; memgate stores images of at most {max_bytes:,} bytes.",
                field=field,
                hint="Store a smaller export of it (a lower resolution or JPEG).",
            )
        return cls(name, read_header(name, data, field), data, hashlib.sha256(data).hexdigest())


def is_image_id(memory_id: str) -> bool:
    return memory_id.startswith(f"{_ID_PREFIX}_")


def sidecar_paths(path: str | Path) -> tuple[Path, ...]:
    """Where an image's description may be: photo.png.txt, photo.png.md, photo.txt, photo.md beside it."""
    path = Path(path)
    return tuple(path.with_name(pattern.format(name=path.name, stem=path.stem)) for pattern in _SIDECARS)


def sidecar_description(path: Path) -> str | None:
    """The text of the first sidecar file beside `path` (sidecar_paths), or None."""
    for sidecar in sidecar_paths(path):
        if sidecar.is_file():
            try:
                text = sidecar.read_bytes().decode("utf-8-sig").strip()
            except UnicodeDecodeError as exc:
                raise InvalidArgument(
                    f"{sidecar.name}, the description of {path.name}, is not valid UTF-8.",
                    field="description",
                    hint="Re-save it as UTF-8.",
                ) from exc
            return text or None
    return None


def ingest_image(
    open_session,
    identity: Identity,
    path: str | Path,
    embedder: Embedder,
    now: str,
    *,
    collection: str = "default",
    user_id: str | None = None,
    agent_id: str | None = None,
    description: str | None = None,
    settings: ChunkSettings = ChunkSettings(),
    max_bytes: int = MAX_STORED_IMAGE_BYTES,
) -> kb_ingest.IngestResult:
    """Store one image file of at most `max_bytes` (kb.max_image_bytes); its description (given,
    else a sidecar file) is what search finds."""
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"{path.name} does not exist or is not a file.", field="path")
    size = path.stat().st_size
    if size > max_bytes:  # refused before its bytes are read
        raise InvalidArgument(
            f"{path.name} is {size:,} bytes; memgate stores images of at most {max_bytes:,} bytes (kb.max_image_bytes).",
            field="path",
            hint="Store a smaller export of it (a lower resolution or JPEG), or raise kb.max_image_bytes.",
        )
    image = ImageBytes.of(path.name, path.read_bytes(), max_bytes=max_bytes)
    text = (description if description is not None else sidecar_description(path) or "").strip() or None
    row = {
        "tenant_id": identity.tenant,
        "user_id": user_id,
        "agent_id": agent_id,
        "thread_id": None,
        "collection": collection,
        "source_uri": path.resolve().as_uri(),
    }
    with open_session() as s:
        existing = s.fetch_one("image_by_source", **_source_key(row))
    if _unchanged(existing, image, text):
        return kb_ingest.IngestResult(
            str(path),
            kb_ingest.UNCHANGED,
            existing["document_id"],
            existing["title"],
            image_id=existing["id"],
            reason=None if existing["document_id"] else NOT_SEARCHABLE,
        )
    if text is None:
        with open_session() as s, s.transaction():
            image_id, status = _write(s, identity, row, image, None, None, now)
        return kb_ingest.IngestResult(str(path), status, None, image.name, image_id=image_id, reason=NOT_SEARCHABLE)
    written: list[tuple[str, str]] = []  # (image id, its status): the image's, not its description's
    result = kb_ingest.ingest_text(
        open_session,
        identity,
        embedder,
        now,
        title=image.name,
        text=f"{text}\n\n{image.name}",
        source_uri=row["source_uri"],
        mime_type=image.header.mime_type,
        collection=collection,
        user_id=user_id,
        agent_id=agent_id,
        settings=settings,
        label=str(path),
        content_hash=hashlib.sha256(f"{image.sha256}\n{text}".encode()).hexdigest(),
        write_also=lambda s, document_id: written.append(_write(s, identity, row, image, text, document_id, now)),
    )
    if not written:  # the description's document was current: another process stored it meanwhile
        return replace(result, image_id=existing["id"] if existing else None)
    return replace(result, image_id=written[0][0], status=written[0][1])


def store_image(
    s: Session,
    identity: Identity,
    name: str,
    data: bytes,
    now: str,
    *,
    description: str | None = None,
    field: str = "data",
    turn_id: str | None = None,
) -> str:
    """An image a conversation turn carries, in the caller's scope (inside the caller's transaction).

    Keyed by its content: the same bytes in the same scope are one row, whose provenance is the
    turn that first carried them (`turn_id`). Not searchable.
    """
    image = ImageBytes.of(name, data, field)
    row = {
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread,
        "collection": MESSAGE_COLLECTION,
        "source_uri": f"sha256:{image.sha256}",
        "source_table": "conversation_memory" if turn_id else None,
        "source_id": turn_id,
    }
    existing = s.fetch_one("image_by_source", **_source_key(row))
    if (
        existing is not None
        and existing["deleted_at"] is None
        and (description is None or description == existing["description"])
    ):
        return existing["id"]
    return _write(s, identity, row, image, description, None, now)[0]


def _unchanged(existing: Row | None, image: ImageBytes, text: str | None) -> bool:
    return (
        existing is not None
        and existing["deleted_at"] is None
        and existing["sha256"] == image.sha256
        and (text is None or text == existing["description"])
    )


def _source_key(row: dict) -> dict:
    """What makes an image row one source: its collection, source and exact scope."""
    return {
        "collection": row["collection"],
        "source_uri": row["source_uri"],
        "user_id": row["user_id"],
        "agent_id": row["agent_id"],
        "thread_id": row["thread_id"],
    }


def _write(
    s: Session, identity: Identity, row: dict, image: ImageBytes, text: str | None, document_id: str | None, now: str
) -> tuple[str, str]:
    """Insert the image row or make its next version; an old description's document stops being searchable."""
    existing = s.fetch_one("image_by_source", **_source_key(row))
    columns = {
        "title": image.name,
        "document_id": document_id,
        "description": text,
        "mime_type": image.header.mime_type,
        "width": image.header.width,
        "height": image.header.height,
        "byte_size": len(image.data),
        "sha256": image.sha256,
        "bytes": image.data,
    }
    if existing is None:
        image_id = new_id(_ID_PREFIX)
        s.insert(
            "image_memory",
            {
                "id": image_id,
                **row,
                **columns,
                "version": 1,
                "valid_from": now,
                "created_by": identity.principal or identity.user,
                "created_at": now,
            },
        )
        return image_id, kb_ingest.NEW
    old_document = existing["document_id"]
    if old_document and old_document != document_id:
        s.execute("kb_chunks_delete_for_document", document_id=old_document)
        s.execute("kb_document_retire", id=old_document, now=now)
    s.execute("image_replace", id=existing["id"], now=now, **columns)
    return existing["id"], kb_ingest.REPLACED


def images_of_documents(s: Session, document_ids, now: str) -> dict[str, Row]:
    """The current images (no bytes) whose descriptions are these documents, by document id."""
    ids = sorted(set(document_ids))
    if not ids:
        return {}
    return {r["document_id"]: r for r in s.fetch_all("images_of_documents", ids=json.dumps(ids), now=now)}


def image_meta(s: Session, image_id: str, now: str) -> Row | None:
    """An image the caller may see now, without its bytes; None when absent or behind the wall alike."""
    return s.fetch_one("image_meta", id=image_id, now=now)


def image_bytes(s: Session, image_id: str, now: str) -> Row | None:
    """An image the caller may see now, with its bytes."""
    return s.fetch_one("image_bytes", id=image_id, now=now)
