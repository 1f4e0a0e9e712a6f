"""bench.recall_study runs end to end on a tiny zip shaped like LoCoMo's (made here; LoCoMo itself is never
read by a test): its turns indexed and embedded, every variant ranked, both parts of the split reported."""

from __future__ import annotations

import json

from locomo_helpers import filler_sample, write_zip

from bench import recall_study
from bench.recall_data import load_locomo


def _conversation(a: str, b: str, place: str) -> dict:
    sessions = filler_sample(a, b, turns=6)
    # Session 2: b asks about the trip, a's reply (the evidence) shares no word with the question.
    sessions["session_2"][2] = {"speaker": b, "dia_id": "D2:3", "text": f"Did you enjoy the hiking trip to {place}?"}
    sessions["session_2"][3] = {"speaker": a, "dia_id": "D2:4", "text": "Loved it, we saw eagles yesterday!"}
    sessions["qa"] = [
        {
            "question": f"What did {a} see on the hiking trip to {place}?",
            "answer": "eagles",
            "evidence": ["D2:4"],
            "category": 4,
        },
        {"question": f"When did {a} go hiking?", "answer": "8 May", "evidence": ["D2:04"], "category": 2},
        {"question": "Anything adversarial?", "answer": "", "evidence": ["D1:1"], "category": 5},
        {"question": "No evidence named", "answer": "", "evidence": [], "category": 1},
    ]
    return sessions


def _zip(tmp_path):
    return write_zip(
        tmp_path / "tiny_locomo.zip",
        {
            "data/multimodal_dialog/locomo10_v2/30.json": _conversation("Ann", "Bob", "Skye"),
            "data/multimodal_dialog/locomo10_v2/4.json": _conversation("Cy", "Di", "Arran"),
        },
    )


def test_the_loader_keeps_categories_1_to_4_with_evidence_and_maps_each_dia_id_to_its_turn(tmp_path):
    data = load_locomo(_zip(tmp_path))
    assert sorted(data.turns) == [0, 1] and data.turns[0][0].thread == "u0-S1"  # file 4 before file 30
    assert [(q.user, q.category, sorted(q.evidence)) for q in data.questions] == [
        (0, 4, [("u0-S2", 4)]),
        (0, 2, [("u0-S2", 4)]),  # D2:04 is D2:4
        (1, 4, [("u1-S2", 4)]),
        (1, 2, [("u1-S2", 4)]),
    ]


def test_the_study_reports_every_variant_beside_bm25_for_the_tuned_and_held_out_parts(tmp_path, capsys):
    assert (
        recall_study.main([str(_zip(tmp_path)), "--tune", "0", "--embedder", "hashing", "--results", str(tmp_path)])
        == 0
    )
    out = capsys.readouterr().out
    result = json.loads((tmp_path / "recall_study_hashing.json").read_text())
    assert result["questions"] == {"held out": 2, "tuned": 2} and result["tuned_on_conversations"] == [0]
    for part in ("held out", "tuned"):
        figures = result["figures"][part]
        assert set(figures) == {"rank_bm25 (floor)", *recall_study.VARIANTS}
        assert all(0.0 <= f[f"R@{k}"] <= 1.0 for f in figures.values() for k in recall_study.K)
        # The reply names nothing the question asks, so the lexical leg misses it; the question it answers,
        # which the lexical leg finds, brings it back as a neighbour; and the vector leg finds it because
        # a turn is embedded with the turn it replies to.
        assert figures["FTS5 lexical alone"]["R@60"] == 0.0
        assert figures["recommended, no vector leg"]["R@5"] == 1.0 and figures["vector alone"]["R@5"] == 1.0
        assert figures[recall_study.RECOMMENDED]["R@5"] == 1.0
    assert "### held out: 2 questions" in out and "load average" in out and "rank_bm25 (floor)" in out
    assert set(result["timing_ms"]) >= {"rank_bm25 (floor)", "recall leg", "rank_turns"}
