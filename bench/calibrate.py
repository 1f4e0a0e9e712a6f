"""Fit the relevance curves (manager/kb/relevance.py) and choose the default relevance floor.

    python3 -m bench.calibrate [--embedder default|minilm|hashing] [--results PATH] [--cv]

On the tuning third of each judged collection's queries (bench/quality.py), the tuning third of its
off-topic queries (bench/offtopic.py) and all of the second off-topic set (bench/offtopic_more.py),
each query is searched as search_memory searches it (a Lee query's own document left out, also from
the index's word counts) and read as relevance.evidence reads it: the best cosine, the best coverage
among the lexical leg's first candidates, the share of its words the tenant's index holds, its
length, the index's size. The same queries are also asked of small tenants of 3, 10 and 30 documents
sampled from the collection (bench/calibrate_small.py), so the curves know how evidence behaves in a
small knowledge base. Label 1 for a judged query, 0 for an off-topic one; the judged and the off-topic
queries of each collection and size weigh the same in all. Four logistic curves are fitted by
Newton's method on the same queries, one per kind of evidence at hand (both legs with the index's word
counts, both without, the lexical leg alone, the vector leg alone).

The floor: among the floors (steps of 0.005) at which at most 2% of each whole collection's tuning
judged queries get nothing, those that answer the fewest of its tuning off-topic queries form a range;
the default floor is its middle on the logit scale, rounded to 0.01 (the widest margin on both
sides). The small tenants' shares at that floor are reported beside. The test parts are not read. `--cv` also prints 5-fold cross-validated log loss for several blends of the
tenant's own word counts with English usage (relevance.BLEND_CHUNKS), and the chosen blend's curve with
the lexical leg's best BM25 added (not kept: docs/benchmarks.md). Paste the printed curves into
relevance.CALIBRATIONS and the floor into limits.DEFAULT_RELEVANCE_FLOOR; bench.quality then reports
both on the test parts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from . import calibrate_small
from .common import machine
from .datasets import Collection
from .datasets_more import split
from .offtopic import off_topic
from .offtopic_more import more_off_topic
from .quality import COLLECTIONS, pick_embedder

#: at most this share of a collection's tuning queries may get nothing at the chosen floor
FALSE_ABSTENTION = 0.02
DEPTH = 50
#: the features of each curve, in relevance.Calibration's order (after the intercept and ln(words))
CURVES = {
    "indexed": ("cosine", "coverage", "present", "size", "cosine_size", "coverage_size"),
    "unindexed": ("cosine", "coverage_english"),
    "lexical": ("coverage", "present", "size", "coverage_size"),
    "vector": ("cosine",),
}
#: blends of the index's word counts with English usage compared by --cv (chunks at which both weigh alike)
BLENDS = (1, 100, 300, 500, 1000, 3000, 10**9)


def logistic_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method: [intercept, coefficients...]."""
    x = np.hstack([np.ones((len(x), 1)), x])
    b = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ b)))
        gradient = x.T @ (w * (y - p)) - l2 * b
        hessian = -(x.T * (w * p * (1 - p))) @ x - l2 * np.eye(len(b))
        step = np.linalg.solve(hessian, gradient)
        b -= step
        if np.abs(step).max() < 1e-10:
            break
    return b


