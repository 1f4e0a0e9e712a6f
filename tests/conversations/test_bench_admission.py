"""bench.conversations asks each question under recall's first admission rule and today's in one run
(bench/recall_admission.py), on a tiny zip shaped like LoCoMo's made here (LoCoMo itself is never read by
a test): the first rule brings a session with none of the evidence along behind the matching turn,
today's does not, and both admit the evidence."""

from __future__ import annotations

from locomo_helpers import filler_sample, write_zip

from bench import conversations, recall_admission


def _sample(a: str, b: str, place: str) -> dict:
    sample = filler_sample(a, b, turns=4)
    sample["session_1"][0] = {"speaker": b, "dia_id": "D1:1", "text": f"Did you enjoy the hiking trip to {place}?"}
    sample["session_1"][1] = {"speaker": a, "dia_id": "D1:2", "text": f"Loved {place}, we saw golden eagles hiking!"}
    sample["qa"] = [
        {"question": f"What did {a} see hiking in {place}?", "answer": "eagles", "evidence": ["D1:2"], "category": 4}
    ]
    return sample


def test_both_rules_admit_the_evidence_and_only_the_first_brings_unrelated_sessions(tmp_path):
    from memgate.manager import DatabaseSettings, MemoryManager, open_backend

    path = write_zip(
        tmp_path / "tiny_locomo.zip",
        {"locomo/1.json": _sample("Ann", "Bob", "Skye"), "locomo/2.json": _sample("Cy", "Di", "Arran")},
    )
    manager = MemoryManager(open_backend(DatabaseSettings(path=tmp_path / "bench.db")))
    try:
        data = conversations.run_locomo(manager, conversations.load_locomo(path), tuned=["1"])
    finally:
        manager.close()
    before, now = data["admission"]["floor_once (before)"], data["admission"]["each_at_floor (now)"]
    for part in ("tuning", "held_out"):
        assert before[part]["questions"] == now[part]["questions"] == 1
        assert before[part]["window_evidence"] == now[part]["window_evidence"] == 1.0
        assert before[part]["turns_from_sessions_without_evidence"] > 0, before[part]
        assert now[part]["turns_from_sessions_without_evidence"] == 0, now[part]
        assert now[part]["asked_elsewhere"] == 1
    assert "| floor_once (before) | held out | 1 | 1.0 |" in recall_admission.table(data["admission"])
