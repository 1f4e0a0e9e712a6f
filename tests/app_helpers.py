"""Helpers for the MCP App view tests: the apps preset seeded, and a pending candidate of jane's."""

from __future__ import annotations

from pathlib import Path

from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager import ACME, GLOBEX, load_tool_definitions, now_iso
from memgate.manager.registry.calllog import CallRecord

APPS_PRESET = Path(__file__).resolve().parents[1] / "config" / "toolbox.apps.json"
REVIEW_SCOPE = "memory:review"


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


#: what jane remembers in `remembered_memories`: a note, a preference and a procedure the gate promotes,
#: and an overreaching note it holds pending on its assessment
NOTE = "The August re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78."
PREFERENCE = "The July figure of 0.92 was computed against qrels that leaked test queries; it is withdrawn."
PROCEDURE = "Recall@100 stayed at 0.91."
OVERREACH = "Helios RAG beats every baseline on every dataset."


def remembered_memories(manager, identity=JANE_IN_REVIEW) -> dict[str, dict]:
    """jane's promoted note, preference and procedure (user-scoped), and a note pending on its assessment,
    each resting on a passage a search showed her; the remember answers by content."""
    shown(manager, identity, "chk_acme_1_0", "chk_acme_1_1")
    made = {}
    for kind, content, evidence in (
        ("note", NOTE, "chk_acme_1_0"),
        ("preference", PREFERENCE, "chk_acme_1_0"),
        ("procedure", PROCEDURE, "chk_acme_1_1"),
        ("note", OVERREACH, "chk_acme_1_0"),
    ):
        made[content] = manager.remember(identity, content, kind=kind, evidence=[evidence]).structured
    assert made[OVERREACH]["decision"] == "pending" and made[NOTE]["decision"] == "promoted", made
    return made
