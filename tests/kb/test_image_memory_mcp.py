"""Image memory over MCP: search shows an image as one record without bytes; expand and fetch_image
return its bytes as ImageContent only when asked, only to a caller who may read it, only under the cap.

The real FastMCP server in-process (fastmcp.Client), a real SQLite file, images made with Pillow.
"""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

import pytest
from fastmcp import Client
from image_helpers import image_bytes, sha256
from mcp.types import ImageContent, TextContent
from mcp_helpers import log_rows, stdio_app

from memgate.manager import ACME, load_tool_definitions
from memgate.toolbox.agent_errors import IMAGE_NOT_SHOWN, IMAGE_NOT_VISIBLE

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
SHARED_QUERY = "zebracorn telemetry dashboard"
JANE_QUERY = "quokka pipeline whiteboard"


@pytest.fixture
def gallery(manager, two_tenants, tmp_path):
    """acme's shared dashboard image, and a sketch only jane may read; their ids and bytes."""
    shared, sketch = tmp_path / "dashboard.png", tmp_path / "sketch.jpg"
    shared.write_bytes(image_bytes("PNG", (48, 32)))
    sketch.write_bytes(image_bytes("JPEG", (20, 20), color=(0, 90, 200)))
    a = manager.ingest_file(ACME, shared, description="The orbital zebracorn telemetry dashboard, August")
    b = manager.ingest_file(ACME, sketch, user_id="jane", description="Jane's whiteboard sketch of the quokka pipeline")
    return {"shared": (a.image_id, shared.read_bytes()), "jane": (b.image_id, sketch.read_bytes())}


def served(sqlite_path, **who):
    app, manager = stdio_app(sqlite_path, **who)
    return app, manager


def texts(result) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def images_in(result) -> list[ImageContent]:
    return [c for c in result.content if isinstance(c, ImageContent)]


async def test_a_search_finds_an_image_by_its_description_as_one_record_without_its_bytes(sqlite_path, gallery):
    image_id, data = gallery["shared"]
    app, manager = served(sqlite_path)
    async with Client(app) as c:
        found = await c.call_tool("search_memory", {"query": SHARED_QUERY})
    manager.close()
    text = texts(found)
    assert images_in(found) == [] and [type(x) for x in found.content] == [TextContent]
    assert text.count(f'id="{image_id}"') == 1
    assert (
        f'id="{image_id}" type="image" status="evidence"' in text
        and f'mime="image/png" width="48" height="32" bytes="{len(data)}"' in text
        and "orbital zebracorn telemetry dashboard" in text
    )
    assert base64.b64encode(data).decode()[:40] not in text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_expand_with_include_bytes_returns_the_image_with_the_same_sha256(sqlite_path, backend, gallery, mode):
    image_id, data = gallery["shared"]
    app, manager = served(sqlite_path)
    async with Client(app, mode=mode) as c:
        await c.call_tool("search_memory", {"query": SHARED_QUERY})
        plain = await c.call_tool("expand", {"memory_id": image_id})
        full = await c.call_tool("expand", {"memory_id": image_id, "include_bytes": True})
    manager.close()
    assert images_in(plain) == [] and "bytes sent: no" in texts(plain)
    [image] = images_in(full)
    assert image.mime_type == "image/png" and sha256(base64.b64decode(image.data)) == sha256(data)
    assert "bytes sent: yes" in texts(full) and f'id="{image_id}" type="image"' in texts(full)
    # the call log keeps the text the model saw, never the bytes
    logged = [r["result_text"] for r in log_rows(backend, tool_name="expand")]
    assert len(logged) == 2 and not any(image.data[:40] in t for t in logged)


async def test_expand_refuses_an_image_id_no_result_showed_the_caller(sqlite_path, backend, gallery):
    image_id, _ = gallery["shared"]
    app, manager = served(sqlite_path)
    async with Client(app) as c:
        never_shown = await c.call_tool("expand", {"memory_id": image_id, "include_bytes": True}, raise_on_error=False)
    manager.close()
    assert never_shown.is_error and texts(never_shown) == IMAGE_NOT_SHOWN and images_in(never_shown) == []
    assert [r["status"] for r in log_rows(backend, tool_name="expand")] == ["denied"]


async def test_a_caller_of_another_tenant_gets_nothing(sqlite_path, backend, manager, gallery):
    image_id, _ = gallery["shared"]
    acme, first = served(sqlite_path)
    async with Client(acme) as c:  # shown to acme's jane: that issues nothing to globex
        await c.call_tool("search_memory", {"query": SHARED_QUERY})
    first.close()
    manager.seed_tools(replace(ACME, tenant="globex"), load_tool_definitions(ROOT / "config" / "toolbox.images.json"))
    globex, second = served(sqlite_path, tenant="globex", user="omar", agent="support-bot")
    async with Client(globex) as c:
        found = await c.call_tool("search_memory", {"query": SHARED_QUERY})
        expanded = await c.call_tool("expand", {"memory_id": image_id, "include_bytes": True}, raise_on_error=False)
        fetched = await c.call_tool("fetch_image", {"image_id": image_id}, raise_on_error=False)
        queried = await c.call_tool(
            "execute_query",
            {"query": "SELECT count(*) AS n FROM knowledge_base_document WHERE mime_type LIKE 'image/%'"},
        )
    second.close()
    assert image_id not in texts(found) and 'type="image"' not in texts(found)
    assert (texts(expanded), texts(fetched)) == (IMAGE_NOT_SHOWN, IMAGE_NOT_VISIBLE)
    assert images_in(expanded) == images_in(fetched) == []
    assert "| 0 |" in texts(queried)


