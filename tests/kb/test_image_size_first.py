"""An image over caps.max_image_bytes is refused before its bytes are read from the database.

The size is checked on the image's metadata (image_meta.sql); only an image under the cap
is read with its bytes (image_bytes.sql, the one statement that reads them). SQLite's trace
callback on the pooled connections shows which statements ran: for an oversized image the
metadata statement and never the bytes statement. The same trace under a cap the image fits
shows the bytes statement, so the test sees it when it runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from image_helpers import image_bytes

from memgate.manager import ACME, MemoryManager
from memgate.manager.limits import CapsSettings

ROOT = Path(__file__).resolve().parents[2]
META = "SELECT id, document_id, collection, title, description, mime_type"
BYTES = "byte_size, sha256, bytes\nFROM image_memory"


@pytest.fixture
def image_id(manager, two_tenants, tmp_path):
    path = tmp_path / "dashboard.png"
    path.write_bytes(image_bytes("PNG", (48, 32)))
    return manager.ingest_file(ACME, path, description="The orbital zebracorn telemetry dashboard").image_id


def _traced(backend, call) -> list[str]:
    """The statements `call` ran on the backend's pooled connections (warmed first, so it reuses them)."""
    for _ in range(2):
        with backend.session(ACME), backend.session(ACME):
            pass
    ran: list[str] = []
    for pooled in backend._pool.idle:
        pooled.conn.set_trace_callback(ran.append)
    try:
        call()
    finally:
        for pooled in backend._pool.idle:
            pooled.conn.set_trace_callback(None)
    return ran


def test_the_statements_are_the_named_ones():
    assert (ROOT / "sql/sqlite/image_meta.sql").read_text().count(META) == 1
    assert (ROOT / "sql/sqlite/image_bytes.sql").read_text().count(BYTES) == 1


def test_an_oversized_image_is_refused_on_its_size_and_its_bytes_are_never_read(backend, image_id):
    small = MemoryManager(backend, CapsSettings(max_image_bytes=64))
    outputs = []
    ran = _traced(backend, lambda: outputs.append(small.fetch_image(ACME, image_id)))
    assert "more than the 64 bytes a result may carry" in outputs[0].text and not outputs[0].images
    assert any(META in sql for sql in ran)
    assert not any(BYTES in sql for sql in ran)


def test_an_image_under_the_cap_is_read_with_its_bytes(backend, image_id):
    outputs = []
    ran = _traced(backend, lambda: outputs.append(MemoryManager(backend).fetch_image(ACME, image_id)))
    assert outputs[0].images
    assert [i for i, sql in enumerate(ran) if META in sql] < [i for i, sql in enumerate(ran) if BYTES in sql]
