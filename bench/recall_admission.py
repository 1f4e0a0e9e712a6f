"""Which recalled turns a window admits under recall's first rule and under today's, in one run.

Part of `python3 -m bench.conversations` (docs/benchmarks.md, Conversations remembered): on the
LoCoMo users it imported, each question is asked again under each admission rule of
manager/conversations/recall.py (`floor_once`: every ranked turn once the question's relevance reaches
the floor; `each_at_floor`: each turn by its own share of it, and the turns beside one), each in a
fresh thread. Per rule, for the tuning and the held-out conversations:

- the share of each question's evidence turns the window admits, and its turns per question;
- unrelated turns, two ways: the admitted turns from sessions that hold none of the question's
  evidence (LoCoMo's sessions are the product's conversations here), and the turns admitted for a
  question of another LoCoMo conversation (QUESTIONS_ASKED_ELSEWHERE of them per user, the same for
  every rule, whose evidence this user never said), with the share of those that recall none.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .common import markdown_table

if TYPE_CHECKING:
    from memgate.manager import Identity

__all__ = ["QUESTIONS_ASKED_ELSEWHERE", "compare", "table"]

#: questions of other conversations asked of each user (a fixed sample, the same under each rule)
QUESTIONS_ASKED_ELSEWHERE = 20


def _session(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


def compare(
    manager,
    samples: Sequence[tuple[str, dict]],
    users: Mapping[str, Identity],
    dia_of: Mapping[str, str],
    questions: Mapping[str, Sequence[tuple[dict, set[str]]]],
    tuned: Sequence[str],
    intent: str,
) -> dict:
    """Per rule, the window's admission and unrelated turns; `questions` are each conversation's
    questions with their evidence turns (LoCoMo dia ids), `dia_of` a turn id's dia id."""
    from memgate.manager.conversations import recall

    rng = random.Random(7)
    elsewhere = {
        stem: rng.sample(
            [qa["question"] for other, asked in questions.items() if other != stem for qa, _ in asked],
            min(QUESTIONS_ASKED_ELSEWHERE, sum(len(a) for o, a in questions.items() if o != stem)),
        )
        for stem, _ in samples
    }
    rules = {"floor_once (before)": recall.floor_once, "each_at_floor (now)": recall.each_at_floor}
    saved, out = recall.ADMISSION, {}
    try:
        for key, (name, rule) in enumerate(rules.items()):
            recall.ADMISSION = rule
            rows, foreign = [], []
            for stem, _ in samples:
                who = users[stem]
                for n, (qa, evidence) in enumerate(questions[stem]):
                    window = manager.assemble_context(replace(who, thread=f"a{key}-{stem}-{n}"), qa["question"], intent)
                    admitted = [dia_of[m["memory_id"]] for m in window.manifest["memories"] if m["memory_id"] in dia_of]
                    sessions = {_session(e) for e in evidence}
                    rows.append(
                        {
                            "conversation": stem,
                            "window": len(evidence & set(admitted)) / len(evidence),
                            "turns": len(admitted),
                            "unrelated": sum(_session(a) not in sessions for a in admitted),
                        }
                    )
                for n, question in enumerate(elsewhere[stem]):
                    window = manager.assemble_context(replace(who, thread=f"e{key}-{stem}-{n}"), question, intent)
                    turns = sum(m["memory_id"] in dia_of for m in window.manifest["memories"])
                    foreign.append({"conversation": stem, "turns": turns})
            out[name] = {
                "tuning": _summary([r for r in rows if r["conversation"] in tuned], foreign, tuned, True),
                "held_out": _summary([r for r in rows if r["conversation"] not in tuned], foreign, tuned, False),
            }
    finally:
        recall.ADMISSION = saved
    return out


def _summary(rows: list[dict], foreign: list[dict], tuned: Sequence[str], tuning: bool) -> dict:
    asked = [f["turns"] for f in foreign if (f["conversation"] in tuned) == tuning]
    if not rows:
        return {"questions": 0}
    return {
        "questions": len(rows),
        "window_evidence": round(statistics.fmean(r["window"] for r in rows), 3),
        "turns_per_question": round(statistics.fmean(r["turns"] for r in rows), 1),
        "turns_from_sessions_without_evidence": round(statistics.fmean(r["unrelated"] for r in rows), 1),
        "asked_elsewhere": len(asked),
        "asked_elsewhere_recall_none": round(sum(t == 0 for t in asked) / len(asked), 3) if asked else None,
        "asked_elsewhere_turns": round(statistics.fmean(asked), 1) if asked else None,
    }


def table(data: dict) -> str:
    rows = []
    for rule, parts in data.items():
        for part, s in (("tuning", parts["tuning"]), ("held out", parts["held_out"])):
            if not s.get("questions"):
                continue
            rows.append(
                [
                    rule,
                    part,
                    s["questions"],
                    s["window_evidence"],
                    s["turns_per_question"],
                    s["turns_from_sessions_without_evidence"],
                    s["asked_elsewhere"],
                    s["asked_elsewhere_recall_none"],
                    s["asked_elsewhere_turns"],
                ]
            )
    return markdown_table(
        [
            "admission rule",
            "conversations",
            "questions",
            "window admits (evidence share)",
            "turns/question",
            "of them from sessions without evidence",
            "questions of other conversations",
            "recalling none",
            "turns/question",
        ],
        rows,
    )
