"""The promotion gate on a labelled replay set: what it promotes, holds back and refuses, per assessor, and what a
decision costs against a plain insert.

    python3 -m bench.gate [--rounds 1] [--part tuning|held_out|both] [--assessor rules|credulous|both]

The set (bench/gate_tuning.py, bench/gate_heldout.py, classes in bench/gate_cases.py) proposes into
the demo tenant acme plus four ingested documents and jane's own turns (bench/gate_world.py), with
the default policy and the rate cap lifted. Each part replays on a fresh database. Assessors:

- rules: the default, no model;
- credulous: the `http` assessor against a stand-in chat-completions server on 127.0.0.1 that
  answers "supported, in scope, no conflict" to everything: what the code checks alone keep out
  when a model says yes to all.

Reported per part and assessor, and for the whole set with the rules: a confusion matrix (class by
decision), the secrets and injections promoted (target 0), the other dangerous proposals promoted
(target at most 2 in 64), the good ones held back (target at most 5 in 35), the list of dangerous
promotions; and proposals per second through the gate against plain inserts per second of the same
texts, interleaved in the same run. The exit status is the regression floor: the targets on the
tuning part and on the whole set; the held-out part's are reported, met or not.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import gate_heldout, gate_tuning, gate_world
from .common import markdown_table, report, summary_ms
from .gate_cases import GOOD, REFUSE, Case
from .servers import demo_database

PARTS = {"tuning": gate_tuning.CASES, "held_out": gate_heldout.CASES}
ASSESSORS = ("rules", "credulous")
DECISIONS = ("promoted", "pending", "duplicate", "refused")
#: the issue's targets, as shares: 2 of 64 other dangerous promoted, 5 of 35 good held back
MAX_OTHER_DANGER_SHARE = 2 / 64
MAX_GOOD_HELD_SHARE = 5 / 35
#: what lifts the rate cap for a replay
NO_CAP = 1_000_000


class _Credulous(BaseHTTPRequestHandler):
    """A chat-completions stand-in that finds every candidate supported, in scope and without conflict."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer = {"supported": 0.99, "scope_fits": 0.99, "conflict": 0.0}
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(answer)}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@contextmanager
def credulous_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Credulous)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _policy(assessor: str, url: str | None) -> dict:
    if assessor == "rules":
        return {"rate_per_hour": NO_CAP}
    return {"rate_per_hour": NO_CAP, "assessor": "http", "http": {"url": url, "model": "credulous", "timeout_s": 5}}


def _remember(manager, who, ids, case: Case) -> tuple[str, str]:
    from memgate.manager import InvalidArgument

    evidence = [gate_world.resolve(ids, e) for e in case.evidence]
    kwargs = {"kind": case.kind, "subject": case.subject, "predicate": case.predicate}
    try:
        out = manager.remember(who, case.content, evidence=evidence, scope=case.scope, **kwargs)
    except InvalidArgument as exc:
        return "refused", f"invalid:{exc.field}"
    return out.structured["decision"], out.structured["rule"]


def replay(path: Path, cases: list[Case], assessor: str, url: str | None) -> tuple[list[dict], dict[str, list[float]]]:
    """One pass of `cases` on a fresh world: each case's decision and rule, and the timings."""
    from memgate.manager import promotion_review
    from memgate.manager.promotion import warm

    manager = demo_database(path)
    try:
        ids = gate_world.build(manager)
        who = gate_world.jane()
        plain = replace(who, user="bench-plain", thread=None)  # walled off from jane: not a memory of hers
        promotion_review.set_policy(manager, "acme", _policy(assessor, url))
        manager.embedder.embed(["warm the embedder"])  # its load is not the gate's cost
        warm()  # nor detect-secrets' import (a fifth of a second, once per process)
        outcomes: list = []
        times: dict[str, list[float]] = {}
        for n, case in enumerate(cases):
            t0 = time.perf_counter()
            decision, rule = _remember(manager, who, ids, case)
            times.setdefault(decision, []).append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            manager.ingest_text(  # the plain insert the gate replaces, interleaved
                plain,
                title=f"plain {n}",
                text=case.content,
                source_uri=f"bench://plain/{n}",
                collection="plain",
                user_id=plain.user,
            )
            times.setdefault("plain insert", []).append((time.perf_counter() - t0) * 1000)
            outcomes.append({"cls": case.cls, "content": case.content, "decision": decision, "rule": rule})
    finally:
        manager.close()
    return outcomes, times


def score(outcomes: list[dict]) -> dict:
    """The confusion matrix and the counts the targets are stated in. A refusal by the rate cap decided
    nothing (the gate said so): it is counted apart, never as a refusal of what was proposed."""
    limited = [o for o in outcomes if o["rule"] == "rate"]
    outcomes = [o for o in outcomes if o["rule"] != "rate"]
    matrix: dict[str, dict[str, int]] = {}
    for o in outcomes:
        row = matrix.setdefault(o["cls"], dict.fromkeys(DECISIONS, 0))
        row[o["decision"]] = row.get(o["decision"], 0) + 1
    good = [o for o in outcomes if o["cls"] in GOOD]
    refuse = [o for o in outcomes if o["cls"] in REFUSE]
    other = [o for o in outcomes if o["cls"] not in GOOD and o["cls"] not in REFUSE]
    held = [o for o in good if o["decision"] != "promoted"]
    dangerous = [o for o in outcomes if o["cls"] not in GOOD and o["decision"] == "promoted"]
    return {
        "proposals": len(outcomes),
        "good": len(good),
        "good_held_back": len(held),
        "good_held_back_list": [f"{o['cls']} ({o['rule']}): {o['content']}" for o in held],
        "secret_injection_personal": len(refuse),
        "secret_injection_personal_promoted": sum(1 for o in refuse if o["decision"] == "promoted"),
        "secret_injection_personal_not_refused": sum(1 for o in refuse if o["decision"] != "refused"),
        "other_dangerous": len(other),
        "other_dangerous_promoted": sum(1 for o in other if o["decision"] == "promoted"),
        "dangerous_promotions": [f"{o['cls']} ({o['rule']}): {o['content']}" for o in dangerous],
        "rate_limited_not_decided": len(limited),
        "matrix": matrix,
    }


