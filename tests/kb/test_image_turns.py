"""Conversation turns with ordered content parts: text and images, read back in order, bytes only when asked.

Through the manager methods library users call (record_turn, read_turn) on a real SQLite file.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from image_helpers import image_bytes, sha256

from memgate.manager import ACME, ImageNotVisible, InvalidArgument, NotVisible, TextPart

IN_THREAD = replace(ACME, thread="t-images")
BOB = replace(ACME, user="bob", principal="test:bob", thread="t-images")


@pytest.fixture
def png():
    return image_bytes("PNG", (30, 20))


def test_a_turn_of_a_text_part_then_an_image_part_reads_back_in_that_order(manager, two_tenants, backend, png):
    row = manager.record_turn(
        IN_THREAD,
        "user",
        [
            {"type": "text", "text": "Here is the dashboard from this morning:"},
            {"type": "image", "data": png, "name": "dashboard.png", "description": "the latency dashboard"},
        ],
    )
    turn = manager.read_turn(IN_THREAD, row["id"])
    assert [p.type for p in turn.parts] == ["text", "image"]
    text, image = turn.parts
    assert text == TextPart("Here is the dashboard from this morning:")
    assert (
        image.mime_type,
        image.width,
        image.height,
        image.byte_size,
        image.sha256,
        image.description,
        image.data,
    ) == ("image/png", 30, 20, len(png), sha256(png), "the latency dashboard", None)
    with_bytes = manager.read_turn(IN_THREAD, row["id"], include_bytes=True).parts[1]
    assert sha256(with_bytes.data) == sha256(png)
    # the window reads `content`: the text, then one line naming the image, never its bytes
    [stored] = operator_rows(backend, "conversation_memory", "WHERE id = :id", {"id": row["id"]})
    assert stored["content"] == (
        f"Here is the dashboard from this morning:\n[image {image.image_id} dashboard.png, "
        f"image/png 30x20, {len(png)} bytes: the latency dashboard]"
    )
    [image_row] = operator_rows(backend, "image_memory", "WHERE id = :id", {"id": image.image_id})
    assert (image_row["user_id"], image_row["thread_id"], image_row["collection"]) == (
        "jane",
        "t-images",
        "conversation",
    )
    assert (image_row["source_table"], image_row["source_id"]) == ("conversation_memory", row["id"])


def test_an_image_part_may_reference_a_stored_image_and_the_same_bytes_are_one_row(
    manager, two_tenants, backend, tmp_path, png
):
    path = tmp_path / "chart.png"
    path.write_bytes(png)
    stored = manager.ingest_file(ACME, path, description="the latency chart")
    first = manager.record_turn(
        IN_THREAD,
        "assistant",
        [{"type": "image", "image_id": stored.image_id}, {"type": "text", "text": "That is the chart."}],
    )
    second = manager.record_turn(IN_THREAD, "user", [{"type": "image", "data": png}])
    again = manager.record_turn(IN_THREAD, "user", [{"type": "image", "data": png}])
    parts = manager.read_turn(IN_THREAD, first["id"]).parts
    assert [p.type for p in parts] == ["image", "text"] and parts[0].image_id == stored.image_id
    ids = {manager.read_turn(IN_THREAD, r["id"]).parts[0].image_id for r in (second, again)}
    assert len(ids) == 1 and len(operator_rows(backend, "image_memory")) == 2


def test_another_user_reads_neither_the_turn_nor_its_image(manager, two_tenants, png):
    row = manager.record_turn(IN_THREAD, "user", [{"type": "text", "text": "mine"}, {"type": "image", "data": png}])
    image_id = manager.read_turn(IN_THREAD, row["id"]).parts[1].image_id
    with pytest.raises(NotVisible, match="is no conversation turn this caller can see"):
        manager.read_turn(BOB, row["id"])
    with pytest.raises(ImageNotVisible, match=r"content\[0\].image_id"):
        manager.record_turn(BOB, "user", [{"type": "image", "image_id": image_id}])


@pytest.mark.parametrize(
    ("parts", "field", "message"),
    [
        ([], "content", "content must be text or a non-empty list of parts"),
        ([{"type": "video", "data": b"x"}], "content[0]", 'content[0] must be a part with type "text" or "image"'),
        ([{"type": "text", "text": "  "}], "content[0].text", "content[0].text must be a non-empty string"),
        ([{"type": "image"}], "content[0]", "content[0] needs image_id (a stored image) or data (its bytes)"),
        (
            [{"type": "text", "text": "ok"}, {"type": "image", "data": b"not an image"}],
            "content[1].data",
            "part-1 is not a readable PNG, JPEG, WebP or GIF image",
        ),
    ],
)
def test_a_bad_part_is_refused_naming_it_and_nothing_is_written(manager, two_tenants, backend, parts, field, message):
    before = len(operator_rows(backend, "conversation_memory")), len(operator_rows(backend, "image_memory"))
    with pytest.raises(InvalidArgument, match=re.escape(message)) as refused:
        manager.record_turn(IN_THREAD, "user", parts)
    assert refused.value.field == field
    assert (len(operator_rows(backend, "conversation_memory")), len(operator_rows(backend, "image_memory"))) == before


def test_a_plain_text_turn_reads_back_as_one_text_part(manager, two_tenants):
    row = manager.record_turn(IN_THREAD, "user", "just words")
    assert manager.read_turn(IN_THREAD, row["id"]).parts == (TextPart("just words"),)
