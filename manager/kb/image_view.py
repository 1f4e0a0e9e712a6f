"""An image as a result shows it: one record with its description and numbers; its bytes only when asked.

A record never holds the bytes. They travel beside the text (ToolOutput.images, an MCP
ImageContent) only when the caller asked for them, and only up to caps.max_image_bytes;
a larger image gets one sentence with its size instead.
"""

from __future__ import annotations

import math

from ..backend.base import Row, Session
from ..output.records import memory_record, metadata_line
from ..output.results import ImageData, ToolOutput
from ..tokens import count_tokens
from .images import image_bytes, image_meta

__all__ = ["image_attributes", "image_body", "image_tokens", "oversize_sentence", "render_image", "show_image"]

#: tokens a model is likely to pay per pixel of an image (Anthropic's published estimate,
#: width * height / 750); only an estimate for the window's tool reserve, never a limit
_PIXELS_PER_TOKEN = 750
#: an image record's description is shown up to this many characters
_BODY_CHARS = 4000


def image_attributes(row: Row) -> dict[str, object]:
    """The record attributes of an image: its type, MIME type, dimensions and size in bytes."""
    return {"mime": row["mime_type"], "width": row["width"], "height": row["height"], "bytes": row["byte_size"]}


def image_body(row: Row, description: str | None = None) -> str:
    """The record's content: the file name, then the description (or that there is none)."""
    text = description if description is not None else row["description"]
    return f"title: {' '.join(str(row['title']).split())}\n{text or '(no description)'}"


def image_tokens(width: int, height: int) -> int:
    return math.ceil(width * height / _PIXELS_PER_TOKEN)


def oversize_sentence(row: Row, cap: int) -> str:
    return (
        f"Image {row['id']} is {row['byte_size']:,} bytes, more than the {cap:,} bytes a result may carry "
        f"(caps.max_image_bytes), so its bytes are not sent; use its description."
    )


def render_image(
    meta: Row, *, head: dict[str, object], with_bytes: Row | None, asked_bytes: bool, max_image_bytes: int
) -> ToolOutput:
    """The image's record under a metadata line, its bytes beside it when asked (`with_bytes`);
    asked for an image over the cap, the answer is one sentence with its size."""
    if asked_bytes and meta["byte_size"] > max_image_bytes:
        text = oversize_sentence(meta, max_image_bytes)
        return ToolOutput(text=text, rows=0, tokens=count_tokens(text), cited_ids=(meta["id"],))
    record = memory_record(
        image_body(meta),
        id=meta["id"],
        type="image",
        cell_chars=_BODY_CHARS,
        document=meta["document_id"],
        collection=meta["collection"],
        **image_attributes(meta),
    )
    text = f"{metadata_line(**head, bytes_sent='yes' if with_bytes is not None else 'no')}\n{record}"
    images = (
        ()
        if with_bytes is None
        else (
            ImageData(
                with_bytes["mime_type"],
                bytes(with_bytes["bytes"]),
                image_tokens(with_bytes["width"], with_bytes["height"]),
            ),
        )
    )
    return ToolOutput(text=text, rows=1, tokens=count_tokens(text), cited_ids=(meta["id"],), images=images)


def show_image(
    session: Session, image_id: str, now: str, *, head: dict[str, object], asked_bytes: bool, max_image_bytes: int
) -> ToolOutput | None:
    """An image the caller may read now, rendered; None when it cannot (absent and behind the wall alike).

    The size is checked on the row without its bytes, so an image over the cap is never read.
    """
    meta = image_meta(session, image_id, now)
    if meta is None:
        return None
    with_bytes = None
    if asked_bytes and meta["byte_size"] <= max_image_bytes:
        with_bytes = image_bytes(session, image_id, now)
        if with_bytes is None:  # gone between the two reads
            return None
    return render_image(
        meta, head=head, with_bytes=with_bytes, asked_bytes=asked_bytes, max_image_bytes=max_image_bytes
    )
