"""Retrieval benchmark: quality on the Lee corpus and search latency at 10k and 100k chunks.

    python -m bench.run                       # both parts, the default embedder
    python -m bench.run --chunks 10000        # latency at one size only
    python -m bench.run --skip-latency --embedder hashing

Quality: nDCG@10 and recall@10 of lexical (FTS5 BM25), vector (exact cosine) and
hybrid (reciprocal rank fusion) search, each through MemoryManager.search_chunks, on
the Lee collection (bench/datasets.py). Latency: p50/p95 of the same three over
generated chunks in a real SQLite file, a second tenant holding as many chunks
again, so every query also passes the tenant wall. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memgate.manager import DatabaseSettings, HashingEmbedder, Identity, MemoryManager, default_embedder, open_backend
from memgate.manager.ids import new_id

from .datasets import Collection, lee
from .metrics import mean_over_queries, ndcg_at_k, recall_at_k

BENCH = Identity(tenant="bench", user="bench", principal="bench")
OTHER = Identity(tenant="other", user="other", principal="bench")
METHODS = {"lexical": ("lexical",), "vector": ("vector",), "hybrid": ("lexical", "vector")}
K = 10


def _backend(path: Path):
    return open_backend(DatabaseSettings(path=path))


def pick_embedder(name: str):
    return HashingEmbedder(256) if name == "hashing" else default_embedder()


def quality(embedder, workdir: Path, coll: Collection | None = None) -> dict:
    coll = coll or lee()
    manager = MemoryManager(_backend(workdir / "quality.db"), embedder=embedder)
    started = time.perf_counter()
    for doc_id, text in coll.docs.items():
        manager.ingest_text(BENCH, title=doc_id, text=text, source_uri=f"lee://{doc_id}", collection="lee")
    ingest_s = time.perf_counter() - started
    out = {"collection": coll.name, "docs": len(coll.docs), "queries": len(coll.queries),
           "judgments": sum(len(j) for j in coll.qrels.values()), "ingest_seconds": round(ingest_s, 2),
           "methods": {}}
    for name, methods in METHODS.items():
        run = {}
        for qid, query in coll.queries.items():
            # Documents are ranked by their best chunk; the query's own document is left out.
            hits = manager.search_chunks(BENCH, query, limit=4 * K, methods=methods)
            ranked = [h.title for h in hits if h.title != coll.source_doc[qid]]
            run[qid] = list(dict.fromkeys(ranked))[:K]
        out["methods"][name] = {"ndcg@10": round(mean_over_queries(run, coll.qrels, ndcg_at_k, K), 4),
                                "recall@10": round(mean_over_queries(run, coll.qrels, recall_at_k, K), 4)}
    manager.close()
    return out


def _vocabulary() -> list[str]:
    """Real words to generate text from: the Lee background documents' vocabulary."""
    import re
    words = re.findall(r"[a-z]{3,}", " ".join(lee().docs.values()).lower())
    return sorted(set(words))


def build_chunks(manager: MemoryManager, identity: Identity, n: int, words: list[str], seed: int,
                 per_doc: int = 50, batch: int = 2000) -> None:
    """n generated ~80-word chunks in documents of `per_doc`, written as ingest writes them."""
    rng = random.Random(seed)
    # A Zipf-like draw, so some words are common and most are rare, as in real text.
    weights = [1 / (r + 1) for r in range(len(words))]
    embedder = manager.embedder
    written = 0
    while written < n:
        size = min(batch, n - written)
        texts = [" ".join(rng.choices(words, weights, k=80)) for _ in range(size)]
        vectors = embedder.embed(texts)
        with manager.backend.session(identity) as s, s.transaction():
            for i, (text, vec) in enumerate(zip(texts, vectors)):
                pos = written + i
                doc_id = f"doc_{identity.tenant}_{pos // per_doc}"
                if pos % per_doc == 0:
                    s.insert("knowledge_base_document", {"id": doc_id, "tenant_id": identity.tenant,
                                                         "title": f"generated {pos // per_doc}",
                                                         "source_uri": f"gen://{doc_id}"})
                s.insert("knowledge_base_chunk", {
                    "id": new_id("chk"), "tenant_id": identity.tenant, "document_id": doc_id,
                    "position": pos % per_doc, "content": text, "token_count": 80,
                    "embedding": vec, "embedding_model": embedder.name})
        written += size


def latency(embedder, workdir: Path, sizes: list[int], queries: int = 50,
            words: list[str] | None = None) -> list[dict]:
    words = words or _vocabulary()
    rng = random.Random(7)
    qs = [" ".join(rng.sample(words[:3000], 3)) for _ in range(queries)]
    results = []
    for n in sizes:
        path = workdir / f"latency_{n}.db"
        manager = MemoryManager(_backend(path), embedder=embedder)
        started = time.perf_counter()
        build_chunks(manager, BENCH, n, words, seed=1)
        build_chunks(manager, OTHER, n, words, seed=2)
        build_s = time.perf_counter() - started
        row = {"chunks_per_tenant": n, "tenants": 2, "build_seconds": round(build_s, 1),
               "db_mb": round(path.stat().st_size / 2**20, 1)}
        for name, methods in METHODS.items():
            manager.search_chunks(BENCH, qs[0], limit=K, methods=methods)  # warm the page cache
            times = []
            for q in qs:
                t0 = time.perf_counter()
                manager.search_chunks(BENCH, q, limit=K, methods=methods)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            row[name] = {"p50_ms": round(statistics.median(times), 1),
                         "p95_ms": round(times[max(0, int(round(0.95 * len(times))) - 1)], 1)}
        results.append(row)
        manager.close()
        print(f"  {n} chunks: {json.dumps(row)}", file=sys.stderr)
    return results


def markdown(report: dict) -> str:
    lines = []
    q = report.get("quality")
    if q:
        lines += [f"Quality: {q['collection']} ({q['docs']} docs, {q['queries']} queries, {q['judgments']} "
                  f"judgments), embedder {report['embedder']}",
                  "", "| method | nDCG@10 | recall@10 |", "|---|---|---|"]
        lines += [f"| {m} | {v['ndcg@10']:.3f} | {v['recall@10']:.3f} |" for m, v in q["methods"].items()]
    if report.get("latency"):
        lines += ["", f"Latency: {report['latency'][0]['tenants']} tenants with N chunks each, "
                  f"search as one of them, top {K}, 50 queries",
                  "", "| chunks per tenant | lexical p50 / p95 ms | vector p50 / p95 ms | hybrid p50 / p95 ms |",
                  "|---|---|---|---|"]
        for r in report["latency"]:
            cells = [f"{r[m]['p50_ms']} / {r[m]['p95_ms']}" for m in METHODS]
            lines.append(f"| {r['chunks_per_tenant']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000],
                        help="latency at these chunk counts per tenant (default: 10000 100000)")
    parser.add_argument("--embedder", choices=["default", "hashing"], default="default")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    embedder = pick_embedder(args.embedder)
    report: dict = {"embedder": embedder.name}
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        if not args.skip_quality:
            report["quality"] = quality(embedder, Path(tmp))
        if not args.skip_latency:
            report["latency"] = latency(embedder, Path(tmp), args.chunks)
    print(markdown(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
