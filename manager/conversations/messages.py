"""Conversation turns whose content is ordered parts: text, and images stored as image rows.

A turn is one `turn` event in conversation_memory, as a text turn is. Its `content` is the
text a window shows (each image part as one line naming the image, its numbers and its
description, never its bytes) and `content_json` holds the parts in order, an image part
by its image_memory id. An image part given as bytes is stored first (kb/images.py: header
checked, keyed by its content, in the caller's scope like the turn), in the same
transaction. Reading a turn back gives its parts in that order; an image part carries its
bytes only when asked, and only while the reader may still see the image row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..backend.base import Row, Session
from ..errors import ImageNotVisible, InvalidArgument, NotVisible
from ..identity import Identity
from ..ids import new_id
from ..kb.embed import Embedder
from ..kb.images import image_bytes, image_meta, store_image
from .events import write_event
from .keys import open_conversation, take_turns
from .recall_index import index_turns

__all__ = ["ROLES", "ImagePart", "TextPart", "Turn", "read_turn", "speaker_of", "write_turn"]

ROLES = ("user", "assistant")


@dataclass(frozen=True)
class TextPart:
    text: str
    type: str = "text"


@dataclass(frozen=True)
class ImagePart:
    """An image part as read back: the image's numbers and description; `data` only when asked."""

    image_id: str
    mime_type: str | None = None
    width: int | None = None
    height: int | None = None
    byte_size: int | None = None
    sha256: str | None = None
    description: str | None = None
    data: bytes | None = None
    #: False when the reader can no longer see the image row (deleted, or behind the wall)
    visible: bool = True
    type: str = "image"


@dataclass(frozen=True)
class Turn:
    id: str
    role: str
    turn_index: int | None
    parts: tuple[TextPart | ImagePart, ...]


def speaker_of(identity: Identity, role: str) -> str:
    """Who said a turn of this caller's: its user for the user's turns, its agent for the assistant's
    (the role when the identity names neither)."""
    return (identity.user if role == "user" else identity.agent) or role


def write_turn(
    session: Session,
    identity: Identity,
    role: str,
    content: str | Sequence[Mapping[str, Any]],
    now: str,
    *,
    data: dict[str, Any] | None = None,
    tokens: int | None = None,
    said_at: str | None = None,
    embedder: Embedder | None = None,
) -> Row:
    """Append a turn to the caller's conversation: text, or ordered parts ({"type": "text", "text"} and
    {"type": "image", "image_id"} or {"type": "image", "data": bytes, "name"?, "description"?}). `data`
    is kept in content_json (text turns); `said_at` is when it was said (default now). The turn is
    indexed for recall (with an embedding when `embedder` is given). Call inside a transaction."""
    if role not in ROLES:
        raise InvalidArgument(f"role must be user or assistant, got {role!r}", field="role")
    turn_id = new_id("cnv")
    if isinstance(content, str):
        _require_text(content, "content")
        text = content
    else:
        parts = _stored_parts(session, identity, content, now, turn_id)
        text = "\n".join(_line(session, p, now) for p in parts)
        data = {**(data or {}), "parts": parts}
    conversation = open_conversation(session, identity, now)
    row = write_event(
        session,
        identity,
        prefix="cnv",
        id=turn_id,
        event_type="turn",
        role=role,
        content=text,
        now=now,
        data=data,
        turn_index=take_turns(session, conversation["id"]),
        tokens=tokens,
        conversation_id=conversation["id"],
        thread_scoped=False,
        speaker=speaker_of(identity, role),
        said_at=said_at,
    )
    index_turns(session, embedder, [row], now)
    return row


def read_turn(session: Session, turn_id: str, now: str, *, include_bytes: bool = False) -> Turn:
    """A turn the caller may see, its parts in order; image bytes only with include_bytes."""
    rows = session.fetch_all("context_rows_conversation_memory", ids=json.dumps([turn_id]))
    row = rows[0] if rows else None
    if row is None or row["event_type"] != "turn" or (row["deleted_at"] is not None and row["deleted_at"] <= now):
        raise NotVisible(f"{turn_id!r} is no conversation turn this caller can see")
    stored = json.loads(row["content_json"]).get("parts") if row["content_json"] else None
    if not stored:
        return Turn(row["id"], row["role"], row["turn_index"], (TextPart(row["content"]),))
    parts = tuple(
        TextPart(p["text"]) if p["type"] == "text" else _image_part(session, p["image_id"], now, include_bytes)
        for p in stored
    )
    return Turn(row["id"], row["role"], row["turn_index"], parts)


def _stored_parts(
    session: Session, identity: Identity, parts: Sequence[Mapping[str, Any]], now: str, turn_id: str
) -> list[dict[str, str]]:
    if not isinstance(parts, Sequence) or not parts:
        raise InvalidArgument("content must be text or a non-empty list of parts", field="content")
    stored = []
    for i, part in enumerate(parts):
        field = f"content[{i}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text":
            _require_text(part.get("text"), f"{field}.text")
            stored.append({"type": "text", "text": part["text"]})
        elif kind == "image":
            stored.append({"type": "image", "image_id": _image_id(session, identity, part, field, i, now, turn_id)})
        else:
            raise InvalidArgument(f'{field} must be a part with type "text" or "image"', field=field)
    return stored


def _image_id(
    session: Session, identity: Identity, part: Mapping[str, Any], field: str, i: int, now: str, turn_id: str
) -> str:
    if ("image_id" in part) == ("data" in part):
        raise InvalidArgument(
            f"{field} needs image_id (a stored image) or data (its bytes), not both or neither", field=field
        )
    if "data" in part:
        if not isinstance(part["data"], (bytes, bytearray)):
            raise InvalidArgument(f"{field}.data must be bytes", field=f"{field}.data")
        return store_image(
            session,
            identity,
            str(part.get("name") or f"part-{i}"),
            bytes(part["data"]),
            now,
            description=part.get("description"),
            field=f"{field}.data",
            turn_id=turn_id,
        )
    if image_meta(session, str(part["image_id"]), now) is None:
        raise ImageNotVisible(f"{field}.image_id {part['image_id']!r} is no image this caller can see")
    return str(part["image_id"])


def _line(session: Session, part: Mapping[str, str], now: str) -> str:
    """What a window shows of a part: its text, or one line naming the image (never its bytes)."""
    if part["type"] == "text":
        return part["text"]
    meta = image_meta(session, part["image_id"], now)
    if meta is None:  # checked visible when the part was stored, in this transaction
        raise ImageNotVisible(f"image {part['image_id']!r} is no image this caller can see")
    about = f": {' '.join(meta['description'].split())}" if meta["description"] else ""
    return (
        f"[image {meta['id']} {meta['title']}, {meta['mime_type']} {meta['width']}x{meta['height']}, "
        f"{meta['byte_size']} bytes{about}]"
    )


def _image_part(session: Session, image_id: str, now: str, include_bytes: bool) -> ImagePart:
    meta = image_meta(session, image_id, now)
    if meta is None:
        return ImagePart(image_id, visible=False)
    data = image_bytes(session, image_id, now) if include_bytes else None
    return ImagePart(
        image_id,
        meta["mime_type"],
        meta["width"],
        meta["height"],
        meta["byte_size"],
        meta["sha256"],
        meta["description"],
        bytes(data["bytes"]) if data is not None else None,
    )


def _require_text(value: Any, field: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a non-empty string", field=field)
