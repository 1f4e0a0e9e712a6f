"""`memgate ingest` refuses an image past kb.max_image_bytes, naming its size, and a header that claims
too many pixels (a decompression bomb) as exactly that; nothing is stored either way."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from image_helpers import image_bytes, png_claiming
from kb_helpers import ACME, hashing_manager

from memgate.manager import InvalidArgument, KbSettings, seed_demo


@pytest.fixture
def run(sqlite_path, monkeypatch):
    return cli_runner(sqlite_path, monkeypatch)


def _nothing_stored(backend) -> bool:
    return operator_rows(backend, "image_memory") == [] and operator_rows(backend, "knowledge_base_document") == []


@pytest.mark.parametrize(
    "size,claimed",
    [((60000, 60000), "3,600,000,000 pixels"), ((10000, 10000), "10000x10000")],
    ids=["refused-by-pillow-itself", "over-pillows-warning-bound"],
)
def test_a_small_png_claiming_too_many_pixels_is_refused_as_such(run, backend, tmp_path, size, claimed):
    data = png_claiming(*size)
    assert len(data) < 100
    path = tmp_path / "bomb.png"
    path.write_bytes(data)
    run("init", "-t", "acme")
    out = run("ingest", str(path), "-t", "acme", "--description", "a bomb", "-q", code=1).stdout.splitlines()
    assert out[1] == (
        f"failed: {path}: bomb.png has too many pixels (its header says {claimed}); memgate stores images of "
        "at most 89,478,485 pixels. Store a smaller export of it (a lower resolution)."
    )
    assert _nothing_stored(backend)


def test_an_image_at_the_pixel_bound_is_stored(backend, tmp_path):
    manager = hashing_manager(backend)
    seed_demo(manager)
    path = tmp_path / "wide.png"
    path.write_bytes(png_claiming(89_478_485, 1))
    assert manager.ingest_file(ACME, path, description="a very wide strip").status == "new"


def test_an_image_over_kb_max_image_bytes_is_refused_naming_its_size(run, backend, tmp_path, monkeypatch):
    data = image_bytes("PNG", (64, 64))
    path = tmp_path / "photo.png"
    path.write_bytes(data)
    run("init", "-t", "acme")
    monkeypatch.setenv("MEMGATE_KB__MAX_IMAGE_BYTES", str(len(data) - 1))
    out = run("ingest", str(path), "-t", "acme", "--description", "a photo", "-q", code=1).stdout.splitlines()
    assert out[1] == (
        f"failed: {path}: photo.png is {len(data):,} bytes; memgate stores images of at most {len(data) - 1:,} "
        "bytes (kb.max_image_bytes). Store a smaller export of it (a lower resolution or JPEG), or raise "
        "kb.max_image_bytes."
    )
    assert _nothing_stored(backend)
    monkeypatch.setenv("MEMGATE_KB__MAX_IMAGE_BYTES", str(len(data)))
    assert "new" in run("ingest", str(path), "-t", "acme", "--description", "a photo").stdout


def test_the_default_cap_is_ten_megabytes(backend, tmp_path):
    manager = hashing_manager(backend)
    seed_demo(manager)
    assert manager.kb == KbSettings() and manager.kb.max_image_bytes == 10_000_000
    path = tmp_path / "big.png"
    data = image_bytes("PNG")
    path.write_bytes(data + b"\0" * (10_000_001 - len(data)))  # trailing bytes after IEND: still a PNG
    with pytest.raises(
        InvalidArgument, match=r"^big.png is 10,000,001 bytes; memgate stores images of at most 10,000,000"
    ):
        manager.ingest_file(ACME, path, description="too big")
    path.write_bytes(data + b"\0" * (10_000_000 - len(data)))
    assert manager.ingest_file(ACME, path, description="just fits").status == "new"