def queries_of(embedder, coll: Collection, parts: list[Collection], workdir: Path) -> list[dict]:
    """Per query of `parts`: what relevance.evidence needs (its legs' best, the index's counts)."""
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, open_backend
    from memgate.manager.clock import now_iso
    from memgate.manager.kb import relevance
    from memgate.manager.kb import search as kb_search

    who = Identity(tenant="bench", user="bench", principal="bench")
    manager = MemoryManager(open_backend(DatabaseSettings(path=workdir / f"cal-{coll.name}.db")), embedder=embedder)
    stored = {
        doc_id: manager.ingest_text(
            who, title=doc_id, text=text, source_uri=f"{coll.name}://{doc_id}", collection=coll.name
        ).document_id
        for doc_id, text in coll.docs.items()
    }
    out = []
    with manager.backend.session(who) as s:
        now = now_iso()
        for part in parts:
            for qid, query in part.queries.items():
                own = stored.get(part.source_doc.get(qid, ""))
                legs = kb_search.run_legs(
                    s, embedder, query, now, depth=DEPTH, filters=kb_search.SearchFilters(exclude_document_id=own)
                )
                first = legs.scored.get("lexical", [])[: relevance.COVERAGE_CANDIDATES]
                out.append(
                    {
                        "collection": coll.name.split("-")[0],
                        "judged": bool(part.qrels[qid]),
                        "query": query,
                        "scored": {"lexical": first, "vector": legs.scored.get("vector", [])[:1]},
                        "texts": {seq: legs.texts.get(seq, "") for seq, _ in first},
                        "stats": legs.stats,
                    }
                )
        chunks = calibrate_small.stored_chunks(s)
    manager.close()
    vectors: dict[str, np.ndarray] = {}

    def embed(query: str) -> np.ndarray:
        if query not in vectors:
            vectors[query] = np.asarray(embedder.embed([query])[0], dtype=np.float32)
        return vectors[query]

    return out + calibrate_small.sampled_queries(coll.name.split("-")[0], parts, chunks, embed, seed=coll.name)


def features(q: dict, blend: int | None = None) -> dict[str, float]:
    from memgate.manager.kb import relevance

    blend = relevance.BLEND_CHUNKS if blend is None else blend
    e = relevance.evidence(q["query"], q["scored"], q["texts"], q["stats"], blend_chunks=blend)
    english = relevance.evidence(q["query"], q["scored"], q["texts"], None)
    return {
        "words": math.log(max(1, e.words)),
        "cosine": e.cosine or 0.0,
        "coverage": e.coverage or 0.0,
        "present": e.present or 0.0,
        "size": e.size,
        "cosine_size": (e.cosine or 0.0) * e.size,
        "coverage_size": (e.coverage or 0.0) * e.size,
        "coverage_english": english.coverage or 0.0,
        # not in any curve: --cv compares the indexed curve with it (docs/benchmarks.md, "Why Lee still misses")
        "bm25": math.log1p(max(0.0, lexical[0][1])) if (lexical := q["scored"].get("lexical")) else 0.0,
    }


