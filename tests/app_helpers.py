"""Helpers for the MCP App view tests: the apps preset seeded, and a pending candidate of jane's."""

from __future__ import annotations

from pathlib import Path

from context_helpers import FACT_CHECK, JANE_IN_REVIEW
from mcp.client import advertise

from memgate.manager import ACME, GLOBEX, load_tool_definitions, now_iso
from memgate.manager.registry.calllog import CallRecord

APPS_PRESET = Path(__file__).resolve().parents[1] / "config" / "toolbox.apps.json"
REVIEW_SCOPE = "memory:review"
#: what a host that renders MCP Apps declares (fastmcp.Client(extensions=APPS_HOST)): only it is offered
#: the view's own tool, review_candidate
APPS_HOST = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]


def seed_apps(manager) -> None:
    """The preset rows (show_manifest, show_memory, review_candidate) for both demo tenants."""
    for identity in (ACME, GLOBEX):
        manager.seed_tools(identity, load_tool_definitions(APPS_PRESET))


def pending_candidate(manager, identity=JANE_IN_REVIEW) -> dict:
    """A fact contradicting the current Helios nDCG@10 (0.78): the gate holds it pending (rule conflict)."""
    manager.log_call(
        identity,
        CallRecord(
            call_id=f"call_given_{now_iso()}",
            called_at=now_iso(),
            tool_name="search_memory",
            status="ok",
            cited_ids=("chk_acme_1_0",),
        ),
    )
    out = manager.remember(
        identity, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    assert out.structured["decision"] == "pending", out.text
    return out.structured


def fact_check_window(manager, identity=JANE_IN_REVIEW):
    return manager.assemble_context(identity, FACT_CHECK, "fact_check")