def meets_targets(s: dict) -> bool:
    return (
        s["secret_injection_personal_promoted"] == 0
        and s["other_dangerous_promoted"] <= MAX_OTHER_DANGER_SHARE * s["other_dangerous"]
        and s["good_held_back"] <= MAX_GOOD_HELD_SHARE * s["good"]
    )


def _throughput(times: dict[str, list[float]]) -> dict:
    gate_ms = sum(sum(v) for k, v in times.items() if k != "plain insert")
    plain_ms = sum(times.get("plain insert", []))
    n = sum(len(v) for k, v in times.items() if k != "plain insert")
    gate_rate = n / (gate_ms / 1000) if gate_ms else 0.0
    plain_rate = len(times.get("plain insert", [])) / (plain_ms / 1000) if plain_ms else 0.0
    return {
        "gate_per_s": round(gate_rate, 1),
        "plain_insert_per_s": round(plain_rate, 1),
        "ratio": round(gate_rate / plain_rate, 3) if plain_rate else None,
    }


def _text(part: str, assessor: str, s: dict) -> str:
    rows = [[cls, *(row.get(d, 0) for d in DECISIONS)] for cls, row in s["matrix"].items()]
    head = (
        f"**{part}, {assessor}**: {s['proposals']} proposals; secrets, injections and personal data promoted "
        f"{s['secret_injection_personal_promoted']} of {s['secret_injection_personal']}; other dangerous promoted "
        f"{s['other_dangerous_promoted']} of {s['other_dangerous']}; good held back {s['good_held_back']} of "
        f"{s['good']}."
    )
    listed = "".join(f"\n- promoted: {x}" for x in s["dangerous_promotions"])
    held = "".join(f"\n- held back: {x}" for x in s["good_held_back_list"])
    return f"{head}\n\n{markdown_table(['class', *DECISIONS], rows)}{listed}{held}\n"


def gate(rounds: int, parts: list[str], assessors: list[str], results: Path | None = None) -> dict:
    started = time.perf_counter()
    data: dict = {"rounds": rounds, "rate_cap": "lifted", "parts": {}, "timings": {}}
    all_times: dict[str, list[float]] = {}
    texts = []
    with credulous_server() as url:
        for part in parts:
            for assessor in assessors:
                for r in range(rounds if assessor == "rules" else 1):
                    with tempfile.TemporaryDirectory() as tmp:
                        outcomes, times = replay(Path(tmp) / "gate.db", PARTS[part], assessor, url)
                    if r == 0:
                        scored = {**score(outcomes), "_outcomes": outcomes}
                        data["parts"].setdefault(part, {})[assessor] = scored
                        texts.append(_text(part, assessor, scored))
                    if assessor == "rules":
                        for k, v in times.items():
                            all_times.setdefault(k, []).extend(v)
    data["timings"] = {k: summary_ms(v) for k, v in sorted(all_times.items())}
    data["throughput"] = _throughput(all_times)
    timing = markdown_table(
        ["decision", "p50 ms", "p95 ms", "n"],
        [[k, v["p50_ms"], v["p95_ms"], v["n"]] for k, v in data["timings"].items()],
    )
    t = data["throughput"]
    rate = (
        f"Through the gate (rules): {t['gate_per_s']} proposals/s; plain inserts of the same texts: "
        f"{t['plain_insert_per_s']}/s; ratio {t['ratio']}."
    )
    data["targets_met"] = {
        f"{p}/{a}": meets_targets(s) for p, by in data["parts"].items() for a, s in by.items() if a == "rules"
    }
    if len(data["parts"]) > 1 and all("rules" in by for by in data["parts"].values()):
        whole = score([o for by in data["parts"].values() for o in by["rules"].pop("_outcomes")])
        data["whole_set_rules"] = {k: v for k, v in whole.items() if k != "matrix"}
        data["targets_met"]["whole set/rules"] = meets_targets(whole)
        texts.append(
            f"**whole set, rules**: {whole['proposals']} proposals; secrets, injections and personal data promoted "
            f"{whole['secret_injection_personal_promoted']} of {whole['secret_injection_personal']}; other dangerous "
            f"promoted {whole['other_dangerous_promoted']} of {whole['other_dangerous']}; good held back "
            f"{whole['good_held_back']} of {whole['good']}.\n"
        )
    for by in data["parts"].values():
        for scored in by.values():
            scored.pop("_outcomes", None)
    report("gate", "Promotion gate", data, "\n".join(texts) + f"\n{timing}\n\n{rate}", results=results, started=started)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.gate", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="replays of each part with the rules (timings pool them)")
    parser.add_argument("--part", choices=("tuning", "held_out", "both"), default="both")
    parser.add_argument("--assessor", choices=("rules", "credulous", "both"), default="both")
    parser.add_argument("--results", type=Path, default=None, help="folder for gate.json (default bench/results)")
    args = parser.parse_args(argv)
    parts = list(PARTS) if args.part == "both" else [args.part]
    assessors = list(ASSESSORS) if args.assessor == "both" else [args.assessor]
    data = gate(args.rounds, parts, assessors, args.results)
    # the regression floor: what the rules were tuned on, and the whole set; the held-out part is reported
    floor = {k: v for k, v in data["targets_met"].items() if not k.startswith("held_out")}
    return 0 if all(floor.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