def _rows(queries: list[dict], names: tuple[str, ...], feats: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    groups: dict[tuple[str, bool], int] = {}
    for q in queries:
        groups[(q["collection"], q["judged"])] = groups.get((q["collection"], q["judged"]), 0) + 1
    x = np.array([[f["words"], *(f[n] for n in names)] for f in feats])
    y = np.array([float(q["judged"]) for q in queries])
    w = np.array([1 / groups[(q["collection"], q["judged"])] for q in queries])
    return x, y, w


def fit(queries: list[dict]) -> dict[str, list[float]]:
    feats = [features(q) for q in queries]
    return {
        curve: [round(float(v), 2) for v in logistic_fit(*_rows(queries, names, feats))]
        for curve, names in CURVES.items()
    }


def cross_validated(
    queries: list[dict], blend: int, folds: int = 5, seeds: int = 3, extra: tuple[str, ...] = ()
) -> float:
    """Mean log loss of the indexed curve (with the `extra` features) over `folds`-fold splits of the
    tuning queries."""
    feats = [features(q, blend) for q in queries]
    x, y, w = _rows(queries, CURVES["indexed"] + extra, feats)
    losses = []
    for seed in range(seeds):
        order = list(range(len(queries)))
        random.Random(seed).shuffle(order)
        for k in range(folds):
            test = np.array([i for n, i in enumerate(order) if n % folds == k])
            train = np.array([i for n, i in enumerate(order) if n % folds != k])
            b = logistic_fit(x[train], y[train], w[train])
            p = np.clip(1 / (1 + np.exp(-(b[0] + x[test] @ b[1:]))), 1e-6, 1 - 1e-6)
            losses.append(float(np.mean(-(y[test] * np.log(p) + (1 - y[test]) * np.log(1 - p)))))
    return round(float(np.mean(losses)), 4)


def choose_floor(queries: list[dict], embedder_name: str) -> tuple[float, dict]:
    """The middle (logit scale) of the floors that keep each collection's tuning judged queries empty at
    most FALSE_ABSTENTION of the time and answer the fewest tuning off-topic queries."""
    from memgate.manager.kb import relevance

    cal = relevance.calibration_for(embedder_name)
    best: dict[str, list[float]] = {}
    for q in queries:
        key = f"{q['collection']}/{'judged' if q['judged'] else 'off-topic'}"
        e = relevance.evidence(q["query"], q["scored"], q["texts"], q["stats"])
        best.setdefault(key, []).append(cal.relevance(e))
    whole = {k: v for k, v in best.items() if "docs/" not in k}  # the small tenants are reported, not chosen on
    candidates = []
    for step in range(1, 200):
        floor = step / 200
        if all(
            sum(b < floor for b in values) <= FALSE_ABSTENTION * len(values)
            for key, values in whole.items()
            if key.endswith("/judged")
        ):
            answered = sum(sum(b >= floor for b in v) for k, v in whole.items() if k.endswith("/off-topic"))
            candidates.append((answered, floor))
    fewest = min(a for a, _ in candidates)
    span = [f for a, f in candidates if a == fewest]
    logit = (math.log(span[0] / (1 - span[0])) + math.log(span[-1] / (1 - span[-1]))) / 2
    floor = round(1 / (1 + math.exp(-logit)), 2)
    shares = {k: round(sum(b < floor for b in v) / len(v), 3) for k, v in sorted(best.items())}
    return floor, {"with_nothing": shares, "optimal_range": [span[0], span[-1]]}


def main(argv: list[str] | None = None) -> int:
    from memgate.manager.kb import relevance

    parser = argparse.ArgumentParser(prog="python3 -m bench.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["default", "hashing", "minilm"], default="default")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    parser.add_argument("--cv", action="store_true", help="also compare blends of word counts by cross-validation")
    args = parser.parse_args(argv)
    started, embedder = time.perf_counter(), pick_embedder(args.embedder)
    queries: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="memgate-calibrate-") as tmp:
        for make in COLLECTIONS.values():
            coll = make()
            parts = [split(coll, "tune"), split(off_topic(coll), "tune"), more_off_topic(coll)]
            queries += queries_of(embedder, coll, parts, Path(tmp))
    curves = fit(queries)
    relevance.CALIBRATIONS[embedder.name] = relevance.Calibration(**{k: tuple(v) for k, v in curves.items()})  # type: ignore[arg-type]
    floor, shares = choose_floor(queries, embedder.name)
    data = {
        "embedder": embedder.name,
        "curves": curves,
        "blend_chunks": relevance.BLEND_CHUNKS,
        "floor": floor,
        "tuning": shares,
        "tuning_queries": len(queries),
        "machine": machine(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.cv:
        data["cross_validated_log_loss"] = {str(b): cross_validated(queries, b) for b in BLENDS}
        data["cross_validated_log_loss_with_bm25"] = cross_validated(queries, relevance.BLEND_CHUNKS, extra=("bm25",))
    data["seconds"] = round(time.perf_counter() - started, 1)
    out = args.results or Path(__file__).parent / "results" / f"calibration-{embedder.name}.json"
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f'    "{embedder.name}": Calibration(')
    for k, v in curves.items():
        print(f"        {k}={tuple(v)},")
    print("    ),")
    print(f"floor {floor}: {shares}")
    if args.cv:
        print("cross-validated log loss by BLEND_CHUNKS:", data["cross_validated_log_loss"])
        print("and with ln(1 + the lexical leg's best BM25) added:", data["cross_validated_log_loss_with_bm25"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