async def test_another_user_gets_nothing_of_an_image_scoped_to_jane(sqlite_path, manager, gallery):
    jane_id, data = gallery["jane"]
    shared_id, _ = gallery["shared"]
    manager.seed_tools(ACME, load_tool_definitions(ROOT / "config" / "toolbox.images.json"))
    app, first = served(sqlite_path)
    async with Client(app) as c:  # jane finds and opens her own sketch
        assert jane_id in texts(await c.call_tool("search_memory", {"query": JANE_QUERY}))
        [mine] = images_in(await c.call_tool("fetch_image", {"image_id": jane_id}))
    first.close()
    assert sha256(base64.b64decode(mine.data)) == sha256(data)
    bob, second = served(sqlite_path, user="bob")
    async with Client(bob) as c:
        found = await c.call_tool("search_memory", {"query": JANE_QUERY + " " + SHARED_QUERY})
        expanded = await c.call_tool("expand", {"memory_id": jane_id, "include_bytes": True}, raise_on_error=False)
        fetched = await c.call_tool("fetch_image", {"image_id": jane_id}, raise_on_error=False)
    second.close()
    assert jane_id not in texts(found) and "whiteboard sketch" not in texts(found) and shared_id in texts(found)
    assert (texts(expanded), texts(fetched)) == (IMAGE_NOT_SHOWN, IMAGE_NOT_VISIBLE)


async def test_an_image_over_max_image_bytes_gets_one_sentence_with_its_size(sqlite_path, manager, gallery):
    image_id, data = gallery["shared"]
    manager.seed_tools(ACME, load_tool_definitions(ROOT / "config" / "toolbox.images.json"))
    app, served_manager = served(sqlite_path, **{"caps.max_image_bytes": 64})
    async with Client(app) as c:
        await c.call_tool("search_memory", {"query": SHARED_QUERY})
        expanded = await c.call_tool("expand", {"memory_id": image_id, "include_bytes": True})
        fetched = await c.call_tool("fetch_image", {"image_id": image_id})
    served_manager.close()
    sentence = (
        f"Image {image_id} is {len(data):,} bytes, more than the 64 bytes a result may carry "
        "(caps.max_image_bytes), so its bytes are not sent; use its description."
    )
    assert texts(expanded) == texts(fetched) == sentence
    assert images_in(expanded) == images_in(fetched) == [] and not expanded.is_error


async def test_fetch_image_is_not_a_default_tool_and_serves_what_the_wall_lets_the_caller_read(
    sqlite_path, manager, gallery
):
    image_id, data = gallery["shared"]
    assert "fetch_image" not in {d["tool_handler"] for d in load_tool_definitions()}
    manager.seed_tools(ACME, load_tool_definitions(ROOT / "config" / "toolbox.images.json"))
    app, served_manager = served(sqlite_path)
    async with Client(app) as c:
        tool = next(t for t in await c.list_tools() if t.name == "fetch_image")
        fetched = await c.call_tool("fetch_image", {"image_id": image_id})
        unknown = await c.call_tool("fetch_image", {"image_id": "img_nothing"}, raise_on_error=False)
    served_manager.close()
    assert tool.annotations.read_only_hint is True
    [image] = images_in(fetched)
    assert base64.b64decode(image.data) == data and f'id="{image_id}" type="image"' in texts(fetched)
    assert texts(unknown) == IMAGE_NOT_VISIBLE


async def test_execute_query_reads_images_as_their_description_documents_never_their_bytes(sqlite_path, gallery):
    app, served_manager = served(sqlite_path)
    async with Client(app) as c:
        listed = await c.call_tool(
            "execute_query",
            {
                "query": "SELECT d.title, d.mime_type, c.content FROM knowledge_base_document AS d "
                "JOIN knowledge_base_chunk AS c ON c.document_id = d.id "
                "WHERE d.mime_type LIKE 'image/%' ORDER BY d.title"
            },
        )
        refused = await c.call_tool("execute_query", {"query": "SELECT bytes FROM image_memory"}, raise_on_error=False)
    served_manager.close()
    assert (
        "| dashboard.png | image/png | The orbital zebracorn telemetry dashboard, August\\n\\ndashboard.png |"
        in texts(listed)
    )
    assert "| sketch.jpg | image/jpeg |" in texts(listed)
    assert refused.is_error and "not on the allowed list" in texts(refused)
