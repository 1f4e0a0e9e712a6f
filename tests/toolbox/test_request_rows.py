"""The rows the step-up check read are the provider's for the rest of that request, and for nothing else.

The provider takes them only for the same tenant, user, agent, thread and tool name, and only
inside the request; the dispatcher's re-read never takes them, so a row disabled after they
were read is still refused when the call runs.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from fastmcp.exceptions import ToolError
from mcp_helpers import log_rows
from test_dispatch_recheck import ARGS, GONE, other_process, provider  # noqa: F401 - fixtures by name

from memgate.manager import ACME
from memgate.toolbox import rows_read
from memgate.toolbox.rows import GoneTool, RowTool

pytestmark = pytest.mark.anyio


async def test_the_provider_takes_the_rows_this_request_read_and_the_dispatcher_still_rereads(
    provider, manager, backend, other_process
):
    read = manager.active_tools(ACME, "lookup_entity")
    other_process.set_tool_enabled(ACME, "lookup_entity", False)
    with rows_read(ACME, "lookup_entity", read):
        tool = await provider._get_tool("lookup_entity")
        assert isinstance(tool, RowTool), "the provider read the database again instead of the request's rows"
        with pytest.raises(ToolError, match=f"^{GONE}$"):
            await tool.run(ARGS)
    [row] = log_rows(backend)
    assert (row["status"], row["error_class"]) == ("denied", "RowGone")


@pytest.mark.parametrize(
    "who, name",
    [
        (replace(ACME, user="bob"), "lookup_entity"),
        (replace(ACME, agent=None), "lookup_entity"),
        (replace(ACME, thread="another"), "lookup_entity"),
        (replace(ACME, tenant="globex"), "lookup_entity"),
        (ACME, "search_memory"),
    ],
)
async def test_rows_read_for_another_caller_or_name_are_not_taken(provider, manager, other_process, who, name):
    read = manager.active_tools(ACME, "lookup_entity")
    other_process.set_tool_enabled(ACME, "lookup_entity", False)
    with rows_read(who, name, read):
        assert isinstance(await provider._get_tool("lookup_entity"), GoneTool)


async def test_rows_read_end_with_the_request(provider, manager, other_process):
    read = manager.active_tools(ACME, "lookup_entity")
    with rows_read(ACME, "lookup_entity", read):
        pass
    other_process.set_tool_enabled(ACME, "lookup_entity", False)
    assert isinstance(await provider._get_tool("lookup_entity"), GoneTool)
