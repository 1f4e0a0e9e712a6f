"""Search latency at 1k, 10k and 100k chunks per tenant, against floors measured in the same run.

    python3 -m bench.search [--sizes 1000 10000 100000] [--queries 30]

Two tenants of N chunks each in one SQLite file (bench/corpus.py: generated text, random
unit-vector embeddings, written through the backend as ingest writes them); every query
searches as one of them, so it passes the tenant wall. Each query runs lexical, vector and
hybrid through MemoryManager.search_chunks (top 10), and the two floors, interleaved:

- numpy matvec: the same tenant's N x dim float32 embeddings already in memory, one
  matrix-vector product and a top-10 partition: what exact vector search cannot beat;
- bare FTS5 MATCH: a standalone FTS5 table of exactly that tenant's chunk texts (its own
  SQLite file, no wall, no join), with the tenant index's tokenizer and the very MATCH expression
  the lexical leg builds (manager/backend/sqlite/kb.py: fts_expression: stop words out, identifiers
  as phrases and prefixes, adjacent word pairs), ORDER BY rank LIMIT 10.

Beside them, what calibrated relevance adds to a search, timed alone after an untimed lexical leg
(calibration_ms: the index's counts of the query's words, the text of the leg's first candidates, the
evidence read from them), and its share of hybrid's p50. Ratios are p50 over p50. Self-contained: nothing to download (the default embedder only
embeds the queries; the Lee vocabulary is used when gensim is installed).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .common import machine, markdown_table, report, summary_ms
from .corpus import build_chunks, queries, vocabulary

K = 10
METHODS = {"lexical": ("lexical",), "vector": ("vector",), "hybrid": ("lexical", "vector")}
#: the issue's targets at the largest size: ratios to the floors, and hybrid p95 on a quiet machine
TARGETS = {"vector_over_numpy": 3.0, "lexical_over_fts5": 1.5, "hybrid_p95_ms": 30.0}


def fts_floor_query(text: str) -> str:
    """The MATCH expression the lexical leg runs for `text`, so the floor does the same FTS5 work."""
    from memgate.manager.backend.sqlite.kb import fts_expression

    return fts_expression(text) or '""'


def index_tokenizer() -> str:
    """The tokenize option of a tenant's lexical index, read from its template."""
    from memgate.manager.backend.sqlite.lexical import index_tokenizer as of_template

    return of_template()


