"""The promotion gate on a labelled replay set: what the `rules` assessor lets through and holds back, and
what a decision costs against a plain insert.

    python3 -m bench.gate [--rounds 3]

64 proposals on the demo tenants (acme's jane, globex's omar), each labelled good (should become
memory) or not, in nine kinds: supported, over-broad (one case stated as a rule), unsupported
(a number or claim the evidence does not hold), exact and near duplicates (of good ones made
earlier in the replay), conflicts with a current fact, personal data, a scope the row does not
allow or wider than the evidence, and evidence never given to the caller. Evidence is "given"
as a tool result gives it: one call-log row citing the ids the caller's searches returned.

Reported: how many unsupported or over-broad claims the gate promotes (the number that must
be 0), how many good ones it holds back, each kind's decisions, and the gate's p50/p95 per
decision against a plain insert of the same note (the knowledge-base write a gate-less
remember would be), interleaved in the same run. Each round replays the set on a fresh demo
database.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import markdown_table, report, summary_ms
from .servers import demo_database

GOOD_KINDS = ("supported",)
BAD_CLAIMS = ("over_broad", "unsupported")


@dataclass(frozen=True)
class Case:
    kind: str
    tenant: str
    content: str
    evidence: tuple[str, ...]
    good: bool
    fact: tuple[str, str] | None = None  # (subject, predicate)
    scope: str | None = None
    policy: dict = field(default_factory=dict)


A, G = "acme", "globex"
H = ("model:helios-rag", "beir_ndcg10")
A1, A2, A3 = "chk_acme_1_0", "chk_acme_1_1", "chk_acme_2_0"
G1 = "chk_globex_1_0"

SUPPORTED = [
    Case("supported", A, "The August re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78.", (A1,), True),
    Case(
        "supported",
        A,
        "The July nDCG@10 figure of 0.92 was computed against qrels that leaked test queries.",
        (A1,),
        True,
    ),
    Case("supported", A, "The July figure of 0.92 is withdrawn.", (A1,), True),
    Case("supported", A, "Recall@100 stayed at 0.91.", (A2,), True),
    Case(
        "supported",
        A,
        "The Helios retriever is a hybrid of BM25 and dense vectors fused by reciprocal rank fusion.",
        (A2,),
        True,
    ),
    Case("supported", A, "0.91", (A2,), True, fact=("model:helios-rag", "recall_at_100")),
    Case("supported", A, "Cite the current version of a metric from the fact store.", (A3,), True),
    Case("supported", A, "Summaries are snapshots and may quote superseded numbers.", (A3,), True),
    Case("supported", A, "Check the claim before repeating a number from a summary.", (A3,), True),
    Case("supported", A, "hybrid of BM25 and dense vectors", (A2,), True, fact=("model:helios-rag", "retriever")),
    Case("supported", A, "The owner of model helios-rag is jane.", ("ent_acme_helios_owner",), True, scope="user"),
    Case("supported", G, "Globex evaluates Helios RAG on its own support tickets, not on BEIR.", (G1,), True),
    Case("supported", G, "Escalate billing questions to the finance queue within one business day.", (G1,), True),
    Case("supported", G, "Billing questions go to the finance queue.", (G1,), True),
    Case("supported", G, "the finance queue", (G1,), True, fact=("topic:billing", "escalation_queue")),
]
OVER_BROAD = [
    Case("over_broad", A, "Helios RAG always scores nDCG@10 of 0.78 on every benchmark.", (A1,), False),
    Case("over_broad", A, "Every evaluation run leaks test queries into the tuning set.", (A1,), False),
    Case("over_broad", A, "All July figures are withdrawn.", (A1,), False),
    Case("over_broad", A, "Recall@100 always stays at 0.91 for any retriever.", (A2,), False),
    Case("over_broad", A, "Every retriever is a hybrid of BM25 and dense vectors.", (A2,), False),
    Case("over_broad", A, "Never repeat any number from any summary.", (A3,), False),
    Case("over_broad", A, "Everyone at Acme always cites the fact store.", (A3,), False),
    Case("over_broad", G, "Globex never evaluates anything on BEIR, for any customer.", (G1,), False),
    Case("over_broad", G, "Every question is escalated to the finance queue.", (G1,), False),
    Case("over_broad", G, "All billing questions are always answered within one business day, forever.", (G1,), False),
]
UNSUPPORTED = [
    Case("unsupported", A, "The August re-run of Helios RAG on BEIR found nDCG@10 of 0.81.", (A1,), False),
    Case("unsupported", A, "Helios RAG beats the ColBERT baseline by five points.", (A1,), False),
    Case("unsupported", A, "Recall@100 rose to 0.95 in September.", (A2,), False),
    Case("unsupported", A, "The retriever uses a cross-encoder reranker trained on MS MARCO.", (A2,), False),
    Case("unsupported", A, "0.97", (A2,), False, fact=("model:helios-rag", "recall_at_10")),
    Case("unsupported", A, "Acme publishes metrics weekly on its wiki.", (A3,), False),
    Case("unsupported", A, "The Helios team moved to Berlin in spring.", (A1,), False),
    Case("unsupported", G, "Globex evaluates Helios RAG on MTEB retrieval tasks.", (G1,), False),
    Case("unsupported", G, "Refunds above 500 euros need a manager's signature.", (G1,), False),
    Case("unsupported", G, "bob", ("ent_globex_acct",), False, fact=("customer:initech", "support_lead")),
]
DUPLICATES = [
    Case("exact_duplicate", A, SUPPORTED[0].content, (A1,), False),
    Case("exact_duplicate", A, SUPPORTED[3].content, (A2,), False),
    Case("exact_duplicate", A, "0.91", (A2,), False, fact=("model:helios-rag", "recall_at_100")),
    Case("exact_duplicate", A, "0.78", (A1,), False, fact=H),
    Case("exact_duplicate", G, SUPPORTED[11].content, (G1,), False),
    Case("exact_duplicate", A, "jane", ("ent_acme_helios_owner",), False, fact=("model:helios-rag", "owner")),
    Case("exact_duplicate", G, "omar", ("ent_globex_acct",), False, fact=("customer:initech", "account_manager")),
    Case(
        "near_duplicate",
        A,
        "  the august re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78.  ",
        (A1,),
        False,
    ),
    Case("near_duplicate", A, "RECALL@100 STAYED AT 0.91.", (A2,), False),
    Case(
        "near_duplicate", G, "Escalate billing questions to the finance queue  within one business day.", (G1,), False
    ),
]
CONFLICTS = [
    Case("conflict", A, "0.81", (A1,), False, fact=H),
    Case("conflict", A, "0.92", (A1,), False, fact=H),
    Case("conflict", A, "bob", ("ent_acme_helios_owner",), False, fact=("model:helios-rag", "owner")),
    Case("conflict", G, "0.60", (G1,), False, fact=H),
    Case("conflict", G, "carol", ("ent_globex_acct",), False, fact=("customer:initech", "account_manager")),
]
PERSONAL = [
    Case("personal_data", A, "Call jane on +1 415 555 0100 about the re-run.", (A1,), False),
    Case("personal_data", A, "jane's address for results is jane@acme.example.", (A1,), False),
    Case("personal_data", A, "The eval cloud bill was paid with card 4111 1111 1111 1111.", (A1,), False),
    Case("personal_data", G, "Reach omar at (020) 7946 0958 for billing.", (G1,), False),
    Case("personal_data", G, "Escalations go to omar@globex.example.", (G1,), False),
]
WRONG_SCOPE = [
    Case("wrong_scope", A, "The August re-run found nDCG@10 of 0.78.", (A1,), False, scope="tenant"),
    Case("wrong_scope", G, "Billing questions go to finance within one business day.", (G1,), False, scope="tenant"),
    Case("wrong_scope", A, "The owner of model helios-rag is jane.", ("sum_acme_july",), False, scope="agent"),
    Case("wrong_scope", A, "Recall@100 stayed at 0.91.", (A2,), False, scope="galaxy"),
]
NOT_ISSUED = [
    Case("not_issued", A, "Globex evaluates on its own tickets.", (G1,), False),
    Case("not_issued", A, "Helios numbers are in the fact store.", ("chk_acme_9_9",), False),
    Case("not_issued", G, "The August re-run found 0.78.", (A1,), False),
    Case("not_issued", A, "Freeze the qrels before each run.", ("wf_acme_eval",), False),
    Case("not_issued", A, "Something jane said.", (), False),
]
REPLAY = SUPPORTED + OVER_BROAD + UNSUPPORTED + DUPLICATES + CONFLICTS + PERSONAL + WRONG_SCOPE + NOT_ISSUED

#: what a tool result cited for each caller before the replay (the search and lookups it ran)
GIVEN = {
    A: ("chk_acme_1_0", "chk_acme_1_1", "chk_acme_2_0", "ent_acme_helios_owner", "ent_acme_helios_v2"),
    G: ("chk_globex_1_0", "ent_globex_acct", "ent_globex_helios_v1"),
}


def _identities():
    from memgate.manager import ACME, GLOBEX

    return {A: ACME, G: GLOBEX}


def _give(manager, who) -> None:
    from memgate.manager import CallRecord, now_iso

    for tenant, ids in GIVEN.items():
        manager.log_call(
            who[tenant],
            CallRecord(
                call_id=f"bench_{tenant}", called_at=now_iso(), tool_name="search_memory", status="ok", cited_ids=ids
            ),
        )


def _remember(manager, who, case: Case):
    from memgate.manager import InvalidArgument

    kwargs = {"kind": "fact", "subject": case.fact[0], "predicate": case.fact[1]} if case.fact else {}
    try:
        out = manager.remember(who, case.content, evidence=list(case.evidence), scope=case.scope, **kwargs)
    except InvalidArgument as exc:
        return "refused", f"invalid:{exc.field}"
    return out.structured["decision"], out.structured["rule"]


def replay(path: Path) -> tuple[list[dict], dict[str, list[float]]]:
    """One pass of the replay set on a fresh demo database: each case's decision, and the timings."""
    manager = demo_database(path)
    who = _identities()
    try:
        _give(manager, who)
        manager.embedder.embed(["warm the embedder"])  # its load is not the gate's cost
        outcomes: list[dict] = []
        times: dict[str, list[float]] = {}
        for n, case in enumerate(REPLAY):
            t0 = time.perf_counter()
            decision, rule = _remember(manager, who[case.tenant], case)
            times.setdefault(decision, []).append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            manager.ingest_text(  # the plain insert the gate replaces, interleaved
                who[case.tenant],
                title=f"plain {n}",
                text=case.content,
                source_uri=f"bench://plain/{n}",
                collection="plain",
                user_id=who[case.tenant].user,
            )
            times.setdefault("plain insert", []).append((time.perf_counter() - t0) * 1000)
            outcomes.append({"kind": case.kind, "good": case.good, "decision": decision, "rule": rule})
    finally:
        manager.close()
    return outcomes, times


