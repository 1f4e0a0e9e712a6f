"""The lexical indexes after many one-row writes, against the same indexes merged into one segment.

    python3 -m bench.lexical_index [--turns 20000] [--chunks 20000] [--queries 60]

Every captured turn is its own transaction (MemoryManager.record_turn), and so is a small document's
ingest (MemoryManager.ingest_text); each adds a segment to the tenant's FTS5 index, which FTS5's own
merging folds together only now and then. This writes N turns and N one-chunk documents twice, into
two SQLite files, interleaved write by write so the machine's load falls on both alike:

- `fts5_defaults`: the tenant's indexes set back to FTS5's own merge settings (automerge 4,
  crisismerge 16, usermerge 4), what every index had before the template set its own;
- `template`: the indexes exactly as sql/sqlite/kb_lexical_index.sql and recall_lexical_index.sql
  make them now.

Each write is timed (the write cost per turn and per chunk, as a ratio of the two). Then the floor: a
copy of the `fts5_defaults` file whose two indexes were merged into one segment each (FTS5's
'optimize'); and `memgate optimize`'s own run (manager/backend/sqlite/lexical_merge.py) on another copy,
timed. The lexical legs are timed on all of them, query by query in rotating order: the real
`kb_lexical` and `recall_lexical` session calls (the BM25 leg of search and of conversation recall),
top 10. Ratios are p50 over the floor's p50; the segment counts are read from each index's structure
record. The embedder is HashingEmbedder(256), so the index is a larger share of a write than with a
model (what a slower write would hide, this shows).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import machine, markdown_table, percentile, report, summary_ms
from .corpus import vocabulary

K = 10
#: FTS5's own merge settings (https://www.sqlite.org/fts5.html, section 6: Special INSERT Commands)
FTS5_DEFAULTS = {"automerge": 4, "crisismerge": 16, "usermerge": 4}
VARIANTS = ("fts5_defaults", "template")


def _sentences(words: list[str], seed: int) -> Callable[[], str]:
    """Generated sentences of 12-24 words, drawn Zipf-like (a few words common, most rare), as speech is."""
    rng = random.Random(seed)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    shuffled = words[:]
    rng.shuffle(shuffled)

    def sentence() -> str:
        return " ".join(rng.choices(shuffled, weights, k=rng.randint(12, 24))) + "."

    return sentence


def _indexes(conn, tenant: str) -> tuple[str, str]:
    from memgate.manager.backend.sqlite.lexical import slots
    from memgate.manager.backend.sqlite.lexical_merge import index_names

    return index_names(slots(conn)[tenant])


def _configure(backend, tenant: str, settings: dict[str, int]) -> None:
    with backend.unwalled_connection() as conn:
        for index in _indexes(conn, tenant):
            for key, value in settings.items():
                conn.execute(f"INSERT INTO {index} ({index}, rank) VALUES (?, ?)", (key, value))


def _segments(backend, tenant: str) -> dict[str, int]:
    from memgate.manager.backend.sqlite.lexical_merge import segments

    with backend.unwalled_connection() as conn:
        kb, recall = _indexes(conn, tenant)
        return {"kb": segments(conn, kb), "recall": segments(conn, recall)}


def write(managers: dict[str, Any], identity, turns: int, chunks: int, words: list[str]) -> dict:
    """`turns` turns and `chunks` one-chunk documents into every manager, interleaved; ms per write."""
    turn_ms: dict[str, list[float]] = {name: [] for name in managers}
    chunk_ms: dict[str, list[float]] = {name: [] for name in managers}
    say, text = _sentences(words, 1), _sentences(words, 2)
    seen: dict[str, dict[str, list[int]]] = {name: {"kb": [], "recall": []} for name in managers}
    names, total = list(managers), max(turns, chunks)
    every = max(1, total // 100)
    for i in range(total):
        if i >= total // 2 and i % every == 0:  # the segment counts over the second half, as they come and go
            for name, manager in managers.items():
                for leg, n in _segments(manager.backend, identity.tenant).items():
                    seen[name][leg].append(n)
        order = names[i % len(names) :] + names[: i % len(names)]
        if i < turns:
            line = say()
            for name in order:
                t0 = time.perf_counter()
                managers[name].record_turn(identity, "user" if i % 2 == 0 else "assistant", line)
                if i:  # the first write of each kind pays for first use (imports, statements): untimed
                    turn_ms[name].append((time.perf_counter() - t0) * 1000)
        if i < chunks:
            body = text()
            for name in order:
                t0 = time.perf_counter()
                managers[name].ingest_text(identity, title=f"note {i}", text=body, source_uri=f"bench:note/{i}")
                if i:
                    chunk_ms[name].append((time.perf_counter() - t0) * 1000)
    return {"turn": turn_ms, "chunk": chunk_ms, "segments_seen": seen}


def query(managers: dict[str, Any], identity, questions: list[str]) -> dict[str, dict[str, list[float]]]:
    """Each question's kb_lexical and recall_lexical on every manager, rotating which goes first."""
    from memgate.manager.backend.base import ChunkFilters, RecallFilters
    from memgate.manager.clock import now_iso

    chunk_filters = ChunkFilters(now=now_iso())
    recall_filters = RecallFilters(user=identity.user, agent=identity.agent)
    out: dict[str, dict[str, list[float]]] = {leg: {name: [] for name in managers} for leg in ("kb", "recall")}
    names = list(managers)
    for i, q in enumerate([questions[0], *questions]):  # the first, untimed: page cache, first-use costs
        order = names[i % len(names) :] + names[: i % len(names)]
        for name in order:
            with managers[name].backend.session(identity) as s:
                t0 = time.perf_counter()
                s.kb_lexical(q, K, chunk_filters)
                kb_ms = (time.perf_counter() - t0) * 1000
                t0 = time.perf_counter()
                s.recall_lexical(q, K, recall_filters)
                recall_ms = (time.perf_counter() - t0) * 1000
            if i:
                out["kb"][name].append(kb_ms)
                out["recall"][name].append(recall_ms)
    return out


