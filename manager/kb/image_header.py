"""An image file's header: its format, MIME type and size, read with Pillow and nothing decoded.

`Image.open` is lazy: it reads the header (PNG chunks up to the first IDAT, JPEG markers up
to the first scan, the GIF and WebP headers) and leaves the pixels undecoded until `load()`,
which memgate never calls. So a file whose header parses is accepted even if its pixel data
is damaged (a viewer will say so, not memgate), and a file whose header does not parse is
refused, naming the file. A header that claims more than MAX_IMAGE_PIXELS pixels (Pillow's own
decompression-bomb bound; a 100-byte PNG can claim 60000x60000) is refused as too many pixels:
any viewer or model that decodes it would need gigabytes.
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgument

__all__ = ["IMAGE_EXTENSIONS", "IMAGE_MIME_TYPES", "MAX_IMAGE_PIXELS", "ImageHeader", "is_image_path", "read_header"]

#: the formats memgate stores, by Pillow's format name
_MIME_BY_FORMAT = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
IMAGE_MIME_TYPES = tuple(sorted(_MIME_BY_FORMAT.values()))
IMAGE_EXTENSIONS = (".gif", ".jpeg", ".jpg", ".png", ".webp")
#: the most pixels an image may claim: Pillow's default Image.MAX_IMAGE_PIXELS (1024 * 1024 * 1024 // 4 // 3)
MAX_IMAGE_PIXELS = 89_478_485
_BOMB_PIXELS = re.compile(r"Image size \((\d+) pixels\)")


@dataclass(frozen=True)
class ImageHeader:
    mime_type: str
    width: int
    height: int


def is_image_path(path: str | Path) -> bool:
    return Path(path).suffix.lower() in IMAGE_EXTENSIONS


def read_header(name: str, data: bytes, field: str = "path") -> ImageHeader:
    """The header of `data` (a file called `name`); InvalidArgument naming `field` when Pillow cannot parse it.

    The format is what the header says, not the extension: a JPEG saved as .png is stored
    as image/jpeg.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # DecompressionBombWarning is about decoding, which never happens here.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=list(_MIME_BY_FORMAT)) as image:
                fmt, (width, height) = image.format, image.size
    except Image.DecompressionBombError as exc:  # over twice Pillow's bound: refused by Image.open itself
        claimed = _BOMB_PIXELS.search(str(exc))
        raise _too_many_pixels(name, field, f"{int(claimed[1]):,} pixels" if claimed else None) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise InvalidArgument(
            f"{name} is not a readable PNG, JPEG, WebP or GIF image (its header does not parse).",
            field=field,
            hint="Check that it opens in an image viewer, or export it again.",
        ) from exc
    mime = _MIME_BY_FORMAT.get(fmt or "")
    if mime is None or width < 1 or height < 1:
        raise InvalidArgument(
            f"{name} is not a PNG, JPEG, WebP or GIF image with a size (format {fmt}).",
            field=field,
            hint="Convert it to PNG or JPEG.",
        )
    if width * height > MAX_IMAGE_PIXELS:
        raise _too_many_pixels(name, field, f"{width}x{height}")
    return ImageHeader(mime, int(width), int(height))


def _too_many_pixels(name: str, field: str, claimed: str | None) -> InvalidArgument:
    says = f" (its header says {claimed})" if claimed else ""
    return InvalidArgument(
        f"{name} has too many pixels{says}; memgate stores images of at most {MAX_IMAGE_PIXELS:,} pixels.",
        field=field,
        hint="Store a smaller export of it (a lower resolution).",
    )
