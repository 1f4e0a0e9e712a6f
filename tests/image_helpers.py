"""Small test images made with Pillow at test time, and their sha256."""

from __future__ import annotations

import hashlib
import io
import zlib

from PIL import Image

#: Pillow's format name -> the MIME type memgate stores
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (32, 24), color=(200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def png_with_damaged_pixels(size: tuple[int, int] = (16, 16)) -> bytes:
    """A PNG whose header (IHDR) is sound and whose pixel data (IDAT) is not zlib at all, CRC and all."""
    data = image_bytes("PNG", size)
    start = data.index(b"IDAT") - 4
    length = int.from_bytes(data[start : start + 4], "big")
    junk = b"\x00not zlib data\xff" * 4
    chunk = len(junk).to_bytes(4, "big") + b"IDAT" + junk + zlib.crc32(b"IDAT" + junk).to_bytes(4, "big")
    return data[:start] + chunk + data[start + 12 + length :]


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG (one real pixel's data) whose header (IHDR) claims width x height, CRC intact."""
    data = bytearray(image_bytes("PNG", (1, 1)))
    data[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    data[29:33] = zlib.crc32(bytes(data[12:29])).to_bytes(4, "big")
    return bytes(data)
