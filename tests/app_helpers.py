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


def shown(manager, identity, *ids: str) -> None:
    """A search_memory call that showed `identity` these records: what makes them evidence it was given."""
    manager.log_call(
        identity,
        CallRecord(
            call_id=f"call_given_{now_iso()}",
            called_at=now_iso(),
            tool_name="search_memory",
            status="ok",
            cited_ids=ids,
        ),
    )


def pending_candidate(manager, identity=JANE_IN_REVIEW) -> dict:
    """A fact contradicting the current Helios nDCG@10 (0.78): the gate holds it pending (rule conflict)."""
    shown(manager, identity, "chk_acme_1_0")
    out = manager.remember(
        identity, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    assert out.structured["decision"] == "pending", out.text
    return out.structured


def fact_check_window(manager, identity=JANE_IN_REVIEW):
    return manager.assemble_context(identity, FACT_CHECK, "fact_check")


#: what jane remembers in `remembered_memories`: a note, a preference and a procedure the gate promotes, each
#: resting on what she said in her own turn (a note restating one passage would be a duplicate of it), and an
#: overreaching note, resting on a passage, it holds pending on its assessment
SAID = {
    "note": "My working hours are 8 to 16, Berlin time.",
    "preference": "Please give me weekly summaries instead of daily ones.",
    "procedure": "Please link the source document whenever you cite a number.",
}
NOTE = "jane works from 8 to 16 Berlin time."
PREFERENCE = "Jane prefers weekly summaries."
PROCEDURE = "Link the source document whenever you cite a number to jane."
OVERREACH = "Helios RAG beats every baseline on every dataset."


def remembered_memories(manager, identity=JANE_IN_REVIEW) -> dict[str, dict]:
    """jane's promoted note, preference and procedure (user-scoped), each from her own turn, and a note
    pending on its assessment resting on a passage a search showed her; the remember answers by content."""
    shown(manager, identity, "chk_acme_1_0")
    turns = {kind: manager.record_turn(identity, "user", text)["id"] for kind, text in SAID.items()}
    made = {}
    for kind, content, evidence in (
        ("note", NOTE, turns["note"]),
        ("preference", PREFERENCE, turns["preference"]),
        ("procedure", PROCEDURE, turns["procedure"]),
        ("note", OVERREACH, "chk_acme_1_0"),
    ):
        made[content] = manager.remember(identity, content, kind=kind, evidence=[evidence]).structured
    assert made[OVERREACH]["decision"] == "pending", made
    assert all(made[c]["decision"] == "promoted" for c in (NOTE, PREFERENCE, PROCEDURE)), made
    return made