def gate(rounds: int, results: Path | None = None) -> dict:
    started = time.perf_counter()
    all_times: dict[str, list[float]] = {}
    outcomes: list[dict] = []
    for r in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            got, times = replay(Path(tmp) / f"gate{r}.db")
        if r == 0:
            outcomes = got
        for k, v in times.items():
            all_times.setdefault(k, []).extend(v)
    kinds: dict[str, dict[str, int]] = {}
    for o in outcomes:
        kinds.setdefault(o["kind"], {}).setdefault(o["decision"], 0)
        kinds[o["kind"]][o["decision"]] += 1
    bad_promoted = [o for o in outcomes if o["kind"] in BAD_CLAIMS and o["decision"] == "promoted"]
    good_held = [o for o in outcomes if o["good"] and o["decision"] != "promoted"]
    wrong = [o for o in outcomes if not o["good"] and o["decision"] == "promoted"]
    data: dict[str, Any] = {
        "proposals": len(outcomes),
        "rounds": rounds,
        "assessor": "rules",
        "unsupported_or_over_broad": sum(1 for o in outcomes if o["kind"] in BAD_CLAIMS),
        "unsupported_or_over_broad_promoted": len(bad_promoted),
        "good": sum(1 for o in outcomes if o["good"]),
        "good_held_back": len(good_held),
        "good_held_back_rules": sorted(o["rule"] for o in good_held),
        "bad_promoted_any_kind": len(wrong),
        "kinds": kinds,
        "timings": {k: summary_ms(v) for k, v in sorted(all_times.items())},
    }
    rows = [[k, *(d.get(x, 0) for x in ("promoted", "pending", "duplicate", "refused"))] for k, d in kinds.items()]
    table = markdown_table(["kind", "promoted", "pending", "duplicate", "refused"], rows)
    timing = markdown_table(
        ["decision", "p50 ms", "p95 ms", "n"],
        [[k, v["p50_ms"], v["p95_ms"], v["n"]] for k, v in data["timings"].items()],
    )
    summary = (
        f"{data['proposals']} labelled proposals, rules assessor: {len(bad_promoted)} of "
        f"{data['unsupported_or_over_broad']} unsupported or over-broad claims promoted; {len(good_held)} of "
        f"{data['good']} good ones held back ({', '.join(data['good_held_back_rules']) or 'none'}); "
        f"{len(wrong)} promoted that should not have been, of any kind."
    )
    report("gate", "Promotion gate", data, f"{summary}\n\n{table}\n\n{timing}", results=results, started=started)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.gate", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="replays on fresh databases (timings pool them)")
    parser.add_argument("--results", type=Path, default=None, help="folder for gate.json (default bench/results)")
    args = parser.parse_args(argv)
    data = gate(args.rounds, args.results)
    return 0 if data["unsupported_or_over_broad_promoted"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
