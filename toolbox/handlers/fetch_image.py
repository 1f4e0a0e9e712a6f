"""The `fetch_image` handler: an image the caller may read, by id, with its bytes as an MCP ImageContent.

For toolboxes without expand (it is not a default row: an operator enables it). The wall is
the authority, as for fetch: any id the caller cannot read now gets the same one sentence.
An image over caps.max_image_bytes gets one sentence with its size instead of its bytes.
"""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class FetchImageArgs(StrictArgs):
    image_id: str = Field(min_length=1, max_length=200)


SPEC = HandlerSpec("fetch_image", "fetch_image", FetchImageArgs)