def run(workdir: Path, turns: int, chunks: int, n_queries: int, settings: dict[str, int] | None = None) -> dict:
    from memgate.manager import DatabaseSettings, HashingEmbedder, Identity, MemoryManager, open_backend
    from memgate.manager.backend.sqlite.lexical_merge import merge_tenant

    who = Identity(tenant="bench", user="ann", agent="assistant", thread="talk", principal="bench")
    embedder = HashingEmbedder(256)

    def open_at(name: str) -> Any:
        return MemoryManager(open_backend(DatabaseSettings(path=workdir / f"{name}.db")), embedder=embedder)

    words = vocabulary()
    managers = {name: open_at(name) for name in VARIANTS}
    for manager in managers.values():
        manager.recall_policy(who)  # the tenant's first session makes its indexes
    _configure(managers["fts5_defaults"].backend, who.tenant, FTS5_DEFAULTS)
    if settings:
        _configure(managers["template"].backend, who.tenant, settings)
    t0 = time.perf_counter()
    written = write(managers, who, turns, chunks, words)
    seen = written.pop("segments_seen")
    write_s = time.perf_counter() - t0
    for manager in managers.values():
        manager.close()
    for copy in ("floor", "merged"):
        shutil.copy(workdir / "fts5_defaults.db", workdir / f"{copy}.db")
    managers = {name: open_at(name) for name in (*VARIANTS, "floor", "merged")}
    with managers["floor"].backend.unwalled_connection() as conn:
        for index in _indexes(conn, who.tenant):
            conn.execute(f"INSERT INTO {index} ({index}) VALUES ('optimize')")
    t0 = time.perf_counter()
    with managers["merged"].backend.unwalled_connection() as conn:
        merge_tenant(conn, who.tenant)
    merge_s = time.perf_counter() - t0
    segments = {name: _segments(m.backend, who.tenant) for name, m in managers.items()}
    rng = random.Random(7)
    ask = _sentences(words, 3)
    questions = [" ".join(rng.sample(ask().rstrip(".").split(), 3)) for _ in range(n_queries)]
    timed = query(managers, who, questions)
    for manager in managers.values():
        manager.close()
    legs = {
        leg: {name: {**summary_ms(ms), "segments": segments[name][leg]} for name, ms in by_name.items()}
        for leg, by_name in timed.items()
    }
    for by_name in legs.values():
        floor = by_name["floor"]["p50_ms"]
        for row in by_name.values():
            row["over_floor"] = round(row["p50_ms"] / floor, 2) if floor else None
    writes = {
        kind: {name: round(statistics.fmean(ms), 3) for name, ms in by_name.items()}
        for kind, by_name in written.items()
    }
    slowest = {  # the one-row write that paid for a merge: a stall, if any, shows here
        kind: {
            name: {"p99_ms": round(percentile(ms, 99), 2), "max_ms": round(max(ms), 1)} for name, ms in by_name.items()
        }
        for kind, by_name in written.items()
    }
    return {
        "segments_while_writing": {
            name: {leg: {"mean": round(statistics.fmean(ns), 1), "max": max(ns)} for leg, ns in by_leg.items() if ns}
            for name, by_leg in seen.items()
        },
        "turns": turns,
        "chunks": chunks,
        "queries": n_queries,
        "write_seconds": round(write_s, 1),
        "merge_seconds": round(merge_s, 2),
        "write_mean_ms": writes,
        "write_slowest": slowest,
        "write_ratio": {
            kind: round(ms["template"] / ms["fts5_defaults"], 3) if ms["fts5_defaults"] else None
            for kind, ms in writes.items()
        },
        "legs": legs,
    }


