"""Memory that moves and stays clean: export's memory, import's rate through the gate, consolidation's aim.

    python3 -m bench portability [--rows 50000] [--memories 1000]

- export: a user of `rows` rows (turns and knowledge-base chunks with embeddings), exported whole,
  against one of a fifth the size: the peak of Python's allocations (tracemalloc) while exporting,
  which must not grow with the tenant (both hold more than one page of every table), and the rows
  per second.
- import from another tool: `memories` distinct memories of one user as plain JSONL files, through
  the promotion gate (`memgate import --from jsonl`), against a plain insert floor measured in the
  same run, block by block: the same memories written as notes with no gate (the knowledge-base
  write a gate-less import would be). Wall time under the machine's load, and this process's CPU
  time (what one core of its own would give).
- consolidation on a seeded tenant (consolidation_seed.py): the planted near-duplicates, stale
  summaries and notes repeating a passage, among hard negatives (the same sentence with another
  name or number, another user's copy); precision and recall of what `memgate consolidate` proposes.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from .common import markdown_table, report
from .consolidation_seed import score, seed_tenant

#: export's page: both tenants hold several pages of every table, so a peak that grew with the
#: tenant would show (a page of 500 chunks of this size is about 4 MB: the peak is the page's)
BATCH = 100
TURN = "Customer asked about invoice {n}: the amount looked wrong; we agreed to check the ledger entry again. " * 3


def _manager(path: Path):
    from memgate.manager import DatabaseSettings, MemoryManager, load_tool_definitions, open_backend

    backend = open_backend(DatabaseSettings(path=path))
    backend.migrate()
    manager = MemoryManager(backend)
    from memgate.manager import Identity

    manager.seed_tools(Identity(tenant="bench", principal="bench"), load_tool_definitions())
    return manager


def _fill(manager, rows: int) -> None:
    """About `rows` rows of one user: nine turns to one chunk (with its embedding), turns across 20
    threads, chunks in documents of 20 sections."""
    from memgate.manager import Identity

    chunks = rows // 10
    for t in range(20):
        who = Identity(tenant="bench", user="jane", agent="helper", thread=f"t{t}", principal="bench")
        with manager.backend.session(who) as s, s.transaction():
            s.insert_many(
                "conversation_memory",
                [
                    {
                        "id": f"cnv_{t}_{n}",
                        "tenant_id": "bench",
                        "user_id": "jane",
                        "agent_id": "helper",
                        "thread_id": f"t{t}",
                        "event_type": "turn",
                        "role": "user",
                        "content": TURN.format(n=n),
                    }
                    for n in range((rows - chunks) // 20)
                ],
            )
    who = Identity(tenant="bench", user="jane", principal="bench")
    for d in range(0, chunks, 20):  # documents of the same size at every scale
        text = "\n\n".join(f"Section {n}. " + TURN.format(n=n) for n in range(d, min(d + 20, chunks)))
        manager.ingest_text(who, title=f"ledger {d}", text=text, source_uri=f"bench://ledger/{d}", user_id="jane")


def export_memory(folder: Path, rows: int) -> dict:
    from memgate.manager import export_scope

    out = {}
    for size in (rows // 5, rows):
        manager = _manager(folder / f"export{size}.db")
        try:
            _fill(manager, size)
            tracemalloc.start()
            t0 = time.perf_counter()
            done = export_scope(
                manager.backend, "bench", "user", "jane", folder / f"bundle{size}", requested_by="bench", batch=BATCH
            )
            seconds = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        finally:
            manager.close()
        out[str(size)] = {
            "rows": done.total,
            "seconds": round(seconds, 2),
            "rows_per_s": round(done.total / seconds),
            "peak_traced_mb": round(peak / 2**20, 2),
            "batch": BATCH,
        }
    return out


_SENTENCES = (
    "{p} prefers the {team} standup at {h} o'clock",
    "the {team} dashboard shows {n} open incidents for {p}",
    "{p} reviewed {n} pull requests for the {team} service",
    "{p} keeps the {team} budget under {n} euros a month",
)
_PEOPLE = ("Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun")
_TEAMS = ("search", "billing", "payments", "mobile", "infra", "support", "growth", "security", "ledger", "data")


def memories(n: int) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    k = 0
    while len(out) < n:
        s = _SENTENCES[k % len(_SENTENCES)].format(
            p=_PEOPLE[k % 10], team=_TEAMS[(k // 10) % 10], h=7 + k % 5, n=10 + k
        )
        k += 1
        if s not in seen:
            seen.add(s)
            out.append(s[0].upper() + s[1:] + ".")
    return out


def import_rate(folder: Path, n: int, blocks: int = 10) -> dict:
    """Alternate blocks of the plain insert floor and of the import (a file of n/blocks memories each),
    so both see the same load; the import's time includes storing each file as its source."""
    from memgate.manager import Identity, propose_file

    texts = memories(n)
    size = max(1, n // blocks)
    manager = _manager(folder / "import.db")
    floor_s = gate_s = gate_cpu = floor_cpu = 0.0
    decisions: dict[str, int] = {}
    try:
        who = Identity(tenant="bench", user="floor", principal="bench")
        manager.ingest_text(who, title="warm", text="warm the embedder and the tokenizer", source_uri="bench://warm")
        for b in range(0, n, size):
            block = texts[b : b + size]
            t0, c0 = time.perf_counter(), time.process_time()
            for i, text in enumerate(block):
                manager.ingest_text(
                    who, title=f"note {b + i}", text=text, source_uri=f"bench://{b + i}", user_id="floor"
                )
            floor_s, floor_cpu = floor_s + time.perf_counter() - t0, floor_cpu + time.process_time() - c0
            path = folder / f"memories{b}.jsonl"
            path.write_text("".join(json.dumps({"text": t, "user": "jane"}) + "\n" for t in block))
            t0, c0 = time.perf_counter(), time.process_time()
            done = propose_file(manager, "bench", "jsonl", path)
            gate_s, gate_cpu = gate_s + time.perf_counter() - t0, gate_cpu + time.process_time() - c0
            for k, v in done.decisions.items():
                decisions[k] = decisions.get(k, 0) + v
    finally:
        manager.close()
    return {
        "memories": n,
        "files": -(-n // size),
        "decisions": decisions,
        "proposals_per_s": round(n / gate_s, 1),
        "plain_inserts_per_s": round(n / floor_s, 1),
        # this process's CPU seconds: what a core of its own would give, whatever the load
        "proposals_per_cpu_s": round(n / gate_cpu, 1),
        "plain_inserts_per_cpu_s": round(n / floor_cpu, 1),
        "ratio_to_floor": round(floor_s / gate_s, 3),
        "cpu_ratio_to_floor": round(floor_cpu / gate_cpu, 3),
        "seconds": round(gate_s, 2),
    }


def consolidation(folder: Path, seed: int = 7) -> dict:
    from memgate.manager import consolidate

    manager = _manager(folder / "consolidate.db")
    try:
        planted = seed_tenant(manager, random.Random(seed))
        t0 = time.perf_counter()
        found = consolidate(manager.backend, manager.embedder, "bench")
        seconds = time.perf_counter() - t0
    finally:
        manager.close()
    return {**score(found, planted), "seconds": round(seconds, 2), "examined": found.examined}


def run(rows: int, n: int, results: Path | None = None) -> dict:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = {
            "export": export_memory(folder, rows),
            "import": import_rate(folder, n),
            "consolidation": consolidation(folder),
        }
    report("portability", "Portability", data, table(data), results=results, started=started)
    return data


def table(data: dict) -> str:
    ex = data["export"]
    small, large = sorted(ex, key=int)
    im, co = data["import"], data["consolidation"]
    rows = [
        *(
            [
                f"export, {ex[k]['rows']:,} rows, pages of {ex[k].get('batch', 500)}",
                f"{ex[k]['peak_traced_mb']} MB peak (Python allocations)",
                f"{ex[k]['rows_per_s']:,} rows/s",
            ]
            for k in (small, large)
        ),
        [
            f"import --from jsonl, {im['memories']:,} memories through the gate",
            f"{im['proposals_per_s']} proposals/s ({im['proposals_per_cpu_s']} per CPU second)",
            f"{im['ratio_to_floor']} x the plain insert floor ({im['plain_inserts_per_s']}/s)"
            + (f"; {im['cpu_ratio_to_floor']} x per CPU second" if "cpu_ratio_to_floor" in im else ""),
        ],
        [
            f"consolidate, {co['planted']} planted among {sum(co['examined'].values())} records",
            f"precision {co['precision']:.2f}",
            f"recall {co['recall']:.2f}",
        ],
    ]
    return markdown_table(["what", "measured", "against"], rows)


def summary(data: dict) -> str:
    co = data["consolidation"]
    by = ", ".join(f"{k} {v['found']}/{v['planted']}" for k, v in co["by_reason"].items())
    return (
        f"Consolidation found, by reason: {by}; {co['false']} proposal(s) not planted. "
        f"Import decisions: {data['import']['decisions']}."
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.portability", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50000, help="rows of the large tenant export reads (and a fifth)")
    parser.add_argument("--memories", type=int, default=1000, help="memories the import proposes")
    parser.add_argument("--results", type=Path, default=None, help="folder for the JSON (default bench/results)")
    args = parser.parse_args(argv)
    run(args.rows, args.memories, args.results)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
