"""Retrieval quality on the Lee corpus: nDCG@10 and recall@10 of lexical, vector and hybrid search.

    python3 -m pip install -e '.[bench]' && python3 -m bench.quality [--embedder hashing]

Each method runs through MemoryManager.search_chunks on the Lee collection
(bench/datasets.py: 50 rated news documents plus 300 background documents, each rated
document's first sentence as a query; documents are ranked by their best chunk, and the
query's own document is left out). Nothing is downloaded: the corpus ships in gensim's wheel.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from .common import machine, markdown_table, report
from .datasets import Collection, lee
from .metrics import mean_over_queries, ndcg_at_k, recall_at_k

METHODS = {"lexical": ("lexical",), "vector": ("vector",), "hybrid": ("lexical", "vector")}
LABELS = {"lexical": "lexical (FTS5 BM25)", "vector": "vector (exact cosine)", "hybrid": "hybrid (RRF, k=60)"}
K = 10


def pick_embedder(name: str):
    from memgate.manager import HashingEmbedder, default_embedder

    return HashingEmbedder(256) if name == "hashing" else default_embedder()


def quality(embedder, workdir: Path, coll: Collection | None = None) -> dict:
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, open_backend

    coll = coll or lee()
    who = Identity(tenant="bench", user="bench", principal="bench")
    manager = MemoryManager(open_backend(DatabaseSettings(path=workdir / "quality.db")), embedder=embedder)
    started = time.perf_counter()
    for doc_id, text in coll.docs.items():
        manager.ingest_text(who, title=doc_id, text=text, source_uri=f"lee://{doc_id}", collection="lee")
    ingest_s = time.perf_counter() - started
    out = {
        "collection": coll.name,
        "docs": len(coll.docs),
        "queries": len(coll.queries),
        "judgments": sum(len(j) for j in coll.qrels.values()),
        "ingest_seconds": round(ingest_s, 2),
        "methods": {},
    }
    for name, methods in METHODS.items():
        run = {}
        for qid, query in coll.queries.items():
            hits = manager.search_chunks(who, query, limit=4 * K, methods=methods)
            ranked = [h.title for h in hits if h.title != coll.source_doc[qid]]
            run[qid] = list(dict.fromkeys(ranked))[:K]
        out["methods"][name] = {
            "ndcg@10": round(mean_over_queries(run, coll.qrels, ndcg_at_k, K), 4),
            "recall@10": round(mean_over_queries(run, coll.qrels, recall_at_k, K), 4),
        }
    manager.close()
    return out


def table(q: dict) -> str:
    return markdown_table(
        ["method", "nDCG@10", "recall@10"],
        [[LABELS[m], f"{v['ndcg@10']:.3f}", f"{v['recall@10']:.3f}"] for m, v in q["methods"].items()],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.quality", description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["default", "hashing"], default="default")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    embedder = pick_embedder(args.embedder)
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        data = quality(embedder, Path(tmp))
    data.update(machine=info, embedder=embedder.name)
    report(
        "quality",
        f"Retrieval quality: {data['collection']} ({data['docs']} docs, {data['queries']} queries, "
        f"{data['judgments']} judgments), embedder {embedder.name}",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