def table(data: dict) -> str:
    rows = []
    for leg, by_name in data["legs"].items():
        for name, row in by_name.items():
            rows.append(
                [
                    f"{leg}_lexical",
                    name,
                    row["segments"],
                    f"{row['p50_ms']} / {row['p95_ms']}",
                    f"{row['over_floor']}x",
                ]
            )
    text = markdown_table(["leg", "index", "segments", "p50 / p95 ms", "p50 / floor"], rows)
    w, r = data["write_mean_ms"], data["write_ratio"]
    seen = "; ".join(
        f"{name}: " + ", ".join(f"{leg} mean {v['mean']} max {v['max']}" for leg, v in by_leg.items())
        for name, by_leg in data["segments_while_writing"].items()
    )
    return (
        f"{text}\n\nSegments over the second half of the writes: {seen}.\n\nWrites, mean ms (template / fts5_defaults): turn {w['turn']['template']} / "
        f"{w['turn']['fts5_defaults']} ({r['turn']}x), one-chunk document {w['chunk']['template']} / "
        f"{w['chunk']['fts5_defaults']} ({r['chunk']}x). `memgate optimize`'s merge of the fts5_defaults "
        f"copy (both indexes): {data['merge_seconds']} s.\n\nSlowest writes, p99 / max ms: "
        + "; ".join(
            f"{kind} " + ", ".join(f"{name} {v['p99_ms']} / {v['max_ms']}" for name, v in by_name.items())
            for kind, by_name in data["write_slowest"].items()
        )
        + "."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.lexical_index", description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20_000, help="turns written, one transaction each")
    parser.add_argument("--chunks", type=int, default=20_000, help="one-chunk documents ingested, one each")
    parser.add_argument("--queries", type=int, default=60, help="questions timed on every index")
    parser.add_argument(
        "--try",
        dest="settings",
        nargs="*",
        default=[],
        metavar="KEY=N",
        help="merge settings set on the template's indexes too, to try others (e.g. crisismerge=8 automerge=2)",
    )
    parser.add_argument("--results", type=Path, help="write the JSON there instead of bench/results/")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    info = machine()
    with tempfile.TemporaryDirectory() as tmp:
        settings = {key: int(value) for key, _, value in (item.partition("=") for item in args.settings)}
        data = {"machine": info, "tried": settings, **run(Path(tmp), args.turns, args.chunks, args.queries, settings)}
    title = "Lexical indexes after one-row writes"
    report("lexical_index", title, data, table(data), results=args.results, started=started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