def fts_floor_table(path: Path, texts: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE floor USING fts5(content, tokenize = '{index_tokenizer()}')")
    conn.executemany("INSERT INTO floor(rowid, content) VALUES (?, ?)", enumerate(texts, 1))
    conn.commit()
    return conn


def numpy_floor(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    scores = matrix @ q
    return np.argpartition(-scores, K - 1)[:K] if len(scores) > K else np.arange(len(scores))


def measure_size(workdir: Path, n: int, qs: list[str], words: list[str], embedder) -> dict:
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, open_backend

    me = Identity(tenant="bench", user="bench", principal="bench")
    other = Identity(tenant="other", user="other", principal="bench")
    dim = int(embedder.embed(["probe"]).shape[1])
    path = workdir / f"search_{n}.db"
    backend = open_backend(DatabaseSettings(path=path))
    manager = MemoryManager(backend, embedder=embedder)
    t0 = time.perf_counter()
    texts, vectors = build_chunks(backend, me, n, words, model=embedder.name, seed=1, dim=dim)
    build_chunks(backend, other, n, words, model=embedder.name, seed=2, dim=dim)
    build_s = time.perf_counter() - t0
    fts = fts_floor_table(workdir / f"floor_{n}.db", texts)
    del texts
    qvecs = embedder.embed(qs).astype(np.float32)
    timings: dict[str, list[float]] = {m: [] for m in [*METHODS, "numpy_floor", "fts5_floor", "calibration"]}

    def run(name: str, i: int, q: str) -> None:
        if name == "calibration":
            timings[name].append(calibration_ms(backend, me, q))
            return
        t = time.perf_counter()
        if name == "numpy_floor":
            numpy_floor(vectors, qvecs[i])
        elif name == "fts5_floor":
            fts.execute(
                "SELECT rowid, rank FROM floor WHERE floor MATCH ? ORDER BY rank LIMIT ?", (fts_floor_query(q), K)
            ).fetchall()
        else:
            manager.search_chunks(me, q, limit=K, methods=METHODS[name])
        timings[name].append((time.perf_counter() - t) * 1000)

    names = list(timings)
    for name in names:  # warm each path once (page cache, first-use costs), untimed
        run(name, 0, qs[0])
        timings[name].clear()
    for i, q in enumerate(qs):
        order = names[i % len(names) :] + names[: i % len(names)]  # rotate, so no path always goes first
        for name in order:
            run(name, i, q)
    fts.close()
    manager.close()
    row: dict[str, Any] = {
        "chunks_per_tenant": n,
        "tenants": 2,
        "queries": len(qs),
        "build_seconds": round(build_s, 1),
        "db_mb": round(path.stat().st_size / 2**20, 1),
        **{k: summary_ms(v) for k, v in timings.items()},
    }
    row["calibration_share_of_hybrid"] = round(row["calibration"]["p50_ms"] / row["hybrid"]["p50_ms"], 2)
    row["vector_over_numpy"] = round(row["vector"]["p50_ms"] / row["numpy_floor"]["p50_ms"], 1)
    row["lexical_over_fts5"] = round(row["lexical"]["p50_ms"] / row["fts5_floor"]["p50_ms"], 2)
    return row


def calibration_ms(backend, who, query: str) -> float:
    """What calibrated relevance adds to a search (manager/kb/relevance.py), timed alone after an untimed
    lexical leg: the index's counts of the query's words, the text of the leg's first candidates (which
    the hits shown mostly read anyway: an upper bound) and the evidence read from them."""
    from memgate.manager.backend.base import ChunkFilters
    from memgate.manager.clock import now_iso
    from memgate.manager.kb import relevance

    with backend.session(who) as s:
        first = s.kb_lexical(query, 50, ChunkFilters(now=now_iso()))[: relevance.COVERAGE_CANDIDATES]
        t = time.perf_counter()
        stats = s.kb_term_stats(relevance.query_words(query))
        rows = s.fetch_all("kb_chunk_details", seqs=json.dumps([seq for seq, _ in first])) if first else []
        relevance.evidence(query, {"lexical": first}, {r["seq"]: r["content"] for r in rows}, stats)
        return (time.perf_counter() - t) * 1000


def table(rows: list[dict]) -> str:
    def cell(r, k):
        return f"{r[k]['p50_ms']} / {r[k]['p95_ms']}"

    return markdown_table(
        [
            "chunks per tenant",
            "lexical p50 / p95 ms",
            "bare FTS5 floor",
            "lexical / floor",
            "vector p50 / p95 ms",
            "numpy floor",
            "vector / floor",
            "hybrid p50 / p95 ms",
            "of which calibration p50 / p95 ms",
            "calibration / hybrid (p50)",
        ],
        [
            [
                f"{r['chunks_per_tenant']:,}",
                cell(r, "lexical"),
                cell(r, "fts5_floor"),
                f"{r['lexical_over_fts5']}x",
                cell(r, "vector"),
                cell(r, "numpy_floor"),
                f"{r['vector_over_numpy']}x",
                cell(r, "hybrid"),
                cell(r, "calibration") if "calibration" in r else "-",  # results from before it was timed
                f"{r['calibration_share_of_hybrid']}" if "calibration" in r else "-",
            ]
            for r in rows
        ],
    )


def targets(rows: list[dict]) -> dict:
    top = rows[-1]
    return {
        "at_chunks": top["chunks_per_tenant"],
        "vector_over_numpy": {"target": TARGETS["vector_over_numpy"], "measured": top["vector_over_numpy"]},
        "lexical_over_fts5": {"target": TARGETS["lexical_over_fts5"], "measured": top["lexical_over_fts5"]},
        "hybrid_p95_ms": {"target": TARGETS["hybrid_p95_ms"], "measured": top["hybrid"]["p95_ms"]},
    }


def summary(data: dict) -> str:
    t = data["targets"]
    return (
        f"At {t['at_chunks']:,} chunks per tenant: vector / numpy floor {t['vector_over_numpy']['measured']}x "
        f"(target <= {t['vector_over_numpy']['target']}x); lexical / FTS5 floor "
        f"{t['lexical_over_fts5']['measured']}x (target <= {t['lexical_over_fts5']['target']}x); hybrid p95 "
        f"{t['hybrid_p95_ms']['measured']} ms (target <= {t['hybrid_p95_ms']['target']} ms on a quiet machine)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.search", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[1_000, 10_000, 100_000],
        help="chunks per tenant (default: 1000 10000 100000)",
    )
    parser.add_argument("--queries", type=int, default=30, help="queries per size (default 30)")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    from memgate.manager import default_embedder

    started, info = time.perf_counter(), machine()
    embedder = default_embedder()
    words = vocabulary()
    qs = queries(words, args.queries)
    rows = []
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        for n in args.sizes:
            rows.append(measure_size(Path(tmp), n, qs, words, embedder))
            print(f"  {n:,} chunks per tenant done ({rows[-1]['build_seconds']} s to build)", flush=True)
    data = {
        "machine": info,
        "embedder": embedder.name,
        "top_k": K,
        "sizes": rows,
        "targets": targets(rows),
        "corpus": "generated text (Zipf-like over real words), random unit-vector embeddings; two tenants",
    }
    report(
        "search",
        f"Search latency, two tenants of N chunks, top {K}, {args.queries} queries, embedder {embedder.name}",
        data,
        table(rows) + "\n\n" + summary(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
