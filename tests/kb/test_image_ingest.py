"""`memgate ingest` of images: bytes into image_memory, the description searchable, the header checked.

Through click's runner on a real database file, and the manager method library users call.
Every image is made with Pillow at test time.
"""

from __future__ import annotations

import io

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from image_helpers import FORMATS, image_bytes, png_with_damaged_pixels, sha256
from kb_helpers import ACME, hashing_manager
from PIL import Image

from memgate.manager import InvalidArgument, seed_demo


@pytest.fixture
def run(sqlite_path, monkeypatch):
    return cli_runner(sqlite_path, monkeypatch)


@pytest.fixture
def kb(backend):
    manager = hashing_manager(backend)
    seed_demo(manager)
    return manager


def images(backend):
    return operator_rows(backend, "image_memory", "ORDER BY title")


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_each_format_is_stored_with_its_mime_type_size_and_sha256(kb, backend, tmp_path, fmt):
    data = image_bytes(fmt, (40, 30))
    path = tmp_path / f"swatch.{fmt.lower()}"
    path.write_bytes(data)
    result = kb.ingest_file(ACME, path, description="a red swatch of kumquat paint")
    [row] = images(backend)
    assert (result.status, result.image_id) == ("new", row["id"])
    assert {k: row[k] for k in ("mime_type", "width", "height", "byte_size", "sha256", "description", "title")} == {
        "mime_type": FORMATS[fmt],
        "width": 40,
        "height": 30,
        "byte_size": len(data),
        "sha256": sha256(data),
        "description": "a red swatch of kumquat paint",
        "title": path.name,
    }
    assert bytes(row["bytes"]) == data
    [doc] = operator_rows(backend, "knowledge_base_document", "WHERE id = :id", {"id": row["document_id"]})
    assert doc["content"] == f"a red swatch of kumquat paint\n\n{path.name}" and doc["mime_type"] == FORMATS[fmt]


def test_the_cli_takes_a_description_or_a_sidecar_and_reports_an_image_without_one(run, sqlite_path, backend, tmp_path):
    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / "chart.png").write_bytes(image_bytes("PNG"))
    (folder / "chart.png.txt").write_text("Helios nDCG by month, a zebracorn line chart\n")
    (folder / "team.jpg").write_bytes(image_bytes("JPEG", color=(10, 200, 10)))
    (folder / "team.md").write_text("The evaluation team at the offsite")
    (folder / "blank.gif").write_bytes(image_bytes("GIF", color=(0, 0, 0)))
    run("init", "-t", "acme")
    out = run("ingest", str(folder), "-t", "acme", "-q").stdout.splitlines()
    # the two sidecars are descriptions, not documents of their own
    assert out[0].startswith("3 file(s): 3 new, 0 unchanged, 0 replaced, 0 failed; 2 chunk(s), ")
    assert out[1:] == [
        f"image {folder / 'blank.gif'}: not searchable: no description (give --description or a sidecar blank.gif.txt)"
    ]
    assert {r["title"]: r["description"] for r in images(backend)} == {
        "blank.gif": None,
        "chart.png": "Helios nDCG by month, a zebracorn line chart",
        "team.jpg": "The evaluation team at the offsite",
    }
    assert "chart.png" in run("search", "zebracorn line chart", "-t", "acme").stdout
    described = run("ingest", str(folder / "blank.gif"), "-t", "acme", "-d", "An all-black placeholder").stdout
    assert described.startswith("1 file(s): 0 new, 0 unchanged, 1 replaced, 0 failed; 1 chunk(s), ")
    assert '"placeholder' not in described and "placeholder" in run("search", "black placeholder", "-t", "acme").stdout


def test_a_description_with_no_image_named_is_refused(run, tmp_path):
    (tmp_path / "notes.txt").write_text("Kumquats ripen in winter.")
    run("init", "-t", "acme")
    out = run("ingest", str(tmp_path / "notes.txt"), "-t", "acme", "-d", "a photo", code=2).output
    assert "--description" in out and "describes image files, and none is named" in out


