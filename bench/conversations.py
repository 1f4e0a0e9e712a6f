"""Conversations remembered, on LoCoMo: does what a user said in one session come back in the next?

    python3 -m bench.conversations                       # ../shared/data/locomo10.zip, every conversation
    python3 -m bench.conversations PATH.zip --conversations 26,30   # some conversations (tuning, held out)
    python3 -m bench.conversations --results DIR --no-perf          # recall only (skip the timing parts)

Recall (LoCoMo: Maharana et al. 2024, public; the data is never committed, read from the path given):
each conversation is imported through `memgate turn import`'s code path (MemoryManager.import_conversations:
each dated session its own thread of one user and agent, dates kept), one user per conversation; each
category 1-4 question is then asked in a fresh thread of that user through context assembly
(`assemble_context`, intent fact_check, the budget BENCH_BUDGET below, set with a policy update as
`memgate budget set` does). Per category: the share of evidence turns the assembled window admits, turns
per question, recall@5 and @10 of the recall leg alone (MemoryManager.recall_conversations, turn level:
are the evidence turns among the top k turns), window tokens, assembly p50/p95; beside rank_bm25 over the
same turn texts ("Speaker (8 May 2023): words", lower-cased word tokens, memgate's stop list) at the same
k and at the number of turns the window admitted for that question.

Constraint recovery: 20 conversations of their own (no LoCoMo data), each compacted five times, with a
pinned constraint (a guideline): the share of the identifiers, amounts and dates the turns held that
are exact in a summary or the window's tail after the fifth cycle, and whether the constraint is whole in
every window.

Timing (read with the load average; each figure beside a floor measured in the same run): appending a
turn at 100 and at 20,000 turns of one thread (the ratio); importing all of LoCoMo (turns/s); assembly
p95 on LoCoMo's largest conversation and at 20,000 turns of one user, beside the floor, a window of a
user with no turns.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from . import recall_admission
from .common import machine, machine_line, markdown_table, summary_ms, write_result

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "locomo10.zip"
TENANT = "bench"
INTENT = "fact_check"
#: the window the questions are asked with: 8,000 usable tokens, most of the variable part for
#: recalled history (there is no knowledge base or claim to show), a tail for the fresh thread
BENCH_BUDGET = {
    "usable_context": 8000,
    "output_reserve": 1000,
    "tool_reserve": 1000,
    "request_overhead_reserve": 500,
    "shares": {INTENT: {"durable_facts": 0.05, "evidence": 0.05, "recalled_history": 0.85, "volatile_tail": 0.05}},
    "overflow_order": ["recalled_history", "evidence", "durable_facts", "volatile_tail"],
}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_WORD = re.compile(r"[a-z0-9]+")


def load_locomo(path: Path, only: Sequence[str] = ()) -> list[tuple[str, dict]]:
    """(name, sample) of each conversation in the zip, in file order; `only` keeps those named."""
    out = []
    with zipfile.ZipFile(path) as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".json")):
            stem = Path(name).stem
            if not only or stem in only:
                out.append((stem, json.loads(z.read(name))))
    return out


def _evidence(qa: dict) -> set[str]:
    return {f"D{s}:{t}" for e in qa.get("evidence") or () for s, t in _EVIDENCE.findall(str(e))}


def _tokens(text: str, stop: frozenset[str]) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in stop]


def _recall(ranked: Sequence[str], evidence: set[str], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def run_locomo(manager, samples: list[tuple[str, dict]], tuned: Sequence[str] = ()) -> dict:
    from rank_bm25 import BM25Okapi

    from memgate.manager import Identity
    from memgate.manager.backend.query_terms import STOP_WORDS

    tenant = Identity(tenant=TENANT, principal="bench")
    manager.set_context_budget(tenant, BENCH_BUDGET)
    imported, started = 0, time.perf_counter()
    users = {}
    for stem, sample in samples:
        who = Identity(tenant=TENANT, user=f"u{stem}", agent="assistant", principal="bench")
        report = manager.import_conversations(who, json.dumps({**sample, "id": f"c{stem}"}))
        imported += report.turns
        users[stem] = who
    import_s = time.perf_counter() - started
    with manager.backend.operator_session() as s:
        turns = s.raw(
            "SELECT m.id, m.user_id, json_extract(m.content_json, '$.ref') AS ref, r.content AS text"
            " FROM base_conversation_memory m JOIN base_conversation_recall r ON r.id = m.id"
            " WHERE m.tenant_id = :t AND m.event_type = 'turn'",
            {"t": TENANT},
        )
    dia_of = {t["id"]: t["ref"] for t in turns}
    per_user: dict[str, list[dict]] = {}  # turns by user id (every bench user has one)
    for t in turns:
        per_user.setdefault(t["user_id"] or "", []).append(t)
    rows: list[dict] = []
    questions = {
        stem: [
            (qa, _evidence(qa) & set(dia_of.values()))
            for qa in sample["qa"]
            if qa.get("category") in CATEGORIES and _evidence(qa) & set(dia_of.values())
        ]
        for stem, sample in samples
    }
    for stem, _sample in samples:
        who = users[stem]
        corpus = per_user[who.user or ""]
        bm25 = BM25Okapi([_tokens(t["text"], STOP_WORDS) for t in corpus])
        for n, (qa, evidence) in enumerate(questions[stem]):
            asker = replace(who, thread=f"q{stem}-{n}")
            t0 = time.perf_counter()
            window = manager.assemble_context(asker, qa["question"], INTENT)
            ms = (time.perf_counter() - t0) * 1000
            admitted = [dia_of[m["memory_id"]] for m in window.manifest["memories"] if m["memory_id"] in dia_of]
            leg = [
                dia_of[r.candidate.id]
                for r in manager.recall_conversations(asker, qa["question"], limit=10)
                if r.candidate.id in dia_of
            ]
            scores = bm25.get_scores(_tokens(qa["question"], STOP_WORDS))
            order = sorted(range(len(corpus)), key=lambda i: -scores[i])
            peer = [corpus[i]["ref"] for i in order[: max(10, len(admitted))]]
            rows.append(
                {
                    "conversation": stem,
                    "category": qa["category"],
                    "window": len(evidence & set(admitted)) / len(evidence),
                    "turns": len(admitted),
                    "tokens": window.tokens,
                    "ms": ms,
                    "r5": _recall(leg, evidence, 5),
                    "r10": _recall(leg, evidence, 10),
                    "bm25_r5": _recall(peer, evidence, 5),
                    "bm25_r10": _recall(peer, evidence, 10),
                    "bm25_window": _recall(peer, evidence, len(admitted)),
                }
            )
    return {
        "conversations": [stem for stem, _ in samples],
        "turns": imported,
        "import_s": round(import_s, 2),
        "import_turns_per_s": round(imported / import_s, 1) if import_s else None,
        "questions": len(rows),
        "by_category": {name: _summary([r for r in rows if r["category"] == c]) for c, name in CATEGORIES.items()},
        "all": _summary(rows),
        "tuned_on": list(tuned),
        "held_out": _summary([r for r in rows if r["conversation"] not in tuned]),
        "largest_conversation": _largest(rows, per_user, users),
        "admission": recall_admission.compare(manager, samples, users, dia_of, questions, tuned, INTENT),
    }


def _summary(rows: list[dict]) -> dict:
    if not rows:
        return {"questions": 0}

    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 3)

    return {
        "questions": len(rows),
        "window_evidence": mean("window"),
        "turns_per_question": round(statistics.fmean(r["turns"] for r in rows), 1),
        "recall@5": mean("r5"),
        "recall@10": mean("r10"),
        "bm25@5": mean("bm25_r5"),
        "bm25@10": mean("bm25_r10"),
        "bm25@window": mean("bm25_window"),
        "window_tokens": round(statistics.fmean(r["tokens"] for r in rows)),
        "assembly": summary_ms([r["ms"] for r in rows]),
    }


def _largest(rows: list[dict], per_user: dict, users: dict) -> dict:
    stem = max(users, key=lambda s: len(per_user[users[s].user]))
    return {
        "conversation": stem,
        "turns": len(per_user[users[stem].user]),
        **_summary([r for r in rows if r["conversation"] == stem]),
    }


def constraint_recovery(manager, conversations: int = 20, cycles: int = 5) -> dict:
    """The article's dashboard number: a pinned constraint and every identifier, amount and date, exact after
    `cycles` compactions of each of `conversations` conversations (their own data, extractive summariser)."""
    from memgate.manager import Identity
    from memgate.manager.claims import guidelines
    from memgate.manager.clock import now_iso

    tenant = Identity(tenant="bench-compaction", principal="bench")
    pinned = "Never refund more than $500 without a manager's approval."
    with manager.backend.session(tenant) as s:
        guidelines.update_guideline(s, tenant, row_id="refund_limit", key="refund_limit", content=pinned, now=now_iso())
    recovered = total = whole = 0
    for c in range(conversations):
        who = Identity(tenant="bench-compaction", user=f"customer-{c}", agent="support", thread=f"case-{c}")
        cases = []
        for cycle in range(cycles):
            for n in range(6):
                case = f"CASE-{c:02d}{cycle}{n}"
                cases.append(case)
                filler = "the customer wrote again about the refund they asked for and after checking the ledger " * 2
                text = f"So {filler} we approved {case} for ${100 + 7 * n + cycle}.50 on {1 + n} May 202{cycle}."
                manager.record_turn(who, "user" if n % 2 == 0 else "assistant", text)
            manager.compact_conversation(who, INTENT, force=True)
        window = manager.assemble_context(who, "Which refunds did we approve?", INTENT)
        with manager.backend.session(who) as s:
            summaries = s.raw("SELECT content FROM summarization_memory WHERE conversation_id IS NOT NULL")
        kept = "\n".join(r["content"] for r in summaries) + window.text
        total += len(cases)
        recovered += sum(case in kept for case in cases)
        whole += pinned in window.text.split("</slice>", 1)[0]
    return {
        "conversations": conversations,
        "cycles": cycles,
        "identifiers": total,
        "recovered": recovered,
        "recovery": round(recovered / total, 4),
        "constraint_whole_in_windows": f"{whole} of {conversations}",
    }


def _vocabulary(rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ra", "ten", "vo", "su", "pel", "dar", "ni", "go", "fe", "ruk", "sha"]
    return sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))) for _ in range(3000)})


def timing(manager, big: int = 20_000, samples: int = 200, questions: int = 40) -> dict:
    """Appends at 100 and at `big` turns of one thread; assembly at `big` turns of one user and its floor."""
    from memgate.manager import Identity

    rng = random.Random(40)
    words = _vocabulary(rng)

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(14)) + "."

    who = Identity(tenant="bench-append", user="ann", agent="assistant", thread="big", principal="bench")
    manager.set_context_budget(Identity(tenant="bench-append", principal="bench"), BENCH_BUDGET)
    for _ in range(100):
        manager.record_turn(who, "user", sentence())

    def appends() -> list[float]:
        out = []
        for i in range(samples):
            text = sentence()
            t0 = time.perf_counter()
            manager.record_turn(who, "user" if i % 2 == 0 else "assistant", text)
            out.append((time.perf_counter() - t0) * 1000)
        return out

    at_small = appends()
    left = big - 100 - 2 * samples  # with the appends before and after: `big` turns at the last
    sessions = [min(1000, left - k) for k in range(0, left, 1000)]
    batch = {
        "conversations": [
            {
                "id": "big",
                "sessions": [
                    {"thread": "big", "messages": [{"role": "user", "text": sentence()} for _ in range(n)]}
                    for n in sessions
                ],
            }
        ]
    }
    manager.import_conversations(replace(who, thread=None), json.dumps(batch))
    at_big = appends()
    floor_who = Identity(tenant="bench-append", user="nobody", agent="assistant", principal="bench")
    asked, floor = [], []
    for q in range(questions):
        question = f"What did I say about {rng.choice(words)} and {rng.choice(words)}?"
        t0 = time.perf_counter()
        manager.assemble_context(replace(who, thread=f"ask-{q}"), question, INTENT)
        asked.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        manager.assemble_context(replace(floor_who, thread=f"ask-{q}"), question, INTENT)
        floor.append((time.perf_counter() - t0) * 1000)
    with manager.backend.operator_session() as s:
        (count,) = s.raw("SELECT next_turn - 1 AS n FROM base_conversation WHERE thread_name = 'big'")
    small, large = statistics.fmean(at_small), statistics.fmean(at_big)
    return {
        "turns_in_thread": count["n"],
        "append_at_100_ms": round(small, 3),
        "append_at_big_ms": round(large, 3),
        "append_ratio": round(large / small, 3),
        "assembly_at_big": summary_ms(asked),
        "assembly_floor_no_turns": summary_ms(floor),
    }


def table(data: dict) -> str:
    rows = []
    loc = data["locomo"]
    held = [("held out (not tuned on)", loc["held_out"])] if loc.get("tuned_on") else []
    for name, s in [*loc["by_category"].items(), ("all", loc["all"]), *held]:
        if not s.get("questions"):
            continue
        rows.append(
            [
                name,
                s["questions"],
                s["window_evidence"],
                s["turns_per_question"],
                s["bm25@window"],
                s["recall@5"],
                s["bm25@5"],
                s["recall@10"],
                s["bm25@10"],
                s["window_tokens"],
                s["assembly"]["p50_ms"],
                s["assembly"]["p95_ms"],
            ]
        )
    return markdown_table(
        [
            "category",
            "questions",
            "window admits (evidence share)",
            "turns/question",
            "BM25 at those turns",
            "recall@5",
            "BM25@5",
            "recall@10",
            "BM25@10",
            "window tokens",
            "assembly p50 ms",
            "p95 ms",
        ],
        rows,
    )


def summary(data: dict) -> str:
    loc, lines = data["locomo"], []
    lines.append(
        f"Conversations: {', '.join(loc['conversations'])}; {loc['turns']} turns imported in {loc['import_s']} s "
        f"({loc['import_turns_per_s']} turns/s); ranker {data['ranker']}, tuned on conversations "
        f"{', '.join(data['tuned_on']) or 'none'} (its weights), the rest held out."
    )
    big = loc["largest_conversation"]
    if big.get("questions"):
        lines.append(
            f"Largest conversation ({big['conversation']}, {big['turns']} turns): assembly p50 "
            f"{big['assembly']['p50_ms']} ms, p95 {big['assembly']['p95_ms']} ms."
        )
    if "constraints" in data:
        c = data["constraints"]
        lines.append(
            f"Constraint recovery after {c['cycles']} compaction cycles of {c['conversations']} conversations: "
            f"{c['recovered']} of {c['identifiers']} identifiers exact ({c['recovery']:.0%}); the pinned "
            f"constraint whole in {c['constraint_whole_in_windows']} windows."
        )
    if "timing" in data:
        t = data["timing"]
        lines.append(
            f"Appending: {t['append_at_100_ms']} ms at 100 turns, {t['append_at_big_ms']} ms at "
            f"{t['turns_in_thread']} turns of one thread (ratio {t['append_ratio']}). Assembly at "
            f"{t['turns_in_thread']} turns of one user: p50 {t['assembly_at_big']['p50_ms']} ms, p95 "
            f"{t['assembly_at_big']['p95_ms']} ms; the floor (a user with no turns): p50 "
            f"{t['assembly_floor_no_turns']['p50_ms']} ms, p95 {t['assembly_floor_no_turns']['p95_ms']} ms."
        )
    return "\n\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.conversations", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA, help="LoCoMo's locomo10.zip")
    parser.add_argument("--conversations", default="", help="comma-separated file stems (26,30): only these")
    parser.add_argument(
        "--tuned-on",
        default="26,30,41",
        help="the conversations the ranker was tuned on (the recall study's coordinate search of "
        "recall_rank.RecallWeights ran on LoCoMo's first three, 26, 30 and 41): reported apart from the "
        "others ('' when none)",
    )
    parser.add_argument("--no-perf", action="store_true", help="skip constraint recovery and the timing parts")
    parser.add_argument("--big", type=int, default=20_000, help="turns of the timing thread")
    parser.add_argument("--results", type=Path, help="write the JSON there instead of bench/results/")
    args = parser.parse_args(argv)
    from memgate.manager import DatabaseSettings, MemoryManager, open_backend
    from memgate.manager.conversations.ranking import RANKER

    only = [s for s in args.conversations.split(",") if s]
    started = time.perf_counter()
    info = machine()
    tuned = [t for t in args.tuned_on.split(",") if t]
    data: dict = {"machine": info, "ranker": RANKER.name, "tuned_on": tuned, "budget": BENCH_BUDGET}
    with tempfile.TemporaryDirectory() as tmp:
        manager = MemoryManager(open_backend(DatabaseSettings(path=Path(tmp) / "bench.db")))
        try:
            data["locomo"] = run_locomo(manager, load_locomo(args.data.resolve(), only), tuned)
            if not args.no_perf:
                data["constraints"] = constraint_recovery(manager)
                data["timing"] = timing(manager, big=args.big)
        finally:
            manager.close()
    data["seconds"] = round(time.perf_counter() - started, 1)
    path = write_result("conversations", data, args.results)
    admission = recall_admission.table(data["locomo"]["admission"])
    print(f"{machine_line(info)}\n\n{table(data)}\n\n{admission}\n\n{summary(data)}\n\nwritten to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
