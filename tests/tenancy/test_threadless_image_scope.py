"""Which callers may expand an image id a result showed, by the scope rules of the call log.

An image id is issued by the result that showed it, and the call log that records this is cut by
the wall to the caller's tenant, user and agent, and to its thread where the row has one (NULL is
shared at that level). So an image shown in a session without a thread is expandable from any
thread of the same user and agent, and from no other user, agent or tenant; one shown in a thread
stays in that thread. docs/memory.md ("Scope of what a result showed") says the same.
"""

from __future__ import annotations

import pytest
from fastmcp import Client
from image_helpers import image_bytes
from mcp_helpers import stdio_app

from memgate.manager import ACME
from memgate.toolbox.agent_errors import IMAGE_NOT_SHOWN

pytestmark = pytest.mark.anyio

AGENT = "research-assistant"


@pytest.fixture
def shared_image(manager, two_tenants, tmp_path):
    """An image every acme user may read (no user or agent on its row)."""
    path = tmp_path / "dashboard.png"
    path.write_bytes(image_bytes("PNG", (40, 30)))
    return manager.ingest_file(ACME, path, description="The zebracorn telemetry dashboard, August").image_id


async def _call(sqlite_path, tool, arguments, **who):
    app, manager = stdio_app(sqlite_path, **who)
    try:
        async with Client(app) as c:
            return await c.call_tool(tool, arguments, raise_on_error=False)
    finally:
        manager.close()


async def _show(sqlite_path, image_id, **who):
    found = await _call(sqlite_path, "search_memory", {"query": "zebracorn telemetry dashboard"}, **who)
    assert f'id="{image_id}" type="image"' in found.content[0].text


async def _expand(sqlite_path, image_id, **who) -> str:
    result = await _call(sqlite_path, "expand", {"memory_id": image_id}, **who)
    text = result.content[0].text
    return (
        "refused"
        if result.is_error and text == IMAGE_NOT_SHOWN
        else ("expanded" if f'id="{image_id}"' in text else text)
    )


async def test_an_image_shown_without_a_thread_expands_in_any_thread_of_that_user_and_agent(sqlite_path, shared_image):
    await _show(sqlite_path, shared_image, user="jane", agent=AGENT, thread=None)
    outcomes = {
        who: await _expand(
            sqlite_path, shared_image, **dict(zip(("tenant", "user", "agent", "thread"), who, strict=True))
        )
        for who in [
            ("acme", "jane", AGENT, None),
            ("acme", "jane", AGENT, "thread-one"),
            ("acme", "jane", AGENT, "thread-two"),
            ("acme", "bob", AGENT, "thread-one"),
            ("acme", "jane", "other-agent", "thread-one"),
            ("acme", "jane", "other-agent", None),
        ]
    }
    assert outcomes == {
        ("acme", "jane", AGENT, None): "expanded",
        ("acme", "jane", AGENT, "thread-one"): "expanded",
        ("acme", "jane", AGENT, "thread-two"): "expanded",
        ("acme", "bob", AGENT, "thread-one"): "refused",  # another user: the log row is jane's
        ("acme", "jane", "other-agent", "thread-one"): "refused",  # another agent
        ("acme", "jane", "other-agent", None): "refused",
    }
    globex = await _call(sqlite_path, "expand", {"memory_id": shared_image}, tenant="globex", user="jane", agent=AGENT)
    assert globex.is_error and f'id="{shared_image}"' not in globex.content[0].text  # never across tenants


async def test_an_image_shown_in_a_thread_expands_only_in_that_thread(sqlite_path, shared_image):
    await _show(sqlite_path, shared_image, user="jane", agent=AGENT, thread="thread-one")
    assert await _expand(sqlite_path, shared_image, user="jane", agent=AGENT, thread="thread-one") == "expanded"
    assert await _expand(sqlite_path, shared_image, user="jane", agent=AGENT, thread="thread-two") == "refused"
    assert await _expand(sqlite_path, shared_image, user="jane", agent=AGENT, thread=None) == "refused"