def test_reingesting_the_same_bytes_is_a_no_op_and_new_bytes_are_the_next_version(kb, backend, tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(image_bytes("PNG"))
    first = kb.ingest_file(ACME, path, description="revenue chart")
    again = kb.ingest_file(ACME, path, description="revenue chart")
    also_without = kb.ingest_file(ACME, path)  # no description given: the stored one stays
    assert [first.status, again.status, also_without.status] == ["new", "unchanged", "unchanged"]
    assert len({first.image_id, again.image_id, also_without.image_id}) == 1
    path.write_bytes(image_bytes("PNG", (64, 48)))
    changed = kb.ingest_file(ACME, path, description="revenue chart, bigger")
    [row] = images(backend)
    assert (changed.status, changed.image_id, row["version"], row["width"]) == ("replaced", first.image_id, 2, 64)
    assert row["sha256"] == sha256(path.read_bytes())


def test_new_bytes_without_a_description_are_stored_and_the_old_description_stops_being_found(kb, backend, tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(image_bytes("PNG"))
    kb.ingest_file(ACME, path, description="zebracorn revenue chart")
    assert 'type="image"' in kb.search_memory(ACME, "zebracorn revenue").text
    path.write_bytes(image_bytes("PNG", color=(1, 2, 3)))
    result = kb.ingest_file(ACME, path)
    assert (result.status, result.reason) == ("replaced", "not searchable: no description")
    [row] = images(backend)
    assert (row["document_id"], row["description"], row["version"]) == (None, None, 2)
    assert 'type="image"' not in kb.search_memory(ACME, "zebracorn revenue").text
    assert operator_rows(backend, "knowledge_base_chunk", "WHERE content LIKE '%zebracorn%'") == []


@pytest.mark.parametrize(
    "content",
    [b"not an image at all", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, image_bytes("PNG")[:30]],
    ids=["text", "png-signature-only", "cut-header"],
)
def test_a_file_pillow_cannot_parse_is_refused_naming_it_and_nothing_is_stored(run, backend, tmp_path, content):
    path = tmp_path / "photo.png"
    path.write_bytes(content)
    (tmp_path / "photo.png.txt").write_text("a photo of the offsite")
    run("init", "-t", "acme")
    out = run("ingest", str(path), "-t", "acme", "-q", code=1).stdout.splitlines()
    assert out[1] == (
        f"failed: {path}: photo.png is not a readable PNG, JPEG, WebP or GIF image (its header does "
        "not parse). Check that it opens in an image viewer, or export it again."
    )
    assert images(backend) == [] and operator_rows(backend, "knowledge_base_document") == []


def test_only_the_header_is_read_an_image_with_damaged_pixel_data_is_stored_undecoded(kb, backend, tmp_path):
    data = png_with_damaged_pixels((16, 12))
    with pytest.raises(OSError, match="broken data stream"):  # decoding it would fail
        Image.open(io.BytesIO(data)).load()
    path = tmp_path / "damaged.png"
    path.write_bytes(data)
    assert kb.ingest_file(ACME, path, description="a damaged scan").status == "new"
    [row] = images(backend)
    assert (row["width"], row["height"], bytes(row["bytes"])) == (16, 12, data)


def test_the_header_decides_the_mime_type_not_the_extension(kb, backend, tmp_path):
    path = tmp_path / "really-a-jpeg.png"
    path.write_bytes(image_bytes("JPEG"))
    kb.ingest_file(ACME, path, description="a jpeg in disguise")
    assert images(backend)[0]["mime_type"] == "image/jpeg"


def test_a_description_for_a_text_file_is_refused_by_the_manager(kb, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.")
    with pytest.raises(InvalidArgument, match="a description is for image files only; notes.txt is not one"):
        kb.ingest_file(ACME, path, description="a photo")
